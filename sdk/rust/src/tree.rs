//! The tree a message is read into and written from, whatever its format
//! (BSON's kinds of value, which JSON's map onto: `field`, `json`): a
//! document is its elements in order, each a name and a value.

use std::fmt;

/// An element's value (BSON's kinds).
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Double(f64),
    String(String),
    Document(Document),
    Array(Vec<Value>),
    /// Subtype and bytes.
    Binary(u8, Vec<u8>),
    Bool(bool),
    /// Milliseconds since 1970.
    DateTime(i64),
    Null,
    Int32(i32),
    Int64(i64),
    /// An element of another kind: its type byte and its bytes as they were.
    Other(u8, Vec<u8>),
}

/// A document: its elements, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Document {
    pub fields: Vec<(String, Value)>,
}

/// Why bytes are not a document, or a document not a message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DecodeError(pub String);

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

pub(crate) fn err<T>(what: impl Into<String>) -> Result<T, DecodeError> {
    Err(DecodeError(what.into()))
}

/// Milliseconds since 1970 (`time`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DateTime(pub i64);

/// A `uuid`: 16 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Uuid(pub [u8; 16]);

impl Document {
    pub fn new() -> Document {
        Document::default()
    }

    /// The value of the first element named `name`.
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(n, _)| n == name).map(|(_, v)| v)
    }

    /// The value named `name`, a `null` read as absent.
    pub fn get_present(&self, name: &str) -> Option<&Value> {
        self.get(name).filter(|v| **v != Value::Null)
    }

    pub fn push(&mut self, name: &str, value: Value) {
        self.fields.push((name.to_string(), value));
    }
}
