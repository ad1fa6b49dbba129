//! What tests of the Rust SDK's codecs and of JSON share: a native program
//! built against the `othismo` crate (generated bindings and a `main`), and
//! Python's `json` reading documents strictly, as an independent reader.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// Builds, in `dir` (made afresh), a program of `files` (`src/` paths and
/// texts, `main.rs` among them) against the SDK at `sdk`, with `cargo`
/// offline; the path of its binary.
pub fn build(dir: &Path, sdk: &Path, files: &[(&str, &str)]) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir.join("src")).expect("a folder for the program");
    for (name, text) in files {
        std::fs::write(dir.join("src").join(name), text).expect("a source file");
    }
    std::fs::write(
        dir.join("Cargo.toml"),
        format!(
            "[package]\nname = \"host\"\nversion = \"0.1.0\"\nedition = \"2021\"\n\n[dependencies]\nothismo = {{ path = {:?} }}\n\n[workspace]\n",
            sdk.display().to_string()
        ),
    )
    .expect("the manifest");
    let built = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
        .args(["build", "--offline", "--quiet"])
        .current_dir(dir)
        .output()
        .expect("cargo runs");
    assert!(
        built.status.success(),
        "the host program does not build: {}",
        String::from_utf8_lossy(&built.stderr)
    );
    dir.join("target/debug/host")
}

/// Python's `json`, refusing what RFC 8259 does not allow (a key given
/// twice, `NaN`, `Infinity`), reads each of `docs` (one per line: JSON
/// written without a raw newline) into `v` and runs `check` (Python
/// statements over `v`) on it. What Python said, or `None` where it cannot
/// run (outside CI; under CI a missing Python fails).
pub fn python_json(docs: &[&[u8]], check: &str) -> Option<Output> {
    if !crate::runnable(crate::ensure_debian_tool("python3", "python3")) {
        return None;
    }
    let indented: String = check.lines().map(|l| format!("    {l}\n")).collect();
    let script = format!(
        r#"
import json, sys
def pairs(ps):
    keys = [k for k, _ in ps]
    if len(keys) != len(set(keys)):
        raise ValueError("duplicate key")
    return dict(ps)
def no_constant(c):
    raise ValueError("not RFC 8259: " + c)
for line in sys.stdin.buffer.read().split(b"\n")[:-1]:
    v = json.loads(line.decode("utf-8"), object_pairs_hook=pairs, parse_constant=no_constant)
{indented}    pass
"#
    );
    let input: Vec<u8> = docs
        .iter()
        .flat_map(|d| d.iter().copied().chain([b'\n']))
        .collect();
    Some(crate::run_with_input(
        Command::new("python3").args(["-c", &script]),
        &input,
    ))
}
