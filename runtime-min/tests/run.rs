//! Images run for real: built with othc's library, run by the runtime with
//! piped input, the output compared exactly.

use std::path::{Path, PathBuf};

use othc::build::{Options, build_images, build_objects};
use othc::loader::Loader;
use othc::toolchain::Profile;
use othismo_runtime::Runtime;

struct Disk;

impl Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Copies `from` (a folder of the repository) to a scratch folder, builds
/// `image` there with `sets`, and returns the bundle's bytes.
fn bundle(name: &str, from: &str, image: &str, sets: &[&str]) -> Vec<u8> {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    for e in std::fs::read_dir(root().join(from)).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), work.join(e.file_name())).unwrap();
        }
    }
    let inputs = othc::ValueInputs {
        files: Vec::new(),
        sets: sets.iter().map(|s| s.to_string()).collect(),
    };
    let c = othc::compile(&Disk, &[work.join(image)], &inputs).unwrap();
    assert!(
        !c.front.diags.has_errors(),
        "{}",
        othc::diagnostics::render::human(&c.front.sources, &c.front.diags, false)
    );
    let mut opts = Options::new(work.join("build"), Profile::Release);
    opts.cache = work.join("cache");
    let mut diags = othc::Diagnostics::new();
    let built = build_objects(&c, &opts, &mut diags);
    assert!(
        !diags.has_errors(),
        "{:?}",
        diags
            .iter()
            .map(|d| (&d.message, &d.help))
            .collect::<Vec<_>>()
    );
    let paths = build_images(&c, &built, &opts).unwrap();
    std::fs::read(&paths[0]).unwrap()
}

fn run(bundle: &[u8], input: &[&str]) -> (i32, String, String) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let input = input.iter().map(|s| s.to_string()).collect();
    let status = Runtime::load(bundle, input, &mut out, &mut err)
        .expect("loads")
        .run();
    (
        status,
        String::from_utf8(out).unwrap(),
        String::from_utf8(err).unwrap(),
    )
}

#[test]
fn hello_greets_and_shouts_exactly_as_the_seed_says() {
    let b = bundle("hello", "examples/hello", "Hello.oth", &[]);
    let (status, out, err) = run(&b, &["Ada", "Grace"]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
    let b = bundle(
        "hello_set",
        "examples/hello",
        "Hello.oth",
        &[r#"greeting=Greeting { prefix: "Yo ", excited: true }"#],
    );
    let (status, out, _) = run(&b, &["Ada", "Grace"]);
    assert_eq!(status, 0);
    assert_eq!(out, "Yo Ada!\nYO ADA!\nYo Grace!\nYO GRACE!\n");
    // No input: the watch stream ends at once, and so does the run.
    let (status, out, _) = run(&b, &[]);
    assert_eq!((status, out.as_str()), (0, ""));
}

#[test]
fn every_refused_request_gets_its_errno() {
    let b = bundle("probe", "fixtures/run/probe", "Probe.oth", &[]);
    let (status, out, err) = run(&b, &[]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "read /target/missing: 1 not_found\n\
         remove /target/ok: 2 not_supported\n\
         write /target/ro: 3 read_only\n\
         write /target/op: 5 forbidden\n\
         stat /target/ok: 5 forbidden\n\
         read /target/../x: 4 invalid\n\
         read /elsewhere: 5 forbidden\n\
         read /target/ok: ok hello\n"
    );
}

#[test]
fn a_trapping_instance_is_stopped_and_named() {
    let b = bundle("trap", "fixtures/run/trap", "Trap.oth", &[]);
    let (status, _, err) = run(&b, &[]);
    assert_eq!(status, 1);
    assert!(err.contains("error: instance `trap` stopped"), "{err}");
    assert!(
        err.contains("error: startup request write /trap failed: 10 unavailable"),
        "{err}"
    );
}

#[test]
fn a_broken_bundle_is_refused() {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert!(Runtime::load(b"not a bundle", Vec::new(), &mut out, &mut err).is_err());
}
