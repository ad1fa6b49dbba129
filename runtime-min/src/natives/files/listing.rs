//! A directory's listing, as a stream (`stream`): its names are read and
//! sorted when it is asked for (a listing is the same every run), and each
//! entry is looked at and answered only once the reader has taken the one
//! before. A directory of a million entries is so a million names held
//! (some 70 bytes each), never a million answers queued at once for one
//! reader: that filled the runtime's queue and stopped the reader.

use std::fs;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};

use rustix::fs::{AtFlags, Dir, FileType, Mode, OFlags};

use super::meta::{Kind, Meta};
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
        // One handle, read and looked into: the names and the entries come
        // from the same directory even if its path is renamed meanwhile.
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = match rustix::fs::open(&real, flags, Mode::empty()) {
            Ok(d) => d,
            Err(rustix::io::Errno::NOTDIR) => {
                return Err(Reply::error(errno::INVALID, "that is a file: read it"));
            }
            Err(e) => return Err(Reply::io(&e.into(), shown)),
        };
        let entries = Dir::read_from(&dir).map_err(|e| Reply::io(&e.into(), shown))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| Reply::io(&e.into(), shown))?;
            let name = entry.file_name().to_bytes();
            if name == b"." || name == b".." {
                continue;
            }
            // Names that are not UTF-8 have no path in a request: left out.
            if let Ok(name) = std::str::from_utf8(name) {
                names.push(name.to_owned());
            }
        }
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

#[cfg(test)]
mod tests {
    use std::os::unix::ffi::OsStrExt;

    use super::*;

    /// The names a listing will answer, in order: sorted by their bytes,
    /// without `.` and `..`, and without a name that is not UTF-8 (no
    /// request can name it).
    #[test]
    fn names_are_sorted_and_each_one_a_path_can_name() {
        let dir = std::env::temp_dir().join(format!("othismo-listing-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("sub")).unwrap();
        for name in ["b.txt", "a.txt", "Z.txt", "é.txt"] {
            fs::write(dir.join(name), name).unwrap();
        }
        let not_utf8 = std::ffi::OsStr::from_bytes(b"\xff.txt");
        fs::write(dir.join(not_utf8), "x").unwrap();
        let listing = Listing::open(&dir, dir.clone(), "/").unwrap();
        let names: Vec<String> = listing.names.clone().collect();
        fs::remove_dir_all(&dir).unwrap();
        assert_eq!(names, ["Z.txt", "a.txt", "b.txt", "sub", "é.txt"]);
    }

    #[test]
    fn a_file_is_not_listed() {
        let file =
            std::env::temp_dir().join(format!("othismo-listing-file-{}", std::process::id()));
        fs::write(&file, "x").unwrap();
        let r = Listing::open(&file, file.clone(), "/f");
        fs::remove_file(&file).unwrap();
        assert!(
            matches!(
                r,
                Err(Reply::Error {
                    errno: errno::INVALID,
                    ..
                })
            ),
            "{r:?}"
        );
    }
}
