//! BSON conformance of the Rust codec (the `othismo` crate and the
//! bindings `othc gen --lang rust` writes) with the `bson` crate, for every
//! type of `fixtures/codegen/everything.oth`: thousands of messages of every
//! message type (every scalar at its edges, optional fields present and
//! absent, lists empty and long, maps, enums, `any`, nested messages),
//! written by the `bson` crate, decode into the generated Rust types and
//! encode back to the same bytes, byte for byte; documents cut short are
//! refused, never a panic. (The AssemblyScript codec is held to the same
//! crate by `compiler/tests/bson_conformance.rs`: the two exchange every
//! message type through it.)

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use othc::model::{FileIx, TypeId, TypeKind};
use othc_contracts::choices::Choices;
use othc_contracts::values;

struct Disk;

impl othc::loader::Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

const MAIN: &str = r#"
#[path = "everything.oth.rs"]
mod everything;

use std::io::{Read, Write};
use othismo::bson::{Document, Field, Value, Wire};

fn main() {
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
        let read = Document::decode(bytes).and_then(|d| everything::AnyMessage::from_value(&Value::Document(d), Wire::Bson));
        match read {
            Ok(m) => {
                let back = match m.to_value() {
                    Value::Document(d) => d.encode(),
                    _ => Vec::new(),
                };
                let hex: String = back.iter().map(|b| format!("{:02x}", b)).collect();
                writeln!(out, "ok {}", hex).unwrap();
            }
            Err(e) => writeln!(out, "err {}", e).unwrap(),
        }
    }
}
"#;

#[test]
fn every_message_type_round_trips_through_the_rust_codec_byte_for_byte() {
    let file = root().join("fixtures/codegen/everything.oth");
    let c = othc::compile(
        &Disk,
        std::slice::from_ref(&file),
        &othc::ValueInputs::default(),
    )
    .unwrap();
    assert!(!c.front.diags.has_errors());
    let model = &c.checked.model;
    let text = &c
        .front
        .sources
        .get(c.front.program.module(c.front.program.roots[0]).file)
        .text;
    let bindings = othc::backends::rust::generate(model, FileIx(c.front.program.roots[0].0), text);

    // The host program: the bindings and a main that reads documents and
    // writes each back as it decoded it.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("rust_codec");
    let files = [
        ("everything.oth.rs", bindings.text.as_str()),
        ("main.rs", MAIN),
    ];
    let host = test_support::host_program::build(&dir, &root().join("sdk/rust"), &files);

    let messages: Vec<TypeId> = (0..model.types.len())
        .map(|i| TypeId(i as u32))
        .filter(|t| matches!(model.ty(*t).kind, TypeKind::Message { .. }))
        .collect();
    let mut docs: Vec<Vec<u8>> = Vec::new();
    for seed in 0..600 {
        for &t in &messages {
            let d = values::plain_message(model, t, &mut Choices::new(seed));
            let mut bytes = Vec::new();
            d.to_writer(&mut bytes).unwrap();
            // The `bson` crate reads its own bytes back to the same bytes.
            let again = bson::Document::from_reader(bytes.as_slice()).unwrap();
            let mut b2 = Vec::new();
            again.to_writer(&mut b2).unwrap();
            assert_eq!(b2, bytes);
            docs.push(bytes);
        }
    }
    // Cut short: refused, never a panic.
    let cut: Vec<Vec<u8>> = docs
        .iter()
        .take(200)
        .map(|d| d[..d.len() / 2].to_vec())
        .collect();
    let mut input = Vec::new();
    for d in docs.iter().chain(&cut) {
        input.extend_from_slice(&(d.len() as u32).to_le_bytes());
        input.extend_from_slice(d);
    }
    let mut run = Command::new(&host)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = run.stdin.take().unwrap();
    let feed = std::thread::spawn(move || stdin.write_all(&input));
    let out = run.wait_with_output().unwrap();
    feed.join().unwrap().unwrap();
    assert!(out.status.success(), "the codec panicked");
    let lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect();
    assert_eq!(lines.len(), docs.len() + cut.len());
    for (i, d) in docs.iter().enumerate() {
        let hex: String = d.iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            lines[i],
            format!("ok {hex}"),
            "document {i} ({}) came back changed",
            bson::Document::from_reader(d.as_slice()).unwrap()
        );
    }
    for (i, l) in lines[docs.len()..].iter().enumerate() {
        assert!(l.starts_with("err "), "cut document {i} was taken: {l}");
    }
    assert!(docs.len() >= 3000, "{}", docs.len());
}
