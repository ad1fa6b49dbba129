//! The guest agent's work, apart from being PID 1: it reads messages from
//! the port, runs exec sessions (each command in its own process group,
//! killed whole on `Kill`, on its timeout, or when the port closes),
//! extracts and reads files with the same rules as every other backend
//! ([`crate::guest`]), and answers pings. Plain threads: the guest has one
//! small job, and this keeps the agent free of an async runtime's start-up.
//!
//! It is written against any byte stream so the same code runs on the host
//! over a socket pair in tests, with `root` a scratch directory; in the
//! guest `root` is `/` and guest paths are real paths.

use std::collections::HashMap;
use std::io::{self, Read, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::guest;
use crate::local::kill_group;
use crate::vm::wire::{FilesFailure, Kind, Message, Ready, Start};
use crate::wire::{ExecResult, bounded};

/// What the agent does with what only a real guest can do.
pub trait Host: Send + Sync + 'static {
    /// The host's clock and randomness arrived (after a boot or a restore).
    fn clock(&self, clock: &crate::vm::wire::Clock) -> io::Result<()>;
    /// Power off: does not return in a guest.
    fn power_off(&self);
    /// `PATH` for commands.
    fn path(&self) -> String;
}

type Out = Arc<Mutex<Box<dyn Write + Send>>>;

fn send(out: &Out, m: Message) {
    let mut w = crate::lock(out);
    // A port that cannot be written is a host gone: the reader sees it end.
    let _ = m.write_to(&mut *w);
}

/// One running session, as the reader loop reaches it.
struct Session {
    stdin: Option<mpsc::Sender<Option<Vec<u8>>>>,
    group: Option<u32>,
}

type Sessions = Arc<Mutex<HashMap<u32, Session>>>;

/// Serves the port until it closes (or a power-off returns, in tests).
/// Says ready first.
pub fn serve(
    mut input: impl Read,
    output: impl Write + Send + 'static,
    root: &Path,
    host: Arc<dyn Host>,
) -> io::Result<()> {
    let out: Out = Arc::new(Mutex::new(Box::new(output)));
    let sessions: Sessions = Arc::new(Mutex::new(HashMap::new()));
    send(
        &out,
        Message::json(
            0,
            Kind::Ready,
            &Ready {
                agent: env!("CARGO_PKG_VERSION").into(),
            },
        ),
    );
    let result = loop {
        let m = match Message::read_from(&mut input) {
            Ok(Some(m)) => m,
            Ok(None) => break Ok(()),
            Err(e) => break Err(e),
        };
        match m.kind {
            Kind::Exec => {
                let start: Start = match m.parse() {
                    Ok(s) => s,
                    Err(e) => {
                        let r = ExecResult::lost(format!("the agent could not read the exec: {e}"));
                        send(&out, Message::json(m.session, Kind::Exit, &r));
                        continue;
                    }
                };
                exec(m.session, start, root, &host, &out, &sessions);
            }
            Kind::Stdin | Kind::StdinClose => {
                let mut table = crate::lock(&sessions);
                if let Some(s) = table.get_mut(&m.session) {
                    if m.kind == Kind::StdinClose {
                        s.stdin = None;
                    } else if let Some(tx) = &s.stdin {
                        let _ = tx.send(Some(m.payload));
                    }
                }
            }
            Kind::Kill => {
                let table = crate::lock(&sessions);
                if let Some(g) = table.get(&m.session).and_then(|s| s.group) {
                    kill_group(g);
                }
            }
            Kind::Put | Kind::Get => {
                let (out, root) = (out.clone(), root.to_path_buf());
                std::thread::spawn(move || files(m, &root, &out));
            }
            Kind::Clock => {
                let answer = match m.parse().and_then(|c| host.clock(&c)) {
                    Ok(()) => Vec::new(),
                    Err(e) => e.to_string().into_bytes(),
                };
                send(&out, Message::new(0, Kind::Pong, answer));
            }
            Kind::Ping => send(&out, Message::new(m.session, Kind::Pong, Vec::new())),
            Kind::PowerOff => {
                kill_all(&sessions);
                host.power_off();
                return Ok(());
            }
            // What only the agent sends: the host is confused; say nothing.
            _ => {}
        }
    };
    // The host is gone: nothing it started may run on.
    kill_all(&sessions);
    result
}

fn kill_all(sessions: &Sessions) {
    let table = crate::lock(sessions);
    for g in table.values().filter_map(|s| s.group) {
        kill_group(g);
    }
}

fn files(m: Message, root: &Path, out: &Out) {
    let answer = if m.kind == Kind::Put {
        let split = m.payload.iter().position(|&b| b == 0);
        match split.map(|i| (std::str::from_utf8(&m.payload[..i]), &m.payload[i + 1..])) {
            Some((Ok(dest), tar)) => guest::extract_tar(root, dest, tar)
                .map(|r| Message::json(m.session, Kind::PutDone, &r)),
            _ => Err(guest::FilesError::bad("a push names no destination")),
        }
    } else {
        match std::str::from_utf8(&m.payload) {
            Ok(path) => {
                guest::read_file(root, path).map(|b| Message::new(m.session, Kind::GetDone, b))
            }
            Err(_) => Err(guest::FilesError::bad("a pull's path is not UTF-8")),
        }
    };
    let m = answer.unwrap_or_else(|e| {
        Message::json(
            m.session,
            Kind::FilesFailed,
            &FilesFailure {
                kind: e.kind,
                reason: e.reason,
            },
        )
    });
    send(out, m);
}

const CHUNK: usize = 32 * 1024;

/// Starts session `id`'s command; a thread sees it to its end.
fn exec(id: u32, start: Start, root: &Path, host: &Arc<dyn Host>, out: &Out, sessions: &Sessions) {
    let req = start.request;
    let lost = |why: String| send(out, Message::json(id, Kind::Exit, &ExecResult::lost(why)));
    let cwd = match &req.cwd {
        Some(c) => match guest::guest_relative(c) {
            Ok(rel) => root.join(rel),
            Err(e) => return lost(e.reason),
        },
        None => root.to_path_buf(),
    };
    let Some(program) = req.cmd.first() else {
        return lost("`cmd` must name a program".into());
    };
    let mut cmd = Command::new(program);
    cmd.args(&req.cmd[1..])
        .current_dir(&cwd)
        .env_clear()
        .env("PATH", host.path())
        .env("HOME", root)
        .envs(&req.env)
        .stdin(if start.interactive {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    {
        use std::os::unix::process::CommandExt;
        cmd.process_group(0);
    }
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => return lost(bounded(format!("cannot start `{program}`: {e}"))),
    };
    let stdin = child.stdin.take().map(|mut pipe| {
        let (tx, rx) = mpsc::channel::<Option<Vec<u8>>>();
        std::thread::spawn(move || {
            // Ends (closing the pipe) when the session's sender goes.
            while let Ok(Some(b)) = rx.recv() {
                if pipe.write_all(&b).is_err() {
                    break;
                }
            }
        });
        tx
    });
    crate::lock(sessions).insert(
        id,
        Session {
            stdin,
            group: Some(child.id()),
        },
    );
    let (out, sessions) = (out.clone(), sessions.clone());
    let timeout = req.timeout_s.map(Duration::from_secs);
    std::thread::spawn(move || {
        let result = run(id, &mut child, timeout, &out);
        // What is left of the group goes with the session.
        kill_group(child.id());
        crate::lock(&sessions).remove(&id);
        send(&out, Message::json(id, Kind::Exit, &result));
    });
}

/// Pumps a command's output until it ends or its time is up.
fn run(id: u32, child: &mut Child, timeout: Option<Duration>, out: &Out) -> ExecResult {
    let pump = |pipe: Option<Box<dyn Read + Send>>, kind: Kind| {
        let out = out.clone();
        std::thread::spawn(move || {
            let Some(mut pipe) = pipe else { return };
            let mut buf = vec![0; CHUNK];
            while let Ok(n) = pipe.read(&mut buf) {
                if n == 0 {
                    break;
                }
                send(&out, Message::new(id, kind, buf[..n].to_vec()));
            }
        })
    };
    let stdout = pump(
        child
            .stdout
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        Kind::Stdout,
    );
    let stderr = pump(
        child
            .stderr
            .take()
            .map(|p| Box::new(p) as Box<dyn Read + Send>),
        Kind::Stderr,
    );
    let pid = child.id();
    let (done_tx, done_rx) = mpsc::channel();
    // The waiter owns nothing of `child`: it waits on the pid, and the
    // result comes back over the channel so the timeout can win the race.
    std::thread::spawn(move || {
        let _ = done_tx.send(wait_pid(pid));
    });
    let status = match timeout {
        Some(t) => match done_rx.recv_timeout(t) {
            Ok(s) => s,
            Err(_) => {
                kill_group(pid);
                let _ = done_rx.recv();
                let _ = (stdout.join(), stderr.join());
                return ExecResult::lost(format!(
                    "the command ran past its timeout of {} s and was killed",
                    t.as_secs()
                ));
            }
        },
        None => done_rx.recv().unwrap_or(Err(io::ErrorKind::Other.into())),
    };
    let _ = (stdout.join(), stderr.join());
    match status {
        Ok(code) => ExecResult::code(code),
        Err(e) => ExecResult::lost(format!("waiting for the command: {e}")),
    }
}

/// Waits for `pid` and says how it ended, as a shell would: its code, or
/// 128 + the signal.
fn wait_pid(pid: u32) -> io::Result<i32> {
    let pid = libc::pid_t::try_from(pid).map_err(|_| io::ErrorKind::InvalidInput)?;
    let mut status = 0;
    loop {
        // SAFETY: waits for our own child, writing only `status`.
        let r = unsafe { libc::waitpid(pid, &mut status, 0) };
        if r == pid {
            break;
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
    Ok(if libc::WIFEXITED(status) {
        libc::WEXITSTATUS(status)
    } else if libc::WIFSIGNALED(status) {
        128 + libc::WTERMSIG(status)
    } else {
        -1
    })
}
