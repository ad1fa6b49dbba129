//! A JSON endpoint end to end (`examples/notes-json`: Notes, written in
//! Rust, behind HttpServer beside a page), run with `othc run` and driven
//! with curl and Chromium:
//! - the image's startup request, a JSON literal encoded at build time
//!   (given with `--set`, every value at an edge), reaches the object,
//!   which decodes it and answers it to `GET /api/`: the
//!   body is byte for byte the literal's encoding (the compiler and the
//!   Rust crate write one form), `application/json`, and Python's `json`
//!   reads every value exactly (`i64::MIN`, the time in UTC);
//! - a body as curl or a browser's `fetch` sends it (no `$type`, keys in
//!   any order, whitespace) is read, and read back in the one form;
//! - every malformed or refused document of `fixtures/json/` is `400`, and
//!   the endpoint still serves its last note after each;
//! - thousands of kept-alive PUTs (good and malformed in turn) and GETs:
//!   none broken, none failed, memory flat;
//! - the example's page, in headless Chromium, reads the note with `fetch`,
//!   writes one (`JSON.stringify`, no `$type`) and reads it back.

mod web;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::Command;

use web::curl;

const APP: &str = "examples/notes-json/App.oth";

/// The first note, every value at an edge of its type.
const FIRST: &str = r#"first=Note { title: "first \"note\" é 😀", tags: ["a", "b"], when: "2026-12-08T11:30:00.5+02:00", id: "123E4567-E89B-12D3-A456-426614174000", count: -9223372036854775808, ratio: 0.1 }"#;
const LISTEN: &str = r#"listen=HttpConfig { listen: "127.0.0.1:0" }"#;

fn ready() -> bool {
    web::have("curl", "curl") && test_support::runnable(test_support::ensure_rust_wasm32())
}

/// The bytes othc encodes the image's first startup request's literal to.
fn literal_bytes() -> Vec<u8> {
    struct Disk;
    impl othc::loader::Loader for Disk {
        fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
            std::fs::read(web::root().join(path))
        }
    }
    let inputs = othc::ValueInputs {
        files: Vec::new(),
        sets: vec![FIRST.into(), LISTEN.into()],
    };
    let c = othc::compile(&Disk, &[PathBuf::from(APP)], &inputs).unwrap();
    assert!(!c.front.diags.has_errors());
    let image = c
        .checked
        .model
        .images
        .iter()
        .find(|i| i.name == "App")
        .unwrap();
    let slot = match &image.startup[0].payload {
        Some(othc::model::StartupPayload::Slot(k)) => *k,
        other => panic!("the first startup request sends a slot: {other:?}"),
    };
    let enc = image.slots[slot]
        .value
        .clone()
        .expect("the slot's default is encoded");
    assert_eq!(&*enc.content_type, "application/json");
    enc.bytes
}

/// Python's `json` reads `body` strictly (no duplicate keys, no `NaN`) and
/// `check` (Python statements over `v`) holds.
fn python_checks(body: &[u8], check: &str) {
    if let Some(o) = test_support::host_program::python_json(&[body], check) {
        assert!(
            o.status.success(),
            "Python: {}\n{}",
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(body)
        );
    }
}

#[test]
fn a_json_endpoint_written_in_rust_serves_what_it_is_given() {
    if !ready() {
        return;
    }
    let mut run = web::start(Path::new(APP), &["--set", FIRST, "--set", LISTEN]);
    let base = format!("{}/api", run.base);

    // The startup literal, decoded by the object and encoded again.
    let first = curl(&[], &format!("{base}/"));
    assert_eq!(first.status, 200, "{}", first.text());
    assert_eq!(first.header("content-type"), Some("application/json"));
    assert_eq!(first.text(), String::from_utf8(literal_bytes()).unwrap());
    python_checks(
        &first.body,
        r#"
assert list(v)[0] == "$type" and v["$type"] == "Note", v
assert v["count"] == -9223372036854775808
assert v["when"] == "2026-12-08T09:30:00.500Z"
assert v["id"] == "123e4567-e89b-12d3-a456-426614174000"
assert v["title"] == 'first "note" é 😀'
assert abs(v["ratio"] - 0.1) < 1e-7
assert "done" not in v
"#,
    );

    // As curl or fetch sends it: no `$type`, any order, whitespace.
    let sent = r#" { "ratio" : 1.5, "done":true,
        "count": 9007199254740993, "title": "from curl", "tags": [ "x" ],
        "id": "00000000-0000-0000-0000-00000000000A", "when": "2026-01-01T00:00:00Z" } "#;
    let put = curl(
        &[
            "-X",
            "PUT",
            "-H",
            "content-type: application/json",
            "--data-binary",
            sent,
        ],
        &format!("{base}/"),
    );
    assert!(put.status < 300, "{} {}", put.status, put.text());
    let back = curl(&[], &format!("{base}/"));
    assert_eq!(
        back.text(),
        r#"{"$type":"Note","title":"from curl","tags":["x"],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-00000000000a","count":9007199254740993,"ratio":1.5,"done":true}"#
    );
    python_checks(&back.body, r#"assert v["count"] == 9007199254740993"#);

    // Every malformed or refused document, and wrong messages: 400, and the
    // last note still served.
    let mut hostile: Vec<(String, Vec<u8>)> = Vec::new();
    for dir in ["fixtures/json/malformed", "fixtures/json/refused"] {
        for f in test_support::files_with_extension(&web::root().join(dir), "json") {
            hostile.push((f.display().to_string(), std::fs::read(&f).unwrap()));
        }
    }
    for (name, body) in [
        ("another type", r#"{"$type":"Other","title":"x"}"#),
        (
            "a field of the wrong type",
            r#"{"title":5,"tags":[],"when":"2026-01-01T00:00:00Z","id":"00000000-0000-0000-0000-000000000000","count":1,"ratio":1}"#,
        ),
        (
            "a fraction for an integer",
            r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00Z","id":"00000000-0000-0000-0000-000000000000","count":1.5,"ratio":1}"#,
        ),
        (
            "beyond i64",
            r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00Z","id":"00000000-0000-0000-0000-000000000000","count":9223372036854775808,"ratio":1}"#,
        ),
        (
            "a bad time",
            r#"{"title":"x","tags":[],"when":"2026-02-30T00:00:00Z","id":"00000000-0000-0000-0000-000000000000","count":1,"ratio":1}"#,
        ),
        ("a missing field", r#"{"title":"x"}"#),
        ("not an object", r#"["title"]"#),
        ("ten thousand brackets", &"[".repeat(10_000)),
    ] {
        hostile.push((name.to_string(), body.as_bytes().to_vec()));
    }
    for (name, body) in &hostile {
        let file = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "json_api_body").join("b");
        std::fs::write(&file, body).unwrap();
        let put = curl(
            &[
                "-X",
                "PUT",
                "-H",
                "content-type: application/json",
                "--data-binary",
                &format!("@{}", file.display()),
            ],
            &format!("{base}/"),
        );
        assert_eq!(put.status, 400, "{name}: {}", put.text());
        assert_eq!(
            curl(&[], &format!("{base}/")).body,
            back.body,
            "after {name}"
        );
    }

    // Sustained: kept-alive PUTs, good and malformed in turn, then GETs.
    let addr = run.base.trim_start_matches("http://").to_string();
    let pid = run.child.id();
    let good = r#"{"title":"load","tags":["a","b","c"],"when":"2026-01-01T00:00:00.123Z","id":"00000000-0000-0000-0000-000000000001","count":42,"ratio":0.25}"#;
    let bad = r#"{"title":"load","tags":["a",],"when":1}"#;
    let puts = |n: usize| {
        let (mut ok, mut refused) = (0, 0);
        let s = TcpStream::connect(&addr).unwrap();
        s.set_read_timeout(Some(std::time::Duration::from_secs(30)))
            .unwrap();
        let mut r = BufReader::new(s.try_clone().unwrap());
        let mut w = s;
        for i in 0..n {
            let body = if i % 2 == 0 { good } else { bad };
            let req = format!(
                "PUT /api/ HTTP/1.1\r\nHost: t\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            );
            w.write_all(req.as_bytes()).unwrap();
            match status_of(&mut r) {
                s if s < 300 => ok += 1,
                400 => refused += 1,
                s => panic!("PUT {i}: {s}"),
            }
        }
        (ok, refused)
    };
    puts(2_000);
    let before = test_support::resident_kib_of(pid);
    assert_eq!(puts(10_000), (5_000, 5_000));
    let tally = web::load::drive(&addr, &["/api/"], 4, 20_000);
    assert_eq!(
        (tally.ok, tally.failed, tally.broken),
        (20_000, 0, 0),
        "{tally:?}"
    );
    let after = test_support::resident_kib_of(pid);
    assert!(
        after < before + 8 * 1024,
        "resident memory grew from {before} KiB to {after} KiB over 30,000 requests"
    );
    assert!(run.alive());
    let last = curl(&[], &format!("{base}/"));
    assert_eq!(last.status, 200);
    python_checks(
        &last.body,
        r#"assert v["title"] == "load" and v["count"] == 42"#,
    );

    // The page, as a browser runs it.
    if web::have("chromium", "chromium") {
        let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "json_chromium");
        let o = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--virtual-time-budget=10000",
                "--dump-dom",
            ])
            .arg(format!("--user-data-dir={}", dir.join("profile").display()))
            .arg(format!("{}/", run.base))
            .output()
            .expect("chromium runs");
        let dom = String::from_utf8_lossy(&o.stdout);
        for want in [
            r#"data-first="load""#,
            r#"data-put="204""#,
            r#"data-type="application/json""#,
            r#"data-type-name="Note""#,
            r#"<span id="title">Written by the page</span>"#,
            r#"<p id="status">done</p>"#,
        ] {
            assert!(
                dom.contains(want),
                "{want} is not in the page's DOM:\n{dom}"
            );
        }
        let note = curl(&[], &format!("{base}/"));
        python_checks(
            &note.body,
            r#"assert v["title"] == "Written by the page" and v["when"] == "2026-12-08T10:00:00.000Z""#,
        );
    }
}

/// Reads one response whole (by its Content-Length); its status.
fn status_of(r: &mut BufReader<TcpStream>) -> u16 {
    let mut line = String::new();
    r.read_line(&mut line).unwrap();
    let status = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    let mut length = 0;
    loop {
        line.clear();
        r.read_line(&mut line).unwrap();
        let l = line.trim_end();
        if l.is_empty() {
            break;
        }
        if let Some((n, v)) = l.split_once(':')
            && n.eq_ignore_ascii_case("content-length")
        {
            length = v.trim().parse().unwrap();
        }
    }
    std::io::copy(&mut r.by_ref().take(length), &mut std::io::sink()).unwrap();
    status
}
