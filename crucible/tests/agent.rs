//! The guest agent's sessions, run on the host: the agent's code over a
//! socket pair, with a scratch directory for its root, driven through the
//! host's end of the port ([`AgentLink`]) exactly as the microVM backend
//! drives it. What only a VM can show (boot, isolation, a dying VM) is in
//! the microVM suite; here is everything the agent itself decides.

use crucible::failure::FailureKind;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use crucible::sandbox::{Input, Output, Sandbox};
use crucible::vm::agent::{self, Host};
use crucible::vm::link::AgentLink;
use crucible::vm::wire::{Clock, Kind, Message};
use crucible::wire::{ExecRequest, ExecResult};

struct TestHost;

impl Host for TestHost {
    fn clock(&self, _: &Clock) -> std::io::Result<()> {
        Ok(())
    }
    fn power_off(&self) {}
    fn path(&self) -> String {
        std::env::var("PATH").unwrap_or_default()
    }
}

fn scratch(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("crucible_agent")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An agent on a thread of its own over a socket pair, and the host's link.
async fn agent(name: &str) -> (AgentLink, PathBuf, std::os::unix::net::UnixStream) {
    let root = scratch(name);
    let (host_end, guest_end) = std::os::unix::net::UnixStream::pair().unwrap();
    let (r, w) = (
        guest_end.try_clone().unwrap(),
        guest_end.try_clone().unwrap(),
    );
    let at = root.clone();
    std::thread::spawn(move || agent::serve(r, w, &at, Arc::new(TestHost)));
    let keep = host_end.try_clone().unwrap();
    host_end.set_nonblocking(true).unwrap();
    let s = tokio::net::UnixStream::from_std(host_end).unwrap();
    let (r, w) = s.into_split();
    let link = AgentLink::connect(r, w, Duration::from_secs(5))
        .await
        .unwrap();
    (link, root, keep)
}

async fn collect(mut p: crucible::sandbox::Process) -> (Vec<u8>, Vec<u8>, ExecResult) {
    let (mut out, mut err) = (Vec::new(), Vec::new());
    loop {
        match tokio::time::timeout(Duration::from_secs(20), p.output.recv())
            .await
            .expect("the session ended in time")
        {
            Some(Output::Stdout(b)) => out.extend(b),
            Some(Output::Stderr(b)) => err.extend(b),
            Some(Output::Exit(r)) => return (out, err, r),
            None => panic!("the session ended without an exit"),
        }
    }
}

fn sh(script: &str) -> ExecRequest {
    ExecRequest::new(["sh", "-c", script])
}

fn alive(pid: &str) -> bool {
    Path::new("/proc").join(pid.trim()).exists()
}

async fn gone(pid: &str) -> bool {
    for _ in 0..200 {
        if !alive(pid) {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    false
}

#[tokio::test]
async fn sessions_run_at_once_with_stdin_env_cwd_and_exit_codes() {
    let (link, root, _keep) = agent("sessions").await;
    std::fs::create_dir_all(root.join("work")).unwrap();
    let mut req = sh("printf '%s ' \"$GREETING\"; basename \"$PWD\"; cat; echo oops >&2; exit 3");
    req.env.insert("GREETING".into(), "hello".into());
    req.cwd = Some("/work".into());
    let a = link.exec(&req, true).unwrap();
    // A second session while the first waits for its stdin.
    let b = link.exec(&sh("echo second"), false).unwrap();
    let (out, _, r) = collect(b).await;
    assert_eq!((out, r), (b"second\n".to_vec(), ExecResult::code(0)));
    let input = a.input.clone().unwrap();
    input
        .send(Input::Stdin(b"from stdin\n".to_vec()))
        .await
        .unwrap();
    input.send(Input::Close).await.unwrap();
    let (out, err, r) = collect(a).await;
    assert_eq!(String::from_utf8_lossy(&out), "hello work\nfrom stdin\n");
    assert_eq!(err, b"oops\n");
    assert_eq!(r, ExecResult::code(3));
    // A program that is not there, a cwd that leaves the root.
    let (_, _, r) = collect(link.exec(&ExecRequest::new(["/no/such"]), false).unwrap()).await;
    assert_eq!(r.exit_code, -1);
    assert!(r.error.unwrap().contains("cannot start"));
    let mut out_of_root = sh("true");
    out_of_root.cwd = Some("/../..".into());
    let (_, _, r) = collect(link.exec(&out_of_root, false).unwrap()).await;
    assert_eq!(r.exit_code, -1);
}

#[tokio::test]
async fn a_closed_session_or_a_timeout_kills_the_whole_group() {
    let (link, root, _keep) = agent("group").await;
    let p = link
        .exec(&sh("sleep 30 & echo $! > child; wait"), true)
        .unwrap();
    let pid = wait_for(&root.join("child")).await;
    assert!(alive(&pid));
    drop(p);
    assert!(gone(&pid).await, "the shell's child outlived its session");
    let mut slow = sh("sleep 30 & echo $! > timed; wait");
    slow.timeout_s = Some(1);
    let (_, _, r) = collect(link.exec(&slow, false).unwrap()).await;
    assert_eq!(r.exit_code, -1);
    assert!(r.error.unwrap().contains("timeout"));
    let pid = wait_for(&root.join("timed")).await;
    assert!(gone(&pid).await, "the shell's child outlived the timeout");
}

async fn wait_for(p: &Path) -> String {
    for _ in 0..400 {
        if let Ok(s) = std::fs::read_to_string(p)
            && s.ends_with('\n')
        {
            return s;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("{} never appeared", p.display());
}

#[tokio::test]
async fn files_go_both_ways_under_the_guest_rules() {
    let (link, root, _keep) = agent("files").await;
    let mut b = tar::Builder::new(Vec::new());
    let mut h = tar::Header::new_gnu();
    h.set_size(5);
    h.set_mode(0o644);
    b.append_data(&mut h, "a/b.txt", &b"hello"[..]).unwrap();
    let tar = b.into_inner().unwrap();
    let l = link.clone();
    let r = tokio::task::spawn_blocking(move || l.put_files("/dest", &tar))
        .await
        .unwrap()
        .unwrap();
    assert_eq!((r.files, r.bytes), (1, 5));
    assert_eq!(std::fs::read(root.join("dest/a/b.txt")).unwrap(), b"hello");
    let l = link.clone();
    let got = tokio::task::spawn_blocking(move || {
        (
            l.get_file("/dest/a/b.txt"),
            l.get_file("/dest/missing"),
            l.put_files("/dest", b"not a tar"),
        )
    })
    .await
    .unwrap();
    assert_eq!(got.0.unwrap(), b"hello");
    assert_eq!(got.1.unwrap_err().kind, FailureKind::NotFound);
    assert_eq!(got.2.unwrap_err().kind, FailureKind::Invalid);
}

#[tokio::test]
async fn a_port_that_dies_ends_every_session_in_band() {
    let (link, _root, keep) = agent("dies").await;
    let p = link.exec(&sh("sleep 30"), false).unwrap();
    // What a VM dying looks like from the host: the port closes.
    keep.shutdown(std::net::Shutdown::Both).unwrap();
    let (_, _, r) = collect(p).await;
    assert_eq!(r.exit_code, -1);
    assert!(r.error.as_deref().unwrap().contains("port"), "{r:?}");
    assert!(link.dead().is_some());
    assert!(link.exec(&sh("true"), false).is_err());
    let l = link.clone();
    let e = tokio::task::spawn_blocking(move || l.get_file("/x"))
        .await
        .unwrap();
    assert_eq!(e.unwrap_err().kind, FailureKind::Unreachable);
}

#[tokio::test]
async fn pings_and_clocks_are_answered() {
    let (link, _root, _keep) = agent("ping").await;
    let pong = link
        .ask(
            Message::new(0, Kind::Ping, Vec::new()),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(pong.is_empty());
    let clock = Clock {
        unix_nanos: 1,
        seed: vec![1, 2, 3],
    };
    let pong = link
        .ask(
            Message::json(0, Kind::Clock, &clock),
            Duration::from_secs(5),
        )
        .await
        .unwrap();
    assert!(pong.is_empty(), "{}", String::from_utf8_lossy(&pong));
}

/// An "agent" that says it is ready, then reads and answers nothing: the
/// host's link to it, and its end of the port (dropping it closes it).
async fn silent_agent(name: &str) -> (AgentLink, std::os::unix::net::UnixStream) {
    use std::io::Write;
    let (host_end, mut guest_end) = std::os::unix::net::UnixStream::pair().unwrap();
    guest_end
        .write_all(&Message::json(0, Kind::Ready, &serde_json::json!({ "agent": name })).encode())
        .unwrap();
    host_end.set_nonblocking(true).unwrap();
    let (r, w) = tokio::net::UnixStream::from_std(host_end)
        .unwrap()
        .into_split();
    let link = AgentLink::connect(r, w, Duration::from_secs(5))
        .await
        .unwrap();
    (link, guest_end)
}

#[tokio::test]
async fn an_agent_that_stops_answering_is_found_hung() {
    let (link, guest_end) = silent_agent("hung").await;
    link.watch(Duration::from_millis(50), Duration::from_millis(200));
    let (_, _, r) = collect(link.exec(&sh("true"), false).unwrap()).await;
    assert_eq!(r.exit_code, -1);
    assert!(r.error.as_deref().unwrap().contains("hung"), "{r:?}");
    assert!(link.dead().unwrap().contains("hung"));
    drop(guest_end);
}

/// A link that dies while sessions open: each exec either is refused at
/// once or ends with a lost exit, never waits for ever. Sessions were
/// opened after the dying link's sweep when the check for a dead link
/// and the opening were two steps; now they are one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_opened_while_the_link_dies_all_end() {
    for round in 0..200 {
        let (link, guest_end) = silent_agent("dying").await;
        // The agent's end closes while execs are being opened.
        let killer = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_micros(round * 5));
            drop(guest_end);
        });
        let mut opened = Vec::new();
        for _ in 0..20 {
            if let Ok(p) = link.exec(&sh("true"), false) {
                opened.push(p);
            }
            tokio::task::yield_now().await;
        }
        killer.join().unwrap();
        for p in opened {
            let ended = tokio::time::timeout(Duration::from_secs(5), collect(p)).await;
            let (_, _, r) =
                ended.unwrap_or_else(|_| panic!("round {round}: a session waits for ever"));
            assert_eq!(r.exit_code, -1, "round {round}: {r:?}");
        }
    }
}
