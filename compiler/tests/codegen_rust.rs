//! Rust bindings, for every `fixtures/codegen/*.oth`:
//! - the generated `X.oth.rs` is snapshot-tested (`codegen_rust__X`);
//! - all of them compile against the `othismo` crate (`sdk/rust/`), with
//!   the toolchain's current stable Rust and, where Debian's rustc 1.63 is
//!   installed (the one that builds wasm32 where rustup cannot fetch the
//!   target), with it too: generated code and crate keep to Rust 1.63.

mod common;
use common::{RootLoader, root};
use std::path::{Path, PathBuf};
use std::process::Command;

use othc::model::FileIx;

/// The codegen fixtures, and those of formats only the Rust backend
/// generates codecs for (`fixtures/codegen/json/`: JSON).
fn fixtures() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = ["fixtures/codegen", "fixtures/codegen/json"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root().join(d)).unwrap().flatten())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "oth"))
        .collect();
    v.sort();
    v
}

fn bindings(path: &Path) -> (String, String) {
    let rel = path.strip_prefix(root()).unwrap().to_path_buf();
    let c = othc::compile(&RootLoader, &[rel], &Default::default()).unwrap();
    assert!(!c.front.diags.has_errors(), "{}", path.display());
    let module = c.front.program.module(c.front.program.roots[0]);
    let text = &c.front.sources.get(module.file).text;
    let g =
        othc::backends::rust::generate(&c.checked.model, FileIx(c.front.program.roots[0].0), text);
    (g.file_name, g.text)
}

#[test]
fn the_generated_rust_is_as_reviewed() {
    for path in fixtures() {
        let (name, text) = bindings(&path);
        let stem = path.file_stem().unwrap().to_string_lossy().into_owned();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(root().join("snapshots"));
        settings.set_prepend_module_to_snapshot(false);
        settings.set_omit_expression(true);
        settings.set_input_file(&path);
        let body = format!("//// {name}\n{text}");
        settings.bind(|| insta::assert_snapshot!(format!("codegen_rust__{stem}"), body));
    }
}

#[test]
fn every_binding_compiles_with_the_crate_on_stable_and_on_rust_1_63() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("codegen_rust");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let mut lib = String::from("#![deny(warnings)]\n");
    for path in fixtures() {
        let (name, text) = bindings(&path);
        std::fs::write(dir.join("src").join(&name), text).unwrap();
        let module = name.trim_end_matches(".oth.rs").to_lowercase();
        lib.push_str(&format!("#[path = {name:?}]\npub mod {module};\n"));
    }
    std::fs::write(dir.join("src/lib.rs"), lib).unwrap();
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"bindings\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nothismo = {{ path = {:?} }}\n\n[workspace]\n",
            root().join("sdk/rust").display().to_string()
        ),
    )
    .unwrap();
    let build = |cargo: &str, rustc: Option<&str>, target: &str| {
        // Each cargo writes the lock its own way (1.65 cannot read 1.95's).
        let _ = std::fs::remove_file(dir.join("Cargo.lock"));
        let mut c = Command::new(cargo);
        c.args(["build", "--offline", "--target-dir", target])
            .current_dir(&dir)
            .env_remove("RUSTFLAGS");
        if let Some(r) = rustc {
            c.env("RUSTC", r);
        }
        let o = c.output().expect("cargo runs");
        assert!(
            o.status.success(),
            "{cargo}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    build(env!("CARGO"), None, "target-stable");
    // Debian's Rust 1.63 (installed if missing, saying so; under CI its
    // absence fails the test).
    let debian = ["rustc", "cargo"].iter().try_for_each(|p| {
        test_support::ensure_debian_package(p, "Debian's Rust 1.63", &|| {
            Path::new("/usr/bin").join(p).exists()
        })
    });
    if test_support::runnable(debian) {
        build("/usr/bin/cargo", Some("/usr/bin/rustc"), "target-1.63");
    }
}
