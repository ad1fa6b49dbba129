//! What a message literal being written takes (an editor's signature
//! help): inside `Greeting { prefix: "a", | }`, the message's fields with
//! their types, the one the place is in (or the first not yet given)
//! marked. The literal's type is the checker's, as for hovers.

use oth_syntax::ast::{self, ValueKind};

use super::Analysis;
use super::hover::field_type;
use super::literals::image_literals;
use crate::model::{FieldType, TypeId, TypeKind};
use crate::source::{FileId, FileSpan};

/// A message's fields as one line, and where in it each field is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// `Greeting { prefix: string, excited: bool }`.
    pub label: String,
    /// Each field's place in `label` (byte ranges), in declaration order.
    pub fields: Vec<std::ops::Range<usize>>,
    /// The field the place is in, or the first not yet given.
    pub active: Option<usize>,
    /// The message's doc.
    pub doc: Option<String>,
}

/// The innermost message literal around `offset` in `file`, as a signature.
pub fn signature(analysis: &Analysis, file: FileId, offset: usize) -> Option<Signature> {
    let m = analysis.module(file)?;
    let mut found = None;
    for v in image_literals(&m.ast.items) {
        innermost(analysis, file, None, v, offset, &mut found);
    }
    let (ty, given) = found?;
    let model = &analysis.compiled.checked.model;
    let t = model.ty(ty);
    let TypeKind::Message { fields } = &t.kind else {
        return None;
    };
    let mut label = format!("{} {{ ", t.name);
    let mut places = Vec::new();
    for (i, f) in fields.iter().enumerate() {
        if i > 0 {
            label.push_str(", ");
        }
        let start = label.len();
        label.push_str(&format!(
            "{}{}: {}",
            f.name,
            if f.optional { "?" } else { "" },
            field_type(model, &f.ty)
        ));
        places.push(start..label.len());
    }
    label.push_str(" }");
    let active = match given {
        Given::In(name) => fields.iter().position(|f| f.name == name),
        Given::Between(names) => fields.iter().position(|f| !names.contains(&f.name)),
    };
    Some(Signature {
        label,
        fields: places,
        active,
        doc: t.doc.clone(),
    })
}

/// Where the place is in a literal: in the field of this name, or between
/// fields, these being given.
enum Given {
    In(String),
    Between(Vec<String>),
}

/// Keeps in `found` the innermost message literal of `v` (its type being
/// `expected` when it names none) whose braces hold `offset`.
fn innermost(
    analysis: &Analysis,
    file: FileId,
    expected: Option<TypeId>,
    v: &ast::Value,
    offset: usize,
    found: &mut Option<(TypeId, Given)>,
) {
    if !(v.span.start() < offset && offset < v.span.end()) {
        return;
    }
    let (ty, fields) = match &v.kind {
        ValueKind::Message(name, fields) => (
            analysis.named_message(FileSpan::new(file, name.span)),
            fields,
        ),
        ValueKind::Map(fields) => (expected, fields),
        ValueKind::List(items) => {
            for i in items {
                innermost(analysis, file, expected, i, offset, found);
            }
            return;
        }
        _ => return,
    };
    let Some(ty) = ty else { return };
    let model = &analysis.compiled.checked.model;
    let TypeKind::Message { fields: defs } = &model.ty(ty).kind else {
        return;
    };
    let inside = fields
        .iter()
        .find(|(k, val)| k.span.start() <= offset && offset <= val.span.end());
    *found = Some((
        ty,
        match inside {
            Some((k, _)) => Given::In(k.name.clone()),
            None => Given::Between(fields.iter().map(|(k, _)| k.name.clone()).collect()),
        },
    ));
    // A literal inside a field's value is nearer.
    for (key, val) in fields {
        let Some(def) = defs.iter().find(|f| f.name == key.name) else {
            continue;
        };
        let inner = match &def.ty {
            FieldType::Named(id) => Some(*id),
            FieldType::List(t) | FieldType::Map(t) => match &**t {
                FieldType::Named(id) => Some(*id),
                _ => None,
            },
            _ => None,
        };
        match &val.kind {
            ValueKind::Map(entries) if matches!(def.ty, FieldType::Map(_)) => {
                for (_, e) in entries {
                    innermost(analysis, file, inner, e, offset, found);
                }
            }
            _ => innermost(analysis, file, inner, val, offset, found),
        }
    }
}
