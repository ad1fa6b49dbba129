//! The formats a contract test sends and reads messages in. A message is
//! made and judged as the `bson` crate's document (BSON's kinds), and goes
//! on the wire in its type's format. JSON is written by the Rust SDK's
//! writer (the one form every encoder of the format writes) and read by
//! its strict reader, into a document whose numbers are int64 or double
//! and whose `time`, `uuid` and `bytes` are strings: `conform` reads those
//! by the field's type, as the SDKs do.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};
use othc::model::ContentType;
use othismo::bson::Value;

/// The wire a payload of content type `ct` is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Bson,
    Json,
}

impl Wire {
    pub fn of(ct: &str) -> Wire {
        if ContentType::parse(ct).essence() == "application/json" {
            Wire::Json
        } else {
            Wire::Bson
        }
    }

    /// A message's document, on this wire.
    pub fn encode(self, d: &Document) -> Vec<u8> {
        match self {
            Wire::Bson => crate::values::encode(d),
            Wire::Json => othismo::json::encode(&tree(&Bson::Document(d.clone()))),
        }
    }

    /// The document a payload on this wire holds, or why it holds none.
    pub fn decode(self, bytes: &[u8]) -> Result<Document, String> {
        match self {
            Wire::Bson => {
                Document::from_reader(bytes).map_err(|e| format!("it is not a BSON document ({e})"))
            }
            Wire::Json => match othismo::json::decode(bytes) {
                Ok(Value::Document(d)) => Ok(document(&d)),
                Ok(_) => Err("it is JSON, but not an object".into()),
                Err(e) => Err(format!("it is not JSON ({e})")),
            },
        }
    }
}

/// A `bson` value in the SDK's tree (the same kinds).
fn tree(b: &Bson) -> Value {
    match b {
        Bson::Double(x) => Value::Double(*x),
        Bson::String(s) => Value::String(s.clone()),
        Bson::Document(d) => Value::Document(othismo::bson::Document {
            fields: d.iter().map(|(k, v)| (k.clone(), tree(v))).collect(),
        }),
        Bson::Array(items) => Value::Array(items.iter().map(tree).collect()),
        Bson::Binary(b) => Value::Binary(u8::from(b.subtype), b.bytes.clone()),
        Bson::Boolean(b) => Value::Bool(*b),
        Bson::DateTime(t) => Value::DateTime(t.timestamp_millis()),
        Bson::Int32(n) => Value::Int32(*n),
        Bson::Int64(n) => Value::Int64(*n),
        _ => Value::Null,
    }
}

/// The SDK's tree as a `bson` document.
fn document(d: &othismo::bson::Document) -> Document {
    d.fields
        .iter()
        .map(|(k, v)| (k.clone(), value(v)))
        .collect()
}

fn value(v: &Value) -> Bson {
    match v {
        Value::Double(x) => Bson::Double(*x),
        Value::String(s) => Bson::String(s.clone()),
        Value::Document(d) => Bson::Document(document(d)),
        Value::Array(items) => Bson::Array(items.iter().map(value).collect()),
        Value::Binary(sub, bytes) => Bson::Binary(Binary {
            subtype: BinarySubtype::from(*sub),
            bytes: bytes.clone(),
        }),
        Value::Bool(b) => Bson::Boolean(*b),
        Value::DateTime(ms) => Bson::DateTime(bson::DateTime::from_millis(*ms)),
        Value::Int32(n) => Bson::Int32(*n),
        Value::Int64(n) => Bson::Int64(*n),
        Value::Null | Value::Other(..) => Bson::Null,
    }
}
