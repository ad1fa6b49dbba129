//! What can be wrong with a name, as data, wherever it is used: in a
//! payload type, an instance's object, a literal's message type, a startup
//! request's slot, or a declaration. Lowering, the payload checks and the
//! formats' literal readers all report through this one enum, so "unknown
//! message type" reads the same wherever it is found.

use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::model::DeclKind;
use crate::source::FileSpan;

/// What kind of name was looked for.
#[derive(Clone, Debug, PartialEq)]
pub enum Sought {
    /// A payload type: a message type, a content type or `Stat`.
    PayloadType,
    /// What an instance is made of: an object or an image.
    Object,
    /// The type before a literal's braces.
    MessageType,
    /// A slot a startup request sends, in the named image.
    Slot { image: String },
    /// A field's type in a schema block.
    FieldType,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NameError {
    /// E0203: nothing of that name in scope; `candidates` are the names of
    /// the sought kind that are, for "did you mean".
    Unknown {
        sought: Sought,
        name: String,
        at: FileSpan,
        candidates: crate::diagnostics::suggest::Candidates,
    },
    /// E0206: the name is in scope but is another kind of thing.
    WrongKind {
        sought: Sought,
        name: String,
        kind: DeclKind,
        at: FileSpan,
    },
    /// E0204: a file binds one name twice (`imported`: this binding is an
    /// import; `first_imported`: so was the first).
    DefinedTwice {
        name: String,
        at: FileSpan,
        first: FileSpan,
        imported: bool,
        first_imported: bool,
    },
    /// E0204: an image declares an instance or slot name twice.
    DeclaredTwice {
        what: &'static str,
        name: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0204: a need of an image is mounted where an instance or another
    /// need already is (`other` says which).
    TreeClash {
        first_segment: String,
        at: FileSpan,
        other_at: FileSpan,
        other: &'static str,
    },
    /// E0208: a content type that has a format, written where a message
    /// type is wanted; `format` and `example` are for a payload type,
    /// `None` in a startup request (which wants a literal).
    BareContentType {
        content_type: String,
        at: FileSpan,
        format: Option<(&'static str, String)>,
    },
    /// W0001: an import nothing uses.
    UnusedImport { name: String, at: FileSpan },
    /// W0201: a content type othc does not know, close to a common one.
    NearContentType {
        written: String,
        near: &'static str,
        at: FileSpan,
    },
}

/// "a" or "an", for the word that follows.
pub fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

impl ToDiagnostic for NameError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            NameError::Unknown {
                sought,
                name,
                at,
                candidates,
            } => unknown(sought, name, *at, candidates),
            NameError::WrongKind {
                sought,
                name,
                kind,
                at,
            } => {
                let what = kind.describe();
                let a = article(what);
                match sought {
                    Sought::PayloadType => Diagnostic::new(
                        Code::E0206,
                        format!("`{name}` is {a} {what}, not a payload type"),
                        Label::at(*at, format!("this names {a} {what}")),
                    )
                    .with_help(if *kind == DeclKind::Enum {
                        "an enum is not a payload: it is only ever a field of a message"
                    } else {
                        "a payload type is a message type, a content type, or `Stat`"
                    }),
                    Sought::Object => Diagnostic::new(
                        Code::E0206,
                        format!("`{name}` is {a} {what}, not an object"),
                        Label::at(*at, "an instance is made of an object or an image"),
                    )
                    .with_help("name an object or an image here"),
                    Sought::FieldType => Diagnostic::new(
                        Code::E0206,
                        format!("`{name}` is {a} {what}, not a type"),
                        Label::at(*at, "a field's type goes here"),
                    )
                    .with_help(
                        "a field holds a scalar, a message type, an enum, a list `[T]` or a map `{T}`",
                    ),
                    Sought::MessageType | Sought::Slot { .. } => Diagnostic::new(
                        Code::E0206,
                        format!("`{name}` is {a} {what}, not a message type"),
                        Label::at(*at, "a message type goes before the braces"),
                    )
                    .with_help("name the message type this value is"),
                }
            }
            NameError::DefinedTwice {
                name,
                at,
                first,
                imported,
                first_imported,
            } => Diagnostic::new(
                Code::E0204,
                format!("`{name}` is defined twice in this file"),
                Label::at(
                    *at,
                    format!(
                        "this {} a second `{name}`",
                        if *imported { "imports" } else { "declares" }
                    ),
                ),
            )
            .with_label(Label::at(*first, format!("`{name}` was first defined here")))
            .with_help(if *imported || *first_imported {
                format!("import it under another name: `{name} as Other{name}`")
            } else {
                format!("rename one of the two declarations of `{name}`")
            }),
            NameError::DeclaredTwice {
                what,
                name,
                at,
                first,
            } => Diagnostic::new(
                Code::E0204,
                format!("{what} `{name}` is declared twice in this image"),
                Label::at(*at, "declared again here"),
            )
            .with_label(Label::at(*first, "first declared here"))
            .with_help(format!("give each {what} its own name")),
            NameError::TreeClash {
                first_segment,
                at,
                other_at,
                other,
            } => Diagnostic::new(
                Code::E0204,
                format!("`/{first_segment}` is two things in this image's tree"),
                Label::at(*at, "this need is mounted in the image tree here"),
            )
            .with_label(Label::at(*other_at, format!("and so is {other}")))
            .with_help("give the need's mount point a name no instance of the image has"),
            NameError::BareContentType {
                content_type,
                at,
                format: Some((format, example)),
            } => Diagnostic::new(
                Code::E0208,
                format!("`{content_type}` has a format, so it cannot be written bare"),
                Label::at(*at, "which message type?"),
            )
            .with_help(format!(
                "name a message type of the `{format}` format (such as `{example}`), or write `*/*` or `application/*` to take any payload"
            )),
            NameError::BareContentType {
                content_type,
                at,
                format: None,
            } => Diagnostic::new(
                Code::E0208,
                format!("`{content_type}` has a format: write a message literal instead of a string"),
                Label::at(*at, "which message type?"),
            )
            .with_help("write the message: `write /path Greeting { ... }`"),
            NameError::NearContentType { written, near, at } => Diagnostic::new(
                Code::W0201,
                format!("`{written}` is not a content type othc knows; did you mean `{near}`?"),
                Label::at(*at, format!("close to `{near}`")),
            )
            .with_help(format!(
                "write `{near}`; if `{written}` is meant, it is accepted as it is, and matches only itself"
            ))
            .with_replacement(near),
            NameError::UnusedImport { name, at } => Diagnostic::new(
                Code::W0001,
                format!("`{name}` is imported but never used"),
                Label::at(*at, "unused import"),
            )
            .with_help(format!("remove `{name}` from the import")),
        }
    }
}

fn unknown(sought: &Sought, name: &str, at: FileSpan, candidates: &[String]) -> Diagnostic {
    let (message, label, subject, otherwise) = match sought {
        Sought::PayloadType => (
            format!("unknown type `{name}`"),
            "no message type of this name is in scope",
            "type",
            format!(
                "declare it in a schemas block, or import it: `import {{ {name} }} from \"file.oth\"`"
            ),
        ),
        Sought::Object => (
            format!("unknown object `{name}`"),
            "no object or image of this name is in scope",
            "object",
            format!(
                "import it: `import {{ {name} }} from \"file.oth\"` (the runtime's objects come from \"othismo:env\")"
            ),
        ),
        Sought::MessageType => (
            format!("unknown message type `{name}`"),
            "not in scope in this file",
            "message type",
            format!("import it: `import {{ {name} }} from \"file.oth\"`"),
        ),
        // Unknown field types are E0303, reported by the schema checks.
        Sought::FieldType => (
            format!("unknown type `{name}`"),
            "no message type or enum of this name is in scope",
            "field type",
            format!("import it: `import {{ {name} }} from \"file.oth\"`"),
        ),
        Sought::Slot { image } => (
            format!("image `{image}` has no slot `{name}`"),
            "not a slot of this image",
            "slot",
            format!("declare it: `require {name} : TYPE`"),
        ),
    };
    let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
    let d = Diagnostic::new(Code::E0203, message, Label::at(at, label)).about(subject, name);
    // `textplain`: a content type that lost its `/`.
    if *sought == Sought::PayloadType
        && let Some(ct) = crate::model::COMMON_CONTENT_TYPES
            .iter()
            .find(|ct| ct.replace('/', "").eq_ignore_ascii_case(name))
    {
        return d
            .with_help(format!(
                "`{name}` looks like the content type `{ct}` without its `/`: write `{ct}`"
            ))
            .with_replacement(ct);
    }
    match closest(name, &refs) {
        Some(near) => d
            .with_help(format!("did you mean `{near}`?"))
            .with_replacement(near),
        None => d.with_help(otherwise),
    }
}
