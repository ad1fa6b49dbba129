//! The checker end to end on in-memory programs: the bytes literals encode
//! to, the precedence of slot values, and what one-character mistakes in the
//! seed's example report.

mod common;
use common::root;
use std::collections::HashSet;
use std::path::PathBuf;

use bson::{Binary, Bson, doc, spec::BinarySubtype};
use othc::loader::MemoryLoader;
use othc::model::{Model, StartupPayload};
use othc::{Code, ValueInputs};

/// The hello example, with `edit` applied to one of its files.
fn hello(edit: Option<(&str, &str, &str)>) -> MemoryLoader {
    let mut l = MemoryLoader::new();
    for f in ["Hello.oth", "Greeter.oth", "Shouter.oth"] {
        let mut text = std::fs::read_to_string(root().join("examples/hello").join(f)).unwrap();
        if let Some((file, from, to)) = edit
            && file == f
        {
            assert!(text.contains(from), "{f} contains {from:?}");
            text = text.replacen(from, to, 1);
        }
        l.add(format!("hello/{f}"), text);
    }
    l
}

fn compile(l: &MemoryLoader, root: &str, inputs: &ValueInputs) -> othc::Compilation {
    othc::compile(l, &[PathBuf::from(root)], inputs).expect("loads")
}

fn errors(c: &othc::Compilation) -> Vec<Code> {
    c.front
        .diags
        .sorted()
        .into_iter()
        .filter(|d| d.severity == othc::Severity::Error)
        .map(|d| d.code)
        .collect()
}

fn image<'a>(m: &'a Model, name: &str) -> &'a othc::model::ImageDef {
    m.images.iter().find(|i| i.name == name).expect("image")
}

#[test]
fn the_seed_greeting_encodes_to_what_the_bson_crate_writes() {
    let c = compile(&hello(None), "hello/Hello.oth", &ValueInputs::default());
    assert_eq!(errors(&c), vec![]);
    let img = image(&c.checked.model, "Hello");
    let v = img.slots[0].value.as_ref().expect("the default is a value");
    let want =
        bson::to_vec(&doc! { "$type": "Greeting", "prefix": "Hi, ", "excited": false }).unwrap();
    assert_eq!(v.bytes, want);
    assert_eq!(v.content_type, "application/bson");
    assert_eq!(v.message.as_deref(), Some("Greeting"));
    assert_eq!(img.startup[0].payload, Some(StartupPayload::Slot(0)));
}

#[test]
fn slot_values_default_then_value_files_then_set() {
    let mut l = hello(None);
    l.add(
        "one.values",
        r#"greeting = Greeting { prefix: "One, ", excited: false }"#,
    );
    l.add(
        "two.values",
        r#"greeting = Greeting { excited: true, prefix: "Two, " }"#,
    );
    let bytes = |inputs: ValueInputs| {
        let c = compile(&l, "hello/Hello.oth", &inputs);
        assert_eq!(errors(&c), vec![]);
        let v = image(&c.checked.model, "Hello").slots[0]
            .value
            .clone()
            .unwrap();
        bson::from_slice::<bson::Document>(&v.bytes).unwrap()
    };
    let files = vec![PathBuf::from("one.values"), PathBuf::from("two.values")];
    let d = bytes(ValueInputs {
        files: files.clone(),
        sets: vec![],
    });
    assert_eq!(d.get_str("prefix").unwrap(), "Two, ");
    // Declaration order on the wire, whatever order the literal wrote.
    assert_eq!(d.keys().collect::<Vec<_>>(), ["$type", "prefix", "excited"]);
    let d = bytes(ValueInputs {
        files,
        sets: vec![r#"greeting=Greeting { prefix: "Set, ", excited: true }"#.into()],
    });
    assert_eq!(d.get_str("prefix").unwrap(), "Set, ");
}

#[test]
fn every_type_row_encodes_as_abi_md_says() {
    let mut l = MemoryLoader::new();
    l.add(
        "t.oth",
        r#"
        export schemas application/bson {
          message All {
            b: bool  s: string  raw: bytes  small: i8  mid: i16  word: i32  big: i64
            byte: u8  half: u16  unsigned: u32  single: f32  double: f64
            when: time  at: time  id: uuid  extra: any  maybe?: i32  none?: string
            list: [i32]  map: {string}  nested: Inner  style: Style
          }
          message Inner { x: i32 }
          message Note { text: string }
          enum Style { plain, shouted }
        }
        export object Sink { serves { /  write All } }
        export image T {
          instance sink = Sink
          write /sink All {
            style: "shouted", nested: { x: 7 }, map: { k: "v" }, list: [1, 2],
            none: null, extra: Note { text: "hi" }, id: "123e4567-e89b-12d3-a456-426614174000",
            at: 1792756800000, when: "2026-10-23T12:00:00Z", double: 0.1, single: 0.1, unsigned: 4294967295,
            half: 65535, byte: 255, big: -9223372036854775808, word: -5, mid: 300, small: -1,
            raw: "aGk=", s: "s", b: true
          }
        }"#,
    );
    let c = compile(&l, "t.oth", &ValueInputs::default());
    assert_eq!(errors(&c), vec![]);
    let Some(StartupPayload::Literal(Some(enc))) = &image(&c.checked.model, "T").startup[0].payload
    else {
        panic!("the startup payload is encoded")
    };
    let uuid = bson::Uuid::parse_str("123e4567-e89b-12d3-a456-426614174000").unwrap();
    let want = doc! {
        "$type": "All",
        "b": true,
        "s": "s",
        "raw": Binary { subtype: BinarySubtype::Generic, bytes: b"hi".to_vec() },
        "small": -1i32,
        "mid": 300i32,
        "word": -5i32,
        "big": i64::MIN,
        "byte": 255i32,
        "half": 65535i32,
        "unsigned": 4294967295i64,
        // An f32 is sent as the f32 nearest the literal (what the SDK writes).
        "single": f64::from(0.1f32),
        "double": 0.1f64,
        "when": bson::DateTime::from_millis(1792756800000),
        "at": bson::DateTime::from_millis(1792756800000),
        "id": Bson::Binary(Binary { subtype: BinarySubtype::Uuid, bytes: uuid.bytes().to_vec() }),
        "extra": { "$type": "Note", "text": "hi" },
        "list": [1i32, 2i32],
        "map": { "k": "v" },
        "nested": { "x": 7i32 },
        "style": "shouted",
    };
    assert_eq!(enc.bytes, bson::to_vec(&want).unwrap());
}

/// The files the labels of a diagnostic point into.
fn label_files(c: &othc::Compilation, code: Code) -> HashSet<String> {
    let d = c
        .front
        .diags
        .iter()
        .find(|d| d.code == code)
        .unwrap_or_else(|| panic!("a {code}"));
    std::iter::once(&d.primary)
        .chain(&d.labels)
        .map(|l| c.front.sources.get(l.at.file).name.clone())
        .collect()
}

#[test]
fn one_changed_character_in_the_seed_example_names_the_cause_on_both_sides() {
    let files = |v: &[&str]| {
        v.iter()
            .map(|s| format!("hello/{s}"))
            .collect::<HashSet<_>>()
    };
    // A type: the shouter need now sends text/plaim, which Shouter does not take.
    let c = compile(
        &hello(Some((
            "Greeter.oth",
            "needs /shouter {\n    /  write text/plain",
            "needs /shouter {\n    /  write text/plaim",
        ))),
        "hello/Hello.oth",
        &ValueInputs::default(),
    );
    assert_eq!(errors(&c), vec![Code::E0504]);
    assert_eq!(
        label_files(&c, Code::E0504),
        files(&["Hello.oth", "Greeter.oth", "Shouter.oth"])
    );
    // A verb: the Shouter serves `watch` rather than `write`.
    let c = compile(
        &hello(Some((
            "Shouter.oth",
            "/  write text/plain\n  }\n  needs",
            "/  watch text/plain\n  }\n  needs",
        ))),
        "hello/Hello.oth",
        &ValueInputs::default(),
    );
    assert_eq!(errors(&c), vec![Code::E0503]);
    assert_eq!(
        label_files(&c, Code::E0503),
        files(&["Hello.oth", "Greeter.oth", "Shouter.oth"])
    );
    // A mount: the greeter's console is mounted to the shouter.
    let c = compile(
        &hello(Some((
            "Hello.oth",
            "mount /dev/cons /cons\n    mount /shouter",
            "mount /dev/cons /loud\n    mount /shouter",
        ))),
        "hello/Hello.oth",
        &ValueInputs::default(),
    );
    assert_eq!(errors(&c), vec![Code::E0503]);
    assert_eq!(
        label_files(&c, Code::E0503),
        files(&["Hello.oth", "Greeter.oth", "Shouter.oth"])
    );
    // A mount source that names no instance.
    let c = compile(
        &hello(Some(("Hello.oth", "/shouter  /loud", "/shouter  /lout"))),
        "hello/Hello.oth",
        &ValueInputs::default(),
    );
    assert_eq!(errors(&c), vec![Code::E0501]);
    let d = c
        .front
        .diags
        .iter()
        .find(|d| d.code == Code::E0501)
        .unwrap();
    assert_eq!(d.help.as_deref(), Some("did you mean `/loud`?"));
}

#[test]
fn the_model_round_trips_through_serde_and_ignores_spans() {
    let c = compile(&hello(None), "hello/Hello.oth", &ValueInputs::default());
    let json = serde_json::to_string(&c.checked.model).unwrap();
    let back: Model = serde_json::from_str(&json).unwrap();
    assert_eq!(back, c.checked.model);
    // The same program from files with other names and layout is the same model, spans aside.
    let mut l = hello(None);
    let text = std::fs::read_to_string(root().join("examples/hello/Greeter.oth")).unwrap();
    l.add("hello/Greeter.oth", format!("\n\n{text}"));
    let moved = compile(&l, "hello/Hello.oth", &ValueInputs::default());
    assert_eq!(moved.checked.model, c.checked.model);
}

/// The fields and values kept when names repeat are the first of each name,
/// in the order written, with their own types and spans (lowering moves
/// them out of the syntax tree; this pins what it moves).
#[test]
fn repeated_member_names_keep_the_first_of_each() {
    let src =
        std::fs::read_to_string(root().join("fixtures/check/err/E0301_repeats_among_others.oth"))
            .unwrap();
    let mut l = MemoryLoader::new();
    l.add("r.oth", src.clone());
    let c = compile(&l, "r.oth", &ValueInputs::default());
    let m = &c.checked.model;
    let ty = |name: &str| {
        let k = m.types.iter().position(|t| t.name == name).unwrap();
        (&m.types[k], &c.checked.spans.types[k])
    };
    let (order, spans) = ty("Order");
    let othc::model::TypeKind::Message { fields } = &order.kind else {
        panic!("a message")
    };
    use othc::model::{FieldType, Scalar};
    let scalar = |s: &str| FieldType::Scalar(Scalar::parse(s).unwrap());
    let kept: Vec<(&str, &FieldType)> = fields.iter().map(|f| (f.name.as_str(), &f.ty)).collect();
    assert_eq!(
        kept,
        [
            ("zeta", &scalar("string")),
            ("alpha", &FieldType::Unknown),
            ("$id", &scalar("string")),
            ("beta", &scalar("i64")),
        ]
    );
    let texts: Vec<(&str, &str)> = spans
        .members
        .iter()
        .map(|&(name, ty)| (&src[name.range()], &src[ty.range()]))
        .collect();
    assert_eq!(
        texts,
        [
            ("zeta", "string"),
            ("alpha", "Missing"),
            ("$id", "string"),
            ("beta", "i64")
        ]
    );
    let (size, spans) = ty("Size");
    let othc::model::TypeKind::Enum { values } = &size.kind else {
        panic!("an enum")
    };
    let names: Vec<&str> = values.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["large", "small", "medium"]);
    assert_eq!(spans.members.len(), 3);
    assert_eq!(&src[spans.members[2].0.range()], "medium");
}
