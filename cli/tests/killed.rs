//! A runtime killed mid-request leaves no client hanging: `kill -9` of the
//! process serving downloads and requests in flight ends every one of
//! their connections at once (curl sees the transfer cut off, never its
//! own timeout), since nothing outlives the process to hold a socket open.

mod web;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[test]
fn killing_the_runtime_mid_request_ends_every_connection() {
    if !web::have("curl", "curl") {
        return;
    }
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "killed");
    let public = dir.join("public");
    std::fs::create_dir_all(&public).unwrap();
    std::fs::write(public.join("big.bin"), web::pattern(64 << 20)).unwrap();
    std::fs::write(public.join("small.txt"), b"small\n").unwrap();
    let bundle = web::build_site_serving(&public, "killed_build", "--debug");
    let mut run = web::start(&bundle, &["--workers", "2"]);
    assert_eq!(
        web::curl(&[], &format!("{}/small.txt", run.base)).status,
        200
    );

    // Slow readers of the big file (at 4 MiB/s, 64 MiB take 16 s): each is
    // mid-download when the kill comes.
    let clients: Vec<_> = (0..4)
        .map(|_| {
            Command::new("curl")
                .args([
                    "-s",
                    "-f",
                    "--limit-rate",
                    "512k",
                    "--max-time",
                    "120",
                    "-o",
                ])
                .arg("/dev/null")
                .arg(format!("{}/big.bin", run.base))
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("curl runs")
        })
        .collect();
    std::thread::sleep(Duration::from_millis(1500));
    let pid = run.child.id();
    assert!(
        Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap()
            .success()
    );
    let killed = Instant::now();
    let _ = run.child.wait();
    for mut c in clients {
        let code = c.wait().unwrap().code();
        // 18: the transfer ended short; 52/56: the connection ended. 28
        // would be curl's own timeout: a connection left hanging.
        assert!(
            matches!(code, Some(18) | Some(52) | Some(56)),
            "a download in flight ended with curl's code {code:?}, not a cut-off transfer"
        );
    }
    // What the kernel had buffered for a client still arrives after the
    // kill (several MiB each, at 4 MiB/s): seconds, not a hang.
    eprintln!(
        "every download in flight ended {:?} after the kill",
        killed.elapsed()
    );
    // Nothing of the runtime is left listening.
    let after = Command::new("curl")
        .args(["-s", "--max-time", "5", &format!("{}/small.txt", run.base)])
        .status()
        .unwrap();
    assert_eq!(
        after.code(),
        Some(7),
        "something still answers after the kill"
    );
}
