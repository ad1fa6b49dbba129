//! One image on several nodes, joined by a real `nats-server` (installed if
//! missing): examples/hello with the console and the shouter on one node
//! and the greeter on another prints exactly what a local run prints; a
//! node loading another bundle of the image is refused at join; and a
//! hostile publisher on the image's subjects (malformed messages, a
//! request whose sender has no way there) gets nothing delivered, while
//! the nodes go on serving.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// A nats-server on a free port, stopped when dropped.
struct Nats {
    child: Child,
    url: String,
    port: u16,
}

impl Nats {
    fn start() -> Option<Nats> {
        let ready = test_support::ensure_debian_tool("nats-server", "nats-server");
        if !test_support::runnable(ready) {
            return None;
        }
        let port = TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("nats-server")
            .args(["-a", "127.0.0.1", "-p", &port.to_string()])
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

fn bundle_file(name: &str, sets: &[&str]) -> PathBuf {
    let b = common::bundle(name, "examples/hello", "Hello.oth", sets);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}/Hello.othimg"));
    std::fs::write(&path, b).unwrap();
    path
}

/// A node started: its stderr is read until it says it joined. The caller
/// waits for it (or kills it); a node that ends early is waited for here.
#[allow(clippy::zombie_processes)] // the child is returned to be waited for
fn node(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(bundle)
        .args(["--cluster", &nats.url, "--instances", instances])
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
            panic!("node {instances} ended before it joined: {status:?}");
        }
        if line.starts_with("joined the cluster") {
            return (child, err);
        }
    }
}

/// The console's node with `input`, then the greeter's: what the console
/// printed, and how its node ended.
fn hello_across_two_nodes(bundle: &Path, nats: &Nats, input: &str) -> (String, i32, String) {
    let (mut console, mut console_err) = node(bundle, nats, "cons,loud");
    let (mut greeter, _greeter_err) = node(bundle, nats, "greeter");
    console
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let mut out = String::new();
    console
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    let status = console.wait().unwrap().code().unwrap_or(-1);
    let mut err = String::new();
    console_err.read_to_string(&mut err).unwrap();
    // The greeter's node serves until it is stopped.
    assert!(
        greeter.try_wait().unwrap().is_none(),
        "the greeter's node ended by itself"
    );
    let _ = Command::new("kill")
        .args(["-TERM", &greeter.id().to_string()])
        .status();
    assert_eq!(greeter.wait().unwrap().code(), Some(0));
    (out, status, err)
}

#[test]
fn hello_runs_across_two_nodes_as_it_runs_in_one() {
    let Some(nats) = Nats::start() else { return };
    let plain = bundle_file("cluster_hello", &[]);
    let (out, status, err) = hello_across_two_nodes(&plain, &nats, "Ada\nGrace\n");
    assert_eq!(status, 0, "{err}");
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
    let set = bundle_file(
        "cluster_hello_set",
        &[r#"greeting=Greeting { prefix: "Hello, ", excited: true }"#],
    );
    let (out, status, err) = hello_across_two_nodes(&set, &nats, "Ada\nGrace\n");
    assert_eq!(status, 0, "{err}");
    assert_eq!(
        out,
        "Hello, Ada!\nHELLO, ADA!\nHello, Grace!\nHELLO, GRACE!\n"
    );
}

#[test]
fn a_node_with_another_bundle_is_refused_at_join() {
    let Some(nats) = Nats::start() else { return };
    let one = bundle_file("cluster_one", &[]);
    let other = bundle_file(
        "cluster_other",
        &[r#"greeting=Greeting { prefix: "Yo ", excited: false }"#],
    );
    let (mut first, _err) = node(&one, &nats, "cons,loud");
    let refused = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(&other)
        .args(["--cluster", &nats.url, "--instances", "greeter"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the cluster runs another bundle of image `Hello`"),
        "{err}"
    );
    // A name that is no instance, and no instances at all, are refused too.
    let bad = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(&one)
        .args(["--cluster", &nats.url, "--instances", "greter"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&bad.stderr);
    assert_eq!(bad.status.code(), Some(2), "{err}");
    assert!(
        err.contains(
            "`greter`, which is no instance of the image (its instances: cons, loud, greeter)"
        ),
        "{err}"
    );
    let _ = first.kill();
    let _ = first.wait();
}

/// A raw NATS client: enough of the protocol to publish and read.
struct Raw {
    s: TcpStream,
    r: BufReader<TcpStream>,
}

impl Raw {
    fn connect(port: u16) -> Raw {
        let s = TcpStream::connect(("127.0.0.1", port)).unwrap();
        s.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut info = String::new();
        r.read_line(&mut info).unwrap();
        let mut raw = Raw { s, r };
        raw.send(b"CONNECT {\"verbose\":false,\"headers\":true,\"no_responders\":true}\r\n");
        raw
    }

    fn send(&mut self, b: &[u8]) {
        self.s.write_all(b).unwrap();
    }

    fn publish(&mut self, subject: &str, reply: &str, payload: &[u8]) {
        self.send(format!("PUB {subject} {reply} {}\r\n", payload.len()).as_bytes());
        self.send(payload);
        self.send(b"\r\n");
    }

    /// The payload of the next message on a subscription.
    fn next_message(&mut self) -> Vec<u8> {
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

fn bson_doc(pairs: &[(&str, bson::Bson)]) -> Vec<u8> {
    let mut d = bson::Document::new();
    for (k, v) in pairs {
        d.insert(*k, v.clone());
    }
    let mut out = Vec::new();
    d.to_writer(&mut out).unwrap();
    out
}

#[test]
fn a_hostile_publisher_gets_nothing_delivered() {
    let Some(nats) = Nats::start() else { return };
    let bundle = bundle_file("cluster_hostile", &[]);
    let bytes = std::fs::read(&bundle).unwrap();
    let prefix = {
        use sha2::Digest;
        let h = sha2::Sha256::digest(&bytes);
        let hex: String = h[..8].iter().map(|b| format!("{b:02x}")).collect();
        format!("oth.{hex}")
    };
    let (mut console, _cerr) = node(&bundle, &nats, "cons,loud");
    let (mut greeter, _gerr) = node(&bundle, &nats, "greeter");

    let mut raw = Raw::connect(nats.port);
    raw.send(b"SUB hostile.reply 1\r\n");
    let to_greeter = format!("{prefix}.i.greeter");
    // Malformed: not BSON, cut short, another version, an unknown kind.
    raw.publish(&to_greeter, "hostile.reply", b"\x00\x01garbage");
    raw.publish(&to_greeter, "hostile.reply", &[0xff; 4096]);
    raw.publish(
        &to_greeter,
        "hostile.reply",
        &bson_doc(&[("v", 99.into()), ("k", "request".into())]),
    );
    raw.publish(
        &to_greeter,
        "hostile.reply",
        &bson_doc(&[("v", 1.into()), ("k", "boom".into())]),
    );
    // A request whose sender has no way there: `loud` needs only the console.
    let forged = bson_doc(&[
        ("v", 1.into()),
        ("k", "request".into()),
        ("from", "loud".into()),
        ("to", "greeter".into()),
        ("id", 1.into()),
        ("verb", 5.into()),
        ("path", "/greeting".into()),
        ("flags", 0.into()),
        ("reply", "hostile.reply".into()),
    ]);
    raw.publish(&to_greeter, "", &forged);
    let refusal = bson::Document::from_reader(&raw.next_message()[..]).unwrap();
    assert_eq!(refusal.get_str("k").unwrap(), "error", "{refusal}");
    assert_eq!(refusal.get_str("code").unwrap(), "forbidden", "{refusal}");
    // An unknown instance and a huge message.
    raw.publish(&format!("{prefix}.i.nobody"), "", &forged);
    raw.publish(&to_greeter, "", &vec![7u8; 900 * 1024]);

    // The nodes still serve, and the greeting is the image's own.
    console.stdin.take().unwrap().write_all(b"Ada\n").unwrap();
    let mut out = String::new();
    console
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut out)
        .unwrap();
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\n");
    assert_eq!(console.wait().unwrap().code(), Some(0));
    assert!(
        greeter.try_wait().unwrap().is_none(),
        "the greeter's node stopped"
    );
    let _ = greeter.kill();
    let _ = greeter.wait();
}
