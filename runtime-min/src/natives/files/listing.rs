//! A directory's listing, as a stream (`stream`): its names are read and
//! sorted when it is asked for (a listing is the same every run), and each
//! entry is looked at and answered only once the reader has taken the one
//! before. A directory of a million entries is so a million names held
//! (some 70 bytes each), never a million answers queued at once for one
//! reader: that filled the runtime's queue and stopped the reader.

use std::fs;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use super::root::{Kind, Meta};
use super::{Reply, stat_of, stat_payload};
use crate::abi::errno;

#[derive(Debug)]
pub(super) struct Listing {
    /// The root's canonical path: where a link in the directory must lead
    /// to be part of the tree.
    root: PathBuf,
    /// The directory listed: its real path, and the directory held open,
    /// where each entry is looked at.
    real: PathBuf,
    dir: OwnedFd,
    /// The names not yet answered, in order.
    names: std::vec::IntoIter<String>,
}

impl Listing {
    /// The directory `real` (found inside `root`): its names.
    pub fn open(root: &Path, real: PathBuf, shown: &str) -> Result<Listing, Reply> {
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = match rustix::fs::open(&real, flags, Mode::empty()) {
            Ok(d) => d,
            Err(rustix::io::Errno::NOTDIR) => {
                return Err(Reply::error(errno::INVALID, "that is a file: read it"));
            }
            Err(e) => return Err(Reply::io(&e.into(), shown)),
        };
        let entries = fs::read_dir(&real).map_err(|e| Reply::io(&e, shown))?;
        // Names that are not UTF-8 have no path in a request: left out.
        let mut names: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().into_string().ok())
            .collect();
        names.sort_unstable();
        Ok(Listing {
            root: root.to_path_buf(),
            real,
            dir,
            names: names.into_iter(),
        })
    }

    /// The next entry's stat record, or the end once every name is
    /// answered.
    pub fn next_part(&mut self) -> Reply {
        while let Some(name) = self.names.next() {
            if let Some(payload) = self.entry(&name) {
                return Reply::Answer {
                    done: false,
                    payload: Some(payload),
                };
            }
        }
        Reply::done(None)
    }

    /// The stat record of `name`, if it is part of the tree: a link that
    /// leads out of the root, or nowhere, is not, nor is what is neither a
    /// file nor a directory, nor an entry gone since the names were read.
    fn entry(&self, name: &str) -> Option<crate::Payload> {
        let s = rustix::fs::statat(&self.dir, name, AtFlags::SYMLINK_NOFOLLOW).ok()?;
        if FileType::from_raw_mode(s.st_mode) != FileType::Symlink {
            // Its type is guessed from its own name.
            return record(name, Path::new(name), &Meta::from(&s));
        }
        let real = fs::canonicalize(self.real.join(name)).ok()?;
        if !real.starts_with(&self.root) {
            return None;
        }
        let m = fs::metadata(&real).ok()?;
        record(name, &real, &Meta::from(&m))
    }
}

/// `name`'s stat record, if it is a file or a directory (`real` is what
/// its content type is guessed from).
fn record(name: &str, real: &Path, meta: &Meta) -> Option<crate::Payload> {
    (meta.kind != Kind::Other).then(|| stat_payload(&stat_of(name, real, meta)))
}
