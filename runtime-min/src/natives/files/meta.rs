//! What a `Files` object knows of an entry: its kind, length and last
//! change, from the standard library's metadata or a raw `stat`.

use std::fs;
use std::time::UNIX_EPOCH;

use rustix::fs::FileType;

/// What an entry is, as far as serving it goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Kind {
    File,
    Directory,
    /// A FIFO, a socket, a device: never served.
    Other,
}

/// An entry's metadata: what a stat answers and a read needs.
#[derive(Clone, Copy, Debug)]
pub(super) struct Meta {
    pub kind: Kind,
    pub len: u64,
    /// The last change of its content, in ns since the epoch (0 if unknown).
    pub mtime_ns: u64,
}

impl From<&fs::Metadata> for Meta {
    fn from(m: &fs::Metadata) -> Meta {
        let kind = if m.is_file() {
            Kind::File
        } else if m.is_dir() {
            Kind::Directory
        } else {
            Kind::Other
        };
        let mtime_ns = m
            .modified()
            .ok()
            .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
            .map(|d| d.as_nanos() as u64)
            .unwrap_or(0);
        Meta {
            kind,
            len: m.len(),
            mtime_ns,
        }
    }
}

impl From<&rustix::fs::Stat> for Meta {
    fn from(s: &rustix::fs::Stat) -> Meta {
        let kind = match FileType::from_raw_mode(s.st_mode) {
            FileType::RegularFile => Kind::File,
            FileType::Directory => Kind::Directory,
            _ => Kind::Other,
        };
        // The nanoseconds' type is the platform's (`u64` on Linux's raw
        // system calls, a C `long` through libc): cast either way.
        #[allow(clippy::unnecessary_cast)]
        let nanos = s.st_mtime_nsec as u64;
        let mtime_ns = u64::try_from(s.st_mtime)
            .ok()
            .map(|secs| secs.wrapping_mul(1_000_000_000).wrapping_add(nanos))
            .unwrap_or(0);
        Meta {
            kind,
            len: s.st_size as u64,
            mtime_ns,
        }
    }
}
