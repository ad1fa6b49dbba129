//! BSON conformance between the Rust `bson` crate and the AssemblyScript
//! codec (the SDK plus generated classes), both ways, for every type row of
//! book: reference/wire.md:
//! - documents the `bson` crate writes decode in AS and re-encode to the same
//!   bytes (fields the classes do not know are skipped; a type with no class
//!   is kept whole as Unknown);
//! - documents the AS codec writes decode with the `bson` crate, hold the
//!   expected values, and re-encode to the same bytes;
//! - malformed documents are rejected, never trapping.
//!
//! The AS side (`tests/as/conformance.ts`, with the bindings of
//! `fixtures/codegen/everything.oth`) runs in node (`tests/as/host.cjs`).

mod common;
use common::{build_with_everything, root};
use std::path::{Path, PathBuf};
use std::process::Command;

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document, doc};
use othc_driver::toolchain::Profile;

/// Builds the conformance module once per test process.
fn module() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bson_conformance");
            let _ = std::fs::remove_dir_all(&dir);
            std::fs::create_dir_all(&dir).unwrap();
            build_with_everything(&dir, "compiler/tests/as/conformance.ts", Profile::Release)
        })
        .clone()
}

/// Runs the test host in `mode`: what it printed, or what it said when it
/// failed (a trap).
fn host(args: &[&Path], mode: &str) -> Result<String, String> {
    let out = Command::new("node")
        .arg(root().join("compiler/tests/as/host.cjs"))
        .arg(module())
        .arg(mode)
        .args(args)
        .output()
        .map_err(|e| format!("node: {e}"))?;
    if out.status.success() {
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// Decodes each document in AS: (status, re-encoded bytes) per input.
fn decode_in_as(name: &str, docs: &[Vec<u8>]) -> Vec<(u8, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("bson_{name}"));
    let _ = std::fs::remove_dir_all(&dir);
    let (inp, out) = (dir.join("in"), dir.join("out"));
    std::fs::create_dir_all(&inp).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    for (i, d) in docs.iter().enumerate() {
        std::fs::write(inp.join(format!("{i:03}.bin")), d).unwrap();
    }
    host(&[&inp, &out], "decode").unwrap_or_else(|e| panic!("the AS codec trapped: {e}"));
    (0..docs.len())
        .map(|i| {
            let b = std::fs::read(out.join(format!("{i:03}.out"))).unwrap();
            (b[0], b[1..].to_vec())
        })
        .collect()
}

fn uuid_bytes(last: u8) -> Vec<u8> {
    let mut b: Vec<u8> = (0..16).map(|i| (i * 17) as u8).collect();
    b[15] = last;
    b
}

fn uuid(last: u8) -> Bson {
    Bson::Binary(Binary {
        subtype: BinarySubtype::Uuid,
        bytes: uuid_bytes(last),
    })
}

fn bytes(b: &[u8]) -> Bson {
    Bson::Binary(Binary {
        subtype: BinarySubtype::Generic,
        bytes: b.to_vec(),
    })
}

fn scalars() -> Document {
    doc! {
        "$type": "Scalars",
        "b": true,
        "s": "héllo, wörld 😀",
        "raw": bytes(b"raw\0bytes"),
        "i8v": -128i32,
        "i16v": 32767i32,
        "i32v": i32::MIN,
        "i64v": i64::MAX,
        "u8v": 255i32,
        "u16v": 65535i32,
        "u32v": 4294967295i64,
        "f32v": 1.5f64,
        "f64v": -2.5e-300f64,
        "when": bson::DateTime::from_millis(1792756800000),
        "id": uuid(0xab),
        "extra": { "$type": "Note", "text": "inside any" },
    }
}

fn optionals() -> Document {
    doc! {
        "$type": "Optionals",
        "b": false,
        "n": -7i32,
        "mood": "class",
        "inner": { "label": "x", "default": 3i32 },
        "list": ["a", ""],
        "map": { "z": 1i64, "a": -1i64, "b": 2i64 },
    }
}

fn nested() -> Document {
    doc! {
        "$type": "Nested",
        "inner": { "label": "one", "default": 0i32 },
        "inners": [{ "label": "one", "default": 0i32 }, { "label": "", "default": 0i32 }],
        "grid": [[1i32, 2i32], []],
        "byName": { "k": { "label": "one", "default": 0i32 } },
        "tags": { "tagged": ["t"] },
        "moods": ["busy", "calm"],
        "anything": [{ "$type": "Note", "text": "n" }, { "$type": "Elsewhere", "x": 1i32 }],
    }
}

/// Every schema type in lists and maps, nested and optional: `time` and
/// `i64` side by side, which are one type in AssemblyScript and two on the
/// wire (the AS side builds the same value in `containers()`).
fn containers() -> Document {
    let t = bson::DateTime::from_millis;
    let note = |text: &str| doc! { "$type": "Note", "text": text };
    // In parts: one `doc!` this long passes the macro recursion limit.
    let mut d = doc! {
        "$type": "Containers",
        "bools": [true, false],
        "strings": ["a", "ü"],
        "blobs": [bytes(b"x"), bytes(b"")],
        "i8s": [-128i32, 127i32],
        "i16s": [-32768i32],
        "i32s": [i32::MAX],
        "i64s": [i64::MIN, 0i64],
        "u8s": [255i32],
        "u16s": [65535i32],
        "u32s": [4294967295i64],
        "f32s": [0.5f64],
        "f64s": [-0.25f64],
        "times": [t(0), t(1792756800000)],
        "ids": [uuid(1)],
        "anys": [note("in a list")],
        "moods": ["class"],
        "inners": [{ "label": "l", "default": 1i32 }],
    };
    d.extend(doc! {
        "boolMap": { "t": true },
        "stringMap": { "ключ 😀": "v" },
        "blobMap": { "b": bytes(b"\x01") },
        "i8Map": { "k": -1i32 },
        "i16Map": { "k": 2i32 },
        "i32Map": { "k": 3i32 },
        "i64Map": { "k": 4i64 },
        "u8Map": { "k": 5i32 },
        "u16Map": { "k": 6i32 },
        "u32Map": { "k": 7i64 },
        "f32Map": { "k": 8.5f64 },
        "f64Map": { "k": 9.25f64 },
        "timeMap": { "k": t(10) },
        "idMap": { "k": uuid(2) },
        "anyMap": { "k": note("in a map") },
        "moodMap": { "k": "busy" },
        "innerMap": { "k": { "label": "m", "default": 2i32 } },
    });
    d.extend(doc! {
        "i64Grid": [[11i64], []],
        "timeGrid": [[t(12)], []],
        "i64Lists": { "k": [13i64] },
        "timeLists": { "k": [t(14)] },
        "i64Maps": [{ "k": 15i64 }],
        "timeMaps": [{ "k": t(16) }],
        "timeCube": [[[t(17)]]],
        "someTimes": [t(18)],
        "someI64s": [19i64],
        "someTimeMap": { "k": t(20) },
        "someGrid": [[t(21)]],
    });
    d
}

/// A `Wide` (70 required fields: two words of flags in its reader), without
/// the fields named in `leave_out`.
fn wide(leave_out: &[usize]) -> Document {
    let mut d = doc! { "$type": "Wide" };
    for i in (0..70).filter(|i| !leave_out.contains(i)) {
        d.insert(format!("f{i}"), i as i32);
    }
    d
}

fn to_vec(d: &Document) -> Vec<u8> {
    bson::to_vec(d).unwrap()
}

#[test]
fn rust_documents_round_trip_through_the_as_codec() {
    let docs = [
        scalars(),
        optionals(),
        doc! { "$type": "Optionals" },
        nested(),
        doc! { "$type": "Note", "text": "" },
        containers(),
        wide(&[]),
        // A list long enough for index keys of one, two and three digits.
        doc! { "$type": "Optionals", "list": (0..120).map(|i| i.to_string()).collect::<Vec<_>>() },
        // A type this module has no class for: kept whole.
        doc! { "$type": "Elsewhere", "deep": { "a": [1i32, { "b": null }] }, "t": bson::Timestamp { time: 1, increment: 2 } },
    ];
    let bytes: Vec<Vec<u8>> = docs.iter().map(to_vec).collect();
    let got = decode_in_as("roundtrip", &bytes);
    for (i, ((status, out), input)) in got.iter().zip(&bytes).enumerate() {
        let want_status = if i == docs.len() - 1 { 2 } else { 1 };
        assert_eq!(*status, want_status, "document {i} ({:?}) decoded", docs[i]);
        assert_eq!(
            out,
            input,
            "document {i} re-encodes to the same bytes: {:?}",
            bson::from_slice::<Document>(out)
        );
    }
}

/// Messages decoded while the collector runs keep every field: the SDK
/// fills objects through offsets, and what it makes must stay reachable
/// (a message held only as an address is freed mid-decode: this traps).
#[test]
fn decoded_messages_survive_the_collector() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bson_stress");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, d) in [
        ("containers", containers()),
        ("nested", nested()),
        ("optionals", optionals()),
    ] {
        let input = dir.join(format!("{name}.bin"));
        std::fs::write(&input, to_vec(&d)).unwrap();
        let differ = host(&[&input, Path::new("2000")], "stress")
            .unwrap_or_else(|e| panic!("{name}: the AS codec trapped: {e}"));
        assert_eq!(
            differ.trim(),
            "0",
            "{name}: every one of 2000 decodes re-encodes to the first one's bytes"
        );
    }
}

/// The SDK's table of requests by number agrees with the standard Map
/// through random additions, removals and lookups, values kept alive by
/// it alone while the collector runs.
#[test]
fn the_sdk_request_table_agrees_with_a_map() {
    let differ = host(&[Path::new("numberTable")], "call")
        .unwrap_or_else(|e| panic!("the table test trapped: {e}"));
    assert_eq!(
        differ.trim(),
        "0",
        "steps at which the table and the Map disagree"
    );
}

/// A generated `fromPayload` takes a message of its own type only: its
/// `$type` is compared where it lies, byte for byte with the class's name.
#[test]
fn from_payload_takes_its_own_type_only() {
    let wrong = host(&[Path::new("fromPayloadChecksType")], "call")
        .unwrap_or_else(|e| panic!("the test trapped: {e}"));
    assert_eq!(wrong.trim(), "0", "answers of fromPayload that were wrong");
}

/// A shape whose descriptor does not lay out as its class does (bindings
/// from another othc than the SDK's) stops the module when it is made.
#[test]
fn a_shape_that_does_not_match_its_class_stops_the_module() {
    let err = host(&[Path::new("mismatchedShape")], "call")
        .expect_err("a shape with a field its class lacks is refused");
    assert!(
        err.contains("the bindings' class Note does not match this SDK; regenerate them"),
        "{err}"
    );
}

/// Readers try the field after the last one read first (documents usually
/// come in declaration order); fields in any other order are found as well.
#[test]
fn fields_in_any_order_decode_to_the_same_message() {
    let mut want = wide(&[]);
    want.insert("maybe", -1i32);
    let mut reversed = doc! { "$type": "Wide", "maybe": -1i32 };
    for i in (0..70).rev() {
        reversed.insert(format!("f{i}"), i);
    }
    let mut shuffled = doc! { "$type": "Wide" };
    for i in (0..70).map(|i| (i * 37) % 70) {
        shuffled.insert(format!("f{i}"), i);
        if i == 35 {
            shuffled.insert("maybe", -1i32);
        }
    }
    let nested_reversed = doc! {
        "$type": "Nested",
        "anything": [],
        "moods": ["busy"],
        "tags": {},
        "byName": {},
        "grid": [[1i32]],
        "inners": [{ "default": 2i32, "label": "b" }],
        "inner": { "default": 1i32, "label": "a" },
    };
    let nested_in_order = doc! {
        "$type": "Nested",
        "inner": { "label": "a", "default": 1i32 },
        "inners": [{ "label": "b", "default": 2i32 }],
        "grid": [[1i32]],
        "byName": {},
        "tags": {},
        "moods": ["busy"],
        "anything": [],
    };
    let got = decode_in_as(
        "any_order",
        &[
            to_vec(&reversed),
            to_vec(&shuffled),
            to_vec(&nested_reversed),
        ],
    );
    for (i, want) in [&want, &want, &nested_in_order].into_iter().enumerate() {
        assert_eq!(got[i].0, 1, "document {i} decoded");
        assert_eq!(
            &got[i].1,
            &to_vec(want),
            "document {i} in declaration order"
        );
    }
}

#[test]
fn unknown_fields_of_every_bson_type_are_skipped_and_null_is_absent() {
    let mut noisy = doc! { "$type": "Note" };
    noisy.insert("double", 1.5f64);
    noisy.insert("doc", doc! { "x": 1i32 });
    noisy.insert("array", vec![Bson::Int32(1)]);
    noisy.insert("binary", bytes(b"zz"));
    noisy.insert("undefined", Bson::Undefined);
    noisy.insert("oid", bson::oid::ObjectId::from_bytes([7; 12]));
    noisy.insert("bool", true);
    noisy.insert("date", bson::DateTime::from_millis(5));
    noisy.insert("null", Bson::Null);
    noisy.insert(
        "regex",
        bson::Regex {
            pattern: "a+".into(),
            options: "i".into(),
        },
    );
    noisy.insert("code", Bson::JavaScriptCode("f()".into()));
    noisy.insert("int32", 1i32);
    noisy.insert(
        "ts",
        bson::Timestamp {
            time: 3,
            increment: 4,
        },
    );
    noisy.insert("int64", 1i64);
    noisy.insert(
        "dec",
        Bson::Decimal128(bson::Decimal128::from_bytes([1; 16])),
    );
    noisy.insert("min", Bson::MinKey);
    noisy.insert("max", Bson::MaxKey);
    noisy.insert("text", "kept");
    let with_null =
        doc! { "$type": "Optionals", "b": Bson::Null, "s": Bson::Null, "inner": Bson::Null };
    let got = decode_in_as("skipping", &[to_vec(&noisy), to_vec(&with_null)]);
    assert_eq!(got[0].0, 1);
    assert_eq!(got[0].1, to_vec(&doc! { "$type": "Note", "text": "kept" }));
    assert_eq!(got[1].0, 1);
    assert_eq!(got[1].1, to_vec(&doc! { "$type": "Optionals" }));
}

#[test]
fn as_documents_decode_with_the_bson_crate() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("bson_make");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    host(&[&dir], "make").unwrap_or_else(|e| panic!("the AS codec trapped: {e}"));
    let expected = [
        scalars(),
        optionals(),
        doc! { "$type": "Optionals" },
        nested(),
        containers(),
    ];
    for (i, want) in expected.iter().enumerate() {
        let out = std::fs::read(dir.join(format!("{i}.out"))).unwrap();
        let written = &out[1..];
        let d: Document =
            bson::from_slice(written).unwrap_or_else(|e| panic!("value {i} is BSON: {e}"));
        assert_eq!(&d, want, "value {i} holds what the AS side set");
        assert_eq!(
            to_vec(&d),
            written,
            "value {i} re-encodes to the same bytes"
        );
    }
}

#[test]
fn malformed_documents_are_rejected_without_a_trap() {
    let good = to_vec(&scalars());
    let mut cases: Vec<(&str, Vec<u8>)> = vec![
        ("empty", vec![]),
        ("four bytes", vec![5, 0, 0, 0]),
        ("truncated", good[..good.len() / 2].to_vec()),
    ];
    cases.push(("truncated by one", good[..good.len() - 1].to_vec()));
    let mut longer = good.clone();
    longer[0] = longer[0].wrapping_add(1);
    cases.push(("declared length too long", longer));
    let mut shorter = good.clone();
    shorter[0] = shorter[0].wrapping_sub(1);
    cases.push(("declared length too short", shorter));
    let mut no_end = good.clone();
    *no_end.last_mut().unwrap() = 1;
    cases.push(("no final zero", no_end));
    let mut huge_string = to_vec(&doc! { "$type": "Note", "text": "abc" });
    let at = huge_string.len() - 9; // the string's length field
    huge_string[at..at + 4].copy_from_slice(&i32::MAX.to_le_bytes());
    cases.push(("string length past the end", huge_string));
    let mut neg_string = to_vec(&doc! { "$type": "Note", "text": "abc" });
    let at = neg_string.len() - 9;
    neg_string[at..at + 4].copy_from_slice(&(-5i32).to_le_bytes());
    cases.push(("negative string length", neg_string));
    let mut bad_type = to_vec(&doc! { "$type": "Note", "text": "abc" });
    let at = bad_type.len() - 15; // the element type byte of `text`
    bad_type[at] = 0x42;
    cases.push(("unknown element type", bad_type));
    cases.push((
        "wrong field type",
        to_vec(&doc! { "$type": "Note", "text": 5i32 }),
    ));
    cases.push((
        "missing required field",
        to_vec(&doc! { "$type": "Inner", "label": "x" }),
    ));
    cases.push(("missing the first required field", to_vec(&wide(&[0]))));
    cases.push((
        "missing the 64th required field (the first word's last bit)",
        to_vec(&wide(&[63])),
    ));
    cases.push((
        "missing the 65th required field (the second word's first bit)",
        to_vec(&wide(&[64])),
    ));
    cases.push((
        "missing the last required field (in the second word)",
        to_vec(&wide(&[69])),
    ));
    cases.push(("a required field twice, another missing", {
        let mut d = wide(&[5]);
        d.insert("f5x", 0i32);
        let mut bytes = to_vec(&d);
        // `f5x` renamed `f4` in place: `f4` twice, `f5` never.
        let at = bytes
            .windows(4)
            .position(|w| w == b"f5x\0")
            .expect("the key is there");
        bytes[at..at + 3].copy_from_slice(b"f4\0");
        bytes.remove(at + 3);
        let n = bytes.len() as i32;
        bytes[..4].copy_from_slice(&n.to_le_bytes());
        bytes
    }));
    cases.push(("int out of range for u8", {
        let mut d = scalars();
        d.insert("u8v", 256i32);
        to_vec(&d)
    }));
    cases.push(("uuid of the wrong length", {
        let mut d = scalars();
        d.insert(
            "id",
            Bson::Binary(Binary {
                subtype: BinarySubtype::Uuid,
                bytes: vec![1, 2, 3],
            }),
        );
        to_vec(&d)
    }));
    cases.push((
        "bad enum value",
        to_vec(&doc! { "$type": "Optionals", "mood": "angry" }),
    ));
    cases.push(("no $type", to_vec(&doc! { "text": "abc" })));
    cases.push((
        "$type not first",
        to_vec(&doc! { "text": "abc", "$type": "Note" }),
    ));
    cases.push(("list of the wrong items", {
        let mut d = nested();
        d.insert("grid", vec![Bson::String("x".into())]);
        to_vec(&d)
    }));
    cases.push(("i64 in a list of time", {
        let mut d = containers();
        d.insert("times", vec![Bson::Int64(1)]);
        to_vec(&d)
    }));
    cases.push(("time in a list of i64", {
        let mut d = containers();
        d.insert(
            "i64Grid",
            vec![vec![Bson::DateTime(bson::DateTime::from_millis(1))]],
        );
        to_vec(&d)
    }));
    cases.push(("any without $type", {
        let mut d = scalars();
        d.insert("extra", doc! { "text": "x" });
        to_vec(&d)
    }));
    cases.push(("bool that is not 0 or 1", {
        let mut b = to_vec(&doc! { "$type": "Optionals", "b": true });
        let at = b.len() - 2;
        b[at] = 7;
        b
    }));
    let inputs: Vec<Vec<u8>> = cases.iter().map(|(_, b)| b.clone()).collect();
    let got = decode_in_as("malformed", &inputs);
    for ((name, _), (status, _)) in cases.iter().zip(&got) {
        assert_eq!(*status, 0, "{name}: rejected");
    }
}
