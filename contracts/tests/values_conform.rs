//! The generators and the checker agree: every message generated for every
//! type of `fixtures/codegen/everything.oth` (every scalar, optional,
//! list, map, enum, `any`, nested messages) is a BSON document the `bson`
//! crate reads and `conform` takes as that type, and a document changed in
//! a declared field is not.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use othc::model::{PayloadType, TypeId, TypeKind};
use othc_contracts::choices::Choices;
use othc_contracts::{conform, values};
use othismo_runtime::Payload;

struct Disk;

impl othc::loader::Loader for Disk {
    fn load(&self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn generated_messages_are_what_their_types_declare() {
    let file = root().join("fixtures/codegen/everything.oth");
    let c = othc::compile(&Disk, &[file], &othc::ValueInputs::default()).unwrap();
    assert!(!c.front.diags.has_errors());
    let model = &c.checked.model;
    let messages: Vec<TypeId> = (0..model.types.len())
        .map(|i| TypeId(i as u32))
        .filter(|t| matches!(model.ty(*t).kind, TypeKind::Message { .. }))
        .collect();
    assert!(messages.len() > 3);
    let mut checked = 0;
    for seed in 0..300 {
        for &t in &messages {
            let mut ch = Choices::new(seed);
            let doc = values::message(model, t, &mut ch);
            let bytes = values::encode(&doc);
            let back =
                bson::Document::from_reader(bytes.as_slice()).expect("the bson crate reads it");
            assert_eq!(back, doc);
            let p = Payload {
                content_type: Arc::from("application/bson"),
                data: bytes,
            };
            let ty = PayloadType::Message(t);
            assert_eq!(
                conform::mismatch(model, &ty, &p),
                None,
                "{} (seed {seed}): {doc}",
                model.ty(t).name
            );
            // Renamed, it is another type; cut, it is no document.
            let mut other = doc.clone();
            other.insert("$type", "SomethingElse");
            let p2 = Payload {
                data: values::encode(&other),
                ..p.clone()
            };
            assert!(conform::mismatch(model, &ty, &p2).is_some());
            let cut = Payload {
                data: p.data[..p.data.len() - 1].to_vec(),
                ..p.clone()
            };
            assert!(conform::mismatch(model, &ty, &cut).is_some());
            checked += 1;
        }
    }
    assert!(checked > 1000);
}

#[test]
fn a_field_of_another_kind_is_named_in_the_mismatch() {
    let file = root().join("fixtures/codegen/everything.oth");
    let c = othc::compile(&Disk, &[file], &othc::ValueInputs::default()).unwrap();
    let model = &c.checked.model;
    // A message with a required field: that field made a string of digits
    // where it is no string, or removed.
    for k in 0..model.types.len() {
        let t = TypeId(k as u32);
        let TypeKind::Message { fields } = &model.ty(t).kind else {
            continue;
        };
        let Some(f) = fields.iter().find(|f| {
            !f.optional && !matches!(f.ty, othc::model::FieldType::Scalar(othc::model::Scalar::String))
                && !matches!(f.ty, othc::model::FieldType::Named(n) if matches!(model.ty(n).kind, TypeKind::Enum { .. }))
        }) else {
            continue;
        };
        let mut doc = values::message(model, t, &mut Choices::new(1));
        doc.insert(f.name.as_str(), "123");
        let p = Payload {
            content_type: Arc::from("application/bson"),
            data: values::encode(&doc),
        };
        let why = conform::mismatch(model, &PayloadType::Message(t), &p).expect("a mismatch");
        assert!(why.contains(&f.name), "{why}");
        doc.remove(&f.name);
        let p = Payload {
            data: values::encode(&doc),
            ..p
        };
        let why = conform::mismatch(model, &PayloadType::Message(t), &p).expect("a mismatch");
        assert!(why.contains("missing"), "{why}");
        return;
    }
    panic!("everything.oth has a message with a required field that is no string");
}
