//! Startup requests: each is held against the serve it reaches as the
//! operator's (E0512, E0507, E0513). Their payloads were checked and
//! encoded when the model was finished (`check::payloads`).

use super::{ImageChecker, describe, describe_all, quote_list};
use crate::check::matching::request_met;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::*;
use crate::namespace::serve::{Found, lookup};
use crate::namespace::tree::Tree;

impl<'a> ImageChecker<'a> {
    pub(super) fn startup(&mut self, tree: &Tree, img: ImageId) {
        let model = self.model();
        for (si, s) in model.image(img).startup.iter().enumerate() {
            let sp = self.spans().images[img.index()].startup[si].clone();
            let payload_ty = self.lowered.startup_types[img.index()][si].clone();
            let path = &s.path;
            let (target, rest) = match tree.resolve(img, &path.segs) {
                Ok(t) => t,
                Err(miss) => {
                    self.unknown_tree_name(tree, img, sp.path, miss, "startup request");
                    continue;
                }
            };
            let verb = s.verb;
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
}
