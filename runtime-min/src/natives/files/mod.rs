//! `Files`: a host directory tree, served under the configured directory
//! and never outside it (book: reference/running.md). The operator configures it with
//! `write FilesConfig { dir, readonly? }` to its root; relative directories
//! are taken from the runtime's working directory.
//!
//! Confinement: request paths reach here already parsed (no `.`, `..` or
//! empty segments; `othc::namespace::path::parse_request`). A read first
//! tries to open its path from the root held open in one call that refuses
//! every link on the way; otherwise (and for every other request) the path
//! is resolved with symlinks followed (`root`: looked up name by name from
//! the root while no name is a link, canonicalized at the first) and
//! must stay under the canonical root; a symlink that leads out is refused (`forbidden`), and
//! listings leave such entries out. Creation resolves the parent and never
//! follows a link at the last step (`create_new`); removal removes a link
//! itself, never what it points at.
//!
//! Changes are whole or nothing: a write replaces the file with a new one
//! renamed over it once fully written (`write_whole`), and a create
//! whose content cannot be written removes the file it made.

mod held;
mod listing;
mod meta;
mod root;
mod stream;

pub use stream::Stream;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use othc::model::{Seg, Verb};
use write_whole::{Failed, replace};

use super::{Entries, Reply};
use crate::Payload;
use crate::abi::{KIND_DIRECTORY, KIND_FILE, STAT_TYPE, Stat, errno};
use listing::Listing;
use meta::{Kind, Meta};
use root::{Found, Root};
use stream::FileParts;

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Entry {
    Configure,
    Read,
    Write,
    Create,
    Remove,
    Stat,
    List,
}

pub(crate) const ENTRIES: &Entries<Entry> = &[
    (Entry::Configure, Verb::Write, "/"),
    (Entry::Read, Verb::Read, "/**"),
    (Entry::Write, Verb::Write, "/**"),
    (Entry::Create, Verb::Create, "/**"),
    (Entry::Remove, Verb::Remove, "/**"),
    (Entry::Stat, Verb::Stat, "/**"),
    (Entry::List, Verb::List, "/**"),
];

/// The content type `create` takes to make a directory.
pub const DIRECTORY_TYPE: &str = "inode/directory";

#[derive(Default)]
pub struct Files {
    /// The directory served, once configured.
    root: Option<Root>,
    readonly: bool,
    /// Its last request took over 10 ms: with several workers, its
    /// next one goes to a worker if one is free (`workers`).
    pub slow: bool,
}

/// What to do with a request, decided before touching the disk.
pub struct Request<'a> {
    /// The serves entry it reached (its place in `ENTRIES`); the router has
    /// held the operator-only one to the operator.
    pub entry: usize,
    pub path: &'a [Seg],
    pub payload: Option<&'a Payload>,
    /// The payload limit: no part of a file read is longer.
    pub limit: usize,
    /// When it is served (a stat's look-up stands for the reads just
    /// after it: `held`).
    pub now: Instant,
}

fn guess_type(p: &Path) -> &'static str {
    match p.extension().and_then(|e| e.to_str()) {
        Some("txt") => "text/plain",
        Some("md") => "text/markdown",
        Some("html" | "htm") => "text/html",
        Some("css") => "text/css",
        Some("csv") => "text/csv",
        Some("json") => "application/json",
        Some("bson") => "application/bson",
        Some("wasm") => "application/wasm",
        Some("png") => "image/png",
        Some("jpg" | "jpeg") => "image/jpeg",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

fn stat_of(name: &str, p: &Path, m: &Meta) -> Stat {
    let dir = m.kind == Kind::Directory;
    let (kind, content_type) = if dir {
        (KIND_DIRECTORY, DIRECTORY_TYPE)
    } else {
        (KIND_FILE, guess_type(p))
    };
    Stat {
        name: name.to_string(),
        kind,
        length: if dir { 0 } else { m.len },
        content_type: content_type.to_string(),
        // Changes whenever the content is rewritten or resized.
        version: m.mtime_ns.rotate_left(17) ^ m.len,
    }
}

fn stat_payload(s: &Stat) -> Payload {
    Payload {
        content_type: STAT_TYPE.into(),
        data: s.encode(),
    }
}

fn name_of(path: &[Seg]) -> String {
    match path.last() {
        Some(Seg::Literal(s)) => s.clone(),
        _ => "/".into(),
    }
}

/// Opens what `found` names to read or to write, and only if it is a
/// regular file. A FIFO would wait for its other end for ever, stalling
/// whoever serves it (the event loop or a worker), and a device is nothing
/// to serve: the open itself never waits, and anything that is not a file
/// or directory is refused `forbidden`; a directory is `invalid` (list it).
fn open_regular(
    root: &Root,
    found: &Found,
    write: bool,
    shown: &str,
) -> Result<(fs::File, Meta), Reply> {
    // Before opening (a FIFO opened to write with nobody reading fails
    // otherwise, saying nothing of why), and after (it is what was opened).
    regular(&found.meta, shown)?;
    let f = root
        .open_found(found, write)
        .map_err(|e| Reply::io(&e, shown))?;
    let m = Meta::from(&f.metadata().map_err(|e| Reply::io(&e, shown))?);
    regular(&m, shown)?;
    Ok((f, m))
}

/// Whether what `m` describes can be read or written as a file.
fn regular(m: &Meta, shown: &str) -> Result<(), Reply> {
    match m.kind {
        Kind::Directory => Err(Reply::error(
            errno::INVALID,
            "that is a directory: list it instead",
        )),
        Kind::Other => Err(not_regular(shown)),
        Kind::File => Ok(()),
    }
}

fn not_regular(shown: &str) -> Reply {
    Reply::error(
        errno::FORBIDDEN,
        format!(
            "{shown} is not a regular file (a pipe, a socket or a device): Files serves files and directories"
        ),
    )
}

fn refuse_outside() -> Reply {
    Reply::error(
        errno::FORBIDDEN,
        "that path leads outside the directory Files serves",
    )
}

/// The most bytes of a file in one answer to a read: a bigger file is a
/// stream of parts this long (or the payload limit, if that is less).
pub const PART: usize = 256 * 1024;

/// A `Files` request (or a part of a stream) that took longer than this
/// marks its disk slow until one takes less: its next request (or part)
/// goes to a worker. A seek on a spinning disk or a network file system's
/// round trip is about this; a preempted thread on a busy machine is less (at 1 ms, a fast
/// disk's requests kept going to the workers under load, two thread
/// switches each). Not for good: a disk marked slow for good after one
/// preempted request halved the site's requests/s within minutes.
pub(crate) const SLOW_DISK: std::time::Duration = std::time::Duration::from_millis(10);

impl Files {
    pub fn serve(&mut self, r: Request<'_>) -> Vec<Reply> {
        let Some(&(asked, verb, _)) = ENTRIES.get(r.entry) else {
            return vec![Reply::error(
                errno::NOT_SUPPORTED,
                "Files does not serve that",
            )];
        };
        if asked == Entry::Configure {
            return vec![self.configure(r.payload)];
        }
        let Some(root) = self.root.as_mut() else {
            return vec![Reply::error(
                errno::UNAVAILABLE,
                "Files has no directory yet: the operator writes FilesConfig to its root first",
            )];
        };
        if self.readonly && !verb.is_safe() {
            return vec![Reply::error(
                errno::READ_ONLY,
                "this Files object is configured read-only",
            )];
        }
        // The names below the root (the root's own path is joined only
        // where a request needs it).
        let mut below = PathBuf::new();
        for s in r.path {
            match s {
                Seg::Literal(s) if !s.contains('\0') && !s.contains('/') => below.push(s),
                _ => return vec![Reply::error(errno::INVALID, "not a file name")],
            }
        }
        let shown = &othc::namespace::path::text(r.path);
        if asked == Entry::Read {
            return Self::read(root, &below, r.limit, shown, r.now).unwrap_or_else(|e| vec![e]);
        }
        if asked == Entry::Stat {
            return vec![Self::stat(root, &below, r.path, shown, r.now).unwrap_or_else(|e| e)];
        }
        if !verb.is_safe() {
            root.changing();
        }
        let p = root.path.join(&below);
        let result = match asked {
            Entry::List => return Self::list(root, &p, shown),
            Entry::Write => Self::write(root, &p, r.payload, shown),
            Entry::Create => Self::create(root, &p, r.path, r.payload, shown),
            Entry::Remove => Self::remove(root, &p, r.path, shown),
            Entry::Configure | Entry::Read | Entry::Stat => {
                unreachable!("answered above")
            }
        };
        vec![result.unwrap_or_else(|e| e)]
    }

    fn configure(&mut self, payload: Option<&Payload>) -> Reply {
        let doc = match payload.map(|p| bson::Document::from_reader(&mut p.data.as_slice())) {
            Some(Ok(d)) => d,
            _ => return Reply::error(errno::INVALID, "expected a FilesConfig message"),
        };
        let Ok(dir) = doc.get_str("dir") else {
            return Reply::error(errno::INVALID, "FilesConfig has no `dir`");
        };
        let readonly = doc.get_bool("readonly").unwrap_or(false);
        match Root::open(dir) {
            Ok(root) => {
                self.root = Some(root);
                self.readonly = readonly;
                Reply::done(None)
            }
            Err(why) => why,
        }
    }

    /// `p` with every symlink followed; it must exist and stay under `root`.
    fn inside(root: &Root, p: &Path, shown: &str) -> Result<PathBuf, Reply> {
        root.find(p, shown).map(|found| found.real)
    }

    /// Where a new entry `p` goes: its parent resolved (and confined), its
    /// own name not followed.
    fn new_entry(root: &Root, p: &Path, shown: &str) -> Result<PathBuf, Reply> {
        let (Some(parent), Some(name)) = (p.parent(), p.file_name()) else {
            return Err(Reply::error(errno::EXISTS, "the root exists"));
        };
        if !p.starts_with(&root.path) || p == root.path {
            return Err(Reply::error(errno::EXISTS, "the root exists"));
        }
        Ok(Self::inside(root, parent, shown)?.join(name))
    }

    /// A file, as a stream: one answer if it fits in one part, otherwise
    /// its first part and the rest to read as the reader takes each part
    /// (`Stream`). Read through the one handle opened here, so every
    /// part is of the same file even if its name is given to another.
    fn read(
        root: &mut Root,
        below: &Path,
        limit: usize,
        shown: &str,
        now: Instant,
    ) -> Result<Vec<Reply>, Reply> {
        let part = PART.min(limit.max(1));
        let (file, m, content_type) = if let Some((file, m)) = root.reuse(below, now) {
            (file, m, guess_type(below))
        } else if let Some(opened) = root.open_plain(below) {
            let (file, s) = opened.map_err(|e| Reply::io(&e, shown))?;
            let m = Meta::from(&s);
            regular(&m, shown)?;
            let file = Arc::new(file);
            root.keep(below, &file, &s, part);
            (file, m, guess_type(below))
        } else {
            let found = root.find_below(below, shown)?;
            let (file, m) = open_regular(root, &found, false, shown)?;
            (Arc::new(file), m, guess_type(&found.real))
        };
        Ok(Stream::of_file(FileParts {
            file,
            at: 0,
            left: m.len,
            content_type,
            part,
            shown: shown.to_string(),
        })
        .begin())
    }

    fn stat(
        root: &mut Root,
        below: &Path,
        path: &[Seg],
        shown: &str,
        now: Instant,
    ) -> Result<Reply, Reply> {
        let found = root.stat_below(below, shown, now)?;
        if found.meta.kind == Kind::Other {
            return Err(not_regular(shown));
        }
        Ok(Reply::done(Some(stat_payload(&stat_of(
            &name_of(path),
            &found.real,
            &found.meta,
        )))))
    }

    /// A directory's entries, as a stream (`listing`).
    fn list(root: &Root, p: &Path, shown: &str) -> Vec<Reply> {
        let listed =
            Self::inside(root, p, shown).and_then(|real| Listing::open(&root.path, real, shown));
        match listed {
            Ok(listing) => Stream::of_listing(listing).begin(),
            Err(e) => vec![e],
        }
    }

    fn write(
        root: &Root,
        p: &Path,
        payload: Option<&Payload>,
        shown: &str,
    ) -> Result<Reply, Reply> {
        let found = root.find(p, shown)?;
        if found.meta.kind == Kind::Directory {
            return Err(Reply::error(errno::INVALID, "that is a directory"));
        }
        let data = payload.map(|p| p.data.as_slice()).unwrap_or_default();
        // Opened to write and never written through: whether the host lets
        // the runtime write it, and that it is a regular file.
        let (old, _) = open_regular(root, &found, true, shown)?;
        let was = old.metadata().map_err(|e| Reply::io(&e, shown))?;
        replace(&found.real, Some(&was), data).map_err(|failed| match failed {
            Failed::Beside(e) if e.kind() == std::io::ErrorKind::PermissionDenied => {
                Reply::error(
                    errno::FORBIDDEN,
                    format!(
                        "the host does not allow making files beside {shown}: \
                         a write puts the new content in a new file there, then renames it over the old"
                    ),
                )
            }
            Failed::Beside(e) | Failed::Writing(e) => Reply::io(&e, shown),
        })?;
        Ok(Reply::done(None))
    }

    fn create(
        root: &Root,
        p: &Path,
        path: &[Seg],
        payload: Option<&Payload>,
        shown: &str,
    ) -> Result<Reply, Reply> {
        let at = Self::new_entry(root, p, shown)?;
        if payload.is_some_and(|p| *p.content_type == *DIRECTORY_TYPE) {
            fs::create_dir(&at).map_err(|e| Reply::io(&e, shown))?;
        } else {
            // create_new: fails on anything already there, a link included.
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&at)
                .map_err(|e| Reply::io(&e, shown))?;
            let data = payload.map(|p| p.data.as_slice()).unwrap_or_default();
            if let Err(e) = f.write_all(data) {
                // Not left half made: the same create may be tried again.
                let _ = fs::remove_file(&at);
                return Err(Reply::io(&e, shown));
            }
        }
        let m = fs::metadata(&at).map_err(|e| Reply::io(&e, shown))?;
        Ok(Reply::done(Some(stat_payload(&stat_of(
            &name_of(path),
            &at,
            &Meta::from(&m),
        )))))
    }

    fn remove(root: &Root, p: &Path, path: &[Seg], shown: &str) -> Result<Reply, Reply> {
        if path.is_empty() {
            return Err(Reply::error(
                errno::FORBIDDEN,
                "the root of a Files object cannot be removed",
            ));
        }
        let at = Self::new_entry(root, p, shown)?;
        let m = fs::symlink_metadata(&at).map_err(|e| Reply::io(&e, shown))?;
        if m.is_dir() {
            fs::remove_dir(&at).map_err(|e| Reply::io(&e, shown))?;
        } else {
            // A link goes itself; what it points at is untouched.
            fs::remove_file(&at).map_err(|e| Reply::io(&e, shown))?;
        }
        Ok(Reply::done(None))
    }
}
