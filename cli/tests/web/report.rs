//! The runtime's report (SIGUSR1), asked for and read.

use std::collections::HashMap;
use std::process::Command;

/// What one `report:` line says: its words `name=value`.
pub type Words = HashMap<String, String>;

/// Asks the running image for its report (SIGUSR1) and reads it: the
/// lines by instance name, and the host's line under `host`.
pub fn report(run: &mut super::Running) -> HashMap<String, Words> {
    let pid = run.child.id().to_string();
    Command::new("kill").args(["-USR1", &pid]).status().unwrap();
    let mut out = HashMap::new();
    loop {
        let line = run.wait_err("report: ");
        let rest = line.trim_start_matches("report: ");
        let host = rest.starts_with("host ");
        let words: Words = rest
            .split_whitespace()
            .filter_map(|w| w.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let name = if host {
            "host".to_string()
        } else {
            words["instance"].clone()
        };
        out.insert(name, words);
        if host {
            return out;
        }
    }
}

pub fn number(r: &HashMap<String, Words>, who: &str, what: &str) -> u64 {
    r[who][what]
        .parse()
        .unwrap_or_else(|_| panic!("{who} {what}: {:?}", r[who]))
}

/// Asks for reports every `pause`, at most `tries` times, until one says
/// `who`'s `what` is `want`; the last report (which the caller checks).
pub fn report_until(
    run: &mut super::Running,
    (who, what, want): (&str, &str, u64),
    tries: usize,
    pause: std::time::Duration,
) -> HashMap<String, Words> {
    let mut r = report(run);
    for _ in 1..tries {
        if number(&r, who, what) == want {
            break;
        }
        std::thread::sleep(pause);
        r = report(run);
    }
    r
}
