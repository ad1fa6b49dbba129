//! Names in generated AssemblyScript (book: reference/generated-names.md), in one place: the
//! backend uses these to name methods and clients, and the checker uses the
//! same functions to report collisions it cannot mangle away (E0404).

use crate::model::{EntryDef, Model, PayloadType, Seg};

/// AssemblyScript's reserved words (and TypeScript's), which a generated
/// identifier must not be. Kept sorted: looked up by binary search, once per
/// generated name (a test holds the order).
const RESERVED: &[&str] = &[
    "abstract",
    "as",
    "async",
    "await",
    "boolean",
    "break",
    "case",
    "catch",
    "class",
    "const",
    "constructor",
    "continue",
    "debugger",
    "declare",
    "default",
    "delete",
    "do",
    "else",
    "enum",
    "export",
    "extends",
    "false",
    "finally",
    "for",
    "from",
    "function",
    "get",
    "if",
    "implements",
    "import",
    "in",
    "instanceof",
    "interface",
    "is",
    "keyof",
    "let",
    "module",
    "namespace",
    "new",
    "null",
    "number",
    "of",
    "package",
    "private",
    "protected",
    "public",
    "readonly",
    "require",
    "return",
    "set",
    "static",
    "string",
    "super",
    "switch",
    "symbol",
    "this",
    "throw",
    "true",
    "try",
    "type",
    "typeof",
    "var",
    "void",
    "while",
    "with",
    "yield",
];

/// `dev-info.v2` → `DevInfoV2`: each run of letters and digits, capitalized.
pub fn pascal(s: &str) -> String {
    s.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| !p.is_empty())
        .map(|p| {
            let mut c = p.chars();
            c.next()
                .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .collect()
}

/// A valid identifier for `s`: other characters become `_`, a leading
/// digit gets a `_` before it, a reserved word a `_` after it.
pub fn identifier(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_identifier(&mut out, s);
    out
}

/// Appends `identifier(s)` to `out` (the bindings are written into one
/// buffer, not made of a string per name: `othc gen` writes a name per
/// field of every message).
pub fn push_identifier(out: &mut String, s: &str) {
    let start = out.len();
    let valid = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if s.is_empty() || s.starts_with(|c: char| c.is_ascii_digit()) {
        out.push('_');
    }
    // Most names are valid as they are: copied whole, not char by char.
    if s.chars().all(valid) {
        out.push_str(s);
    } else {
        out.extend(s.chars().map(|c| if valid(c) { c } else { '_' }));
    }
    if is_reserved(&out[start..]) {
        out.push('_');
    }
}

/// Whether `s` is one of `RESERVED`. They are all two to eleven lowercase
/// letters: most names are told apart by that before any comparison.
fn is_reserved(s: &str) -> bool {
    (2..=11).contains(&s.len())
        && s.as_bytes()[0].is_ascii_lowercase()
        && RESERVED.binary_search(&s).is_ok()
}

/// The base name of an entry's method: verb, then the PascalCase literal
/// segments (`/greeting write` → `writeGreeting`, `/` read → `read`).
pub fn method_base(e: &EntryDef) -> String {
    let mut name = e.verb.as_str().to_string();
    for s in &e.path.segs {
        if let Seg::Literal(l) = s {
            name.push_str(&pascal(l));
        }
    }
    name
}

/// The methods an entry generates: one, or one per message type when its
/// request may be several (`<name>With<Type>`).
pub fn method_names(model: &Model, e: &EntryDef) -> Vec<String> {
    let base = method_base(e);
    let messages: Vec<&str> = e
        .request
        .iter()
        .filter_map(|t| match t {
            PayloadType::Message(id) => Some(model.ty(*id).name.as_str()),
            _ => None,
        })
        .collect();
    if messages.len() > 1 {
        messages
            .into_iter()
            .map(|m| format!("{base}With{}", pascal(m)))
            .collect()
    } else {
        vec![base]
    }
}

/// The ready-made client of a concrete need: its mount point's last segment
/// (`/dev/cons` → `cons`). `None` for a pattern need, or the root.
pub fn client_instance(mount: &[Seg]) -> Option<String> {
    if mount.iter().any(|s| !matches!(s, Seg::Literal(_))) {
        return None;
    }
    match mount.last() {
        Some(Seg::Literal(l)) => Some(identifier(l)),
        _ => None,
    }
}

/// The client class of a need: `<Name>Client`, from the mount point's last
/// literal segment (`/dev/cons` → `ConsClient`; `/**` → `RootClient`).
pub fn client_class(mount: &[Seg]) -> String {
    let last = mount.iter().rev().find_map(|s| match s {
        Seg::Literal(l) => Some(pascal(l)),
        _ => None,
    });
    let name = last
        .filter(|n| !n.is_empty())
        .unwrap_or_else(|| "Root".into());
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("_{name}")
    } else {
        name
    };
    format!("{name}Client")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_are_sorted_for_their_binary_search() {
        assert!(
            RESERVED.windows(2).all(|w| w[0] < w[1]),
            "RESERVED out of order"
        );
        // What `is_reserved` tells them apart by before searching.
        assert!(
            RESERVED
                .iter()
                .all(|w| (2..=11).contains(&w.len()) && w.bytes().all(|b| b.is_ascii_lowercase()))
        );
        for w in RESERVED {
            assert_eq!(identifier(w), format!("{w}_"));
        }
    }

    #[test]
    fn names() {
        assert_eq!(pascal("greeting"), "Greeting");
        assert_eq!(pascal("dev-info.v2"), "DevInfoV2");
        assert_eq!(identifier("cons"), "cons");
        assert_eq!(identifier("my-db"), "my_db");
        assert_eq!(identifier("2fa"), "_2fa");
        assert_eq!(identifier("class"), "class_");
        assert_eq!(identifier("yield"), "yield_");
        assert_eq!(identifier("abstract"), "abstract_");
        assert_eq!(identifier("classy"), "classy");
        assert_eq!(identifier(""), "_");
        assert_eq!(identifier("é-1"), "__1");
        assert_eq!(identifier("9"), "_9");
        let mut out = String::from("x.");
        push_identifier(&mut out, "new");
        push_identifier(&mut out, "-");
        assert_eq!(out, "x.new__");
        let lit = |s: &str| Seg::Literal(s.into());
        assert_eq!(
            client_instance(&[lit("dev"), lit("cons")]).as_deref(),
            Some("cons")
        );
        assert_eq!(client_instance(&[Seg::Rest]), None);
        assert_eq!(client_class(&[lit("dev"), lit("cons")]), "ConsClient");
        assert_eq!(client_class(&[Seg::Rest]), "RootClient");
    }
}
