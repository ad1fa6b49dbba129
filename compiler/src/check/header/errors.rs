//! What can be wrong with one object's or image's header on its own, as
//! data. The wording is in `to_diagnostic`.

use crate::diagnostics::wording::quote_list;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum HeaderError {
    /// E0406: `native` on an object the runtime does not provide.
    UnknownNative {
        object: String,
        native_at: FileSpan,
        name_at: FileSpan,
        natives: Vec<String>,
    },
    /// E0405: a need's mount point with a capture in it.
    PatternMount { mount: String, at: FileSpan },
    /// E0403: `operator` on a need entry.
    OperatorInNeeds { at: FileSpan },
    /// E0404: two needs whose generated clients share a name.
    ClientsCollide {
        name: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0404: two entries whose generated methods share a name; `block` is
    /// `serves` or `needs`.
    MethodsCollide {
        block: &'static str,
        name: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0401: the same verb on the same path twice.
    ServedTwice {
        entry: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0402: two patterns that differ only in capture names.
    SamePaths {
        entry: String,
        first_entry: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0407: an object to build whose implementation `file` is missing;
    /// `beside` is the `.ts` named after its `.oth` file, if that exists
    /// (the layout before implementations were named after objects).
    NoImplementation {
        object: String,
        at: FileSpan,
        file: String,
        beside: Option<String>,
    },
    /// E0408: two objects to build whose implementation is one file (two
    /// objects of one name in one folder).
    OneImplementation {
        object: String,
        at: FileSpan,
        other: FileSpan,
        file: String,
    },
}

impl ToDiagnostic for HeaderError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            HeaderError::UnknownNative {
                object,
                native_at,
                name_at,
                natives,
            } => Diagnostic::new(
                Code::E0406,
                format!("the runtime provides no native object `{object}`"),
                Label::at(*native_at, "`native` says the runtime implements this object"),
            )
            .with_label(Label::at(*name_at, "no object of this name in `othismo:env`"))
            .with_help(format!(
                "the runtime's objects are {}; remove `native` to implement `{object}` in AssemblyScript",
                quote_list(natives)
            )),
            HeaderError::PatternMount { mount, at } => Diagnostic::new(
                Code::E0405,
                format!("mount point `{mount}` is a pattern"),
                Label::at(*at, "a need's mount point is a path, or ends in `/**`"),
            )
            .with_help(
                "name the mount point literally (`needs /db { ... }`), or say `needs /db/** { ... }` to send anywhere under it, and put captures in the entries",
            ),
            HeaderError::OperatorInNeeds { at } => Diagnostic::new(
                Code::E0403,
                "`operator` in a needs block",
                Label::at(*at, "only a serves entry can be operator-only"),
            )
            .with_help(
                "remove `operator`: objects cannot make operator requests; the image's startup requests are the operator's",
            ),
            HeaderError::ClientsCollide { name, at, first } => Diagnostic::new(
                Code::E0404,
                format!("two needs would both generate `{name}`"),
                Label::at(*at, format!("this need generates `{name}`")),
            )
            .with_label(Label::at(*first, "and so does this one"))
            .with_help(
                "clients are named for the mount point's last segment: give the two mount points different last segments (two objects of one file that need something at the same mount point share its client)",
            ),
            HeaderError::MethodsCollide {
                block,
                name,
                at,
                first,
            } => Diagnostic::new(
                Code::E0404,
                format!("two {block} entries would both generate the method `{name}`"),
                Label::at(*at, format!("this entry generates `{name}`")),
            )
            .with_label(Label::at(*first, "and so does this one"))
            .with_help(
                "methods are named for the verb and the path's literal segments: give one of the two paths another literal segment",
            ),
            HeaderError::ServedTwice { entry, at, first } => Diagnostic::new(
                Code::E0401,
                format!("`{entry}` is served twice"),
                Label::at(*at, "served again here"),
            )
            .with_label(Label::at(*first, "first served here"))
            .with_help(
                "remove one of the two entries (an entry can take several request types: `write A | B`)",
            ),
            HeaderError::SamePaths {
                entry,
                first_entry,
                at,
                first,
            } => Diagnostic::new(
                Code::E0402,
                format!("`{first_entry}` and `{entry}` match the same paths"),
                Label::at(*at, "this pattern differs only in capture names"),
            )
            .with_label(Label::at(*first, "from this one"))
            .with_help("no request could tell them apart: keep one of the two"),
            HeaderError::NoImplementation {
                object,
                at,
                file,
                beside,
            } => {
                let d = Diagnostic::new(
                    Code::E0407,
                    format!("`{object}` has no implementation"),
                    Label::at(*at, format!("`{file}` does not exist")),
                );
                match beside {
                    Some(other) => d.with_help(format!(
                        "an object's implementation is the file named after the object: rename `{other}` to `{file}` if it implements `{object}` (an object per file), or write `{file}`"
                    )),
                    None => d.with_help(format!(
                        "write `{file}`, named after the object (its bindings come from `othc gen`), or a Cargo package `{}/Cargo.toml` beside it to write it in Rust, or mark the object `native` if the runtime provides it",
                        object
                    )),
                }
            }
            HeaderError::OneImplementation {
                object,
                at,
                other,
                file,
            } => Diagnostic::new(
                Code::E0408,
                format!("two objects `{object}` would both be compiled from `{file}`"),
                Label::at(*at, format!("this `{object}` is implemented by `{file}`")),
            )
            .with_label(Label::at(*other, "and so is this one"))
            .with_help(
                "an object's implementation is the file named after it, beside its .oth file: rename one of the two objects, or move its .oth file to a folder of its own",
            ),
        }
    }
}
