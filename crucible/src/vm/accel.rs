//! Choosing the accelerator for `--accel auto`: KVM only when guest kernel
//! code runs at hardware speed. The presence of `/dev/kvm` is not enough:
//! on a host that is itself a VM, `/dev/kvm` can be a paravirtual
//! implementation (PVM) that runs guest user code natively but emulates
//! every guest kernel instruction, thousands of times slower, and stock
//! kernels fail under it. So the probe runs a tiny guest in kernel mode (a
//! counted loop in real mode, privilege level 0, then `hlt`) and times it.

use std::time::{Duration, Instant};

use super::qemu::Accel;

/// Loop iterations the probe guest runs: about 200,000 instructions, a
/// fraction of a millisecond in hardware, most of a second emulated.
const ITERATIONS: u32 = 100_000;

/// What counts as hardware speed for the probe.
const FAST: Duration = Duration::from_millis(20);

/// How long the probe may take before the answer is "slow".
const PATIENCE: Duration = Duration::from_secs(3);

/// The accelerator to use, and why.
pub fn choose() -> (Accel, String) {
    let (tx, rx) = std::sync::mpsc::channel();
    // On a thread: a KVM that crawls must not hold the daemon's start.
    std::thread::spawn(move || {
        let _ = tx.send(probe());
    });
    match rx.recv_timeout(PATIENCE) {
        Ok(Ok(took)) if took <= FAST => (
            Accel::Kvm,
            format!("a guest kernel-mode loop ran at hardware speed under KVM ({took:?})"),
        ),
        Ok(Ok(took)) => (
            Accel::Tcg,
            format!(
                "/dev/kvm is there but a guest kernel-mode loop took {took:?} under it (hardware: \
                 well under {FAST:?}): guest kernel code is emulated (a paravirtual KVM), so qemu's \
                 translator is faster"
            ),
        ),
        Ok(Err(why)) => (Accel::Tcg, format!("KVM cannot be used here: {why}")),
        Err(_) => (
            Accel::Tcg,
            format!(
                "a guest kernel-mode loop under KVM did not finish within {PATIENCE:?}: guest \
                 kernel code is emulated here"
            ),
        ),
    }
}

// The KVM ioctls the probe uses (linux/kvm.h).
const KVM_GET_API_VERSION: libc::c_ulong = 0xAE00;
const KVM_CREATE_VM: libc::c_ulong = 0xAE01;
const KVM_GET_VCPU_MMAP_SIZE: libc::c_ulong = 0xAE04;
const KVM_CREATE_VCPU: libc::c_ulong = 0xAE41;
const KVM_SET_USER_MEMORY_REGION: libc::c_ulong = 0x4020_AE46;
const KVM_RUN: libc::c_ulong = 0xAE80;
const KVM_SET_REGS: libc::c_ulong = 0x4090_AE82;
const KVM_GET_SREGS: libc::c_ulong = 0x8138_AE83;
const KVM_SET_SREGS: libc::c_ulong = 0x4138_AE84;
const KVM_EXIT_HLT: u32 = 5;

/// The probe guest's code, at guest address 0 in real mode:
/// `mov ecx, ITERATIONS; l: dec ecx; jnz l; hlt`.
fn code() -> Vec<u8> {
    let mut c = vec![0x66, 0xB9];
    c.extend_from_slice(&ITERATIONS.to_le_bytes());
    c.extend_from_slice(&[0x66, 0x49, 0x75, 0xFC, 0xF4]);
    c
}

/// A file descriptor closed when dropped.
struct Fd(libc::c_int);

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: closes a descriptor this probe opened and owns.
        unsafe {
            libc::close(self.0);
        }
    }
}

/// A mapping unmapped when dropped.
struct Map(*mut libc::c_void, usize);

impl Drop for Map {
    fn drop(&mut self) {
        // SAFETY: unmaps a mapping this probe made, of its own size.
        unsafe {
            libc::munmap(self.0, self.1);
        }
    }
}

fn check(r: libc::c_int, what: &str) -> Result<libc::c_int, String> {
    if r < 0 {
        Err(format!("{what}: {}", std::io::Error::last_os_error()))
    } else {
        Ok(r)
    }
}

/// Runs the probe guest: how long its loop took.
fn probe() -> Result<Duration, String> {
    const MEM: usize = 0x10000;
    // SAFETY: each call is a KVM ioctl or a mapping on descriptors this
    // function owns, with pointers to live buffers of the sizes the kernel
    // expects (checked against linux/kvm.h's structure sizes above).
    unsafe {
        let kvm = Fd(check(
            libc::open(c"/dev/kvm".as_ptr(), libc::O_RDWR | libc::O_CLOEXEC),
            "/dev/kvm cannot be opened",
        )?);
        let version = check(
            libc::ioctl(kvm.0, KVM_GET_API_VERSION, 0),
            "KVM_GET_API_VERSION",
        )?;
        if version != 12 {
            return Err(format!("KVM API version {version}, not 12"));
        }
        let vm = Fd(check(
            libc::ioctl(kvm.0, KVM_CREATE_VM, 0),
            "KVM_CREATE_VM",
        )?);
        let mem = libc::mmap(
            std::ptr::null_mut(),
            MEM,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        );
        if mem == libc::MAP_FAILED {
            return Err("mapping the guest's memory failed".into());
        }
        let mem = Map(mem, MEM);
        let code = code();
        std::ptr::copy_nonoverlapping(code.as_ptr(), mem.0 as *mut u8, code.len());
        // struct kvm_userspace_memory_region: slot, flags, guest address,
        // size, host address.
        let mut region = [0u8; 32];
        region[16..24].copy_from_slice(&(MEM as u64).to_le_bytes());
        region[24..32].copy_from_slice(&(mem.0 as u64).to_le_bytes());
        check(
            libc::ioctl(vm.0, KVM_SET_USER_MEMORY_REGION, region.as_ptr()),
            "KVM_SET_USER_MEMORY_REGION",
        )?;
        let vcpu = Fd(check(
            libc::ioctl(vm.0, KVM_CREATE_VCPU, 0),
            "KVM_CREATE_VCPU",
        )?);
        let size = check(
            libc::ioctl(kvm.0, KVM_GET_VCPU_MMAP_SIZE, 0),
            "KVM_GET_VCPU_MMAP_SIZE",
        )? as usize;
        let run = libc::mmap(
            std::ptr::null_mut(),
            size,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            vcpu.0,
            0,
        );
        if run == libc::MAP_FAILED {
            return Err("mapping the vCPU's run structure failed".into());
        }
        let run = Map(run, size);
        // struct kvm_sregs (312 bytes): cs first, its base at 0 and its
        // selector at 12; real mode with cs = 0 runs the code at address 0.
        let mut sregs = [0u8; 312];
        check(
            libc::ioctl(vcpu.0, KVM_GET_SREGS, sregs.as_mut_ptr()),
            "KVM_GET_SREGS",
        )?;
        sregs[0..8].fill(0);
        sregs[12..14].fill(0);
        check(
            libc::ioctl(vcpu.0, KVM_SET_SREGS, sregs.as_ptr()),
            "KVM_SET_SREGS",
        )?;
        // struct kvm_regs: 18 registers, rip 17th, rflags last (bit 1 set).
        let mut regs = [0u64; 18];
        regs[17] = 2;
        check(
            libc::ioctl(vcpu.0, KVM_SET_REGS, regs.as_ptr()),
            "KVM_SET_REGS",
        )?;
        let started = Instant::now();
        check(libc::ioctl(vcpu.0, KVM_RUN, 0), "KVM_RUN")?;
        let took = started.elapsed();
        let exit = std::ptr::read_volatile((run.0 as *const u8).add(8) as *const u32);
        if exit != KVM_EXIT_HLT {
            return Err(format!(
                "the probe guest stopped with KVM exit reason {exit}, not at its hlt"
            ));
        }
        Ok(took)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The probe's code is what its comment says (checked against an
    /// assembler's output once): 6 + 2 + 2 + 1 bytes, the jump back to
    /// the `dec`.
    #[test]
    fn the_probe_code_loops_back_to_its_dec() {
        let c = code();
        assert_eq!(c.len(), 11);
        assert_eq!(&c[6..8], [0x66, 0x49]);
        // jnz at 8 is 2 bytes: it lands on 10 - 4 = 6.
        assert_eq!(c[9] as i8, 6 - 10);
        assert_eq!(c[10], 0xF4);
    }

    /// On any machine the choice comes with its reason, and here (a PVM
    /// host: no vmx/svm) it is TCG.
    #[test]
    fn the_choice_says_why() {
        let (accel, why) = choose();
        assert!(!why.is_empty());
        let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
        let hardware = cpuinfo.contains(" vmx") || cpuinfo.contains(" svm");
        if !hardware {
            assert_eq!(accel, Accel::Tcg, "{why}");
        }
        eprintln!("{}: {why}", accel.name());
    }
}
