//! Console input as users pipe it in, hostile included
//! (fixtures/cli/console_input.cases): a line that is not UTF-8 used to end
//! input on the spot, silently, the lines after it never read and the run
//! ending with status 0; a line with no end was held whole whatever its
//! length; a failed read ended input saying nothing. Each now says what
//! happened on stderr, goes on where it can, and ends with status 1.

mod othc_process;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::OnceLock;

use othc_process::{root, stderr, stdout};

/// Hello built once for every case.
fn hello() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        let dir = test_support::copy_of_dir(
            &root().join("examples/hello"),
            env!("CARGO_TARGET_TMPDIR"),
            "console_input_hello",
        );
        let o = othc_process::othc(&["build", &dir.join("Hello.oth").to_string_lossy()]);
        assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
        dir.join("build/Hello.othimg")
    })
}

fn run_hello(args: &[&str], input: &[u8]) -> std::process::Output {
    let bundle = hello().to_string_lossy().into_owned();
    let mut all = vec!["run", &bundle];
    all.extend_from_slice(args);
    test_support::run_with_input(
        Command::new(env!("CARGO_BIN_EXE_othc"))
            .args(&all)
            .current_dir(root()),
        input,
    )
}

#[test]
fn every_case_of_console_input() {
    let cases = std::fs::read_to_string(root().join("fixtures/cli/console_input.cases")).unwrap();
    let mut ran = 0;
    for line in cases
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let f: Vec<&str> = line.split(" | ").map(str::trim).collect();
        let [name, input, output, says, status] = f[..] else {
            panic!("a case has five fields: {line}");
        };
        let o = run_hello(&[], &test_support::unescape(input));
        let (out, err) = (stdout(&o), stderr(&o));
        assert_eq!(
            out.as_bytes(),
            test_support::unescape(output),
            "{name}: stderr {err}"
        );
        if says == "-" {
            assert!(!err.contains("error"), "{name}: {err}");
        } else {
            assert!(err.contains(says), "{name}: {err}");
        }
        assert_eq!(
            o.status.code(),
            Some(status.parse().unwrap()),
            "{name}: {err}"
        );
        ran += 1;
    }
    assert!(ran >= 6, "only {ran} case(s)");
}

/// A line with no end, 400 MB long: read through and dropped as it comes,
/// never held whole (the process stays far below its size), and the line
/// after it is greeted.
#[test]
fn an_endless_line_is_dropped_as_it_comes_not_held() {
    let bundle = hello().to_string_lossy().into_owned();
    let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["run", &bundle, "--max-payload", "1000"])
        .current_dir(root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let block = vec![b'x'; 1 << 20];
    for _ in 0..400 {
        std::io::Write::write_all(&mut stdin, &block).unwrap();
    }
    // Its peak resident memory, read before it can end.
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let peak_kib: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap();
    std::io::Write::write_all(&mut stdin, b"\nAda\n").unwrap();
    drop(stdin);
    let o = child.wait_with_output().unwrap();
    let (out, err) = (stdout(&o), stderr(&o));
    assert!(
        peak_kib < 150 * 1024,
        "400 MB of one line took {peak_kib} KiB at its peak"
    );
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n", "{err}");
    assert!(
        err.contains(
            "error: console input line 1 is 419430400 bytes long, over the payload limit of 1000"
        ),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
}

/// Standard input that cannot be read (a directory): said, and status 1.
#[test]
fn input_that_cannot_be_read_says_so() {
    let bundle = hello().to_string_lossy().into_owned();
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["run", &bundle])
        .current_dir(root())
        .stdin(std::fs::File::open(root().join("examples")).unwrap())
        .output()
        .unwrap();
    let err = stderr(&o);
    assert!(
        err.contains("error: console input could not be read: Is a directory"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(1), "{err}");
}
