//! The runtime's own objects (book: reference/natives.md; their header is
//! `sdk/env/Runtime.oth`). Requests reach them checked against that header
//! like any other: a native sees only verbs and paths it serves.

pub mod clock;
pub(crate) mod console;
pub mod files;
pub(crate) mod http;

use crate::Payload;
use crate::abi::errno;

/// One answer of a native object.
#[derive(Clone, Debug, PartialEq)]
pub enum Reply {
    Answer {
        done: bool,
        payload: Option<Payload>,
    },
    Error {
        errno: i32,
        desc: String,
    },
}

impl Reply {
    pub fn done(payload: Option<Payload>) -> Reply {
        Reply::Answer {
            done: true,
            payload,
        }
    }

    pub fn error(errno: i32, desc: impl Into<String>) -> Reply {
        Reply::Error {
            errno,
            desc: desc.into(),
        }
    }

    /// The host's file system said no: in words, about `path`.
    pub fn io(e: &std::io::Error, path: &str) -> Reply {
        use std::io::ErrorKind as K;
        match e.kind() {
            K::NotFound => Reply::error(errno::NOT_FOUND, format!("{path} does not exist")),
            K::AlreadyExists => Reply::error(errno::EXISTS, format!("{path} already exists")),
            K::DirectoryNotEmpty => Reply::error(
                errno::NOT_EMPTY,
                format!("{path} is a directory that is not empty"),
            ),
            K::PermissionDenied => Reply::error(
                errno::FORBIDDEN,
                format!("the host does not allow that on {path}"),
            ),
            _ => Reply::error(errno::IO_ERROR, format!("{path}: {e}")),
        }
    }
}

pub fn text(s: impl Into<String>) -> Payload {
    Payload {
        content_type: "text/plain".into(),
        data: s.into().into_bytes(),
    }
}
