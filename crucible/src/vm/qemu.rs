//! One microVM: a qemu `-M microvm` process with no network device, its
//! serial console to a log file, and one virtio-serial port (`agent`) on a
//! unix socket the host connects to. The process runs under qemu's seccomp
//! sandbox; dropping the [`Vm`] kills it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::vm::image::Guest;
use crate::vm::link::AgentLink;
use crate::vm::wire::{Clock, Kind, Message};

/// How guest code runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accel {
    /// Hardware virtualization.
    Kvm,
    /// qemu's own translator: slower, works everywhere.
    Tcg,
}

impl Accel {
    pub fn name(self) -> &'static str {
        match self {
            Accel::Kvm => "kvm",
            Accel::Tcg => "tcg",
        }
    }
}

/// How every VM is started.
#[derive(Debug, Clone)]
pub struct VmConfig {
    /// `qemu-system-x86_64`.
    pub qemu: PathBuf,
    pub accel: Accel,
    pub memory_mib: u32,
    pub vcpus: u32,
    /// How long a boot may take to reach the agent's `Ready`.
    pub boot_deadline: Duration,
}

/// What one VM may be given, per sandbox.
#[derive(Debug, Clone, Copy)]
pub struct Size {
    pub memory_mib: u32,
    pub vcpus: u32,
}

/// A running VM.
pub struct Vm {
    pub link: AgentLink,
    child: tokio::process::Child,
    pub dir: PathBuf,
    /// How long it took from start to the agent's first answer.
    pub boot: Duration,
}

/// `qemu-system-x86_64` on `PATH`, or why not.
pub fn find_qemu() -> Result<PathBuf, String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join("qemu-system-x86_64"))
        .find(|p| p.is_file())
        .ok_or_else(|| {
            "qemu-system-x86_64 is not installed: `apt-get install qemu-system-x86` (Debian)"
                .to_string()
        })
}

/// The kernel command line: the console on the first serial port, quiet;
/// `tsc_early_khz` because TSC calibration can hang under TCG; a panic
/// ends qemu (`-no-reboot`) instead of hanging.
const APPEND: &str = "console=ttyS0 quiet tsc_early_khz=2600000 panic=-1";

fn argv(guest: &Guest, cfg: &VmConfig, size: Size, dir: &Path) -> Vec<String> {
    vec![
        "-M".into(),
        "microvm".into(),
        "-accel".into(),
        cfg.accel.name().into(),
        "-cpu".into(),
        match cfg.accel {
            Accel::Kvm => "host".into(),
            Accel::Tcg => "max".into(),
        },
        "-m".into(),
        format!("{}M", size.memory_mib),
        "-smp".into(),
        size.vcpus.to_string(),
        "-nodefaults".into(),
        "-no-user-config".into(),
        "-display".into(),
        "none".into(),
        "-monitor".into(),
        "none".into(),
        "-serial".into(),
        format!("file:{}", dir.join("console.log").display()),
        "-no-reboot".into(),
        "-kernel".into(),
        guest.vmlinux.display().to_string(),
        "-initrd".into(),
        guest.initrd.display().to_string(),
        "-append".into(),
        APPEND.into(),
        "-chardev".into(),
        format!(
            "socket,id=agent,path={},server=on,wait=off",
            dir.join("agent.sock").display()
        ),
        "-device".into(),
        "virtio-serial-device".into(),
        "-device".into(),
        "virtserialport,chardev=agent,name=agent".into(),
        // qemu's seccomp filter: no obsolete calls, no privilege changes,
        // no spawning programs, no scheduler or affinity changes.
        "-sandbox".into(),
        "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny".into(),
    ]
}

/// The last lines of a VM's console, to say why it did not come up.
fn console_tail(dir: &Path) -> String {
    let text = std::fs::read_to_string(dir.join("console.log")).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(8)..].join("\n");
    if tail.trim().is_empty() {
        "(the console is empty)".into()
    } else {
        tail
    }
}

/// Boots a VM in `dir` (made fresh) and waits for its agent.
pub async fn boot(guest: &Guest, cfg: &VmConfig, size: Size, dir: &Path) -> Result<Vm, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let started = Instant::now();
    let mut command = tokio::process::Command::new(&cfg.qemu);
    command
        .args(argv(guest, cfg, size, dir))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    // qemu dies with the daemon, however the daemon ends: a VM is never
    // left running with no one to reach it.
    // SAFETY: prctl is async-signal-safe and touches no memory of ours.
    unsafe {
        command.pre_exec(|| {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cfg.qemu.display()))?;
    let socket = dir.join("agent.sock");
    let connected = async {
        loop {
            match tokio::net::UnixStream::connect(&socket).await {
                Ok(s) => break s,
                Err(_) => tokio::time::sleep(Duration::from_millis(10)).await,
            }
        }
    };
    let stream = tokio::select! {
        s = tokio::time::timeout(Duration::from_secs(10), connected) => s.map_err(|_| {
            format!("qemu made no agent socket at {} within 10 s", socket.display())
        })?,
        status = child.wait() => return Err(qemu_ended(&mut child, status, dir).await),
    };
    let (r, w) = stream.into_split();
    let link = tokio::select! {
        l = AgentLink::connect(r, w, cfg.boot_deadline) => l.map_err(|e| {
            format!("{e}; the VM's console ends:\n{}", console_tail(dir))
        })?,
        status = child.wait() => return Err(qemu_ended(&mut child, status, dir).await),
    };
    let boot = started.elapsed();
    set_clock(&link).await?;
    Ok(Vm {
        link,
        child,
        dir: dir.to_path_buf(),
        boot,
    })
}

async fn qemu_ended(
    child: &mut tokio::process::Child,
    status: std::io::Result<std::process::ExitStatus>,
    dir: &Path,
) -> String {
    let mut err = String::new();
    if let Some(mut e) = child.stderr.take() {
        use tokio::io::AsyncReadExt;
        let _ = e.read_to_string(&mut err).await;
    }
    format!(
        "qemu ended before the agent was ready ({}): {}; the VM's console ends:\n{}",
        status
            .map(|s| s.to_string())
            .unwrap_or_else(|e| e.to_string()),
        err.trim(),
        console_tail(dir)
    )
}

/// Gives the guest the host's time and fresh randomness.
async fn set_clock(link: &AgentLink) -> Result<(), String> {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    let mut seed = vec![0u8; 64];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut seed);
    }
    let clock = Clock {
        unix_nanos: now.as_nanos(),
        seed,
    };
    let answer = link
        .ask(
            Message::json(0, Kind::Clock, &clock),
            Duration::from_secs(10),
        )
        .await?;
    if !answer.is_empty() {
        return Err(format!(
            "the agent could not set the clock: {}",
            String::from_utf8_lossy(&answer)
        ));
    }
    Ok(())
}

impl Vm {
    /// Whether qemu is still running.
    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// The qemu process's id.
    pub fn pid(&self) -> Option<u32> {
        self.child.id()
    }

    /// Stops the VM: a clean power-off if the agent answers in time, else
    /// qemu is killed. Its directory goes too.
    pub async fn stop(mut self) {
        self.link.power_off();
        let clean = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
        if clean.is_err() {
            let _ = self.child.kill().await;
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
