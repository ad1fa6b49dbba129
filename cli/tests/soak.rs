//! examples/site under sustained traffic: a few hundred thousand requests
//! through HttpServer, StaticSite and Files (a forwarding chain for every
//! file, streamed listings, 404s), and clients that leave mid-request (each
//! one a cancel down the chain), with the runtime's report (SIGUSR1) read
//! before and after, with two workers. Nothing may grow with the requests
//! served: not an instance's memory, not a table of the host, not the
//! process. The site
//! used to keep every request StaticSite finished after its serve call
//! returned, and stopped at its memory limit after ~150,000 requests.
//!
//! `SOAK_REQUESTS` sets how many (default 300,000); the bench (`cargo
//! bench -p othc-cli --bench site -- --soak SECONDS`) runs the same for
//! minutes and prints the process's memory over time.

mod web;

use web::load;
use web::report::{number, report};

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// The site's kinds of page, taken in turn: files (each a stat, then a
/// forward to the files), the index, a streamed listing, a 404, a listing
/// as JSON lines.
const PATHS: [&str; 7] = [
    "/style.css",
    "/",
    "/notes/",
    "/missing",
    "/notes?list",
    "/logo.png",
    "/notes/first.txt",
];

/// Clients that send a request and leave: at once, or after the first
/// bytes of a streamed listing.
fn leave_mid_request(addr: &str, count: usize) {
    for n in 0..count {
        let Ok(mut s) = TcpStream::connect(addr) else {
            continue;
        };
        let path = if n % 2 == 0 { "/notes/" } else { "/style.css" };
        let _ = write!(s, "GET {path} HTTP/1.1\r\nHost: soak\r\n\r\n");
        if n % 3 == 0 {
            let _ = s.set_read_timeout(Some(Duration::from_secs(5)));
            let _ = s.read(&mut [0u8; 16]);
        }
    }
}

#[test]
fn the_site_holds_nothing_per_request() {
    if !web::have("curl", "curl") {
        return;
    }
    let requests: u64 = std::env::var("SOAK_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300_000);
    let bundle = web::build("examples/site/Site.oth", "soak_build");
    // Two workers, whatever the machine, and every call a worker is free
    // for handed to one (the site's calls are short, and by default stay
    // on the loop's thread): the calls handed to a worker and back, the
    // mailboxes and their purges are what grows if anything does.
    let mut run = web::start(&bundle, &["--workers", "2", "--long-call", "0"]);
    let base = run.base.clone();
    let addr = base.trim_start_matches("http://").to_string();
    let pid = run.child.id();

    // Warm-up: the modules' heaps and the host's buffers reach their size.
    load::drive(&addr, &PATHS, 8, 20_000);
    leave_mid_request(&addr, 200);
    std::thread::sleep(Duration::from_millis(500));
    let before = report(&mut run);
    let rss_before = test_support::resident_kib_of(pid);

    let leaving = {
        let addr = addr.clone();
        std::thread::spawn(move || leave_mid_request(&addr, 2_000))
    };
    let at8 = load::drive(&addr, &PATHS, 8, requests);
    leaving.join().unwrap();
    let at64 = load::drive(&addr, &PATHS, 64, requests / 10);
    std::thread::sleep(Duration::from_millis(500));
    let after = report(&mut run);
    let rss_after = test_support::resident_kib_of(pid);
    eprintln!(
        "8 connections: {at8:?} ({:.0}/s)\n64 connections: {at64:?} ({:.0}/s)\n\
         RSS {rss_before} KiB -> {rss_after} KiB\nbefore: {before:?}\nafter: {after:?}",
        at8.per_second(),
        at64.per_second()
    );
    for (tally, count) in [(&at8, requests), (&at64, requests / 10)] {
        // Request n asks for PATHS[n % 7]: the missing page (n % 7 == 3)
        // is the only 404; every other page is served.
        assert_eq!(tally.total(), count);
        assert_eq!((tally.failed, tally.broken), (0, 0), "{tally:?}");
        assert_eq!(tally.refused, (count + 3) / 7, "{tally:?}");
    }
    let served = number(&after, "host", "taken") - number(&before, "host", "taken");
    assert!(
        served > requests * 3,
        "{served} deliveries for {requests} requests"
    );
    // And the hand-overs this soaks did happen.
    let handed = number(&after, "host", "on_workers") - number(&before, "host", "on_workers");
    assert!(handed > requests / 10, "{handed} calls made on workers");

    for (name, words) in &after {
        if name == "host" {
            continue;
        }
        assert_eq!(
            words["stopped"],
            "false",
            "{name} stopped: {}",
            run.stderr()
        );
        // A module's memory is a high-water mark: after warm-up it stays.
        let grew = number(&after, name, "memory") - number(&before, name, "memory");
        assert!(grew <= 1 << 20, "{name}'s memory grew by {grew} bytes");
        assert_eq!(words["busy"], "false", "{name} is still out on a worker");
        for table in ["serving", "cancelled", "dropped", "queued", "mailbox"] {
            assert_eq!(
                number(&after, name, table),
                0,
                "{name} still holds {table} with nothing in flight"
            );
        }
    }
    for table in ["exchanges", "waiting"] {
        assert_eq!(number(&after, "web", table), 0, "web's {table}");
    }
    assert_eq!(number(&after, "web", "watchers"), 1);
    assert_eq!(number(&after, "host", "queue"), 0);
    assert_eq!(number(&after, "host", "forget"), 0);
    // The process: within a margin of allocator noise (the leak this
    // catches grew it by 40 MB per 150,000 requests).
    assert!(
        rss_after <= rss_before + 16 * 1024,
        "RSS grew from {rss_before} to {rss_after} KiB"
    );
    // And it still serves.
    let got = web::curl(&[], &format!("{base}/style.css"));
    assert_eq!(got.status, 200);
    let err = run.stderr();
    assert!(!err.contains("stopped:"), "an instance stopped:\n{err}");
    let (status, err) = run.interrupt();
    assert_eq!(status, 0, "{err}");
}
