//! Objects written in Rust, as users build them (a Rust toolchain for
//! wasm32 installed by the set-up if missing: rustup's target, or Debian's
//! rustc, cargo, libstd-rust-dev-wasm32 and lld-14):
//! - examples/hello-rust (the Shouter a Cargo package, the Greeter in
//!   AssemblyScript, in one image) prints the four lines of examples/hello,
//!   with and without `--set`;
//! - a second build takes the Rust module from the cache;
//! - a Rust object that does not compile is E0705 at its place in the
//!   package's `src/lib.rs`;
//! - `othc test` tests a Rust object as any other.

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
    fn copy(from: &Path, to: &Path) {
        std::fs::create_dir_all(to).unwrap();
        for e in std::fs::read_dir(from).unwrap().flatten() {
            let (p, n) = (e.path(), e.file_name());
            if n == "build" || n == "target" || n == "Cargo.lock" {
                continue;
            }
            if p.is_dir() {
                copy(&p, &to.join(&n));
            } else {
                std::fs::copy(&p, to.join(&n)).unwrap();
            }
        }
    }
    let to = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), name);
    copy(&root().join(dir), &to);
    to
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
