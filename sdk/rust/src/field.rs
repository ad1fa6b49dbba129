//! A message's fields in the tree every format reads into and writes from
//! (`bson::Value`): each field type says how it is written there, and how
//! it is read back by the rules of the payload's format (`Wire`). BSON
//! carries each scalar as its own kind of element; JSON has fewer kinds,
//! so a JSON document's numbers and strings are read by the field's type
//! (book: reference/json.md): an integer field takes an integer in its
//! range (never a fraction), a float field any number, `time`, `uuid` and
//! `bytes` their texts.

use crate::text;
use crate::tree::{err, DateTime, DecodeError, Document, Uuid, Value};

/// The format a tree was read from: how its values are read back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wire {
    Bson,
    Json,
}

/// A field's type: written into the tree, read back from it.
pub trait Field: Sized {
    fn to_value(&self) -> Value;
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError>;
}

/// What a value is, in the words of its format, for "found ..." errors.
fn found(v: &Value, wire: Wire) -> &'static str {
    match (v, wire) {
        (Value::Double(_), Wire::Json) => "a number that is no 64-bit integer",
        (Value::Int32(_), Wire::Json) | (Value::Int64(_), Wire::Json) => "an integer",
        (Value::Document(_), Wire::Json) => "an object",
        (Value::Double(_), Wire::Bson) => "a double",
        (Value::Int32(_), Wire::Bson) => "an int32",
        (Value::Int64(_), Wire::Bson) => "an int64",
        (Value::Document(_), Wire::Bson) => "a document",
        (Value::String(_), _) => "a string",
        (Value::Array(_), _) => "an array",
        (Value::Binary(..), _) => "binary",
        (Value::Bool(_), _) => "a boolean",
        (Value::DateTime(_), _) => "a datetime",
        (Value::Null, _) => "null",
        (Value::Other(..), _) => "an element of another kind",
    }
}

pub(crate) fn wrong<T>(want: &str, v: &Value, wire: Wire) -> Result<T, DecodeError> {
    err(format!("expected {}, found {}", want, found(v, wire)))
}

/// An integer of a field, by the wire's rules: BSON's element of the
/// field's kind (`kind`: int32 or int64), or any JSON integer.
fn integer(v: &Value, wire: Wire, int64: bool) -> Result<i64, DecodeError> {
    match (v, wire, int64) {
        (Value::Int32(n), Wire::Bson, false) => Ok(i64::from(*n)),
        (Value::Int64(n), Wire::Bson, true) => Ok(*n),
        (Value::Int32(n), Wire::Json, _) => Ok(i64::from(*n)),
        (Value::Int64(n), Wire::Json, _) => Ok(*n),
        (other, Wire::Bson, false) => wrong("an int32", other, wire),
        (other, Wire::Bson, true) => wrong("an int64", other, wire),
        (other, Wire::Json, _) => wrong("an integer", other, wire),
    }
}

macro_rules! int_field {
    ($t:ty, $name:literal, $int64:expr, $to:expr) => {
        impl Field for $t {
            fn to_value(&self) -> Value {
                $to(*self)
            }
            fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
                let n = integer(v, wire, $int64)?;
                <$t>::try_from(n).or_else(|_| err(format!("{} is out of range for {}", n, $name)))
            }
        }
    };
}

int_field!(i8, "i8", false, |n| Value::Int32(i32::from(n)));
int_field!(i16, "i16", false, |n| Value::Int32(i32::from(n)));
int_field!(u8, "u8", false, |n| Value::Int32(i32::from(n)));
int_field!(u16, "u16", false, |n| Value::Int32(i32::from(n)));
int_field!(i32, "i32", false, Value::Int32);
int_field!(u32, "u32", true, |n| Value::Int64(i64::from(n)));
int_field!(i64, "i64", true, Value::Int64);

/// A float field's number: BSON's double, or any JSON number.
fn number(v: &Value, wire: Wire) -> Result<f64, DecodeError> {
    match (v, wire) {
        (Value::Double(x), _) => Ok(*x),
        (Value::Int32(n), Wire::Json) => Ok(f64::from(*n)),
        (Value::Int64(n), Wire::Json) => Ok(*n as f64),
        (other, Wire::Bson) => wrong("a double", other, wire),
        (other, Wire::Json) => wrong("a number", other, wire),
    }
}

impl Field for f64 {
    fn to_value(&self) -> Value {
        Value::Double(*self)
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        number(v, wire)
    }
}

impl Field for f32 {
    fn to_value(&self) -> Value {
        Value::Double(f64::from(*self))
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        number(v, wire).map(|x| x as f32)
    }
}

impl Field for bool {
    fn to_value(&self) -> Value {
        Value::Bool(*self)
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        match v {
            Value::Bool(b) => Ok(*b),
            other => wrong("a boolean", other, wire),
        }
    }
}

impl Field for String {
    fn to_value(&self) -> Value {
        Value::String(self.clone())
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        match v {
            Value::String(s) => Ok(s.clone()),
            other => wrong("a string", other, wire),
        }
    }
}

impl Field for Vec<u8> {
    fn to_value(&self) -> Value {
        Value::Binary(0, self.clone())
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        match (v, wire) {
            (Value::Binary(0, b), Wire::Bson) => Ok(b.clone()),
            (Value::String(s), Wire::Json) => text::from_base64(s),
            (other, Wire::Bson) => wrong("binary of subtype 0", other, wire),
            (other, Wire::Json) => wrong("a string of base64", other, wire),
        }
    }
}

impl Field for Uuid {
    fn to_value(&self) -> Value {
        Value::Binary(4, self.0.to_vec())
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        match (v, wire) {
            (Value::Binary(4, b), Wire::Bson) if b.len() == 16 => {
                let mut a = [0; 16];
                a.copy_from_slice(b);
                Ok(Uuid(a))
            }
            (Value::String(s), Wire::Json) => text::uuid(s).map(Uuid),
            (other, Wire::Bson) => wrong("a uuid (16 bytes, subtype 4)", other, wire),
            (other, Wire::Json) => wrong("a uuid's text", other, wire),
        }
    }
}

impl Field for DateTime {
    fn to_value(&self) -> Value {
        Value::DateTime(self.0)
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        match (v, wire) {
            (Value::DateTime(ms), Wire::Bson) => Ok(DateTime(*ms)),
            (Value::String(s), Wire::Json) => text::time(s).map(DateTime),
            (other, Wire::Bson) => wrong("a datetime", other, wire),
            (other, Wire::Json) => wrong("an RFC 3339 time", other, wire),
        }
    }
}

fn items<T, F: Field>(v: &Value, wire: Wire, wrap: fn(Vec<F>) -> T) -> Result<T, DecodeError> {
    match v {
        Value::Array(items) => items
            .iter()
            .map(|i| F::from_value(i, wire))
            .collect::<Result<Vec<F>, _>>()
            .map(wrap),
        other => wrong("an array", other, wire),
    }
}

impl<T: Field> Field for Vec<T>
where
    T: NotByte,
{
    fn to_value(&self) -> Value {
        Value::Array(self.iter().map(Field::to_value).collect())
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        items(v, wire, |l| l)
    }
}

/// Every field type but `u8`: a `Vec<u8>` is `bytes`, not a list of `u8`
/// (a list of `u8` is `List<u8>`).
pub trait NotByte {}

/// A list of `u8` (`[u8]` in a schema), which `Vec<u8>` (`bytes`) is not.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct List<T>(pub Vec<T>);

impl<T: Field> Field for List<T> {
    fn to_value(&self) -> Value {
        Value::Array(self.0.iter().map(Field::to_value).collect())
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        items(v, wire, List)
    }
}

/// A map (`{T}`): its entries in order, as they travel.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map<T>(pub Vec<(String, T)>);

impl<T: Field> Field for Map<T> {
    fn to_value(&self) -> Value {
        Value::Document(Document {
            fields: self
                .0
                .iter()
                .map(|(k, v)| (k.clone(), v.to_value()))
                .collect(),
        })
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        match v {
            Value::Document(d) => d
                .fields
                .iter()
                .map(|(k, v)| T::from_value(v, wire).map(|t| (k.clone(), t)))
                .collect::<Result<_, _>>()
                .map(Map),
            other => wrong("a map", other, wire),
        }
    }
}

impl<T: Field> Field for Box<T> {
    fn to_value(&self) -> Value {
        (**self).to_value()
    }
    fn from_value(v: &Value, wire: Wire) -> Result<Self, DecodeError> {
        T::from_value(v, wire).map(Box::new)
    }
}

macro_rules! not_byte {
    ($($t:ty),*) => { $(impl NotByte for $t {})* };
}
not_byte!(i8, i16, i32, i64, u16, u32, f32, f64, bool, String, Uuid, DateTime);
impl<T> NotByte for Vec<T> {}
impl<T> NotByte for List<T> {}
impl<T> NotByte for Map<T> {}
impl<T> NotByte for Box<T> {}

/// A required field of `d`.
pub fn required<T: Field>(d: &Document, name: &str, wire: Wire) -> Result<T, DecodeError> {
    match d.get_present(name) {
        Some(v) => T::from_value(v, wire).map_err(|e| DecodeError(format!("`{}`: {}", name, e))),
        None => err(format!("`{}` is missing", name)),
    }
}

/// An optional field of `d` (absent or `null`: `None`).
pub fn optional<T: Field>(d: &Document, name: &str, wire: Wire) -> Result<Option<T>, DecodeError> {
    match d.get_present(name) {
        Some(v) => T::from_value(v, wire)
            .map(Some)
            .map_err(|e| DecodeError(format!("`{}`: {}", name, e))),
        None => Ok(None),
    }
}
