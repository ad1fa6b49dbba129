//! A file's outline (document symbols) and its foldable blocks, from its
//! syntax tree: both work on a file with errors in it.

use oth_syntax::Span;
use oth_syntax::ast::{self, EntryItem, ImagePart, Item, ObjectMember, Wire};

use super::Analysis;
use crate::source::FileId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SymbolKind {
    Object,
    Image,
    Schemas,
    Type,
    Entry,
    Needs,
    Slot,
    Instance,
    Wire,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Symbol {
    pub name: String,
    /// What is said beside the name (`read`, `= Greeter`).
    pub detail: String,
    pub kind: SymbolKind,
    /// All of it.
    pub whole: Span,
    /// Its name.
    pub name_at: Span,
    pub children: Vec<Symbol>,
}

/// A block that folds: from the line of `start` to the line of `end`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fold {
    pub start: usize,
    pub end: usize,
}

fn leaf(name: String, detail: String, kind: SymbolKind, whole: Span, name_at: Span) -> Symbol {
    Symbol {
        name,
        detail,
        kind,
        whole,
        name_at,
        children: Vec::new(),
    }
}

fn entries(items: &[EntryItem], text: &str) -> Vec<Symbol> {
    items
        .iter()
        .filter_map(|e| match e {
            EntryItem::Entry(e) => Some(leaf(
                text[e.path.span.range()].to_string(),
                e.verb.verb.as_str().to_string(),
                SymbolKind::Entry,
                e.span,
                e.path.span,
            )),
            EntryItem::Error(_) => None,
        })
        .collect()
}

/// A `needs` block (of an object or an image) and its entries.
fn needs(n: &oth_syntax::ast::Needs, text: &str) -> Symbol {
    Symbol {
        children: entries(&n.entries, text),
        ..leaf(
            text[n.mount.span.range()].to_string(),
            "needs".into(),
            SymbolKind::Needs,
            n.span,
            n.mount.span,
        )
    }
}

/// The outline of `file`: objects with their entries, images with their
/// slots and instances, and the types of each schemas block.
pub fn symbols(analysis: &Analysis, file: FileId) -> Vec<Symbol> {
    let Some(m) = analysis.module(file) else {
        return Vec::new();
    };
    let text = analysis.text(file);
    let mut blocks = m.schemas.iter();
    let mut out = Vec::new();
    for item in &m.ast.items {
        match item {
            Item::Object(o) => out.push(object(o, text)),
            Item::Image(i) => out.push(image(i, text)),
            Item::Schemas(s) => {
                let declared = blocks
                    .next()
                    .and_then(|p| p.parsed.as_ref())
                    .map(|p| p.block.declared())
                    .unwrap_or_default();
                out.push(schemas(s, declared));
            }
            Item::Import(_) | Item::Error(_) => {}
        }
    }
    out
}

/// An object, with its serves entries and need blocks.
fn object(o: &ast::Object, text: &str) -> Symbol {
    let mut children = Vec::new();
    for member in &o.members {
        match member {
            ObjectMember::Serves(s) => children.extend(entries(&s.entries, text)),
            ObjectMember::Needs(n) => children.push(needs(n, text)),
            ObjectMember::Error(_) => {}
        }
    }
    let what = if o.native.is_some() {
        "native object"
    } else {
        "object"
    };
    Symbol {
        children,
        ..leaf(
            o.name.name.clone(),
            what.into(),
            SymbolKind::Object,
            o.span,
            o.name.span,
        )
    }
}

/// An image, with its slots, instances (each with its wires) and needs.
fn image(i: &ast::Image, text: &str) -> Symbol {
    let mut children = Vec::new();
    for part in &i.parts {
        match part {
            ImagePart::Slot(s) => children.push(leaf(
                s.name.name.clone(),
                text[s.ty.span().range()].to_string(),
                SymbolKind::Slot,
                s.span,
                s.name.span,
            )),
            ImagePart::Instance(inst) => children.push(instance(inst, text)),
            ImagePart::Needs(n) => children.push(needs(n, text)),
            ImagePart::Export(_) | ImagePart::Startup(_) | ImagePart::Error(_) => {}
        }
    }
    Symbol {
        children,
        ..leaf(
            i.name.name.clone(),
            "image".into(),
            SymbolKind::Image,
            i.span,
            i.name.span,
        )
    }
}

/// An instance, with a child per mount and bind.
fn instance(inst: &ast::Instance, text: &str) -> Symbol {
    let wires = inst
        .wiring
        .iter()
        .filter_map(|w| match w {
            Wire::Mount(l) | Wire::Bind(l) => Some(leaf(
                text[l.to.span.range()].to_string(),
                text[l.from.span.range()].to_string(),
                SymbolKind::Wire,
                l.span,
                l.to.span,
            )),
            Wire::Error(_) => None,
        })
        .collect();
    Symbol {
        children: wires,
        ..leaf(
            inst.name.name.clone(),
            format!("= {}", inst.object.name),
            SymbolKind::Instance,
            inst.span,
            inst.name.span,
        )
    }
}

/// A schemas block, with the types its format read in it.
fn schemas(s: &ast::SchemasBlock, declared: Vec<crate::formats::DeclaredType<'_>>) -> Symbol {
    let children = declared
        .into_iter()
        .map(|t| {
            leaf(
                t.name.to_string(),
                format!("{:?}", t.kind).to_lowercase(),
                SymbolKind::Type,
                t.span,
                t.span,
            )
        })
        .collect();
    Symbol {
        children,
        ..leaf(
            format!("schemas {}", s.content_type.ct.text),
            String::new(),
            SymbolKind::Schemas,
            s.span,
            s.content_type.span,
        )
    }
}

/// The blocks of `file` that fold: every symbol spanning more than a line,
/// and each run of two or more import lines.
pub fn folds(analysis: &Analysis, file: FileId) -> Vec<Fold> {
    fn walk(s: &[Symbol], out: &mut Vec<Fold>) {
        for sym in s {
            out.push(Fold {
                start: sym.whole.start(),
                end: sym.whole.end(),
            });
            walk(&sym.children, out);
        }
    }
    let mut out = Vec::new();
    walk(&symbols(analysis, file), &mut out);
    if let Some(m) = analysis.module(file) {
        let imports: Vec<Span> = m.ast.imports().map(|i| i.span).collect();
        if let (Some(first), Some(last)) = (imports.first(), imports.last())
            && imports.len() > 1
        {
            out.push(Fold {
                start: first.start(),
                end: last.end(),
            });
        }
    }
    let text = analysis.text(file);
    let line = |at: usize| text[..at.min(text.len())].matches('\n').count();
    out.retain(|f| line(f.start) < line(f.end));
    out.sort_by_key(|f| (f.start, f.end));
    out
}
