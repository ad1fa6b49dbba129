//! The field names written in message literals (slot defaults and startup
//! payloads), each tied to the field it sets, and the enum values written
//! as strings where an enum is expected, each tied to its value: hover
//! shows the field's type, definition goes to its declaration, rename
//! changes them with it. The checker resolved them when it encoded the
//! literals (the name index's `members`); here they only become places.

use oth_syntax::ast::{self, ImagePart, Item, Payload};

use super::{Analysis, Target};
use crate::check::Sym;
use crate::model::{TypeId, TypeKind};
use crate::source::{FileId, FileSpan};

/// The message literals of the images among `items`: slot defaults and
/// startup payloads, the values a literal's type comes from the checker for.
pub(super) fn image_literals(items: &[Item]) -> impl Iterator<Item = &ast::Value> {
    items
        .iter()
        .filter_map(|item| match item {
            Item::Image(img) => Some(&img.parts),
            _ => None,
        })
        .flatten()
        .filter_map(|part| match part {
            ImagePart::Slot(s) => s.default.as_ref(),
            ImagePart::Startup(st) => match &st.payload {
                Some(Payload::Message(v)) => Some(v),
                _ => None,
            },
            _ => None,
        })
}

impl Analysis {
    pub(super) fn literal_fields(&self, out: &mut Vec<(Target, FileSpan)>) {
        let model = &self.compiled.checked.model;
        for m in &self.names.members {
            let name = match &model.ty(m.ty).kind {
                TypeKind::Message { fields } => fields.get(m.member).map(|f| &f.name),
                TypeKind::Enum { values } => values.get(m.member).map(|v| &v.name),
            };
            if let Some(at) = name.and_then(|n| self.name_in(m.at.file, m.at.span, n)) {
                out.push((Target::Member(m.ty, m.member), at));
            }
        }
    }

    /// The message type a literal's name at `at` resolved to, as the
    /// checker recorded it (the uses are sorted by place).
    pub(super) fn named_message(&self, at: FileSpan) -> Option<TypeId> {
        let uses = &self.names.uses;
        let i = uses
            .binary_search_by_key(&(at.file, at.span.start(), at.span.end()), |u| {
                (u.at.file, u.at.span.start(), u.at.span.end())
            })
            .ok()?;
        match uses[i].sym {
            Sym::Type(t, false) => Some(t),
            _ => None,
        }
    }

    /// The span of `name` as written at `span`: the whole span for a bare
    /// name, the inside of the quotes for a string that spells it without
    /// escapes (`None` for one with escapes: no single place to change).
    fn name_in(&self, file: FileId, span: oth_syntax::Span, name: &str) -> Option<FileSpan> {
        let written = self.text(file).get(span.range())?;
        if written == name {
            return Some(FileSpan::new(file, span));
        }
        let inner = written.strip_prefix('"')?.strip_suffix('"')?;
        (inner == name).then(|| {
            FileSpan::new(
                file,
                oth_syntax::Span::new(span.start() + 1, span.end() - 1),
            )
        })
    }
}
