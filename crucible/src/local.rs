//! The local backend: sandboxes as directories under one root, commands
//! as child processes of the daemon (no isolation beyond the directory:
//! for development and tests). The microVM backend (`vm/`) is its sibling;
//! both implement `sandbox::{Backend, Sandbox}`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use crate::failure::FailureKind;
use crate::guest::{self, FilesError};
use crate::sandbox::{
    Backend, Input, Later, LifecycleError, NewSandbox, Output, Process, Sandbox, SandboxInfo,
    check_id, fresh_id,
};
use crate::wire::{ExecRequest, ExecResult, WireFilesPutResult};

/// Sandboxes as directories under one root, commands as child processes.
pub struct LocalBackend {
    root: PathBuf,
    sandboxes: Mutex<BTreeMap<String, Arc<LocalSandbox>>>,
}

impl LocalBackend {
    pub fn new(root: impl Into<PathBuf>) -> LocalBackend {
        LocalBackend {
            root: root.into(),
            sandboxes: Mutex::new(BTreeMap::new()),
        }
    }

    /// Makes sandbox `id` (its directory `ROOT/id`), if it is not there yet.
    pub fn create(&self, id: &str) -> std::io::Result<Arc<LocalSandbox>> {
        check_id(id).map_err(|why| std::io::Error::new(std::io::ErrorKind::InvalidInput, why))?;
        let dir = self.root.join(id);
        std::fs::create_dir_all(&dir)?;
        let s = Arc::new(LocalSandbox { dir });
        crate::lock(&self.sandboxes).insert(id.to_string(), s.clone());
        Ok(s)
    }
}

impl Backend for LocalBackend {
    fn sandbox(&self, id: &str) -> Option<Arc<dyn Sandbox>> {
        crate::lock(&self.sandboxes)
            .get(id)
            .map(|s| s.clone() as Arc<dyn Sandbox>)
    }

    fn create(&self, spec: NewSandbox) -> Later<'_, SandboxInfo> {
        Box::pin(async move {
            let id = spec.id.unwrap_or_else(fresh_id);
            if self.sandbox(&id).is_some() {
                return Err(LifecycleError::new(
                    FailureKind::Conflict,
                    format!("sandbox `{id}` exists"),
                ));
            }
            LocalBackend::create(self, &id)
                .map_err(|e| LifecycleError::new(FailureKind::Invalid, e.to_string()))?;
            Ok(SandboxInfo::running(id))
        })
    }

    fn delete(&self, id: &str) -> Later<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            let gone = crate::lock(&self.sandboxes).remove(&id);
            let s = gone.ok_or_else(|| {
                LifecycleError::new(FailureKind::NotFound, format!("no sandbox `{id}`"))
            })?;
            std::fs::remove_dir_all(&s.dir).map_err(|e| {
                LifecycleError::new(
                    FailureKind::Internal,
                    format!("removing {}: {e}", s.dir.display()),
                )
            })
        })
    }
}

pub struct LocalSandbox {
    dir: PathBuf,
}

impl LocalSandbox {
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

const CHUNK: usize = 32 * 1024;

/// Passes what `from` gives on to `to`, each read as `wrap` makes it an
/// output, until `from` ends or nobody takes the output.
async fn pump(
    mut from: impl tokio::io::AsyncRead + Unpin,
    to: mpsc::Sender<Output>,
    wrap: fn(Vec<u8>) -> Output,
) {
    let mut buf = vec![0; CHUNK];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 || to.send(wrap(buf[..n].to_vec())).await.is_err() {
            break;
        }
    }
}

/// What a session sends the command's standard input, written as it
/// comes; closing it (or the session ending) closes the input, and the
/// command sees its end.
fn feed(mut stdin: tokio::process::ChildStdin) -> mpsc::Sender<Input> {
    let (in_tx, mut in_rx) = mpsc::channel::<Input>(64);
    tokio::spawn(async move {
        while let Some(i) = in_rx.recv().await {
            match i {
                Input::Stdin(b) => {
                    if stdin.write_all(&b).await.is_err() {
                        break;
                    }
                }
                Input::Close => break,
            }
        }
        // Dropping stdin closes it: the command sees EOF.
    });
    in_tx
}

impl Sandbox for LocalSandbox {
    fn exec(&self, req: &ExecRequest, interactive: bool) -> Result<Process, String> {
        let cwd = match &req.cwd {
            Some(c) => self
                .dir
                .join(guest::guest_relative(c).map_err(|e| e.reason)?),
            None => self.dir.clone(),
        };
        let mut cmd = tokio::process::Command::new(&req.cmd[0]);
        cmd.args(&req.cmd[1..])
            .current_dir(&cwd)
            .env_clear()
            .env("PATH", std::env::var_os("PATH").unwrap_or_default())
            .env("HOME", &self.dir)
            .envs(&req.env)
            .stdin(if interactive {
                Stdio::piped()
            } else {
                Stdio::null()
            })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        // Its own process group, so that everything it starts can be killed
        // with it (`sh -c 'sleep 1000'` leaves `sleep` behind otherwise).
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start `{}`: {e}", req.cmd[0]))?;
        let group = ProcessGroup(child.id());
        let (out_tx, out_rx) = mpsc::channel(64);
        let (kill_tx, kill_rx) = oneshot::channel::<()>();
        let input = child.stdin.take().map(feed);
        let stdout = child.stdout.take().expect("piped stdout");
        let stderr = child.stderr.take().expect("piped stderr");
        let timeout = req.timeout_s.map(Duration::from_secs);
        tokio::spawn(async move {
            // However the session ends (exit, timeout, the client gone),
            // whatever is left of its group goes with it.
            let _group = group;
            let pump_out = pump(stdout, out_tx.clone(), Output::Stdout);
            let pump_err = pump(stderr, out_tx.clone(), Output::Stderr);
            let waited = async {
                let ((), (), status) = tokio::join!(pump_out, pump_err, child.wait());
                status
            };
            let deadline = async {
                match timeout {
                    Some(t) => tokio::time::sleep(t).await,
                    None => std::future::pending().await,
                }
            };
            let result = tokio::select! {
                status = waited => match status {
                    Ok(s) => ExecResult::code(exit_code(&s)),
                    Err(e) => ExecResult::lost(format!("waiting for the command: {e}")),
                },
                _ = deadline => ExecResult::lost(format!(
                    "the command ran past its timeout of {} s and was killed",
                    timeout.map(|t| t.as_secs()).unwrap_or(0)
                )),
                // The client went away: the command goes too (kill_on_drop).
                _ = kill_rx => return,
            };
            let _ = out_tx.send(Output::Exit(result)).await;
        });
        Ok(Process {
            output: out_rx,
            input,
            _kill: kill_tx,
        })
    }

    fn put_files(&self, dest: &str, tar: &[u8]) -> Result<WireFilesPutResult, FilesError> {
        guest::extract_tar(&self.dir, dest, tar)
    }

    fn get_file(&self, path: &str) -> Result<Vec<u8>, FilesError> {
        guest::read_file(&self.dir, path)
    }
}

/// A command's process group (its id is the command's pid), killed whole
/// when dropped.
struct ProcessGroup(Option<u32>);

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        if let Some(pid) = self.0 {
            kill_group(pid);
        }
    }
}

/// Kills process group `pid` (a command started as its group's leader) and
/// all in it; a group already gone is no error.
pub(crate) fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: killpg only sends a signal; a group already gone is ESRCH.
        unsafe {
            libc::killpg(pid, libc::SIGKILL);
        }
    }
}

/// A shell's view of how a command ended: its code, or 128 + the signal.
fn exit_code(s: &std::process::ExitStatus) -> i32 {
    if let Some(c) = s.code() {
        return c;
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(sig) = s.signal() {
            return 128 + sig;
        }
    }
    -1
}
