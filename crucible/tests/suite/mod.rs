//! What every backend must do, through the protocol only (no peeking at
//! the host's disk), so one suite runs against the local backend
//! (`tests/backends.rs`) and against a microVM (`tests/microvm.rs`). Paths
//! a command writes are relative: its working directory is the sandbox's
//! root on every backend, and the files API reads them back.

use std::time::Duration;

use crucible::client::{Client, ClientError, Collected, Transport, collect_within};
use crucible::wire::{ExecRequest, ExecResult};

const LIMIT: Duration = Duration::from_secs(60);

pub fn sh(script: &str) -> ExecRequest {
    ExecRequest::new(["sh", "-c", script])
}

async fn run(c: &Client, id: &str, t: Transport, req: &ExecRequest, stdin: &[u8]) -> Collected {
    let mut s = c.exec(id, req, t).await.unwrap();
    if t != Transport::Post {
        s.stdin(stdin).await.unwrap();
        s.close_stdin().await.unwrap();
    }
    collect_within(s, LIMIT).await.unwrap()
}

/// `script`'s stdout, one-shot.
pub async fn output(c: &Client, id: &str, script: &str) -> String {
    let got = run(c, id, Transport::Post, &sh(script), b"").await;
    String::from_utf8_lossy(&got.stdout).into_owned()
}

/// A file the sandbox's commands write, once it is whole (a line).
async fn file(c: &Client, id: &str, path: &str) -> String {
    for _ in 0..400 {
        if let Ok(b) = c.pull(id, path).await {
            let s = String::from_utf8_lossy(&b).into_owned();
            if s.ends_with('\n') {
                return s.trim().to_string();
            }
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{path} never appeared");
}

/// Whether process `pid` in the sandbox goes within a few seconds.
async fn goes(c: &Client, id: &str, pid: &str) -> bool {
    for _ in 0..100 {
        let out = output(
            c,
            id,
            &format!("kill -0 {pid} 2>/dev/null && echo alive || echo gone"),
        )
        .await;
        if out == "gone\n" {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

pub use test_support::{TarEntry as Entry, raw_tar as tar_of};

/// Every case, in sandbox `id`.
pub async fn conformance(c: &Client, id: &str) {
    exec_through_every_transport(c, id).await;
    env_cwd_timeout_and_a_missing_program(c, id).await;
    the_whole_group_dies_on_close_and_on_timeout(c, id).await;
    files_both_ways_escapes_refused_and_all_or_nothing(c, id).await;
}

async fn exec_through_every_transport(c: &Client, id: &str) {
    let req = sh("echo hi; cat; echo oops >&2; exit 3");
    for t in [Transport::Hijack, Transport::Websocket] {
        let got = run(c, id, t, &req, b"typed\nlines\n").await;
        assert_eq!(got.stdout, b"hi\ntyped\nlines\n", "{t:?}");
        assert_eq!(got.stderr, b"oops\n", "{t:?}");
        assert_eq!(got.result, Some(ExecResult::code(3)), "{t:?}");
    }
    // One-shot: no stdin, so `cat` reads nothing.
    let got = run(c, id, Transport::Post, &req, b"").await;
    assert_eq!(
        (got.stdout, got.result),
        (b"hi\n".to_vec(), Some(ExecResult::code(3)))
    );
    // 300000 bytes: several frames of at most 65536, whole.
    let big = sh("head -c 300000 /dev/zero | tr '\\0' x");
    for t in [Transport::Post, Transport::Hijack, Transport::Websocket] {
        let got = run(c, id, t, &big, b"").await;
        assert_eq!(got.stdout.len(), 300000, "{t:?}");
        assert!(got.stdout.iter().all(|b| *b == b'x'));
        assert_eq!(got.result, Some(ExecResult::code(0)));
    }
}

async fn env_cwd_timeout_and_a_missing_program(c: &Client, id: &str) {
    output(c, id, "mkdir -p work").await;
    let mut req = sh("printf '%s ' \"$GREETING\"; basename \"$PWD\"");
    req.env.insert("GREETING".into(), "hello".into());
    req.cwd = Some("/work".into());
    let got = run(c, id, Transport::Post, &req, b"").await;
    assert_eq!(String::from_utf8_lossy(&got.stdout), "hello work\n");
    let mut slow = sh("sleep 5");
    slow.timeout_s = Some(1);
    let r = run(c, id, Transport::Post, &slow, b"")
        .await
        .result
        .unwrap();
    assert_eq!(r.exit_code, -1);
    assert!(r.error.unwrap().contains("timeout"));
    let missing = ExecRequest::new(["/no/such/program"]);
    let r = run(c, id, Transport::Post, &missing, b"")
        .await
        .result
        .unwrap();
    assert_eq!(r.exit_code, -1);
    assert!(r.error.unwrap().contains("cannot start"));
}

async fn the_whole_group_dies_on_close_and_on_timeout(c: &Client, id: &str) {
    for (i, t) in [Transport::Hijack, Transport::Websocket]
        .into_iter()
        .enumerate()
    {
        let req = sh(&format!("sleep 30 & echo $! > child{i}; wait"));
        let s = c.exec(id, &req, t).await.unwrap();
        let pid = file(c, id, &format!("/child{i}")).await;
        s.abandon();
        assert!(
            goes(c, id, &pid).await,
            "{t:?}: the shell's child outlived the connection"
        );
    }
    let mut slow = sh("sleep 30 & echo $! > timed; wait");
    slow.timeout_s = Some(1);
    let r = run(c, id, Transport::Post, &slow, b"")
        .await
        .result
        .unwrap();
    assert_eq!(r.exit_code, -1);
    let pid = file(c, id, "/timed").await;
    assert!(
        goes(c, id, &pid).await,
        "the shell's child outlived the timeout"
    );
}

async fn files_both_ways_escapes_refused_and_all_or_nothing(c: &Client, id: &str) {
    use tar::EntryType::{Link, Regular, Symlink};
    let tar = tar_of(&[
        ("hello.txt", Regular, "", b"hello, sandbox"),
        ("sub/x.bin", Regular, "", &[0, 1, 2]),
    ]);
    let r = c.push(id, "/pushed", tar).await.unwrap();
    assert_eq!((r.files, r.bytes), (2, 17));
    assert_eq!(
        c.pull(id, "/pushed/hello.txt").await.unwrap(),
        b"hello, sandbox"
    );
    assert_eq!(c.pull(id, "/pushed/sub/x.bin").await.unwrap(), [0, 1, 2]);
    // What commands see is what was pushed.
    assert_eq!(
        output(c, id, "cat pushed/hello.txt").await,
        "hello, sandbox"
    );
    for (path, status) in [
        ("/nope.txt", 404),
        ("/../x", 400),
        ("relative", 400),
        ("/pushed", 400),
    ] {
        match c.pull(id, path).await {
            Err(ClientError::Http { status: s, error }) => assert_eq!(s, status, "{path}: {error}"),
            other => panic!("{path}: {other:?}"),
        }
    }
    let escapes: [&[Entry<'_>]; 3] = [
        &[("../../outside.txt", Regular, "", b"x")],
        &[("l", Symlink, "../../x", b"")],
        &[("s", Symlink, ".", b""), ("t", Symlink, "s/..", b"")],
    ];
    for entries in escapes {
        match c.push(id, "/pushed", tar_of(entries)).await {
            Err(ClientError::Http { status: 400, .. }) => {}
            other => panic!("{entries:?}: {other:?}"),
        }
    }
    // A hard link naming a missing member: 400 with the reason, nothing written.
    let broken = tar_of(&[
        ("first.txt", Regular, "", b"1"),
        ("h", Link, "missing", b""),
    ]);
    match c.push(id, "/atomic", broken).await {
        Err(ClientError::Http { status: 400, error }) => {
            assert!(error.contains("missing"), "{error}")
        }
        other => panic!("{other:?}"),
    }
    match c.pull(id, "/atomic/first.txt").await {
        Err(ClientError::Http { status: 404, .. }) => {}
        other => panic!("a refused push wrote: {other:?}"),
    }
}
