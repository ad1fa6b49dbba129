//! `othc run --watch`: the hello example runs, an edit to an
//! implementation stops it and runs the rebuilt image, a broken edit is
//! reported and waited out, and the fix runs again.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use test_support::lines::ChildLines;

fn copy_of_hello() -> PathBuf {
    let hello = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hello");
    test_support::copy_of_dir(&hello, env!("CARGO_TARGET_TMPDIR"), "watch_hello")
}

fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{} holds {from:?}", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

#[test]
fn run_watch_runs_again_after_each_edit() {
    let dir = copy_of_hello();
    let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["run", "--watch", "Hello.oth"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("othc starts");
    let mut w = ChildLines::of(&mut child);
    let mut stdin = child.stdin.take().unwrap();

    w.wait_for(false, "watching 6 file(s)");
    w.wait_for(false, "running ");
    writeln!(stdin, "Ada").unwrap();
    w.wait_for(true, "HI, ADA.");

    // An edit to an implementation: the image is stopped, rebuilt, run.
    // (With a comment no earlier run wrote, so that it is compiled rather
    // than taken from the module cache.)
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_nanos();
    edit(
        &dir.join("Shouter.ts"),
        "toUpperCase()",
        &format!("toUpperCase() + \"!!\" /* edited at {nanos} */"),
    );
    w.wait_for(false, "Shouter.ts changed; running again");
    w.wait_for(false, "compiling Shouter");
    w.wait_for(false, "running ");
    writeln!(stdin, "Bob").unwrap();
    w.wait_for(true, "HI, BOB.!!");

    // A broken edit: the build's errors, then waiting for the next change.
    edit(
        &dir.join("Hello.oth"),
        "mount /shouter  /loud",
        "mount /shouter  /lod",
    );
    w.wait_for(false, "Hello.oth changed; running again");
    w.wait_for(false, "exited with status 1; waiting for a change");
    edit(
        &dir.join("Hello.oth"),
        "mount /shouter  /lod",
        "mount /shouter  /loud",
    );
    w.wait_for(false, "running ");
    writeln!(stdin, "Cy").unwrap();
    w.wait_for(true, "HI, CY.!!");

    // An `asconfig.json` made beside the implementations (watched before
    // it was there) builds both again, to collect between deliveries.
    std::fs::write(
        dir.join("asconfig.json"),
        format!(r#"{{ "options": {{ "runtime": "minimal" }}, "edited": {nanos} }}"#),
    )
    .unwrap();
    w.wait_for(false, "asconfig.json changed; running again");
    w.wait_for(false, "compiling Greeter");
    w.wait_for(false, "running ");
    writeln!(stdin, "Dee").unwrap();
    w.wait_for(true, "HI, DEE.!!");

    // The end of input ends the image; the watcher waits on until stopped.
    drop(stdin);
    w.wait_for(false, "finished; waiting for a change");
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn a_killed_watcher_takes_its_image_with_it() {
    let hello = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hello");
    let dir = test_support::copy_of_dir(&hello, env!("CARGO_TARGET_TMPDIR"), "watch_killed");
    let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["run", "--watch", "Hello.oth"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("othc starts");
    let mut w = ChildLines::of(&mut child);
    // Input stays open: the image would wait on it for ever.
    let _stdin = child.stdin.take().unwrap();
    w.wait_for(false, "running ");
    // Killed, the watcher cannot stop the image itself: the kernel must.
    // Its stderr closes only when every process holding it has ended.
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        w.closed_within(Duration::from_secs(60)),
        "the image outlived its killed watcher:\n{}",
        w.seen.join("\n")
    );
}
