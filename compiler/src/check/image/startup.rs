//! Startup requests: each is held against the serve it reaches as the
//! operator's (E0512, E0507, E0513), and its payload checked and encoded.

use oth_syntax::ast::{self, ImagePart};

use super::{ImageChecker, describe, describe_all, quote_list};
use crate::check::lower::ScopeNames;
use crate::check::matching::request_met;
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::formats::LiteralCx;
use crate::model::*;
use crate::namespace::serve::{Found, lookup};
use crate::namespace::tree::Tree;
use crate::source::FileId;

impl<'a> ImageChecker<'a> {
    pub(super) fn startup(&mut self, tree: &Tree, img: ImageId) {
        let (ast_img, file, mi) = self.image_ast(img);
        let model = self.model();
        let startups: Vec<&ast::Startup> = ast_img
            .parts
            .iter()
            .filter_map(|p| match p {
                ImagePart::Startup(s) => Some(s),
                _ => None,
            })
            .collect();
        for (si, s) in startups.into_iter().enumerate() {
            let sp = self.spans().images[img.index()].startup[si].clone();
            let (payload_ty, payload) = self.startup_payload(img, file, mi, s);
            if let Some(p) = payload {
                self.startup_payloads.push((img, si, p));
            }
            let path = PathPattern::from_syntax(&s.path.path.segments);
            let (target, rest) = match tree.resolve(img, &path.segs) {
                Ok(t) => t,
                Err(miss) => {
                    self.unknown_tree_name(tree, img, sp.path, miss, "startup request");
                    continue;
                }
            };
            let verb = s.verb.verb;
            let (owner, _) = self.owner(target);
            let through = PathPattern { segs: rest.clone() };
            let what = format!("{} {path}", verb.as_str());
            let found = lookup(tree, &self.wires, target, &rest, verb).unwrap_or(Found::Unresolved);
            match found {
                Found::Unresolved => {}
                Found::Nothing(holder, _) => self.diags.push(
                    Diagnostic::new(
                        Code::E0512,
                        format!("startup request `{what}`: {owner} serves nothing at `{through}`"),
                        Label::new(sp.path.file, sp.path.span, "nothing serves this"),
                    )
                    .with_label({
                        let owner_at = self.holder_at(holder);
                        Label::new(
                            owner_at.file,
                            owner_at.span,
                            format!("{owner} is declared here"),
                        )
                    })
                    .with_help("send it to a path the instance serves"),
                ),
                Found::OtherVerbs(verbs, holder, _) => {
                    let owner_at = self.holder_at(holder);
                    let vs: Vec<String> = verbs.iter().map(|v| v.as_str().to_string()).collect();
                    self.diags.push(
                        Diagnostic::new(
                            Code::E0512,
                            format!(
                                "startup request `{what}`: {owner} serves `{through}` only with {}",
                                quote_list(&vs)
                            ),
                            Label::new(
                                sp.verb.file,
                                sp.verb.span,
                                format!("no `{}` here", verb.as_str()),
                            ),
                        )
                        .with_label(Label::new(
                            owner_at.file,
                            owner_at.span,
                            format!("{owner} is declared here"),
                        ))
                        .with_help(format!("use one of {}", quote_list(&vs))),
                    )
                }
                Found::Entry { entry, readonly } => {
                    let serve = model.entry(entry);
                    let ss = self.spans().entries[entry.index()].whole;
                    if !verb.is_safe() && !readonly.is_empty() {
                        let mut d = Diagnostic::new(
                            Code::E0507,
                            format!("startup request `{what}` goes through a read-only export"),
                            Label::new(
                                sp.whole.file,
                                sp.whole.span,
                                format!("`{}` is not a safe verb", verb.as_str()),
                            ),
                        );
                        for r in readonly.iter().filter_map(|r| self.readonly_at(*r)) {
                            d = d.with_label(Label::new(r.file, r.span, "read-only"));
                        }
                        self.diags.push(d.with_help("remove `readonly` from the export, or send the request to the instance directly"));
                    }
                    if let Some(pt) = payload_ty {
                        let sent: Vec<PayloadType> = pt.into_iter().collect();
                        if !request_met(model, &serve.request, &sent) {
                            let at = sp.payload.unwrap_or(sp.whole);
                            self.diags.push(
                                Diagnostic::new(
                                    Code::E0513,
                                    format!(
                                        "startup request `{what}` sends {}, but the serve takes {}",
                                        describe_all(model, &sent),
                                        describe_all(model, &serve.request)
                                    ),
                                    Label::new(
                                        at.file,
                                        at.span,
                                        format!("this is {}", describe_all(model, &sent)),
                                    ),
                                )
                                .with_label(Label::new(
                                    ss.file,
                                    ss.span,
                                    format!("takes {}", describe_all(model, &serve.request)),
                                ))
                                .with_help(
                                    match serve.request.first() {
                                        Some(PayloadType::Message(id)) => format!(
                                            "send a `{0}`: `{what} {0} {{ ... }}`",
                                            model.ty(*id).name
                                        ),
                                        Some(t) => format!(
                                            "send a payload of type `{}`",
                                            describe(model, t)
                                        ),
                                        None => "send it without a payload".into(),
                                    },
                                ),
                            );
                        }
                    }
                }
            }
        }
    }

    /// The type a startup payload has (`Some(None)`: no payload; `None`: a
    /// payload that did not check, already reported) and what it encodes to.
    #[allow(clippy::type_complexity)]
    fn startup_payload(
        &mut self,
        img: ImageId,
        file: FileId,
        mi: usize,
        s: &ast::Startup,
    ) -> (Option<Option<PayloadType>>, Option<StartupPayload>) {
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
                    self.diags.push(
                        Diagnostic::new(
                            Code::E0208,
                            format!(
                                "`{}` has a format: write a message literal instead of a string",
                                ct.ct.text
                            ),
                            Label::new(file, ct.span, "which message type?"),
                        )
                        .with_help("write the message: `write /path Greeting { ... }`"),
                    );
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
                        let names: Vec<&str> = slots.iter().map(|x| x.name.as_str()).collect();
                        let mut d = Diagnostic::new(
                            Code::E0203,
                            format!(
                                "image `{}` has no slot `{}`",
                                model.image(img).name,
                                name.name
                            ),
                            Label::new(file, name.span, "not a slot of this image"),
                        );
                        d = match closest(&name.name, &names) {
                            Some(near) => d.with_help(format!("did you mean `{near}`?")),
                            None => {
                                d.with_help(format!("declare it: `require {} : TYPE`", name.name))
                            }
                        };
                        self.diags.push(d);
                        (None, None)
                    }
                }
            }
            Some(ast::Payload::Message(v)) => {
                let ast::ValueKind::Message(tname, _) = &v.kind else {
                    return (None, None);
                };
                let names = ScopeNames {
                    scope: &self.lowered.scopes[mi],
                };
                let id = match crate::formats::TypeNames::lookup(&names, &tname.name) {
                    crate::formats::TypeLookup::Message(id) => Some(id),
                    _ => None,
                };
                let Some(id) = id else {
                    // Let the literal checker say what is wrong with the name.
                    self.encode(file, mi, None, v);
                    return (None, Some(StartupPayload::Literal(None)));
                };
                let enc = self.encode(file, mi, Some(id), v);
                (
                    Some(Some(PayloadType::Message(id))),
                    Some(StartupPayload::Literal(enc)),
                )
            }
        }
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
            if let ast::ValueKind::Message(n, _) = &v.kind {
                let candidates = crate::formats::TypeNames::candidates(&names);
                let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
                let kind = crate::formats::TypeNames::lookup(&names, &n.name);
                let d = match kind {
                    crate::formats::TypeLookup::Missing => {
                        let d = Diagnostic::new(
                            Code::E0203,
                            format!("unknown message type `{}`", n.name),
                            Label::new(file, n.span, "not in scope in this file"),
                        );
                        match closest(&n.name, &refs) {
                            Some(near) => d.with_help(format!("did you mean `{near}`?")),
                            None => d.with_help(format!(
                                "import it: `import {{ {} }} from \"file.oth\"`",
                                n.name
                            )),
                        }
                    }
                    other => Diagnostic::new(
                        Code::E0206,
                        format!(
                            "`{}` is {}, not a message type",
                            n.name,
                            match other {
                                crate::formats::TypeLookup::Enum(_) => "an enum",
                                crate::formats::TypeLookup::NotAType(k) => k.describe(),
                                _ => "something else",
                            }
                        ),
                        Label::new(file, n.span, "a message type goes before the braces"),
                    ),
                };
                self.diags.push(d);
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
            content_type: def.format.clone(),
            message: Some(def.name.clone()),
            bytes,
        })
    }
}

fn text_plain() -> PayloadType {
    PayloadType::Content(ContentType::known("text/plain"))
}
