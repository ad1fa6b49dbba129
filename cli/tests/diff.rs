//! `othc diff` as users run it: the hello example's Greeter changed in ways
//! that break the wire, callers and wiring, checked against the Hello image
//! (the real checker, with the new Greeter read in the old one's place);
//! a compatible change; JSON; and two built modules compared.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn othc_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_othc"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("othc runs")
}

/// A copy of the hello example with `Greeter2.oth`, the Greeter with
/// `edits` (old text, new text) made.
fn hello_with_new_greeter(name: &str, edits: &[(&str, &str)]) -> PathBuf {
    let dir = test_support::copy_of_dir(
        &root().join("examples/hello"),
        env!("CARGO_TARGET_TMPDIR"),
        name,
    );
    let mut text = std::fs::read_to_string(dir.join("Greeter.oth")).unwrap();
    for (a, b) in edits {
        assert!(text.contains(a), "the Greeter has `{a}`");
        text = text.replace(a, b);
    }
    std::fs::write(dir.join("Greeter2.oth"), text).unwrap();
    dir
}

#[test]
fn a_breaking_greeter_names_the_image_and_its_errors() {
    let dir = hello_with_new_greeter(
        "diff_breaking",
        &[
            (
                "    excited: bool\n",
                "    excited: bool\n    volume: i32\n",
            ),
            (
                "  needs /shouter {",
                "  needs /clock {\n    /now  read -> text/plain\n  }\n  needs /shouter {",
            ),
            (
                "/greeting  write Greeting",
                "/greeting  operator write Greeting",
            ),
        ],
    );
    let o = othc_in(
        &dir,
        &[
            "diff",
            "Greeter.oth",
            "Greeter2.oth",
            "--images",
            "Hello.oth",
        ],
    );
    let (out, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(1), "{out}{err}");
    for want in [
        "object Greeter: 3 change(s)",
        "breaks the wire  Greeting.volume: required field added",
        "breaks callers   serve /greeting write: now `operator`",
        "breaks wiring    need /clock/now read: added",
        "image Hello.oth: BREAKS",
        "[E0602]",
        "[E0502]",
        "`greeter` needs `/clock`, but nothing is mounted there",
        "11 │   instance greeter = Greeter {",
    ] {
        assert!(out.contains(want), "missing `{want}` in:\n{out}");
    }
    // Without images, the classification alone decides the status.
    let o = othc_in(&dir, &["diff", "Greeter.oth", "Greeter2.oth"]);
    assert_eq!(o.status.code(), Some(1));

    let o = othc_in(
        &dir,
        &[
            "diff",
            "Greeter.oth",
            "Greeter2.oth",
            "--images",
            "Hello.oth",
            "--message-format",
            "json",
        ],
    );
    let (out, _) = test_support::texts(&o);
    let v: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON document");
    assert_eq!(v["breaks"], true);
    assert_eq!(v["changes"].as_array().unwrap().len(), 3);
    assert_eq!(v["changes"][0]["class"], "breaks_wire");
    let codes: Vec<&str> = v["images"][0]["diagnostics"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|d| d["code"].as_str())
        .collect();
    assert_eq!(codes, ["E0602", "E0502"], "{out}");
}

#[test]
fn a_compatible_greeter_breaks_nothing() {
    let dir = hello_with_new_greeter(
        "diff_compatible",
        &[(
            "    excited: bool\n",
            "    excited: bool\n    ## How loud.\n    volume?: i32\n",
        )],
    );
    let o = othc_in(
        &dir,
        &[
            "diff",
            "Greeter.oth",
            "Greeter2.oth",
            "--images",
            "Hello.oth",
        ],
    );
    let (out, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("compatible  Greeting.volume: optional field added"),
        "{out}"
    );
    assert!(out.contains("image Hello.oth: still checks"), "{out}");
}

#[test]
fn two_built_modules_compare_by_their_headers() {
    let dir = hello_with_new_greeter("diff_modules", &[]);
    let o = othc_in(&dir, &["build", "--debug", "Hello.oth"]);
    assert_eq!(o.status.code(), Some(0), "{}", test_support::texts(&o).1);
    std::fs::copy(dir.join("build/Greeter.wasm"), dir.join("Old.wasm")).unwrap();
    let text = std::fs::read_to_string(dir.join("Greeter.oth")).unwrap();
    std::fs::write(
        dir.join("Greeter.oth"),
        text.replace(
            "    excited: bool\n",
            "    excited: bool\n    volume?: i32\n",
        ),
    )
    .unwrap();
    let o = othc_in(&dir, &["build", "--debug", "Hello.oth"]);
    assert_eq!(o.status.code(), Some(0), "{}", test_support::texts(&o).1);
    let o = othc_in(&dir, &["diff", "Old.wasm", "build/Greeter.wasm"]);
    let (out, err) = test_support::texts(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert!(
        out.contains("Greeting.volume: optional field added"),
        "{out}"
    );
}

#[test]
fn mistakes_get_a_usage_answer() {
    let dir = hello_with_new_greeter("diff_mistakes", &[]);
    let o = othc_in(&dir, &["diff", "Greeter.oth", "Missing.oth"]);
    assert_eq!(o.status.code(), Some(2));
    let o = othc_in(&dir, &["diff", "Hello.oth", "Greeter.oth"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        test_support::texts(&o)
            .1
            .contains("`Hello.oth` declares no object"),
        "{}",
        test_support::texts(&o).1
    );
}
