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
            error: Some(bounded(why.into())),
        }
    }
}

/// The most of an error text an exit frame carries: an error can quote
/// what a client sent (a program name, a directory), and the frame must fit.
pub const MAX_ERROR_TEXT: usize = 4096;

/// `text`, cut at a character boundary to [`MAX_ERROR_TEXT`] bytes with a
/// marker saying so.
pub fn bounded(text: String) -> String {
    if text.len() <= MAX_ERROR_TEXT {
        return text;
    }
    let mut end = MAX_ERROR_TEXT;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} bytes cut)", &text[..end], text.len() - end)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// An error quoting a huge program name still makes an exit frame that
    /// fits (it used to trip the frame writer's assertion).
    #[test]
    fn a_lost_command_s_error_is_bounded() {
        let huge = format!("no such program: {}", "é".repeat(70_000));
        let r = ExecResult::lost(huge);
        let text = r.error.as_deref().unwrap();
        assert!(text.len() < MAX_ERROR_TEXT + 64, "{}", text.len());
        assert!(text.ends_with("bytes cut)"));
        let frame = crate::frame::Frame::exit(&r);
        assert!(frame.payload.len() <= crate::frame::MAX_PAYLOAD);
        let bytes = crate::io::encode_exit(&r);
        assert!(bytes.len() <= crate::frame::MAX_PAYLOAD + crate::frame::HEADER_SIZE);
        assert_eq!(ExecResult::lost("short").error.as_deref(), Some("short"));
    }
}
