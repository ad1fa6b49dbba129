//! How single constructs print on their own: an entry, a link, a type, a
//! string, a value. The printer arranges these into lines and blocks.

use oth_syntax::ast::bson;
use oth_syntax::ast::*;

pub(super) fn entry(e: &Entry, width: usize) -> String {
    let path = e.path.path.to_string();
    let mut s = format!(
        "{path}{}  ",
        " ".repeat(width.saturating_sub(path.chars().count()))
    );
    if e.operator.is_some() {
        s.push_str("operator ");
    }
    s.push_str(e.verb.verb.as_str());
    if !e.request.is_empty() {
        s.push(' ');
        s.push_str(
            &e.request
                .iter()
                .map(type_ref)
                .collect::<Vec<_>>()
                .join(" | "),
        );
    }
    if let Some(a) = &e.answer {
        s.push_str(" -> ");
        s.push_str(&type_ref(&a.ty));
        if a.stream.is_some() {
            s.push('*');
        }
    }
    s
}

pub(super) fn link(l: &Link, width: usize) -> String {
    let to = l.to.path.to_string();
    let pad = " ".repeat(width.saturating_sub(to.chars().count()));
    let ro = if l.readonly.is_some() {
        " readonly"
    } else {
        ""
    };
    format!("{to}{pad} {}{ro}", l.from.path)
}

pub fn type_ref(t: &TypeRef) -> String {
    match t {
        TypeRef::ContentType(c) => c.ct.text.clone(),
        TypeRef::Name(n) => n.name.clone(),
    }
}

pub fn bson_type(t: &bson::Type) -> String {
    match &t.kind {
        bson::TypeKind::Named(n) => n.clone(),
        bson::TypeKind::List(i) => format!("[{}]", bson_type(i)),
        bson::TypeKind::Map(i) => format!("{{{}}}", bson_type(i)),
    }
}

/// A string literal, escaped as the lexer reads it back.
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '\0' => out.push_str("\\0"),
            c if c.is_control() => out.push_str(&format!("\\u{{{:X}}}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

pub(super) fn float(f: f64) -> String {
    // A literal beyond f64's range read as infinite (the checker refuses
    // it, E0604): printed as a literal that reads as infinite again, since
    // `inf` is not one.
    if f.is_infinite() {
        return if f > 0.0 { "1.0e309" } else { "-1.0e309" }.into();
    }
    let s = format!("{f:?}");
    // The lexer wants digits on both sides of the point: `1e300` → `1.0e300`.
    match s.find(['e', 'E']) {
        Some(i) if !s[..i].contains('.') => format!("{}.0{}", &s[..i], &s[i..]),
        _ if !s.contains('.') => format!("{s}.0"),
        _ => s,
    }
}

pub(super) fn is_ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
        && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

pub(super) fn key(k: &Key) -> String {
    if k.quoted || !is_ident(&k.name) {
        string(&k.name)
    } else {
        k.name.clone()
    }
}

/// A value on one line.
pub(super) fn inline(v: &Value) -> String {
    match &v.kind {
        ValueKind::Str(s) => string(s),
        ValueKind::Int(i) => i.to_string(),
        ValueKind::Float(f) => float(*f),
        ValueKind::Bool(b) => b.to_string(),
        ValueKind::Null => "null".into(),
        ValueKind::List(items) => format!(
            "[{}]",
            items.iter().map(inline).collect::<Vec<_>>().join(", ")
        ),
        ValueKind::Map(fields) if fields.is_empty() => "{}".into(),
        ValueKind::Map(fields) => format!("{{ {} }}", fields_inline(fields)),
        ValueKind::Message(n, fields) if fields.is_empty() => format!("{} {{}}", n.name),
        ValueKind::Message(n, fields) => format!("{} {{ {} }}", n.name, fields_inline(fields)),
        ValueKind::Ref(n) => n.name.clone(),
        ValueKind::Error => "null".into(),
    }
}

pub(super) fn fields_inline(fields: &[(Key, Value)]) -> String {
    fields
        .iter()
        .map(|(k, v)| format!("{}: {}", key(k), inline(v)))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A value starting at column `col` of a line indented `indent` levels: on
/// one line if it fits in 80 columns, else one field or item per line.
pub fn value(v: &Value, indent: usize, col: usize) -> String {
    let one = inline(v);
    if indent * 2 + col + one.chars().count() <= 80 {
        return one;
    }
    let pad = "  ".repeat(indent + 1);
    let close = "  ".repeat(indent);
    match &v.kind {
        ValueKind::List(items) if !items.is_empty() => {
            let lines: Vec<String> = items
                .iter()
                .map(|i| format!("{pad}{},", value(i, indent + 1, 0)))
                .collect();
            format!("[\n{}\n{close}]", lines.join("\n"))
        }
        ValueKind::Map(fields) | ValueKind::Message(_, fields) if !fields.is_empty() => {
            let lines: Vec<String> = fields
                .iter()
                .map(|(k, val)| {
                    let head = format!("{}: ", key(k));
                    format!("{pad}{head}{}", value(val, indent + 1, head.len()))
                })
                .collect();
            let name = match &v.kind {
                ValueKind::Message(n, _) => format!("{} ", n.name),
                _ => String::new(),
            };
            format!("{name}{{\n{}\n{close}}}", lines.join("\n"))
        }
        _ => one,
    }
}
