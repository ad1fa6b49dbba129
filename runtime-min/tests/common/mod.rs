//! What the runtime's tests share: building images into bundles, either
//! with othc's build (AssemblyScript objects) or from WAT (precise modules
//! for the rules), and running them with captured streams.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use othc::bundle::{Built, sha256_hex};
use othc::loader::Loader;
use othc::model::{FileOrigin, ImageId, ObjectId};
use othc_driver::build::{Options, build_images, build_objects};
use othc_driver::toolchain::Profile;
use othismo_runtime::{Io, Limits, LoadError, Runtime};

pub struct Disk;

impl Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A scratch folder of this test run, empty.
pub fn scratch(name: &str) -> PathBuf {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    work
}

fn compile(file: &Path, sets: &[String]) -> Result<othc::Compilation, String> {
    let inputs = othc::ValueInputs {
        files: Vec::new(),
        sets: sets.to_vec(),
    };
    let c = othc::compile(&Disk, &[file.to_path_buf()], &inputs).map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        return Err(othc::diagnostics::render::human(
            &c.front.sources,
            &c.front.diags,
            false,
        ));
    }
    Ok(c)
}

/// Copies `from` (a folder of the repository) to a scratch folder, builds
/// `image` there with `sets`, and returns the bundle's bytes.
pub fn bundle(name: &str, from: &str, image: &str, sets: &[&str]) -> Vec<u8> {
    let work = scratch(name);
    for e in std::fs::read_dir(root().join(from)).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), work.join(e.file_name())).unwrap();
        }
    }
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    let c = compile(&work.join(image), &sets).unwrap();
    let mut opts = Options::new(work.join("build"), Profile::Release);
    opts.cache = work.join("cache");
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(&c, &opts, &mut diags);
    assert!(
        !diags.has_errors(),
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &diags, false)
    );
    let paths = build_images(&c, &built, &opts).unwrap();
    std::fs::read(&paths[0]).unwrap()
}

/// The bundle of the first image of `file`, whose objects are implemented
/// by the `;; object NAME` parts of `wat` (each wrapped in `prelude`).
pub fn wat_bundle(
    file: &Path,
    wat: &str,
    prelude: &str,
    sets: &[String],
) -> Result<Vec<u8>, String> {
    let c = compile(file, sets)?;
    let model = &c.checked.model;
    let root_file = c.front.program.roots[0].0;
    let parts = wat_parts(wat);
    let mut built = Vec::new();
    let mut modules = Vec::new();
    for (i, o) in model.objects.iter().enumerate() {
        if o.native
            || o.file.0 != root_file
            || model.files[o.file.index()].origin != FileOrigin::Source
        {
            continue;
        }
        let body = parts
            .iter()
            .find(|(n, _)| *n == o.name)
            .map(|(_, b)| b.as_str())
            .ok_or_else(|| format!("no `;; object {}` in the .wat", o.name))?;
        let text = format!("(module\n{prelude}\n{body}\n{})", default_exports(body));
        let wasm = wat::parse_str(&text).map_err(|e| format!("{}: {e}", o.name))?;
        let id = ObjectId(i as u32);
        let wasm = othc::sections::append(&wasm, &othc::sections::sections_of(model, id))?;
        built.push(Built {
            object: id,
            name: o.name.clone(),
            path: PathBuf::from(format!("{}.wasm", o.name)),
            sha256: sha256_hex(&wasm),
            cached: false,
        });
        modules.push((format!("modules/{}.wasm", o.name), wasm));
    }
    let img = model
        .images
        .iter()
        .position(|i| i.file.0 == root_file)
        .ok_or("the file declares no image")?;
    let json = othc::bundle::image_json(&c.checked, ImageId(img as u32), &built)?;
    othc::bundle::write(&json, &modules)
}

/// `;; object NAME` starts the part of NAME.
fn wat_parts(wat: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in wat.lines() {
        if let Some(name) = line.trim().strip_prefix(";; object ") {
            out.push((name.trim().to_string(), String::new()));
        } else if let Some((_, body)) = out.last_mut() {
            body.push_str(line);
            body.push('\n');
        }
    }
    out
}

/// No-op exports for those a part leaves out.
fn default_exports(body: &str) -> String {
    let defaults = [
        ("othismo_start", ""),
        (
            "othismo_serve",
            "(param i32 i32 i32 i32 i32 i32 i32 i32 i32)",
        ),
        ("othismo_answer", "(param i32 i32 i32 i32 i32 i32)"),
        ("othismo_error", "(param i32 i32 i32 i32 i32 i32)"),
        ("othismo_cancel", "(param i32)"),
    ];
    defaults
        .iter()
        .filter(|(name, _)| !body.contains(&format!("(export \"{name}\")")))
        .map(|(name, params)| format!("(func (export \"{name}\") {params})\n"))
        .collect()
}

/// What a run did.
pub struct Ran {
    pub status: i32,
    pub out: String,
    pub err: String,
    pub trace: String,
}

pub fn run_with(bundle: &[u8], input: &[&str], limits: Limits) -> Ran {
    let (mut out, mut err, mut trace) = (Vec::new(), Vec::new(), Vec::new());
    let input: Vec<String> = input.iter().map(|s| s.to_string()).collect();
    let io = Io {
        input: Box::new(input.into_iter()),
        out: &mut out,
        err: &mut err,
        trace: Some(&mut trace),
    };
    let status = Runtime::load(bundle, limits, io).expect("loads").run();
    Ran {
        status,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
        trace: String::from_utf8(trace).unwrap(),
    }
}

pub fn run(bundle: &[u8], input: &[&str]) -> (i32, String, String) {
    let r = run_with(bundle, input, Limits::default());
    (r.status, r.out, r.err)
}

/// Why `bundle` does not load; `None` when it does.
pub fn load_error(bundle: &[u8]) -> Option<LoadError> {
    load_error_with(bundle, Limits::default())
}

/// Why `bundle` does not load under `limits`; `None` when it does.
pub fn load_error_with(bundle: &[u8], limits: Limits) -> Option<LoadError> {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let io = Io {
        input: Box::new(std::iter::empty()),
        out: &mut out,
        err: &mut err,
        trace: None,
    };
    Runtime::load(bundle, limits, io).err()
}
