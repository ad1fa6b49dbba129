//! Choosing the accelerator for `--accel auto`: KVM only when guest kernel
//! code runs at hardware speed. The presence of `/dev/kvm` is not enough:
//! on a host that is itself a VM, `/dev/kvm` can be backed by a
//! paravirtual implementation (PVM) that runs guest user code natively but
//! emulates every guest kernel instruction, thousands of times slower, and
//! stock kernels fail under it.

use super::qemu::Accel;

/// The accelerator to use, and why.
pub fn choose() -> (Accel, String) {
    if std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/kvm")
        .is_err()
    {
        return (Accel::Tcg, "/dev/kvm cannot be opened here".into());
    }
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let hardware = cpuinfo
        .lines()
        .filter(|l| l.starts_with("flags"))
        .any(|l| l.split_whitespace().any(|f| f == "vmx" || f == "svm"));
    if !hardware {
        return (
            Accel::Tcg,
            "/dev/kvm is there, but the CPU has no vmx or svm: it is a paravirtual KVM \
             (PVM), under which guest kernel code is emulated"
                .into(),
        );
    }
    (
        Accel::Kvm,
        "/dev/kvm with hardware virtualization (vmx/svm)".into(),
    )
}
