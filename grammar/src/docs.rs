//! Doc comments attach to the declaration that follows them.
//!
//! The grammar never sees `##` lines (they are trivia), so attachment is done
//! here by position: a doc block belongs to the declaration whose first token
//! is the first token after the block. Docs that precede no attachable
//! declaration are W0003.

use std::collections::BTreeMap;

use crate::ast::{self, Doc};
use crate::error::SyntaxError;
use crate::lexer::{Trivia, TriviaKind};
use crate::span::Span;

pub struct Docs {
    /// Keyed by the start of the token the doc block precedes.
    by_next_token: BTreeMap<usize, Doc>,
    /// Doc blocks that no token follows.
    trailing: Vec<Span>,
}

impl Docs {
    pub fn new(src: &str, offset: usize, trivia: &[Trivia], token_starts: &[usize]) -> Docs {
        let mut blocks: Vec<Doc> = Vec::new();
        for t in trivia.iter().filter(|t| t.kind == TriviaKind::Doc) {
            // Consecutive `##` lines (nothing but one line break between) form one doc.
            let joins = blocks.last().is_some_and(|b| {
                let gap = &src[b.span.end() - offset..t.span.start() - offset];
                gap.trim().is_empty() && gap.matches('\n').count() <= 1
            });
            match blocks.last_mut() {
                Some(b) if joins => {
                    b.text.push('\n');
                    b.text.push_str(&t.text);
                    b.span = b.span.to(t.span);
                }
                _ => blocks.push(Doc {
                    text: t.text.clone(),
                    span: t.span,
                }),
            }
        }
        let mut by_next_token = BTreeMap::new();
        let mut trailing = Vec::new();
        for b in blocks {
            let i = token_starts.partition_point(|&s| s < b.span.end());
            match token_starts.get(i) {
                Some(&next) => {
                    // Two blocks before one token: the earlier one is attached to nothing.
                    if let Some(prev) = by_next_token.insert(next, b) {
                        trailing.push(prev.span);
                    }
                }
                None => trailing.push(b.span),
            }
        }
        Docs {
            by_next_token,
            trailing,
        }
    }

    fn take(&mut self, at: Span) -> Option<Doc> {
        self.by_next_token.remove(&at.start())
    }

    /// W0003 for every doc left over.
    pub fn unattached(self) -> Vec<SyntaxError> {
        let mut spans: Vec<Span> = self.trailing;
        spans.extend(self.by_next_token.into_values().map(|d| d.span));
        spans
            .into_iter()
            .map(|span| SyntaxError::DanglingDoc { span })
            .collect()
    }
}

pub fn attach_file(file: &mut ast::File, docs: &mut Docs) {
    for item in &mut file.items {
        match item {
            ast::Item::Schemas(s) => s.doc = docs.take(s.span),
            ast::Item::Object(o) => {
                o.doc = docs.take(o.span);
                for m in &mut o.members {
                    match m {
                        ast::ObjectMember::Serves(s) => attach_entries(&mut s.entries, docs),
                        ast::ObjectMember::Needs(n) => attach_needs(n, docs),
                        ast::ObjectMember::Error(_) => {}
                    }
                }
            }
            ast::Item::Image(i) => {
                i.doc = docs.take(i.span);
                for p in &mut i.parts {
                    match p {
                        ast::ImagePart::Slot(s) => s.doc = docs.take(s.span),
                        ast::ImagePart::Instance(x) => x.doc = docs.take(x.span),
                        ast::ImagePart::Needs(n) => attach_needs(n, docs),
                        _ => {}
                    }
                }
            }
            ast::Item::Import(_) | ast::Item::Error(_) => {}
        }
    }
}

fn attach_needs(n: &mut ast::Needs, docs: &mut Docs) {
    n.doc = docs.take(n.span);
    attach_entries(&mut n.entries, docs);
}

fn attach_entries(entries: &mut [ast::EntryItem], docs: &mut Docs) {
    for e in entries {
        if let ast::EntryItem::Entry(e) = e {
            e.doc = docs.take(e.span);
        }
    }
}

pub fn attach_bson(block: &mut ast::bson::Block, docs: &mut Docs) {
    use ast::bson::{Decl, FieldItem};
    for d in &mut block.decls {
        match d {
            Decl::Message(m) => {
                m.doc = docs.take(m.span);
                for f in &mut m.fields {
                    if let FieldItem::Field(f) = f {
                        f.doc = docs.take(f.span).map(Box::new);
                    }
                }
            }
            Decl::Enum(e) => {
                e.doc = docs.take(e.span);
                for v in &mut e.values {
                    v.doc = docs.take(v.span);
                }
            }
            Decl::Error(_) => {}
        }
    }
}
