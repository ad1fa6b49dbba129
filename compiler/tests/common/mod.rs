//! What the test files share: the workspace root, and a loader rooted there
//! (so diagnostics show paths relative to it).

#![allow(dead_code)]

pub mod building;

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

/// Compiles the AssemblyScript file `entry` (relative to the workspace root)
/// with the bindings of `fixtures/codegen/everything.oth` beside it, in
/// `dir`; returns the module's path there.
pub fn build_with_everything(
    dir: &Path,
    entry: &str,
    profile: othc_driver::toolchain::Profile,
) -> PathBuf {
    let rel = PathBuf::from("fixtures/codegen/everything.oth");
    let c = othc::compile(&RootLoader, std::slice::from_ref(&rel), &Default::default()).unwrap();
    assert!(!c.front.diags.has_errors());
    let root_module = c.front.program.roots[0];
    let g = othc::backends::assemblyscript::generate(
        &c.checked.model,
        othc::model::FileIx(root_module.0),
        &c.front
            .sources
            .get(c.front.program.module(root_module).file)
            .text,
    );
    std::fs::write(dir.join(&g.file_name), g.text).unwrap();
    let name = Path::new(entry).file_name().unwrap();
    let copy = dir.join(name);
    std::fs::copy(root().join(entry), &copy).unwrap();
    let wasm = othc_driver::toolchain::compile(
        &copy,
        &dir.join("build"),
        profile,
        &othc_driver::resident::Compilers::process_wide(),
    )
    .unwrap_or_else(|e| panic!("asc failed:\n{e}"));
    let path = copy.with_extension("wasm");
    std::fs::write(&path, wasm).unwrap();
    path
}

/// Runs `cmd`, which must succeed: its output, or its stderr as the failure.
pub fn succeed(cmd: &mut std::process::Command) -> std::process::Output {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{:?} does not run: {e}", cmd.get_program()));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}
