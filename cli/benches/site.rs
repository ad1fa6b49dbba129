//! The site example under load, beside nginx serving the same directory in
//! the same run.
//!
//! `cargo bench -p othc-cli --bench site` builds examples/site (release
//! modules), runs it with `othc run` on a free port, starts Debian's nginx
//! on another with `root examples/site/public`, and loads each with `wrk`
//! (bounded: a few seconds per file and server, 8 connections, one
//! thread) for three small files. It prints requests/s and p99 latency for
//! both and the ratios. nginx and wrk are installed with apt-get if
//! missing. Numbers, not assertions: the book's dev/performance.md records
//! them.

use std::net::TcpListener;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

#[path = "../tests/web/mod.rs"]
mod web;

use web::root;

/// Kills the process when dropped.
struct Guard(Child);

impl Drop for Guard {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

fn start_nginx(work: &Path) -> (Guard, String) {
    let port = free_port();
    let public = root().join("examples/site/public").canonicalize().unwrap();
    let conf = work.join("nginx.conf");
    std::fs::write(
        &conf,
        format!(
            "daemon off;\nworker_processes 1;\npid {pid};\nerror_log {log} warn;\n\
             events {{ worker_connections 1024; }}\n\
             http {{\n  include /etc/nginx/mime.types;\n  access_log off;\n\
             client_body_temp_path {tmp};\n  proxy_temp_path {tmp};\n  fastcgi_temp_path {tmp};\n\
             uwsgi_temp_path {tmp};\n  scgi_temp_path {tmp};\n\
             server {{ listen 127.0.0.1:{port}; root {root}; }}\n}}\n",
            pid = work.join("nginx.pid").display(),
            log = work.join("nginx.log").display(),
            tmp = work.display(),
            root = public.display(),
        ),
    )
    .unwrap();
    let child = Command::new("nginx")
        .arg("-c")
        .arg(&conf)
        .arg("-e")
        .arg(work.join("nginx.log"))
        .stdout(Stdio::null())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("nginx runs");
    let base = format!("http://127.0.0.1:{port}");
    for _ in 0..100 {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (Guard(child), base)
}

/// requests/s and p99 latency in ms, as wrk reports them.
fn load(url: &str) -> (f64, f64) {
    let o = Command::new("wrk")
        .args(["-t1", "-c8", "-d4s", "--latency", url])
        .output()
        .expect("wrk runs");
    let out = String::from_utf8_lossy(&o.stdout);
    let rps = out
        .lines()
        .find_map(|l| l.strip_prefix("Requests/sec:"))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("wrk said:\n{out}"));
    let p99 = out
        .lines()
        .find_map(|l| l.trim().strip_prefix("99%"))
        .map(|v| millis(v.trim()))
        .unwrap_or_else(|| panic!("wrk said:\n{out}"));
    if out.contains("Non-2xx") {
        panic!("{url} answered errors under load:\n{out}");
    }
    (rps, p99)
}

/// wrk's `1.23ms`, `456.00us`, `1.02s` in ms.
fn millis(v: &str) -> f64 {
    let (n, unit) = v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len()));
    let n: f64 = n.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        _ => f64::NAN,
    }
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
    let (_nginx, nginx) = start_nginx(&work);
    println!("examples/site beside nginx, same files, wrk -t1 -c8 -d4s on loopback");
    println!(
        "{:<14} {:>12} {:>12} {:>8} {:>10} {:>10} {:>8}",
        "file", "site req/s", "nginx req/s", "ratio", "site p99", "nginx p99", "ratio"
    );
    for file in ["/", "/style.css", "/logo.png"] {
        let (s_rps, s_p99) = load(&format!("{site}{file}"));
        let (n_rps, n_p99) = load(&format!("{nginx}{file}"));
        println!(
            "{file:<14} {s_rps:>12.0} {n_rps:>12.0} {:>7.1}x {s_p99:>8.2}ms {n_p99:>8.2}ms {:>7.1}x",
            n_rps / s_rps,
            s_p99 / n_p99
        );
    }
}
