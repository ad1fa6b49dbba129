//! `crucible-agent`: the guest side of a crucible microVM. As `/init`
//! (process 1) it mounts what the guest needs, loads the virtio modules, starts
//! itself again as the agent, and reaps every orphan until the agent ends,
//! then powers off. The agent (`crucible-agent agent`) finds the port named
//! `agent` and serves it (book: reference/crucible-host.md).
//!
//! PID 1 and the agent are two processes so that reaping orphans
//! (`waitpid(-1)`) never takes the exit status of a command the agent is
//! waiting for.

use std::ffi::CString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crucible::vm::agent::{self, Host};
use crucible::vm::wire::Clock;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("agent") {
        agent_main();
    } else if std::process::id() == 1 {
        init_main();
    } else {
        eprintln!(
            "crucible-agent runs inside a crucible microVM, as its /init; \
             it is not meant to be started by hand"
        );
        std::process::exit(2);
    }
}

fn say(what: &str) {
    eprintln!("crucible-agent: {what}");
}

fn init_main() {
    for (what, at, fstype) in [
        ("proc", "/proc", "proc"),
        ("sysfs", "/sys", "sysfs"),
        ("devtmpfs", "/dev", "devtmpfs"),
        ("tmpfs", "/tmp", "tmpfs"),
    ] {
        if let Err(e) = mount(what, at, fstype) {
            say(&format!("mounting {at}: {e}"));
        }
    }
    load_modules(Path::new("/modules"));
    let agent = std::process::Command::new("/init").arg("agent").spawn();
    let agent = match agent {
        Ok(c) => c.id() as libc::pid_t,
        Err(e) => {
            say(&format!("cannot start the agent: {e}"));
            power_off();
        }
    };
    loop {
        let mut status = 0;
        // SAFETY: reaps any child, writing only `status`.
        let pid = unsafe { libc::waitpid(-1, &mut status, 0) };
        if pid == agent {
            say("the agent ended; powering off");
            power_off();
        }
        if pid < 0 && io::Error::last_os_error().raw_os_error() == Some(libc::ECHILD) {
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn mount(what: &str, at: &str, fstype: &str) -> io::Result<()> {
    let _ = std::fs::create_dir_all(at);
    let (what, at, fstype) = (cstr(what)?, cstr(at)?, cstr(fstype)?);
    // SAFETY: every pointer is a live NUL-terminated string; no data.
    let r = unsafe {
        libc::mount(
            what.as_ptr(),
            at.as_ptr(),
            fstype.as_ptr(),
            0,
            std::ptr::null(),
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

fn cstr(s: &str) -> io::Result<CString> {
    CString::new(s).map_err(|_| io::ErrorKind::InvalidInput.into())
}

/// Loads `/modules/*.ko` in name order (they are numbered).
fn load_modules(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for p in paths {
        let loaded = std::fs::File::open(&p).and_then(|f| {
            use std::os::fd::AsRawFd;
            let empty = c"";
            // SAFETY: finit_module reads the open file and the empty
            // parameter string.
            let r =
                unsafe { libc::syscall(libc::SYS_finit_module, f.as_raw_fd(), empty.as_ptr(), 0) };
            if r == 0 || io::Error::last_os_error().raw_os_error() == Some(libc::EEXIST) {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        });
        if let Err(e) = loaded {
            say(&format!("loading {}: {e}", p.display()));
        }
    }
}

fn power_off() -> ! {
    // SAFETY: sync and reboot take no pointers.
    unsafe {
        libc::sync();
        libc::reboot(libc::RB_POWER_OFF);
    }
    // Only reached when not allowed to (not in a guest).
    std::process::exit(1);
}

/// The guest's character device for the port named `agent`.
fn find_port() -> io::Result<PathBuf> {
    for _ in 0..200 {
        if let Ok(entries) = std::fs::read_dir("/sys/class/virtio-ports") {
            for e in entries.flatten() {
                let name = std::fs::read_to_string(e.path().join("name")).unwrap_or_default();
                let dev = Path::new("/dev").join(e.file_name());
                if name.trim() == "agent" && dev.exists() {
                    return Ok(dev);
                }
            }
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Err(io::Error::new(
        io::ErrorKind::NotFound,
        "no virtio port named `agent` appeared",
    ))
}

struct Guest;

impl Host for Guest {
    fn clock(&self, clock: &Clock) -> io::Result<()> {
        let ts = libc::timespec {
            tv_sec: (clock.unix_nanos / 1_000_000_000) as libc::time_t,
            tv_nsec: (clock.unix_nanos % 1_000_000_000) as libc::c_long,
        };
        // SAFETY: passes a live timespec.
        if unsafe { libc::clock_settime(libc::CLOCK_REALTIME, &ts) } != 0 {
            return Err(io::Error::last_os_error());
        }
        // Written to /dev/urandom, the host's bytes are mixed into the pool:
        // a VM restored from one snapshot does not repeat another's numbers.
        std::fs::write("/dev/urandom", &clock.seed)
    }

    fn power_off(&self) {
        power_off();
    }

    fn path(&self) -> String {
        "/bin".into()
    }
}

fn agent_main() {
    let port = match find_port() {
        Ok(p) => p,
        Err(e) => {
            say(&e.to_string());
            std::process::exit(1);
        }
    };
    let host: Arc<dyn Host> = Arc::new(Guest);
    loop {
        let opened = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(&port);
        let (r, w) = match opened.and_then(|f| Ok((f.try_clone()?, f))) {
            Ok(rw) => rw,
            Err(e) => {
                say(&format!("opening {}: {e}", port.display()));
                std::process::exit(1);
            }
        };
        if let Err(e) = agent::serve(r, w, Path::new("/"), host.clone()) {
            say(&format!("the port: {e}"));
        }
        // The host is not connected (a read of 0): wait for it, without
        // spinning.
        std::thread::sleep(Duration::from_millis(100));
    }
}
