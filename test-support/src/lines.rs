//! The lines a running child process prints, read as they come, for tests
//! that wait for a program to say something before acting (a watcher
//! rebuilding, a server starting).

use std::io::{BufRead, BufReader, Read};
use std::process::Child;
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// A line of the child's stdout (`Out`) or stderr (`Err`).
enum Line {
    Out(String),
    Err(String),
}

pub struct ChildLines {
    lines: Receiver<Line>,
    /// Every line read so far, `out: ` or `err: ` before it.
    pub seen: Vec<String>,
}

impl ChildLines {
    /// Reads the child's stdout and stderr, those of them that are piped.
    pub fn of(child: &mut Child) -> ChildLines {
        let (tx, rx) = channel();
        fn pump(from: impl Read + Send + 'static, tx: std::sync::mpsc::Sender<Line>, out: bool) {
            std::thread::spawn(move || {
                for l in BufReader::new(from).lines().map_while(Result::ok) {
                    let _ = tx.send(if out { Line::Out(l) } else { Line::Err(l) });
                }
            });
        }
        if let Some(out) = child.stdout.take() {
            pump(out, tx.clone(), true);
        }
        if let Some(err) = child.stderr.take() {
            pump(err, tx, false);
        }
        ChildLines {
            lines: rx,
            seen: Vec::new(),
        }
    }

    /// Waits for a line containing `text` on stdout (`out`) or stderr, and
    /// returns it; two minutes without it fail the test with everything
    /// seen so far.
    pub fn wait_for(&mut self, out: bool, text: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(120);
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(Line::Out(l)) => {
                    self.seen.push(format!("out: {l}"));
                    if out && l.contains(text) {
                        return l;
                    }
                }
                Ok(Line::Err(l)) => {
                    self.seen.push(format!("err: {l}"));
                    if !out && l.contains(text) {
                        return l;
                    }
                }
                Err(_) => break,
            }
        }
        panic!(
            "no {} line with {text:?}; the program printed:\n{}",
            if out { "stdout" } else { "stderr" },
            self.seen.join("\n")
        );
    }

    /// Whether every process holding the child's streams closed them
    /// within `limit` (the lines until then are kept in `seen`).
    pub fn closed_within(&mut self, limit: Duration) -> bool {
        let deadline = Instant::now() + limit;
        loop {
            match self.lines.recv_timeout(Duration::from_millis(250)) {
                Err(RecvTimeoutError::Disconnected) => return true,
                Ok(Line::Out(l)) => self.seen.push(format!("out: {l}")),
                Ok(Line::Err(l)) => self.seen.push(format!("err: {l}")),
                Err(RecvTimeoutError::Timeout) => {}
            }
            if Instant::now() > deadline {
                return false;
            }
        }
    }

    /// Every line of stdout (`out`) or stderr printed so far, each ending
    /// in a line break (those not yet read are read now, without waiting).
    pub fn text(&mut self, out: bool) -> String {
        while let Ok(l) = self.lines.try_recv() {
            self.seen.push(match l {
                Line::Out(l) => format!("out: {l}"),
                Line::Err(l) => format!("err: {l}"),
            });
        }
        let prefix = if out { "out: " } else { "err: " };
        self.seen
            .iter()
            .filter_map(|l| l.strip_prefix(prefix))
            .map(|l| format!("{l}\n"))
            .collect()
    }
}
