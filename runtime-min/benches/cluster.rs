//! `cargo bench -p othismo-runtime --bench cluster`
//!
//! What a hop between nodes costs: examples/hello driven a line at a time
//! (a line written to the console's input, then both its output lines
//! awaited), run in one process and then across two nodes joined by a
//! local `nats-server` (the console and the shouter on one, the greeter on
//! the other), in the same run. Per line, across nodes, the line goes to
//! the greeter (an answer on its watch), then the greeter's two writes (to
//! the console and the shouter, sent together) come back and are answered:
//! three one-way hops between the nodes on the line's critical path. So the
//! added time per line, over three, is what one hop adds. Prints p50 and
//! p99 of each, the ratio, and that per-hop figure.
//!
//! Then examples/site under `wrk -t1 -c8` on `/style.css`, in one process
//! and on two nodes placed by `examples/site/Site.placement` (StaticSite
//! on a node of its own: each request crosses to it and back), in the same
//! run: requests/s and p99 of each, and the ratios. (wrk is installed by
//! hand: `apt-get install wrk`.)

#[path = "../tests/common/mod.rs"]
mod common;

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const LINES: usize = 2000;

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

/// Feeds `console` a line at a time, each once the last one's two output
/// lines are out: the time per line, sorted.
fn drive(console: &mut Child, lines: usize) -> Vec<f64> {
    let mut input = console.stdin.take().unwrap();
    let mut out = BufReader::new(console.stdout.take().unwrap());
    let mut times = Vec::with_capacity(lines);
    let mut got = String::new();
    for i in 0..lines {
        let t = Instant::now();
        writeln!(input, "n{i}").unwrap();
        input.flush().unwrap();
        for _ in 0..2 {
            got.clear();
            assert!(
                out.read_line(&mut got).unwrap() > 0,
                "the console ended early"
            );
        }
        times.push(t.elapsed().as_secs_f64());
    }
    drop(input);
    let _ = console.wait();
    times.sort_by(f64::total_cmp);
    times
}

fn runner(bundle: &Path, args: &[&str]) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_othismo-run"));
    c.arg(bundle)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    c
}

/// Starts a node and waits until it says it joined.
fn joined(mut c: Command) -> Child {
    let mut child = c.spawn().expect("othismo-run starts");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while err.read_line(&mut line).unwrap_or(0) > 0 && !line.starts_with("joined") {
        line.clear();
    }
    std::thread::spawn(move || {
        let mut rest = String::new();
        while err.read_line(&mut rest).unwrap_or(0) > 0 {
            rest.clear();
        }
    });
    child
}

/// The line a starting site prints on stderr, `listening on URL`: the URL.
fn listening(child: &mut Child) -> String {
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        assert!(
            err.read_line(&mut line).unwrap() > 0,
            "the site ended early"
        );
        if let Some(url) = line.trim().strip_prefix("listening on ") {
            let url = url.to_string();
            std::thread::spawn(move || {
                let mut rest = String::new();
                while err.read_line(&mut rest).unwrap_or(0) > 0 {
                    rest.clear();
                }
            });
            return url;
        }
    }
}

/// The site in one process, then on two nodes over `url`'s NATS: wrk on
/// each, side by side.
fn site(url: &str, seconds: u32) {
    if Command::new("wrk").arg("--version").output().is_err() {
        println!(
            "
wrk is not installed (apt-get install wrk): the site is not measured"
        );
        return;
    }
    let public = common::root().join("examples/site/public");
    let bundle = common::site_bundle("bench_cluster_site", &public);
    let mut one = runner(&bundle, &[]).spawn().unwrap();
    let base = listening(&mut one);
    let local = test_support::wrk::load(&format!("{base}/style.css"), 8, seconds);
    let _ = one.kill();
    let _ = one.wait();

    let placement = common::root().join("examples/site/Site.placement");
    let placement = placement.to_str().unwrap();
    let at = |node: &str| {
        runner(
            &bundle,
            &["--cluster", url, "--placement", placement, "--node", node],
        )
    };
    let mut pages = joined(at("pages"));
    let mut front = at("front").spawn().unwrap();
    let base = listening(&mut front);
    let remote = test_support::wrk::load(&format!("{base}/style.css"), 8, seconds);
    for c in [&mut front, &mut pages] {
        let _ = c.kill();
        let _ = c.wait();
    }
    println!(
        "\nexamples/site, wrk -t1 -c8 -d{seconds}s on /style.css, one process vs two nodes (StaticSite apart):"
    );
    println!(
        "  one process:  {:>9.0} req/s   p99 {:>7.2} ms",
        local.0, local.1
    );
    println!(
        "  two nodes:    {:>9.0} req/s   p99 {:>7.2} ms",
        remote.0, remote.1
    );
    println!(
        "  ratio:        {:>9.2}× req/s   p99 {:>6.2}×",
        remote.0 / local.0,
        remote.1 / local.1
    );
}

fn main() {
    let measuring = std::env::args().any(|a| a == "--bench");
    let lines = if measuring { LINES } else { 20 };
    if Command::new("nats-server")
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!("nats-server is not installed (apt-get install nats-server): nothing measured");
        return;
    }
    let bytes = common::bundle("bench_cluster", "examples/hello", "Hello.oth", &[]);
    let bundle = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bench_cluster/Hello.othimg");
    std::fs::write(&bundle, bytes).unwrap();

    let mut one = runner(&bundle, &[]).spawn().unwrap();
    let local = drive(&mut one, lines);

    let port = TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut nats = Command::new("nats-server")
        .args(["-a", "127.0.0.1", "-p", &port.to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    while TcpStream::connect(("127.0.0.1", port)).is_err() {
        std::thread::sleep(Duration::from_millis(20));
    }
    let url = format!("nats://127.0.0.1:{port}");
    let mut console = joined(runner(
        &bundle,
        &["--cluster", &url, "--instances", "cons,loud"],
    ));
    let mut greeter = joined(runner(
        &bundle,
        &["--cluster", &url, "--instances", "greeter"],
    ));
    let remote = drive(&mut console, lines);
    let _ = greeter.kill();
    let _ = greeter.wait();

    let (l50, l99) = (percentile(&local, 0.5), percentile(&local, 0.99));
    let (r50, r99) = (percentile(&remote, 0.5), percentile(&remote, 0.99));
    println!(
        "examples/hello, a line at a time ({lines} lines), one process vs two nodes over a local nats-server:"
    );
    println!(
        "  one process:  p50 {:>8.1} µs   p99 {:>8.1} µs",
        l50 * 1e6,
        l99 * 1e6
    );
    println!(
        "  two nodes:    p50 {:>8.1} µs   p99 {:>8.1} µs",
        r50 * 1e6,
        r99 * 1e6
    );
    println!(
        "  ratio:        p50 {:>8.2}×     p99 {:>8.2}×",
        r50 / l50,
        r99 / l99
    );
    // Three one-way hops on each line's critical path.
    println!(
        "  added per one-way hop (3 a line): p50 {:.1} µs, p99 {:.1} µs",
        (r50 - l50) / 3.0 * 1e6,
        (r99 - l99) / 3.0 * 1e6
    );
    site(&url, if measuring { 5 } else { 1 });
    let _ = nats.kill();
    let _ = nats.wait();
}
