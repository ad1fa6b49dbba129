//! Small files kept open after a read, so that the next read of the same
//! name costs a lookup and one `pread` instead of an open, an `fstat`, a
//! read and a close (on a busy site the same few files are read again and
//! again, and each system call is a measurable part of a request).
//!
//! A file kept open is used again only while its name still leads to it:
//! each name on the way is looked up from the root held open, none may be
//! a link, and the last must be the same file (device and inode) with the
//! same status-change time, which moves on every write, truncation,
//! `chmod`, `chown` or link count change. So a file rewritten in place, replaced
//! (a new file renamed over it), removed, or made a link, a directory or
//! unreadable is opened afresh (or refused) exactly as if it had never
//! been kept; what is read is always the file's content at the time of
//! the read, never a copy.
//!
//! A stat of a kept file's name looks it up as every stat does; a read of
//! the name less than `FRESH` after it takes that look-up as its own
//! instead of making another (a site stats a file and reads it straight
//! after, and the look-up is a third of what a read of a small file costs).
//! The read is then of the file the stat found: what a change made by
//! another process in between does is seen by the next stat. A change made
//! through the same `Files` object is seen at once (`forget_seen`).
//!
//! Only names at most two deep are kept (deeper, the lookups cost as much
//! as the one-call open), only files that fit in one part (a deleted file
//! kept open keeps its blocks allocated: at most `KEPT` parts' worth), and
//! at most `KEPT` per `Files` object, the least recently read going first.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rustix::fs::{FileType, Stat};

use super::meta::Meta;

/// The most files one `Files` object keeps open.
pub(super) const KEPT: usize = 64;

/// How long a stat's look-up of a kept file stands for the reads after it.
pub(super) const FRESH: Duration = Duration::from_millis(1);

/// The most names below the root a kept file's path has.
const DEPTH: usize = 2;

/// What must not have changed for a kept file to be read again.
#[derive(Clone, Copy, PartialEq, Debug)]
struct Identity {
    dev: u64,
    ino: u64,
    ctime: (i64, i64),
}

impl From<&Stat> for Identity {
    // The fields' types are the platform's (raw system calls or libc):
    // cast either way.
    #[allow(clippy::unnecessary_cast, clippy::useless_conversion)]
    fn from(s: &Stat) -> Identity {
        Identity {
            dev: s.st_dev as u64,
            ino: s.st_ino as u64,
            ctime: (s.st_ctime as i64, s.st_ctime_nsec as i64),
        }
    }
}

struct Kept {
    below: PathBuf,
    file: Arc<fs::File>,
    identity: Identity,
    /// When it was last read (`Held::clock`): the least recent goes first.
    used: u64,
    /// When a stat last found its name leading to it, and what it was then.
    seen: Option<(Instant, Meta)>,
}

impl Kept {
    /// Whether `s`, what its names lead to now, is this kept file.
    fn is(&self, s: &Stat) -> bool {
        is_file(s) && Identity::from(s) == self.identity
    }
}

/// The files one `Files` object keeps open.
#[derive(Default)]
pub(super) struct Held {
    kept: Vec<Kept>,
    clock: u64,
}

impl Held {
    /// The file kept for the names `below` the root, with what it is now,
    /// if they still lead to it: `look` looks them up (the status of what
    /// they lead to, `None` if a name on the way is a link or the lookup
    /// failed), only when a file is kept for them and no stat found it
    /// within `FRESH` before `now` (that stat's look-up stands for it). A
    /// kept file they no longer lead to is closed; `None` then, and when
    /// none is kept.
    pub fn reuse(
        &mut self,
        below: &Path,
        now: Instant,
        look: impl FnOnce() -> Option<Stat>,
    ) -> Option<(Arc<fs::File>, Meta)> {
        let at = self.kept.iter().position(|k| k.below == below)?;
        let meta = match self.kept[at].seen {
            Some((when, meta)) if now.checked_duration_since(when).is_some_and(|d| d < FRESH) => {
                meta
            }
            _ => match look() {
                Some(s) if self.kept[at].is(&s) => Meta::from(&s),
                _ => {
                    self.kept.swap_remove(at);
                    return None;
                }
            },
        };
        self.clock += 1;
        let kept = &mut self.kept[at];
        kept.used = self.clock;
        Some((kept.file.clone(), meta))
    }

    /// Keeps `file`, just opened from the names `below` the root and found
    /// to be `s`, if it is one to keep (a regular file; see the module's
    /// comment for the rest); `part` is the most bytes one answer carries.
    pub fn keep(&mut self, below: &Path, file: &Arc<fs::File>, s: &Stat, part: usize) {
        let depth = below.components().count();
        let small = u64::try_from(s.st_size).is_ok_and(|len| len <= part as u64);
        if depth == 0 || depth > DEPTH || !small || !is_file(s) {
            return;
        }
        self.clock += 1;
        let kept = Kept {
            below: below.to_path_buf(),
            file: file.clone(),
            identity: Identity::from(s),
            used: self.clock,
            seen: None,
        };
        if let Some(same) = self.kept.iter_mut().find(|k| k.below == below) {
            *same = kept;
        } else if self.kept.len() < KEPT {
            self.kept.push(kept);
        } else if let Some(oldest) = self.kept.iter_mut().min_by_key(|k| k.used) {
            *oldest = kept;
        }
    }

    /// A stat at `now` found the names `below` the root leading to `s`: if
    /// a file is kept for them, the reads of the next `FRESH` take that as
    /// their look-up when it is the kept file, and a kept file they no
    /// longer lead to is closed.
    pub fn saw(&mut self, below: &Path, s: &Stat, now: Instant) {
        let Some(at) = self.kept.iter().position(|k| k.below == below) else {
            return;
        };
        if self.kept[at].is(s) {
            self.kept[at].seen = Some((now, Meta::from(s)));
        } else {
            self.kept.swap_remove(at);
        }
    }

    /// Something was changed through the `Files` object: no stat's look-up
    /// stands for a read any more.
    pub fn forget_seen(&mut self) {
        for k in &mut self.kept {
            k.seen = None;
        }
    }

    /// How many files are kept open.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    /// Whether a file is kept open for the names `below` the root.
    #[cfg(test)]
    pub fn holds(&self, below: &Path) -> bool {
        self.kept.iter().any(|k| k.below == below)
    }
}

fn is_file(s: &Stat) -> bool {
    FileType::from_raw_mode(s.st_mode) == FileType::RegularFile
}

#[cfg(test)]
mod tests;
