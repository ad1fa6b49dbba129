//! The `othc` binary as users run it: exit statuses, output streams, formats.

mod othc_process;

use std::path::{Path, PathBuf};
use std::process::Command;

use othc_process::{othc, root, says, stderr, stdout};

#[test]
fn clean_files_exit_0_silently() {
    let o = othc(&[
        "check",
        "fixtures/check/ok/nested_images.oth",
        "fixtures/parse/ok/seed_party_schema.oth",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    assert_eq!(stdout(&o), "");
}

#[test]
fn warnings_alone_exit_0() {
    let o = othc(&["check", "fixtures/parse/err/W0003_dangling_doc.oth"]);
    says(&o, 0, "[W0003] Warning");
    assert!(stderr(&o).ends_with("warning: 1 warning\n"));
}

#[test]
fn errors_exit_1_with_reports_on_stderr_without_colour_when_piped() {
    let o = othc(&[
        "check",
        "fixtures/parse/err/E0103_three_unrelated_errors.oth",
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = stderr(&o);
    assert_eq!(err.matches("[E0103] Error").count(), 3, "{err}");
    assert!(err.ends_with("error: 3 errors\n"), "{err}");
    assert!(!err.contains('\u{1b}'), "no colour on a pipe");
    assert_eq!(stdout(&o), "");
    let o = othc(&[
        "check",
        "--color",
        "always",
        "fixtures/parse/err/E0103_not_a_verb.oth",
    ]);
    assert!(stderr(&o).contains('\u{1b}'), "colour when asked");
}

#[test]
fn json_lines_have_every_field_of_checks_md() {
    let o = othc(&[
        "check",
        "--message-format",
        "json",
        "fixtures/check/err/E0202_not_exported.oth",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), "", "json mode keeps stderr for failures");
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 1);
    let v: serde_json::Value = serde_json::from_str(lines[0]).unwrap();
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    let mut want = vec![
        "severity",
        "code",
        "message",
        "file",
        "line",
        "column",
        "end_line",
        "end_column",
        "labels",
        "help",
    ];
    want.sort();
    let mut keys_sorted = keys.clone();
    keys_sorted.sort();
    assert_eq!(keys_sorted, want);
    assert_eq!(v["severity"], "error");
    assert_eq!(v["code"], "E0202");
    assert_eq!(v["file"], "fixtures/check/err/E0202_not_exported.oth");
    assert_eq!(
        (v["line"].as_u64(), v["column"].as_u64()),
        (Some(2), Some(10))
    );
    assert_eq!(
        (v["end_line"].as_u64(), v["end_column"].as_u64()),
        (Some(2), Some(16))
    );
    let label = &v["labels"][0];
    assert_eq!(label["file"], "fixtures/check/lib/library.oth");
    assert_eq!(
        (label["line"].as_u64(), label["column"].as_u64()),
        (Some(6), Some(8))
    );
    assert!(
        label["message"]
            .as_str()
            .unwrap()
            .contains("without `export`")
    );
    assert!(v["help"].as_str().unwrap().contains("export"));
}

#[test]
fn json_columns_count_unicode_scalars() {
    let dir = std::env::temp_dir().join(format!("othc-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let f = dir.join("u.oth");
    // `é` is two bytes but one column; the bad token starts at column 14.
    std::fs::write(
        &f,
        "# é\nobject Café { }\nobject B { serves { /é read } }\n",
    )
    .unwrap();
    let o = othc(&["check", "--message-format", "json", f.to_str().unwrap()]);
    let first: serde_json::Value =
        serde_json::from_str(stdout(&o).lines().next().unwrap()).unwrap();
    assert_eq!(first["code"], "E0101");
    assert_eq!(
        (first["line"].as_u64(), first["column"].as_u64()),
        (Some(2), Some(11))
    );
    assert_eq!(first["end_column"].as_u64(), Some(12));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreadable_roots_exit_2() {
    let o = othc(&["check", "fixtures/does-not-exist.oth"]);
    says(
        &o,
        2,
        "cannot read `fixtures/does-not-exist.oth`: no such file",
    );
    let o = othc(&["check", "fixtures/check/lib/latin1.oth"]);
    says(&o, 2, "not valid UTF-8 (byte 0xe9 at line 1, column 6)");
    let o = othc(&["check", "fixtures/check/lib/bare.wasm"]);
    says(&o, 2, "no `othismo:header` section");
    let o = othc(&["check", "fixtures"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn usage_errors_exit_2_and_help_exits_0() {
    assert_eq!(othc(&["check"]).status.code(), Some(2));
    assert_eq!(othc(&["frobnicate"]).status.code(), Some(2));
    assert_eq!(
        othc(&["check", "--message-format", "xml", "a.oth"])
            .status
            .code(),
        Some(2)
    );
    let o = othc(&["--help"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("check") && stdout(&o).contains("explain"));
    let o = othc(&["check", "--help"]);
    assert!(stdout(&o).contains("--message-format"));
}

#[test]
fn explain_prints_the_book_page() {
    let o = othc(&["explain", "E0205"]);
    assert_eq!(o.status.code(), Some(0));
    let page = std::fs::read_to_string(root().join("book/src/errors/E0205.md")).unwrap();
    assert_eq!(stdout(&o), page);
    let o = othc(&["explain", "0104"]);
    assert!(stdout(&o).starts_with("# E0104: unclosed block or bracket"));
    // A bare number, as people type it: an error's before a warning's.
    let o = othc(&["explain", "504"]);
    assert!(stdout(&o).starts_with("# E0504"), "{}", stdout(&o));
    let o = othc(&["explain", "3"]);
    assert!(stdout(&o).starts_with("# W0003"), "{}", stdout(&o));
    // A retired code still explains itself.
    let o = othc(&["explain", "W0401"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(stdout(&o).contains("(retired)"), "{}", stdout(&o));
    let o = othc(&["explain"]);
    assert!(
        stdout(&o)
            .lines()
            .any(|l| l.starts_with("E0101  unexpected-character"))
    );
    let o = othc(&["explain", "E9999"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("not an othc code"));
}

/// The seed's hello example beside the checkout (`../shared`), as CI lays it
/// out. Under CI its absence is a failure; elsewhere the caller skips, saying so.
fn seed_hello() -> Option<PathBuf> {
    let dir = root().join("../shared/examples/hello");
    if dir.is_dir() {
        return Some(dir);
    }
    assert!(
        std::env::var("CI").map_or(true, |v| v != "true"),
        "../shared/examples/hello is missing; CI must lay shared/ beside the checkout"
    );
    eprintln!("skipped: no ../shared/examples/hello beside this checkout");
    None
}

#[test]
fn hello_example_is_the_seed_verbatim_and_checks() {
    let o = othc(&["check", "examples/hello/Hello.oth"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let Some(seed_dir) = seed_hello() else {
        return;
    };
    for f in ["Greeter.oth", "Greeter.ts", "Hello.oth", "Shouter.oth"] {
        let ours = std::fs::read(root().join("examples/hello").join(f)).unwrap();
        let seed = std::fs::read(seed_dir.join(f)).unwrap();
        assert!(ours == seed, "examples/hello/{f} differs from the seed's");
    }
}

#[test]
fn values_and_set_give_slots_their_values() {
    let o = othc(&[
        "check",
        "examples/hello/Hello.oth",
        "--set",
        r#"greeting=Greeting { prefix: "Yo, ", excited: true }"#,
        "--message-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
    let o = othc(&[
        "check",
        "examples/hello/Hello.oth",
        "--set",
        r#"greting=Greeting { prefix: "Yo, ", excited: true }"#,
    ]);
    says(&o, 1, "[E0610] Error: no slot `greting`");
    assert!(stderr(&o).contains("did you mean `greeting`?"));
    let o = othc(&[
        "check",
        "examples/hello/Hello.oth",
        "--set",
        r#"greeting=Greeting { prefix: 1, excited: true }"#,
    ]);
    says(&o, 1, "[E0601]");
    let o = othc(&[
        "check",
        "examples/hello/Hello.oth",
        "--values",
        "no/such.values",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).starts_with("error: cannot read `no/such.values`"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn gen_writes_bindings_and_errors_stop_it() {
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_gen");
    let _ = std::fs::remove_dir_all(&out);
    let dir = out.to_string_lossy().into_owned();
    let o = othc(&[
        "gen",
        "--lang",
        "as",
        "examples/hello/Greeter.oth",
        "-o",
        &dir,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let first =
        std::fs::read_to_string(out.join("Greeter.oth.ts")).expect("Greeter.oth.ts written");
    assert!(
        first.starts_with("// Generated by othc from Greeter.oth (sha256 "),
        "{first}"
    );
    assert!(first.contains("export class GreeterServer extends Server"));
    assert!(first.contains("export const cons = new ConsClient(\"/dev/cons\")"));
    assert!(stderr(&o).contains("wrote "), "{}", stderr(&o));
    // Deterministic: the same bytes again.
    let o = othc(&[
        "gen",
        "--lang",
        "as",
        "examples/hello/Greeter.oth",
        "-o",
        &dir,
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert_eq!(
        std::fs::read_to_string(out.join("Greeter.oth.ts")).unwrap(),
        first
    );
    // A file with errors gets no bindings.
    let o = othc(&[
        "gen",
        "--lang",
        "as",
        "fixtures/check/err/E0303_unknown_field_type.oth",
        "-o",
        &dir,
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!out.join("E0303_unknown_field_type.oth.ts").exists());
    // JSON types have codecs in Rust, not yet in AssemblyScript: no AS
    // bindings rather than BSON's codec on JSON (E0707).
    let file = "fixtures/build/err/E0707_json_bindings/App.oth";
    let o = othc(&["gen", "--lang", "as", file, "-o", &dir]);
    says(&o, 1, "[E0707]");
    assert!(
        stderr(&o).contains("AssemblyScript bindings"),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("`Note` is one"), "{}", stderr(&o));
    assert!(!out.join("App.oth.ts").exists());
    let o = othc(&["gen", "--lang", "rust", file, "-o", &dir]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rust = std::fs::read_to_string(out.join("App.oth.rs")).unwrap();
    assert!(rust.contains("othismo::json::encode_document"), "{rust}");
    // Rust bindings beside the AssemblyScript ones; a language othc does
    // not know is a usage error.
    let o = othc(&[
        "gen",
        "--lang",
        "rust",
        "examples/hello/Greeter.oth",
        "-o",
        &dir,
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", test_support::texts(&o).1);
    let rust = std::fs::read_to_string(out.join("Greeter.oth.rs")).unwrap();
    assert!(rust.contains("pub trait GreeterServer"), "{rust}");
    assert!(rust.contains("pub struct Greeting"), "{rust}");
    let o = othc(&[
        "gen",
        "--lang",
        "cobol",
        "examples/hello/Greeter.oth",
        "-o",
        &dir,
    ]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn fmt_rewrites_checks_and_never_touches_what_does_not_parse() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_fmt");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let messy = dir.join("messy.oth");
    std::fs::write(
        &messy,
        "object A { serves { /a read -> text/plain  # the root\n /bb write */* } }\n",
    )
    .unwrap();
    let p = messy.to_string_lossy().into_owned();
    let o = othc(&["fmt", "--check", &p]);
    says(&o, 1, "would reformat");
    // The diff it would make, on stdout; the file untouched.
    assert!(
        stdout(&o).starts_with(&format!("--- {p}\n+++ {p}\n@@")),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("\n+    /bb  write */*\n"),
        "{}",
        stdout(&o)
    );
    assert!(
        std::fs::read_to_string(&messy)
            .unwrap()
            .starts_with("object A { serves")
    );
    let o = othc(&["fmt", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&messy).unwrap(),
        "object A {\n  serves {\n    /a   read -> text/plain  # the root\n    /bb  write */*\n  }\n}\n"
    );
    let o = othc(&["fmt", "--check", &p]);
    assert_eq!(o.status.code(), Some(0), "formatted now");
    let broken = dir.join("broken.oth");
    let text = "object A { serves { /a reed } }\n";
    std::fs::write(&broken, text).unwrap();
    let o = othc(&["fmt", &broken.to_string_lossy()]);
    says(&o, 1, "[E0103]");
    assert_eq!(
        std::fs::read_to_string(&broken).unwrap(),
        text,
        "left as it was"
    );
    // No files: the .oth files under the current directory, not those in
    // build/ or hidden folders.
    std::fs::remove_file(&broken).unwrap();
    for sub in ["app", "build", ".hidden"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        std::fs::write(dir.join(sub).join("m.oth"), "object M { }\n\n\n").unwrap();
    }
    let o = Command::new(env!("CARGO_BIN_EXE_othc"))
        .arg("fmt")
        .current_dir(&dir)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stderr(&o), "formatted app/m.oth\n");
    // A folder named: the .oth files under it, with the same folders left
    // out; a folder without any is a usage error.
    std::fs::write(dir.join("app/m.oth"), "object M { }\n").unwrap();
    let o = othc(&["fmt", "--check", &dir.to_string_lossy()]);
    says(
        &o,
        1,
        &format!("would reformat {}", dir.join("app/m.oth").display()),
    );
    assert!(!stderr(&o).contains("build/m.oth"), "{}", stderr(&o));
    let empty = dir.join("app/empty");
    std::fs::create_dir_all(&empty).unwrap();
    let o = othc(&["fmt", &empty.to_string_lossy()]);
    says(&o, 2, &format!("no .oth files under `{}`", empty.display()));
    let o = othc(&["fmt", &dir.join("app").to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(dir.join("app/m.oth")).unwrap(),
        "object M {}\n"
    );
    assert!(
        std::fs::read_to_string(dir.join("build/m.oth"))
            .unwrap()
            .ends_with("\n\n\n")
    );
}

/// The small things a newcomer trips on: `inspect` given a .oth file, `gen`
/// without `--lang`, `run --image` naming no image (said before building).
#[test]
fn newcomer_slips_get_a_usage_answer() {
    let o = othc(&["inspect", "examples/hello/Hello.oth"]);
    says(&o, 2, "is not a WebAssembly module");
    assert!(stderr(&o).contains("othc check"), "{}", stderr(&o));
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("cli_slips");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let o = othc(&[
        "gen",
        "fixtures/check/ok/nested_images.oth",
        "-o",
        &dir.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        std::fs::read_dir(&dir).unwrap().next().is_some(),
        "bindings written"
    );
    let o = othc(&["run", "examples/hello/Hello.oth", "--image", "Nope"]);
    says(&o, 2, "has no image `Nope` to run (it has `Hello`)");
    assert!(!stderr(&o).contains("building"), "{}", stderr(&o));
}

/// What users copy from (the examples, the SDK's objects and the runtime's
/// header) is in the layout `othc fmt` gives.
#[test]
fn the_shipped_oth_files_are_formatted() {
    let o = othc(&["fmt", "--check", "examples", "sdk"]);
    assert_eq!(o.status.code(), Some(0), "{}{}", stdout(&o), stderr(&o));
}

/// An import that is a link to a device with no end (`/dev/zero`, as a
/// hostile project may hold) is read up to the most othc reads of a file
/// and refused, naming it; it used to be read until memory ran out.
#[test]
fn an_import_that_never_ends_is_refused_not_read_forever() {
    if !test_support::runnable(test_support::ensure_debian_tool("prlimit", "util-linux")) {
        return;
    }
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "endless_import");
    std::os::unix::fs::symlink("/dev/zero", dir.join("endless.oth")).unwrap();
    std::fs::write(
        dir.join("Main.oth"),
        "import { X } from \"./endless.oth\"\nobject A {\n  serves {\n    / read -> text/plain\n  }\n}\n",
    )
    .unwrap();
    // At most 2 GiB of address space: were the import read whole again,
    // the run would fail on memory at once, not take the machine's.
    let mut child = Command::new("prlimit")
        .args(["--as=2147483648", "--"])
        .arg(env!("CARGO_BIN_EXE_othc"))
        .args(["check", "--color", "never"])
        .arg(dir.join("Main.oth"))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let (status, err) = test_support::ended_within(
        &mut child,
        std::time::Duration::from_secs(120),
        "othc check of an endless import",
    );
    assert_eq!(status.code(), Some(1), "{err}");
    assert!(
        err.contains("it is over 256 MiB, the most othc reads of a file")
            && err.contains("endless.oth"),
        "{err}"
    );
}

/// A file whose lines end in CR LF keeps them when formatted (the layout
/// changes, not its line ends), its comments included (each kept its `\r`
/// and the other lines lost theirs: a file of mixed line ends), and is then
/// clean for `--check`.
#[test]
fn fmt_keeps_a_files_crlf_line_ends() {
    let dir = test_support::scratch(env!("CARGO_TARGET_TMPDIR"), "cli_fmt_crlf");
    let p = dir.join("A.oth");
    std::fs::write(
        &p,
        "# first\r\nobject A {\r\n# inner\r\nserves {\r\n/ read ->   text/plain # tail\r\n}\r\n}\r\n",
    )
    .unwrap();
    let p = p.to_string_lossy().into_owned();
    let o = othc(&["fmt", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&p).unwrap(),
        "# first\r\nobject A {\r\n  # inner\r\n  serves {\r\n    /  read -> text/plain  # tail\r\n  }\r\n}\r\n"
    );
    let o = othc(&["fmt", "--check", &p]);
    assert_eq!(o.status.code(), Some(0), "{}", stdout(&o));
}
