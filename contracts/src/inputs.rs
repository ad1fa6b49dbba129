//! Requests generated from a serves entry: its verb, a path its pattern
//! covers (`{name}` segments and `**` tails of generated text: short,
//! long, non-ASCII, reserved characters; each path one the runtime would
//! deliver to this entry), and a payload: one the entry takes, generated
//! from its type, or one it does not take (malformed, of another type,
//! missing, unasked for), which it must answer with an error.

use std::sync::Arc;

use bson::Bson;

use crate::formats::Wire;
use othc::model::{EntryId, Model, ObjectDef, PathPattern, PayloadType, Seg, TypeKind};
use othc::namespace::path::parse_request;
use othc::namespace::route::{Route, select};
use othismo_runtime::Payload;

use crate::choices::Choices;
use crate::values;

/// What kind of input a request carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Input {
    /// One the entry takes.
    Taken,
    /// One it does not take: it must be answered with an error.
    NotTaken,
}

/// One request to the object under test.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub entry: EntryId,
    pub verb: othc::model::Verb,
    pub path: String,
    pub flags: i32,
    pub payload: Option<Payload>,
    pub input: Input,
    /// What is wrong with a payload not taken, in words.
    pub wrong: Option<String>,
}

impl Request {
    /// `verb path`, as messages and traces say it, with its payload.
    pub fn describe(&self) -> String {
        let payload = match &self.payload {
            None => "no payload".to_string(),
            Some(p) => format!("{} ({} bytes): {}", p.content_type, p.data.len(), show(p)),
        };
        format!("{} {} with {payload}", self.verb.as_str(), self.path)
    }
}

/// A case's requests described, numbered when there are several; `None`
/// for none.
pub fn described(requests: &[Request]) -> Option<String> {
    match requests {
        [] => None,
        [one] => Some(one.describe()),
        many => Some(
            many.iter()
                .enumerate()
                .map(|(i, r)| format!("{}. {}", i + 1, r.describe()))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

/// A payload shown to a person: BSON as extended JSON, text as text,
/// anything else as hex; long ones cut.
pub fn show(p: &Payload) -> String {
    let s = if let Ok(d) = bson::Document::from_reader(p.data.as_slice())
        && p.content_type.contains("bson")
    {
        Bson::Document(d).into_relaxed_extjson().to_string()
    } else if let Ok(t) = std::str::from_utf8(&p.data) {
        format!("{t:?}")
    } else {
        p.data.iter().map(|b| format!("{b:02x}")).collect()
    };
    if s.chars().count() > 300 {
        let cut: String = s.chars().take(300).collect();
        format!("{cut}… ({} characters in all)", s.chars().count())
    } else {
        s
    }
}

/// A request to `entry` of `object`.
pub fn request(model: &Model, object: &ObjectDef, entry: EntryId, c: &mut Choices) -> Request {
    let verb = model.entry(entry).verb;
    let reaches = |p: &str| {
        parse_request(p)
            .is_some_and(|segs| select(model, &object.serves, verb, &segs) == Route::Entry(entry))
    };
    let pattern = model.entry(entry).path.clone();
    request_at(model, entry, &pattern, &reaches, c)
}

/// A request to `entry`, at a path of `pattern` for which `reaches` holds
/// (the entry's own pattern, or where an image exports it).
pub fn request_at(
    model: &Model,
    entry: EntryId,
    pattern: &PathPattern,
    reaches: &dyn Fn(&str) -> bool,
    c: &mut Choices,
) -> Request {
    let e = model.entry(entry);
    let path = path(pattern, reaches, c);
    let flags = if e.operator {
        othismo_runtime::abi::OPERATOR
    } else {
        0
    };
    let (payload, input, wrong) = if c.chance(25) {
        let (p, why) = not_taken(model, &e.request, c);
        (p, Input::NotTaken, Some(why))
    } else {
        (taken(model, &e.request, c), Input::Taken, None)
    };
    Request {
        entry,
        verb: e.verb,
        path,
        flags,
        payload,
        input,
        wrong,
    }
}

/// A path `pattern` covers for which `reaches` holds (it routes where it
/// is meant to): generated text where the pattern leaves it open, else
/// (if that text would not reach it) a plain word.
fn path(pattern: &PathPattern, reaches: &dyn Fn(&str) -> bool, c: &mut Choices) -> String {
    let make = |c: &mut Choices, plain: bool| {
        let mut out = String::new();
        for s in &pattern.segs {
            match s {
                Seg::Literal(l) => {
                    out.push('/');
                    out.push_str(l);
                }
                Seg::Capture(_) => {
                    out.push('/');
                    out.push_str(&segment(c, plain));
                }
                Seg::Rest => {
                    for _ in 0..c.below(4) {
                        out.push('/');
                        out.push_str(&segment(c, plain));
                    }
                }
            }
        }
        if out.is_empty() {
            out.push('/');
        }
        out
    };
    let p = make(c, false);
    if reaches(&p) {
        return p;
    }
    let plain = make(c, true);
    if reaches(&plain) {
        plain
    } else {
        pattern.to_string()
    }
}

/// One segment's text: any text but `/` (which would cut it), and not
/// empty, `.` or `..` (which the runtime refuses as malformed).
fn segment(c: &mut Choices, plain: bool) -> String {
    let t = if plain {
        values::word(c)
    } else {
        values::text(c).replace('/', "_")
    };
    if t.is_empty() || t == "." || t == ".." {
        values::word(c)
    } else {
        t
    }
}

/// A payload of one of `types` (none for an entry that takes none).
pub fn taken(model: &Model, types: &[PayloadType], c: &mut Choices) -> Option<Payload> {
    if types.is_empty() {
        return None;
    }
    Some(of_type(
        model,
        &types[c.below(types.len() as u64) as usize],
        c,
    ))
}

/// A payload of type `ty`.
pub fn of_type(model: &Model, ty: &PayloadType, c: &mut Choices) -> Payload {
    match ty {
        PayloadType::Message(t) => Payload {
            content_type: Arc::from(model.ty(*t).format.as_ref()),
            data: Wire::of(&model.ty(*t).format).encode(&values::message(model, *t, c)),
        },
        PayloadType::Content(ct) => {
            let concrete = concrete(ct, c);
            let data = if concrete == othc::model::STAT_CONTENT_TYPE {
                values::stat(c)
            } else if concrete.starts_with("text/") {
                values::text(c).into_bytes()
            } else {
                values::bytes(c)
            };
            Payload {
                content_type: Arc::from(concrete.as_str()),
                data,
            }
        }
        PayloadType::Unknown => Payload {
            content_type: Arc::from("application/octet-stream"),
            data: values::bytes(c),
        },
    }
}

/// A content type `ct` covers: itself when it names one, else a common
/// one of the family it names.
fn concrete(ct: &othc::model::ContentType, c: &mut Choices) -> String {
    match (ct.ty.as_str(), ct.subtype.as_str()) {
        ("*", _) => c
            .pick(&["text/plain", "application/octet-stream", "image/png"])
            .to_string(),
        ("text", "*") => c.pick(&["text/plain", "text/html", "text/css"]).to_string(),
        (t, "*") => format!("{t}/x-generated"),
        _ => ct.text.clone(),
    }
}

/// A payload `types` do not take, and why it is not taken.
fn not_taken(model: &Model, types: &[PayloadType], c: &mut Choices) -> (Option<Payload>, String) {
    let takes_anything = types.iter().any(|t| match t {
        PayloadType::Content(ct) => ct.ty == "*",
        PayloadType::Unknown => true,
        PayloadType::Message(_) => false,
    });
    let messages: Vec<_> = types
        .iter()
        .filter_map(|t| match t {
            PayloadType::Message(m) => Some(*m),
            _ => None,
        })
        .collect();
    if types.is_empty() {
        let p = Payload {
            content_type: Arc::from("text/plain"),
            data: values::word(c).into_bytes(),
        };
        return (Some(p), "a payload, where the entry takes none".into());
    }
    let choice = c.below(4);
    if choice == 0 || takes_anything {
        // Nothing, where a payload is asked for (every entry that takes
        // a payload takes it alone).
        return (None, "no payload, where the entry takes one".into());
    }
    if choice == 1 && !messages.is_empty() {
        // A document cut short.
        let m = messages[c.below(messages.len() as u64) as usize];
        let mut data = Wire::of(&model.ty(m).format).encode(&values::message(model, m, c));
        let cut = 1 + c.below(data.len().max(2) as u64 - 1) as usize;
        data.truncate(cut.min(data.len().saturating_sub(1)).max(1));
        let p = Payload {
            content_type: Arc::from(model.ty(m).format.as_ref()),
            data,
        };
        return (Some(p), "a document cut short".into());
    }
    if choice == 2
        && let Some(&m) = messages.first()
    {
        // A message of another type, or of none of the model.
        let others: Vec<_> = (0..model.types.len())
            .map(|i| othc::model::TypeId(i as u32))
            .filter(|t| {
                matches!(model.ty(*t).kind, TypeKind::Message { .. }) && !messages.contains(t)
            })
            .collect();
        let doc = if others.is_empty() {
            bson::doc! { "$type": "NoSuchMessage", "x": 1 }
        } else {
            values::message(model, others[c.below(others.len() as u64) as usize], c)
        };
        let name = doc.get_str("$type").unwrap_or_default().to_string();
        let p = Payload {
            content_type: Arc::from(model.ty(m).format.as_ref()),
            data: Wire::of(&model.ty(m).format).encode(&doc),
        };
        return (
            Some(p),
            format!("a `{name}` message, which the entry does not take"),
        );
    }
    let p = Payload {
        content_type: Arc::from("application/x-othc-test"),
        data: values::bytes(c),
    };
    (Some(p), "a content type the entry does not take".into())
}
