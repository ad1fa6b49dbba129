//! A relay across nodes goes at its reader's pace: examples/site with
//! StaticSite and the files on one node, the listener and HttpServer on
//! another. StaticSite makes a directory's page from its listing, an
//! answer (a line of the page) for each entry it takes: a relay, whose
//! next entry is read only once its answers are taken by the instance they
//! go to. Here that instance is on the other node, which says when it has
//! taken them. A client that reads none of a big page holds the front
//! node's memory near where it was (relayed without that word, the whole
//! page crossed to the front node at once and waited there); read at last,
//! the page is whole.
//!
//! Found by reading the pace's code: relays were paced within a node only.

mod common;
mod nodes;

use std::io::Read;
use std::process::Command;
use std::time::{Duration, Instant};

use nodes::Nats;

/// Entries in the directory listed, and each name's tail: a page of some
/// 25 MB, far more than the sockets between the site and its client hold.
const ENTRIES: usize = 50_000;
const LONG: &str = "and-then-a-long-name-for-each-entry-so-that-the-page-listing-them-is-bigger-than-any-socket-buffer-between-the-site-and-a-client-who-reads-none-of-it-for-a-while";

#[test]
fn a_page_relayed_across_nodes_goes_at_its_readers_pace() {
    let Some(nats) = Nats::start() else { return };
    let public = common::scratch("cluster_relayed_public");
    let many = public.join("many");
    std::fs::create_dir_all(&many).unwrap();
    for i in 0..ENTRIES {
        std::fs::File::create(many.join(format!("entry-{i:06}-{LONG}.txt"))).unwrap();
    }
    std::fs::write(public.join("index.html"), "<p>home</p>\n").unwrap();
    let bundle = common::site_bundle("cluster_relayed", &public);
    let (mut back, mut front, base) = nodes::site_apart(
        &bundle,
        &nats,
        "image Site\nnode front: web, server\nnode back: site, public\n",
        ("back", "front"),
    );
    let addr = base.trim_start_matches("http://").to_string();
    let (code, _) = nodes::get(&format!("{base}/"));
    assert_eq!(code, 200);

    // A client that reads nothing of the page, for 10 s. (Relayed
    // unpaced, the front node had grown by 41 MB at 9 s in a debug build,
    // once the sockets between were full.)
    let front_before = test_support::resident_kib_of(front.id());
    let (mut slow, mut page) = test_support::get_begun(&addr, "/many/", "<ul>");
    let began = Instant::now();
    let mut front_most = 0;
    while began.elapsed() < Duration::from_secs(10) {
        front_most = front_most.max(test_support::resident_kib_of(front.id()));
        std::thread::sleep(Duration::from_millis(20));
    }
    let grew = front_most.saturating_sub(front_before);
    eprintln!("a client reading nothing: front node {front_before} -> at most {front_most} KiB");
    assert!(
        grew < 8 * 1024,
        "the front node grew by {grew} KiB while its client read none of the page: the page was relayed to it at once"
    );

    // Read at last: the whole page, every entry once.
    slow.read_to_end(&mut page).unwrap();
    let page = String::from_utf8_lossy(&page);
    assert!(
        page.ends_with("</html>\n\r\n0\r\n\r\n"),
        "{}",
        &page[page.len().saturating_sub(200)..]
    );
    assert_eq!(page.matches("<li>").count(), ENTRIES);

    for c in [&mut front, &mut back] {
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        assert_eq!(c.wait().unwrap().code(), Some(0));
    }
}
