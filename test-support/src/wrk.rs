//! `wrk` as the benches drive it: one thread, a number of connections, a
//! few seconds, and what it says of throughput and the tail.

use std::process::Command;

/// Requests/s and p99 latency in ms of `url` under `connections` for
/// `seconds`. Panics (a bench, not a test) when wrk fails or any answer
/// was not a 2xx: a figure with errors in it means nothing.
pub fn load(url: &str, connections: u32, seconds: u32) -> (f64, f64) {
    let o = Command::new("wrk")
        .args([
            "-t1",
            &format!("-c{connections}"),
            &format!("-d{seconds}s"),
            "--latency",
            url,
        ])
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
pub fn millis(v: &str) -> f64 {
    let (n, unit) = v.split_at(v.find(|c: char| c.is_ascii_alphabetic()).unwrap_or(v.len()));
    let n: f64 = n.parse().unwrap_or(f64::NAN);
    match unit {
        "us" => n / 1000.0,
        "ms" => n,
        "s" => n * 1000.0,
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn latencies_read_in_ms() {
        assert_eq!(super::millis("1.50ms"), 1.5);
        assert_eq!(super::millis("250.00us"), 0.25);
        assert_eq!(super::millis("2s"), 2000.0);
        assert!(super::millis("3m").is_nan());
    }
}
