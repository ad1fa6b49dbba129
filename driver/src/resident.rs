//! The AssemblyScript compiler kept running between compilations.
//!
//! Starting node and loading the compiler costs about half a second, and
//! the compiler (JavaScript, and binaryen compiled to WebAssembly) runs
//! slowly until the JIT has warmed up: measured on examples/hello, a module
//! compiled 2–3× faster (release) and 5–10× faster (`--debug`) when it was not the
//! first in its process. So compilations go to resident compiler processes
//! (`resident_compiler.mjs`, one request at a time each) kept in a pool of at
//! most one per core: a command-line build compiles its modules on as many
//! threads as [`at_once`] says, each taking a process from the pool; tests
//! that compile from several threads get one each, up to the number of
//! cores.
//!
//! A process that stops (crashed, killed, or retired after the compiler
//! threw) is dropped from the pool; the next compilation starts a fresh one.
//! Idle processes end when this program does (their stdin closes), when
//! [`Compilers::release_idle`] is called, or with their pool.
//!
//! The pool is a value, [`Compilers`], handed to every build in its options
//! (`build::Options::compilers`): what it starts and whom it talks to is
//! said when it is made, never read from the environment on the way.
//!
//! `othc --watch` runs its command again after each edit, each time a new
//! program: so that the rebuild finds the compiler warm, the watcher keeps a
//! [`Shared`] process listening on a Unix socket, and the commands it runs
//! are told its socket ([`SOCKET_ENV`], read by the command line only) and
//! make their pool with it.

use std::ffi::OsString;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Condvar, Mutex, OnceLock};

/// The script each resident process runs.
const SCRIPT: &str = include_str!("resident_compiler.mjs");

/// What one compilation printed, and whether it succeeded.
#[derive(Debug)]
pub struct Outcome {
    pub ok: bool,
    pub output: String,
}

/// The environment variable naming the socket of a shared compiler process
/// (see [`Shared`]); set by `othc --watch` for the commands it runs, and
/// read by the command line when it makes its [`Compilers`].
pub const SOCKET_ENV: &str = "OTHC_COMPILER_SOCKET";

/// One running compiler process, or a connection to the shared one.
struct Resident {
    /// The `asc.js` it loaded.
    asc: PathBuf,
    /// The process, when it is this program's own.
    child: Option<Child>,
    requests: Box<dyn Write + Send>,
    responses: BufReader<Box<dyn Read + Send>>,
}

struct Pool {
    idle: Vec<Resident>,
    /// Processes started and not yet dropped, idle or compiling.
    live: usize,
}

/// How far V8 optimizes the compiler in the processes a pool starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tier {
    /// Binaryen kept at V8's baseline tier (`--liftoff-only`), for a
    /// program that compiles a few modules and ends (a command-line build).
    /// V8 otherwise recompiles binaryen's hot functions with its optimizing
    /// compiler as they run, which pays off only over many modules: a cold
    /// release build of examples/hello took about a sixth less time without
    /// it, and a process that compiles module after module (tests,
    /// `--watch`'s shared one) gets slower per module past the third or so
    /// (book: dev/performance.md).
    Baseline,
    /// Left to V8: a program that compiles module after module.
    Optimizing,
}

/// A pool of resident compiler processes: at most `most` of this program's
/// own, or connections to the watcher's shared one.
pub struct Compilers {
    pool: Mutex<Pool>,
    /// Signalled when a process goes back to the pool or is dropped.
    freed: Condvar,
    tier: Tier,
    /// The socket of the watcher's shared process, when there is one.
    shared: Option<PathBuf>,
    most: usize,
}

impl Compilers {
    /// A pool whose processes run at `tier`, connecting to the shared
    /// process at `shared` when one listens there.
    pub fn new(tier: Tier, shared: Option<PathBuf>) -> Compilers {
        Compilers {
            pool: Mutex::new(Pool {
                idle: Vec::new(),
                live: 0,
            }),
            freed: Condvar::new(),
            tier,
            shared,
            // At most one process per core: each compiles on one thread.
            most: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }

    /// The pool of a program that builds again and again without saying
    /// how (tests, tools): one, made on first use, at the optimizing tier.
    pub fn process_wide() -> Arc<Compilers> {
        static ONE: OnceLock<Arc<Compilers>> = OnceLock::new();
        ONE.get_or_init(|| Arc::new(Compilers::new(Tier::Optimizing, None)))
            .clone()
    }

    fn pool(&self) -> std::sync::MutexGuard<'_, Pool> {
        self.pool.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Runs the compiler whose programming interface is `asc` (the
    /// package's `dist/asc.js`) with command-line arguments `args` in
    /// folder `dir`. `Err` when no compiler could run it at all.
    pub fn compile(&self, asc: &Path, dir: &Path, args: &[String]) -> Result<Outcome, String> {
        let dir = dir.to_str().ok_or_else(|| {
            format!(
                "cannot compile in `{}`: its name is not UTF-8",
                dir.display()
            )
        })?;
        let request = serde_json::json!({ "dir": dir, "args": args }).to_string();
        // A process taken from the pool may have stopped while idle; a
        // fresh one is tried once before giving up.
        let mut resident = self.take(asc)?;
        if resident.send(&request).is_err() {
            self.drop_resident(resident);
            resident = self.take(asc)?;
            if let Err(e) = resident.send(&request) {
                self.drop_resident(resident);
                return Err(format!("cannot talk to the AssemblyScript compiler: {e}"));
            }
        }
        match resident.receive() {
            Ok((outcome, retired)) => {
                if retired {
                    self.drop_resident(resident);
                } else {
                    self.give_back(resident);
                }
                Ok(outcome)
            }
            Err(e) => {
                let status = self.drop_resident(resident);
                Err(format!(
                    "the AssemblyScript compiler stopped while compiling ({e}; {status})"
                ))
            }
        }
    }

    /// Ends the idle processes (a build is done; what follows does not
    /// compile).
    pub fn release_idle(&self) {
        let idle = std::mem::take(&mut self.pool().idle);
        for r in idle {
            let _ = self.drop_resident(r);
        }
    }

    /// How many compiler processes are running (idle or busy).
    pub fn running(&self) -> usize {
        self.pool().live
    }

    /// How many compilations a build runs at once. One per core when the
    /// pool's own processes stay at the baseline tier: each then keeps to
    /// one core, and hello's two modules compiled side by side in two cold
    /// processes took 2.9–3.5 s against 3.5–4.4 s one after the other in
    /// one. Otherwise one: a process that tiers up keeps the other core
    /// busy with V8's optimizing compiler, and a second cold process beside
    /// it slowed both (5.0–6.5 s). A build that talks to the watcher's
    /// shared process sends one request at a time, since the process
    /// answers them in turn.
    pub fn at_once(&self) -> usize {
        if self.tier == Tier::Baseline && self.shared.is_none() {
            self.most
        } else {
            1
        }
    }

    /// An idle process for `asc`, a new one when none is idle and the pool
    /// has room (made by ending an idle process of another compiler if need
    /// be), else the first to come back.
    fn take(&self, asc: &Path) -> Result<Resident, String> {
        let mut p = self.pool();
        loop {
            if let Some(i) = p.idle.iter().position(|r| r.asc == asc) {
                return Ok(p.idle.swap_remove(i));
            }
            if p.live < self.most {
                p.live += 1;
                drop(p);
                return Resident::start(asc, self.shared.as_deref(), self.tier).inspect_err(|_| {
                    self.pool().live -= 1;
                    self.freed.notify_one();
                });
            }
            if let Some(other) = p.idle.pop() {
                drop(p);
                let _ = self.drop_resident(other);
                p = self.pool();
                continue;
            }
            p = self.freed.wait(p).unwrap_or_else(|e| e.into_inner());
        }
    }

    fn give_back(&self, r: Resident) {
        self.pool().idle.push(r);
        self.freed.notify_one();
    }

    /// Ends `r` and frees its place in the pool; says how the process
    /// ended. Our own process is killed (closing its stdin would end it
    /// only after the compilation it may be in) and reaped; a connection to
    /// the shared process is closed, the process left to the watcher.
    fn drop_resident(&self, r: Resident) -> String {
        let how = match r.child {
            Some(mut child) => end(&mut child),
            None => "the watcher's shared compiler".into(),
        };
        self.pool().live -= 1;
        self.freed.notify_one();
        how
    }
}

impl Drop for Compilers {
    fn drop(&mut self) {
        self.release_idle();
    }
}

/// Kills and reaps a node process; says how it ended.
fn end(child: &mut Child) -> String {
    let _ = child.kill();
    match child.wait() {
        Ok(status) => format!("node {status}"),
        Err(e) => format!("node not reaped: {e}"),
    }
}

/// Node's arguments for a compiler process for `asc` at `tier`; `listen`
/// makes it answer on that socket (the shared process, which lives long
/// and so is left to V8 whatever `tier` says).
fn node_args(asc: &Path, listen: Option<&Path>, tier: Tier) -> Vec<OsString> {
    let mut args: Vec<OsString> = Vec::new();
    if tier == Tier::Baseline && listen.is_none() {
        args.push("--liftoff-only".into());
    }
    args.extend(["--input-type=module", "--eval", SCRIPT].map(OsString::from));
    args.push(asc.into());
    if let Some(socket) = listen {
        args.extend(["--listen".into(), socket.into()]);
    }
    args
}

/// Starts a compiler process for `asc`; `listen` makes it answer on that
/// socket instead of its stdin.
fn spawn(
    asc: &Path,
    listen: Option<&Path>,
    tier: Tier,
) -> Result<(Child, ChildStdin, ChildStdout), String> {
    let mut cmd = Command::new("node");
    cmd.args(node_args(asc, listen, tier));
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        // Node's own complaints, if any, are the user's to see.
        .stderr(Stdio::inherit())
        .spawn()
        .map_err(|e| format!("cannot run node (is Node.js installed?): {e}"))?;
    match (child.stdin.take(), child.stdout.take()) {
        (Some(stdin), Some(stdout)) => Ok((child, stdin, stdout)),
        _ => {
            end(&mut child);
            Err("cannot connect to node's stdin and stdout".into())
        }
    }
}

impl Resident {
    /// A connection to the shared process when one listens at `shared`,
    /// else a process of our own at `tier`.
    fn start(asc: &Path, shared: Option<&Path>, tier: Tier) -> Result<Resident, String> {
        if let Some(socket) = shared
            && let Ok(stream) = UnixStream::connect(socket)
            && let Ok(reading) = stream.try_clone()
        {
            return Ok(Resident {
                asc: asc.to_path_buf(),
                child: None,
                requests: Box::new(stream),
                responses: BufReader::new(Box::new(reading)),
            });
        }
        let (child, stdin, stdout) = spawn(asc, None, tier)?;
        Ok(Resident {
            asc: asc.to_path_buf(),
            child: Some(child),
            requests: Box::new(stdin),
            responses: BufReader::new(Box::new(stdout)),
        })
    }

    fn send(&mut self, request: &str) -> std::io::Result<()> {
        self.requests.write_all(request.as_bytes())?;
        self.requests.write_all(b"\n")?;
        self.requests.flush()
    }

    /// The response to the request sent, and whether the process retires.
    fn receive(&mut self) -> Result<(Outcome, bool), String> {
        let mut line = String::new();
        loop {
            line.clear();
            match self.responses.read_line(&mut line) {
                Ok(0) => return Err("it closed its output".into()),
                Ok(_) => {}
                Err(e) => return Err(format!("cannot read its output: {e}")),
            }
            match response(&line) {
                Some(r) => return Ok(r),
                // Not a response: something else wrote to node's stdout.
                None => eprint!("{line}"),
            }
        }
    }
}

/// A response line: the outcome and whether the process retires.
fn response(line: &str) -> Option<(Outcome, bool)> {
    let v: serde_json::Value = serde_json::from_str(line).ok()?;
    let outcome = Outcome {
        ok: v["ok"].as_bool()?,
        output: v["output"].as_str()?.to_string(),
    };
    Some((outcome, v["retired"].as_bool().unwrap_or(false)))
}

/// A compiler process shared by the commands `othc --watch` runs one after
/// another: each connects to it through the socket named in [`SOCKET_ENV`],
/// so a rebuild after an edit finds the compiler warm. It ends when this
/// value is dropped, or with this program (its stdin closes).
pub struct Shared {
    child: Child,
    socket: PathBuf,
    asc: PathBuf,
    /// Kept open: the process ends when it closes.
    _stdin: ChildStdin,
}

impl Shared {
    /// Starts one for `asc` and waits until it listens. Its socket is in a
    /// folder made for it, which only this user can enter: whoever can
    /// connect can have files compiled and written where this user may
    /// write.
    pub fn start(asc: &Path) -> Result<Shared, String> {
        use std::os::unix::fs::DirBuilderExt;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("othc-compiler-{}-{nanos:08x}", std::process::id()));
        // `create`, not `create_all`: a folder already there (made by
        // someone else) is not used.
        std::fs::DirBuilder::new()
            .mode(0o700)
            .create(&dir)
            .map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
        Shared::start_in(asc, &dir.join("compiler.sock")).inspect_err(|_| {
            let _ = std::fs::remove_dir_all(&dir);
        })
    }

    fn start_in(asc: &Path, socket: &Path) -> Result<Shared, String> {
        let (mut child, stdin, stdout) = spawn(asc, Some(socket), Tier::Optimizing)?;
        let mut line = String::new();
        let _ = BufReader::new(stdout).read_line(&mut line);
        if line.trim() != "listening" {
            let how = end(&mut child);
            return Err(format!(
                "the shared AssemblyScript compiler did not start ({how})"
            ));
        }
        Ok(Shared {
            child,
            socket: socket.to_path_buf(),
            asc: asc.to_path_buf(),
            _stdin: stdin,
        })
    }

    pub fn socket(&self) -> &Path {
        &self.socket
    }

    /// The process's id.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// This one if it still serves (it retires after the compiler throws,
    /// removing its socket first, then ending), else a fresh one.
    pub fn renewed(mut self) -> Result<Shared, String> {
        if self.socket.exists() && matches!(self.child.try_wait(), Ok(None)) {
            return Ok(self);
        }
        let asc = self.asc.clone();
        drop(self);
        Shared::start(&asc)
    }
}

impl Drop for Shared {
    fn drop(&mut self) {
        end(&mut self.child);
        if let Some(dir) = self.socket.parent() {
            let _ = std::fs::remove_dir_all(dir);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_own_processes_of_a_short_program_stay_at_the_baseline_tier() {
        let asc = Path::new("/c/asc.js");
        let own = node_args(asc, None, Tier::Baseline);
        // A V8 flag is node's only before the code to run.
        assert_eq!(own[0], "--liftoff-only");
        assert_eq!(own[1..4], ["--input-type=module", "--eval", SCRIPT]);
        assert_eq!(own[4], "/c/asc.js");
        assert!(!node_args(asc, None, Tier::Optimizing).contains(&"--liftoff-only".into()));
        // The watcher's shared process compiles for as long as one edits.
        let shared = node_args(asc, Some(Path::new("/s/sock")), Tier::Baseline);
        assert!(!shared.contains(&"--liftoff-only".into()));
        assert_eq!(shared[shared.len() - 2..], ["--listen", "/s/sock"]);
    }
}
