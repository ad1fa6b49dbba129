//! Objects written in Rust, as users build them (a Rust toolchain for
//! wasm32 installed by the set-up if missing: rustup's target, or Debian's
//! rustc, cargo, libstd-rust-dev-wasm32 and lld-14):
//! - examples/hello-rust (the Shouter a Cargo package, the Greeter in
//!   AssemblyScript, in one image) prints the four lines of examples/hello,
//!   with and without `--set`;
//! - a second build takes the Rust module from the cache;
//! - a Rust object that does not compile is E0705 at its place in the
//!   package's `src/lib.rs`;
//! - `othc test` tests a Rust object as any other;
//! - an AssemblyScript and a Rust object exchange every message type of
//!   everything.oth, byte for byte (`fixtures/exchange`).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn ready() -> bool {
    test_support::runnable(test_support::ensure_rust_wasm32())
}

/// A copy of `dir` (sub-folders too) under the test's scratch space.
fn copy_of(dir: &str, name: &str) -> PathBuf {
    test_support::copy_of_dir(&root().join(dir), env!("CARGO_TARGET_TMPDIR"), name)
}

fn othc(args: &[&str], input: &str) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_othc"));
    cmd.args(args).current_dir(root());
    test_support::run_with_input(&mut cmd, input.as_bytes())
}

#[test]
fn hello_with_a_rust_shouter_prints_what_hello_prints() {
    if !ready() {
        return;
    }
    let dir = copy_of("examples/hello-rust", "rust_hello");
    let hello = dir.join("Hello.oth").to_string_lossy().into_owned();
    let o = othc(&["run", &hello], "Ada\nGrace\n");
    let (out, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n", "{err}");
    assert!(dir.join("build/Shouter.wasm").exists(), "{err}");
    assert!(
        dir.join("Shouter.oth.rs").exists(),
        "the bindings beside the header"
    );
    let o = othc(
        &[
            "run",
            &hello,
            "--set",
            r#"greeting=Greeting { prefix: "Hello, ", excited: true }"#,
        ],
        "Ada\nGrace\n",
    );
    let (out, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert_eq!(
        out,
        "Hello, Ada!\nHELLO, ADA!\nHello, Grace!\nHELLO, GRACE!\n"
    );
    // Nothing changed: the module comes from the cache.
    assert!(
        err.contains("Shouter.wasm (unchanged, from the cache)"),
        "{err}"
    );
}

#[test]
fn a_rust_object_that_does_not_compile_is_shown_at_its_line() {
    if !ready() {
        return;
    }
    let dir = copy_of("fixtures/build/rust/E0705_rust_error", "rust_e0705");
    let app = dir.join("App.oth").to_string_lossy().into_owned();
    let out = dir.join("out").to_string_lossy().into_owned();
    let o = othc(
        &["build", &app, "--out", &out, "--message-format", "json"],
        "",
    );
    let (stdout, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    let d: serde_json::Value = serde_json::from_str(stdout.lines().next().unwrap()).unwrap();
    assert_eq!(d["code"], "E0705", "{d}");
    assert!(
        d["file"].as_str().unwrap().ends_with("App/src/lib.rs"),
        "{d}"
    );
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(11), Some(26)),
        "{d}"
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("cannot find function `shout`"),
        "{d}"
    );
}

#[test]
fn othc_test_tests_a_rust_object() {
    if !ready() {
        return;
    }
    let dir = copy_of("examples/hello-rust", "rust_contracts");
    let shouter = dir.join("Shouter.oth").to_string_lossy().into_owned();
    let o = othc(&["test", &shouter, "--seed", "3", "--cases", "300"], "");
    let (_, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        err.contains("Shouter: 300 case(s)") && err.contains("every contract kept"),
        "{err}"
    );
}

struct Disk;

impl othc::loader::Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

/// `fixtures/exchange`: every message type of everything.oth, generated,
/// sent to an AssemblyScript Relay that decodes it and sends it on to a
/// Rust Echo, which decodes it and answers it back; the Relay answers with
/// what came back, decoded and encoded again. Each comes back byte for
/// byte: the two codecs read and write every type alike.
#[test]
fn as_and_rust_objects_exchange_every_message_type() {
    if !ready() {
        return;
    }
    let work = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "rust_exchange");
    for dir in ["exchange", "codegen"] {
        let copy = copy_of(&format!("fixtures/{dir}"), &format!("rust_exchange_{dir}"));
        std::fs::rename(&copy, work.join(dir)).unwrap();
    }
    let file = work.join("exchange/Exchange.oth");
    let out = work.join("out");
    let o = othc(
        &[
            "build",
            file.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", test_support::texts(&o).1);
    let bundle = std::fs::read(out.join("Exchange.othimg")).unwrap();
    let c = othc::compile(
        &Disk,
        std::slice::from_ref(&file),
        &othc::ValueInputs::default(),
    )
    .unwrap();
    let model = &c.checked.model;
    let (mut sink_out, mut sink_err) = (std::io::sink(), std::io::sink());
    let io = othismo_runtime::Io {
        input: Box::new(std::iter::empty()),
        out: &mut sink_out,
        err: &mut sink_err,
        trace: None,
    };
    let mut probe = othismo_runtime::probe::image::ImageProbe::load(
        &bundle,
        othismo_runtime::Limits::default(),
        io,
        None,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    probe.start().unwrap();
    let mut sent = 0;
    for (k, t) in model.types.iter().enumerate() {
        if !matches!(t.kind, othc::model::TypeKind::Message { .. }) {
            continue;
        }
        let id = othc::model::TypeId(k as u32);
        for seed in 0..150 {
            let doc = othc_contracts::values::plain_message(
                model,
                id,
                &mut othc_contracts::choices::Choices::new(seed),
            );
            let mut bytes = Vec::new();
            doc.to_writer(&mut bytes).unwrap();
            let payload = othismo_runtime::Payload {
                content_type: "application/bson".into(),
                data: bytes.clone(),
            };
            let path = format!("/relay/{}", t.name.to_lowercase());
            let outcome = probe.send(othc::model::Verb::Write, 0, &path, Some(payload));
            assert!(
                outcome.stopped.is_empty(),
                "{}: {:?}",
                t.name,
                outcome.stopped
            );
            match outcome.came.as_slice() {
                [
                    othismo_runtime::probe::image::Came::Answer {
                        payload: Some(p), ..
                    },
                ] => {
                    assert!(
                        p.data == bytes,
                        "{} (seed {seed}) came back changed: sent {doc}, got {:?}",
                        t.name,
                        bson::Document::from_reader(p.data.as_slice())
                    );
                }
                other => panic!("{} (seed {seed}): {other:?}", t.name),
            }
            sent += 1;
        }
    }
    assert_eq!(sent, 7 * 150);
}
