//! The guest side of file transfer, for a sandbox whose files live in a
//! host directory: guest paths mapped under the sandbox's root, and tar
//! extraction that refuses every entry whose resolved path escapes the
//! destination (absolute paths, `..`, links pointing outside, writes through
//! links), answering `WireFilesPutResult`.

use std::collections::HashMap;
use std::fs;
use std::io::Read;
use std::path::{Component, Path, PathBuf};

use crate::failure::FailureKind;
use crate::wire::WireFilesPutResult;

/// Why a file request failed: what kind of failure, and the reason.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FilesError {
    pub kind: FailureKind,
    pub reason: String,
}

impl FilesError {
    pub fn new(kind: FailureKind, reason: impl Into<String>) -> FilesError {
        FilesError {
            kind,
            reason: reason.into(),
        }
    }

    pub fn bad(reason: impl Into<String>) -> FilesError {
        FilesError::new(FailureKind::Invalid, reason)
    }

    pub fn not_found(reason: impl Into<String>) -> FilesError {
        FilesError::new(FailureKind::NotFound, reason)
    }

    fn io(what: &str, e: std::io::Error) -> FilesError {
        if e.kind() == std::io::ErrorKind::NotFound {
            FilesError::not_found(format!("{what}: no such file"))
        } else {
            FilesError::new(FailureKind::Internal, format!("{what}: {e}"))
        }
    }
}

/// The relative path a guest path names: absolute, no `..`.
pub fn guest_relative(path: &str) -> Result<PathBuf, FilesError> {
    if !path.starts_with('/') {
        return Err(FilesError::bad(format!(
            "`{path}` is not an absolute guest path"
        )));
    }
    relative(Path::new(path.trim_start_matches('/')))
        .ok_or_else(|| FilesError::bad(format!("`{path}` leaves the sandbox")))
}

/// `p` with `.` dropped; `None` if it is absolute or has `..`.
fn relative(p: &Path) -> Option<PathBuf> {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out)
}

/// `p`, made of normal components, resolved lexically: `None` if it climbs
/// above its start.
fn normalize(p: &Path) -> Option<PathBuf> {
    let mut out: Vec<&std::ffi::OsStr> = Vec::new();
    for c in p.components() {
        match c {
            Component::Normal(s) => out.push(s),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop()?;
            }
            Component::RootDir | Component::Prefix(_) => return None,
        }
    }
    Some(out.iter().collect())
}

/// Creates `rel` under `base` as directories, refusing to pass through a
/// link or anything that is not a directory.
fn make_dirs(base: &Path, rel: &Path) -> Result<(), FilesError> {
    let mut at = base.to_path_buf();
    for c in rel.components() {
        at.push(c);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(FilesError::bad(format!(
                    "`{}` is a link: nothing is written through links",
                    rel.display()
                )));
            }
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(FilesError::bad(format!(
                    "`{}` is a file, not a directory",
                    rel.display()
                )));
            }
            Err(_) => {
                fs::create_dir(&at).map_err(|e| FilesError::io(&rel.display().to_string(), e))?
            }
        }
    }
    Ok(())
}

/// Reads a guest file of the sandbox rooted at `root`; links are followed
/// only while they stay inside.
pub fn read_file(root: &Path, path: &str) -> Result<Vec<u8>, FilesError> {
    let rel = guest_relative(path)?;
    let root = fs::canonicalize(root).map_err(|e| FilesError::io("the sandbox", e))?;
    let real = fs::canonicalize(root.join(&rel)).map_err(|e| FilesError::io(path, e))?;
    if !real.starts_with(&root) {
        return Err(FilesError::bad(format!(
            "`{path}` leads outside the sandbox"
        )));
    }
    if real.is_dir() {
        return Err(FilesError::bad(format!(
            "`{path}` is a directory: pull one file"
        )));
    }
    fs::read(&real).map_err(|e| FilesError::io(path, e))
}

/// Where a link entry points.
fn link_target<R: Read>(entry: &tar::Entry<'_, R>, shown: &str) -> Result<PathBuf, FilesError> {
    entry
        .link_name()
        .ok()
        .flatten()
        .map(|t| t.into_owned())
        .ok_or_else(|| FilesError::bad(format!("link `{shown}` has no target")))
}

/// Refuses a link whose target (from the link's directory `from`) goes at
/// or through another link, one made by an earlier entry (`links`) or one
/// already on disk beneath `base`: each link may look harmless on its own
/// (`s -> .`, then `t -> s/..`) while the chain leads out. Links to plain
/// paths inside the destination are all a push needs.
fn through_no_link(
    base: &Path,
    links: &std::collections::HashSet<PathBuf>,
    from: &Path,
    target: &Path,
    shown: &str,
) -> Result<(), FilesError> {
    let mut at = PathBuf::new();
    for c in from.join(target).components() {
        match c {
            Component::Normal(name) => {
                at.push(name);
                let on_disk =
                    fs::symlink_metadata(base.join(&at)).is_ok_and(|m| m.file_type().is_symlink());
                if links.contains(&at) || on_disk {
                    return Err(FilesError::bad(format!(
                        "link `{shown}` points through the link `{}`: a link may not point at or through another link",
                        at.display()
                    )));
                }
            }
            Component::ParentDir => {
                if !at.pop() {
                    return Err(FilesError::bad(format!(
                        "link `{shown}` points outside the destination (to `{}`)",
                        target.display()
                    )));
                }
            }
            Component::CurDir => {}
            Component::RootDir | Component::Prefix(_) => {
                return Err(FilesError::bad(format!(
                    "link `{shown}` points outside the destination (to `{}`)",
                    target.display()
                )));
            }
        }
    }
    Ok(())
}

/// What is at a path: what an archive makes, or what is on disk.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Dir,
    File,
    Link,
}

/// What is on disk at `rel` beneath `base`, not following a link.
fn disk_kind(base: &Path, rel: &Path) -> Option<Kind> {
    let m = fs::symlink_metadata(base.join(rel)).ok()?;
    Some(if m.file_type().is_symlink() {
        Kind::Link
    } else if m.is_dir() {
        Kind::Dir
    } else {
        Kind::File
    })
}

/// `a`, `a/b`, `a/b/c` for `a/b/c`.
fn ancestors_and_self(rel: &Path) -> Vec<PathBuf> {
    let mut at = PathBuf::new();
    rel.components()
        .map(|c| {
            at.push(c);
            at.clone()
        })
        .collect()
}

/// The tree an archive makes beneath `base`, entry by entry, to judge each
/// entry against the earlier ones and the disk before anything is written.
struct Plan<'a> {
    base: &'a Path,
    made: HashMap<PathBuf, Kind>,
}

impl Plan<'_> {
    fn kind(&self, rel: &Path) -> Option<Kind> {
        self.made
            .get(rel)
            .copied()
            .or_else(|| disk_kind(self.base, rel))
    }

    /// Every directory above `rel` is one, or can be made.
    fn parents(&self, rel: &Path) -> Result<(), FilesError> {
        let Some(parent) = rel.parent() else {
            return Ok(());
        };
        for a in ancestors_and_self(parent) {
            match self.kind(&a) {
                None | Some(Kind::Dir) => {}
                Some(Kind::File) => {
                    return Err(FilesError::bad(format!(
                        "`{}` needs `{}` to be a directory, but it is a file",
                        rel.display(),
                        a.display()
                    )));
                }
                Some(Kind::Link) => {
                    return Err(FilesError::bad(format!(
                        "`{}` is a link: nothing is written through links",
                        a.display()
                    )));
                }
            }
        }
        Ok(())
    }

    /// Records that the archive makes `kind` at `rel`, refusing what
    /// cannot replace what is there.
    fn make(&mut self, rel: &Path, kind: Kind) -> Result<(), FilesError> {
        let there = self.kind(rel);
        let refused = match (kind, there) {
            (_, None) | (Kind::Dir, Some(Kind::Dir)) | (Kind::File, Some(Kind::File)) => None,
            (_, Some(Kind::Link)) => Some("is a link: nothing is written through links"),
            (Kind::Link, Some(_)) => {
                Some("is a link in the archive, but something is already there")
            }
            (Kind::Dir, Some(Kind::File)) => {
                Some("is a directory in the archive, but a file is there")
            }
            (Kind::File, Some(Kind::Dir)) => {
                Some("is a file in the archive, but a directory is there")
            }
        };
        if let Some(why) = refused {
            return Err(FilesError::bad(format!("`{}` {why}", rel.display())));
        }
        for a in ancestors_and_self(rel.parent().unwrap_or(Path::new(""))) {
            self.made.entry(a).or_insert(Kind::Dir);
        }
        self.made.insert(rel.to_path_buf(), kind);
        Ok(())
    }

    /// A hard link's target is a file the archive made earlier, or one on
    /// disk reached without passing a link.
    fn names_a_file(&self, rel: &Path, target: &Path) -> Result<(), FilesError> {
        let reachable = self.parents(target).is_ok();
        if reachable && self.kind(target) == Some(Kind::File) {
            return Ok(());
        }
        Err(FilesError::bad(format!(
            "hard link `{}` names `{}`, which is not a file of the archive (before it) or of the destination",
            rel.display(),
            target.display()
        )))
    }
}

/// What one entry of an archive makes, once checked.
enum Item {
    Dir(PathBuf),
    File(PathBuf, Vec<u8>, u32),
    Symlink(PathBuf, PathBuf),
    Hardlink(PathBuf, PathBuf),
}

/// Extracts the tar archive `tar` beneath guest directory `dest` of the
/// sandbox rooted at `root`. Every entry is checked first; one that would
/// land outside `dest` refuses the whole archive before anything is written.
pub fn extract_tar(root: &Path, dest: &str, tar: &[u8]) -> Result<WireFilesPutResult, FilesError> {
    let dest_rel = guest_relative(dest)?;
    let root = fs::canonicalize(root).map_err(|e| FilesError::io("the sandbox", e))?;
    let base = root.join(&dest_rel);
    plain_directories(&root, &dest_rel, dest)?;
    let items = checked_entries(&base, tar)?;
    make_dirs(&root, &dest_rel)?;
    let mut result = WireFilesPutResult { files: 0, bytes: 0 };
    for item in items {
        write_item(&base, dest, item, &mut result)?;
    }
    Ok(result)
}

/// `dest` and the directories above it, as far as they exist, are
/// directories: not files, not links (nothing is written through links).
fn plain_directories(root: &Path, dest_rel: &Path, dest: &str) -> Result<(), FilesError> {
    for prefix in ancestors_and_self(dest_rel) {
        match disk_kind(root, &prefix) {
            None | Some(Kind::Dir) => {}
            Some(Kind::Link) => {
                return Err(FilesError::bad(format!(
                    "`{dest}`: `/{}` is a link: nothing is written through links",
                    prefix.display()
                )));
            }
            Some(Kind::File) => {
                return Err(FilesError::bad(format!(
                    "`{dest}`: `/{}` is not a directory",
                    prefix.display()
                )));
            }
        }
    }
    Ok(())
}

/// Pass 1: every entry read and checked, lexically and against what the
/// archive makes laid over what is on disk under `base`; a conflict
/// anywhere refuses the archive before anything is written.
fn checked_entries(base: &Path, tar: &[u8]) -> Result<Vec<Item>, FilesError> {
    let mut plan = Plan {
        base,
        made: HashMap::new(),
    };
    // The links earlier entries make, to judge later links against.
    let mut links: std::collections::HashSet<PathBuf> = std::collections::HashSet::new();
    let mut items = Vec::new();
    let mut archive = tar::Archive::new(tar);
    let entries = archive
        .entries()
        .map_err(|e| FilesError::bad(format!("not a tar archive: {e}")))?;
    for entry in entries {
        let mut entry = entry.map_err(|e| FilesError::bad(format!("a broken tar entry: {e}")))?;
        let raw = entry
            .path()
            .map_err(|e| FilesError::bad(format!("an entry's name: {e}")))?
            .into_owned();
        let shown = raw.display().to_string();
        let escapes = || FilesError::bad(format!("entry `{shown}` escapes the destination"));
        let rel = relative(&raw).ok_or_else(escapes)?;
        if rel.as_os_str().is_empty() {
            continue; // `./` itself
        }
        plan.parents(&rel)?;
        items.push(checked_entry(
            &mut plan, &mut links, &mut entry, rel, &shown,
        )?);
    }
    Ok(items)
}

/// One entry, at `rel`, checked and read.
fn checked_entry(
    plan: &mut Plan,
    links: &mut std::collections::HashSet<PathBuf>,
    entry: &mut tar::Entry<&[u8]>,
    rel: PathBuf,
    shown: &str,
) -> Result<Item, FilesError> {
    Ok(match entry.header().entry_type() {
        tar::EntryType::Directory => {
            plan.make(&rel, Kind::Dir)?;
            Item::Dir(rel)
        }
        // A sparse entry can declare a size far beyond its bytes (a
        // kilobyte archive reading as a terabyte): refused, so what is
        // read is bounded by the archive itself.
        tar::EntryType::GNUSparse => {
            return Err(FilesError::bad(format!(
                "entry `{shown}` is a sparse file: sparse entries are not taken"
            )));
        }
        tar::EntryType::Regular | tar::EntryType::Continuous => {
            let mut data = Vec::new();
            entry
                .read_to_end(&mut data)
                .map_err(|e| FilesError::bad(format!("entry `{shown}`: {e}")))?;
            let mode = entry.header().mode().unwrap_or(0o644) & 0o777;
            plan.make(&rel, Kind::File)?;
            Item::File(rel, data, mode)
        }
        tar::EntryType::Symlink => {
            let target = link_target(entry, shown)?;
            // Where the link points, from its own directory: inside, or refused.
            let from = rel.parent().unwrap_or(Path::new(""));
            if target.is_absolute() || normalize(&from.join(&target)).is_none() {
                return Err(FilesError::bad(format!(
                    "link `{shown}` points outside the destination (to `{}`)",
                    target.display()
                )));
            }
            through_no_link(plan.base, links, from, &target, shown)?;
            plan.make(&rel, Kind::Link)?;
            links.insert(rel.clone());
            Item::Symlink(rel, target)
        }
        tar::EntryType::Link => {
            let target = link_target(entry, shown)?;
            let target = relative(&target).ok_or_else(|| {
                FilesError::bad(format!(
                    "hard link `{shown}` points outside the destination (to `{}`)",
                    target.display()
                ))
            })?;
            plan.names_a_file(&rel, &target)?;
            plan.make(&rel, Kind::File)?;
            Item::Hardlink(rel, target)
        }
        other => {
            return Err(FilesError::bad(format!(
                "entry `{shown}` is a {other:?}: only files, directories and links are taken"
            )));
        }
    })
}

/// Pass 2: one checked entry written under `base`. Pass 1 judged every
/// entry against the disk, so what can fail here is the disk itself (full,
/// or changed meanwhile); the checks here stay as a second line, resolving
/// what is on disk (links from earlier entries or already there) and
/// refusing to write through any link.
fn write_item(
    base: &Path,
    dest: &str,
    item: Item,
    result: &mut WireFilesPutResult,
) -> Result<(), FilesError> {
    let parent_of = |rel: &Path| make_dirs(base, rel.parent().unwrap_or(Path::new("")));
    let not_a_link = |at: &Path, rel: &Path| -> Result<(), FilesError> {
        match fs::symlink_metadata(at) {
            Ok(m) if m.file_type().is_symlink() => Err(FilesError::bad(format!(
                "`{}` is a link: nothing is written through links",
                rel.display()
            ))),
            _ => Ok(()),
        }
    };
    match item {
        Item::Dir(rel) => make_dirs(base, &rel)?,
        Item::File(rel, data, mode) => {
            parent_of(&rel)?;
            let at = base.join(&rel);
            not_a_link(&at, &rel)?;
            fs::write(&at, &data).map_err(|e| FilesError::io(&rel.display().to_string(), e))?;
            #[cfg(unix)]
            {
                use std::os::unix::fs::PermissionsExt;
                let _ = fs::set_permissions(&at, fs::Permissions::from_mode(mode.max(0o400)));
            }
            #[cfg(not(unix))]
            let _ = mode;
            result.files += 1;
            result.bytes += data.len() as u64;
        }
        Item::Symlink(rel, target) => {
            parent_of(&rel)?;
            let at = base.join(&rel);
            if fs::symlink_metadata(&at).is_ok() {
                return Err(FilesError::bad(format!(
                    "link `{}`: something is already there",
                    rel.display()
                )));
            }
            #[cfg(unix)]
            std::os::unix::fs::symlink(&target, &at)
                .map_err(|e| FilesError::io(&rel.display().to_string(), e))?;
            #[cfg(not(unix))]
            return Err(FilesError::bad(format!(
                "links are not supported here: {}",
                target.display()
            )));
        }
        Item::Hardlink(rel, target) => {
            parent_of(&rel)?;
            let at = base.join(&rel);
            not_a_link(&at, &rel)?;
            let source = fs::canonicalize(base.join(&target))
                .map_err(|e| FilesError::io(&target.display().to_string(), e))?;
            let base_real = fs::canonicalize(base).map_err(|e| FilesError::io(dest, e))?;
            if !source.starts_with(&base_real) {
                return Err(FilesError::bad(format!(
                    "hard link `{}` points outside the destination",
                    rel.display()
                )));
            }
            fs::hard_link(&source, &at)
                .map_err(|e| FilesError::io(&rel.display().to_string(), e))?;
            result.files += 1;
        }
    }
    Ok(())
}
