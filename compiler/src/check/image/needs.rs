//! Every need of every instance, resolved through its view to the serve
//! that will answer it, and held against that serve: E0502–E0508, and
//! W0501 for a mount or bind no need uses.

use super::{ImageChecker, describe, describe_all, quote_list};
use crate::check::matching::{covers, request_met};
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::*;
use crate::namespace::path::strip_prefix;
use crate::namespace::serve::{Found, lookup};
use crate::namespace::tree::Tree;
use crate::namespace::view::{ReadonlyBy, ViewMiss, view};
use crate::namespace::{NeedCheck, NeedOutcome};
use crate::source::FileSpan;

impl ImageChecker<'_> {
    pub(super) fn needs(&mut self, tree: &Tree, img: ImageId) {
        let model = self.model();
        let def = model.image(img);
        for (ii, inst) in def.instances.iter().enumerate() {
            let (blocks, block_spans): (&[NeedBlock], &[FileSpan]) = match inst.of {
                None => continue,
                Some(Shape::Object(o)) => (
                    &model.object(o).needs,
                    &self.spans().objects[o.index()].needs,
                ),
                Some(Shape::Image(j)) => {
                    if self.broken[j.index()] {
                        continue;
                    }
                    (&model.image(j).needs, &self.spans().images[j.index()].needs)
                }
            };
            let mut used = vec![false; inst.wiring.len()];
            for (b, block) in blocks.iter().enumerate() {
                if !block.mount.is_concrete() {
                    // A pattern need sends anywhere under its literal prefix.
                    let prefix = block.mount.literal_prefix();
                    for (wi, w) in inst.wiring.iter().enumerate() {
                        if strip_prefix(&w.link.at.segs, prefix).is_some() {
                            used[wi] = true;
                        }
                    }
                    continue;
                }
                let mounted_at_or_under = inst.wiring.iter().any(|w| {
                    strip_prefix(&block.mount.segs, &w.link.at.segs).is_some()
                        || strip_prefix(&w.link.at.segs, &block.mount.segs).is_some()
                });
                if !mounted_at_or_under {
                    self.nothing_mounted(tree, img, ii, block, block_spans[b]);
                    for &e in &block.entries {
                        self.need_checks.push(NeedCheck {
                            image: img,
                            instance: ii,
                            need: e,
                            outcome: NeedOutcome::NothingMounted,
                        });
                    }
                    continue;
                }
                for &e in &block.entries {
                    self.need_entry(tree, img, ii, block, e, &mut used);
                }
            }
            // A broken wire was reported; what it would have used is unknown.
            let all_ok = self.wires[img.index()][ii].iter().all(Result::is_ok);
            for (wi, w) in inst.wiring.iter().enumerate() {
                if all_ok && !used[wi] {
                    let sp = &self.spans().images[img.index()].instances[ii].wiring[wi];
                    let kind = match w.kind {
                        WireKind::Mount => "mount",
                        WireKind::Bind => "bind",
                    };
                    self.diags.push(
                        Diagnostic::new(
                            Code::W0501,
                            format!(
                                "no need of `{}` uses the {kind} at `{}`",
                                inst.name, w.link.at
                            ),
                            Label::new(
                                sp.whole.file,
                                sp.whole.span,
                                "nothing the instance needs goes through here",
                            ),
                        )
                        .with_help(format!(
                            "remove the {kind}, or mount it where the object's `needs` say"
                        )),
                    );
                }
            }
        }
    }

    fn nothing_mounted(
        &mut self,
        tree: &Tree,
        img: ImageId,
        ii: usize,
        block: &NeedBlock,
        need_at: FileSpan,
    ) {
        let inst = &self.model().image(img).instances[ii];
        let at = self.spans().images[img.index()].instances[ii].name;
        let names = tree.names(img);
        let example = names
            .iter()
            .find(|n| **n != inst.name)
            .cloned()
            .unwrap_or_else(|| "other".into());
        self.diags.push(
            Diagnostic::new(
                Code::E0502,
                format!(
                    "`{}` needs `{}`, but nothing is mounted there",
                    inst.name, block.mount
                ),
                Label::new(
                    at.file,
                    at.span,
                    format!("nothing is mounted at `{}` for this instance", block.mount),
                ),
            )
            .with_label(Label::new(
                need_at.file,
                need_at.span,
                "the need is declared here",
            ))
            .with_help(format!(
                "mount something that serves it: `instance {} = ... {{ mount {} /{example} }}`",
                inst.name, block.mount
            )),
        );
    }

    fn need_entry(
        &mut self,
        tree: &Tree,
        img: ImageId,
        ii: usize,
        block: &NeedBlock,
        e: EntryId,
        used: &mut [bool],
    ) {
        let model = self.model();
        let need = model.entry(e);
        let full = block.mount.join(&need.path.segs);
        let inst_def = &model.image(img).instances[ii];
        let ats = inst_def.wiring.iter().map(|w| w.link.at.segs.as_slice());
        let record = |this: &mut Self, outcome: NeedOutcome| {
            this.need_checks.push(NeedCheck {
                image: img,
                instance: ii,
                need: e,
                outcome,
            })
        };
        let hit = match view(ats, &self.wires[img.index()][ii], &full.segs) {
            Ok(hit) => hit,
            Err(ViewMiss::Broken) => return record(self, NeedOutcome::Unresolved),
            Err(ViewMiss::Nothing) => {
                record(self, NeedOutcome::NothingMounted);
                let inst = &model.image(img).instances[ii];
                let at = self.spans().images[img.index()].instances[ii].name;
                let ns = self.spans().entries[e.index()].whole;
                self.diags.push(
                    Diagnostic::new(
                        Code::E0503,
                        format!(
                            "`{}` needs `{} {full}`, but nothing is mounted at `{full}`",
                            inst.name,
                            need.verb.as_str()
                        ),
                        Label::new(at.file, at.span, "this instance's view has nothing there"),
                    )
                    .with_label(Label::new(ns.file, ns.span, "the need"))
                    .with_help(format!(
                        "mount something that serves `{} /` at `{full}`",
                        need.verb.as_str()
                    )),
                );
                return;
            }
        };
        for &w in &hit.wires {
            used[w] = true;
        }
        let wire_at = self.spans().images[img.index()].instances[ii].wiring[hit.wires[0]].whole;
        let need_at = self.spans().entries[e.index()].whole;
        let who = &model.image(img).instances[ii].name;
        let what = format!("{} {full}", need.verb.as_str());
        let through = PathPattern {
            segs: hit.path.clone(),
        };
        let (owner, _) = self.owner(hit.target);
        let mut chain_labels: Vec<Label> = hit.wires[1..]
            .iter()
            .map(|w| {
                let s = self.spans().images[img.index()].instances[ii].wiring[*w].whole;
                Label::new(s.file, s.span, "and through this")
            })
            .collect();
        chain_labels.insert(
            0,
            Label::new(
                need_at.file,
                need_at.span,
                format!("`{who}` needs `{what}`"),
            ),
        );
        let base = |code: Code, message: String, primary: String| {
            let mut d = Diagnostic::new(
                code,
                message,
                Label::new(wire_at.file, wire_at.span, primary),
            );
            for l in &chain_labels {
                d = d.with_label(l.clone());
            }
            d
        };
        let found = lookup(tree, &self.wires, hit.target, &hit.path, need.verb)
            .unwrap_or(Found::Unresolved);
        match found {
            Found::Unresolved => record(self, NeedOutcome::Unresolved),
            Found::Nothing(holder, ro) => {
                let readonly = !hit.readonly.is_empty() || !ro.is_empty();
                record(self, NeedOutcome::NothingServed { readonly });
                let owner_at = self.holder_at(holder);
                let d = base(
                    Code::E0503,
                    format!("`{who}` needs `{what}`, but {owner} serves nothing at `{through}`"),
                    format!("this mounts {owner} here"),
                )
                .with_label(Label::new(
                    owner_at.file,
                    owner_at.span,
                    format!("{owner} serves no `{through}`"),
                ))
                .with_help(format!(
                    "mount an object that serves `{} {through}`, or add that entry to its `serves`",
                    need.verb.as_str()
                ));
                self.diags.push(d);
            }
            Found::OtherVerbs(verbs, holder, ro) => {
                let readonly = !hit.readonly.is_empty() || !ro.is_empty();
                record(self, NeedOutcome::OtherVerbs { readonly });
                let owner_at = self.holder_at(holder);
                let vs: Vec<String> = verbs.iter().map(|v| v.as_str().to_string()).collect();
                let d = base(
                    Code::E0503,
                    format!("`{who}` needs `{what}`, but {owner} serves `{through}` only with {}", quote_list(&vs)),
                    format!("this mounts {owner} here"),
                )
                .with_label(Label::new(owner_at.file, owner_at.span, format!("no `{}` entry covers `{through}`", need.verb.as_str())))
                .with_help(format!("add `{through} {} ...` to the `serves` of {owner}, or mount something that serves it", need.verb.as_str()));
                self.diags.push(d);
            }
            Found::Entry { entry, readonly } => {
                let ways: Vec<ReadonlyBy> = hit.readonly.into_iter().chain(readonly).collect();
                record(
                    self,
                    NeedOutcome::Reached {
                        serve: entry,
                        readonly: !ways.is_empty(),
                    },
                );
                let readonly: Vec<FileSpan> = ways
                    .into_iter()
                    .filter_map(|r| self.readonly_at(r))
                    .collect();
                self.match_entry(&base, need, entry, &readonly, &what, who);
            }
        }
    }

    /// Holds a request (a need, or a startup request when `operator`)
    /// against the serve it reaches: operator, read-only, payload types.
    fn match_entry(
        &mut self,
        base: &dyn Fn(Code, String, String) -> Diagnostic,
        need: &EntryDef,
        serve: EntryId,
        readonly: &[FileSpan],
        what: &str,
        who: &str,
    ) {
        let model = self.model();
        let s = model.entry(serve);
        let ss = &self.spans().entries[serve.index()];
        let serve_label = |msg: String| Label::new(ss.whole.file, ss.whole.span, msg);
        if s.operator {
            let op = ss.operator.unwrap_or(ss.whole);
            self.diags.push(
                base(
                    Code::E0508,
                    format!("`{who}` needs `{what}`, which only the operator may use"),
                    "this leads to an operator-only entry".into(),
                )
                .with_label(Label::new(op.file, op.span, "`operator`: only the image's startup requests may use this"))
                .with_help("send it from the image as a startup request instead, or remove `operator` from the serve if any object may use it"),
            );
        }
        if !need.verb.is_safe() && !readonly.is_empty() {
            let mut d = base(
                Code::E0507,
                format!("`{who}` needs `{what}`, but the way there is read-only"),
                format!("`{}` is not a safe verb", need.verb.as_str()),
            );
            for r in readonly {
                d = d.with_label(Label::new(
                    r.file,
                    r.span,
                    "read-only: only read, watch, list and stat pass",
                ));
            }
            self.diags.push(d.with_help("remove `readonly` from the mount, bind or export, or make the need use only safe verbs"));
        }
        if !request_met(model, &s.request, &need.request) {
            self.diags.push(
                base(
                    Code::E0504,
                    format!(
                        "`{who}` sends {} with `{what}`, but the serve takes {}",
                        describe_all(model, &need.request),
                        describe_all(model, &s.request)
                    ),
                    "this mount leads to a serve that does not take it".into(),
                )
                .with_label(serve_label(format!("takes {}", describe_all(model, &s.request))))
                .with_help("make the need's request type one the serve takes, or widen what the serve takes (e.g. `text/*`, `*/*`)"),
            );
        }
        if let Some(want) = &need.answer {
            let ok = match &s.answer {
                Some(got) => covers(model, want, got),
                None => false,
            };
            if !ok {
                let got = s
                    .answer
                    .as_ref()
                    .map(|g| format!("`{}`", describe(model, g)))
                    .unwrap_or_else(|| "no payload".into());
                self.diags.push(
                    base(
                        Code::E0505,
                        format!("`{who}` expects `{}` from `{what}`, but the serve answers {got}", describe(model, want)),
                        "this mount leads to a serve that answers something else".into(),
                    )
                    .with_label(serve_label(format!("answers {got}")))
                    .with_help(format!(
                        "make the need accept what the serve answers (`-> {}`), or the serve answer `{}`",
                        s.answer.as_ref().map(|g| describe(model, g)).unwrap_or_else(|| "*/*".into()),
                        describe(model, want)
                    )),
                );
            }
        }
        if !need.stream && s.stream {
            self.diags.push(
                base(
                    Code::E0506,
                    format!(
                        "`{who}` expects one answer to `{what}`, but the serve answers a stream"
                    ),
                    "this mount leads to a streaming serve".into(),
                )
                .with_label(serve_label("answers a stream".into()))
                .with_help("mark the need's answer as a stream: `-> TYPE*`"),
            );
        }
    }
}
