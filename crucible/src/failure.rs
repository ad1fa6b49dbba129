//! What kind of failure a sandbox operation met, as the backends and the
//! guest side say it. Only the daemon turns a kind into an HTTP status
//! (`daemon::status_of`): the layers below know sandboxes and files, not
//! HTTP.

use serde::{Deserialize, Serialize};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FailureKind {
    /// The request itself is wrong (a bad id, a size out of range, a path
    /// that leaves the sandbox).
    Invalid,
    /// No such sandbox or file.
    NotFound,
    /// It clashes with what is there (a sandbox of that id exists, or was
    /// deleted while it started).
    Conflict,
    /// This backend does not do that.
    Unsupported,
    /// The host failed doing it (a sandbox that did not start, a file that
    /// could not be written).
    Internal,
    /// The guest did not answer (its agent is gone or hung).
    Unreachable,
}
