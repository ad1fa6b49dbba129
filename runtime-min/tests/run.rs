//! Images run for real: built with othc's library, run by the runtime with
//! piped input, the output compared exactly.

mod common;

use common::{bundle, run};

#[test]
fn hello_greets_and_shouts_exactly_as_the_seed_says() {
    let b = bundle("hello", "examples/hello", "Hello.oth", &[]);
    let (status, out, err) = run(&b, &["Ada", "Grace"]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert_eq!(out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n");
    let b = bundle(
        "hello_set",
        "examples/hello",
        "Hello.oth",
        &[r#"greeting=Greeting { prefix: "Yo ", excited: true }"#],
    );
    let (status, out, _) = run(&b, &["Ada", "Grace"]);
    assert_eq!(status, 0);
    assert_eq!(out, "Yo Ada!\nYO ADA!\nYo Grace!\nYO GRACE!\n");
    // No input: the watch stream ends at once, and so does the run.
    let (status, out, _) = run(&b, &[]);
    assert_eq!((status, out.as_str()), (0, ""));
}

/// The Files example (examples/files/README.md): a list stream, stat and
/// read through a read-only mount, and a path that tries to leave.
#[test]
fn the_files_example_lists_and_reads_the_shelf() {
    let shelf = common::root().join("examples/files/shelf");
    let set = format!(
        "shelf=FilesConfig {{ dir: {:?}, readonly: true }}",
        shelf.to_string_lossy()
    );
    let b = bundle("files", "examples/files", "Shelf.oth", &[&set]);
    let (status, out, err) = run(
        &b,
        &[
            "tale.txt",
            "poems",
            "poems/roses.txt",
            "missing.txt",
            "../secret",
        ],
    );
    assert_eq!((status, err.as_str()), (0, ""));
    let readme = std::fs::read_to_string(common::root().join("examples/files/README.md")).unwrap();
    let expected = readme
        .split("prints\n\n```\n")
        .nth(1)
        .and_then(|s| s.split("```").next())
        .expect("the README shows the output");
    assert_eq!(out, expected);
}

/// And the paths a module sends reach their server as sent: in the
/// scratch region up to its 256 bytes, in a buffer of their own past it
/// (counted in bytes of UTF-8, not in characters); and answers read as a
/// message of one type are that type or an `invalid` error (another
/// message, or not a message at all), while a reader of any message gets
/// whichever came.
#[test]
fn every_refused_request_gets_its_errno() {
    let b = bundle("probe", "fixtures/run/probe", "Probe.oth", &[]);
    let (status, out, err) = run(&b, &[]);
    assert_eq!((status, err.as_str()), (0, ""));
    assert_eq!(
        out,
        "read /target/missing: 1 not_found\n\
         remove /target/ok: 2 not_supported\n\
         write /target/ro: 3 read_only\n\
         write /target/op: 5 forbidden\n\
         stat /target/ok: 5 forbidden\n\
         read /target/../x: 4 invalid\n\
         read /elsewhere: 5 forbidden\n\
         read /target/ok: ok hello\n\
         read of a path of 18 bytes in 18 characters: the same\n\
         read of a path of 18 bytes in 18 characters: the same\n\
         read of a path of 18 bytes in 18 characters: the same\n\
         read of a path of 313 bytes in 313 characters: the same\n\
         read of a path of 213 bytes in 113 characters: the same\n\
         read of a path of 273 bytes in 143 characters: the same\n\
         read of a path of 256 bytes in 256 characters: the same\n\
         read of a path of 257 bytes in 257 characters: the same\n\
         read of a path of 20 bytes in 19 characters: the same\n\
         read of a path of 24 bytes in 21 characters: the same\n\
         read of a path of 21 bytes in 20 characters: the same\n\
         read of a path of 25 bytes in 22 characters: the same\n\
         read of a path of 22 bytes in 21 characters: the same\n\
         read of a path of 26 bytes in 23 characters: the same\n\
         read of a path of 23 bytes in 22 characters: the same\n\
         read of a path of 27 bytes in 24 characters: the same\n\
         a Note read as a Note: a Note saying hi\n\
         a Note of a number read as a Note: 4 invalid (the answer is not the expected message)\n\
         a Note read after it: a Note saying hi\n\
         an Other read as a Note: 4 invalid (the answer is not the expected message)\n\
         text read as a Note: 4 invalid (the answer is not the expected message)\n\
         an Other read as any message: a message of type Other\n"
    );
}

#[test]
fn a_trapping_instance_is_stopped_and_named() {
    let b = bundle("trap", "fixtures/run/trap", "Trap.oth", &[]);
    let (status, _, err) = run(&b, &[]);
    assert_eq!(status, 1);
    assert!(err.contains("error: instance `trap` stopped"), "{err}");
    assert!(
        err.contains("error: startup request write /trap failed: 10 unavailable"),
        "{err}"
    );
}

/// `env.abort` with pointers no memory holds (near `i32::MIN`, where the
/// length prefix's `ptr - 4` wraps; past the end; a prefix claiming more
/// than the memory): each instance is stopped and named, its caller gets
/// `unavailable`, and the runtime itself never panics (debug builds, which
/// `cargo test` runs, trap on overflow).
#[test]
fn abort_with_hostile_pointers_stops_only_the_instance() {
    let prelude = common::prelude_with_abort();
    let wat = r#"
;; object Wrap
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $abort (i32.const -2147483648) (i32.const -2147483645) (i32.const 1) (i32.const 2)))
;; object Past
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $abort (i32.const 2147483647) (i32.const 70000) (i32.const 3) (i32.const 4)))
;; object Long
(data (i32.const 256) "\ff\ff\ff\7f")
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (call $abort (i32.const 260) (i32.const 260) (i32.const 5) (i32.const 6)))
;; object Caller
(data (i32.const 256) "/wrap/x")
(data (i32.const 264) "/past/x")
(data (i32.const 272) "/long/x")
(func (export "othismo_start")
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 7)))
  (drop (call $req (i32.const 1) (i32.const 264) (i32.const 7)))
  (drop (call $req (i32.const 1) (i32.const 272) (i32.const 7))))
"#;
    let file = common::root().join("fixtures/run/abort/Abort.oth");
    let b = common::wat_bundle(&file, wat, &prelude, &[]).unwrap();
    let (status, _, err) = run(&b, &[]);
    assert_eq!(status, 1, "{err}");
    for name in ["wrap", "past", "long"] {
        assert!(
            err.contains(&format!("error: instance `{name}` stopped: aborted")),
            "{name}: {err}"
        );
    }
}

/// A console line over the payload limit is not delivered (the console
/// obeys the limit like any server), the run says so on stderr and ends
/// with status 1; the lines around it are greeted as usual.
#[test]
fn an_input_line_over_the_payload_limit_is_refused_not_delivered() {
    let b = bundle("long_line", "examples/hello", "Hello.oth", &[]);
    let long = "x".repeat(5000);
    let limits = othismo_runtime::Limits {
        payload: 1000,
        ..common::limits()
    };
    let ran = common::run_with(&b, &["Ada", &long, "Grace"], limits);
    assert_eq!(
        ran.out, "Hi, Ada.\nHI, ADA.\nHi, Grace.\nHI, GRACE.\n",
        "{}",
        ran.err
    );
    assert!(
        ran.err
            .contains("error: console input line 2 is 5000 bytes long, over the payload limit of 1000 (`--max-payload`); it was not delivered"),
        "{}",
        ran.err
    );
    assert_eq!(ran.status, 1);
}

/// Two objects that forward each request to the other: the caller is
/// answered `not_found` naming the loop once the request has been
/// forwarded more than the limit; neither instance is stopped, and the run
/// ends (it used to spin at 100% CPU for ever).
#[test]
fn a_forward_loop_answers_the_caller_and_stops_no_one() {
    let prelude = common::prelude();
    let wat = r#"
;; object Ping
(data (i32.const 256) "/pong/x")
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $forward (local.get $id) (i32.const 256) (i32.const 7)))
;; object Pong
(data (i32.const 256) "/ping/x")
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $forward (local.get $id) (i32.const 256) (i32.const 7)))
;; object Caller
(data (i32.const 256) "/ping/x")
(func (export "othismo_start")
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 7))))
"#;
    let file = common::root().join("fixtures/run/forward_loop/Loop.oth");
    let b = common::wat_bundle(&file, wat, &prelude, &[]).unwrap();
    let ran = common::run_with(&b, &[], common::limits());
    assert!(
        ran.trace.contains(
            "caller:1 <- error 1 not_found: forwarded more than 32 times, round ping → pong → ping → pong → …"
        ),
        "{}",
        ran.trace
    );
    assert!(!ran.err.contains("stopped"), "{}", ran.err);
    assert_eq!(ran.status, 0, "{}", ran.err);
}

/// Host-ABI misuse is a bug in the module: the instance is stopped with a
/// message naming the host call and what was wrong, its caller gets
/// `unavailable` (these used to be papered over: an empty payload, a lossy
/// path, errno 0 passed on, a long content type reported as a large payload).
#[test]
fn host_abi_misuse_stops_the_instance_and_says_why() {
    let prelude = common::prelude();
    let wat = r#"
;; object FarPath
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (drop (call $req (i32.const 1) (i32.const 1000000) (i32.const 4))))
;; object BadText
(data (i32.const 256) "/\ff\fe")
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32)
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 3))))
;; object LongType
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $answer (local.get $id) (i32.const 1) (i32.const 0) (i32.const 5000) (i32.const 0) (i32.const 1)))
;; object FarData
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $answer (local.get $id) (i32.const 1) (i32.const 0) (i32.const 10) (i32.const -16) (i32.const 8)))
;; object ZeroErrno
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $fail (local.get $id) (i32.const 0) (i32.const 16) (i32.const 4) (i32.const 0) (i32.const 0)))
;; object Caller
(data (i32.const 256) "/far/x")
(data (i32.const 264) "/bad/x")
(data (i32.const 272) "/long/x")
(data (i32.const 280) "/data/x")
(data (i32.const 288) "/zero/x")
(func (export "othismo_start")
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 6)))
  (drop (call $req (i32.const 1) (i32.const 264) (i32.const 6)))
  (drop (call $req (i32.const 1) (i32.const 272) (i32.const 7)))
  (drop (call $req (i32.const 1) (i32.const 280) (i32.const 7)))
  (drop (call $req (i32.const 1) (i32.const 288) (i32.const 7))))
"#;
    let file = common::root().join("fixtures/run/misuse/Misuse.oth");
    let b = common::wat_bundle(&file, wat, &prelude, &[]).unwrap();
    let ran = common::run_with(&b, &[], common::limits());
    for (name, says) in [
        (
            "far",
            "it misused the host call `request`: its path: (1000000, 4) is outside its memory",
        ),
        (
            "bad",
            "it misused the host call `request`: its path is not UTF-8",
        ),
        (
            "long",
            "it misused the host call `answer`: its content type is 5000 bytes, over 4096",
        ),
        (
            "data",
            "it misused the host call `answer`: its payload's bytes: (-16, 8) is outside its memory",
        ),
        (
            "zero",
            "it misused the host call `fail`: errno 0: an error's errno is a positive number",
        ),
    ] {
        assert!(
            ran.err
                .contains(&format!("error: instance `{name}` stopped: {says}")),
            "{name}: {}",
            ran.err
        );
        assert!(
            ran.trace
                .contains(&format!("error 10 unavailable: `{name}` has stopped")),
            "{name}: {}",
            ran.trace
        );
    }
    assert_eq!(ran.status, 1);
}

/// An `othismo_alloc` that returns a pointer outside the module's memory
/// stops the instance with a message naming the allocator (it used to be a
/// bare "out of bounds memory access").
#[test]
fn a_broken_allocator_is_named() {
    // The prelude's allocator, unexported, so the part can export its own.
    let prelude = common::prelude().replacen(
        "(func (export \"othismo_alloc\")",
        "(func $prelude_alloc",
        1,
    );
    let wat = r#"
;; object FarPath
(func (export "othismo_alloc") (param i32) (result i32) (i32.const -1))
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32))
;; object BadText
(func (export "othismo_alloc") (param i32) (result i32) (i32.const 65535))
(func (export "othismo_serve") (param i32 i32 i32 i32 i32 i32 i32 i32 i32))
;; object LongType
(func (export "othismo_alloc") (param i32) (result i32) (call $prelude_alloc (local.get 0)))
;; object FarData
(func (export "othismo_alloc") (param i32) (result i32) (call $prelude_alloc (local.get 0)))
;; object ZeroErrno
(func (export "othismo_alloc") (param i32) (result i32) (call $prelude_alloc (local.get 0)))
;; object Caller
(func (export "othismo_alloc") (param i32) (result i32) (call $prelude_alloc (local.get 0)))
(data (i32.const 256) "/far/x")
(data (i32.const 264) "/bad/x")
(func (export "othismo_start")
  (drop (call $req (i32.const 1) (i32.const 256) (i32.const 6)))
  (drop (call $req (i32.const 1) (i32.const 264) (i32.const 6))))
"#;
    let file = common::root().join("fixtures/run/misuse/Misuse.oth");
    let b = common::wat_bundle(&file, wat, &prelude, &[]).unwrap();
    let ran = common::run_with(&b, &[], common::limits());
    for (name, ptr) in [("far", "-1"), ("bad", "65535")] {
        assert!(
            ran.err.contains(&format!(
                "error: instance `{name}` stopped: its `othismo_alloc` returned {ptr} for 2 bytes, outside its memory of 65536 bytes"
            )),
            "{name}: {}",
            ran.err
        );
    }
}

/// StaticSite forwards a read its own stat announced: with several stats
/// of one path answered before their reads (a busy site's batch), every
/// read is forwarded, none stat'd again. (It used to remember one read a
/// path, and the rest of a batch's reads each cost the files a stat.)
#[test]
fn each_stat_static_site_relays_announces_one_read() {
    let public = common::root().join("fixtures/run/announced/public");
    let set = format!(
        "files=FilesConfig {{ dir: {:?}, readonly: true }}",
        public.to_string_lossy()
    );
    let b = bundle(
        "announced",
        "fixtures/run/announced",
        "Announced.oth",
        &[&set],
    );
    let ran = common::run_with(&b, &[], common::limits());
    assert_eq!(ran.status, 0, "{}", ran.err);
    let mut out: Vec<&str> = ran.out.lines().collect();
    out.sort();
    assert_eq!(
        out,
        [
            "/site/a.txt: alpha",
            "/site/a.txt: alpha",
            "/site/a.txt: alpha",
            "/site/docs: the docs",
            "/site/docs: the docs",
            "/site/docs: the docs",
        ]
    );
    let asked = |what: &str| {
        ran.trace
            .lines()
            .filter(|l| l.ends_with(&format!("-> public: {what}")))
            .count()
    };
    assert_eq!(
        (asked("stat /a.txt"), asked("read /a.txt")),
        (3, 3),
        "the file: one stat a read\n{}",
        ran.trace
    );
    assert_eq!(
        (
            asked("stat /docs"),
            asked("stat /docs/index.html"),
            asked("read /docs/index.html")
        ),
        (3, 3, 3),
        "the directory: its stats, then each read's index\n{}",
        ran.trace
    );
}

/// An object built to collect between deliveries (`asconfig.json`'s
/// `runtime` is `minimal`) keeps 2 MiB of strings and makes some 120 KiB
/// of garbage in each of 20,000 deliveries (2.4 GB in all): its kept
/// strings stay as they were made (a collection run while its code still
/// held them, or one that missed a global, would change them), and its
/// memory stays within what the incremental collector takes for the same
/// work (8 MiB), even when its garbage a delivery grows eight times over
/// from one delivery to the next. Without the collections at the ends of
/// deliveries it would stop at its memory limit; with the interval between
/// them read only from the garbage made before, its memory doubled. And
/// a message decoded there with neither of its optional fields reads them
/// as absent: the minimal collector does not zero what it hands out, and
/// the SDK's decoder once took its fields' absence from zeroed memory (the
/// SDK's contract test found HttpServer trapping on a config of no field).
#[test]
fn an_object_collecting_between_deliveries_keeps_what_it_holds_in_bounded_memory() {
    let b = bundle("collector", "fixtures/run/collector", "Collector.oth", &[]);
    let (status, out, err) = run(&b, &[]);
    assert_eq!((status, err.as_str()), (0, ""), "{out}");
    assert_eq!(
        out,
        "kept 128\n\
         churned 20000, intact 20000\n\
         notes of neither field read so: 200\n\
         collected between deliveries, memory within 8 MiB\n"
    );
}
