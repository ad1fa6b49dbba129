//! Building for real in the build tests: the disk as the loader, scratch
//! folders, and a build of a root file into an output folder and a cache.

use std::path::{Path, PathBuf};

use othc::Diagnostics;
use othc::loader::Loader;
use othc_driver::build::{Options, build_objects};
use othc_driver::toolchain::Profile;

/// The real disk: builds read the sources and write bindings beside them.
pub struct Disk;

impl Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

pub fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("build")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

pub fn build(
    root_file: &Path,
    out: &Path,
    cache: &Path,
) -> (othc::Compilation, Vec<othc::bundle::Built>, Diagnostics) {
    let mut c =
        othc::compile(&Disk, &[root_file.to_path_buf()], &Default::default()).expect("loads");
    assert!(
        !c.front.diags.has_errors(),
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false)
    );
    let mut opts = Options::new(out.to_path_buf(), Profile::Release);
    opts.cache = cache.to_path_buf();
    let mut diags = Diagnostics::new();
    let built = build_objects(&mut c, &opts, &mut diags);
    (c, built, diags)
}
