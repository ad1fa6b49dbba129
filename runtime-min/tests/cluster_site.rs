//! examples/site on several nodes joined by real `nats-server`s: every
//! file served byte for byte by a front node (Http, HttpServer, Files) and
//! two StaticSite replicas, placed by examples/site/Site.placement; a replica killed under load, and two of three
//! NATS servers killed in turn, without a request hanging.

mod common;
mod nodes;

use std::process::Command;
use std::time::{Duration, Instant};

use nodes::{Nats, free_port, get, get_with_exit, node_saying};

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
    let bundle = common::site_bundle("cluster_site", &public);
    // Placed as the example's placement says, `pages` started twice (two
    // replicas of StaticSite); the replicas first, so the site is there
    // when the listener opens.
    let placement = common::root().join("examples/site/Site.placement");
    let placed = |node: &'static str| {
        [
            "--placement".to_string(),
            placement.display().to_string(),
            "--node".to_string(),
            node.to_string(),
        ]
    };
    let (pages, front_at) = (placed("pages"), placed("front"));
    let pages: Vec<&str> = pages.iter().map(String::as_str).collect();
    let front_at: Vec<&str> = front_at.iter().map(String::as_str).collect();
    let (mut replica_a, _, _) = node_saying(&bundle, &nats, &pages, "");
    let (mut replica_b, _, _) = node_saying(&bundle, &nats, &pages, "");
    let (mut front, listening, _) = node_saying(&bundle, &nats, &front_at, "listening on ");
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
    let bundle = common::site_bundle("cluster_failover", &public);
    let (mut replica, _, _) = node_saying(&bundle, &all, &["--instances", "site"], "");
    let (mut front, listening, front_log) = node_saying(
        &bundle,
        &first,
        &["--instances", "web,server,public"],
        "listening on ",
    );
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
