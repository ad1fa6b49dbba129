//! A `write` replaces a file whole or not at all. The new content goes to a
//! new file beside the old one, which is flushed to the disk and then
//! renamed over the old one: until the rename the old file is untouched, and
//! the rename swaps one for the other at once. So a write that fails (a full
//! disk, an I/O error, the process killed) leaves the old content as it was,
//! a reader never sees a file half written, and one reading the old file
//! when it is replaced goes on reading the old content to its end.
//!
//! The new file takes the old one's permissions, and its owner and group
//! where the runtime may give them (as root, always). What the file had
//! beside its content is not carried over: other hard links to it keep the
//! old content, and extended attributes stay with the old file.

use std::fs;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Names new files are given while they are written: unique to this
/// process and this write, and hidden from a plain `ls`.
fn new_name(dir: &Path) -> PathBuf {
    static WRITES: AtomicU64 = AtomicU64::new(0);
    let n = WRITES.fetch_add(1, Ordering::Relaxed);
    dir.join(format!(".othismo-write-{}-{n}", std::process::id()))
}

/// Why a replacement failed; the file is as it was either way.
pub(super) enum Failed {
    /// No new file could be made beside it (the directory is not the
    /// runtime's to write, say, even if the file is).
    Beside(io::Error),
    /// The new file was made, and could not be written or put in place.
    Writing(io::Error),
}

/// Replaces the content of the regular file `target` (its real path, no
/// link in it) with `data`; `old` is the file opened, which gives the new
/// one its permissions and owner. On any failure the file made for the new
/// content is removed and `target` is as it was.
pub(super) fn replace(target: &Path, old: &fs::File, data: &[u8]) -> Result<(), Failed> {
    let dir = target.parent().unwrap_or(Path::new("."));
    let was = old.metadata().map_err(Failed::Writing)?;
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
        new.write_all(data)?;
        // The owner first: giving a file away clears its set-id bits.
        give_owner(&new, &was);
        new.set_permissions(was.permissions())?;
        // On the disk before the rename: a crash after it finds the new
        // content whole, never an empty file.
        new.sync_all()?;
        fs::rename(&at, target)
    })();
    written.map_err(|e| {
        let _ = fs::remove_file(&at);
        Failed::Writing(e)
    })
}

/// Gives `new` the owner and group of the file it replaces, or the group
/// alone, as far as the host lets the runtime (a file it cannot give away
/// stays the runtime's user's).
fn give_owner(new: &fs::File, was: &fs::Metadata) {
    let Ok(now) = new.metadata() else { return };
    if (now.uid(), now.gid()) == (was.uid(), was.gid()) {
        return;
    }
    if std::os::unix::fs::fchown(new, Some(was.uid()), Some(was.gid())).is_err() {
        let _ = std::os::unix::fs::fchown(new, None, Some(was.gid()));
    }
}
