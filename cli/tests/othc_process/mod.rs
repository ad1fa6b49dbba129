//! What the tests of the `othc` binary share: running it from the
//! workspace root and reading what it said.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

pub fn othc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("othc runs")
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// `o` exited with `status` and its stderr says `text`.
pub fn says(o: &Output, status: i32, text: &str) {
    assert_eq!(o.status.code(), Some(status), "{}", stderr(o));
    assert!(stderr(o).contains(text), "{}", stderr(o));
}
