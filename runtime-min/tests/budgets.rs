//! What one instance may take, per instance and not per memory or per
//! call: its memories and tables together, and what the host holds for it.

mod common;

use othismo_runtime::LoadError;

/// The memory limit is the instance's across all its memories, and tables
/// are limited across all its tables: ten memories of 62.5 MiB each under
/// a 64 MiB limit used to take 637 MB.
#[test]
fn memory_and_tables_are_limited_per_instance_not_per_memory() {
    let prelude = common::prelude();
    let file = common::root().join("fixtures/run/memories/Memories.oth");
    let limits = othismo_runtime::Limits {
        memory_mib: 64,
        ..common::limits()
    };
    let memories: String = (0..9).map(|_| "(memory 1000)\n").collect();
    let wat = format!(";; object ManyMemories\n{memories};; object ManyTables\n;; object Caller\n");
    let b = common::wat_bundle(&file, &wat, &prelude, &[]).unwrap();
    let e = common::load_error_with(&b, limits.clone()).expect("refused");
    assert!(
        e.to_string().contains("memories") && e.to_string().contains("memory limit of 64 MiB"),
        "{e}"
    );
    assert!(
        matches!(&e, LoadError::Module { module, .. } if module == "modules/ManyMemories.wasm"),
        "{e:?}"
    );
    // Nine memories of 6.25 MiB fit: the limit is not simply one memory.
    let small: String = (0..9).map(|_| "(memory 100)\n").collect();
    let wat = format!(";; object ManyMemories\n{small};; object ManyTables\n;; object Caller\n");
    let b = common::wat_bundle(&file, &wat, &prelude, &[]).unwrap();
    let ran = common::run_with(&b, &[], limits.clone());
    assert_eq!(ran.status, 0, "{}", ran.err);
    let wat = ";; object ManyMemories\n;; object ManyTables\n(table 600000 funcref)\n(table 600000 funcref)\n;; object Caller\n";
    let b = common::wat_bundle(&file, wat, &prelude, &[]).unwrap();
    let e = common::load_error_with(&b, limits.clone()).expect("refused");
    assert!(e.to_string().contains("tables hit the limit"), "{e}");
}

/// What the host holds for an instance is bounded (`--max-held`): in one
/// call, 500 requests of 4 MiB each (they took 2 GB), a flood of requests
/// without payloads, a flood of cancels. Each instance is stopped naming
/// the limit; the others run on. Across calls, tickets cancelled and never
/// answered cost nothing: they are forgotten once nothing queued can carry
/// them (they used to pile up until the canceller was stopped, 16 bytes a
/// ticket, so an HTTP server cancelling for clients that left died in
/// time). A cancel of a ticket never issued is a misuse.
#[test]
fn what_the_host_holds_for_an_instance_is_bounded() {
    let prelude = common::prelude();
    let wat = r#"
;; object Sink
(func (export "othismo_serve") (param $id i32) (param i32 i32 i32 i32 i32 i32 i32 i32)
  (call $done (local.get $id)))
;; object Hoarder
;; object BigPayloads
(data (i32.const 256) "/sink/x")
(func (export "othismo_start") (local $n i32)
  (drop (memory.grow (i32.const 70)))
  (loop $more
    (drop (call $req_text (i32.const 5) (i32.const 256) (i32.const 7) (i32.const 0) (i32.const 4194304)))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (br_if $more (i32.lt_u (local.get $n) (i32.const 500)))))
;; object ManyRequests
(data (i32.const 256) "/hoarder/x")
(func (export "othismo_start") (local $n i32)
  (loop $more
    (drop (call $req (i32.const 1) (i32.const 256) (i32.const 10)))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (br_if $more (i32.lt_u (local.get $n) (i32.const 3000000)))))
;; object ManyCancels
(data (i32.const 256) "/hoarder/x")
(func (export "othismo_start") (local $n i32) (local $t i32)
  (local.set $t (call $req (i32.const 1) (i32.const 256) (i32.const 10)))
  (loop $more
    (call $cancel (local.get $t))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (br_if $more (i32.lt_u (local.get $n) (i32.const 5000000)))))
;; object SlowCanceller
(data (i32.const 256) "/console")
(data (i32.const 272) "/hoarder/x")
(func (export "othismo_start")
  (drop (call $req (i32.const 2) (i32.const 256) (i32.const 8))))
(func (export "othismo_answer") (param i32 i32 i32 i32 i32 i32) (local $n i32)
  (loop $more
    (call $cancel (call $req (i32.const 1) (i32.const 272) (i32.const 10)))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (br_if $more (i32.lt_u (local.get $n) (i32.const 2000)))))
"#;
    let file = common::root().join("fixtures/run/flood/Flood.oth");
    let b = common::wat_bundle(&file, wat, &prelude, &[]).unwrap();
    let limits = othismo_runtime::Limits {
        held_mib: 1,
        ..common::limits()
    };
    let lines: Vec<String> = (0..100).map(|n| format!("line {n}")).collect();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    let ran = common::run_with(&b, &lines, limits);
    let one_call = "it asked the host to hold more than 1 MiB for it in one call (`--max-held`)";
    for name in ["big", "many", "cancels"] {
        assert!(
            ran.err
                .contains(&format!("error: instance `{name}` stopped: {one_call}")),
            "{name}: {}",
            ran.err
        );
    }
    // 100 lines of 2,000 cancels each: 3.2 MB of tickets if they were kept.
    for name in ["slow", "sink", "hoarder"] {
        assert!(
            !ran.err.contains(&format!("`{name}` stopped")),
            "{}",
            ran.err
        );
    }
    assert_eq!(ran.status, 1);
    // A cancel of a ticket it was never given.
    let wat = wat.replace(
        "(call $cancel (local.get $t))",
        "(call $cancel (i32.const 99))",
    );
    let b = common::wat_bundle(&file, &wat, &prelude, &[]).unwrap();
    let ran = common::run_with(&b, &[], common::limits());
    assert!(
        ran.err.contains(
            "error: instance `cancels` stopped: it misused the host call `cancel`: ticket 99 was never issued"
        ),
        "{}",
        ran.err
    );
}
