//! BSON literals: checking a value against its expected type (E06xx) and
//! encoding it, with the `bson` crate, into the bytes the runtime will send
//! (book: reference/wire.md: `$type` first, then fields in declaration order).

use bson::spec::BinarySubtype;
use bson::{Binary, Bson, Document};
use oth_syntax::Span;
use oth_syntax::ast::{Key, Value, ValueKind};

use super::LiteralCx;
use super::bson::describe;
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::{FieldType, Scalar, TypeId, TypeKind};
use crate::source::FileSpan;

/// Checks a top-level literal of message type `ty` and encodes it.
pub fn encode_payload(cx: &mut LiteralCx, ty: TypeId, value: &Value) -> Option<Vec<u8>> {
    let doc = match &value.kind {
        ValueKind::Message(name, fields) => {
            let named = named_type(cx, name.name.as_str(), name.span)?;
            if cx.model.ty(named).name != cx.model.ty(ty).name {
                wrong_message(cx, ty, &name.name, name.span);
                return None;
            }
            message(cx, ty, fields, value.span, true)?
        }
        ValueKind::Error => return None,
        _ => {
            let expected = &cx.model.ty(ty).name;
            cx.diags.push(
                Diagnostic::new(
                    Code::E0601,
                    format!("expected a `{expected}` message, found {}", found(value)),
                    Label::new(
                        cx.file,
                        value.span,
                        format!("this should be a `{expected} {{ ... }}`"),
                    ),
                )
                .with_help(format!(
                    "write the message with its type before the braces: `{expected} {{ ... }}`"
                )),
            );
            return None;
        }
    };
    let mut bytes = Vec::new();
    match doc.to_writer(&mut bytes) {
        Ok(()) => Some(bytes),
        Err(e) => {
            cx.diags.push(Diagnostic::new(
                Code::E0601,
                format!("this value cannot be encoded as BSON: {e}"),
                Label::new(cx.file, value.span, "cannot be encoded"),
            ));
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
    let expected = &cx.model.ty(expected).name;
    cx.diags.push(
        Diagnostic::new(
            Code::E0608,
            format!("expected a `{expected}`, found a `{found}`"),
            Label::new(cx.file, span, format!("this must be `{expected}`")),
        )
        .with_help(format!(
            "write `{expected} {{ ... }}`, or leave the type name out where it is known"
        )),
    );
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
) -> Option<Document> {
    let def = cx.model.ty(ty);
    let TypeKind::Message { fields: decl } = &def.kind else {
        return None;
    };
    let tname = def.name.clone();
    let mut ok = true;
    let mut given: Vec<Option<(&Key, &Value)>> = vec![None; decl.len()];
    for (key, value) in fields {
        let Some(i) = decl.iter().position(|f| f.name == key.name) else {
            let names: Vec<&str> = decl.iter().map(|f| f.name.as_str()).collect();
            let mut d = Diagnostic::new(
                Code::E0603,
                format!("`{tname}` has no field `{}`", key.name),
                Label::new(cx.file, key.span, "unknown field"),
            );
            d = match closest(&key.name, &names) {
                Some(near) => d.with_help(format!("did you mean `{near}`?")),
                None if names.is_empty() => d.with_help(format!("`{tname}` has no fields")),
                None => d.with_help(format!("the fields of `{tname}`: {}", names.join(", "))),
            };
            cx.diags.push(d);
            ok = false;
            continue;
        };
        if let Some((first, _)) = given[i] {
            cx.diags.push(
                Diagnostic::new(
                    Code::E0609,
                    format!("field `{}` is given twice", key.name),
                    Label::new(cx.file, key.span, "given again here"),
                )
                .with_label(Label::new(cx.file, first.span, "first given here"))
                .with_help("remove one of the two"),
            );
            ok = false;
            continue;
        }
        given[i] = Some((key, value));
    }
    let missing: Vec<&str> = decl
        .iter()
        .zip(&given)
        .filter(|(f, g)| !f.optional && g.is_none())
        .map(|(f, _)| f.name.as_str())
        .collect();
    if !missing.is_empty() {
        let list = missing
            .iter()
            .map(|m| format!("`{m}`"))
            .collect::<Vec<_>>()
            .join(", ");
        let (noun, verb) = if missing.len() == 1 {
            ("field", "is")
        } else {
            ("fields", "are")
        };
        cx.diags.push(
            Diagnostic::new(
                Code::E0602,
                format!("required {noun} {list} of `{tname}` {verb} missing"),
                Label::new(cx.file, span, format!("this `{tname}` needs {list}")),
            )
            .with_help(format!(
                "add {}",
                missing
                    .iter()
                    .map(|m| format!("`{m}: ...`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )),
        );
        ok = false;
    }
    let mut doc = Document::new();
    if with_type {
        doc.insert("$type", tname.clone());
    }
    let decl = decl.clone();
    for (f, g) in decl.iter().zip(given) {
        let Some((_, value)) = g else { continue };
        if matches!(value.kind, ValueKind::Null) {
            if f.optional {
                continue;
            }
            cx.diags.push(
                Diagnostic::new(
                    Code::E0601,
                    format!(
                        "field `{}` of `{tname}` is required and cannot be null",
                        f.name
                    ),
                    Label::new(
                        cx.file,
                        value.span,
                        format!("expected {}", describe(cx.model, &f.ty)),
                    ),
                )
                .with_help("`null` is only for optional fields (`name?: T`)"),
            );
            ok = false;
            continue;
        }
        match field(cx, &f.ty, value) {
            Some(b) => {
                doc.insert(f.name.clone(), b);
            }
            None => ok = false,
        }
    }
    ok.then_some(doc)
}

/// One value of field type `t`.
fn field(cx: &mut LiteralCx, t: &FieldType, v: &Value) -> Option<Bson> {
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
            ok.then_some(Bson::Array(out))
        }
        FieldType::Map(inner) => {
            let ValueKind::Map(entries) = &v.kind else {
                return mismatch(cx, &format!("a map {}", describe(cx.model, t)), v);
            };
            let mut doc = Document::new();
            let mut seen: Vec<&Key> = Vec::new();
            let mut ok = true;
            for (k, val) in entries {
                if let Some(first) = seen.iter().find(|s| s.name == k.name) {
                    cx.diags.push(
                        Diagnostic::new(
                            Code::E0609,
                            format!("key `{}` is given twice", k.name),
                            Label::new(cx.file, k.span, "given again here"),
                        )
                        .with_label(Label::new(cx.file, first.span, "first given here"))
                        .with_help("a map holds each key once: remove one of the two"),
                    );
                    ok = false;
                    continue;
                }
                seen.push(k);
                match field(cx, inner, val) {
                    Some(b) => {
                        doc.insert(k.name.clone(), b);
                    }
                    None => ok = false,
                }
            }
            ok.then_some(Bson::Document(doc))
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
                    if names.iter().any(|n| n == s) {
                        return Some(Bson::String(s.clone()));
                    }
                    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
                    let mut d = Diagnostic::new(
                        Code::E0605,
                        format!("`{ename}` has no value \"{s}\""),
                        Label::new(cx.file, v.span, "unknown enum value"),
                    );
                    let all = refs
                        .iter()
                        .map(|n| format!("\"{n}\""))
                        .collect::<Vec<_>>()
                        .join(", ");
                    d = match closest(s, &refs) {
                        Some(near) => d.with_help(format!(
                            "did you mean \"{near}\"? the values of `{ename}`: {all}"
                        )),
                        None => d.with_help(format!("the values of `{ename}`: {all}")),
                    };
                    cx.diags.push(d);
                    None
                }
                TypeKind::Message { .. } => match &v.kind {
                    ValueKind::Map(fields) => {
                        message(cx, id, fields, v.span, false).map(Bson::Document)
                    }
                    ValueKind::Message(name, fields) => {
                        let named = named_type(cx, &name.name, name.span)?;
                        if cx.model.ty(named).name != cx.model.ty(id).name {
                            wrong_message(cx, id, &name.name, name.span);
                            return None;
                        }
                        message(cx, id, fields, v.span, false).map(Bson::Document)
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
                message(cx, named, fields, v.span, true).map(Bson::Document)
            }
            ValueKind::Map(_) => {
                cx.diags.push(
                    Diagnostic::new(
                        Code::E0611,
                        "a value for an `any` field must name its type",
                        Label::new(cx.file, v.span, "which message type is this?"),
                    )
                    .with_help("write the type before the braces: `Note { text: \"hi\" }`"),
                );
                None
            }
            _ => mismatch(cx, "a message (`any`)", v),
        },
    }
}

fn mismatch<T>(cx: &mut LiteralCx, expected: &str, v: &Value) -> Option<T> {
    cx.diags.push(Diagnostic::new(
        Code::E0601,
        format!("expected {expected}, found {}", found(v)),
        Label::new(cx.file, v.span, format!("expected {expected}")),
    ));
    None
}

fn scalar(cx: &mut LiteralCx, s: Scalar, v: &Value) -> Option<Bson> {
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
        (Scalar::Bool, ValueKind::Bool(b)) => Some(Bson::Boolean(*b)),
        (Scalar::String, ValueKind::Str(t)) => Some(Bson::String(t.clone())),
        (Scalar::F32 | Scalar::F64, ValueKind::Float(f)) => Some(Bson::Double(*f)),
        (Scalar::F32 | Scalar::F64, ValueKind::Int(i)) => Some(Bson::Double(*i as f64)),
        (Scalar::Time, ValueKind::Int(i)) => match i64::try_from(*i) {
            Ok(ms) => Some(Bson::DateTime(bson::DateTime::from_millis(ms))),
            Err(_) => out_of_range(cx, s, *i, v.span),
        },
        (Scalar::Time, ValueKind::Str(t)) => match bson::DateTime::parse_rfc3339_str(t) {
            Ok(d) => Some(Bson::DateTime(d)),
            Err(_) => {
                cx.diags.push(
                    Diagnostic::new(
                        Code::E0606,
                        format!("\"{t}\" is not a time"),
                        Label::new(cx.file, v.span, "not an RFC 3339 time"),
                    )
                    .with_help("write it as RFC 3339, \"2026-10-23T12:00:00Z\", or as milliseconds since 1970"),
                );
                None
            }
        },
        (Scalar::Uuid, ValueKind::Str(t)) => match bson::Uuid::parse_str(t) {
            Ok(u) if is_hyphenated(t) => Some(Bson::Binary(Binary {
                subtype: BinarySubtype::Uuid,
                bytes: u.bytes().to_vec(),
            })),
            _ => {
                cx.diags.push(
                    Diagnostic::new(
                        Code::E0607,
                        format!("\"{t}\" is not a uuid"),
                        Label::new(cx.file, v.span, "not a uuid"),
                    )
                    .with_help("write it in the 8-4-4-4-12 hex form: \"123e4567-e89b-12d3-a456-426614174000\""),
                );
                None
            }
        },
        (Scalar::Bytes, ValueKind::Str(t)) => {
            match Binary::from_base64(t.as_str(), BinarySubtype::Generic) {
                Ok(b) => Some(Bson::Binary(b)),
                Err(_) => {
                    cx.diags.push(
                    Diagnostic::new(
                        Code::E0612,
                        "this string is not base64",
                        Label::new(cx.file, v.span, "a `bytes` value is written in base64"),
                    )
                    .with_help("encode the bytes in standard base64 with padding: \"aGk=\" is the bytes of `hi`"),
                );
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
                Scalar::U32 | Scalar::I64 => Some(Bson::Int64(*i as i64)),
                _ => Some(Bson::Int32(*i as i32)),
            }
        }
        _ => mismatch(cx, want, v),
    }
}

fn out_of_range<T>(cx: &mut LiteralCx, s: Scalar, i: i128, span: Span) -> Option<T> {
    let (lo, hi) = s.int_range().unwrap_or((i64::MIN.into(), i64::MAX.into()));
    cx.diags.push(
        Diagnostic::new(
            Code::E0604,
            format!("{i} is out of range for `{}`", s.as_str()),
            Label::new(
                cx.file,
                span,
                format!("`{}` holds {lo} to {hi}", s.as_str()),
            ),
        )
        .with_help(match s {
            Scalar::I64 | Scalar::Time => "this is beyond what BSON can hold".to_string(),
            _ => "use a wider type in the schema, or a smaller value".to_string(),
        }),
    );
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
