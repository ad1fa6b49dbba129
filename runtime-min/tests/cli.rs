//! `othismo-run` as users run it: piped standard input, exact standard
//! output, exit statuses.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

fn run(args: &[&str], stdin: &str) -> (Option<i32>, String, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("othismo-run starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn the_hello_example_end_to_end() {
    let work = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_hello");
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).unwrap();
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/hello");
    for e in std::fs::read_dir(examples).unwrap().flatten() {
        if e.path().is_file() {
            std::fs::copy(e.path(), work.join(e.file_name())).unwrap();
        }
    }
    let hello = work.join("Hello.oth").to_string_lossy().into_owned();
    let (status, out, err) = run(&[&hello], "Ada\nGrace\n");
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
    let set = r#"greeting=Greeting { prefix: "Yo ", excited: true }"#;
    let (status, out, err) = run(&[&hello, "--set", set], "Ada\nGrace\n");
    assert_eq!(status, Some(0), "{err}");
    assert_eq!(out, "Yo Ada!\nYO ADA!\nYo Grace!\nYO GRACE!\n");
    // The bundle the build left runs the same.
    let bundle = work
        .join("build/Hello.othimg")
        .to_string_lossy()
        .into_owned();
    let (status, out, _) = run(&[&bundle], "Ada\nGrace\n");
    assert_eq!(status, Some(0));
    assert_eq!(out, "Yo Ada!\nYO ADA!\nYo Grace!\nYO GRACE!\n");
}

#[test]
fn bad_input_exits_2() {
    let (status, _, err) = run(&["no/such.othimg"], "");
    assert_eq!(status, Some(2));
    assert!(err.contains("cannot read"), "{err}");
    let (status, _, _) = run(&[], "");
    assert_eq!(status, Some(2));
}
