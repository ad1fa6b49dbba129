//! The open documents laid over the disk, and checking them: the same
//! `othc::compile` as `othc check`, through a loader that prefers unsaved
//! text.

use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use lsp_types::Url;
use othc::ide::Analysis;
use othc::loader::{Loader, normalize};

/// What the editor has open: path → (version, text).
#[derive(Clone, Default)]
pub struct Documents {
    docs: BTreeMap<PathBuf, (i32, Arc<str>)>,
}

impl Documents {
    pub fn open(&mut self, path: PathBuf, version: i32, text: String) {
        self.docs.insert(path, (version, text.into()));
    }

    pub fn close(&mut self, path: &Path) {
        self.docs.remove(path);
    }

    pub fn get(&self, path: &Path) -> Option<&str> {
        self.docs.get(path).map(|(_, t)| &**t)
    }

    pub fn set(&mut self, path: &Path, version: i32, text: String) {
        self.docs.insert(path.to_path_buf(), (version, text.into()));
    }

    /// The version the editor gave the open document's text.
    pub fn version(&self, path: &Path) -> Option<i32> {
        self.docs.get(path).map(|(v, _)| *v)
    }

    /// The open `.oth` files: the roots every check starts from, so each
    /// open file's diagnostics are fresh whichever file changed.
    pub fn roots(&self) -> Vec<PathBuf> {
        self.docs
            .keys()
            .filter(|p| p.extension().is_some_and(|e| e == "oth"))
            .cloned()
            .collect()
    }

    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }
}

/// Open documents first, then the disk.
pub struct Overlay<'a> {
    pub docs: &'a Documents,
}

impl Loader for Overlay<'_> {
    fn load(&self, path: &Path) -> io::Result<Vec<u8>> {
        if let Some(text) = self.docs.get(path) {
            return Ok(text.as_bytes().to_vec());
        }
        if path.is_dir() {
            return Err(io::Error::new(
                io::ErrorKind::IsADirectory,
                "is a directory",
            ));
        }
        othc::loader::read_bounded(std::fs::File::open(path)?)
    }
}

/// Checks every open `.oth` file and what it imports. `None` when nothing
/// is open, or a root cannot be read at all.
pub fn analyze(docs: &Documents) -> Option<Analysis> {
    let roots = docs.roots();
    if roots.is_empty() {
        return None;
    }
    let compiled = othc::compile(&Overlay { docs }, &roots, &othc::ValueInputs::default()).ok()?;
    Some(Analysis::new(compiled))
}

/// The path a `file:` URL names, normalized as the loader keys files.
pub fn path_of(url: &Url) -> Option<PathBuf> {
    url.to_file_path().ok().map(|p| normalize(&p))
}

/// The URL of a loaded file (`None` for `othismo:env`).
pub fn url_of(name: &str) -> Option<Url> {
    let path = Path::new(name);
    path.is_absolute()
        .then(|| Url::from_file_path(path).ok())
        .flatten()
}
