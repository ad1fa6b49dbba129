//! A literal of a JSON message type is encoded at build time to the one
//! form the format's book page gives (book: reference/json.md), and that
//! form is JSON that independent readers take with every value exact:
//! - the encoding of `fixtures/check/ok/json_literals.oth` (every type row,
//!   at its edges) is held by the snapshot `json__literals`;
//! - `serde_json` reads it back to the values the literal wrote;
//! - Python's `json`, told to refuse what RFC 8259 does not allow
//!   (duplicate keys, `NaN`, `Infinity`), reads it and writes back the same
//!   values (its integers are exact, so `i64::MIN` survives).

mod common;
use common::{RootLoader, root};

use std::path::PathBuf;

use othc::model::StartupPayload;

fn encoded() -> Vec<u8> {
    let file = PathBuf::from("fixtures/check/ok/json_literals.oth");
    let c = othc::compile(&RootLoader, &[file], &Default::default()).expect("loads");
    assert!(!c.front.diags.has_errors(), "the fixture checks");
    let model = &c.checked.model;
    let image = model
        .images
        .iter()
        .find(|i| i.name == "T")
        .expect("image T");
    let Some(StartupPayload::Literal(Some(enc))) = &image.startup[0].payload else {
        panic!("the startup payload is encoded")
    };
    assert_eq!(&*enc.content_type, "application/json");
    enc.bytes.clone()
}

#[test]
fn every_type_row_encodes_as_the_book_says() {
    let text = String::from_utf8(encoded()).expect("JSON is UTF-8");
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(root().join("snapshots"));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind(|| insta::assert_snapshot!("json__literals", text));
}

#[test]
fn serde_json_reads_back_what_the_literal_wrote() {
    let v: serde_json::Value = serde_json::from_slice(&encoded()).expect("serde_json reads it");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys[0], "$type", "the type first");
    assert_eq!(v["$type"], "All");
    assert_eq!(v["big"].as_i64(), Some(i64::MIN));
    assert_eq!(v["unsigned"].as_u64(), Some(4_294_967_295));
    assert_eq!(v["double"].as_f64(), Some(0.1));
    assert_eq!(v["single"].as_f64().map(|f| f as f32), Some(0.1f32));
    assert_eq!(v["huge"].as_f64(), Some(1e21));
    assert_eq!(v["tiny"].as_f64(), Some(1.5e-7));
    assert_eq!(v["when"], "2026-10-23T10:00:00.500Z");
    assert_eq!(v["past"], "1969-12-31T23:59:59.999Z");
    assert_eq!(v["id"], "123e4567-e89b-12d3-a456-426614174000");
    assert_eq!(v["raw"], "/+4A");
    assert_eq!(v["s"], "quote \" backslash \\ newline \n tab \t bell \u{7}");
    assert_eq!(v["unicode"], "é 😀 \u{2028}");
    assert_eq!(
        v["extra"]["$type"], "Note",
        "an `any` field carries its type"
    );
    assert!(
        v["nested"].get("$type").is_none(),
        "a message field does not"
    );
    assert!(
        v.get("none").is_none(),
        "an optional field given null is absent"
    );
    assert_eq!(v["nested"]["deeper"]["x"], -8);
    assert_eq!(v["map"]["with space"], "w");
}

#[test]
fn python_json_reads_it_strictly_and_exactly() {
    let check = r#"
assert v["big"] == -9223372036854775808, v["big"]
assert v["unsigned"] == 4294967295
assert v["double"] == 0.1
assert list(v.keys())[0] == "$type"
print(json.dumps(v, sort_keys=True, ensure_ascii=False))
"#;
    let Some(out) = test_support::host_program::python_json(&[&encoded()], check) else {
        return;
    };
    assert!(
        out.status.success(),
        "Python's json refused it: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    // What Python read is what serde_json read.
    let python: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ours: serde_json::Value = serde_json::from_slice(&encoded()).unwrap();
    assert_eq!(python, ours);
}
