//! Files of any size through examples/site: a 100 MiB file and a 1 GiB one
//! (sparse on disk), each fetched by 8 curl processes at once, every byte
//! compared with the file, while the runtime's resident memory is sampled.
//! Files streams a big file in parts read at its reader's pace, and Http
//! holds a write back while its connection has too much waiting: so what
//! the process holds is bounded per connection, whatever the file's size.
//! A client that reads slowly, or leaves mid-file, holds nothing after.

mod web;

use std::io::Read;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

const MIB: u64 = 1 << 20;

/// The file's bytes, from `at`, as many as fit in `buf` (zeros past the
/// end of what was written: a sparse file reads as zeros).
fn expected(file: &std::fs::File, at: u64, buf: &mut [u8]) {
    use std::os::unix::fs::FileExt;
    let mut done = 0;
    while done < buf.len() {
        let n = file.read_at(&mut buf[done..], at + done as u64).unwrap();
        if n == 0 {
            buf[done..].fill(0);
            return;
        }
        done += n;
    }
}

/// Fetches `url` with curl and compares every byte with `path`'s; the
/// status line and headers are checked by the caller's other requests.
fn fetch_and_compare(url: &str, path: &std::path::Path) -> u64 {
    let mut curl = Command::new("curl")
        .args(["-s", "-f", "--max-time", "300", url])
        .stdout(Stdio::piped())
        .spawn()
        .expect("curl runs");
    let file = std::fs::File::open(path).unwrap();
    let mut out = curl.stdout.take().unwrap();
    let mut got = vec![0u8; 1 << 20];
    let mut want = vec![0u8; 1 << 20];
    let mut at = 0u64;
    loop {
        let n = out.read(&mut got).unwrap();
        if n == 0 {
            break;
        }
        expected(&file, at, &mut want[..n]);
        assert!(
            got[..n] == want[..n],
            "{url}: a byte differs in the MiB from {at}"
        );
        at += n as u64;
    }
    assert!(curl.wait().unwrap().success(), "curl {url} failed");
    at
}

/// Samples the process's RSS until told to stop; returns the highest.
fn sample_rss(
    pid: u32,
    stop: Arc<AtomicBool>,
    peak: Arc<AtomicU64>,
) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        while !stop.load(Ordering::Relaxed) {
            peak.fetch_max(test_support::resident_kib_of(pid), Ordering::Relaxed);
            std::thread::sleep(Duration::from_millis(20));
        }
    })
}

#[test]
fn big_files_are_streamed_whole_in_bounded_memory() {
    if !web::have("curl", "curl") {
        return;
    }
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "big_files");
    let public = dir.join("public");
    std::fs::create_dir_all(&public).unwrap();
    // 100 MiB of varied bytes (a position-dependent pattern: any part out
    // of place shows), and 1 GiB that takes no room on disk.
    let hundred = public.join("hundred.bin");
    std::fs::write(&hundred, web::pattern(100 * MIB)).unwrap();
    std::fs::write(public.join("index.html"), "<p>big files</p>\n").unwrap();
    let sparse = public.join("sparse.bin");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(1024 * MIB)
        .unwrap();
    let bundle = web::build_site_serving(&public, "big_files_build", "--debug");
    let mut run = web::start(&bundle, &[]);
    let base = run.base.clone();
    let pid = run.child.id();

    // The head: the whole length, sent as Content-Length, no chunks.
    let head = web::curl(&["-I"], &format!("{base}/sparse.bin"));
    assert_eq!(head.status, 200);
    assert_eq!(head.header("content-length"), Some("1073741824"));
    assert!(head.header("etag").is_some());
    let baseline = test_support::resident_kib_of(pid);

    let stop = Arc::new(AtomicBool::new(false));
    let peak = Arc::new(AtomicU64::new(0));
    let sampler = sample_rss(pid, stop.clone(), peak.clone());
    for (name, path, size) in [
        ("hundred.bin", &hundred, 100 * MIB),
        ("sparse.bin", &sparse, 1024 * MIB),
    ] {
        let fetches: Vec<_> = (0..8)
            .map(|_| {
                let (url, path) = (format!("{base}/{name}"), path.clone());
                std::thread::spawn(move || fetch_and_compare(&url, &path))
            })
            .collect();
        for f in fetches {
            assert_eq!(f.join().unwrap(), size, "{name}: the whole file");
        }
    }
    // A slow client, and clients that leave mid-file.
    let slow = Command::new("curl")
        .args([
            "-s",
            "--limit-rate",
            "4M",
            "--max-time",
            "2",
            "-o",
            "/dev/null",
        ])
        .arg(format!("{base}/sparse.bin"))
        .status()
        .unwrap();
    assert_eq!(slow.code(), Some(28), "the slow client timed out mid-file");
    for _ in 0..8 {
        let mut c = Command::new("curl")
            .args(["-s", "-o", "/dev/null"])
            .arg(format!("{base}/sparse.bin"))
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(50));
        let _ = c.kill();
        let _ = c.wait();
    }
    stop.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let peak = peak.load(Ordering::Relaxed);
    eprintln!(
        "RSS: {baseline} KiB before, {peak} KiB at most while serving 8 x 100 MiB and 8 x 1 GiB"
    );
    // 16 connections at a time, each holding a part or two: far from one
    // file, let alone sixteen.
    assert!(
        peak < baseline + 96 * 1024,
        "the process grew from {baseline} to {peak} KiB"
    );
    // Nothing is left of them: no stream being read, no exchange.
    std::thread::sleep(Duration::from_millis(300));
    let pid_s = pid.to_string();
    Command::new("kill")
        .args(["-USR1", &pid_s])
        .status()
        .unwrap();
    let mut lines = Vec::new();
    loop {
        let l = run.wait_err("report: ");
        let host = l.starts_with("report: host");
        lines.push(l);
        if host {
            break;
        }
    }
    for l in &lines {
        for table in ["paced=", "exchanges=", "serving=", "queue="] {
            if let Some(at) = l.find(table) {
                let n: String = l[at + table.len()..]
                    .chars()
                    .take_while(char::is_ascii_digit)
                    .collect();
                assert_eq!(n, "0", "{l}");
            }
        }
    }
    assert_eq!(
        web::curl(&[], &format!("{base}/")).text(),
        "<p>big files</p>\n"
    );
    assert!(run.alive(), "{}", run.stderr());
}
