//! A checked literal in BSON, with the `bson` crate: the bytes the runtime
//! sends (book: reference/wire.md: `$type` first, then the fields in
//! declaration order; `u32` and `i64` as int64, smaller integers as int32,
//! `f32` as the double holding it, `time` as a UTC datetime, `uuid` as
//! binary subtype 4).

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};

use super::literal::Checked;

/// The payload of a checked message literal.
pub fn encode(c: &Checked) -> Result<Vec<u8>, String> {
    let Bson::Document(doc) = value(c) else {
        return Err("a payload is a message".into());
    };
    let mut bytes = Vec::new();
    doc.to_writer(&mut bytes).map_err(|e| e.to_string())?;
    Ok(bytes)
}

fn value(c: &Checked) -> Bson {
    match c {
        Checked::Bool(b) => Bson::Boolean(*b),
        Checked::Str(s) | Checked::Enum(s) => Bson::String(s.clone()),
        Checked::Int32(i) => Bson::Int32(*i),
        Checked::Int64(i) => Bson::Int64(*i),
        Checked::Double(f) => Bson::Double(*f),
        Checked::Float(f) => Bson::Double(f64::from(*f)),
        Checked::Time(ms) => Bson::DateTime(bson::DateTime::from_millis(*ms)),
        Checked::Uuid(u) => Bson::Binary(Binary {
            subtype: BinarySubtype::Uuid,
            bytes: u.to_vec(),
        }),
        Checked::Bytes(b) => Bson::Binary(Binary {
            subtype: BinarySubtype::Generic,
            bytes: b.clone(),
        }),
        Checked::List(items) => Bson::Array(items.iter().map(value).collect()),
        Checked::Map(entries) => Bson::Document(document(None, entries)),
        Checked::Message { type_name, fields } => {
            Bson::Document(document(type_name.as_deref(), fields))
        }
    }
}

fn document(type_name: Option<&str>, fields: &[(String, Checked)]) -> Document {
    let mut doc = Document::new();
    if let Some(t) = type_name {
        doc.insert("$type", t);
    }
    for (name, v) in fields {
        doc.insert(name.clone(), value(v));
    }
    doc
}
