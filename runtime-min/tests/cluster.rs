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

/// A port nothing listens on now.
fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

impl Nats {
    fn start() -> Option<Nats> {
        Nats::start_with(&[])
    }

    /// One server of a NATS cluster whose route listens on `route` and
    /// that joins the routes `routes`.
    fn member(route: u16, routes: &[u16]) -> Option<Nats> {
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

    fn start_with(more: &[&str]) -> Option<Nats> {
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

fn bundle_file(name: &str, sets: &[&str]) -> PathBuf {
    let b = common::bundle(name, "examples/hello", "Hello.oth", sets);
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("{name}/Hello.othimg"));
    std::fs::write(&path, b).unwrap();
    path
}

/// A node started: its stderr is read until it says it joined. The caller
/// waits for it (or kills it); a node that ends early is waited for here.
fn node(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
) -> (Child, BufReader<std::process::ChildStderr>) {
    node_with(bundle, nats, instances, &[])
}

/// [`node`] with more arguments.
#[allow(clippy::zombie_processes)] // the child is returned to be waited for
fn node_with(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
    more: &[&str],
) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(bundle)
        .args(["--cluster", &nats.url, "--instances", instances])
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

/// `GET url` with curl: the status (0 when none came) and body.
fn get(url: &str) -> (u16, Vec<u8>) {
    let (code, body, _) = get_with_exit(url);
    (code, body)
}

/// [`get`], and curl's exit code (28: it gave up waiting, a hang).
fn get_with_exit(url: &str) -> (u16, Vec<u8>, i32) {
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

/// A node started with its standard streams discarded but stderr's lines
/// until `until` (returned), and the rest of its stderr as it comes (also
/// shown on the test's).
fn node_saying(
    bundle: &Path,
    nats: &Nats,
    instances: &str,
    until: &str,
) -> (Child, String, std::sync::Arc<std::sync::Mutex<String>>) {
    let (mut child, mut err) = node(bundle, nats, instances);
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

#[test]
fn the_site_on_three_nodes_serves_every_file_and_outlives_a_replica() {
    let Some(nats) = Nats::start() else { return };
    if !test_support::runnable(test_support::ensure_debian_tool("curl", "curl")) {
        return;
    }
    let public = common::scratch("cluster_site_public");
    let files: Vec<(String, Vec<u8>)> = (0..8)
        .map(|i| {
            (
                format!("f{i}.txt"),
                format!("file {i}\n").repeat(100 * (i + 1)).into_bytes(),
            )
        })
        .chain([(
            "big.bin".to_string(),
            (0..3_000_000u32).map(|i| (i * 7 % 251) as u8).collect(),
        )])
        .collect();
    for (name, bytes) in &files {
        std::fs::write(public.join(name), bytes).unwrap();
    }
    let bundle = common::bundle_in_place(
        "cluster_site",
        "examples/site/Site.oth",
        &[
            r#"listen=HttpConfig { listen: "127.0.0.1:0", maxBody: 4096 }"#.to_string(),
            format!(
                r#"files=FilesConfig {{ dir: "{}", readonly: true }}"#,
                public.display()
            ),
        ],
    );
    // The replicas first, so the site is there when the listener opens.
    let (mut replica_a, _, _) = node_saying(&bundle, &nats, "site", "");
    let (mut replica_b, _, _) = node_saying(&bundle, &nats, "site", "");
    let (mut front, listening, _) =
        node_saying(&bundle, &nats, "web,server,public", "listening on ");
    let base = listening
        .trim()
        .trim_start_matches("listening on ")
        .to_string();

    for (name, bytes) in &files {
        let (code, body) = get(&format!("{base}/{name}"));
        assert_eq!(code, 200, "{name}");
        assert!(
            body == *bytes,
            "{name} came back changed ({} bytes)",
            body.len()
        );
    }

    // Under load, one replica is killed: requests in flight on it fail,
    // none hangs, and every later one is served by the other.
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let big = files.last().unwrap().1.clone();
    let loads: Vec<_> = (0..4)
        .map(|n| {
            let (stop, base, big) = (stop.clone(), base.clone(), big.clone());
            std::thread::spawn(move || {
                let mut seen = Vec::new();
                while !stop.load(std::sync::atomic::Ordering::SeqCst) {
                    let began = Instant::now();
                    let path = if n % 2 == 0 { "big.bin" } else { "f3.txt" };
                    let (code, body, exit) = get_with_exit(&format!("{base}/{path}"));
                    assert_ne!(exit, 28, "a request hung (curl gave up after 20 s)");
                    let whole = code == 200 && exit == 0 && (path != "big.bin" || body == big);
                    seen.push((began, if whole { 200 } else { code.max(1) }));
                }
                seen
            })
        })
        .collect();
    std::thread::sleep(Duration::from_millis(700));
    let killed = Instant::now();
    let _ = replica_a.kill();
    let _ = replica_a.wait();
    std::thread::sleep(Duration::from_millis(3000));
    stop.store(true, std::sync::atomic::Ordering::SeqCst);
    let seen: Vec<(Instant, u16)> = loads.into_iter().flat_map(|l| l.join().unwrap()).collect();
    let before = seen.iter().filter(|(t, _)| *t < killed).count();
    let failed: Vec<_> = seen.iter().filter(|(_, c)| *c != 200).collect();
    eprintln!(
        "{} requests, {before} before the kill; not 200: {:?}",
        seen.len(),
        failed
            .iter()
            .map(|(t, c)| (t.duration_since(killed).as_millis(), c))
            .collect::<Vec<_>>()
    );
    assert!(before > 0, "no request was served before the kill");
    // A request that failed was one in flight at the kill (curl's 0 would
    // be a hang past its 20 s: none).
    for (t, c) in &failed {
        assert!(*c == 503 || *c == 502, "a request ended {c}");
        assert!(
            *t < killed + Duration::from_millis(100),
            "a request sent after the kill failed ({c})"
        );
    }
    let after: Vec<_> = seen
        .iter()
        .filter(|(t, _)| *t > killed + Duration::from_millis(100))
        .collect();
    assert!(
        after.len() > 5,
        "too few requests after the kill: {}",
        after.len()
    );
    for (name, bytes) in &files {
        let (code, body) = get(&format!("{base}/{name}"));
        assert_eq!(code, 200, "{name} after the kill");
        assert!(body == *bytes, "{name} came back changed after the kill");
    }
    for c in [&mut replica_b, &mut front] {
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
}

/// A request a node took is not left hanging when that node dies: the
/// greeter's watch of the console, taken by the console's node, fails
/// `unavailable` on the greeter's node once the console's is lost.
#[test]
fn a_request_taken_by_a_node_that_dies_fails_unavailable() {
    let Some(nats) = Nats::start() else { return };
    let bundle = bundle_file("cluster_lost", &[]);
    let (mut console, _cerr) = node(&bundle, &nats, "cons,loud");
    let (mut greeter, mut gerr) = node_with(&bundle, &nats, "greeter", &["--trace"]);
    // The greeter's stderr, a line at a time, on a channel: a line that
    // never comes fails the test instead of hanging it.
    let (tx, lines) = std::sync::mpsc::channel::<String>();
    std::thread::spawn(move || {
        let mut line = String::new();
        while gerr.read_line(&mut line).unwrap_or(0) > 0 {
            let _ = tx.send(std::mem::take(&mut line));
        }
    });
    let wait_for = |what: &str| -> String {
        loop {
            match lines.recv_timeout(Duration::from_secs(30)) {
                Ok(l) if l.contains(what) => return l,
                Ok(_) => {}
                Err(e) => panic!("the greeter's node never said {what:?} ({e})"),
            }
        }
    };
    wait_for("greeter:1 -> cons: watch /");
    // The watch is taken, then its node dies.
    std::thread::sleep(Duration::from_millis(500));
    let _ = console.kill();
    let _ = console.wait();
    let killed = Instant::now();
    let line = wait_for("greeter:1 <- error 10 unavailable");
    assert!(line.contains("is lost"), "{line}");
    eprintln!(
        "the watch failed {:?} after the kill: {}",
        killed.elapsed(),
        line.trim()
    );
    assert!(
        greeter.try_wait().unwrap().is_none(),
        "the greeter's node stopped"
    );
    let _ = greeter.kill();
    let _ = greeter.wait();
}

/// Three NATS servers in a cluster, nodes given all three: one server
/// killed mid-run, the nodes reconnect to the others and the image keeps
/// answering.
#[test]
fn a_nats_server_killed_in_a_three_server_cluster_is_survived() {
    if !test_support::runnable(test_support::ensure_debian_tool("curl", "curl")) {
        return;
    }
    let routes = [free_port(), free_port(), free_port()];
    let mut servers = Vec::new();
    for r in routes {
        let Some(s) = Nats::member(r, &routes) else {
            return;
        };
        servers.push(s);
    }
    // The routes form.
    std::thread::sleep(Duration::from_millis(1500));
    let all = Nats {
        child: Command::new("true").spawn().unwrap(),
        url: servers
            .iter()
            .map(|s| s.url.clone())
            .collect::<Vec<_>>()
            .join(","),
        port: servers[0].port,
    };
    // The replica is given the three servers; the front only the first,
    // and learns of the others from it (as NATS clients do), so the first
    // one's end is certain to make it reconnect.
    let first = Nats {
        child: Command::new("true").spawn().unwrap(),
        url: servers[0].url.clone(),
        port: servers[0].port,
    };
    let public = common::scratch("cluster_failover_public");
    std::fs::write(public.join("a.txt"), b"still here\n").unwrap();
    let bundle = common::bundle_in_place(
        "cluster_failover",
        "examples/site/Site.oth",
        &[
            r#"listen=HttpConfig { listen: "127.0.0.1:0", maxBody: 4096 }"#.to_string(),
            format!(
                r#"files=FilesConfig {{ dir: "{}", readonly: true }}"#,
                public.display()
            ),
        ],
    );
    let (mut replica, _, _) = node_saying(&bundle, &all, "site", "");
    let (mut front, listening, front_log) =
        node_saying(&bundle, &first, "web,server,public", "listening on ");
    let base = listening
        .trim()
        .trim_start_matches("listening on ")
        .to_string();
    for _ in 0..20 {
        assert_eq!(
            get(&format!("{base}/a.txt")),
            (200, b"still here\n".to_vec())
        );
    }
    // Two of the three servers go, one after the other: whichever each
    // node was on, both end up on the third, and the image keeps answering.
    let mut failed = 0;
    for _ in 0..2 {
        drop(servers.remove(0));
        let killed = Instant::now();
        while killed.elapsed() < Duration::from_secs(3) {
            let (code, _, exit) = get_with_exit(&format!("{base}/a.txt"));
            assert_ne!(exit, 28, "a request hung");
            if code != 200 {
                failed += 1;
            }
        }
    }
    eprintln!("{failed} request(s) failed while the nodes reconnected");
    let said = front_log.lock().unwrap().clone();
    assert!(
        said.contains("cluster: NATS: disconnected") && said.contains("cluster: NATS: connected"),
        "the front node did not say it reconnected: {said}"
    );
    for _ in 0..50 {
        assert_eq!(
            get(&format!("{base}/a.txt")),
            (200, b"still here\n".to_vec()),
            "after the nodes reconnected"
        );
    }
    for c in [&mut replica, &mut front] {
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
}

/// NATS servers that ask for a user: a node without it cannot join (exit
/// 2, saying why); with it, from the environment, the image runs.
#[test]
fn a_node_without_the_servers_credentials_cannot_join() {
    let Some(nats) = Nats::start_with(&["--user", "oth", "--pass", "s3cret"]) else {
        return;
    };
    let bundle = bundle_file("cluster_auth", &[]);
    let refused = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(&bundle)
        .args(["--cluster", &nats.url, "--instances", "cons,loud"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot join the cluster: cannot connect"),
        "{err}"
    );
    let wrong = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(&bundle)
        .args(["--cluster", &nats.url, "--instances", "cons,loud"])
        .args(["--cluster-user", "oth", "--cluster-password", "guess"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(wrong.status.code(), Some(2));
    let run = |instances: &str| {
        Command::new(env!("CARGO_BIN_EXE_othismo-run"))
            .arg(&bundle)
            .args(["--cluster", &nats.url, "--instances", instances])
            .env("OTHISMO_CLUSTER_USER", "oth")
            .env("OTHISMO_CLUSTER_PASSWORD", "s3cret")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let mut console = run("cons,loud");
    let mut cerr = BufReader::new(console.stderr.take().unwrap());
    let mut line = String::new();
    cerr.read_line(&mut line).unwrap();
    assert!(line.starts_with("joined the cluster"), "{line}");
    let mut greeter = run("greeter");
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
    let _ = greeter.kill();
    let _ = greeter.wait();
}
