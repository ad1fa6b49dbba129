//! A client that asks for a big file and then reads nothing is cut off
//! once it has taken nothing for `timeoutMs` (as nginx's `send_timeout`),
//! and what was held for it goes: its exchange, the stream of the file.
//! Before, it held them for as long as it stayed connected, and 1,024 such
//! clients (the most connections a listener keeps) left the site serving
//! nobody: a slow-read attack.

mod web;

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use web::report::{number, report_until};

const MIB: u64 = 1024 * 1024;

#[test]
fn a_client_that_reads_nothing_is_cut_off_and_lets_go() {
    if !web::have("curl", "curl") {
        return;
    }
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "slow_reader");
    let public = dir.join("public");
    std::fs::create_dir_all(&public).unwrap();
    // More than the sockets between hold; no room taken on disk.
    std::fs::File::create(public.join("big.bin"))
        .unwrap()
        .set_len(64 * MIB)
        .unwrap();
    std::fs::write(public.join("index.html"), "<p>home</p>\n").unwrap();
    let listen = r#"listen=HttpConfig { listen: "127.0.0.1:0", timeoutMs: 2000 }"#;
    let bundle = web::build_site_serving_with(&public, "slow_reader_build", "--debug", &[listen]);
    let mut run = web::start(&bundle, &[]);
    let addr = run.base.trim_start_matches("http://").to_string();

    let mut idle = TcpStream::connect(&addr).unwrap();
    idle.write_all(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // The exchange is held while the response goes out, then let go once
    // the client has taken nothing for 2 s, though it is still connected.
    // (First seen held: a report asked for at once can come before the
    // request has reached the image, and say 0 for that reason.)
    let during = report_until(
        &mut run,
        ("web", "exchanges", 1),
        100,
        Duration::from_millis(10),
    );
    assert_eq!(
        number(&during, "web", "exchanges"),
        1,
        "the request never reached the image: {:?}",
        during["web"]
    );
    let after = report_until(
        &mut run,
        ("web", "exchanges", 0),
        100,
        Duration::from_millis(200),
    );
    assert_eq!(
        number(&after, "web", "exchanges"),
        0,
        "still held for a client that reads nothing: {:?}",
        after["web"]
    );
    assert_eq!(
        number(&after, "server", "paced"),
        0,
        "{:?}",
        after["server"]
    );
    // What it gets when it reads at last: a part, then the end, short of
    // the whole.
    idle.set_read_timeout(Some(Duration::from_secs(30)))
        .unwrap();
    let mut got = 0u64;
    let mut buf = vec![0u8; 1 << 16];
    let ended = loop {
        match idle.read(&mut buf) {
            Ok(0) => break "the connection's end".to_string(),
            Err(e) => break format!("{e}"),
            Ok(n) => got += n as u64,
        }
    };
    assert!(
        got > 0 && got < 64 * MIB,
        "{got} bytes, then {ended}; {}",
        run.stderr()
    );

    // A client that reads, if slowly, is not cut off.
    let whole = web::curl(&["--limit-rate", "16M"], &format!("{}/big.bin", run.base));
    assert_eq!(whole.status, 200);
    assert_eq!(whole.body.len() as u64, 64 * MIB);
    assert!(run.alive(), "{}", run.stderr());
}
