//! The hostile-HTTP suite (`fixtures/http/hostile.cases`): raw requests of
//! every class (confinement, framing and smuggling, limits, injection,
//! encodings, semantics), each sent to examples/site and to nginx serving
//! the same directory in the same run. Each case records the status both
//! answer (`closed`: the connection closed without a response); where they
//! differ the case says why, on purpose. After every case the site must
//! still serve its home page.

mod web;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

struct Case {
    line: usize,
    what: String,
    raw: Vec<u8>,
    site: String,
    nginx: String,
}

fn cases() -> Vec<Case> {
    let text = std::fs::read_to_string(web::root().join("fixtures/http/hostile.cases")).unwrap();
    let mut out = Vec::new();
    let mut what = String::new();
    let mut current: Option<Case> = None;
    for (n, l) in text.lines().enumerate() {
        if let Some(c) = l.strip_prefix("## ") {
            what = c.to_string();
        } else if let Some(r) = l.strip_prefix("> ") {
            out.extend(current.take());
            current = Some(Case {
                line: n + 1,
                what: what.clone(),
                raw: test_support::unescape(r),
                site: String::new(),
                nginx: String::new(),
            });
        } else if let Some(s) = l.strip_prefix("site: ") {
            current.as_mut().expect("a request first").site = s.to_string();
        } else if let Some(s) = l.strip_prefix("nginx: ") {
            current.as_mut().expect("a request first").nginx = s.to_string();
        }
    }
    out.extend(current);
    for c in &out {
        assert!(
            !c.site.is_empty() && !c.nginx.is_empty(),
            "hostile.cases:{}: a case says what both answer",
            c.line
        );
    }
    out
}

/// The status a server answers `raw` with, or `closed`.
fn status(addr: &str, raw: &[u8]) -> String {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(15))).unwrap();
    let _ = s.write_all(raw);
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    // The status line is enough; a server may keep the connection open.
    while !got.windows(2).any(|w| w == b"\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
        }
    }
    let text = String::from_utf8_lossy(&got);
    match text.split_whitespace().nth(1) {
        Some(code) if text.starts_with("HTTP/") => code.to_string(),
        _ => "closed".to_string(),
    }
}

#[test]
fn hostile_requests_get_the_recorded_status_from_the_site_and_from_nginx() {
    if !web::have("curl", "curl") || !web::have("nginx", "nginx-light") {
        return;
    }
    let bundle = web::build("examples/site/Site.oth", "hostile_build");
    let mut run = web::start(&bundle, &[]);
    let site = run.base.trim_start_matches("http://").to_string();
    let work = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "hostile_nginx");
    let ng = web::nginx::start(&work, &web::root().join("examples/site/public"));
    let nginx = ng.base.trim_start_matches("http://").to_string();
    let cases = cases();
    assert!(cases.len() > 30, "the cases file was read");
    let mut wrong = Vec::new();
    for c in &cases {
        let (s, n) = (status(&site, &c.raw), status(&nginx, &c.raw));
        if s != c.site || n != c.nginx {
            wrong.push(format!(
                "hostile.cases:{} ({}): site {s} (want {}), nginx {n} (want {})",
                c.line, c.what, c.site, c.nginx
            ));
        }
        let home = status(
            &site,
            b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
        );
        assert_eq!(
            home, "200",
            "after hostile.cases:{} the site no longer serves /",
            c.line
        );
    }
    assert!(run.alive(), "{}", run.stderr());
    let err = run.stderr();
    assert!(!err.contains("stopped:"), "an instance stopped:\n{err}");
    assert!(
        wrong.is_empty(),
        "{} of {} cases:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
