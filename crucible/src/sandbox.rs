//! What the daemon runs commands in: the [`Sandbox`] trait, and the local
//! backend of this issue, which runs each command as a child process in the
//! sandbox's own directory (a KVM microVM backend comes later, behind the
//! same trait). The local backend isolates nothing: it is for development,
//! tests, and trying the protocol out.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};

use crate::guest::{self, FilesError};
use crate::wire::{ExecRequest, ExecResult, WireFilesPutResult};

/// What a running command says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Output {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    /// The last thing it says.
    Exit(ExecResult),
}

/// What the client sends a running command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Input {
    Stdin(Vec<u8>),
    Close,
}

/// A started command. Dropping it kills the command.
pub struct Process {
    pub output: mpsc::Receiver<Output>,
    /// `None` when the command was started without stdin.
    pub input: Option<mpsc::Sender<Input>>,
    /// Held only to be dropped: the command is killed when it goes.
    pub _kill: oneshot::Sender<()>,
}

/// One sandbox.
pub trait Sandbox: Send + Sync {
    /// Starts `req`; `interactive` gives it stdin. An error is a command that
    /// could not be started (the guest unreachable): the daemon reports it
    /// in-band, after the response is committed.
    fn exec(&self, req: &ExecRequest, interactive: bool) -> Result<Process, String>;
    /// Extracts a tar archive beneath guest directory `dest`.
    fn put_files(&self, dest: &str, tar: &[u8]) -> Result<WireFilesPutResult, FilesError>;
    /// One guest file's bytes.
    fn get_file(&self, path: &str) -> Result<Vec<u8>, FilesError>;
}

/// Why a lifecycle request failed: the HTTP status it answers, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifecycleError {
    pub status: u16,
    pub reason: String,
}

impl LifecycleError {
    pub fn new(status: u16, reason: impl Into<String>) -> LifecycleError {
        LifecycleError {
            status,
            reason: reason.into(),
        }
    }
}

/// What `POST /sandboxes` asks for; every field optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewSandbox {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub memory_mib: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vcpus: Option<u32>,
}

/// What `GET /sandboxes/{id}` says.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct SandboxInfo {
    pub id: String,
    /// `running`, or `dead` (its VM stopped: `reason` says why).
    pub state: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// How a VM started: `snapshot` (resumed) or `boot`, and how long it
    /// took to its agent's first answer.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_ms: Option<u64>,
}

impl SandboxInfo {
    pub fn running(id: impl Into<String>) -> SandboxInfo {
        SandboxInfo {
            id: id.into(),
            state: "running".into(),
            reason: None,
            started: None,
            start_ms: None,
        }
    }
}

/// A lifecycle request's answer, later (a VM takes a while to start).
pub type Later<'a, T> =
    std::pin::Pin<Box<dyn std::future::Future<Output = Result<T, LifecycleError>> + Send + 'a>>;

/// Where the daemon finds sandboxes by id, and makes and frees them.
pub trait Backend: Send + Sync + 'static {
    fn sandbox(&self, id: &str) -> Option<Arc<dyn Sandbox>>;

    /// Makes a sandbox (with the id given, or a fresh one).
    fn create(&self, _spec: NewSandbox) -> Later<'_, SandboxInfo> {
        Box::pin(async { Err(LifecycleError::new(405, "this backend makes no sandboxes")) })
    }

    /// What is known of sandbox `id`.
    fn info(&self, id: &str) -> Option<SandboxInfo> {
        self.sandbox(id).map(|_| SandboxInfo::running(id))
    }

    /// Stops sandbox `id` and frees everything it held.
    fn delete(&self, _id: &str) -> Later<'_, ()> {
        Box::pin(async { Err(LifecycleError::new(405, "this backend frees no sandboxes")) })
    }
}

/// A fresh sandbox id.
pub fn fresh_id() -> String {
    let hex: String = random_bytes(6).iter().map(|x| format!("{x:02x}")).collect();
    format!("sb-{hex}")
}

/// `n` bytes from the kernel's random source (zeros where it cannot be
/// read: the callers want variety, not secrets).
pub(crate) fn random_bytes(n: usize) -> Vec<u8> {
    let mut b = vec![0u8; n];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut b);
    }
    b
}

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
        self.sandboxes
            .lock()
            .expect("the sandbox table")
            .insert(id.to_string(), s.clone());
        Ok(s)
    }
}

impl Backend for LocalBackend {
    fn sandbox(&self, id: &str) -> Option<Arc<dyn Sandbox>> {
        self.sandboxes
            .lock()
            .expect("the sandbox table")
            .get(id)
            .map(|s| s.clone() as Arc<dyn Sandbox>)
    }

    fn create(&self, spec: NewSandbox) -> Later<'_, SandboxInfo> {
        Box::pin(async move {
            let id = spec.id.unwrap_or_else(fresh_id);
            if self.sandbox(&id).is_some() {
                return Err(LifecycleError::new(409, format!("sandbox `{id}` exists")));
            }
            LocalBackend::create(self, &id).map_err(|e| LifecycleError::new(400, e.to_string()))?;
            Ok(SandboxInfo::running(id))
        })
    }

    fn delete(&self, id: &str) -> Later<'_, ()> {
        let id = id.to_string();
        Box::pin(async move {
            let gone = self
                .sandboxes
                .lock()
                .expect("the sandbox table")
                .remove(&id);
            let s = gone.ok_or_else(|| LifecycleError::new(404, format!("no sandbox `{id}`")))?;
            std::fs::remove_dir_all(&s.dir)
                .map_err(|e| LifecycleError::new(500, format!("removing {}: {e}", s.dir.display())))
        })
    }
}

/// `id` if it can name a sandbox; else why not, in words for the user.
pub fn check_id(id: &str) -> Result<(), String> {
    if valid_id(id) {
        Ok(())
    } else {
        Err(format!(
            "`{id}` is not a sandbox id (letters, digits, `-` and `_`, at most 64)"
        ))
    }
}

/// Whether `id` can name a sandbox (in a URL path, and as a directory).
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 64
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
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
        let input = if interactive {
            let (in_tx, mut in_rx) = mpsc::channel::<Input>(64);
            let mut stdin = child.stdin.take().expect("piped stdin");
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
            Some(in_tx)
        } else {
            None
        };
        let mut stdout = child.stdout.take().expect("piped stdout");
        let mut stderr = child.stderr.take().expect("piped stderr");
        let timeout = req.timeout_s.map(Duration::from_secs);
        tokio::spawn(async move {
            // However the session ends (exit, timeout, the client gone),
            // whatever is left of its group goes with it.
            let _group = group;
            let (tx1, tx2) = (out_tx.clone(), out_tx.clone());
            let pump_out = async move {
                let mut buf = vec![0; CHUNK];
                while let Ok(n) = stdout.read(&mut buf).await {
                    if n == 0 || tx1.send(Output::Stdout(buf[..n].to_vec())).await.is_err() {
                        break;
                    }
                }
            };
            let pump_err = async move {
                let mut buf = vec![0; CHUNK];
                while let Ok(n) = stderr.read(&mut buf).await {
                    if n == 0 || tx2.send(Output::Stderr(buf[..n].to_vec())).await.is_err() {
                        break;
                    }
                }
            };
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
