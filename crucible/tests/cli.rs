//! The `crucible` command: a daemon started as a process, the client run
//! against it through each transport, as the book shows.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

struct Daemon(std::process::Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn serve_then_exec_through_each_transport() {
    let root = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("crucible_cli");
    let _ = std::fs::remove_dir_all(&root);
    let mut child = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "serve",
            "--listen",
            "127.0.0.1:0",
            "--key",
            "k",
            "--sandbox",
            "dev",
            "--root",
        ])
        .arg(&root)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let _d = Daemon(child);
    let addr = line
        .strip_prefix("listening on ")
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("{line}"))
        .to_string();
    let url = format!("http://{addr}");
    for transport in ["hijack", "websocket", "post"] {
        let mut c = Command::new(env!("CARGO_BIN_EXE_crucible"))
            .args([
                "exec",
                "--url",
                &url,
                "--key",
                "k",
                "--sandbox",
                "dev",
                "--transport",
                transport,
            ])
            .args(["--", "sh", "-c", "echo hi; cat; exit 3"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        c.stdin.take().unwrap().write_all(b"fed\n").unwrap();
        let out = c.wait_with_output().unwrap();
        let want = if transport == "post" {
            "hi\n"
        } else {
            "hi\nfed\n"
        };
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            want,
            "{transport}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(3), "{transport}");
    }
    let out = Command::new(env!("CARGO_BIN_EXE_crucible"))
        .args([
            "exec",
            "--url",
            &url,
            "--key",
            "wrong",
            "--sandbox",
            "dev",
            "--",
            "true",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("401"));
}
