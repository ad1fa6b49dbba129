//! `othc build` starts at most one AssemblyScript compiler process per core
//! and never more than it has modules to compile, whether they compile or
//! not, and `othc build --watch` one for all its rebuilds. Counted for real: `node` on the PATH is a script
//! that notes each start and runs the real node.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use test_support::lines::ChildLines;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A `node` that writes a line into `log` each time it starts, then runs
/// the real one.
fn counting_node(dir: &Path, log: &Path) -> PathBuf {
    let real = Command::new("sh")
        .args(["-c", "command -v node"])
        .output()
        .expect("sh runs");
    let real = String::from_utf8(real.stdout).unwrap().trim().to_string();
    assert!(!real.is_empty(), "node is not installed");
    let bin = dir.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let script = format!(
        "#!/bin/sh\necho started >> '{}'\nexec '{}' \"$@\"\n",
        log.display(),
        real
    );
    let node = bin.join("node");
    std::fs::write(&node, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&node, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// `othc ARGS` with an empty module cache `cache` (the installed compiler
/// linked into it) and the counting node in `bin` first on PATH.
fn othc(args: &[&str], cache: &Path, bin: &Path) -> Command {
    othc_driver::toolchain::empty_cache_with_compiler(cache).unwrap();
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_othc"));
    cmd.args(args)
        .env("OTHC_CACHE", cache)
        .env("PATH", path)
        .current_dir(root());
    cmd
}

/// `othc build --debug FILE`, as [`othc`] runs it.
fn build(file: &Path, cache: &Path, bin: &Path) -> Output {
    othc(&["build", "--debug", &file.to_string_lossy()], cache, bin)
        .output()
        .expect("othc runs")
}

fn starts(log: &Path) -> usize {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .count()
}

/// A copy of examples/hello in scratch folder `name`, with a counting node:
/// (the copy, node's log, the folder to put first on PATH).
fn hello_counting_node(name: &str) -> (PathBuf, PathBuf, PathBuf) {
    let dir = test_support::copy_of_dir(
        &root().join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        name,
    );
    let log = dir.join("node-starts.log");
    let bin = counting_node(&dir, &log);
    (dir, log, bin)
}

/// The compiler processes a build of hello's two modules starts: they
/// compile side by side, one process per core.
fn processes_for_hello() -> usize {
    std::thread::available_parallelism()
        .map_or(1, usize::from)
        .min(2)
}

#[test]
fn a_build_starts_a_compiler_per_core_for_its_modules() {
    let (dir, log, bin) = hello_counting_node("build_compiler");
    let cache = dir.join("cache");
    let hello = dir.join("Hello.oth");

    let o = build(&hello, &cache, &bin);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("2 compiled, 0 unchanged"), "{err}");
    let per_build = processes_for_hello();
    assert_eq!(starts(&log), per_build, "a compiler process per core");

    // One module fails to compile, the other compiles: the same processes,
    // and the failure is reported at its place.
    let greeter = dir.join("Greeter.ts");
    let text = std::fs::read_to_string(&greeter).unwrap();
    std::fs::write(&greeter, text.replace("req.end()", "req.finish()")).unwrap();
    let o = build(&hello, &cache, &bin);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("[E0701]"), "{err}");
    assert!(err.contains("Greeter.ts:"), "the error at its place: {err}");
    assert!(
        err.contains("wrote") && err.contains("Shouter.wasm"),
        "{err}"
    );
    assert_eq!(starts(&log), 2 * per_build, "as many for the second build");
}

#[test]
fn a_watcher_keeps_one_compiler_for_all_its_rebuilds() {
    let (dir, log, bin) = hello_counting_node("build_compiler_watch");
    let hello = dir.join("Hello.oth").to_string_lossy().into_owned();
    let mut child = othc(
        &["build", "--watch", "--debug", &hello],
        &dir.join("cache"),
        &bin,
    )
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    .spawn()
    .expect("othc starts");
    let mut w = ChildLines::of(&mut child);
    w.wait_for(false, "2 compiled, 0 unchanged");
    // Two edits, each compiled (not found in the module cache).
    for round in 0..2 {
        let greeter = dir.join("Greeter.ts");
        let text = std::fs::read_to_string(&greeter).unwrap();
        std::fs::write(&greeter, format!("{text}\n// edit {round}\n")).unwrap();
        w.wait_for(false, "Greeter.ts changed; running again");
        w.wait_for(false, "compiling Greeter");
        w.wait_for(false, "1 compiled, 1 unchanged");
    }
    assert_eq!(
        starts(&log),
        1,
        "one compiler process for every build:\n{}",
        w.seen.join("\n")
    );
    // Stopped, the watcher takes the compiler with it: every holder of its
    // stderr gone.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        w.closed_within(Duration::from_secs(30)),
        "the compiler outlived its watcher:\n{}",
        w.seen.join("\n")
    );
}
