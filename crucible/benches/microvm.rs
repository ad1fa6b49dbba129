//! `cargo bench -p crucible --bench microvm`
//!
//! The microVM backend as a user meets it, on this machine, printing
//! medians against the targets and one anchor measured in the same
//! run:
//! 1. create-to-ready (qemu started to the agent's first answer): booted
//!    from the kernel (target ≤ 4 s under TCG) and resumed from the warm
//!    snapshot (target ≤ 0.5 s);
//! 2. an exec round trip over the agent (`true`: start, exit frame back),
//!    beside the anchor: the same request run by the local backend (a
//!    child process on the host);
//! 3. the host memory of each resumed VM after an exec, with `ALIVE` of
//!    them running at once (target ≤ 150 MiB): its proportional share
//!    (PSS: its own pages, plus each page it shares with other VMs divided
//!    among them, which is what it adds to the host), beside its resident
//!    size (RSS: every page it maps, shared or not).
//!
//! Needs qemu (`apt-get install qemu-system-x86`); prepares its guest under
//! `target/microvm-bench` (kernel and busybox by `apt-get download`, once).

use std::path::Path;
use std::time::{Duration, Instant};

use crucible::local::LocalBackend;
use crucible::sandbox::{Output, Sandbox};
use crucible::vm::image::{GuestSpec, KernelSource};
use crucible::vm::qemu::{self, How, Size, VmConfig};
use crucible::vm::{accel, image, snapshot};
use crucible::wire::ExecRequest;

const COLD: usize = 3;
const WARM: usize = 7;
const EXECS: usize = 30;
/// Resumed VMs running at once while their memory is measured.
const ALIVE: usize = 4;
/// Each VM's memory: the daemon's default.
const MEMORY_MIB: u32 = 512;

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

async fn exec_true(s: &dyn Sandbox) -> Duration {
    let started = Instant::now();
    let mut p = s.exec(&ExecRequest::new(["true"]), false).expect("started");
    while let Some(o) = p.output.recv().await {
        if let Output::Exit(r) = o {
            assert_eq!(r.exit_code, 0, "{r:?}");
            return started.elapsed();
        }
    }
    panic!("no exit");
}

/// A field of `/proc/PID/smaps_rollup` (`Rss:`, `Pss:`), in KiB.
fn rollup_kib(pid: u32, field: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup"))
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix(field))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn mib(kib: u64) -> String {
    format!("{:.0} MiB", kib as f64 / 1024.0)
}

fn main() {
    let qemu_bin = match qemu::find_qemu() {
        Ok(q) => q,
        Err(e) => {
            eprintln!("microvm bench: {e}");
            std::process::exit(2);
        }
    };
    let state = Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/microvm-bench");
    let (accel, why) = accel::choose();
    println!("accelerator: {} ({why})", accel.name());
    let spec = GuestSpec {
        kernel: KernelSource::Debian,
        agent: env!("CARGO_BIN_EXE_crucible-agent").into(),
        // The guest as the tests make it: with the runtime, when one is built.
        runtime: ["release", "debug"]
            .iter()
            .map(|p| state.join("..").join(p).join("othismo-run"))
            .find(|p| p.is_file()),
        state: state.clone(),
    };
    let guest = image::prepare(&spec, &mut |s| eprintln!("{s}")).expect("the guest");
    let initrd = std::fs::metadata(&guest.initrd).map_or(0, |m| m.len());
    println!(
        "guest: initramfs {:.1} MiB ({})",
        initrd as f64 / (1 << 20) as f64,
        match &spec.runtime {
            Some(r) => format!("with {}", r.display()),
            None => "no othismo-run built".into(),
        }
    );
    let cfg = VmConfig {
        qemu: qemu_bin,
        accel,
        memory_mib: MEMORY_MIB,
        vcpus: 1,
        boot_deadline: Duration::from_secs(120),
    };
    let size = Size {
        memory_mib: MEMORY_MIB,
        vcpus: 1,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let dir = state.join("vms");
        let mut cold = Vec::new();
        for i in 0..COLD {
            let at = dir.join(format!("cold{i}"));
            let vm = qemu::start(&guest, &cfg, size, &at, How::Cold)
                .await
                .expect("a cold boot");
            cold.push(vm.boot);
            vm.stop().await;
        }
        let path = snapshot::path_for(&state, &guest, &cfg, size);
        let _ = std::fs::remove_file(&path);
        let made = snapshot::make(&guest, &cfg, size, &path)
            .await
            .expect("the snapshot");
        let mut warm = Vec::new();
        let mut last: Option<qemu::Vm> = None;
        for i in 0..WARM {
            let at = dir.join(format!("warm{i}"));
            let vm = qemu::start(&guest, &cfg, size, &at, How::Restore(&path))
                .await
                .expect("a resume");
            warm.push(vm.boot);
            if let Some(old) = last.replace(vm) {
                old.stop().await;
            }
        }
        let vm = last.expect("a resumed VM");
        let mut over_agent = Vec::new();
        for _ in 0..EXECS {
            over_agent.push(exec_true(&vm.link).await);
        }
        let mut alive = vec![vm];
        for i in 1..ALIVE {
            let at = dir.join(format!("alive{i}"));
            let vm = qemu::start(&guest, &cfg, size, &at, How::Restore(&path))
                .await
                .expect("a resume");
            exec_true(&vm.link).await;
            alive.push(vm);
        }
        let pids: Vec<u32> = alive.iter().filter_map(|v| v.pid()).collect();
        let pss = pids.iter().map(|&p| rollup_kib(p, "Pss:")).max().unwrap_or(0);
        let rss = pids.iter().map(|&p| rollup_kib(p, "Rss:")).max().unwrap_or(0);
        for vm in alive {
            vm.stop().await;
        }
        let local = LocalBackend::new(state.join("local"));
        let sb = local.create("anchor").expect("a local sandbox");
        let mut anchor = Vec::new();
        for _ in 0..EXECS {
            anchor.push(exec_true(sb.as_ref()).await);
        }
        let (cold, warm) = (median(cold), median(warm));
        let (over_agent, anchor) = (median(over_agent), median(anchor));
        println!(
            "create-to-ready, booted:  {} (median of {COLD}; target ≤ 4000 ms)",
            ms(cold)
        );
        println!("snapshot made in:          {}", ms(made));
        println!(
            "create-to-ready, resumed: {} (median of {WARM}; target ≤ 500 ms)",
            ms(warm)
        );
        println!(
            "exec round trip (true):    {} over the agent, {} local anchor: {:.1}×",
            ms(over_agent),
            ms(anchor),
            over_agent.as_secs_f64() / anchor.as_secs_f64()
        );
        println!(
            "host memory per resumed VM, {ALIVE} running: {} proportional (PSS; target ≤ 150 MiB), {} resident (RSS); the largest of them",
            mib(pss),
            mib(rss)
        );
    });
}
