//! Literals of message types (startup requests, slot values): checked
//! against their type (E06xx) into a [`Checked`] value, the one reading of
//! a literal every format encodes from (each format's wire rules are its
//! own: `bson_wire`, `json_wire`).

use oth_syntax::Span;
use oth_syntax::ast::{Key, Value, ValueKind};
use othismo::bson::{Document, Value as Tree};

use super::LiteralCx;
use super::describe_field_type as describe;
use super::value_errors::ValueError;
use crate::model::{FieldType, Scalar, TypeId, TypeKind};
use crate::source::FileSpan;

/// A format's wire: a checked message literal's bytes, or why it has none.
pub type Encode = fn(&Checked) -> Result<Vec<u8>, String>;

/// A literal as its type reads it: what a format encodes.
#[derive(Clone, Debug, PartialEq)]
pub enum Checked {
    Bool(bool),
    Str(String),
    /// An integer of a 32-bit scalar (`i8` to `i32`, `u8`, `u16`).
    Int32(i32),
    /// An integer of `u32` or `i64`.
    Int64(i64),
    Double(f64),
    /// An `f32`'s value: the `f32` nearest the literal.
    Float(f32),
    /// Milliseconds since 1970-01-01T00:00:00Z.
    Time(i64),
    Uuid([u8; 16]),
    Bytes(Vec<u8>),
    /// An enum's value, by name.
    Enum(String),
    List(Vec<Checked>),
    /// A map from strings, in the literal's order.
    Map(Vec<(String, Checked)>),
    /// A message's given fields in declaration order; `type_name` when
    /// it travels with its type (a payload's message, an `any` field's).
    Message {
        type_name: Option<String>,
        fields: Vec<(String, Checked)>,
    },
}

impl Checked {
    /// The literal in the Rust SDK's tree, which both formats' writers
    /// encode (BSON's kinds of value).
    pub fn to_tree(&self) -> Tree {
        value(self)
    }
}

fn value(c: &Checked) -> Tree {
    match c {
        Checked::Bool(b) => Tree::Bool(*b),
        Checked::Str(s) | Checked::Enum(s) => Tree::String(s.clone()),
        Checked::Int32(i) => Tree::Int32(*i),
        Checked::Int64(i) => Tree::Int64(*i),
        Checked::Double(f) => Tree::Double(*f),
        Checked::Float(f) => Tree::Double(f64::from(*f)),
        Checked::Time(ms) => Tree::DateTime(*ms),
        Checked::Uuid(u) => Tree::Binary(4, u.to_vec()),
        Checked::Bytes(b) => Tree::Binary(0, b.clone()),
        Checked::List(items) => Tree::Array(items.iter().map(value).collect()),
        Checked::Map(entries) => Tree::Document(document(None, entries)),
        Checked::Message { type_name, fields } => {
            Tree::Document(document(type_name.as_deref(), fields))
        }
    }
}

fn document(type_name: Option<&str>, fields: &[(String, Checked)]) -> Document {
    let mut d = Document::new();
    if let Some(t) = type_name {
        d.push("$type", Tree::String(t.to_string()));
    }
    for (name, v) in fields {
        d.push(name, value(v));
    }
    d
}

/// Checks a top-level literal of message type `ty` and encodes it with
/// `encode`, the wire rules of `format`; an encoding that fails says why
/// at the literal (E0601).
pub fn encode_payload(
    cx: &mut LiteralCx,
    ty: TypeId,
    value: &Value,
    (format, encode): (&'static str, Encode),
) -> Option<Vec<u8>> {
    let checked = check_payload(cx, ty, value)?;
    match encode(&checked) {
        Ok(bytes) => Some(bytes),
        Err(reason) => {
            cx.diags.report(ValueError::Unencodable {
                format,
                reason,
                at: at(cx, value.span),
            });
            None
        }
    }
}

/// Checks a top-level literal of message type `ty`: a message with its type.
fn check_payload(cx: &mut LiteralCx, ty: TypeId, value: &Value) -> Option<Checked> {
    match &value.kind {
        ValueKind::Message(name, fields) => {
            let named = named_type(cx, name.name.as_str(), name.span)?;
            if cx.model.ty(named).name != cx.model.ty(ty).name {
                wrong_message(cx, ty, &name.name, name.span);
                return None;
            }
            message(cx, ty, fields, value.span, true)
        }
        ValueKind::Error => None,
        _ => {
            cx.diags.report(ValueError::NotAMessage {
                expected: cx.model.ty(ty).name.clone(),
                found: found(value),
                at: at(cx, value.span),
            });
            None
        }
    }
}

/// Resolves a type named before a literal's braces (E0203, E0206).
fn named_type(cx: &mut LiteralCx, name: &str, span: Span) -> Option<TypeId> {
    match super::message_type(cx.names, name, FileSpan::new(cx.file, span)) {
        Ok(id) => Some(id),
        Err(e) => {
            cx.diags.report(e);
            None
        }
    }
}

fn wrong_message(cx: &mut LiteralCx, expected: TypeId, found: &str, span: Span) {
    cx.diags.report(ValueError::WrongMessageType {
        expected: cx.model.ty(expected).name.clone(),
        found: found.to_string(),
        at: at(cx, span),
    });
}

fn at(cx: &LiteralCx, span: Span) -> FileSpan {
    FileSpan::new(cx.file, span)
}

/// What a literal is, for "found ..." messages.
fn found(v: &Value) -> String {
    match &v.kind {
        ValueKind::Str(_) => "a string".into(),
        ValueKind::Int(_) => "an integer".into(),
        ValueKind::Float(_) => "a float".into(),
        ValueKind::Bool(_) => "a boolean".into(),
        ValueKind::Null => "`null`".into(),
        ValueKind::List(_) => "a list".into(),
        ValueKind::Map(_) => "a map".into(),
        ValueKind::Message(n, _) => format!("a `{}` message", n.name),
        ValueKind::Ref(n) => format!("the name `{}`", n.name),
        ValueKind::Error => "a malformed literal".into(),
    }
}

/// The fields of a message literal, checked and encoded in declaration order.
fn message(
    cx: &mut LiteralCx,
    ty: TypeId,
    fields: &[(Key, Value)],
    span: Span,
    with_type: bool,
) -> Option<Checked> {
    let def = cx.model.ty(ty);
    let TypeKind::Message { fields: decl } = &def.kind else {
        return None;
    };
    let tname = def.name.clone();
    let mut ok = true;
    let mut given: Vec<Option<(&Key, &Value)>> = vec![None; decl.len()];
    for (key, value) in fields {
        let i = decl.iter().position(|f| f.name == key.name);
        if let Some(i) = i {
            cx.names.member_used(at(cx, key.span), ty, i);
        }
        let Some(i) = i else {
            cx.diags.report(ValueError::UnknownField {
                message: tname.clone(),
                field: key.name.clone(),
                at: at(cx, key.span),
                fields: decl.iter().map(|f| f.name.clone()).collect(),
            });
            ok = false;
            continue;
        };
        if let Some((first, _)) = given[i] {
            cx.diags.report(ValueError::GivenTwice {
                name: key.name.clone(),
                key: false,
                at: at(cx, key.span),
                first: at(cx, first.span),
            });
            ok = false;
            continue;
        }
        given[i] = Some((key, value));
    }
    let missing: Vec<String> = decl
        .iter()
        .zip(&given)
        .filter(|(f, g)| !f.optional && g.is_none())
        .map(|(f, _)| f.name.clone())
        .collect();
    if !missing.is_empty() {
        cx.diags.report(ValueError::MissingFields {
            message: tname.clone(),
            missing,
            at: at(cx, span),
        });
        ok = false;
    }
    let type_name = with_type.then(|| tname.clone());
    let mut out = Vec::with_capacity(given.iter().flatten().count());
    let decl = decl.clone();
    for (f, g) in decl.iter().zip(given) {
        let Some((_, value)) = g else { continue };
        if matches!(value.kind, ValueKind::Null) {
            if f.optional {
                continue;
            }
            cx.diags.report(ValueError::RequiredNull {
                message: tname.clone(),
                field: f.name.clone(),
                expected: describe(cx.model, &f.ty),
                at: at(cx, value.span),
            });
            ok = false;
            continue;
        }
        match field(cx, &f.ty, value) {
            Some(b) => out.push((f.name.clone(), b)),
            None => ok = false,
        }
    }
    ok.then_some(Checked::Message {
        type_name,
        fields: out,
    })
}

/// One value of field type `t`.
fn field(cx: &mut LiteralCx, t: &FieldType, v: &Value) -> Option<Checked> {
    if matches!(v.kind, ValueKind::Error) {
        return None;
    }
    match t {
        FieldType::Unknown => None,
        FieldType::Scalar(s) => scalar(cx, *s, v),
        FieldType::List(inner) => {
            let ValueKind::List(items) = &v.kind else {
                return mismatch(cx, &format!("a list {}", describe(cx.model, t)), v);
            };
            let mut out = Vec::with_capacity(items.len());
            let mut ok = true;
            for item in items {
                match field(cx, inner, item) {
                    Some(b) => out.push(b),
                    None => ok = false,
                }
            }
            ok.then_some(Checked::List(out))
        }
        FieldType::Map(inner) => {
            let ValueKind::Map(entries) = &v.kind else {
                return mismatch(cx, &format!("a map {}", describe(cx.model, t)), v);
            };
            let mut out = Vec::with_capacity(entries.len());
            let mut seen: Vec<&Key> = Vec::new();
            let mut ok = true;
            for (k, val) in entries {
                if let Some(first) = seen.iter().find(|s| s.name == k.name) {
                    cx.diags.report(ValueError::GivenTwice {
                        name: k.name.clone(),
                        key: true,
                        at: at(cx, k.span),
                        first: at(cx, first.span),
                    });
                    ok = false;
                    continue;
                }
                seen.push(k);
                match field(cx, inner, val) {
                    Some(b) => out.push((k.name.clone(), b)),
                    None => ok = false,
                }
            }
            ok.then_some(Checked::Map(out))
        }
        FieldType::Named(id) => {
            let id = *id;
            match &cx.model.ty(id).kind {
                TypeKind::Enum { values } => {
                    let names: Vec<String> = values.iter().map(|v| v.name.clone()).collect();
                    let ename = cx.model.ty(id).name.clone();
                    let ValueKind::Str(s) = &v.kind else {
                        return mismatch(cx, &format!("a `{ename}` value (a string)"), v);
                    };
                    if let Some(k) = names.iter().position(|n| n == s) {
                        cx.names.member_used(at(cx, v.span), id, k);
                        return Some(Checked::Enum(s.clone()));
                    }
                    cx.diags.report(ValueError::UnknownEnumValue {
                        enum_: ename,
                        value: s.clone(),
                        values: names,
                        at: at(cx, v.span),
                    });
                    None
                }
                TypeKind::Message { .. } => match &v.kind {
                    ValueKind::Map(fields) => message(cx, id, fields, v.span, false),
                    ValueKind::Message(name, fields) => {
                        let named = named_type(cx, &name.name, name.span)?;
                        if cx.model.ty(named).name != cx.model.ty(id).name {
                            wrong_message(cx, id, &name.name, name.span);
                            return None;
                        }
                        message(cx, id, fields, v.span, false)
                    }
                    _ => {
                        let n = cx.model.ty(id).name.clone();
                        mismatch(cx, &format!("a `{n}` message"), v)
                    }
                },
            }
        }
        FieldType::Any => match &v.kind {
            ValueKind::Message(name, fields) => {
                let named = named_type(cx, &name.name, name.span)?;
                message(cx, named, fields, v.span, true)
            }
            ValueKind::Map(_) => {
                cx.diags
                    .report(ValueError::AnyWithoutType { at: at(cx, v.span) });
                None
            }
            _ => mismatch(cx, "a message (`any`)", v),
        },
    }
}

fn mismatch<T>(cx: &mut LiteralCx, expected: &str, v: &Value) -> Option<T> {
    cx.diags.report(ValueError::Mismatch {
        expected: expected.to_string(),
        found: found(v),
        at: at(cx, v.span),
    });
    None
}

fn scalar(cx: &mut LiteralCx, s: Scalar, v: &Value) -> Option<Checked> {
    let want = match s {
        Scalar::Bool => "a boolean (`true` or `false`)",
        Scalar::String => "a string",
        Scalar::Bytes => "a string of base64 (`bytes`)",
        Scalar::F32 | Scalar::F64 => "a number",
        Scalar::Time => "a time (an RFC 3339 string or milliseconds since 1970)",
        Scalar::Uuid => "a uuid string",
        _ => "an integer",
    };
    match (s, &v.kind) {
        (Scalar::Bool, ValueKind::Bool(b)) => Some(Checked::Bool(*b)),
        (Scalar::String, ValueKind::Str(t)) => Some(Checked::Str(t.clone())),
        (Scalar::F32, ValueKind::Float(f)) => f32_value(cx, *f, v.span),
        (Scalar::F32, ValueKind::Int(i)) => f32_value(cx, *i as f64, v.span),
        (Scalar::F64, ValueKind::Float(f)) if !f.is_finite() => {
            cx.diags
                .report(ValueError::F64OutOfRange { at: at(cx, v.span) });
            None
        }
        (Scalar::F64, ValueKind::Float(f)) => Some(Checked::Double(*f)),
        (Scalar::F64, ValueKind::Int(i)) => Some(Checked::Double(*i as f64)),
        (Scalar::Time, ValueKind::Int(i)) => match i64::try_from(*i) {
            Ok(ms) => Some(Checked::Time(ms)),
            Err(_) => out_of_range(cx, s, *i, v.span),
        },
        // RFC 3339 read by the `bson` crate's parser (a reading, not an
        // encoding: every format takes the same texts).
        (Scalar::Time, ValueKind::Str(t)) => match bson::DateTime::parse_rfc3339_str(t) {
            Ok(d) => Some(Checked::Time(d.timestamp_millis())),
            Err(_) => {
                cx.diags.report(ValueError::NotATime {
                    text: t.clone(),
                    at: at(cx, v.span),
                });
                None
            }
        },
        (Scalar::Uuid, ValueKind::Str(t)) => match bson::Uuid::parse_str(t) {
            Ok(u) if is_hyphenated(t) => Some(Checked::Uuid(u.bytes())),
            _ => {
                cx.diags.report(ValueError::NotAUuid {
                    text: t.clone(),
                    at: at(cx, v.span),
                });
                None
            }
        },
        (Scalar::Bytes, ValueKind::Str(t)) => {
            match bson::Binary::from_base64(t.as_str(), bson::spec::BinarySubtype::Generic) {
                Ok(b) => Some(Checked::Bytes(b.bytes)),
                Err(_) => {
                    cx.diags
                        .report(ValueError::NotBase64 { at: at(cx, v.span) });
                    None
                }
            }
        }
        (_, ValueKind::Int(i)) if s.int_range().is_some() => {
            let (lo, hi) = s.int_range().unwrap_or_default();
            if *i < lo || *i > hi {
                return out_of_range(cx, s, *i, v.span);
            }
            match s {
                Scalar::U32 | Scalar::I64 => Some(Checked::Int64(*i as i64)),
                _ => Some(Checked::Int32(*i as i32)),
            }
        }
        _ => mismatch(cx, want, v),
    }
}

/// An `f32` literal is the `f32` nearest it, the value the SDK's `f32`
/// field holds and writes back, so both sides make the same bytes (BSON
/// sends `0.1` as the double 0.10000000149011612). A number beyond `f32`'s
/// range is refused, not made infinite.
fn f32_value(cx: &mut LiteralCx, f: f64, span: Span) -> Option<Checked> {
    let rounded = f as f32;
    if f.is_finite() && rounded.is_infinite() {
        cx.diags.report(ValueError::F32OutOfRange {
            value: f,
            at: at(cx, span),
        });
        return None;
    }
    Some(Checked::Float(rounded))
}

fn out_of_range<T>(cx: &mut LiteralCx, s: Scalar, i: i128, span: Span) -> Option<T> {
    cx.diags.report(ValueError::OutOfRange {
        value: i,
        scalar: s,
        at: at(cx, span),
    });
    None
}

/// The 8-4-4-4-12 form, not the braced, URN or simple forms `uuid` also reads.
fn is_hyphenated(t: &str) -> bool {
    let parts: Vec<&str> = t.split('-').collect();
    parts.len() == 5
        && parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
        && parts
            .iter()
            .all(|p| p.chars().all(|c| c.is_ascii_hexdigit()))
}
