//! The Rust guest's JSON codec (the `othismo` crate's `json`, and the
//! bindings `othc gen --lang rust` writes for JSON types), held to RFC 8259
//! and to independent readers (book: reference/json.md):
//! - every document of `fixtures/json/malformed/` (one class of malformed
//!   JSON each, which Python's `json` refuses too) and of
//!   `fixtures/json/refused/` (JSON the format refuses: duplicate keys,
//!   nesting past 100, a number beyond a double, lone surrogate escapes) is
//!   refused, never a panic;
//! - every document of `fixtures/json/valid/` is read and written back in
//!   the format's one form, which `serde_json` and Python's `json` read to
//!   the value the original holds;
//! - thousands of random `Note`s (`fixtures/codegen/json/json_notes.oth`),
//!   written by `serde_json` with keys in random order, random whitespace
//!   and `$type` anywhere or absent, decode into the generated struct and
//!   encode back with `$type` first, the fields in declaration order, every
//!   value as written (times in UTC, uuids in lower case).

mod common;
use common::{RootLoader, root};

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::{Map, Value, json};
use test_support::Rng;

const MAIN: &str = r#"
#[path = "json_notes.oth.rs"]
mod notes;

use std::io::{Read, Write};

fn main() {
    let mode = std::env::args().nth(1).unwrap();
    let mut input = Vec::new();
    std::io::stdin().read_to_end(&mut input).unwrap();
    let mut out = std::io::stdout().lock();
    let mut at = 0;
    while at + 4 <= input.len() {
        let mut n = [0u8; 4];
        n.copy_from_slice(&input[at..at + 4]);
        let len = u32::from_le_bytes(n) as usize;
        let bytes = &input[at + 4..at + 4 + len];
        at += 4 + len;
        let back = match mode.as_str() {
            "tree" => othismo::json::decode(bytes).map(|v| othismo::json::encode(&v)).map_err(|e| e.0),
            _ => {
                let p = othismo::Payload::new("application/json", bytes.to_vec());
                notes::Note::from_body(&p).map(|n| n.to_payload().data).ok_or_else(|| "not a Note".to_string())
            }
        };
        match back {
            Ok(b) => {
                let hex: String = b.iter().map(|b| format!("{:02x}", b)).collect();
                writeln!(out, "ok {}", hex).unwrap();
            }
            Err(e) => writeln!(out, "err {}", e).unwrap(),
        }
    }
}
"#;

/// Builds the host program once per test process: the bindings of the
/// JSON fixture and a main that reads documents and writes each back.
fn host() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_host).clone()
}

fn build_host() -> PathBuf {
    let rel = PathBuf::from("fixtures/codegen/json/json_notes.oth");
    let c = othc::compile(&RootLoader, &[rel], &Default::default()).unwrap();
    assert!(!c.front.diags.has_errors());
    let root_module = c.front.program.roots[0];
    let text = &c
        .front
        .sources
        .get(c.front.program.module(root_module).file)
        .text;
    let ix = othc::model::FileIx(root_module.0);
    let bindings = othc::backends::rust::generate(&c.checked.model, ix, text);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rust_json");
    let files = [
        ("json_notes.oth.rs", bindings.text.as_str()),
        ("main.rs", MAIN),
    ];
    test_support::host_program::build(&dir, &root().join("sdk/rust"), &files)
}

/// What the host made of each document: its bytes written back, or why
/// it refused it.
fn run(mode: &str, docs: &[Vec<u8>]) -> Vec<Result<Vec<u8>, String>> {
    let mut input = Vec::new();
    for d in docs {
        input.extend_from_slice(&(d.len() as u32).to_le_bytes());
        input.extend_from_slice(d);
    }
    let out = test_support::run_with_input(Command::new(host()).arg(mode), &input);
    assert!(
        out.status.success(),
        "the host failed (a panic?): {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<Result<Vec<u8>, String>> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| match l.split_once(' ') {
            Some(("ok", hex)) => Ok((0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect()),
            _ => Err(l.to_string()),
        })
        .collect();
    assert_eq!(lines.len(), docs.len(), "one line per document");
    lines
}

fn corpus(dir: &str) -> Vec<(String, Vec<u8>)> {
    let files = test_support::files_with_extension(&root().join(dir), "json");
    assert!(files.len() >= 4, "{dir} holds the corpus");
    files
        .into_iter()
        .map(|f| {
            let name = f.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&f).unwrap())
        })
        .collect()
}

#[test]
fn malformed_and_refused_documents_are_refused() {
    let mut docs = corpus("fixtures/json/malformed");
    docs.extend(corpus("fixtures/json/refused"));
    let bytes: Vec<Vec<u8>> = docs.iter().map(|(_, d)| d.clone()).collect();
    for ((name, _), got) in docs.iter().zip(run("tree", &bytes)) {
        assert!(
            got.is_err(),
            "{name} was read: {:?}",
            got.map(String::from_utf8)
        );
    }
    // Every prefix of a valid message is refused too (a document cut short
    // anywhere), never read as a message.
    let whole = br#"{"$type":"Note","title":"a\u00e9\ud83d\ude00","tags":["x"],"when":"2026-01-01T00:00:00.000Z","id":"123e4567-e89b-12d3-a456-426614174000","raw":"","count":-1,"small":2,"ratio":0.5,"score":1e300,"meta":{"a":1},"kind":"plain"}"#;
    let cuts: Vec<Vec<u8>> = (0..whole.len()).map(|n| whole[..n].to_vec()).collect();
    assert!(run("tree", &cuts).iter().all(Result::is_err));
    assert!(run("note", &cuts).iter().all(Result::is_err));
    assert!(
        run("note", &[whole.to_vec()])[0].is_ok(),
        "the whole is a Note"
    );
}

#[test]
fn valid_documents_are_written_back_as_the_same_value_in_one_form() {
    let docs = corpus("fixtures/json/valid");
    let bytes: Vec<Vec<u8>> = docs.iter().map(|(_, d)| d.clone()).collect();
    let back = run("tree", &bytes);
    python_reads_strictly(&back.iter().flatten().cloned().collect::<Vec<_>>());
    for ((name, doc), got) in docs.iter().zip(back) {
        let got = got.unwrap_or_else(|e| panic!("{name} was refused: {e}"));
        let ours: Value = serde_json::from_slice(&got)
            .unwrap_or_else(|e| panic!("{name}: serde_json cannot read what was written: {e}"));
        let theirs: Value = serde_json::from_slice(doc).unwrap();
        assert!(same(&ours, &theirs), "{name}: {ours} is not {theirs}");
        // The one form: written again, the same bytes.
        assert_eq!(
            run("tree", std::slice::from_ref(&got))[0].as_ref(),
            Ok(&got),
            "{name}"
        );
        // No whitespace outside strings.
        let text = String::from_utf8(got).unwrap();
        let mut in_string = false;
        let mut escaped = false;
        for c in text.chars() {
            match (in_string, escaped, c) {
                (true, true, _) => escaped = false,
                (true, false, '\\') => escaped = true,
                (_, false, '"') => in_string = !in_string,
                (false, _, ' ' | '\n' | '\t' | '\r') => panic!("{name}: whitespace in {text}"),
                _ => {}
            }
        }
    }
}

/// Whether two values are equal, numbers by value: `3` and `3.0` are one
/// number (JSON writes an integral float without its `.0`, as JavaScript
/// does); integers in i64's range are compared exactly, others as the
/// double nearest them (what the format reads them as).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        // Beyond i64, an integer is read as the nearest double.
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64()) {
            (Some(x), Some(y)) => x == y,
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// Python's `json`, refusing duplicate keys, `NaN` and the infinities,
/// reads each of `docs`.
fn python_reads_strictly(docs: &[Vec<u8>]) {
    let docs: Vec<&[u8]> = docs.iter().map(Vec::as_slice).collect();
    if let Some(out) = test_support::host_program::python_json(&docs, "") {
        assert!(
            out.status.success(),
            "Python's json refused what was written: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Whether each of `docs` is a valid `Note` by the JSON Schema `othc gen
/// --lang jsonschema` writes for the fixture, as Python's `jsonschema`
/// (draft 2020-12) says (`None` when it cannot run, outside CI).
fn validate_notes(docs: &[Vec<u8>]) -> Option<Vec<bool>> {
    if !test_support::runnable(test_support::ensure_python_module(
        "jsonschema",
        "jsonschema",
    )) {
        return None;
    }
    let rel = PathBuf::from("fixtures/codegen/json/json_notes.oth");
    let c = othc::compile(&RootLoader, &[rel], &Default::default()).unwrap();
    let ix = othc::model::FileIx(c.front.program.roots[0].0);
    let schema = othc::backends::json_schema::generate(&c.checked.model, ix);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rust_json_schema");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join(&schema.file_name);
    std::fs::write(&file, &schema.text).unwrap();
    let script = r##"
import json, sys, jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
schema["$ref"] = "#/$defs/Note"
v = jsonschema.Draft202012Validator(schema)
for line in sys.stdin.buffer.read().split(b"\n")[:-1]:
    print("valid" if v.is_valid(json.loads(line.decode("utf-8"))) else "invalid")
"##;
    let input: Vec<u8> = docs
        .iter()
        .flat_map(|d| d.iter().copied().chain([b'\n']))
        .collect();
    let mut cmd = Command::new("python3");
    cmd.args(["-c", script]).arg(&file);
    let out = test_support::run_with_input(&mut cmd, &input);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    Some(
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l == "valid")
            .collect(),
    )
}

/// Spaces, tabs and newlines, or nothing.
fn space(r: &mut Rng) -> &'static str {
    r.pick(&["", "", " ", "\n  ", "\t", "\r\n"])
}

/// `v` written with its object keys in a random order and random
/// whitespace between tokens (serde_json writes each scalar).
fn scramble(v: &Value, r: &mut Rng) -> String {
    match v {
        Value::Object(m) => {
            let mut keys: Vec<&String> = m.keys().collect();
            for i in (1..keys.len()).rev() {
                keys.swap(i, r.below(i + 1));
            }
            let parts: Vec<String> = keys
                .iter()
                .map(|k| {
                    let (a, b) = (space(r), space(r));
                    format!("{}{a}:{b}{}", json!(k), scramble(&m[*k], r))
                })
                .collect();
            format!(
                "{{{}{}{}}}",
                space(r),
                parts.join(&format!(",{}", space(r))),
                space(r)
            )
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(|i| scramble(i, r)).collect();
            format!("[{}{}]", space(r), parts.join(","))
        }
        other => other.to_string(),
    }
}

const UUIDS: &[&str] = &[
    "123e4567-e89b-12d3-a456-426614174000",
    "00000000-0000-0000-0000-000000000000",
    "FFFFFFFF-FFFF-FFFF-FFFF-FFFFFFFFFFFF",
];
const STRINGS: &[&str] = &[
    "",
    "plain",
    "quote \" and \\",
    "é 😀 \u{2028}",
    "\u{0}\u{1f}\n",
    "𝄞",
];

/// A random `Note` as JSON (with `$type` or not), and the value it must
/// come back as (canonical: `$type` first, fields in declaration order,
/// times in UTC with milliseconds, uuids in lower case).
fn note(r: &mut Rng) -> (Value, Vec<(String, Value)>) {
    let mut given: Vec<(String, Value, Value)> = Vec::new();
    let mut put = |k: &str, v: Value, back: Value| given.push((k.into(), v, back));
    let s = |r: &mut Rng| Value::from(r.pick(STRINGS));
    let t = s(r);
    put("title", t.clone(), t);
    if r.chance(50) {
        let b = s(r);
        put("body", b.clone(), b);
    } else if r.chance(50) {
        put("body", Value::Null, Value::Null);
    }
    let tags: Vec<Value> = (0..r.below(4)).map(|_| s(r)).collect();
    put("tags", Value::from(tags.clone()), Value::from(tags));
    let (when, back) = *r.pick(&[
        &("2026-12-08T09:30:00Z", "2026-12-08T09:30:00.000Z"),
        &("2026-12-08T11:30:00.5+02:00", "2026-12-08T09:30:00.500Z"),
        &("1969-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z"),
        &("0000-01-01T00:00:00.000Z", "0000-01-01T00:00:00.000Z"),
        &("9999-12-31t23:59:59.123456z", "9999-12-31T23:59:59.123Z"),
        &("+010000-01-01T00:00:00.000Z", "+010000-01-01T00:00:00.000Z"),
    ]);
    put("when", json!(when), json!(back));
    let id = r.pick(UUIDS);
    put("id", json!(id), json!(id.to_lowercase()));
    let (raw, raw_back) = *r.pick(&[
        &("", ""),
        &("/+4A", "/+4A"),
        &("aGk=", "aGk="),
        &("Zm9vYg==", "Zm9vYg=="),
    ]);
    put("raw", json!(raw), json!(raw_back));
    let count = *r.pick(&[&0i64, &-1, &i64::MIN, &i64::MAX, &9_007_199_254_740_993]);
    put("count", json!(count), json!(count));
    let small = r.below(256);
    put("small", json!(small), json!(small));
    let ratio = *r.pick(&[&0.5f32, &-1.25, &0.0, &1024.0]);
    put("ratio", json!(ratio), json!(ratio));
    let score = *r.pick(&[&0.1f64, &1e21, &-2.5e-7, &5e-324, &f64::MAX, &3.0]);
    put("score", json!(score), json!(score));
    let meta: Map<String, Value> = (0..r.below(3))
        .map(|i| (format!("k{i}"), json!(i as i32 - 1)))
        .collect();
    put("meta", Value::Object(meta.clone()), Value::Object(meta));
    let kind = *r.pick(&[&"plain", &"urgent"]);
    put("kind", json!(kind), json!(kind));
    if r.chance(30) {
        let x = json!({ "x": r.below(1000) as i32 - 500 });
        put("inner", x.clone(), x);
    }
    if r.chance(20) {
        put(
            "unknown_field",
            json!({"any": [1, {"shape": null}]}),
            Value::Null,
        );
    }
    let mut doc = Map::new();
    let typed = r.chance(60);
    if typed {
        doc.insert("$type".into(), json!("Note"));
    }
    let mut back = vec![("$type".to_string(), json!("Note"))];
    for (k, v, b) in given {
        doc.insert(k.clone(), v);
        if !b.is_null() {
            back.push((k, b));
        }
    }
    (Value::Object(doc), back)
}

#[test]
fn random_notes_come_back_as_written_in_one_form() {
    let mut r = Rng::new(58);
    let cases: Vec<(Value, Vec<(String, Value)>)> = (0..3000).map(|_| note(&mut r)).collect();
    let docs: Vec<Vec<u8>> = cases
        .iter()
        .map(|(doc, _)| scramble(doc, &mut r).into_bytes())
        .collect();
    let back = run("note", &docs);
    let written: Vec<Vec<u8>> = back.iter().flatten().cloned().collect();
    python_reads_strictly(&written);
    // Each is valid against the JSON Schema othc generates for `Note`; and
    // the schema is no rubber stamp: documents off by one rule are not.
    if let Some(valid) = validate_notes(&written) {
        assert_eq!(valid, vec![true; written.len()]);
    }
    let wrong = [
        r#"{"$type":"Other","title":"x","tags":[],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-000000000000","raw":"","count":1,"small":1,"ratio":1,"score":1,"meta":{},"kind":"plain"}"#,
        r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-000000000000","raw":"","count":1,"small":256,"ratio":1,"score":1,"meta":{},"kind":"plain"}"#,
        r#"{"title":"x","tags":[],"when":"yesterday","id":"00000000-0000-0000-0000-000000000000","raw":"","count":1,"small":1,"ratio":1,"score":1,"meta":{},"kind":"plain"}"#,
        r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-000000000000","raw":"Zg","count":1,"small":1,"ratio":1,"score":1,"meta":{},"kind":"plain"}"#,
        r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-000000000000","raw":"","count":1,"small":1,"ratio":1,"score":1,"meta":{},"kind":"loud"}"#,
        r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-000000000000","raw":"","count":1,"small":1,"ratio":1,"score":1,"meta":{"a":"b"},"kind":"plain"}"#,
        r#"{"title":"x","tags":[],"when":"2026-01-01T00:00:00.000Z","id":"00000000-0000-0000-0000-000000000000","raw":"","small":1,"ratio":1,"score":1,"meta":{},"kind":"plain"}"#,
    ];
    let wrong: Vec<Vec<u8>> = wrong.iter().map(|w| w.as_bytes().to_vec()).collect();
    if let Some(valid) = validate_notes(&wrong) {
        assert_eq!(valid, vec![false; wrong.len()]);
    }
    for ((doc, want), (got, sent)) in cases.iter().zip(back.into_iter().zip(&docs)) {
        let sent = String::from_utf8_lossy(sent);
        let got = got.unwrap_or_else(|e| panic!("{sent} was refused: {e}"));
        let text = String::from_utf8(got).unwrap();
        // serde_json keeps the object's keys sorted: the order is read
        // from the text, field by field.
        let value: Value = serde_json::from_str(&text).unwrap();
        let obj = value.as_object().unwrap();
        assert_eq!(obj.len(), want.len(), "{sent} → {text}");
        let mut last = 0;
        for (k, v) in want {
            let at = text.find(&format!("{}:", json!(k))).unwrap();
            assert!(at >= last, "{k} out of order in {text}");
            last = at;
            assert!(same(&obj[k], v), "{k} of {sent} → {text} (from {doc})");
        }
    }
}
