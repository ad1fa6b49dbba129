//! Several workers (`--workers`): calls into instances run on worker
//! threads, and still each instance gets its deliveries in order and one
//! sender's requests to one receiver arrive in the order sent
//! (`fixtures/run/order/Order.oth`: the server traps on a number out of
//! order); every request is answered.

mod common;

/// A sender: 300 writes to `/s/X` in one burst, each carrying its number
/// (four bytes, little-endian).
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
    (br_if $more (i32.lt_u (local.get $n) (i32.const 300)))))
"#
    )
}

/// The server: one counter per path (`/a`, `/b`, `/c` by their second
/// byte); a number that is not the next one traps.
const SERVER: &str = r#";; object Server
(func (export "othismo_serve") (param $id i32) (param i32 i32) (param $pp i32) (param i32) (param i32 i32) (param $dp i32) (param i32)
  (local $slot i32)
  (local.set $slot (i32.add (i32.const 1024)
    (i32.mul (i32.const 4) (i32.sub (i32.load8_u (i32.add (local.get $pp) (i32.const 1))) (i32.const 97)))))
  (call $expect (i32.load (local.get $dp)) (i32.load (local.get $slot)))
  (i32.store (local.get $slot) (i32.add (i32.load (local.get $slot)) (i32.const 1)))
  (call $done (local.get $id)))
"#;

#[test]
fn each_senders_requests_arrive_in_order_on_several_workers() {
    let prelude = common::prelude();
    let file = common::root().join("fixtures/run/order/Order.oth");
    let wat = format!(
        "{}{}{}{SERVER}",
        sender("SenderA", "a"),
        sender("SenderB", "b"),
        sender("SenderC", "c")
    );
    let b = common::wat_bundle(&file, &wat, &prelude, &[]).unwrap();
    for workers in [1, 2, 4] {
        let limits = othismo_runtime::Limits {
            workers: Some(workers),
            ..common::limits()
        };
        // Many runs: an ordering bug shows in some interleavings only.
        for _ in 0..20 {
            let ran = common::run_with(&b, &[], limits.clone());
            assert_eq!(ran.status, 0, "{workers} workers: {}", ran.err);
            for s in ["a", "b", "c"] {
                let done = ran
                    .trace
                    .lines()
                    .filter(|l| l.starts_with(&format!("{s}:")) && l.contains("<- done"))
                    .count();
                assert_eq!(done, 300, "{workers} workers: answers to {s}");
            }
        }
    }
}
