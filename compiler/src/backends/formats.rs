//! Which formats each backend writes codecs for. A type of any other
//! format (JSON in AssemblyScript, for now) must never be rendered with
//! another format's codec: the bindings of a file that would hold one are
//! refused (E0707) before anything is written.

use super::errors::BindingsError;
use crate::check::Language;
use crate::model::{FileIx, Model, TypeId};

/// The formats whose messages a language's backend gives classes or
/// structs with their codecs.
pub fn generated(language: Language) -> &'static [&'static str] {
    match language {
        Language::AssemblyScript => &["application/bson"],
        Language::Rust => &["application/bson", "application/json"],
    }
}

/// The first type the bindings of `file` would hold whose format has no
/// generated codecs, if any (`spans`: the types' places, the model's).
pub fn not_generated(
    model: &Model,
    spans: &[crate::model::TypeSpans],
    file: FileIx,
    language: Language,
) -> Option<BindingsError> {
    let objects = super::shared::objects_of(model, file);
    let ty: TypeId = model.types_for(file, &objects).into_iter().find(|t| {
        !generated(language)
            .iter()
            .any(|f| f.eq_ignore_ascii_case(&model.ty(*t).format))
    })?;
    let def = model.ty(ty);
    Some(BindingsError::FormatNotGenerated {
        language,
        generated: generated(language),
        ty: def.name.clone(),
        format: def.format.to_string(),
        at: spans[ty.index()].name,
    })
}
