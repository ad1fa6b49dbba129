//! Several workers (`--workers`): the calls into an instance whose calls
//! are long run on worker threads, and still each instance gets its
//! deliveries in order and one sender's requests to one receiver arrive in
//! the order sent (`fixtures/run/order/Order.oth`: the server traps on a
//! number out of order); every request is answered. Short calls stay on
//! the loop's thread, where they cost less.

mod common;

/// A sender: `SENT` writes to `/s/X` in one burst, each carrying its
/// number (four bytes, little-endian).
fn sender(name: &str, path: &str) -> String {
    format!(
        r#";; object {name}
(data (i32.const 256) "/s/{path}")
(func (export "othismo_start") (local $n i32)
  (loop $more
    (i32.store (i32.const 512) (local.get $n))
    (drop (call $request (i32.const 5) (i32.const 256) (i32.const 4)
      (i32.const 0) (i32.const 10) (i32.const 512) (i32.const 4)))
    (local.set $n (i32.add (local.get $n) (i32.const 1)))
    (br_if $more (i32.lt_u (local.get $n) (i32.const {SENT})))))
"#
    )
}

/// Writes each sender makes.
const SENT: usize = 100;

/// The server: one counter per path (`/a`, `/b`, `/c` by their second
/// byte); a number that is not the next one traps. Each call first counts
/// down from `spin`: a million steps make a long call (half a millisecond
/// on the machines this is built on), which goes to a worker.
fn server(spin: u32) -> String {
    format!(
        r#";; object Server
(func (export "othismo_serve") (param $id i32) (param i32 i32) (param $pp i32) (param i32) (param i32 i32) (param $dp i32) (param i32)
  (local $slot i32) (local $left i32)
  (local.set $left (i32.const {spin}))
  (block $spun (loop $spin
    (br_if $spun (i32.eqz (local.get $left)))
    (local.set $left (i32.sub (local.get $left) (i32.const 1)))
    (br $spin)))
  (local.set $slot (i32.add (i32.const 1024)
    (i32.mul (i32.const 4) (i32.sub (i32.load8_u (i32.add (local.get $pp) (i32.const 1))) (i32.const 97)))))
  (call $expect (i32.load (local.get $dp)) (i32.load (local.get $slot)))
  (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
  (call $done (local.get $id)))
"#
    )
}

fn bundle(spin: u32) -> Vec<u8> {
    let prelude = common::prelude();
    let file = common::root().join("fixtures/run/order/Order.oth");
    let wat = format!(
        "{}{}{}{}",
        sender("SenderA", "a"),
        sender("SenderB", "b"),
        sender("SenderC", "c"),
        server(spin)
    );
    common::wat_bundle(&file, &wat, &prelude, &[]).unwrap()
}

fn limits(workers: usize) -> othismo_runtime::Limits {
    othismo_runtime::Limits {
        workers: Some(workers),
        ..common::limits()
    }
}

/// Every sender's writes were answered.
fn all_answered(ran: &common::Ran, workers: usize) {
    assert_eq!(ran.status, 0, "{workers} workers: {}", ran.err);
    for s in ["a", "b", "c"] {
        let done = ran
            .trace
            .lines()
            .filter(|l| l.starts_with(&format!("{s}:")) && l.contains("<- done"))
            .count();
        assert_eq!(done, SENT, "{workers} workers: answers to {s}");
    }
}

const ON_WORKERS: &str = "server: its calls take";

/// The calls the run made on workers, as its trace's last line says (it
/// says nothing when there were none).
fn on_workers(ran: &common::Ran) -> u64 {
    let last = ran.trace.lines().last().unwrap_or_default();
    match last.strip_suffix(" call(s) made on workers") {
        Some(n) => n.parse().unwrap(),
        None => 0,
    }
}

/// The tests here one at a time: a run's calls are timed, and one test's
/// four busy workers would slow the other's short calls.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

#[test]
fn each_senders_requests_arrive_in_order_on_several_workers() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let b = bundle(1_000_000);
    for workers in [1, 2, 4] {
        // Many runs: an ordering bug shows in some interleavings only (one
        // worker has one order).
        let runs = if workers == 1 { 1 } else { 20 };
        for _ in 0..runs {
            let ran = common::run_with(&b, &[], limits(workers));
            all_answered(&ran, workers);
            // With workers, the server's long calls went to them (and
            // `--trace` said so); with one, there is only the loop.
            let moved = ran
                .trace
                .lines()
                .any(|l| l.starts_with(ON_WORKERS) && l.ends_with("made on workers from now on"));
            assert_eq!(moved, workers > 1, "{workers} workers: {}", ran.trace);
            if workers > 1 {
                assert!(on_workers(&ran) > 0, "{workers} workers: {}", ran.trace);
            }
        }
    }
}

#[test]
fn short_calls_stay_on_the_loops_thread() {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let ran = common::run_with(&bundle(0), &[], limits(4));
    all_answered(&ran, 4);
    assert!(!ran.trace.contains(ON_WORKERS), "{}", ran.trace);
    assert_eq!(on_workers(&ran), 0, "{}", ran.trace);
}
