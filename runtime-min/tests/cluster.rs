//! One image on several nodes, joined by a real `nats-server` (installed if
//! missing): examples/hello with the console and the shouter on one node
//! and the greeter on another prints exactly what a local run prints; a
//! node loading another bundle of the image is refused at join (without
//! the servers' credentials: `cluster_credentials.rs`); a hostile publisher on the image's
//! subjects (malformed messages, a request whose sender has no way there)
//! gets nothing delivered, while the nodes go on serving; a request taken
//! by a node that dies fails instead of hanging; a node whose NATS thread
//! fails ends, saying so. (The site on several nodes: `cluster_site.rs`.)

mod common;
mod nodes;

use std::io::{BufRead, Read, Write};
use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use nodes::{Nats, Raw, bson_doc, bundle_file, node, node_output, node_with};

/// The console's node with `input`, then the greeter's: what the console
/// printed, and how its node ended.
fn hello_across_two_nodes(bundle: &Path, nats: &Nats, input: &str) -> (String, i32, String) {
    hello_placed(
        bundle,
        nats,
        input,
        &["--instances", "cons,loud"],
        &["--instances", "greeter"],
    )
}

/// [`hello_across_two_nodes`], each node placed by the arguments given.
fn hello_placed(
    bundle: &Path,
    nats: &Nats,
    input: &str,
    console_at: &[&str],
    greeter_at: &[&str],
) -> (String, i32, String) {
    let (mut console, mut console_err) = node_with(bundle, nats, "", console_at);
    let (mut greeter, _greeter_err) = node_with(bundle, nats, "", greeter_at);
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
fn hello_runs_across_the_nodes_of_a_placement() {
    let Some(nats) = Nats::start() else { return };
    let bundle = bundle_file("cluster_placed", &[]);
    let placement = bundle.with_file_name("two.placement");
    std::fs::write(
        &placement,
        "# hello on two nodes\nimage Hello\nnode terminal: cons, loud\nnode greeting: greeter\n",
    )
    .unwrap();
    let p = placement.to_str().unwrap();
    let (out, status, err) = hello_placed(
        &bundle,
        &nats,
        "Ada\nGrace\n",
        &["--placement", p, "--node", "terminal"],
        &["--placement", p, "--node", "greeting"],
    );
    assert_eq!(status, 0, "{err}");
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
}

#[test]
fn a_placement_that_cannot_run_the_bundle_is_refused_before_joining() {
    let Some(nats) = Nats::start() else { return };
    let bundle = bundle_file("cluster_misplaced", &[]);
    let refused = |name: &str, text: &str, node: &str| {
        let placement = bundle.with_file_name(name);
        std::fs::write(&placement, text).unwrap();
        let out = node_output(
            &bundle,
            &nats,
            "",
            &["--placement", placement.to_str().unwrap(), "--node", node],
        );
        let err = String::from_utf8_lossy(&out.stderr).into_owned();
        assert_eq!(out.status.code(), Some(2), "{err}");
        assert!(!err.contains("joined the cluster"), "{err}");
        err
    };
    // The greeter runs nowhere: every node is refused, whichever it is.
    let err = refused(
        "nowhere.placement",
        "image Hello\nnode a: cons, loud\n",
        "a",
    );
    assert!(
        err.contains("[E0803]")
            && err.contains("instance `greeter` of image `Hello` is placed on no node"),
        "{err}"
    );
    // Two consoles, a placement for another image, a node not in it.
    let err = refused(
        "two_consoles.placement",
        "image Hello\nnode a: cons, loud\nnode b: cons, greeter\n",
        "b",
    );
    assert!(err.contains("[E0805]"), "{err}");
    let err = refused("other.placement", "image Site\nnode a: cons\n", "a");
    assert!(
        err.contains("[E0802]") && err.contains("the image here is `Hello`"),
        "{err}"
    );
    let err = refused(
        "fine.placement",
        "image Hello\nnode a: cons, loud\nnode b: greeter\n",
        "c",
    );
    assert!(
        err.contains("--node `c` is no node of the placement") && err.contains("a, b"),
        "{err}"
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
    let refused = node_output(&other, &nats, "greeter", &[]);
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(2), "{err}");
    assert!(
        err.contains("the cluster runs another bundle of image `Hello`"),
        "{err}"
    );
    // A name that is no instance, and no instances at all, are refused too.
    let bad = node_output(&one, &nats, "greter", &[]);
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

/// The node's NATS thread failing (a panic, injected: `OTHISMO_FAULT`, read
/// by debug builds only) ends the run with status 1, saying so, rather than
/// leave a node that looks alive and takes nothing from the cluster.
#[test]
fn a_node_whose_nats_thread_fails_ends_saying_so() {
    let Some(nats) = Nats::start() else { return };
    let b = bundle_file("cluster_fault", &[]);
    let mut child = Command::new(env!("CARGO_BIN_EXE_othismo-run"))
        .arg(&b)
        .args(["--cluster", &nats.url, "--instances", "greeter"])
        .env("OTHISMO_FAULT", "cluster")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (status, err) = test_support::ended_within(
        &mut child,
        Duration::from_secs(30),
        "the node whose NATS thread failed",
    );
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains(
            "error: the cluster is lost: the runtime's NATS thread failed: injected fault `cluster` (OTHISMO_FAULT)"
        ),
        "{err}"
    );
}
