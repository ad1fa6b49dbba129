//! Values of a schema's types, generated as BSON the way the wire table
//! says each type travels (book: reference/wire.md): every scalar at its
//! edges and in between, strings empty, long, non-ASCII and full of
//! reserved characters, optional fields present and absent (sometimes
//! `null`), lists empty and long, maps, enums, `any` naming a message type
//! of the model, and fields no schema names, which a reader must skip.

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, DateTime, Document};
use othc::model::{FieldType, Model, Scalar, TypeId, TypeKind};

use crate::choices::Choices;

/// How deep messages nest before optional fields are left out and lists
/// left empty (a schema may be recursive through them).
const DEEPEST: usize = 4;

/// Text of every kind a reader meets, the simplest first.
pub fn text(c: &mut Choices) -> String {
    match c.below(6) {
        0 => word(c),
        1 => String::new(),
        2 => {
            let pieces = ["é", "日本語", "ß", "🦀", "Ω", "\u{200b}", "ﬁ"];
            (0..1 + c.below(6)).map(|_| *c.pick(&pieces)).collect()
        }
        // Long: at most a few thousand, shrinking a character at a time.
        3 => "x".repeat(1 + c.below(3000) as usize),
        4 => {
            let pieces = [
                "%20", "?", "#", " ", ";", "=", "&", "+", "\\", "'", "\"", "%", "..", "\t",
            ];
            (0..1 + c.below(6)).map(|_| *c.pick(&pieces)).collect()
        }
        _ => {
            let n = c.below(40) as usize;
            (0..n)
                .map(|_| char::from_u32(0x20 + c.below(0x2000) as u32).unwrap_or('?'))
                .collect()
        }
    }
}

/// A short lower-case word (at least one letter).
pub fn word(c: &mut Choices) -> String {
    let n = 1 + c.below(8) as usize;
    (0..n).map(|_| (b'a' + c.below(26) as u8) as char).collect()
}

/// Bytes, up to a few hundred.
pub fn bytes(c: &mut Choices) -> Vec<u8> {
    let n = match c.below(3) {
        0 => c.below(8),
        1 => c.below(64),
        _ => c.below(600),
    } as usize;
    (0..n).map(|_| c.below(256) as u8).collect()
}

/// A message of type `t`, `$type` first, as a payload carries it.
pub fn message(model: &Model, t: TypeId, c: &mut Choices) -> Document {
    message_as(model, t, c, Extras::Yes)
}

/// A message of type `t` with only the fields its schema names and no
/// `null`s: what a codec that keeps no unknown field writes back byte for
/// byte.
pub fn plain_message(model: &Model, t: TypeId, c: &mut Choices) -> Document {
    message_as(model, t, c, Extras::No)
}

/// Whether generated documents carry what a reader skips: fields no schema
/// names, and `null` for an absent optional field.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Extras {
    Yes,
    No,
}

fn message_as(model: &Model, t: TypeId, c: &mut Choices, extras: Extras) -> Document {
    let mut d = Document::new();
    d.insert("$type", model.ty(t).name.as_str());
    fields_into(model, t, c, 0, &mut d, extras);
    d
}

fn fields_into(
    model: &Model,
    t: TypeId,
    c: &mut Choices,
    depth: usize,
    d: &mut Document,
    extras: Extras,
) {
    let TypeKind::Message { fields } = &model.ty(t).kind else {
        return;
    };
    for f in fields {
        if f.optional {
            // Absent, present, or null (which reads as absent).
            match if depth >= DEEPEST { 0 } else { c.below(5) } {
                0 => continue,
                1 if extras == Extras::Yes => {
                    d.insert(f.name.as_str(), Bson::Null);
                    continue;
                }
                _ => {}
            }
        }
        let v = value_as(model, &f.ty, c, depth + 1, extras);
        d.insert(f.name.as_str(), v);
    }
    // Fields no schema names: a reader skips them.
    if extras == Extras::Yes && c.chance(15) {
        for k in 0..1 + c.below(3) {
            let extra = match c.below(4) {
                0 => Bson::Int32(c.below(1000) as i32),
                1 => Bson::String(word(c)),
                2 => Bson::Document(bson::doc! { "x": true }),
                _ => Bson::Array(vec![Bson::Double(1.5)]),
            };
            d.insert(format!("zzUnknown{k}"), extra);
        }
    }
}

/// A value of field type `ty`.
pub fn value(model: &Model, ty: &FieldType, c: &mut Choices, depth: usize) -> Bson {
    value_as(model, ty, c, depth, Extras::Yes)
}

fn value_as(model: &Model, ty: &FieldType, c: &mut Choices, depth: usize, extras: Extras) -> Bson {
    match ty {
        FieldType::Scalar(s) => scalar(*s, c),
        FieldType::Named(t) => match &model.ty(*t).kind {
            TypeKind::Enum { values } => {
                Bson::String(values[c.below(values.len() as u64) as usize].name.clone())
            }
            TypeKind::Message { .. } => {
                let mut d = Document::new();
                fields_into(model, *t, c, depth, &mut d, extras);
                Bson::Document(d)
            }
        },
        FieldType::Any => {
            let messages: Vec<TypeId> = (0..model.types.len())
                .map(|i| TypeId(i as u32))
                .filter(|t| matches!(model.ty(*t).kind, TypeKind::Message { .. }))
                .collect();
            if messages.is_empty() || depth >= DEEPEST {
                return Bson::Document(bson::doc! { "$type": "Nothing" });
            }
            let t = messages[c.below(messages.len() as u64) as usize];
            let mut d = Document::new();
            d.insert("$type", model.ty(t).name.as_str());
            fields_into(model, t, c, depth, &mut d, extras);
            Bson::Document(d)
        }
        FieldType::List(inner) => {
            let n = if depth >= DEEPEST {
                0
            } else {
                match c.below(4) {
                    0 => 0,
                    1 | 2 => 1 + c.below(4),
                    _ => 20 + c.below(60),
                }
            };
            Bson::Array(
                (0..n)
                    .map(|_| value_as(model, inner, c, depth + 1, extras))
                    .collect(),
            )
        }
        FieldType::Map(inner) => {
            let mut d = Document::new();
            let n = if depth >= DEEPEST { 0 } else { c.below(5) };
            for k in 0..n {
                let key = match c.below(3) {
                    0 => format!("k{k}"),
                    1 => format!("{}{k}", text(c).replace(['\0', '.', '$'], "_")),
                    _ => format!("é{k}"),
                };
                d.insert(key, value_as(model, inner, c, depth + 1, extras));
            }
            Bson::Document(d)
        }
        FieldType::Unknown => Bson::Null,
    }
}

/// A scalar at its edges or in between, the simplest (zero, empty) first.
fn scalar(s: Scalar, c: &mut Choices) -> Bson {
    if let Some((lo, hi)) = s.int_range() {
        let v: i128 = match c.below(5) {
            0 => 0,
            1 => c.below(100) as i128,
            2 => lo,
            3 => hi,
            _ => lo + (c.below(u64::MAX) as i128).rem_euclid(hi - lo + 1),
        };
        return match s {
            Scalar::U32 | Scalar::I64 => Bson::Int64(v as i64),
            _ => Bson::Int32(v as i32),
        };
    }
    match s {
        Scalar::Bool => Bson::Boolean(c.below(2) == 1),
        Scalar::String => Bson::String(text(c)),
        Scalar::Bytes => Bson::Binary(Binary {
            subtype: BinarySubtype::Generic,
            bytes: bytes(c),
        }),
        Scalar::F32 | Scalar::F64 => {
            let v = match c.below(5) {
                0 => 0.0,
                1 => c.below(1000) as f64 / 8.0,
                2 => -(c.below(1_000_000) as f64) / 3.0,
                3 => 1.0e30,
                _ => f64::from_bits(c.below(u64::MAX)),
            };
            let v = if v.is_finite() { v } else { 0.5 };
            Bson::Double(if s == Scalar::F32 {
                (v as f32) as f64
            } else {
                v
            })
        }
        Scalar::Time => Bson::DateTime(DateTime::from_millis(match c.below(3) {
            0 => 0,
            1 => 1_700_000_000_000 + c.below(100_000_000_000) as i64,
            _ => -(c.below(1_000_000_000_000) as i64),
        })),
        Scalar::Uuid => Bson::Binary(Binary {
            subtype: BinarySubtype::Uuid,
            bytes: (0..16).map(|_| c.below(256) as u8).collect(),
        }),
        _ => Bson::Null,
    }
}

/// A stat record (book: reference/wire.md) for a name.
pub fn stat(c: &mut Choices) -> Vec<u8> {
    let name = word(c);
    let directory = c.below(2) == 1;
    let ty = if directory {
        ""
    } else {
        *c.pick(&["text/plain", "text/html", "application/octet-stream", ""])
    };
    let mut out = Vec::new();
    let put_s = |out: &mut Vec<u8>, s: &str| {
        out.extend_from_slice(&(s.len() as u16).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    };
    put_s(&mut out, &name);
    out.push(u8::from(directory));
    let length = if directory { 0 } else { c.below(1 << 20) };
    out.extend_from_slice(&length.to_le_bytes());
    put_s(&mut out, ty);
    out.extend_from_slice(&c.below(u64::MAX).to_le_bytes());
    out
}

/// A document's bytes.
pub fn encode(d: &Document) -> Vec<u8> {
    let mut out = Vec::new();
    d.to_writer(&mut out).expect("a document writes to memory");
    out
}
