//! What the runtime's tests share: building images into bundles, either
//! with othc's build (AssemblyScript objects) or from WAT (precise modules
//! for the rules), and running them with captured streams.

#![allow(dead_code)]

use std::path::{Path, PathBuf};

use othc::loader::Loader;
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

/// Copies the files of `from` to `to`, and its folders but `build`.
fn copy_sources(from: &Path, to: &Path) {
    for e in std::fs::read_dir(from).unwrap().flatten() {
        let path = e.path();
        if path.is_file() {
            std::fs::copy(&path, to.join(e.file_name())).unwrap();
        } else if path.is_dir() && e.file_name() != "build" {
            let inner = to.join(e.file_name());
            std::fs::create_dir_all(&inner).unwrap();
            copy_sources(&path, &inner);
        }
    }
}

/// Copies `from` (a folder of the repository) to a scratch folder, builds
/// `image` there with `sets`, and returns the bundle's bytes.
pub fn bundle(name: &str, from: &str, image: &str, sets: &[&str]) -> Vec<u8> {
    let work = scratch(name);
    copy_sources(&root().join(from), &work);
    let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
    std::fs::read(build(&work, &work.join(image), &sets)).unwrap()
}

/// Builds image file `file` with `sets` into `work/build` (its module cache
/// in `work/cache`): the bundle's path.
fn build(work: &Path, file: &Path, sets: &[String]) -> PathBuf {
    let mut c = compile(file, sets).unwrap();
    let mut opts = Options::new(work.join("build"), Profile::Release);
    opts.cache = work.join("cache");
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(&mut c, &opts, &mut diags);
    assert!(
        !diags.has_errors(),
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &diags, false)
    );
    build_images(&c, &built, &opts).unwrap().remove(0)
}

/// The WAT every rule part is wrapped in (`fixtures/run/rules/prelude.wat`).
pub fn prelude() -> String {
    std::fs::read_to_string(root().join("fixtures/run/rules/prelude.wat")).unwrap()
}

/// [`prelude`], with the host's `env.abort` imported as `$abort`.
pub fn prelude_with_abort() -> String {
    prelude().replacen(
        "(memory (export \"memory\") 1)",
        "(import \"env\" \"abort\" (func $abort (param i32 i32 i32 i32)))\n(memory (export \"memory\") 1)",
        1,
    )
}

/// The bundle of the first image of `file`, whose objects are implemented
/// by the `;; object NAME` parts of `wat` (each wrapped in `prelude`).
pub fn wat_bundle(
    file: &Path,
    wat: &str,
    prelude: &str,
    sets: &[String],
) -> Result<Vec<u8>, String> {
    othismo_harness::wat_bundle(&Disk, file, wat, prelude, sets)
}

/// What a run did.
pub struct Ran {
    pub status: i32,
    pub out: String,
    pub err: String,
    pub trace: String,
}

/// The default limits, but an instance that stops stays stopped (these
/// tests look at one stop and what it does to the rest; supervision has
/// its own, `fixtures/run/rules/restart.oth`), and one worker, so that a
/// run's order (its trace) is the same every time.
pub fn limits() -> Limits {
    Limits {
        restarts: 0,
        workers: Some(1),
        ..Limits::default()
    }
}

pub fn run_with(bundle: &[u8], input: &[&str], limits: Limits) -> Ran {
    run_with_code(bundle, input, limits, None)
}

/// [`run_with`], taking the modules' precompiled code from `code`.
pub fn run_with_code(bundle: &[u8], input: &[&str], limits: Limits, code: Option<&Path>) -> Ran {
    let (mut out, mut err, mut trace) = (Vec::new(), Vec::new(), Vec::new());
    let input: Vec<String> = input.iter().map(|s| s.to_string()).collect();
    let io = Io {
        input: Box::new(input.into_iter().map(othismo_runtime::InputLine::from)),
        out: &mut out,
        err: &mut err,
        trace: Some(&mut trace),
    };
    let status = Runtime::load_with_code(bundle, limits, io, code)
        .expect("loads")
        .run();
    Ran {
        status,
        out: String::from_utf8(out).unwrap(),
        err: String::from_utf8(err).unwrap(),
        trace: String::from_utf8(trace).unwrap(),
    }
}

pub fn run(bundle: &[u8], input: &[&str]) -> (i32, String, String) {
    let r = run_with(bundle, input, limits());
    (r.status, r.out, r.err)
}

/// Why `bundle` does not load; `None` when it does.
pub fn load_error(bundle: &[u8]) -> Option<LoadError> {
    load_error_with(bundle, limits())
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

/// examples/site built into scratch folder `name`, listening on any free
/// port (bodies of at most 4 KiB) and serving the files of `public`
/// read-only; the bundle's path.
pub fn site_bundle(name: &str, public: &Path) -> PathBuf {
    bundle_in_place(
        name,
        "examples/site/Site.oth",
        &[
            r#"listen=HttpConfig { listen: "127.0.0.1:0", maxBody: 4096 }"#.to_string(),
            format!(
                r#"files=FilesConfig {{ dir: "{}", readonly: true }}"#,
                public.display()
            ),
        ],
    )
}

/// Builds `image` (a path in the repository) where it is, with `sets`,
/// into a scratch folder `name`; the bundle's path.
pub fn bundle_in_place(name: &str, image: &str, sets: &[String]) -> PathBuf {
    build(&scratch(name), &root().join(image), sets)
}
