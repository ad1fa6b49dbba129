//! Which formats the backends write codecs for. A type of any other
//! format (JSON, checked and encoded in literals, but without generated
//! codecs yet) must never be rendered with another format's codec: the
//! bindings of a file that would hold one are refused (E0707) before
//! anything is written.

use super::errors::BindingsError;
use crate::model::{FileIx, Model, TypeId};

/// The formats whose messages both backends give classes and codecs.
pub const GENERATED: &[&str] = &["application/bson"];

/// The first type the bindings of `file` would hold whose format has no
/// generated codecs, if any (`spans`: the types' places, the model's).
pub fn not_generated(
    model: &Model,
    spans: &[crate::model::TypeSpans],
    file: FileIx,
) -> Option<BindingsError> {
    let objects = super::shared::objects_of(model, file);
    let ty: TypeId = model.types_for(file, &objects).into_iter().find(|t| {
        !GENERATED
            .iter()
            .any(|f| f.eq_ignore_ascii_case(&model.ty(*t).format))
    })?;
    let def = model.ty(ty);
    Some(BindingsError::FormatNotGenerated {
        ty: def.name.clone(),
        format: def.format.to_string(),
        at: spans[ty.index()].name,
    })
}
