//! The Http native and HttpServer with a real client: the mapping of
//! methods, answers and errnos onto HTTP (`fixtures/http/mapping.cases`,
//! against `fixtures/http/ProbeSite.oth`), server-sent events and a client
//! that leaves mid-stream, malformed and hostile HTTP, and SIGINT.

mod web;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use web::{Running, curl};

/// The probe image, built once for every test here.
fn probe() -> &'static PathBuf {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| web::build("fixtures/http/ProbeSite.oth", "http_probe"))
}

fn start() -> Option<Running> {
    if !web::have("curl", "curl") {
        return None;
    }
    Some(web::start(probe(), &[]))
}

/// One case of `mapping.cases`.
struct Case {
    line: usize,
    method: String,
    path: String,
    body: Option<(String, Vec<u8>)>,
    /// Headers the request has.
    sends: Vec<(String, String)>,
    status: u16,
    headers: Vec<(String, String)>,
    text: Option<String>,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(web::root().join("fixtures/http/mapping.cases")).unwrap();
    let mut out = Vec::new();
    for (n, block) in text.split("\n\n").enumerate() {
        let lines: Vec<(usize, &str)> = block
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with('#') && !l.trim().is_empty())
            .map(|(i, l)| (n * 1000 + i, l))
            .collect();
        let Some(&(line, request)) = lines.first() else {
            continue;
        };
        let mut words = request.splitn(4, ' ');
        let method = words.next().unwrap().to_string();
        let path = words.next().expect("a path").to_string();
        let body = words.next().map(|ty| {
            let b = words.next().unwrap_or("");
            let bytes = match b.strip_prefix('@') {
                Some(n) => vec![b'x'; n.parse().unwrap()],
                None => b.as_bytes().to_vec(),
            };
            (ty.to_string(), bytes)
        });
        let mut case = Case {
            line,
            method,
            path,
            body,
            sends: Vec::new(),
            status: 0,
            headers: Vec::new(),
            text: None,
        };
        for &(_, l) in &lines[1..] {
            if let Some(h) = l.strip_prefix("> ") {
                let (k, v) = h.split_once(": ").expect("`> name: value`");
                case.sends.push((k.to_string(), v.to_string()));
            } else if let Some(s) = l.strip_prefix("=> ") {
                case.status = s.parse().unwrap();
            } else if let Some(t) = l.strip_prefix("|~ ") {
                case.text.get_or_insert_with(String::new).push_str(t);
            } else if let Some(t) = l.strip_prefix("| ") {
                let text = case.text.get_or_insert_with(String::new);
                text.push_str(t);
                text.push('\n');
            } else if let Some((k, v)) = l.split_once(": ") {
                case.headers.push((k.to_string(), v.to_string()));
            } else {
                panic!("mapping.cases: cannot read {l:?}");
            }
        }
        assert!(
            case.status != 0,
            "mapping.cases: {request:?} has no `=> STATUS`"
        );
        out.push(case);
    }
    out
}

#[test]
fn each_method_answer_and_errno_maps_as_the_cases_say() {
    let Some(mut run) = start() else { return };
    let mut failures = Vec::new();
    let cases = cases();
    assert!(cases.len() > 20, "the cases file was read");
    for c in &cases {
        let mut args = vec!["-X".to_string(), c.method.clone(), "--path-as-is".into()];
        if c.method == "HEAD" {
            args = vec!["-I".into()];
        }
        for (k, v) in &c.sends {
            args.push("-H".into());
            args.push(format!("{k}: {v}"));
        }
        let body_file;
        if let Some((ty, bytes)) = &c.body {
            body_file = std::env::temp_dir().join(format!("othc-http-case-{}", c.line));
            std::fs::write(&body_file, bytes).unwrap();
            args.push("-H".into());
            args.push(format!("content-type: {ty}"));
            args.push("--data-binary".into());
            args.push(format!("@{}", body_file.display()));
        }
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let got = curl(&args, &format!("{}{}", run.base, c.path));
        let mut wrong = Vec::new();
        if got.status != c.status {
            wrong.push(format!("status {} (want {})", got.status, c.status));
        }
        for (k, v) in &c.headers {
            if got.header(k) != Some(v.as_str()) {
                wrong.push(format!("{k}: {:?} (want {v:?})", got.header(k)));
            }
        }
        if let Some(t) = &c.text
            && got.text() != *t
        {
            wrong.push(format!("body {:?} (want {t:?})", got.text()));
        }
        if c.method == "HEAD" && !got.body.is_empty() {
            wrong.push("a body on HEAD".into());
        }
        if !wrong.is_empty() {
            failures.push(format!("{} {}: {}", c.method, c.path, wrong.join("; ")));
        }
    }
    assert!(run.alive(), "the image is still running");
    assert!(
        failures.is_empty(),
        "{} of {} cases failed:\n{}\nstderr:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n"),
        run.stderr()
    );
}

/// Two files of different versions asked for at once, over and over from
/// several connections (so their stats and reads are answered in one
/// turn, interleaved): each response carries its own file's ETag. (The
/// server keeps the last ETag it made; an exchange started before another
/// file's stat must not take that one's.)
#[test]
fn files_asked_for_at_once_each_get_their_own_etag() {
    let Some(run) = start() else { return };
    let addr = run.base.trim_start_matches("http://").to_string();
    let files = [("/doc", "\"abc\""), ("/tagged", "\"fedcba9876543210\"")];
    let clients: Vec<_> = (0..8)
        .map(|i| {
            let (path, etag) = files[i % 2];
            let addr = addr.clone();
            std::thread::spawn(move || {
                let mut wrong = Vec::new();
                for _ in 0..40 {
                    let mut s = TcpStream::connect(&addr).unwrap();
                    write!(
                        s,
                        "GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                    )
                    .unwrap();
                    let mut got = String::new();
                    s.read_to_string(&mut got).unwrap();
                    let tag = got
                        .lines()
                        .find_map(|l| l.strip_prefix("etag: "))
                        .map(str::to_string);
                    if tag.as_deref() != Some(etag) {
                        wrong.push(format!("{path}: etag {tag:?} (want {etag})"));
                    }
                }
                wrong
            })
        })
        .collect();
    let wrong: Vec<String> = clients
        .into_iter()
        .flat_map(|c| c.join().unwrap())
        .collect();
    assert!(
        wrong.is_empty(),
        "{} of 320 wrong:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
}

#[test]
fn a_body_shorter_than_its_length_is_cut_off_never_passed_for_whole() {
    let Some(mut run) = start() else { return };
    // The stat says 20 bytes; the read gives 6. The length was sent, so
    // the connection is closed short of it: curl says the transfer was
    // partial (18), or, when the head had not gone out yet, that nothing
    // came (52); a body ended as if whole would be a success (0).
    let o = std::process::Command::new("curl")
        .args([
            "-s",
            "--max-time",
            "20",
            "-o",
            "/dev/null",
            "-w",
            "%{size_download}",
        ])
        .arg(format!("{}/short", run.base))
        .output()
        .unwrap();
    let got = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        matches!(o.status.code(), Some(18 | 52)),
        "curl: {:?}, {got} bytes",
        o.status.code()
    );
    assert!(got.parse::<u64>().unwrap() < 20, "{got} bytes");
    // Nothing was held against the site: it serves on.
    assert_eq!(curl(&[], &format!("{}/odd", run.base)).status, 200);
    assert!(run.alive(), "the image is still running:\n{}", run.stderr());
}

#[test]
fn a_stream_that_fails_midway_is_cut_off_never_passed_for_whole() {
    let Some(mut run) = start() else { return };
    // Two parts went out chunked (no length was known), then the object
    // failed: the body must not end with its last chunk, or the client
    // takes the half it got for the whole page. curl says the transfer was
    // partial (18), or, when the head had not gone out yet, that nothing
    // came (52); a body ended as if whole would be a success (0).
    let o = std::process::Command::new("curl")
        .args(["-s", "--max-time", "20", "-o", "-"])
        .arg(format!("{}/broken", run.base))
        .output()
        .unwrap();
    let got = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        matches!(o.status.code(), Some(18 | 52)),
        "curl: {:?}, got {got:?}\n{}",
        o.status.code(),
        run.stderr()
    );
    // The same over a raw connection: a head and parts, never the
    // terminating chunk.
    let addr = run.base.trim_start_matches("http://").to_string();
    let answer = raw(
        &addr,
        b"GET /broken HTTP/1.1\r\nHost: x\r\n\r\n",
        Duration::from_secs(10),
    );
    assert!(
        !answer.contains("\r\n0\r\n\r\n"),
        "the body ended as if whole:\n{answer}"
    );
    // It serves on.
    assert_eq!(curl(&[], &format!("{}/odd", run.base)).status, 200);
    assert!(run.alive(), "the image is still running:\n{}", run.stderr());
}

/// Reads what a raw connection gets until it closes or `wait` passes.
fn raw(addr: &str, send: &[u8], wait: Duration) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(wait)).unwrap();
    // A peer that closes early makes the write fail; the answer still counts.
    let _ = s.write_all(send);
    let mut got = Vec::new();
    let _ = s.read_to_end(&mut got);
    String::from_utf8_lossy(&got).into_owned()
}

#[test]
fn malformed_and_hostile_http_never_stops_the_image() {
    let Some(mut run) = start() else { return };
    let addr = run.base.trim_start_matches("http://").to_string();
    let wait = Duration::from_secs(5);
    // A slow client holds a half-sent head open the whole time.
    let mut slow = TcpStream::connect(&addr).unwrap();
    slow.write_all(b"GET /stream HTTP/1.1\r\nHost: x\r\n")
        .unwrap();

    let got = raw(&addr, b"GARBAGE\r\n\r\n", wait);
    assert!(
        got.starts_with("HTTP/1.1 400"),
        "a bad request line: {got:?}"
    );
    let got = raw(&addr, b"GET / HTTP/9.9\r\n\r\n", wait);
    assert!(
        got.is_empty() || got.starts_with("HTTP/1.1 4") || got.starts_with("HTTP/1.1 505"),
        "an unknown version: {got:?}"
    );
    let huge = format!(
        "GET /odd HTTP/1.1\r\nHost: x\r\nX-Big: {}\r\n\r\n",
        "a".repeat(100_000)
    );
    let got = raw(&addr, huge.as_bytes(), wait);
    assert!(
        got.is_empty() || got.starts_with("HTTP/1.1 431") || got.starts_with("HTTP/1.1 400"),
        "a huge head: {got:?}"
    );
    // A body shorter than its length, then the client leaves.
    let got = raw(
        &addr,
        b"PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nshort",
        Duration::from_millis(300),
    );
    assert!(got.is_empty(), "nothing answers half a body: {got:?}");
    // A path that leaves the view, sent as it is: checked like any request.
    let got = raw(
        &addr,
        b"GET /../../etc/passwd HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        wait,
    );
    assert!(got.starts_with("HTTP/1.1 400"), "a path with `..`: {got:?}");
    assert!(got.contains("othismo-error: invalid"), "{got}");
    // Pipelined requests on one connection, answered in order.
    let got = raw(
        &addr,
        b"GET /odd HTTP/1.1\r\nHost: x\r\n\r\nGET /fail/1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        wait,
    );
    let first = got.find("HTTP/1.1 200").expect("the first answered");
    let second = got.find("HTTP/1.1 404").expect("the second answered");
    assert!(first < second, "{got}");

    // RFC 9112's Host rule: an HTTP/1.1 request has exactly one (HTTP/1.0
    // may have none).
    for (head, want) in [
        ("GET /odd HTTP/1.1\r\n", "HTTP/1.1 400"),
        (
            "GET /odd HTTP/1.1\r\nHost: a\r\nHost: b\r\n",
            "HTTP/1.1 400",
        ),
        ("GET /odd HTTP/1.0\r\n", "HTTP/1.0 200"),
    ] {
        let got = raw(
            &addr,
            format!("{head}Connection: close\r\n\r\n").as_bytes(),
            wait,
        );
        assert!(got.starts_with(want), "{head:?}: {got:?}");
    }
    // A declared length over maxBody is refused at once (it waited for the
    // body's timeout, 408), and a body whose chunks do not parse is a 400
    // (it was a 413).
    let began = std::time::Instant::now();
    let got = raw(
        &addr,
        b"PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000000000\r\n\r\nabc",
        wait,
    );
    assert!(
        got.starts_with("HTTP/1.1 413"),
        "a terabyte declared: {got:?}"
    );
    assert!(
        began.elapsed() < wait,
        "the 413 came only when the client gave up"
    );
    let got = raw(
        &addr,
        b"PUT /echo HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n",
        wait,
    );
    assert!(
        got.starts_with("HTTP/1.1 400"),
        "a malformed chunk: {got:?}"
    );

    // Paths whose bytes are not UTF-8, over and over: each is a 400 from
    // HttpServer, which is never stopped for one (six stops in ten seconds
    // would end the run).
    for n in 0..20 {
        let target = ["/%ed%a0%80", "/%ff/x", "/%c0%af"][n % 3];
        let got = raw(
            &addr,
            format!("GET {target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n").as_bytes(),
            wait,
        );
        assert!(got.starts_with("HTTP/1.1 400"), "{target}: {got:?}");
    }
    assert!(!run.stderr().contains("stopped"), "{}", run.stderr());

    // Through all of it (and with the slow client still there), the image
    // serves as before.
    let ok = curl(&[], &format!("{}/odd", run.base));
    assert_eq!((ok.status, ok.text().as_str()), (200, "odd bytes"));
    assert!(run.alive());
    drop(slow);
}

#[test]
fn events_stream_and_a_client_that_leaves_is_let_go() {
    let Some(mut run) = start() else { return };
    let addr = run.base.trim_start_matches("http://").to_string();
    let mut sse = TcpStream::connect(&addr).unwrap();
    sse.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    sse.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        .unwrap();
    run.wait_out("events: watched");
    // An event of four lines, the last two empty: each its own `data:`
    // line, and a blank line after the last.
    run.line("first|of three||");
    run.wait_out("events: sent first|of three|| to 1");
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    while !String::from_utf8_lossy(&got).contains("data: first\ndata: of three\ndata: \ndata: \n\n")
    {
        let n = sse.read(&mut buf).expect("the event comes");
        assert!(
            n > 0,
            "the stream ended early: {:?}",
            String::from_utf8_lossy(&got)
        );
        got.extend_from_slice(&buf[..n]);
    }
    let head = String::from_utf8_lossy(&got).into_owned();
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(head.contains("content-type: text/event-stream"), "{head}");
    assert!(head.contains("transfer-encoding: chunked"), "{head}");
    // The client leaves mid-stream: the next event finds it gone, and
    // HttpServer cancels the watch it made for it.
    drop(sse);
    std::thread::sleep(Duration::from_millis(200));
    run.line("second");
    run.wait_out("events: a watcher cancelled");
    let ok = curl(&[], &format!("{}/stream", run.base));
    assert_eq!(ok.status, 200);
    assert!(run.alive());
}

#[test]
fn sigint_stops_a_listening_image_gracefully() {
    let Some(run) = start() else { return };
    let ok = curl(&[], &format!("{}/odd", run.base));
    assert_eq!(ok.status, 200);
    let (status, err) = run.interrupt();
    assert_eq!(status, 0, "stderr:\n{err}");
    assert!(
        err.contains("SIGINT: no new connections; finishing 0 request(s) in flight"),
        "{err}"
    );
}

#[test]
fn sigint_lets_a_request_in_flight_finish_for_a_bounded_time() {
    let Some(mut run) = start() else { return };
    let addr = run.base.trim_start_matches("http://").to_string();
    // An event stream is a request that never finishes on its own.
    let mut sse = TcpStream::connect(&addr).unwrap();
    sse.write_all(b"GET /events HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n")
        .unwrap();
    run.wait_out("events: watched");
    let started = std::time::Instant::now();
    let (status, err) = run.interrupt();
    assert_eq!(status, 0, "stderr:\n{err}");
    assert!(
        err.contains("SIGINT: no new connections; finishing 1 request(s) in flight (at most 5 s)"),
        "{err}"
    );
    assert!(
        err.contains("stopped with 1 HTTP request(s) unfinished after 5 s"),
        "{err}"
    );
    assert!(started.elapsed() >= Duration::from_secs(5), "it waited");
    drop(sse);
}

/// Supervision seen from outside: an object that traps answers its request
/// `503 unavailable`, is restarted (its console watch made again), and the
/// site serves on; one that keeps trapping (a sixth stop within ten
/// seconds) ends the run with status 1, rather than leave a process that
/// looks alive and no longer serves.
#[test]
fn a_crashing_object_is_restarted_and_then_given_up_on() {
    let Some(mut run) = start() else { return };
    let crash = curl(&[], &format!("{}/crash", run.base));
    assert_eq!(crash.status, 503, "{}", crash.text());
    assert_eq!(crash.header("othismo-error"), Some("unavailable"));
    let ok = curl(&[], &format!("{}/odd", run.base));
    assert_eq!((ok.status, ok.text().as_str()), (200, "odd bytes"));
    run.wait_err("instance `probe` restarted (1 of at most 5 within 10 s)");
    // Its start ran again: it watches the console again.
    run.line("after");
    run.wait_out("events: sent after to 0");
    for _ in 0..5 {
        let _ = std::process::Command::new("curl")
            .args(["-s", "--max-time", "5"])
            .arg(format!("{}/crash", run.base))
            .output();
    }
    run.wait_err("error: instance `probe` stopped again after 5 restart(s) within 10 s");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(s) = run.child.try_wait().unwrap() {
            break s.code();
        }
        assert!(std::time::Instant::now() < deadline, "still running");
        std::thread::sleep(Duration::from_millis(50));
    };
    assert_eq!(status, Some(1));
}
