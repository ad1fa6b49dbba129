//! A big file read across nodes goes at its reader's pace: examples/site
//! with the files on one node and the listener, HttpServer and StaticSite
//! on another, so each part of a download crosses NATS. A client reading
//! slowly holds both nodes' memory near where it was (without the pace,
//! the files' node sends the whole file at once and the other holds it);
//! files read at full speed, several at a time, arrive whole; a client
//! that leaves mid-download stops the reading, and the site goes on.

mod common;
mod nodes;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use nodes::{Nats, get};

#[test]
fn a_file_read_across_nodes_goes_at_its_readers_pace() {
    let Some(nats) = Nats::start() else { return };
    if !test_support::runnable(test_support::ensure_debian_tool("curl", "curl")) {
        return;
    }
    let public = common::scratch("cluster_paced_public");
    // Sparse: 1 GiB that costs no disk.
    let huge = std::fs::File::create(public.join("huge.bin")).unwrap();
    huge.set_len(1 << 30).unwrap();
    let big: Vec<u8> = (0..12_000_000u32).map(|i| (i * 13 % 251) as u8).collect();
    std::fs::write(public.join("big.bin"), &big).unwrap();
    let bundle = common::site_bundle("cluster_paced", &public);
    let (mut disk, mut front, base) = nodes::site_apart(
        &bundle,
        &nats,
        "image Site\nnode front: web, server, site\nnode disk: public\n",
        ("disk", "front"),
    );

    // Whole files, four at a time, every byte.
    let fetches: Vec<_> = (0..4)
        .map(|_| {
            let url = format!("{base}/big.bin");
            std::thread::spawn(move || get(&url))
        })
        .collect();
    for f in fetches {
        let (code, body) = f.join().unwrap();
        assert_eq!(code, 200);
        assert!(
            body == big,
            "big.bin came back changed ({} bytes)",
            body.len()
        );
    }

    // A slow reader of the 1 GiB file: 4 s at 2 MiB/s. Both nodes stay
    // near their memory before it (the file would be 1 GiB in flight).
    let (disk_before, front_before) = (
        test_support::resident_kib_of(disk.id()),
        test_support::resident_kib_of(front.id()),
    );
    let mut slow = Command::new("curl")
        .args(["-s", "-o", "/dev/null", "--limit-rate", "2M"])
        .arg(format!("{base}/huge.bin"))
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let began = Instant::now();
    let (mut disk_most, mut front_most) = (0, 0);
    while began.elapsed() < Duration::from_secs(4) {
        disk_most = disk_most.max(test_support::resident_kib_of(disk.id()));
        front_most = front_most.max(test_support::resident_kib_of(front.id()));
        std::thread::sleep(Duration::from_millis(20));
    }
    eprintln!(
        "slow reader: disk node {disk_before} -> at most {disk_most} KiB, front node {front_before} -> at most {front_most} KiB"
    );
    let grew = |before: u64, most: u64| most.saturating_sub(before);
    assert!(
        grew(disk_before, disk_most) < 64 * 1024,
        "the files' node grew by {} KiB under a slow reader",
        grew(disk_before, disk_most)
    );
    assert!(
        grew(front_before, front_most) < 64 * 1024,
        "the front node grew by {} KiB under a slow reader",
        grew(front_before, front_most)
    );
    // The reader leaves mid-download: the site serves on.
    let _ = slow.kill();
    let _ = slow.wait();
    std::thread::sleep(Duration::from_millis(300));
    let (code, body) = get(&format!("{base}/big.bin"));
    assert_eq!(code, 200);
    assert!(body == big, "big.bin changed after a reader left");
    // The files' node stopped reading for it: no part is sent meanwhile.
    let idle = test_support::resident_kib_of(disk.id());
    std::thread::sleep(Duration::from_millis(500));
    assert!(test_support::resident_kib_of(disk.id()) < idle + 16 * 1024);

    for c in [&mut front, &mut disk] {
        let _ = Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status();
        let mut err = String::new();
        if let Some(e) = c.stderr.as_mut() {
            let _ = e.read_to_string(&mut err);
        }
        assert_eq!(c.wait().unwrap().code(), Some(0), "{err}");
    }
}
