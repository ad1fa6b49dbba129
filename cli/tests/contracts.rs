//! `othc test` as users run it: every fixture under `fixtures/contracts/`
//! (an object broken one way, its `# expect:` code, `# args:` if any) is
//! found with that code and no other, shrunk to the input its snapshot
//! shows, the same twice with the same seed; the examples and the SDK's
//! objects keep their contracts; JUnit XML names each finding; usage
//! mistakes exit 2. (The AssemblyScript compiler is installed on first
//! use, as by `othc build`.)

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

/// The line of `src` starting `# key:`, its rest.
fn header(src: &str, key: &str) -> Option<String> {
    src.lines()
        .find_map(|l| l.strip_prefix(&format!("# {key}:")))
        .map(|v| v.trim().to_string())
}

/// `othc test` on a copy of fixture folder `name`, seed 7, as JSON lines.
fn test_fixture(name: &str, more: &[&str]) -> (Output, Vec<serde_json::Value>, String) {
    let dir = test_support::copy_of_dir(
        &root().join("fixtures/contracts").join(name),
        env!("CARGO_TARGET_TMPDIR"),
        &format!("contracts_{name}"),
    );
    let oth = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "oth"))
        .expect("a fixture holds one .oth file");
    let src = std::fs::read_to_string(&oth).unwrap();
    let args = header(&src, "args").unwrap_or_default();
    let file = oth.to_string_lossy().into_owned();
    let mut all = vec!["test", &file, "--seed", "7", "--message-format", "json"];
    all.extend(args.split_whitespace());
    all.extend(more);
    let o = othc(&all);
    let lines = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    (o, lines, src)
}

fn fixture_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(root().join("fixtures/contracts"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

#[test]
fn each_broken_contract_is_found_with_its_code_and_a_shrunk_input() {
    // Some fixtures are written in Rust.
    if !test_support::runnable(test_support::ensure_rust_wasm32()) {
        return;
    }
    let names = fixture_names();
    assert!(names.len() >= 8, "{names:?}");
    let mut shown = String::new();
    for name in &names {
        let (o, lines, src) = test_fixture(name, &[]);
        let err = texts(&o).1;
        assert_eq!(o.status.code(), Some(1), "{name}: {err}");
        let want = header(&src, "expect").expect("a fixture says `# expect: CODE`");
        let findings: Vec<&serde_json::Value> =
            lines.iter().filter(|l| l["kind"] == "finding").collect();
        let codes: Vec<&str> = findings
            .iter()
            .map(|f| f["code"].as_str().unwrap())
            .collect();
        assert_eq!(codes, [want.as_str()], "{name}: {lines:?}");
        let f = findings[0];
        assert!(
            !f["trace"].as_array().unwrap().is_empty(),
            "{name}: a finding comes with what happened"
        );
        assert_eq!(f["seed"], 7);
        assert!(f["file"].as_str().unwrap().ends_with(".oth"), "{f}");
        // What a person acts on: the message, the entry, the place, the
        // shrunk input (the trace holds offsets in the compiled module).
        shown.push_str(&format!(
            "{name}\n  {} {}:{}:{} {}\n  entry: {}\n  requests: {}\n\n",
            f["code"].as_str().unwrap(),
            Path::new(f["file"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy(),
            f["line"],
            f["column"],
            f["message"].as_str().unwrap(),
            f["entry"],
            f["requests"]
        ));
        let summary = lines.last().unwrap();
        assert_eq!(summary["kind"], "summary", "{name}");
        assert_eq!(summary["findings"], 1, "{name}");
    }
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("contracts__findings", shown));
}

#[test]
fn the_same_seed_gives_the_same_requests_and_findings() {
    let (a, _, _) = test_fixture("E0904_traps", &["--cases", "50"]);
    let (b, _, _) = test_fixture("E0904_traps", &["--cases", "50"]);
    assert_eq!(a.stdout, b.stdout);
    assert!(!a.stdout.is_empty());
}

#[test]
fn the_examples_and_the_sdks_objects_keep_their_contracts() {
    if !test_support::runnable(test_support::ensure_rust_wasm32()) {
        return;
    }
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("contracts_examples");
    let out = out.to_string_lossy().into_owned();
    for file in [
        "examples/hello/Greeter.oth",
        "examples/hello/Shouter.oth",
        "examples/counter/Counter.oth",
        "examples/files/Librarian.oth",
        "sdk/objects/static/StaticSite.oth",
        "sdk/objects/http/HttpServer.oth",
        // Written in Rust, taking and answering JSON messages.
        "examples/notes-json/Notes.oth",
    ] {
        let o = othc(&[
            "test", file, "--seed", "11", "--cases", "300", "--out", &out,
        ]);
        let (_, err) = texts(&o);
        assert_eq!(o.status.code(), Some(0), "{file}:\n{err}");
        assert!(err.contains("every contract kept"), "{file}:\n{err}");
    }
}

#[test]
fn junit_names_each_finding_under_its_entry() {
    let xml = Path::new(env!("CARGO_TARGET_TMPDIR")).join("contracts.junit.xml");
    let (o, _, _) = test_fixture("E0903_wrong_answer", &["--junit", xml.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let x = std::fs::read_to_string(&xml).unwrap();
    assert!(x.starts_with("<?xml"), "{x}");
    assert!(
        x.contains("<testsuite name=\"Clock\" tests=\"1\" failures=\"1\">"),
        "{x}"
    );
    assert!(
        x.contains("<testcase classname=\"Clock\" name=\"read /now\">"),
        "{x}"
    );
    assert!(x.contains("<failure type=\"E0903\""), "{x}");
    assert_eq!(
        x.matches("<testcase").count(),
        x.matches("</testcase>").count()
    );
}

#[test]
fn usage_mistakes_exit_2() {
    let o = othc(&["test", "examples/hello/Greeter.oth", "--object", "Nope"]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("declares no object `Nope`") && err.contains("`Greeter`"),
        "{err}"
    );
    let o = othc(&["test", "fixtures/check/err/E0203_unknown_object.oth"]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    let o = othc(&["test", "examples/hello/Hello.oth"]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("declares no object to test") && err.contains("--image Hello"),
        "{err}"
    );
    let o = othc(&["test", "examples/hello/Hello.oth", "--image", "Nope"]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("declares no image `Nope`") && err.contains("`Hello`"),
        "{err}"
    );
    let o = othc(&["test", "examples/hello/Greeter.oth", "--writes"]);
    assert_eq!(o.status.code(), Some(2), "--writes without --image");
}

#[test]
fn an_image_keeps_its_contracts_through_its_exports() {
    // Hello exports nothing: a test would check no request, so it is a
    // usage error saying what to export (it used to pass, 0 requests
    // checked); the broken images are in fixtures/contracts.
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("contracts_images");
    let out = out.to_string_lossy().into_owned();
    let o = othc(&[
        "test",
        "examples/hello/Hello.oth",
        "--image",
        "Hello",
        "--out",
        &out,
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("image `Hello` exports nothing") && err.contains("export /PATH"),
        "{err}"
    );
    // Exports of unsafe verbs only, without --writes: nothing to send either.
    let o = othc(&[
        "test",
        "fixtures/cli/test/writes_only.oth",
        "--image",
        "Mailroom",
        "--out",
        &out,
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("add --writes"), "{err}");
    // Slots as `othc run` takes them: the default folder is not there (the
    // startup request fails, at its line), `--set` names one that is, and
    // then every contract of the exported Files is kept (a `stat` with a
    // payload used to be answered as if Files took one).
    let shelf = "fixtures/cli/test/shelf.oth";
    let o = othc(&[
        "test", shelf, "--image", "Shelf", "--seed", "3", "--out", &out,
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("startup request write /books failed: 1 not_found")
            && err.contains("this startup request failed"),
        "{err}"
    );
    // A replay names the slots as they were set.
    let missing = r#"shelf=FilesConfig { dir: "not/here" }"#;
    let o = othc(&[
        "test", shelf, "--image", "Shelf", "--seed", "3", "--set", missing, "--out", &out,
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("--image Shelf --set '{missing}' --seed 3")),
        "{err}"
    );
    let set = r#"shelf=FilesConfig { dir: "fixtures/cli/test", readonly: true }"#;
    let o = othc(&[
        "test", shelf, "--image", "Shelf", "--seed", "3", "--set", set, "--out", &out,
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("every contract kept"), "{err}");
    // Safe verbs only unless --writes: the tally's `write` is left out, so
    // nothing is found.
    let o = othc(&[
        "test",
        "fixtures/contracts/image_E0904_stops/Counting.oth",
        "--image",
        "Counting",
        "--seed",
        "7",
        "--out",
        &out,
    ]);
    let (_, err) = texts(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(err.contains("1 exported entry of safe verbs"), "{err}");
}
