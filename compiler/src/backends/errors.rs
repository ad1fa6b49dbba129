//! What can stop the bindings of a file from being generated, as data
//! (E0707); the wording is in `to_diagnostic`.

use crate::check::Language;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum BindingsError {
    /// E0707: the bindings would hold message type `ty` of `format`, whose
    /// codecs no backend writes yet.
    FormatNotGenerated {
        language: Language,
        /// The formats it does generate codecs for.
        generated: &'static [&'static str],
        ty: String,
        format: String,
        at: FileSpan,
    },
}

impl ToDiagnostic for BindingsError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            BindingsError::FormatNotGenerated {
                language,
                generated,
                ty,
                format,
                at,
            } => Diagnostic::new(
                Code::E0707,
                format!(
                    "othc does not generate {} bindings for `{format}` messages yet: `{ty}` is one",
                    language.name()
                ),
                Label::at(*at, format!("a type of the `{format}` format")),
            )
            .with_help(format!(
                "its literals are checked and encoded, and objects may pass its payloads on as they are; {} classes and codecs are generated for {} only. Write the object in {}, or declare the type in an `application/bson` block",
                language.name(),
                crate::diagnostics::wording::quote_list(generated),
                Language::Rust.name()
            )),
        }
    }
}
