//! A directory of many entries and no index, listed by examples/site: the
//! listing comes whole and takes a few places in the runtime's queue
//! whatever its size, the site serves others while it is made, it is made
//! at its client's pace, and a client that leaves stops the work done for
//! it.
//!
//! Found by listing a directory of 300,000 entries: `Files` answered every
//! entry at once, which filled the queue (`--max-queue`) and stopped
//! StaticSite (the client got half a page, as a whole 200); the loop took
//! nothing from outside until its queue emptied, so every other client,
//! and the report asked for by SIGUSR1, waited 11 s for the listing; and a
//! client that left had its listing made to the end for nobody, and one
//! reading slowly had the rest of the page wait in the host. Here with
//! fewer entries and a smaller queue, to the same effect.

mod web;

use std::io::Read;
use std::process::Command;
use std::time::Duration;

use web::report::{number, report, report_until};

/// Entries in the directory listed.
const ENTRIES: usize = 30_000;
/// The queue's limit for the run: a third of the entries.
const QUEUE: &str = "10000";
/// Each name's tail: long names make a page of some 13 MB, more than the
/// sockets between the site and its client hold.
const LONG: &str = "and-then-a-long-name-for-each-entry-so-that-the-page-listing-them-is-bigger-than-any-socket-buffer-of-the-connection-that-carries-it-to-a-client-who-does-not-read-it-at-all-for-a-while";

#[test]
fn a_huge_listing_comes_whole_while_the_site_serves_others() {
    if !web::have("curl", "curl") {
        return;
    }
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "big_listing");
    let public = dir.join("public");
    let many = public.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..ENTRIES {
        std::fs::File::create(many.join(format!("entry-{i:06}-{LONG}.txt"))).unwrap();
    }
    std::fs::write(public.join("index.html"), "<p>home</p>\n").unwrap();
    let bundle = web::build_site_serving(&public, "big_listing_build", "--debug");
    let mut run = web::start(&bundle, &["--max-queue", QUEUE]);
    let base = run.base.clone();
    let addr = base.trim_start_matches("http://").to_string();

    // A client reading a listing slowly (not at all, for now): the home
    // page is served while the listing is still being made, and so is the
    // report.
    let mut slow = test_support::get_begun(&addr, "/many/", "<ul>").0;
    let home = web::curl(&[], &format!("{base}/"));
    assert_eq!(home.status, 200);
    let during = report(&mut run);
    assert_eq!(
        number(&during, "site", "paced"),
        1,
        "the listing was over before anyone else was served: {:?}",
        during["site"]
    );
    // While it reads nothing, the listing waits for it: the files are
    // not read ahead of the client, through StaticSite's relaying, once
    // the sockets between are full (made whole, the page would wait in
    // the host: 13 MB for this client).
    let mut was = number(&report(&mut run), "host", "taken");
    for _ in 0..600 {
        std::thread::sleep(Duration::from_millis(200));
        let now = number(&report(&mut run), "host", "taken");
        if now == was {
            break;
        }
        was = now;
    }
    let stalled = report(&mut run);
    assert_eq!(
        number(&stalled, "site", "paced"),
        1,
        "the listing was made whole for a client reading none of it: {:?}",
        stalled["site"]
    );
    // Then read whole: every entry, and the chunked body's end.
    let mut rest = Vec::new();
    slow.read_to_end(&mut rest).unwrap();
    let rest = String::from_utf8_lossy(&rest);
    assert!(
        rest.ends_with("</html>\n\r\n0\r\n\r\n"),
        "{}",
        &rest[rest.len().saturating_sub(200)..]
    );

    // A listing read at once, by curl: whole, and what it costs the loop.
    let before = number(&report(&mut run), "host", "taken");
    let out = dir.join("listing.html");
    let o = Command::new("curl")
        .args(["-s", "--max-time", "120", "-o"])
        .arg(&out)
        .arg(format!("{base}/many/"))
        .status()
        .unwrap();
    assert_eq!(o.code(), Some(0), "curl took the listing whole");
    let one_listing = number(&report(&mut run), "host", "taken") - before;
    let page = std::fs::read_to_string(&out).unwrap();
    assert_eq!(page.matches("<li>").count(), ENTRIES);
    assert!(page.ends_with("</ul>\n</body></html>\n"));

    // Clients that leave once the listing has begun: what is made for
    // them stops, far short of a listing each.
    let before = number(&report(&mut run), "host", "taken");
    for _ in 0..3 {
        drop(test_support::get_begun(&addr, "/many/", "<ul>").0);
    }
    let after = report_until(
        &mut run,
        ("site", "paced", 0),
        600,
        Duration::from_millis(100),
    );
    assert_eq!(number(&after, "site", "paced"), 0, "{:?}", after["site"]);
    let spent = number(&after, "host", "taken") - before;
    // (Made to the end, each costs its entries once more, as StaticSite
    // is handed each: three quarters of a whole listing in all.)
    assert!(
        spent < one_listing / 10,
        "three clients that left cost {spent} deliveries; one whole listing costs {one_listing}"
    );

    let err = run.stderr();
    assert!(
        !err.contains("error:") && !err.contains("restarted"),
        "no instance stopped:\n{err}"
    );
    assert_eq!(web::curl(&[], &format!("{base}/")).status, 200);
    assert!(run.alive(), "{err}");
}
