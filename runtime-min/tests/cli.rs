//! `othismo-run` as users run it: piped standard input, exact standard
//! output, exit statuses.

use std::path::Path;

mod common;
use std::process::Command;

fn run(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let out = test_support::run_with_input(
        Command::new(env!("CARGO_BIN_EXE_othismo-run")).args(args),
        stdin.as_bytes(),
    );
    let (o, e) = test_support::texts(&out);
    (out.status.code(), o, e)
}

#[test]
fn a_bundle_runs_with_piped_input() {
    let b = common::bundle("cli_hello", "examples/hello", "Hello.oth", &[]);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_hello/Hello.othimg");
    std::fs::write(&path, b).unwrap();
    let path = path.to_string_lossy().into_owned();
    let (status, out, err) = run(&[&path], "Ada\nGrace\n");
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
    // --trace shows each delivery on stderr, and changes nothing else.
    let (status, out, err) = run(&[&path, "--trace"], "Ada\n");
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n");
    assert!(
        err.contains("operator:1 -> greeter: operator write /greeting application/bson"),
        "{err}"
    );
    assert!(
        err.contains("greeter:1 <- answer text/plain \"Ada\""),
        "{err}"
    );
    // A limit too small to start in is reported, and named.
    let (status, _, err) = run(&[&path, "--max-memory", "0"], "");
    assert_eq!(status, Some(2), "{err}");
    assert!(err.contains("memory limit of 0 MiB"), "{err}");
}

#[test]
fn bad_input_exits_2() {
    let (status, _, err) = run(&["no/such.othimg"], "");
    assert_eq!(status, Some(2));
    assert!(err.contains("cannot read"), "{err}");
    let (status, _, _) = run(&[], "");
    assert_eq!(status, Some(2));
    // An image's source instead of its bundle: said, with what to run.
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hello/Hello.oth");
    let (status, _, err) = run(&[&source.to_string_lossy()], "");
    assert_eq!(status, Some(2), "{err}");
    assert!(
        err.contains("not a bundle: it does not begin as one"),
        "{err}"
    );
    assert!(
        err.contains("help: ") && err.contains("is an image's source: `othc run "),
        "{err}"
    );
}

/// Console output to a full disk is not reported as success: each write is
/// answered `100 io_error` (the trace shows it), and the run ends with
/// status 1 saying output was lost.
#[cfg(target_os = "linux")]
#[test]
fn console_output_to_a_full_disk_is_lost_and_said() {
    let b = common::bundle("cli_full", "examples/hello", "Hello.oth", &[]);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_full/Hello.othimg");
    std::fs::write(&path, b).unwrap();
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let mut child = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(&path)
        .arg("--trace")
        .stdin(std::process::Stdio::piped())
        .stdout(full)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    {
        use std::io::Write;
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(b"Ada\n").unwrap();
    }
    let out = child.wait_with_output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("console output was lost"), "{err}");
    assert!(err.contains("No space left on device"), "{err}");
    assert!(err.contains("100 io_error"), "{err}");
}
