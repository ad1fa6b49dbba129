//! What the cluster tests share: `nats-server`s started on free ports (one,
//! or members of a NATS cluster), nodes (`othismo-run --cluster`) started
//! and read until they join, a raw NATS client for hostile messages, and
//! `GET` through curl.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::common;

/// A nats-server on a free port, stopped when dropped.
pub struct Nats {
    pub child: Child,
    pub url: String,
    pub port: u16,
}

/// A port nothing listens on now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Nats {
    pub fn start() -> Option<Nats> {
        Nats::start_with(&[])
    }

    /// One server of a NATS cluster whose route listens on `route` and
    /// that joins the routes `routes`.
    pub fn member(route: u16, routes: &[u16]) -> Option<Nats> {
        let routes: Vec<String> = routes
            .iter()
            .map(|p| format!("nats://127.0.0.1:{p}"))
            .collect();
        Nats::start_with(&[
            "--cluster_name",
            "othismo-test",
            "--cluster",
            &format!("nats://127.0.0.1:{route}"),
            "--routes",
            &routes.join(","),
        ])
    }

    pub fn start_with(more: &[&str]) -> Option<Nats> {
        let ready = test_support::ensure_debian_tool("nats-server", "nats-server");
        if !test_support::runnable(ready) {
            return None;
        }
        let port = free_port();
        let child = Command::new("nats-server")
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
            .args(more)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("nats-server starts");
        let began = Instant::now();
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(
                began.elapsed() < Duration::from_secs(10),
                "nats-server did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        Some(Nats {
            child,
            url: format!("nats://127.0.0.1:{port}"),
            port,
        })
    }
}

impl Drop for Nats {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn bundle_file(name: &str, sets: &[&str]) -> PathBuf {
    let b = common::bundle(name, "examples/hello", "Hello.oth", sets);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}/Hello.othimg"));
    std::fs::write(&path, b).unwrap();
    path
}

/// A node started: its stderr is read until it says it joined. The caller
/// waits for it (or kills it); a node that ends early is waited for here.
pub fn node(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
) -> (Child, BufReader<std::process::ChildStderr>) {
    node_with(bundle, nats, instances, &[])
}

/// A node run to its end with no input (one that is refused, say): how
/// it ended and what it printed.
pub fn node_output(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
    more: &[&str],
) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(bundle)
        .args(["--cluster", &nats.url])
        .args(placing(instances))
        .args(more)
        .stdin(Stdio::null())
        .output()
        .unwrap()
}

/// `--instances NAMES`; none when `instances` is empty (the node is
/// placed by `--placement` and `--node`, among the caller's arguments).
fn placing(instances: &str) -> Vec<&str> {
    if instances.is_empty() {
        Vec::new()
    } else {
        vec!["--instances", instances]
    }
}

/// [`node`] with more arguments.
#[allow(clippy::zombie_processes)] // the child is returned to be waited for
pub fn node_with(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
    more: &[&str],
) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(bundle)
        .args(["--cluster", &nats.url])
        .args(placing(instances))
        .args(more)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("othismo-run starts");
    let mut err = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    loop {
        line.clear();
        if err.read_line(&mut line).unwrap_or(0) == 0 {
            let status = child.wait();
            panic!("node {instances} {more:?} ended before it joined: {status:?}");
        }
        if line.starts_with("joined the cluster") {
            return (child, err);
        }
    }
}

/// A node placed by the arguments `at` (`--instances NAMES`, or
/// `--placement FILE --node NAME`), started with its standard streams discarded but stderr's lines
/// until `until` (returned), and the rest of its stderr as it comes (also
/// shown on the test's).
pub fn node_saying(
    bundle: &Path,
    nats: &Nats,
    at: &[&str],
    until: &str,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<String>>) {
    let (mut child, mut err) = node_with(bundle, nats, "", at);
    let instances = at.join(" ");
    let mut line = String::new();
    if !until.is_empty() {
        loop {
            line.clear();
            if err.read_line(&mut line).unwrap_or(0) == 0 {
                let _ = child.kill();
                let _ = child.wait();
                panic!("node {instances} ended before saying {until}");
            }
            if line.contains(until) {
                break;
            }
        }
    }
    // The rest of its stderr is drained, so it never blocks on a full pipe.
    let log = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
    let (who, kept) = (instances.to_string(), log.clone());
    std::thread::spawn(move || {
        let mut line = String::new();
        while err.read_line(&mut line).unwrap_or(0) > 0 {
            eprint!("[{who}] {line}");
            kept.lock().unwrap().push_str(&line);
            line.clear();
        }
    });
    (child, line, log)
}

/// The site example's two nodes placed apart by `placement` (written
/// beside the bundle): `back` started first, then `front`, read until it
/// listens. Returns them, and the front's address (`http://...`).
pub fn site_apart(
    bundle: &Path,
    nats: &Nats,
    placement: &str,
    (back, front): (&str, &str),
) -> (Child, Child, String) {
    let file = bundle.with_file_name(format!("{back}-{front}.placement"));
    std::fs::write(&file, placement).unwrap();
    let file = file.display().to_string();
    let (back, _, _) = node_saying(bundle, nats, &["--placement", &file, "--node", back], "");
    let (front, listening, _) = node_saying(
        bundle,
        nats,
        &["--placement", &file, "--node", front],
        "listening on ",
    );
    let base = listening
        .trim()
        .trim_start_matches("listening on ")
        .to_string();
    (back, front, base)
}

/// A raw NATS client: enough of the protocol to publish and read.
pub struct Raw {
    s: TcpStream,
    r: BufReader<TcpStream>,
}

impl Raw {
    pub fn connect(port: u16) -> Raw {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut info = String::new();
        r.read_line(&mut info).unwrap();
        let mut raw = Raw { s, r };
        raw.send(b"CONNECT {\"verbose\":false,\"headers\":true,\"no_responders\":true}\r\n");
        raw
    }

    pub fn send(&mut self, b: &[u8]) {
        self.s.write_all(b).unwrap();
    }

    pub fn publish(&mut self, subject: &str, reply: &str, payload: &[u8]) {
        self.send(format!("PUB {subject} {reply} {}\r\n", payload.len()).as_bytes());
        self.send(payload);
        self.send(b"\r\n");
    }

    /// The payload of the next message on a subscription.
    pub fn next_message(&mut self) -> Vec<u8> {
        loop {
            let mut line = String::new();
            self.r.read_line(&mut line).unwrap();
            if line.starts_with("PING") {
                self.send(b"PONG\r\n");
                continue;
            }
            if let Some(rest) = line.strip_prefix("MSG ") {
                let n: usize = rest.split_whitespace().last().unwrap().parse().unwrap();
                let mut b = vec![0u8; n + 2];
                self.r.read_exact(&mut b).unwrap();
                b.truncate(n);
                return b;
            }
        }
    }
}

pub fn bson_doc(pairs: &[(&str, bson::Bson)]) -> Vec<u8> {
    let mut d = bson::Document::new();
    for (k, v) in pairs {
        d.insert(*k, v.clone());
    }
    let mut out = Vec::new();
    d.to_writer(&mut out).unwrap();
    out
}

/// `GET url` with curl: the status (0 when none came) and body.
pub fn get(url: &str) -> (u16, Vec<u8>) {
    let (code, body, _) = get_with_exit(url);
    (code, body)
}

/// [`get`], and curl's exit code (28: it gave up waiting, a hang).
pub fn get_with_exit(url: &str) -> (u16, Vec<u8>, i32) {
    let out = Command::new("curl")
        .args([
            "-s",
            "--max-time",
            "20",
            "-o",
            "-",
            "-w",
            "\n%{http_code}",
            url,
        ])
        .output()
        .expect("curl runs");
    let mut body = out.stdout;
    let at = body.iter().rposition(|b| *b == b'\n').unwrap_or(0);
    let code = String::from_utf8_lossy(&body[at + 1..])
        .trim()
        .parse()
        .unwrap_or(0);
    body.truncate(at);
    (code, body, out.status.code().unwrap_or(-1))
}
