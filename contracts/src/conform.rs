//! Whether a payload is what a header declares: its content type covered
//! by the declared one, and a message a document of its format with the
//! declared `$type` whose fields are what its schema says (by the wire
//! table of its format: fields no schema names are skipped, as readers
//! skip them; JSON's numbers and texts read by the field's type).

use bson::spec::BinarySubtype;
use bson::{Bson, Document};

use crate::formats::Wire;
use othc::check::matching::content_covers;
use othc::model::{ContentType, FieldType, Model, PayloadType, Scalar, TypeId, TypeKind};
use othismo_runtime::Payload;

/// Why `p` is not of type `ty` (of `model`); `None` when it is.
pub fn mismatch(model: &Model, ty: &PayloadType, p: &Payload) -> Option<String> {
    match ty {
        PayloadType::Unknown => None,
        PayloadType::Content(ct) => {
            let actual = ContentType::parse(&p.content_type);
            (!content_covers(ct, &actual))
                .then(|| format!("its content type is `{}`", p.content_type))
        }
        PayloadType::Message(t) => {
            let actual = ContentType::parse(&p.content_type);
            let format = ContentType::parse(&model.ty(*t).format);
            if !content_covers(&format, &actual) {
                return Some(format!("its content type is `{}`", p.content_type));
            }
            let wire = Wire::of(&model.ty(*t).format);
            let d = match wire.decode(&p.data) {
                Ok(d) => d,
                Err(why) => return Some(why),
            };
            let name = &model.ty(*t).name;
            match d.get_str("$type") {
                Ok(n) if n == name => {}
                Ok(n) => return Some(format!("it is a `{n}`")),
                Err(_) => return Some("its document has no `$type`".into()),
            }
            fields(model, *t, &d, name, wire)
        }
    }
}

/// What the payload types `tys` allow of `p`: `None` when one of them.
pub fn mismatch_any(model: &Model, tys: &[PayloadType], p: &Payload) -> Option<String> {
    let mut first = None;
    for t in tys {
        match mismatch(model, t, p) {
            None => return None,
            Some(why) => {
                first.get_or_insert(why);
            }
        }
    }
    first.or_else(|| Some("the entry takes no payload".into()))
}

fn fields(model: &Model, t: TypeId, d: &Document, at: &str, wire: Wire) -> Option<String> {
    let TypeKind::Message { fields } = &model.ty(t).kind else {
        return None;
    };
    for f in fields {
        let here = format!("{at}.{}", f.name);
        match d.get(&f.name) {
            None | Some(Bson::Null) if f.optional => {}
            None | Some(Bson::Null) => return Some(format!("`{here}` is missing")),
            Some(v) => {
                if let Some(why) = field(model, &f.ty, v, &here, wire) {
                    return Some(why);
                }
            }
        }
    }
    None
}

fn field(model: &Model, ty: &FieldType, v: &Bson, at: &str, wire: Wire) -> Option<String> {
    let wrong = |want: &str| Some(format!("`{at}` is {}, not {want}", kind(v)));
    match ty {
        FieldType::Unknown => None,
        FieldType::Scalar(s) => scalar(*s, v, at, wire),
        FieldType::Named(t) => match (&model.ty(*t).kind, v) {
            (TypeKind::Enum { values }, Bson::String(s)) => (!values.iter().any(|x| x.name == *s))
                .then(|| format!("`{at}` is `{s}`, no value of `{}`", model.ty(*t).name)),
            (TypeKind::Enum { .. }, _) => wrong("an enum's name (a string)"),
            (TypeKind::Message { .. }, Bson::Document(d)) => fields(model, *t, d, at, wire),
            (TypeKind::Message { .. }, _) => wrong("a document"),
        },
        FieldType::Any => match v {
            Bson::Document(d) => match d.get_str("$type") {
                Ok(name) => {
                    let t = (0..model.types.len())
                        .map(|i| TypeId(i as u32))
                        .find(|t| model.ty(*t).name == name);
                    // A type this header does not know is passed on whole.
                    t.and_then(|t| fields(model, t, d, at, wire))
                }
                Err(_) => Some(format!("`{at}` (any) has no `$type`")),
            },
            _ => wrong("a document"),
        },
        FieldType::List(inner) => match v {
            Bson::Array(items) => items
                .iter()
                .enumerate()
                .find_map(|(k, x)| field(model, inner, x, &format!("{at}[{k}]"), wire)),
            _ => wrong("an array"),
        },
        FieldType::Map(inner) => match v {
            Bson::Document(d) => d
                .iter()
                .find_map(|(k, x)| field(model, inner, x, &format!("{at}[{k:?}]"), wire)),
            _ => wrong("a document"),
        },
    }
}

fn scalar(s: Scalar, v: &Bson, at: &str, wire: Wire) -> Option<String> {
    let ok = match (s, v) {
        // JSON's texts and numbers, read by the field's type.
        (Scalar::Time, Bson::String(t)) if wire == Wire::Json => othismo::text::time(t).is_ok(),
        (Scalar::Uuid, Bson::String(t)) if wire == Wire::Json => othismo::text::uuid(t).is_ok(),
        (Scalar::Bytes, Bson::String(t)) if wire == Wire::Json => {
            othismo::text::from_base64(t).is_ok()
        }
        (Scalar::F32 | Scalar::F64, Bson::Int64(_)) if wire == Wire::Json => true,
        (_, Bson::Int64(n)) if wire == Wire::Json => in_range(s, i128::from(*n)),
        (Scalar::Bool, Bson::Boolean(_)) => true,
        (Scalar::String, Bson::String(_)) => true,
        (Scalar::Bytes, Bson::Binary(b)) => b.subtype == BinarySubtype::Generic,
        (Scalar::Uuid, Bson::Binary(b)) => b.subtype == BinarySubtype::Uuid && b.bytes.len() == 16,
        (Scalar::F32 | Scalar::F64, Bson::Double(_)) => true,
        (Scalar::Time, Bson::DateTime(_)) => true,
        (Scalar::U32 | Scalar::I64, Bson::Int64(n)) => in_range(s, i128::from(*n)),
        (_, Bson::Int32(n)) if !matches!(s, Scalar::U32 | Scalar::I64) => {
            in_range(s, i128::from(*n))
        }
        _ => false,
    };
    (!ok).then(|| format!("`{at}` is {}, not a `{}`", kind(v), s.as_str()))
}

fn in_range(s: Scalar, n: i128) -> bool {
    s.int_range().is_some_and(|(lo, hi)| lo <= n && n <= hi)
}

/// A BSON value's kind, as a message says it.
fn kind(v: &Bson) -> String {
    match v {
        Bson::Double(x) => format!("a double ({x})"),
        Bson::String(s) => format!("a string ({s:?})"),
        Bson::Document(_) => "a document".into(),
        Bson::Array(_) => "an array".into(),
        Bson::Binary(b) => format!("binary of subtype {:?}", b.subtype),
        Bson::Boolean(b) => format!("a boolean ({b})"),
        Bson::Null => "null".into(),
        Bson::Int32(n) => format!("an int32 ({n})"),
        Bson::Int64(n) => format!("an int64 ({n})"),
        Bson::DateTime(_) => "a datetime".into(),
        other => format!("{:?}", other.element_type()),
    }
}
