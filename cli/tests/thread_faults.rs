//! A thread of the runtime's own that fails ends the run at once, with
//! status 1 and the thread named, instead of leaving a process that looks
//! alive and no longer serves: a listener that panicked had left its port
//! unserved, and a worker that panicked had taken its instance with it,
//! the loop waiting for that call forever. The panics are injected
//! (`OTHISMO_FAULT`, read by debug builds only).

mod web;

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

#[test]
fn a_listener_that_panics_ends_the_run_saying_so() {
    let bundle = web::build("examples/site/Site.oth", "thread_faults_site");
    let run = web::start_with_env(&bundle, &[], &[("OTHISMO_FAULT", "listener")]);
    // The first connection accepted panics the listener's thread.
    let addr = run.base.trim_start_matches("http://").to_string();
    let _client = std::net::TcpStream::connect(&addr).expect("the port is open");
    let (status, err) = run.ended_within(
        Duration::from_secs(20),
        "the run went on after its listener panicked",
    );
    assert_eq!(status, 1, "{err}");
    assert!(
        err.contains("error: the runtime's HTTP listener of `")
            && err.contains("failed: injected fault `listener` (OTHISMO_FAULT)")
            && err.contains("this is a bug in othismo-run, not in the image"),
        "{err}"
    );
}

#[test]
fn a_worker_that_panics_ends_the_run_saying_so() {
    let out = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "thread_faults_hello");
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .current_dir(web::root())
        .args(["build", "examples/hello/Hello.oth", "--debug", "--out"])
        .arg(&out)
        .output()
        .expect("othc runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Every call on a worker (`--long-call 0`): the first one panics.
    let mut child = Command::new(env!("CARGO_BIN_EXE_othc"))
        .current_dir(web::root())
        .arg("run")
        .arg(out.join("Hello.othimg"))
        .args(["--workers", "2", "--long-call", "0"])
        .env("OTHISMO_FAULT", "worker")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("othc runs");
    // Input left open: the run could only end by the fault. (The first
    // calls are made on the loop's thread until their cost is known: a
    // few lines are needed before one goes to a worker.)
    let mut input = child.stdin.take().unwrap();
    for i in 0..20 {
        writeln!(input, "Ada {i}").unwrap();
    }
    let (status, err) = test_support::ended_within(
        &mut child,
        Duration::from_secs(20),
        "the run whose worker panicked",
    );
    drop(input);
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("error: the runtime's thread `worker ")
            && err.contains("failed: injected fault `worker` (OTHISMO_FAULT)"),
        "{err}"
    );
}
