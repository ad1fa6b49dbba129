//! What the test files share: the workspace root, and a loader rooted there
//! (so diagnostics show paths relative to it).

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use othc::loader::Loader;

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Reads paths relative to the workspace root.
pub struct RootLoader;

impl Loader for RootLoader {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(root().join(path))
    }
}
