//! The `othc` binary building and running images as users do: the hello
//! example end to end, a fresh install's streams, two objects in one file.

mod othc_process;

use std::path::PathBuf;
use std::process::{Command, Output};

use othc_process::{othc, root, says, stderr, stdout};

#[test]
fn build_and_inspect_the_hello_example() {
    let dir = copy_of_example("hello", "cli_build");
    let hello = dir.join("Hello.oth").to_string_lossy().into_owned();
    let o = othc(&["build", &hello]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("Hello.othimg"), "{err}");
    assert!(err.contains("built 2 module(s)"), "{err}");
    // `othc build` makes what ships: optimized unless asked not to.
    assert!(err.contains("(release)"), "{err}");
    let built = dir.join("build");
    let o = othc(&["inspect", &built.join("Greeter.wasm").to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("# host ABI: kept"), "{out}");
    assert!(out.contains("export object Greeter {"), "{out}");
    let o = othc(&["inspect", &built.join("Hello.othimg").to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("greeter = modules/Greeter.wasm"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("write /greeter/greeting (application/bson, 52 bytes)"),
        "{}",
        stdout(&o)
    );
}

/// A fresh copy of `examples/NAME` in the scratch folder `into`.
fn copy_of_example(name: &str, into: &str) -> PathBuf {
    test_support::copy_of_dir(
        &root().join("examples").join(name),
        env!("CARGO_TARGET_TMPDIR"),
        into,
    )
}

/// `othc` with `stdin` piped in.
fn othc_with_input(args: &[&str], stdin: &str) -> Output {
    test_support::run_with_input(
        Command::new(env!("CARGO_BIN_EXE_othc"))
            .args(args)
            .current_dir(root()),
        stdin.as_bytes(),
    )
}

/// The README's main job: `othc run examples/hello/Hello.oth`, as the
/// example's README says, with and without `--set`, and the bundle it
/// leaves behind run again.
#[test]
fn run_the_hello_example_end_to_end() {
    let dir = copy_of_example("hello", "cli_run");
    let hello = dir.join("Hello.oth").to_string_lossy().into_owned();
    let o = othc_with_input(&["run", &hello], "Ada\nGrace\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
    // `othc run` is the edit-and-try loop: unoptimized unless asked.
    assert!(
        stderr(&o).contains("(debug; --release to optimize)"),
        "{}",
        stderr(&o)
    );
    let o = othc_with_input(&["run", "--release", &hello], "Ada\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Hi, Ada.\nHI, ADA.\n");
    assert!(stderr(&o).contains("(release)"), "{}", stderr(&o));
    let set = r#"greeting=Greeting { prefix: "Yo ", excited: true }"#;
    let o = othc_with_input(&["run", &hello, "--set", set], "Ada\nGrace\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Yo Ada!\nYO ADA!\nYo Grace!\nYO GRACE!\n");
    // The second build compiled nothing.
    assert!(
        stderr(&o).contains("0 compiled, 2 unchanged"),
        "{}",
        stderr(&o)
    );
    let bundle = dir
        .join("build/Hello.othimg")
        .to_string_lossy()
        .into_owned();
    let o = othc_with_input(&["run", &bundle], "Ada\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Yo Ada!\nYO ADA!\n");
    // Which image: one that is not there is a usage error.
    let o = othc_with_input(&["run", &hello, "--image", "Nope"], "");
    says(&o, 2, "has no image `Nope`");
    // A file without images says so.
    let o = othc_with_input(&["run", "fixtures/parse/ok/seed_party_schema.oth"], "");
    says(&o, 2, "declares no image to run");
}

/// On a fresh cache (the AssemblyScript compiler not yet installed), the
/// main job's stdout is the program's output alone, and a JSON build's
/// stdout is JSON lines alone: npm's report goes to stderr with othc's.
#[test]
fn a_fresh_install_keeps_stdout_for_the_program() {
    let dir = copy_of_example("hello", "cli_fresh");
    let hello = dir.join("Hello.oth").to_string_lossy().into_owned();
    let fresh = |name: &str, args: &[&str], input: &str| {
        let cache = dir.join(name);
        test_support::run_with_input(
            Command::new(env!("CARGO_BIN_EXE_othc"))
                .args(args)
                .env("OTHC_CACHE", &cache)
                .current_dir(root()),
            input.as_bytes(),
        )
    };
    let o = fresh("cache_run", &["run", &hello], "Ada\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "Hi, Ada.\nHI, ADA.\n");
    assert!(stderr(&o).contains("installing the AssemblyScript compiler"));
    let o = fresh(
        "cache_json",
        &["build", &hello, "--message-format", "json"],
        "",
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    for line in stdout(&o).lines() {
        assert!(
            serde_json::from_str::<serde_json::Value>(line).is_ok(),
            "not JSON on stdout: {line}"
        );
    }
}

/// Two objects in one .oth file: each is compiled from the .ts named after
/// it, and the image runs (it used to compile both from one file named
/// after the .oth and run an image that did nothing, silently).
#[test]
fn two_objects_in_one_file_build_and_run() {
    let dir = copy_of_example("counter", "cli_counter");
    let file = dir.join("Counter.oth").to_string_lossy().into_owned();
    let o = othc_with_input(&["run", &file], "a\nb\n");
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(stdout(&o), "1: a\n2: b\n");
    assert!(dir.join("build/Counter.wasm").is_file() && dir.join("build/Clicker.wasm").is_file());
    // Without Clicker.ts, the build says which file it wants.
    std::fs::rename(dir.join("Clicker.ts"), dir.join("Counter2.ts")).unwrap();
    let o = othc_with_input(&["build", &file], "");
    says(&o, 1, "[E0407]");
    assert!(
        stderr(&o).contains("Clicker.ts` does not exist"),
        "{}",
        stderr(&o)
    );
}
