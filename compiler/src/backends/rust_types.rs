//! Rust names and types for a schema's messages and enums, and their code:
//! a struct per message with its codec (its fields in the crate's tree,
//! `othismo::bson`, read by the rules of the payload's format; the payload
//! in the message's format, BSON or JSON), a Rust enum per enum, and
//! `AnyMessage` for `any` fields: the file's messages, and any other kept
//! whole.

use std::fmt::Write as _;

use crate::asnames;
use crate::model::*;

/// Words Rust reserves: a field so named is written raw (`r#type`), or
/// with `_` after it where raw is not allowed.
const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate",
    "do", "dyn", "else", "enum", "extern", "false", "final", "fn", "for", "if", "impl", "in",
    "let", "loop", "macro", "match", "mod", "move", "mut", "override", "priv", "pub", "ref",
    "return", "self", "static", "struct", "super", "trait", "true", "try", "type", "typeof",
    "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// `writeGreeting` → `write_greeting`; any character not allowed becomes
/// `_`; a keyword is written raw.
pub fn snake(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 4);
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() || c == '_' {
            out.push(c);
        } else {
            out.push('_');
        }
    }
    if out.is_empty() || out.starts_with(|c: char| c.is_ascii_digit()) {
        out.insert(0, '_');
    }
    raw(out)
}

/// `s` as an identifier: raw when a keyword (`r#type`), `_` after it when
/// it cannot be raw (`self_`).
fn raw(s: String) -> String {
    match s.as_str() {
        "self" | "Self" | "super" | "crate" => format!("{s}_"),
        k if KEYWORDS.contains(&k) => format!("r#{s}"),
        _ => s,
    }
}

/// A type's Rust name.
pub fn type_name(name: &str) -> String {
    raw(asnames::pascal(name))
}

/// A Rust string literal of `s`.
pub fn literal(s: &str) -> String {
    format!("{s:?}")
}

/// The Rust type of a field of type `ty` (optional: `Option<…>`).
pub fn field_type(model: &Model, ty: &FieldType, optional: bool) -> String {
    let t = bare(model, ty);
    if !optional {
        return t;
    }
    match ty {
        // A message may hold itself through an optional field: boxed.
        FieldType::Named(id) if matches!(model.ty(*id).kind, TypeKind::Message { .. }) => {
            format!("Option<Box<{t}>>")
        }
        _ => format!("Option<{t}>"),
    }
}

fn bare(model: &Model, ty: &FieldType) -> String {
    match ty {
        FieldType::Scalar(s) => match s {
            Scalar::Bool => "bool".into(),
            Scalar::String => "String".into(),
            Scalar::Bytes => "Vec<u8>".into(),
            Scalar::Time => "othismo::bson::DateTime".into(),
            Scalar::Uuid => "othismo::bson::Uuid".into(),
            other => other.as_str().into(),
        },
        FieldType::Any => "AnyMessage".into(),
        FieldType::Named(id) => type_name(&model.ty(*id).name),
        FieldType::List(inner) => match **inner {
            // `Vec<u8>` is `bytes`.
            FieldType::Scalar(Scalar::U8) => "othismo::bson::List<u8>".into(),
            _ => format!("Vec<{}>", bare(model, inner)),
        },
        FieldType::Map(inner) => format!("othismo::bson::Map<{}>", bare(model, inner)),
        FieldType::Unknown => "othismo::bson::Value".into(),
    }
}

/// `///` lines of a doc comment, indented.
pub fn doc(out: &mut String, doc: &Option<String>, indent: &str) {
    if let Some(d) = doc {
        for line in d.lines() {
            let _ = writeln!(
                out,
                "{indent}///{}{line}",
                if line.is_empty() { "" } else { " " }
            );
        }
    }
}

/// The code of message `t`.
pub fn message(out: &mut String, model: &Model, t: TypeId) {
    let def = model.ty(t);
    let TypeKind::Message { fields } = &def.kind else {
        return;
    };
    let name = type_name(&def.name);
    doc(out, &def.doc, "");
    let _ = writeln!(
        out,
        "#[derive(Clone, Debug, Default, PartialEq)]\npub struct {name} {{"
    );
    for f in fields {
        doc(out, &f.doc, "    ");
        let _ = writeln!(
            out,
            "    pub {}: {},",
            snake(&f.name),
            field_type(model, &f.ty, f.optional)
        );
    }
    let _ = writeln!(out, "}}\n\nimpl {name} {{");
    let _ = writeln!(
        out,
        "    /// The message type, as its documents' `$type` names it.\n    pub const TYPE: &'static str = {};\n",
        literal(&def.name)
    );
    let _ = writeln!(
        out,
        "    /// Its fields as a document (no `$type`: as a field of this type travels).\n    pub fn to_document(&self) -> othismo::bson::Document {{\n        let mut d = othismo::bson::Document::new();"
    );
    for f in fields {
        let (field, wire) = (snake(&f.name), literal(&f.name));
        if f.optional {
            let _ = writeln!(
                out,
                "        if let Some(v) = &self.{field} {{\n            d.push({wire}, othismo::bson::Field::to_value(v));\n        }}"
            );
        } else {
            let _ = writeln!(
                out,
                "        d.push({wire}, othismo::bson::Field::to_value(&self.{field}));"
            );
        }
    }
    let _ = writeln!(out, "        d\n    }}\n");
    let _ = writeln!(
        out,
        "    /// Reads its fields from a document of `wire`; fields it does not name are skipped.\n    pub fn from_document(d: &othismo::bson::Document, wire: othismo::bson::Wire) -> Result<{name}, othismo::bson::DecodeError> {{\n        Ok({name} {{"
    );
    for f in fields {
        let how = if f.optional { "optional" } else { "required" };
        let _ = writeln!(
            out,
            "            {}: othismo::bson::{how}(d, {}, wire)?,",
            snake(&f.name),
            literal(&f.name)
        );
    }
    let _ = writeln!(out, "        }})\n    }}\n");
    payload_codec(out, &name, &def.name, &def.format);
    codec(
        out,
        &name,
        "othismo::bson::Value::Document(self.to_document())",
        &format!(
            "match v {{\n            othismo::bson::Value::Document(d) => {name}::from_document(d, wire),\n            _ => Err(othismo::bson::DecodeError(\"expected a document\".to_string())),\n        }}"
        ),
    );
}

/// A message's payload in its format: `to_payload` (`$type` first), and
/// `from_payload` (`None` when the payload holds no `type_name`); a JSON
/// message also has `from_body`, which reads a body without `$type` as
/// this type (what a browser's `fetch` sends to an entry taking it alone).
fn payload_codec(out: &mut String, name: &str, type_name: &str, format: &str) {
    let json = format.eq_ignore_ascii_case("application/json");
    let (encode, typed, wire) = if json {
        (
            "othismo::json::encode_document(&d)",
            "othismo::json::typed",
            "Json",
        )
    } else {
        ("d.encode()", "othismo::bson::typed", "Bson")
    };
    let _ = writeln!(
        out,
        "    /// A payload of it (`{format}`), `$type` first.\n    pub fn to_payload(&self) -> othismo::Payload {{\n        let mut d = othismo::bson::Document::new();\n        d.push(\"$type\", othismo::bson::Value::String(Self::TYPE.to_string()));\n        d.fields.extend(self.to_document().fields);\n        othismo::Payload::new({}, {encode})\n    }}\n",
        literal(format)
    );
    let named = if json {
        "t.as_deref() != Some(Self::TYPE)"
    } else {
        "t != Self::TYPE"
    };
    let _ = writeln!(
        out,
        "    /// The message a payload holds: `None` when it is not a `{type_name}`.\n    pub fn from_payload(p: &othismo::Payload) -> Option<{name}> {{\n        let (t, d) = {typed}(&p.data).ok()?;\n        if {named} {{\n            return None;\n        }}\n        {name}::from_document(&d, othismo::bson::Wire::{wire}).ok()\n    }}"
    );
    if json {
        let _ = writeln!(
            out,
            "\n    /// The message a request's body holds: as `from_payload`, but a body\n    /// without `$type` is read as a `{type_name}`.\n    pub fn from_body(p: &othismo::Payload) -> Option<{name}> {{\n        let (t, d) = {typed}(&p.data).ok()?;\n        if t.map_or(false, |t| t != Self::TYPE) {{\n            return None;\n        }}\n        {name}::from_document(&d, othismo::bson::Wire::{wire}).ok()\n    }}"
        );
    }
    let _ = writeln!(out, "}}\n");
}

/// `Field` and `NotByte` for a generated type.
fn codec(out: &mut String, name: &str, to: &str, from: &str) {
    let _ = writeln!(
        out,
        "impl othismo::bson::Field for {name} {{\n    fn to_value(&self) -> othismo::bson::Value {{\n        {to}\n    }}\n\n    fn from_value(v: &othismo::bson::Value, wire: othismo::bson::Wire) -> Result<Self, othismo::bson::DecodeError> {{\n        {from}\n    }}\n}}\n\nimpl othismo::bson::NotByte for {name} {{}}\n"
    );
}

/// The code of enum `t`.
pub fn enumeration(out: &mut String, model: &Model, t: TypeId) {
    let def = model.ty(t);
    let TypeKind::Enum { values } = &def.kind else {
        return;
    };
    let name = type_name(&def.name);
    let variant = |v: &EnumValueDef| raw(asnames::pascal(&v.name));
    doc(out, &def.doc, "");
    let _ = writeln!(
        out,
        "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]\npub enum {name} {{"
    );
    for v in values {
        doc(out, &v.doc, "    ");
        let _ = writeln!(out, "    {},", variant(v));
    }
    let _ = writeln!(
        out,
        "}}\n\nimpl Default for {name} {{\n    fn default() -> {name} {{\n        {name}::{}\n    }}\n}}\n",
        variant(&values[0])
    );
    let _ = writeln!(
        out,
        "impl {name} {{\n    /// The value's name, as it travels.\n    pub fn as_str(&self) -> &'static str {{\n        match self {{"
    );
    for v in values {
        let _ = writeln!(
            out,
            "            {name}::{} => {},",
            variant(v),
            literal(&v.name)
        );
    }
    let _ = writeln!(
        out,
        "        }}\n    }}\n\n    /// The value named `s`.\n    pub fn parse(s: &str) -> Option<{name}> {{\n        match s {{"
    );
    for v in values {
        let _ = writeln!(
            out,
            "            {} => Some({name}::{}),",
            literal(&v.name),
            variant(v)
        );
    }
    let _ = writeln!(out, "            _ => None,\n        }}\n    }}\n}}\n");
    codec(
        out,
        &name,
        "othismo::bson::Value::String(self.as_str().to_string())",
        &format!(
            "match v {{\n            othismo::bson::Value::String(s) => {name}::parse(s).ok_or_else(|| othismo::bson::DecodeError(format!(\"`{{}}` is no value of `{}`\", s))),\n            _ => Err(othismo::bson::DecodeError(\"expected an enum's name (a string)\".to_string())),\n        }}",
            def.name
        ),
    );
}

/// `AnyMessage`: a message of any of `messages`, or another kept whole.
pub fn any_message(out: &mut String, model: &Model, messages: &[TypeId]) {
    let _ = writeln!(
        out,
        "/// A message of any type (an `any` field): one of this file's, or another,\n/// kept whole (it names its type) and passed on unchanged.\n#[derive(Clone, Debug, PartialEq)]\npub enum AnyMessage {{"
    );
    for &t in messages {
        let n = type_name(&model.ty(t).name);
        // Boxed: a message may hold an `any`, and so, through it, itself.
        let _ = writeln!(out, "    {n}(Box<{n}>),");
    }
    let _ = writeln!(
        out,
        "    Unknown(othismo::bson::Document),\n}}\n\nimpl Default for AnyMessage {{\n    fn default() -> AnyMessage {{\n        AnyMessage::Unknown(othismo::bson::Document::new())\n    }}\n}}\n"
    );
    let mut to = String::from("let (t, fields): (&str, othismo::bson::Document) = match self {\n");
    for &t in messages {
        let n = type_name(&model.ty(t).name);
        let _ = writeln!(
            to,
            "            AnyMessage::{n}(m) => ({n}::TYPE, m.to_document()),"
        );
    }
    to.push_str("            AnyMessage::Unknown(d) => return othismo::bson::Value::Document(d.clone()),\n        };\n        let mut d = othismo::bson::Document::new();\n        d.push(\"$type\", othismo::bson::Value::String(t.to_string()));\n        d.fields.extend(fields.fields);\n        othismo::bson::Value::Document(d)");
    let mut from = String::from(
        "let d = match v {\n            othismo::bson::Value::Document(d) => d,\n            _ => return Err(othismo::bson::DecodeError(\"expected a document\".to_string())),\n        };\n        let t = match d.get(\"$type\") {\n            Some(othismo::bson::Value::String(t)) => t.as_str(),\n            _ => return Err(othismo::bson::DecodeError(\"an `any` names its `$type`\".to_string())),\n        };\n        match t {\n",
    );
    for &t in messages {
        let n = type_name(&model.ty(t).name);
        let _ = writeln!(
            from,
            "            {} => {n}::from_document(d, wire).map(|m| AnyMessage::{n}(Box::new(m))),",
            literal(&model.ty(t).name)
        );
    }
    from.push_str("            _ => Ok(AnyMessage::Unknown(d.clone())),\n        }");
    codec(out, "AnyMessage", &to, &from);
}
