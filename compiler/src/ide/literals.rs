//! The field names written in message literals (slot defaults and startup
//! payloads), each tied to the field it sets, and the enum values written
//! as strings where an enum is expected, each tied to its value: hover
//! shows the field's type, definition goes to its declaration, rename
//! changes them with it. A literal's type comes from the name use the
//! checker recorded for it; nested messages follow the field types.

use oth_syntax::ast::{self, ImagePart, Item, Payload, ValueKind};

use super::{Analysis, Target};
use crate::check::Sym;
use crate::model::{FieldType, TypeId, TypeKind};
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
        for m in &self.compiled.front.program.modules {
            for v in image_literals(&m.ast.items) {
                self.value(m.file, None, v, out);
            }
        }
    }

    /// A value whose type is `expected` (a message type), if known.
    fn value(
        &self,
        file: FileId,
        expected: Option<TypeId>,
        v: &ast::Value,
        out: &mut Vec<(Target, FileSpan)>,
    ) {
        let (ty, fields) = match &v.kind {
            ValueKind::Message(name, fields) => {
                (self.named_message(FileSpan::new(file, name.span)), fields)
            }
            ValueKind::Map(fields) => (expected, fields),
            _ => return,
        };
        let Some(ty) = ty else { return };
        let model = &self.compiled.checked.model;
        let TypeKind::Message { fields: defs } = &model.ty(ty).kind else {
            return;
        };
        for (key, val) in fields {
            let Some(k) = defs.iter().position(|f| f.name == key.name) else {
                continue;
            };
            if let Some(at) = self.name_in(file, key.span, &key.name) {
                out.push((Target::Member(ty, k), at));
            }
            self.typed(file, &defs[k].ty, val, out);
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

    /// A field's value, by the field's type.
    fn typed(
        &self,
        file: FileId,
        t: &FieldType,
        v: &ast::Value,
        out: &mut Vec<(Target, FileSpan)>,
    ) {
        match (t, &v.kind) {
            (FieldType::List(inner), ValueKind::List(items)) => {
                for i in items {
                    self.typed(file, inner, i, out);
                }
            }
            (FieldType::Map(inner), ValueKind::Map(entries)) => {
                for (_, e) in entries {
                    self.typed(file, inner, e, out);
                }
            }
            (FieldType::Named(id), ValueKind::Str(s)) => {
                let model = &self.compiled.checked.model;
                if let TypeKind::Enum { values } = &model.ty(*id).kind
                    && let Some(k) = values.iter().position(|x| x.name == *s)
                    && let Some(at) = self.name_in(file, v.span, s)
                {
                    out.push((Target::Member(*id, k), at));
                }
            }
            (FieldType::Named(id), _) => self.value(file, Some(*id), v, out),
            _ => {}
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
