//! A load generator that stops after a number of requests (wrk stops after
//! a time): kept-alive HTTP/1.1 connections, one thread each, taking turns
//! through a list of paths, every response read whole (by Content-Length
//! or chunks) and counted by its class of status.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// What came back.
#[derive(Debug, Default, Clone)]
pub struct Tally {
    /// 2xx and 3xx.
    pub ok: u64,
    /// 4xx, as asked for (a missing page).
    pub refused: u64,
    /// 5xx: the site's own failure.
    pub failed: u64,
    /// Connections that broke or timed out mid-response.
    pub broken: u64,
    pub elapsed: Duration,
}

impl Tally {
    pub fn total(&self) -> u64 {
        self.ok + self.refused + self.failed + self.broken
    }

    pub fn per_second(&self) -> f64 {
        self.total() as f64 / self.elapsed.as_secs_f64()
    }
}

/// Sends `count` GETs to `addr` (`host:port`) over `connections`
/// connections, path `n` of the `n`-th request being `paths[n % len]`.
pub fn drive(addr: &str, paths: &[&str], connections: usize, count: u64) -> Tally {
    let next = Arc::new(AtomicU64::new(0));
    let start = Instant::now();
    let threads: Vec<_> = (0..connections)
        .map(|_| {
            let next = next.clone();
            let addr = addr.to_string();
            let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
            std::thread::spawn(move || one_connection(&addr, &paths, &next, count))
        })
        .collect();
    let mut all = Tally::default();
    for t in threads {
        let t = t.join().expect("a load thread");
        all.ok += t.ok;
        all.refused += t.refused;
        all.failed += t.failed;
        all.broken += t.broken;
    }
    all.elapsed = start.elapsed();
    all
}

fn connect(addr: &str) -> Option<(TcpStream, BufReader<TcpStream>)> {
    let s = TcpStream::connect(addr).ok()?;
    s.set_read_timeout(Some(Duration::from_secs(30))).ok()?;
    s.set_nodelay(true).ok()?;
    let r = BufReader::new(s.try_clone().ok()?);
    Some((s, r))
}

fn one_connection(addr: &str, paths: &[String], next: &AtomicU64, count: u64) -> Tally {
    let mut t = Tally::default();
    let mut conn = connect(addr);
    loop {
        let n = next.fetch_add(1, Ordering::Relaxed);
        if n >= count {
            return t;
        }
        let Some((w, r)) = conn.as_mut() else {
            t.broken += 1;
            conn = connect(addr);
            continue;
        };
        let path = &paths[n as usize % paths.len()];
        let sent = w.write_all(format!("GET {path} HTTP/1.1\r\nHost: load\r\n\r\n").as_bytes());
        match sent.ok().and_then(|_| response(r)) {
            Some(status) if status < 400 => t.ok += 1,
            Some(status) if status < 500 => t.refused += 1,
            Some(_) => t.failed += 1,
            None => {
                t.broken += 1;
                conn = connect(addr);
            }
        }
    }
}

/// Reads one response whole; its status.
fn response(r: &mut BufReader<TcpStream>) -> Option<u16> {
    let mut line = String::new();
    r.read_line(&mut line).ok()?;
    let status: u16 = line.split_whitespace().nth(1)?.parse().ok()?;
    let (mut length, mut chunked) = (0usize, false);
    loop {
        line.clear();
        r.read_line(&mut line).ok()?;
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        let (name, value) = l.split_once(':')?;
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            length = value.parse().ok()?;
        } else if name.eq_ignore_ascii_case("transfer-encoding") {
            chunked = value.eq_ignore_ascii_case("chunked");
        }
    }
    if !chunked {
        std::io::copy(&mut r.by_ref().take(length as u64), &mut std::io::sink()).ok()?;
        return Some(status);
    }
    loop {
        line.clear();
        r.read_line(&mut line).ok()?;
        let size = usize::from_str_radix(line.trim_end(), 16).ok()?;
        let mut rest = vec![0u8; size + 2];
        r.read_exact(&mut rest).ok()?;
        if size == 0 {
            return Some(status);
        }
    }
}
