//! The Rust SDK's JSON codec (`othismo::json`, what a Rust object reads and
//! writes JSON messages with) beside `serde_json`, and beside the SDK's own
//! BSON codec on the same message, in the same run, the sides alternating
//! in rounds: ns per decode and encode of a small message (a note) and a
//! large one (lists, maps, nested messages; ~60 KB), and the median
//! round's ratio SDK / serde_json. Both read into an untyped tree (the
//! SDK's `Value`, serde_json's `Value`), so the work compared is the same.
//! Measured natively (the codec's code as a wasm guest runs it, compiled
//! for this machine). Goal: within 1.2× of serde_json. Numbers, not
//! assertions.

use std::time::Instant;

use serde_json::json;

fn small() -> serde_json::Value {
    json!({
        "$type": "Note", "title": "buy milk", "tags": ["home", "today"],
        "when": "2026-12-08T09:30:00.000Z", "id": "123e4567-e89b-12d3-a456-426614174000",
        "count": 42, "ratio": 0.25, "done": false
    })
}

fn large() -> serde_json::Value {
    let notes: Vec<serde_json::Value> = (0..200)
        .map(|i| {
            json!({
                "title": format!("note number {i} with \"quotes\" and é"),
                "tags": ["a", "b", format!("t{i}")],
                "when": "2026-12-08T09:30:00.000Z",
                "count": i * 1_000_003, "ratio": (i as f64) / 7.0,
                "meta": { "x": i, "y": -i, "z": 0.5 },
            })
        })
        .collect();
    json!({ "$type": "Board", "name": "the board", "notes": notes })
}

fn main() {
    for (name, v) in [("small", small()), ("large", large())] {
        let text = serde_json::to_vec(&v).unwrap();
        let tree = othismo::json::decode(&text).expect("the SDK reads it");
        let doc = match &tree {
            othismo::bson::Value::Document(d) => d.clone(),
            _ => unreachable!("an object"),
        };
        let bson_bytes = doc.encode();
        // Enough iterations for a round of about 50 ms.
        let n = (5_000_000 / text.len()).max(20);
        let mut ratios_decode = Vec::new();
        let mut ratios_encode = Vec::new();
        let (mut ours_d, mut theirs_d, mut bson_d) = (Vec::new(), Vec::new(), Vec::new());
        let (mut ours_e, mut theirs_e, mut bson_e) = (Vec::new(), Vec::new(), Vec::new());
        for _ in 0..9 {
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(othismo::json::decode(std::hint::black_box(&text)).unwrap());
            }
            let a = per_op(t, n);
            let t = Instant::now();
            for _ in 0..n {
                let v: serde_json::Value =
                    serde_json::from_slice(std::hint::black_box(&text)).unwrap();
                std::hint::black_box(v);
            }
            let b = per_op(t, n);
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(othismo::bson::Document::decode(&bson_bytes).unwrap());
            }
            let c = per_op(t, n);
            ratios_decode.push(a / b);
            ours_d.push(a);
            theirs_d.push(b);
            bson_d.push(c);

            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(othismo::json::encode(std::hint::black_box(&tree)));
            }
            let a = per_op(t, n);
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(serde_json::to_vec(std::hint::black_box(&v)).unwrap());
            }
            let b = per_op(t, n);
            let t = Instant::now();
            for _ in 0..n {
                std::hint::black_box(doc.encode());
            }
            let c = per_op(t, n);
            ratios_encode.push(a / b);
            ours_e.push(a);
            theirs_e.push(b);
            bson_e.push(c);
        }
        println!(
            "{name} ({} bytes of JSON, {} of BSON):",
            text.len(),
            bson_bytes.len()
        );
        println!(
            "  decode: SDK json {:>9.0} ns   serde_json {:>9.0} ns   ratio {:.2} (goal ≤ 1.2)   SDK bson {:>9.0} ns",
            median(ours_d),
            median(theirs_d),
            median(ratios_decode),
            median(bson_d)
        );
        println!(
            "  encode: SDK json {:>9.0} ns   serde_json {:>9.0} ns   ratio {:.2} (goal ≤ 1.2)   SDK bson {:>9.0} ns",
            median(ours_e),
            median(theirs_e),
            median(ratios_encode),
            median(bson_e)
        );
    }
}

fn per_op(t: Instant, n: usize) -> f64 {
    t.elapsed().as_nanos() as f64 / n as f64
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}
