//! Lowering entries: serves and needs entries, need blocks, and the payload
//! types they name (content types, message types, `Stat`).

use oth_syntax::ast::{self, TypeRef};

use crate::check::scope::Sym;
use crate::model::*;
use crate::name_errors::{NameError, Sought};
use crate::source::FileId;

use super::{Lowerer, doc, fs};

impl Lowerer<'_> {
    pub(super) fn need(&mut self, mi: usize, file: FileId, n: &ast::Needs) -> NeedBlock {
        let entries = n
            .entries
            .iter()
            .filter_map(|e| match e {
                ast::EntryItem::Entry(e) => Some(self.entry(mi, file, e)),
                ast::EntryItem::Error(_) => None,
            })
            .collect();
        NeedBlock {
            mount: PathPattern::from_syntax(&n.mount.path.segments),
            doc: doc(&n.doc),
            entries,
        }
    }

    pub(super) fn entry(&mut self, mi: usize, file: FileId, e: &ast::Entry) -> EntryId {
        let request = e
            .request
            .iter()
            .map(|t| self.payload_type(mi, file, t))
            .collect();
        let answer = e
            .answer
            .as_ref()
            .map(|a| self.payload_type(mi, file, &a.ty));
        let stream =
            e.verb.verb.always_streams() || e.answer.as_ref().is_some_and(|a| a.stream.is_some());
        let id = EntryId(self.out.model.entries.len() as u32);
        self.out.model.entries.push(EntryDef {
            path: PathPattern::from_syntax(&e.path.path.segments),
            operator: e.operator.is_some(),
            verb: e.verb.verb,
            request,
            answer,
            stream,
            star: e.answer.as_ref().is_some_and(|a| a.stream.is_some()),
            doc: doc(&e.doc),
        });
        self.out.spans.entries.push(EntrySpans {
            whole: fs(file, e.span),
            path: fs(file, e.path.span),
            verb: fs(file, e.verb.span),
            operator: e.operator.map(|s| fs(file, s)),
            request: e.request.iter().map(|t| fs(file, t.span())).collect(),
            answer: e.answer.as_ref().map(|a| fs(file, a.ty.span())),
            stream: e
                .answer
                .as_ref()
                .and_then(|a| a.stream)
                .map(|s| fs(file, s)),
        });
        id
    }

    /// A type where a payload goes: a content type, a message type, or `Stat`.
    pub fn payload_type(&mut self, mi: usize, file: FileId, t: &TypeRef) -> PayloadType {
        match t {
            TypeRef::ContentType(c) => {
                if !c.ct.valid {
                    return PayloadType::Unknown;
                }
                if let Some(f) = self.formats.find(&c.ct) {
                    let examples = self.message_names(mi);
                    let example = examples.first().map(String::as_str).unwrap_or("Greeting");
                    self.diags.report(NameError::BareContentType {
                        content_type: c.ct.text.clone(),
                        at: fs(file, c.span),
                        format: Some((f.content_type(), example.to_string())),
                    });
                    return PayloadType::Unknown;
                }
                let ct = ContentType::from_syntax(&c.ct);
                self.near_common(&ct, fs(file, c.span));
                PayloadType::Content(ct)
            }
            TypeRef::Name(n) => match self.out.scopes[mi].get(&n.name, fs(file, n.span)) {
                Some(Sym::Type(id, false)) => PayloadType::Message(id),
                Some(sym) => {
                    self.diags.report(NameError::WrongKind {
                        sought: Sought::PayloadType,
                        name: n.name.clone(),
                        kind: sym.kind(),
                        at: fs(file, n.span),
                    });
                    PayloadType::Unknown
                }
                None if n.name == "Stat" => {
                    PayloadType::Content(ContentType::parse(STAT_CONTENT_TYPE))
                }
                None => {
                    let mut candidates = self.message_names(mi);
                    candidates.push("Stat".into());
                    self.diags.report(NameError::Unknown {
                        sought: Sought::PayloadType,
                        name: n.name.clone(),
                        at: fs(file, n.span),
                        candidates: candidates.into(),
                    });
                    PayloadType::Unknown
                }
            },
        }
    }

    /// W0201 for a content type that is none of the common ones but close
    /// to one (`text/plian`): most likely a typo, which would otherwise
    /// only show as a need no serve meets.
    fn near_common(&mut self, ct: &ContentType, at: crate::source::FileSpan) {
        if let Some(near) = ct.near_common() {
            self.diags.report(NameError::NearContentType {
                written: ct.text.clone(),
                near,
                at,
            });
        }
    }

    pub(super) fn message_names(&self, mi: usize) -> Vec<String> {
        self.out.scopes[mi]
            .names_of(|s| matches!(s, Sym::Type(_, false)))
            .into_iter()
            .map(str::to_string)
            .collect()
    }
}
