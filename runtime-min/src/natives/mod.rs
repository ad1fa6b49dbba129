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
#[derive(Debug, PartialEq)]
pub enum Reply {
    Answer {
        done: bool,
        payload: Option<Payload>,
    },
    Error {
        errno: i32,
        desc: String,
    },
    /// The rest of a file being read: its parts are read one at a time,
    /// each once the reader has taken the one before (the runtime's
    /// `pace`), so no file is ever held whole.
    Paced(Box<files::Chunks>),
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
            // A name longer than the file system takes names nothing there.
            K::InvalidFilename => Reply::error(
                errno::NOT_FOUND,
                format!("{path} does not exist (a name in it is too long)"),
            ),
            // Links that lead round in a circle (ELOOP, whose kind is not
            // stable yet) lead nowhere one may go.
            _ if cfg!(target_os = "linux") && e.raw_os_error() == Some(ELOOP) => Reply::error(
                errno::FORBIDDEN,
                format!("{path} is a loop of symbolic links"),
            ),
            _ => Reply::error(errno::IO_ERROR, format!("{path}: {e}")),
        }
    }
}

/// Linux's errno for too many levels of symbolic links.
const ELOOP: i32 = 40;

pub fn text(s: impl Into<String>) -> Payload {
    Payload {
        content_type: "text/plain".into(),
        data: s.into().into_bytes(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the disk says, as the errno a caller gets: a name too long for
    /// the file system names nothing (404 through HttpServer), a loop of
    /// links is no way in (403); both used to be `io_error` (500).
    #[cfg(target_os = "linux")]
    #[test]
    fn disk_errors_map_to_what_they_mean() {
        let errno_of = |raw: i32| match Reply::io(&std::io::Error::from_raw_os_error(raw), "/x") {
            Reply::Error { errno, .. } => errno,
            other => panic!("{other:?}"),
        };
        assert_eq!(errno_of(2), errno::NOT_FOUND); // ENOENT
        assert_eq!(errno_of(36), errno::NOT_FOUND); // ENAMETOOLONG
        assert_eq!(errno_of(40), errno::FORBIDDEN); // ELOOP
        assert_eq!(errno_of(13), errno::FORBIDDEN); // EACCES
        assert_eq!(errno_of(5), errno::IO_ERROR); // EIO
    }
}
