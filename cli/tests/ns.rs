//! `othc ns` as users run it: the hello example's views, one instance,
//! JSON, DOT and SVG (drawn by Graphviz, installed by the set-up if
//! missing), a built bundle, and the usage mistakes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn othc(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(args)
        .current_dir(root())
        .output()
        .expect("othc runs")
}

fn texts(o: &Output) -> (String, String) {
    test_support::texts(o)
}

#[test]
fn hello_shows_each_view_in_resolution_order_with_its_lines() {
    let o = othc(&["ns", "examples/hello/Hello.oth"]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.is_empty(), "stderr is for diagnostics: {err}");
    for want in [
        "image Hello (examples/hello/Hello.oth:6)",
        "instance greeter = Greeter  (Hello.oth:11)",
        "/dev/cons  mount /dev/cons /cons (Hello.oth:12)  cons (Console)  no         /dev/cons watch -> text/plain*; /dev/cons write text/plain",
        "/shouter   mount /shouter /loud (Hello.oth:13)   loud (Shouter)  no         /shouter write text/plain",
        "/greeter/greeting write Greeting",
        "answered by /greeter/greeting write Greeting",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }

    let o = othc(&["ns", "examples/hello/Hello.oth", "--instance", "loud"]);
    let (out, _) = texts(&o);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.contains("instance loud = Shouter"), "{out}");
    assert!(!out.contains("instance greeter"), "{out}");
}

#[test]
fn json_is_one_document_of_the_report() {
    let o = othc(&["ns", "examples/files/Shelf.oth", "--message-format", "json"]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON document");
    assert_eq!(v["image"], "Shelf");
    let librarian = v["instances"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["name"] == "librarian")
        .expect("the librarian");
    let books = librarian["view"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["at"] == "/books")
        .expect("its /books line");
    assert_eq!(books["reaches"]["target"], "books");
    assert_eq!(books["kind"], "mount");
    let by = books["readonly_by"][0].as_str().unwrap();
    assert!(by.starts_with("mount /books /books readonly ("), "{by}");
}

#[test]
fn dot_and_svg_draw_the_wiring() {
    let o = othc(&["ns", "examples/hello/Hello.oth", "--format", "dot"]);
    let (dot, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(dot.starts_with("digraph \"Hello\" {"), "{dot}");
    assert!(
        dot.contains("\"greeter\" -> \"loud\" [label=\"/shouter ← /loud\"];"),
        "{dot}"
    );
    if let Err(why) = test_support::ensure_debian_tool("dot", "graphviz") {
        assert!(!test_support::under_ci(), "under CI=true: {why}");
        eprintln!("skipped the SVG half: {why}");
        return;
    }
    let o = othc(&["ns", "examples/hello/Hello.oth", "--format", "svg"]);
    let (svg, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(svg.contains("<svg"), "{svg}");
    // Graphviz writes each node's label as text of the picture.
    for label in ["greeter", "Greeter", "Console (native)", "/shouter ← /loud"] {
        assert!(svg.contains(label), "no `{label}` in the SVG");
    }
}

#[test]
fn a_built_bundle_shows_its_flattened_links() {
    let dir = test_support::copy_of_dir(
        &root().join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        "ns_bundle",
    );
    let hello = dir.join("Hello.oth").to_string_lossy().into_owned();
    let o = othc(&["build", "--debug", &hello]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    let bundle = dir
        .join("build/Hello.othimg")
        .to_string_lossy()
        .into_owned();
    let o = othc(&["ns", &bundle]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for want in [
        "image Hello",
        "instance greeter = Greeter",
        "/shouter   /shouter -> /loud",
        "/greeter/greeting write Greeting",
        "write /greeter/greeting",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }
    // The bundle placed: what each node runs, and a placement that leaves
    // an instance out is refused as the runtime would refuse it.
    let good = dir.join("good.placement");
    std::fs::write(&good, "image Hello\nnode t: cons, loud\nnode g: greeter\n").unwrap();
    let o = othc(&["ns", &bundle, "--placement", good.to_str().unwrap()]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        out.contains("instance greeter = Greeter\n  runs on: g\n"),
        "{out}"
    );
    let bad = dir.join("bad.placement");
    std::fs::write(&bad, "image Hello\nnode t: cons, loud\n").unwrap();
    let o = othc(&["ns", &bundle, "--placement", bad.to_str().unwrap()]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("[E0803]"), "{err}");
    assert!(out.contains("runs on: no node"), "{out}");
}

#[test]
fn a_placement_is_checked_with_the_image_and_shown_per_instance() {
    let site = "examples/site/Site.oth";
    let placement = "examples/site/Site.placement";
    let o = othc(&["check", site, "--placement", placement]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    let o = othc(&[
        "ns",
        site,
        "--placement",
        placement,
        "--message-format",
        "json",
    ]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let w: serde_json::Value = serde_json::from_str(&out).unwrap();
    let nodes: Vec<(String, String)> = w["instances"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| (i["name"].to_string(), i["nodes"].to_string()))
        .collect();
    assert_eq!(
        nodes,
        [
            ("\"web\"".into(), "[\"front\"]".into()),
            ("\"public\"".into(), "[\"front\"]".into()),
            ("\"site\"".into(), "[\"pages\"]".into()),
            ("\"server\"".into(), "[\"front\"]".into()),
        ]
    );
    // A placement with an error fails the check (1), the diagnostic
    // pointing into the placement file; one that cannot be read is a
    // usage error (2).
    let o = othc(&[
        "check",
        "fixtures/check/err/E0805_console_and_listener_twice.oth",
        "--placement",
        "fixtures/check/placement/one_node.placement",
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("one_node.placement:4:13"), "{err}");
    let o = othc(&["check", site, "--placement", "no/such.placement"]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("cannot read the placement `no/such.placement`"),
        "{err}"
    );
}

#[test]
fn mistakes_get_a_usage_answer() {
    let o = othc(&["ns", "examples/hello/Hello.oth", "--instance", "nope"]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        err.contains("image `Hello` has no instance `nope`; its instances: cons, loud, greeter"),
        "{err}"
    );
    let o = othc(&["ns", "examples/hello/Greeter.oth"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("declares no image"), "{}", texts(&o).1);
    let o = othc(&["ns", "fixtures/ns/nested_image.oth"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o)
            .1
            .contains("declares several images (Loud, Outer): pick one with --image"),
        "{}",
        texts(&o).1
    );
    let o = othc(&["ns", "fixtures/ns/nested_image.oth", "--image", "Outer"]);
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    assert!(texts(&o).0.contains("| inside, image Loud:"));
}

#[test]
fn an_image_with_errors_is_shown_as_far_as_it_resolved_and_exits_1() {
    let o = othc(&["ns", "fixtures/ns/broken_mount.oth"]);
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(err.contains("[E0501]"), "{err}");
    assert!(out.contains("nowhere (see its error)"), "{out}");
    assert!(
        out.contains("needs, not met: /dev/cons write text/plain"),
        "{out}"
    );
}

#[test]
fn the_books_pictures_are_what_othc_ns_draws_today() {
    for (example, name) in [("hello/Hello.oth", "hello"), ("files/Shelf.oth", "shelf")] {
        let o = othc(&["ns", &format!("examples/{example}"), "--format", "dot"]);
        assert_eq!(o.status.code(), Some(0));
        let book = root().join(format!("book/src/reference/pictures/{name}.dot"));
        let kept = std::fs::read_to_string(&book).unwrap_or_default();
        assert_eq!(
            kept,
            texts(&o).0,
            "{} is stale: write `othc ns examples/{example} --format dot` there and draw it again with `dot -Tsvg`",
            book.display()
        );
    }
}

#[test]
fn svg_without_graphviz_says_how_to_get_it() {
    // A PATH with no `dot` on it.
    let empty = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "ns_no_graphviz");
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(["ns", "examples/hello/Hello.oth", "--format", "svg"])
        .current_dir(root())
        .env("PATH", &empty)
        .output()
        .expect("othc runs");
    let (out, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(out.is_empty(), "{out}");
    assert!(
        err.contains("Graphviz's `dot` is not installed")
            && err.contains("apt-get install graphviz"),
        "{err}"
    );
}
