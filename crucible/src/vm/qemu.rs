//! One microVM: a qemu `-M microvm` process with no network device, its
//! serial console to a log file, and one virtio-serial port (`agent`) on a
//! unix socket the host connects to. The process runs under qemu's seccomp
//! sandbox; dropping the [`Vm`] kills it.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use crate::vm::image::Guest;
use crate::vm::link::AgentLink;
use crate::vm::qmp::Qmp;
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
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub memory_mib: u32,
    pub vcpus: u32,
}

/// The TCG translation cache, in MiB.
const TCG_CACHE_MIB: u32 = 32;

/// How often the host checks that a VM's agent still answers, and how
/// long it may take (generous: a busy host under TCG is slow).
const HEARTBEAT: Duration = Duration::from_secs(5);
const HEARTBEAT_DEADLINE: Duration = Duration::from_secs(20);

/// A running VM.
pub struct Vm {
    pub link: AgentLink,
    child: tokio::process::Child,
    pub dir: PathBuf,
    /// How long it took from start to the agent's first answer.
    pub boot: Duration,
    pub restored: bool,
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
const APPEND: &str = "console=ttyS0 quiet tsc_early_khz=2600000 panic=-1 init_on_free=1";

fn argv(guest: &Guest, cfg: &VmConfig, size: Size, dir: &Path, how: How<'_>) -> Vec<String> {
    let mut a = vec![
        "-M".into(),
        match how {
            How::Cold => "microvm".into(),
            // A template's or a resumed VM's memory is the snapshot's RAM
            // file (see `snapshot`), named by this backend.
            How::Template(_) | How::Restore(_) => "microvm,memory-backend=ram".into(),
        },
        "-accel".into(),
        match cfg.accel {
            Accel::Kvm => "kvm".into(),
            // TCG's translation cache is a gigabyte by default and grows
            // into the host's memory as code is translated: a guest this
            // small runs as fast with a few megabytes of it.
            Accel::Tcg => format!("tcg,tb-size={TCG_CACHE_MIB}"),
        },
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
        // no spawning programs, no scheduler or affinity changes. The one
        // exception is the snapshot template, a VM no user has touched,
        // which writes its state through `cat`.
        "-sandbox".into(),
        match how {
            How::Template(_) => {
                "on,obsolete=deny,elevateprivileges=deny,resourcecontrol=deny".into()
            }
            _ => "on,obsolete=deny,elevateprivileges=deny,spawn=deny,resourcecontrol=deny".into(),
        },
    ];
    a.extend(snapshot_args(size, dir, how));
    a
}

/// What a template or a resumed VM adds to qemu's arguments. The template
/// writes its memory into the RAM file (shared), and the migration leaves
/// that memory out (`x-ignore-shared`, set over QMP on both ends: this qemu
/// has no command-line switch for it): the state file holds the devices
/// only. A resumed VM maps the same file privately: every VM reads the
/// pages it has not written from the one copy in the host's page cache,
/// and a page it writes becomes its own.
fn snapshot_args(size: Size, dir: &Path, how: How<'_>) -> Vec<String> {
    let ram = |file: &Path, share: &str| {
        [
            "-object".to_string(),
            format!(
                "memory-backend-file,id=ram,size={}M,mem-path={},share={share}",
                size.memory_mib,
                qemu_option_value(&file.display().to_string())
            ),
        ]
    };
    let qmp = [
        "-qmp".to_string(),
        format!("unix:{},server=on,wait=off", dir.join("qmp.sock").display()),
    ];
    let mut a = Vec::new();
    match how {
        How::Cold => {}
        How::Template(file) => {
            a.extend(ram(file, "on"));
            a.extend(qmp);
        }
        // The saved state is read from descriptor 3 once `incoming` has
        // asked for it; the VM runs once it is in.
        How::Restore(state) => {
            a.extend(ram(&ram_of(state), "off"));
            a.extend(qmp);
            a.extend(["-incoming".into(), "defer".into()]);
        }
    }
    a
}

/// A value inside a qemu option list, where a comma is written twice.
fn qemu_option_value(v: &str) -> String {
    v.replace(',', ",,")
}

/// What, besides the guest and its size, a saved VM depends on: the
/// machine qemu is told to make (a snapshot only loads into the same one).
pub fn machine_key(cfg: &VmConfig) -> String {
    use sha2::{Digest, Sha256};
    let probe = Guest {
        vmlinux: "K".into(),
        initrd: "I".into(),
        hash: String::new(),
    };
    let size = Size {
        memory_mib: 0,
        vcpus: 0,
    };
    let mut h = Sha256::new();
    for a in argv(&probe, cfg, size, Path::new("D"), How::Cold) {
        h.update(a.as_bytes());
        h.update([0]);
    }
    h.finalize()[..6]
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a restoring qemu reads the snapshot from.
const SNAPSHOT_FD: libc::c_int = 3;

/// How a VM starts.
#[derive(Clone, Copy)]
pub enum How<'a> {
    /// Boots the kernel.
    Cold,
    /// Boots the kernel into memory kept in the given RAM file, with a QMP
    /// socket to save it from.
    Template(&'a Path),
    /// Resumes the VM saved in the given state file (and its RAM file).
    Restore(&'a Path),
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

/// Starts qemu with `args`, handing it `snapshot` (the saved state of a VM
/// to resume) as descriptor `SNAPSHOT_FD`. qemu dies with the daemon,
/// however the daemon ends: a VM is never left running with no one to
/// reach it.
fn spawn(
    cfg: &VmConfig,
    args: Vec<String>,
    snapshot: Option<&std::fs::File>,
) -> Result<tokio::process::Child, String> {
    let mut command = tokio::process::Command::new(&cfg.qemu);
    command
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    let snapshot_fd = snapshot.map(|f| {
        use std::os::fd::AsRawFd;
        f.as_raw_fd()
    });
    // SAFETY: prctl and dup2 are async-signal-safe and touch no memory of
    // ours; the snapshot's descriptor stays open until the spawn is done
    // (the caller holds it).
    unsafe {
        command.pre_exec(move || {
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            if let Some(fd) = snapshot_fd
                && libc::dup2(fd, SNAPSHOT_FD) < 0
            {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    command
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", cfg.qemu.display()))
}

/// Starts a VM in `dir` (made fresh) and waits for its agent: booted, it
/// says it is ready; restored, it answers a ping.
pub async fn start(
    guest: &Guest,
    cfg: &VmConfig,
    size: Size,
    dir: &Path,
    how: How<'_>,
) -> Result<Vm, String> {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let started = Instant::now();
    let snapshot = match how {
        How::Restore(p) => {
            Some(std::fs::File::open(p).map_err(|e| format!("the snapshot {}: {e}", p.display()))?)
        }
        _ => None,
    };
    let mut child = spawn(cfg, argv(guest, cfg, size, dir, how), snapshot.as_ref())?;
    drop(snapshot);
    if let How::Restore(_) = how {
        let qmp = dir.join("qmp.sock");
        let loading = tokio::task::spawn_blocking(move || incoming(&qmp));
        tokio::select! {
            r = loading => r.map_err(|e| e.to_string()).and_then(|r| r)
                .map_err(|e| format!("loading the snapshot: {e}"))?,
            status = child.wait() => return Err(qemu_ended(&mut child, status, dir).await),
        }
    }
    let socket = dir.join("agent.sock");
    let connected = async {
        loop {
            match tokio::net::UnixStream::connect(&socket).await {
                Ok(s) => break s,
                Err(_) => tokio::time::sleep(Duration::from_millis(5)).await,
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
    let reached = async {
        match how {
            How::Restore(_) => AgentLink::resume(r, w, cfg.boot_deadline).await,
            _ => AgentLink::connect(r, w, cfg.boot_deadline).await,
        }
    };
    let link = tokio::select! {
        l = reached => l.map_err(|e| {
            format!("{e}; the VM's console ends:\n{}", console_tail(dir))
        })?,
        status = child.wait() => return Err(qemu_ended(&mut child, status, dir).await),
    };
    let boot = started.elapsed();
    set_clock(&link).await?;
    link.watch(HEARTBEAT, HEARTBEAT_DEADLINE);
    Ok(Vm {
        link,
        child,
        dir: dir.to_path_buf(),
        boot,
        restored: matches!(how, How::Restore(_)),
    })
}

/// Over QMP: has a VM started with `-incoming defer` load the state on
/// descriptor 3, its memory left out (it is the RAM file).
fn incoming(qmp: &Path) -> Result<(), String> {
    let mut qmp = Qmp::connect(qmp, Duration::from_secs(10))?;
    qmp.ignore_shared_memory()?;
    qmp.ask(serde_json::json!({
        "execute": "migrate-incoming",
        "arguments": {"uri": format!("fd:{SNAPSHOT_FD}")}
    }))
    .map(drop)
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
    let seed = crate::sandbox::random_bytes(64);
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

    /// What `GET /sandboxes/{id}` says of it.
    pub fn info(&mut self, id: &str) -> crate::sandbox::SandboxInfo {
        let (state, reason) = match (self.link.dead(), self.running()) {
            (None, true) => ("running".to_string(), None),
            (why, _) => (
                "dead".to_string(),
                Some(why.unwrap_or_else(|| "the VM stopped".into())),
            ),
        };
        crate::sandbox::SandboxInfo {
            id: id.to_string(),
            state,
            reason,
            started: Some(if self.restored { "snapshot" } else { "boot" }.into()),
            start_ms: Some(self.boot.as_millis() as u64),
        }
    }

    /// The qemu process, for the snapshot maker.
    pub(crate) fn child(&mut self) -> &mut tokio::process::Child {
        &mut self.child
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

/// The RAM file beside a snapshot's state file `vmstate`: a VM restored
/// from the snapshot maps it as its memory.
pub fn ram_of(vmstate: &Path) -> PathBuf {
    vmstate.with_extension("ram")
}
