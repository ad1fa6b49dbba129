//! The site example under load, beside nginx serving the same directory in
//! the same run.
//!
//! `cargo bench -p othc-cli --bench site` builds examples/site (release
//! modules), runs it with `othc run` on a free port (its default workers:
//! one per core, and the listener's thread), starts Debian's nginx
//! on another with `root examples/site/public` and one worker process per
//! core, and loads each with `wrk` (bounded: a few seconds per file and
//! server, one thread) for three small files at 8 and at 64 connections.
//! It prints requests/s, p99 latency and the CPU time each server's
//! processes spent per request, for both, and the ratios. Then the same for big files: a 1 MiB and
//! a 100 MiB file (made in a scratch directory, served by a second site and
//! a second nginx), in MiB/s.
//!
//! `-- --soak SECONDS` then keeps 64 connections on the site for that long
//! (the figure is 600), in slices of 10 s, and prints each slice's
//! requests/s, error answers and the process's resident memory, and at the
//! end the memory's change after the first minute (warm-up).
//!
//! nginx and wrk are installed with apt-get if missing. Numbers, not
//! assertions: the book's dev/performance.md records them.

use std::path::Path;
use std::process::Command;

#[path = "../tests/web/mod.rs"]
mod web;

use web::nginx::{self, cores};
use web::root;

/// requests/s and p99 latency in ms, as wrk reports them (4 s).
fn load(url: &str, connections: u32) -> (f64, f64) {
    test_support::wrk::load(url, connections, 4)
}

/// [`load`], and the CPU time process `pid` (and its children) spent per
/// request meanwhile, in µs.
fn load_cpu(url: &str, connections: u32, pid: u32) -> (f64, f64, f64) {
    let before = web::cpu_ticks(pid);
    let (rps, p99) = load(url, connections);
    // (A worker that exits takes its ticks along: never below zero.)
    let ticks = web::cpu_ticks(pid).saturating_sub(before);
    // Ticks are 10 ms; the run is 4 s.
    (rps, p99, ticks as f64 * 10_000.0 / (rps * 4.0))
}

fn main() {
    if std::env::args().any(|a| a == "--list") {
        return;
    }
    for (bin, package) in [("nginx", "nginx-light"), ("wrk", "wrk")] {
        if let Err(e) = test_support::ensure_debian_tool(bin, package) {
            eprintln!("cannot bench the site: {e}");
            std::process::exit(1);
        }
    }
    let work = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "bench_site");
    let bundle = web::build_as("examples/site/Site.oth", "bench_site_build", "--release");
    let running = web::start(&bundle, &[]);
    let site = running.base.clone();
    let ng = nginx::start(&work, &root().join("examples/site/public"));
    let nginx_base = ng.base.clone();
    println!(
        "examples/site ({w} worker(s), its default, and the listener's thread) beside nginx ({n} worker processes), same files, wrk -t1 -d4s on loopback",
        w = cores(),
        n = cores()
    );
    println!(
        "(CPU per request: the server's processes, every thread, over the run; steadier than requests/s when other work shares the cores)"
    );
    println!(
        "{:<14} {:>5} {:>12} {:>12} {:>8} {:>10} {:>10} {:>8} {:>10} {:>10} {:>8}",
        "file",
        "conns",
        "site req/s",
        "nginx req/s",
        "site/ng",
        "site p99",
        "nginx p99",
        "site/ng",
        "site CPU",
        "nginx CPU",
        "site/ng"
    );
    let (site_pid, nginx_pid) = (running.child.id(), ng.pid());
    for connections in [8, 64] {
        for file in ["/", "/style.css", "/logo.png"] {
            let (s_rps, s_p99, s_cpu) = load_cpu(&format!("{site}{file}"), connections, site_pid);
            let (n_rps, n_p99, n_cpu) =
                load_cpu(&format!("{nginx_base}{file}"), connections, nginx_pid);
            println!(
                "{file:<14} {connections:>5} {s_rps:>12.0} {n_rps:>12.0} {:>7.2}x {s_p99:>8.2}ms {n_p99:>8.2}ms {:>7.1}x {s_cpu:>7.1}µs {n_cpu:>7.1}µs {:>7.2}x",
                s_rps / n_rps,
                s_p99 / n_p99,
                s_cpu / n_cpu
            );
        }
    }
    big_files(&work);
    let soak = std::env::args()
        .skip_while(|a| a != "--soak")
        .nth(1)
        .map(|v| v.parse::<u64>().expect("--soak SECONDS"));
    if let Some(seconds) = soak {
        soak_site(&site, running.child.id(), seconds);
    }
}

/// A 1 MiB and a 100 MiB file, through a site and nginx serving them from
/// one scratch directory: MiB/s at 8 connections, and the ratio.
fn big_files(work: &Path) {
    let dir = work.join("big");
    std::fs::create_dir_all(&dir).unwrap();
    let sizes = [("/one.bin", 1u64 << 20), ("/hundred.bin", 100 << 20)];
    for (name, size) in sizes {
        std::fs::write(dir.join(&name[1..]), web::pattern(size)).unwrap();
    }
    let bundle = web::build_site_serving(&dir, "bench_site_big", "--release");
    let running = web::start(&bundle, &[]);
    let ng = nginx::start(&work.join("nginx-big"), &dir);
    let nginx_base = &ng.base;
    println!("\nbig files, wrk -t1 -c8 -d4s");
    println!(
        "{:<14} {:>12} {:>12} {:>8} {:>10} {:>10} {:>8}",
        "file", "site MiB/s", "nginx MiB/s", "site/ng", "site p99", "nginx p99", "site/ng"
    );
    for (file, size) in sizes {
        let (s_rps, s_p99) = load(&format!("{}{file}", running.base), 8);
        let (n_rps, n_p99) = load(&format!("{nginx_base}{file}"), 8);
        let mib = |rps: f64| rps * size as f64 / (1 << 20) as f64;
        println!(
            "{file:<14} {:>12.0} {:>12.0} {:>7.2}x {s_p99:>8.1}ms {n_p99:>8.1}ms {:>7.1}x",
            mib(s_rps),
            mib(n_rps),
            s_rps / n_rps,
            s_p99 / n_p99
        );
    }
}

/// 64 connections on the site for `seconds`, a line per 10 s slice.
fn soak_site(site: &str, pid: u32, seconds: u64) {
    println!("\nsoak: wrk -t1 -c64 on {site}/style.css for {seconds} s, in 10 s slices");
    println!(
        "{:>6} {:>12} {:>8} {:>10}",
        "at s", "req/s", "errors", "RSS KiB"
    );
    let mut after_warmup = None;
    let mut last = 0;
    for slice in 0..seconds.div_ceil(10) {
        let o = Command::new("wrk")
            .args(["-t1", "-c64", "-d10s", &format!("{site}/style.css")])
            .output()
            .expect("wrk runs");
        let out = String::from_utf8_lossy(&o.stdout);
        let rps: f64 = out
            .lines()
            .find_map(|l| l.strip_prefix("Requests/sec:"))
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(0.0);
        let errors: u64 = out
            .lines()
            .filter_map(|l| l.trim().strip_prefix("Non-2xx or 3xx responses:"))
            .filter_map(|v| v.trim().parse::<u64>().ok())
            .sum();
        last = test_support::resident_kib_of(pid);
        println!("{:>6} {rps:>12.0} {errors:>8} {last:>10}", (slice + 1) * 10);
        if slice == 5 {
            after_warmup = Some(last);
        }
    }
    if let Some(w) = after_warmup {
        println!(
            "RSS after the first minute {w} KiB, at the end {last} KiB: {:+.1}%",
            (last as f64 - w as f64) * 100.0 / w as f64
        );
    }
}
