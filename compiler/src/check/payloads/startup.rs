//! Startup payloads: a text, a typed text, a slot's value or a message
//! literal, checked against its type and encoded.

use oth_syntax::ast;

use super::PayloadChecker;
use crate::check::lower::ScopeNames;
use crate::formats::LiteralCx;
use crate::model::*;
use crate::name_errors::{NameError, Sought};
use crate::source::{FileId, FileSpan};

impl PayloadChecker<'_> {
    /// The type a startup payload has (`Some(None)`: no payload; `None`: a
    /// payload that did not check, already reported) and what it encodes to.
    pub(super) fn startup_payload(
        &mut self,
        img: ImageId,
        file: FileId,
        mi: usize,
        s: &ast::Startup,
    ) -> (super::Sent, Option<StartupPayload>) {
        let model = self.model();
        match &s.payload {
            None => (Some(None), None),
            Some(ast::Payload::Text(t)) => (
                Some(Some(text_plain())),
                Some(StartupPayload::Literal(Some(Encoded {
                    content_type: "text/plain".into(),
                    message: None,
                    bytes: t.value.clone().into_bytes(),
                }))),
            ),
            Some(ast::Payload::Typed(ct, t)) => {
                if !ct.ct.valid {
                    return (None, None);
                }
                if self.formats.find(&ct.ct).is_some() {
                    self.diags.report(NameError::BareContentType {
                        content_type: ct.ct.text.clone(),
                        at: FileSpan::new(file, ct.span),
                        format: None,
                    });
                    return (None, None);
                }
                let ty = PayloadType::Content(ContentType::from_syntax(&ct.ct));
                (
                    Some(Some(ty)),
                    Some(StartupPayload::Literal(Some(Encoded {
                        content_type: ct.ct.text.clone(),
                        message: None,
                        bytes: t.value.clone().into_bytes(),
                    }))),
                )
            }
            Some(ast::Payload::Slot(name)) => {
                let slots = &model.image(img).slots;
                match slots.iter().position(|x| x.name == name.name) {
                    Some(i) => (
                        Some(Some(slots[i].ty.clone())),
                        Some(StartupPayload::Slot(i)),
                    ),
                    None => {
                        self.diags.report(NameError::Unknown {
                            sought: Sought::Slot {
                                image: model.image(img).name.clone(),
                            },
                            name: name.name.clone(),
                            at: FileSpan::new(file, name.span),
                            candidates: slots.iter().map(|x| x.name.clone()).collect(),
                        });
                        (None, None)
                    }
                }
            }
            Some(ast::Payload::Message(v)) => self.startup_message(file, mi, v),
        }
    }

    /// A message literal sent by a startup request: its type and what it
    /// encodes to.
    fn startup_message(
        &mut self,
        file: FileId,
        mi: usize,
        v: &ast::Value,
    ) -> (super::Sent, Option<StartupPayload>) {
        let ast::ValueKind::Message(tname, _) = &v.kind else {
            return (None, None);
        };
        let names = ScopeNames {
            scope: &self.lowered.scopes[mi],
        };
        let at = FileSpan::new(file, tname.span);
        let id = match crate::formats::TypeNames::lookup(&names, &tname.name, at) {
            crate::formats::TypeLookup::Message(id) => id,
            _ => {
                // Let the literal checker say what is wrong with the name.
                self.encode(file, mi, None, v);
                return (None, Some(StartupPayload::Literal(None)));
            }
        };
        let enc = self.encode(file, mi, Some(id), v);
        (
            Some(Some(PayloadType::Message(id))),
            Some(StartupPayload::Literal(enc)),
        )
    }

    /// Checks and encodes a message literal of type `ty` (or reports its
    /// unknown type name, when `ty` is `None`).
    pub(super) fn encode(
        &mut self,
        file: FileId,
        mi: usize,
        ty: Option<TypeId>,
        v: &ast::Value,
    ) -> Option<Encoded> {
        let model = self.model();
        let names = ScopeNames {
            scope: &self.lowered.scopes[mi],
        };
        let Some(ty) = ty else {
            if let ast::ValueKind::Message(n, _) = &v.kind
                && let Err(e) =
                    crate::formats::message_type(&names, &n.name, FileSpan::new(file, n.span))
            {
                self.diags.report(e);
            }
            return None;
        };
        let def = model.ty(ty);
        let format = self.formats.by_name(&def.format)?;
        let mut cx = LiteralCx {
            model,
            file,
            names: &names,
            diags: self.diags,
        };
        format.encode_message(&mut cx, ty, v).map(|bytes| Encoded {
            content_type: def.format.to_string(),
            message: Some(def.name.clone()),
            bytes,
        })
    }
}

fn text_plain() -> PayloadType {
    PayloadType::Content(ContentType::parse("text/plain"))
}
