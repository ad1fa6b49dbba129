//! Startup requests: each is held against the serve it reaches as the
//! operator's (E0512, E0507, E0513). Their payloads were checked and
//! encoded when the model was finished (`check::payloads`).

use super::ImageChecker;
use super::startup_errors::{Expected, Request, StartupError};
use crate::check::matching::describe;
use crate::check::matching::request_met;
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
            let request = Request {
                verb,
                path: path.to_string(),
                whole: sp.whole,
            };
            let owner = self.owner_data(target);
            let there = PathPattern { segs: rest.clone() }.to_string();
            let found = lookup(tree, &self.wires, target, &rest, verb).unwrap_or(Found::Unresolved);
            let error = match found {
                Found::Unresolved => None,
                Found::Nothing(holder, _) => Some(StartupError::NotServed {
                    request,
                    path_at: sp.path,
                    owner,
                    owner_at: self.holder_at(holder),
                    there,
                }),
                Found::OtherVerbs(verbs, holder, _) => Some(StartupError::OtherVerbs {
                    request,
                    verb_at: sp.verb,
                    owner,
                    owner_at: self.holder_at(holder),
                    there,
                    verbs,
                }),
                Found::Entry { entry, readonly } => {
                    self.startup_entries[img][si] = Some(entry);
                    if !verb.is_safe() && !readonly.is_empty() {
                        let readonly = readonly
                            .iter()
                            .filter_map(|r| self.readonly_at(*r))
                            .collect();
                        let e = StartupError::ReadOnly {
                            request: request.clone(),
                            readonly,
                        };
                        self.report(e);
                    }
                    let at = sp.payload.unwrap_or(sp.whole);
                    payload_ty.and_then(|pt| self.payload_unfit(request, at, pt, entry))
                }
            };
            if let Some(e) = error {
                self.report(e);
            }
        }
    }

    /// Why startup request `request`'s payload (of type `sent`, written at
    /// `at`) is not what serve `entry` takes, if it is not.
    fn payload_unfit(
        &self,
        request: Request,
        at: crate::source::FileSpan,
        sent: Option<PayloadType>,
        entry: EntryId,
    ) -> Option<StartupError> {
        let model = self.model();
        let serve = model.entry(entry);
        let sent: Vec<PayloadType> = sent.into_iter().collect();
        if request_met(model, &serve.request, &sent) {
            return None;
        }
        let names = |ts: &[PayloadType]| ts.iter().map(|t| describe(model, t)).collect();
        Some(StartupError::Payload {
            request,
            at,
            sends: names(&sent),
            takes: names(&serve.request),
            serve_at: self.spans().entries[entry.index()].whole,
            expected: match serve.request.first() {
                Some(PayloadType::Message(id)) => Expected::Message(model.ty(*id).name.clone()),
                Some(t) => Expected::Content(describe(model, t)),
                None => Expected::Nothing,
            },
        })
    }
}
