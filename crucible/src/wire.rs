//! The JSON shapes the frame protocol carries (book: reference/crucible.md).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// What to run: `cmd` (required, non-empty), its environment, working
/// directory (in the guest) and time limit.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecRequest {
    pub cmd: Vec<String>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cwd: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub timeout_s: Option<u64>,
}

impl ExecRequest {
    pub fn new<S: Into<String>>(cmd: impl IntoIterator<Item = S>) -> ExecRequest {
        ExecRequest {
            cmd: cmd.into_iter().map(Into::into).collect(),
            env: BTreeMap::new(),
            cwd: None,
            timeout_s: None,
        }
    }

    /// Parses and validates a request body: the reason when it is not one.
    pub fn parse(body: &[u8]) -> Result<ExecRequest, String> {
        let r: ExecRequest =
            serde_json::from_slice(body).map_err(|e| format!("not an ExecRequest: {e}"))?;
        if r.cmd.is_empty() || r.cmd[0].is_empty() {
            return Err("`cmd` must name a program".into());
        }
        if let Some(cwd) = &r.cwd
            && !cwd.starts_with('/')
        {
            return Err(format!("`cwd` must be an absolute guest path, not `{cwd}`"));
        }
        Ok(r)
    }
}

/// The exit frame's payload. `error` is set (and `exit_code` is -1) when the
/// daemon synthesized it because the command was lost.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecResult {
    pub exit_code: i32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl ExecResult {
    pub fn code(exit_code: i32) -> ExecResult {
        ExecResult {
            exit_code,
            error: None,
        }
    }

    pub fn lost(why: impl Into<String>) -> ExecResult {
        ExecResult {
            exit_code: -1,
            error: Some(why.into()),
        }
    }
}

/// The answer to a file push.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct WireFilesPutResult {
    pub files: u64,
    pub bytes: u64,
}

/// The body of every JSON error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ErrorBody {
    pub error: String,
}
