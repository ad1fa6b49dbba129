//! AssemblyScript bindings, one test pair per `fixtures/codegen/*.oth`:
//! - the generated `X.oth.ts` is snapshot-tested (`codegen__X`);
//! - it compiles with the pinned AssemblyScript compiler, together with the
//!   SDK and an entry that uses every generated class and method;
//!
//! and the seed's `Greeter.ts` compiles unchanged against the bindings of its
//! header, into a module that imports only `othismo.*` and `env.abort` and
//! exports everything the host ABI lists (book: reference/wire.md).

mod common;
use common::{RootLoader, root};
use std::path::{Path, PathBuf};

use libtest_mimic::{Arguments, Failed, Trial};
use othc::backends::assemblyscript;
use othc::model::FileIx;
use othc_driver::resident::Compilers;
use othc_driver::rust_toolchain;
use othc_driver::toolchain::{self, Profile};

/// The bindings of a file, and its exerciser.
fn bindings(rel: &Path) -> Result<(String, String, String), Failed> {
    let c = othc::compile(&RootLoader, &[rel.to_path_buf()], &Default::default())
        .map_err(|e| Failed::from(e.to_string()))?;
    if c.front.diags.has_errors() {
        return Err(
            othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false).into(),
        );
    }
    let module = c.front.program.module(c.front.program.roots[0]);
    let text = &c.front.sources.get(module.file).text;
    let ix = FileIx(c.front.program.roots[0].0);
    let g = assemblyscript::generate(&c.checked.model, ix, text);
    let ex = assemblyscript::exerciser(&c.checked.model, ix, text);
    Ok((g.file_name, g.text, ex))
}

fn snapshot(rel: PathBuf) -> Result<(), Failed> {
    let (name, text, _) = bindings(&rel)?;
    let stem = rel.file_stem().unwrap().to_string_lossy().into_owned();
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.set_omit_expression(true);
    settings.set_input_file(root().join(&rel));
    let body = format!("//// {name}\n{text}");
    settings.bind(|| insta::assert_snapshot!(format!("codegen__{stem}"), body));
    Ok(())
}

/// A scratch folder under the target directory, fresh for each test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("codegen")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    dir
}

fn compiles(rel: PathBuf) -> Result<(), Failed> {
    let (name, text, exercise) = bindings(&rel)?;
    let stem = rel.file_stem().unwrap().to_string_lossy().into_owned();
    let dir = scratch(&stem);
    std::fs::write(dir.join(&name), text)?;
    let entry = dir.join("exercise.ts");
    std::fs::write(&entry, exercise)?;
    toolchain::compile(
        &entry,
        &dir.join("build"),
        Profile::Debug,
        &Compilers::process_wide(),
    )
    .map(|_| ())
    .map_err(|e| format!("asc failed:\n{e}").into())
}

/// The seed's Greeter.ts against our bindings of its header.
fn seed_greeter_compiles() -> Result<(), Failed> {
    let dir = scratch("seed_greeter_ts");
    let (name, text, _) = bindings(Path::new("examples/hello/Greeter.oth"))?;
    std::fs::write(dir.join(&name), text)?;
    // The seed's file, byte for byte (examples/hello holds its copy; a test of
    // the fixtures checks the copy against ../shared).
    let seed = std::fs::read(root().join("examples/hello/Greeter.ts"))?;
    let entry = dir.join("Greeter.ts");
    std::fs::write(&entry, seed)?;
    let wasm = toolchain::compile(
        &entry,
        &dir.join("build"),
        Profile::Release,
        &Compilers::process_wide(),
    )
    .map_err(|e| format!("asc failed:\n{e}"))?;
    let mut imports = Vec::new();
    let mut exports = Vec::new();
    for payload in wasmparser::Parser::new(0).parse_all(&wasm) {
        match payload? {
            wasmparser::Payload::ImportSection(r) => {
                for i in r.into_imports() {
                    let i = i?;
                    imports.push(format!("{}.{}", i.module, i.name));
                }
            }
            wasmparser::Payload::ExportSection(r) => {
                for e in r {
                    exports.push(e?.name.to_string());
                }
            }
            _ => {}
        }
    }
    for i in &imports {
        if !(i.starts_with("othismo.") || i == "env.abort") {
            return Err(format!("unexpected import {i}; imports: {imports:?}").into());
        }
    }
    for want in [
        "memory",
        "othismo_alloc",
        "othismo_start",
        "othismo_serve",
        "othismo_answer",
        "othismo_error",
        "othismo_cancel",
        "_start",
    ] {
        if !exports.iter().any(|e| e == want) {
            return Err(format!("no export `{want}`; exports: {exports:?}").into());
        }
    }
    Ok(())
}

/// Every file of each SDK (`sdk/assemblyscript`'s `.ts`, `sdk/rust`'s
/// `Cargo.toml` and `src/*.rs`) is embedded in othc, which lays it out
/// for a build.
fn sdk_is_embedded() -> Result<(), Failed> {
    let names = |dir: &str, ext: &str| -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(root().join(dir))
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.ends_with(ext))
                    .collect()
            })
            .unwrap_or_default();
        names.sort();
        names
    };
    let embedded = |files: &[(&str, &str)]| -> Vec<String> {
        let mut names: Vec<String> = files.iter().map(|(n, _)| n.to_string()).collect();
        names.sort();
        names
    };
    let as_files = names("sdk/assemblyscript", ".ts");
    let mut rust_files = vec!["Cargo.toml".to_string()];
    rust_files.extend(
        names("sdk/rust/src", ".rs")
            .into_iter()
            .map(|n| format!("src/{n}")),
    );
    rust_files.sort();
    for (dir, on_disk, embedded) in [
        (
            "sdk/assemblyscript",
            as_files,
            embedded(toolchain::SDK_FILES),
        ),
        ("sdk/rust", rust_files, embedded(rust_toolchain::SDK_FILES)),
    ] {
        if on_disk != embedded {
            return Err(format!("{dir} has {on_disk:?}, the binary embeds {embedded:?}").into());
        }
    }
    Ok(())
}

fn main() {
    let args = Arguments::from_args();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("fixtures/codegen"))
        .expect("fixtures/codegen")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "oth"))
        .map(|p| p.strip_prefix(root()).unwrap().to_path_buf())
        .collect();
    files.sort();
    let mut trials = Vec::new();
    for f in files {
        let name = f.display().to_string();
        let g = f.clone();
        trials.push(Trial::test(format!("snapshot: {name}"), move || {
            snapshot(g)
        }));
        trials.push(Trial::test(
            format!("compiles with asc: {name}"),
            move || compiles(f),
        ));
    }
    trials.push(Trial::test(
        "the seed's Greeter.ts compiles against its bindings",
        seed_greeter_compiles,
    ));
    trials.push(Trial::test("each SDK is embedded whole", sdk_is_embedded));
    libtest_mimic::run(&args, trials).exit();
}
