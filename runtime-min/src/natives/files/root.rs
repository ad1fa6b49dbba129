//! The directory a `Files` object serves, and how a request's path is
//! found in it.
//!
//! The root's canonical path is kept and the directory itself held open.
//! A path below it is looked up from the open directory one name at a
//! time (`lstat` relative to it, so the kernel walks only the names below
//! the root, not the whole path from `/`) for as long as no name is a
//! symbolic link: such a path is its own real path, inside the root, and
//! the last lookup says what it is. At the first link the whole path is
//! canonicalized (every link followed) and must stay under the canonical
//! root. A read skips the lookups: it opens the path in one system call
//! that refuses every link on the way (`open_plain`), and takes the slow
//! way only when that refusal comes. `fixtures/run/rules/resolve.oth`
//! holds every way to the same answers.

use std::fs;
use std::os::fd::OwnedFd;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, ResolveFlags, Stat};
use rustix::io::Errno;

use super::held::Held;
use super::meta::Meta;
use super::{Reply, refuse_outside};
use crate::abi::errno;

pub(super) struct Root {
    /// Canonical.
    pub path: PathBuf,
    dir: OwnedFd,
    /// The kernel has no `openat2` (before Linux 5.6): every read takes
    /// the lookup's way.
    no_openat2: AtomicBool,
    /// Small files kept open after a read (`held`).
    held: Held,
}

/// A path found under the root: its real path, what it is, and how to
/// open it.
pub(super) struct Found {
    pub real: PathBuf,
    pub meta: Meta,
    /// Its path relative to the root when no name on the way is a link
    /// (opened from the root's descriptor), else none (opened by `real`).
    below: Option<PathBuf>,
}

/// What the names `below` the directory `dir` lead to, looked up one name
/// at a time from it (`lstat` relative to it): the last name's status, or
/// `None` at the first name that is a link. `below` has at least one name.
fn lstat_below(dir: &OwnedFd, below: &Path) -> rustix::io::Result<Option<Stat>> {
    let mut at = PathBuf::new();
    let mut last = None;
    for name in below.components() {
        at.push(name);
        let s = rustix::fs::statat(dir, &at, AtFlags::SYMLINK_NOFOLLOW)?;
        if FileType::from_raw_mode(s.st_mode) == FileType::Symlink {
            return Ok(None);
        }
        last = Some(s);
    }
    Ok(last)
}

impl Root {
    /// `dir` canonicalized and opened; it must be a directory.
    pub fn open(dir: &str) -> Result<Root, Reply> {
        let path = fs::canonicalize(dir)
            .map_err(|e| Reply::error(errno::NOT_FOUND, format!("`{dir}`: {e}")))?;
        if !path.is_dir() {
            return Err(Reply::error(
                errno::INVALID,
                format!("`{dir}` is not a directory"),
            ));
        }
        let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
        let dir = rustix::fs::open(&path, flags, Mode::empty())
            .map_err(|e| Reply::error(errno::NOT_FOUND, format!("`{dir}`: {e}")))?;
        Ok(Root {
            path,
            dir,
            no_openat2: AtomicBool::new(false),
            held: Held::default(),
        })
    }

    /// `p` (the root joined with a request's names) with every link
    /// followed: it must exist and stay under the root.
    pub fn find(&self, p: &Path, shown: &str) -> Result<Found, Reply> {
        match p.strip_prefix(&self.path) {
            Ok(below) => self.find_below(below, shown),
            Err(_) => self.canonical(p, shown),
        }
    }

    /// [`Root::find`] for the names `below` the root.
    pub fn find_below(&self, below: &Path, shown: &str) -> Result<Found, Reply> {
        self.look_below(below, shown).map(|(found, _)| found)
    }

    /// [`Root::find_below`] for a stat made at `now`: what it finds of a
    /// file kept open stands for the reads just after it (`held`).
    pub fn stat_below(&mut self, below: &Path, shown: &str, now: Instant) -> Result<Found, Reply> {
        let (found, stat) = self.look_below(below, shown)?;
        if let Some(s) = stat {
            self.held.saw(below, &s, now);
        }
        Ok(found)
    }

    /// [`Root::find_below`], with the status its look-up found when no name
    /// on the way is a link.
    fn look_below(&self, below: &Path, shown: &str) -> Result<(Found, Option<Stat>), Reply> {
        let mut at = below.to_path_buf();
        let (meta, stat) = if below.as_os_str().is_empty() {
            // No name below it: the root itself.
            at.push(".");
            let m = fs::metadata(&self.path).map_err(|e| Reply::io(&e, shown))?;
            (Meta::from(&m), None)
        } else {
            match lstat_below(&self.dir, below) {
                Ok(Some(s)) => (Meta::from(&s), Some(s)),
                Ok(None) => return Ok((self.canonical(&self.path.join(below), shown)?, None)),
                Err(e) => return Err(Reply::io(&e.into(), shown)),
            }
        };
        let found = Found {
            real: self.path.join(below),
            meta,
            below: Some(at),
        };
        Ok((found, stat))
    }

    /// Opens the file the names `below` the root lead to, to read, in one
    /// system call and with no lookup before it, if no name on the way is
    /// a link (the kernel refuses to follow any), with what it is; a
    /// FIFO's or a device's open never waits, and what was opened is then
    /// refused as `open_regular` would. `None` when a name is a link, or
    /// the kernel has no `openat2`: then the lookup's way (`find_below`).
    pub fn open_plain(&self, below: &Path) -> Option<std::io::Result<(fs::File, Stat)>> {
        if below.as_os_str().is_empty() || self.no_openat2.load(Ordering::Relaxed) {
            return None;
        }
        let flags =
            OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::BENEATH;
        let fd = match rustix::fs::openat2(&self.dir, below, flags, Mode::empty(), resolve) {
            Ok(fd) => fd,
            // A link on the way (at the last name too: no-follow).
            Err(Errno::LOOP) => return None,
            Err(Errno::NOSYS) => {
                self.no_openat2.store(true, Ordering::Relaxed);
                return None;
            }
            // A sandbox's filter refusing the call rather than the file, or
            // a kernel that knows the call but not a flag: the lookup's way
            // answers (and says the same if the path itself is the cause).
            Err(Errno::PERM | Errno::INVAL | Errno::TOOBIG) => return None,
            Err(e) => return Some(Err(e.into())),
        };
        Some(
            rustix::fs::fstat(&fd)
                .map(|s| (fs::File::from(fd), s))
                .map_err(Into::into),
        )
    }

    /// The small file kept open for the names `below` the root, if they
    /// still lead to it (or a stat found they did just before `now`), with
    /// what it is now (`held`).
    pub fn reuse(&mut self, below: &Path, now: Instant) -> Option<(Arc<fs::File>, Meta)> {
        let dir = &self.dir;
        self.held
            .reuse(below, now, || lstat_below(dir, below).ok().flatten())
    }

    /// Something is changed through the `Files` object (`held`).
    pub fn changing(&mut self) {
        self.held.forget_seen();
    }

    /// Keeps `file`, just opened by `open_plain` from the names `below`
    /// the root and found to be `s`, open for the next read of them if it
    /// is one to keep (`held`).
    pub fn keep(&mut self, below: &Path, file: &Arc<fs::File>, s: &Stat, part: usize) {
        self.held.keep(below, file, s, part);
    }

    /// How many files are kept open.
    #[cfg(test)]
    pub fn kept(&self) -> usize {
        self.held.len()
    }

    /// Whether a file is kept open for the names `below` the root.
    #[cfg(test)]
    pub fn holds(&self, below: &Path) -> bool {
        self.held.holds(below)
    }

    /// `p` canonicalized and confined to the root: the path through links.
    fn canonical(&self, p: &Path, shown: &str) -> Result<Found, Reply> {
        let real = fs::canonicalize(p).map_err(|e| Reply::io(&e, shown))?;
        if !real.starts_with(&self.path) {
            return Err(refuse_outside());
        }
        let m = fs::metadata(&real).map_err(|e| Reply::io(&e, shown))?;
        Ok(Found {
            real,
            meta: Meta::from(&m),
            below: None,
        })
    }

    /// Opens what `found` names, to read or to write (never waiting, and
    /// never through a link put in its place since it was found).
    pub fn open_found(&self, found: &Found, write: bool) -> std::io::Result<fs::File> {
        let access = if write {
            OFlags::WRONLY
        } else {
            OFlags::RDONLY
        };
        // Never waiting: a FIFO's open waits for its other end (a regular
        // file's is the same with the flag or without).
        let flags = access | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let fd = match &found.below {
            Some(below) => {
                rustix::fs::openat(&self.dir, below, flags | OFlags::NOFOLLOW, Mode::empty())?
            }
            None => rustix::fs::open(&found.real, flags, Mode::empty())?,
        };
        Ok(fs::File::from(fd))
    }
}

#[cfg(test)]
mod tests;
