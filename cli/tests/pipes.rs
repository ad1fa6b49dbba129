//! othc writing its reports into a pipe whose reader has gone
//! (fixtures/cli/closed_stdout.cases): it ends as a Unix tool ends, by
//! SIGPIPE, instead of panicking in the middle of a line.

mod othc_process;

use std::os::unix::process::ExitStatusExt;
use std::process::{Command, Stdio};

use othc_process::root;

#[test]
fn a_report_into_a_closed_pipe_ends_by_sigpipe_without_a_panic() {
    let cases = std::fs::read_to_string(root().join("fixtures/cli/closed_stdout.cases"))
        .expect("the cases are readable");
    let mut ran = 0;
    for line in cases.lines() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        // The reading end is closed before othc starts: its first write
        // meets a pipe with no reader, whatever its timing.
        let (reader, writer) = std::io::pipe().expect("a pipe");
        drop(reader);
        let out = Command::new(env!("CARGO_BIN_EXE_othc"))
            .args(line.split_whitespace())
            .current_dir(root())
            .stdin(Stdio::null())
            .stdout(writer)
            .stderr(Stdio::piped())
            .output()
            .expect("othc runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.signal(),
            Some(libc::SIGPIPE),
            "othc {line}: ended with {:?}, said: {err}",
            out.status
        );
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe"),
            "othc {line} said: {err}"
        );
        ran += 1;
    }
    assert!(ran >= 5, "only {ran} case(s) in the fixture");
}
