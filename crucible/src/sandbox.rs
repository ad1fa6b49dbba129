//! What the daemon runs commands in: the [`Backend`] (sandboxes made,
//! found and freed) and [`Sandbox`] (commands and files in one) traits, with
//! the types they speak. Two backends implement them side by side:
//! `local` (a directory and child processes, no isolation) and `vm` (a
//! microVM with a guest agent).

use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use crate::failure::FailureKind;
use crate::guest::FilesError;
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

/// Why a lifecycle request failed: what kind of failure, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LifecycleError {
    pub kind: FailureKind,
    pub reason: String,
}

impl LifecycleError {
    pub fn new(kind: FailureKind, reason: impl Into<String>) -> LifecycleError {
        LifecycleError {
            kind,
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
        Box::pin(async {
            Err(LifecycleError::new(
                FailureKind::Unsupported,
                "this backend makes no sandboxes",
            ))
        })
    }

    /// What is known of sandbox `id`.
    fn info(&self, id: &str) -> Option<SandboxInfo> {
        self.sandbox(id).map(|_| SandboxInfo::running(id))
    }

    /// Stops sandbox `id` and frees everything it held.
    fn delete(&self, _id: &str) -> Later<'_, ()> {
        Box::pin(async {
            Err(LifecycleError::new(
                FailureKind::Unsupported,
                "this backend frees no sandboxes",
            ))
        })
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
