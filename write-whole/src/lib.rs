//! Writing a file whole or not at all, for every tool that replaces a file
//! someone cares about: `othc fmt` rewriting a source, a build writing
//! bindings, modules and bundles, the runtime's `Files` answering a write.
//!
//! The new bytes go to a new file beside the old one, which is flushed to
//! the disk and then renamed over the old one. Until the rename the old file
//! is untouched, and the rename swaps one for the other at once. So a write
//! that fails (a full disk, an I/O error, the process killed) leaves the old
//! content as it was and nothing beside it, a reader never sees a file half
//! written, one reading the old file when it is replaced reads the old
//! content to its end, and after a crash the file is the old or the new,
//! never empty.
//!
//! The new file has no name while it is written and flushed (`O_TMPFILE`):
//! a process killed then leaves nothing behind, since a file without a name
//! goes with the last descriptor. It is given a hidden name just before the
//! rename, so only a process killed between those two system calls leaves
//! that name beside the file. Where the file system makes no unnamed files
//! (some network and FUSE ones), the new file is named from the start, and a
//! process killed while writing leaves it.
//!
//! The new file takes the old one's permissions, and its owner and group
//! where the process may give them (as root, always). What the file had
//! beside its content is not carried over: other hard links to it keep the
//! old content, and extended attributes stay with the old file.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Why a replacement failed; the file is as it was either way.
#[derive(Debug)]
pub enum Failed {
    /// No new file could be made beside it (its directory is not this
    /// process's to write, say, even if the file is).
    Beside(io::Error),
    /// The new file was made, and could not be written or put in place.
    Writing(io::Error),
}

impl Failed {
    /// The error, saying which step failed where the system's message
    /// alone would mislead (a file one may write, in a directory one may
    /// not).
    pub fn into_error(self) -> io::Error {
        match self {
            Failed::Beside(e) => io::Error::new(
                e.kind(),
                format!("cannot make a new file beside it for the new content: {e}"),
            ),
            Failed::Writing(e) => e,
        }
    }
}

/// Writes `data` to `path`, whole or not at all: the file it names is
/// replaced (through its links: a link stays a link), or made if there is
/// none. Only a regular file is replaced, and only one this process may
/// write: a read-only file stays so, as it would for a write in place.
pub fn write_whole(path: impl AsRef<Path>, data: impl AsRef<[u8]>) -> io::Result<()> {
    let (path, data) = (path.as_ref(), data.as_ref());
    let target = match fs::canonicalize(path) {
        Ok(real) => real,
        Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
        Err(e) => return Err(e),
    };
    let was = match fs::metadata(&target) {
        Ok(m) if !m.is_file() => {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "it is not a regular file, so it is not replaced",
            ));
        }
        // Opened to write, never written through: whether it may be.
        Ok(_) => Some(
            fs::OpenOptions::new()
                .write(true)
                .open(&target)?
                .metadata()?,
        ),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    replace(&target, was.as_ref(), data).map_err(Failed::into_error)
}

/// Names new files are given while they are written: unique to this
/// process and this write, and hidden from a plain `ls`.
fn new_name(dir: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".othismo-write-{}-{n}", std::process::id()))
}

/// Puts `data` in place of the file at `target` (a path with no link in
/// it), which `was` describes if it exists (the new file takes its
/// permissions and owner). On any failure the new file is removed and
/// `target` is as it was.
pub fn replace(target: &Path, was: Option<&fs::Metadata>, data: &[u8]) -> Result<(), Failed> {
    let dir = match target.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    if let Some(mut new) = unnamed_in(dir) {
        let written = (|| {
            fill(&mut new, was, data)?;
            let at = name(&new, dir)?;
            fs::rename(&at, target).inspect_err(|_| {
                let _ = fs::remove_file(&at);
            })
        })();
        return written.map_err(Failed::Writing);
    }
    // A name left by a write of an earlier run with the same process id,
    // killed before it renamed (the counter starts again): the next name.
    let (at, mut new) = loop {
        let at = new_name(dir);
        match fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&at)
        {
            Ok(f) => break (at, f),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(Failed::Beside(e)),
        }
    };
    let written = (|| {
        fill(&mut new, was, data)?;
        fs::rename(&at, target)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&at);
        Failed::Writing(e)
    })
}

/// Writes `data` into the new file, gives it what the file it replaces
/// had (`was`), and flushes it to the disk.
fn fill(new: &mut fs::File, was: Option<&fs::Metadata>, data: &[u8]) -> io::Result<()> {
    new.write_all(data)?;
    if let Some(was) = was {
        // The owner first: giving a file away clears its set-id bits.
        give_owner(new, was);
        new.set_permissions(was.permissions())?;
    }
    // On the disk before the rename: a crash after it finds the new
    // content whole, never an empty file.
    new.sync_all()
}

/// A new file in `dir` without a name, if its file system makes them
/// (none: the caller makes a named one, which says why it cannot if it
/// cannot).
fn unnamed_in(dir: &Path) -> Option<fs::File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
    let fd = rustix::fs::open(dir, flags, Mode::from_raw_mode(0o666)).ok()?;
    Some(fs::File::from(fd))
}

/// Gives the unnamed file `new` a hidden name in `dir` (the next free
/// one), by its descriptor, or where that needs a privilege the process
/// lacks, through `/proc/self/fd`.
fn name(new: &fs::File, dir: &Path) -> io::Result<PathBuf> {
    use rustix::fs::{AtFlags, CWD, linkat};
    use rustix::io::Errno;
    let through_proc = format!("/proc/self/fd/{}", std::os::fd::AsRawFd::as_raw_fd(new));
    loop {
        let at = new_name(dir);
        let linked = linkat(new, "", CWD, &at, AtFlags::EMPTY_PATH).or_else(|e| match e {
            Errno::EXIST => Err(e),
            _ => linkat(
                CWD,
                through_proc.as_str(),
                CWD,
                &at,
                AtFlags::SYMLINK_FOLLOW,
            ),
        });
        match linked {
            Ok(()) => return Ok(at),
            Err(Errno::EXIST) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// Gives `new` the owner and group of the file it replaces, or the group
/// alone, as far as the host lets the process (a file it cannot give away
/// stays the process's user's).
fn give_owner(new: &fs::File, was: &fs::Metadata) {
    let Ok(now) = new.metadata() else { return };
    if (now.uid(), now.gid()) == (was.uid(), was.gid()) {
        return;
    }
    if std::os::unix::fs::fchown(new, Some(was.uid()), Some(was.gid())).is_err() {
        let _ = std::os::unix::fs::fchown(new, None, Some(was.gid()));
    }
}

#[cfg(test)]
mod tests;
