//! Why a client call failed, and the daemon's error answers read as such.

use crate::frame::FrameError;
use crate::wire::ErrorBody;

/// Why a call failed.
#[derive(Debug)]
pub enum ClientError {
    Io(std::io::Error),
    /// The daemon answered with an error status before anything streamed.
    Http {
        status: u16,
        error: String,
    },
    /// The frame stream is broken (it ended without its exit frame, say).
    Protocol(FrameError),
    /// The daemon's answer is not what the protocol says.
    Unexpected(String),
    /// WebSocket close 1008: the request was refused.
    Refused(String),
    /// WebSocket close 1011: the guest could not be reached.
    Unreachable(String),
    /// The key cannot be sent in an HTTP header (it holds a line break or
    /// another control character); nothing was sent.
    BadKey,
}

impl std::fmt::Display for ClientError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClientError::Io(e) => write!(f, "{e}"),
            ClientError::Http { status, error } => write!(f, "{status}: {error}"),
            ClientError::Protocol(e) => write!(f, "{e}"),
            ClientError::Unexpected(e) => write!(f, "{e}"),
            ClientError::Refused(r) => write!(f, "refused: {r}"),
            ClientError::Unreachable(r) => write!(f, "the guest is unreachable: {r}"),
            ClientError::BadKey => write!(
                f,
                "the key (--key or CRUCIBLE_KEY) holds a line break or another control character, which no HTTP header may carry: check how it was set"
            ),
        }
    }
}

impl std::error::Error for ClientError {}

impl From<std::io::Error> for ClientError {
    fn from(e: std::io::Error) -> ClientError {
        ClientError::Io(e)
    }
}

impl From<FrameError> for ClientError {
    fn from(e: FrameError) -> ClientError {
        ClientError::Protocol(e)
    }
}

impl From<crate::io::ReadError> for ClientError {
    fn from(e: crate::io::ReadError) -> ClientError {
        match e {
            crate::io::ReadError::Io(e) => ClientError::Io(e),
            crate::io::ReadError::Frame(e) => ClientError::Protocol(e),
        }
    }
}

/// The daemon's error answer (`{ "error": ... }`), or its body as text.
pub(super) fn http_error(status: u16, body: &[u8]) -> ClientError {
    let error = serde_json::from_slice::<ErrorBody>(body)
        .map(|e| e.error)
        .unwrap_or_else(|_| String::from_utf8_lossy(body).into_owned());
    ClientError::Http { status, error }
}
