//! Every need of every instance, resolved through its view to the serve
//! that will answer it, and held against that serve: E0502–E0508, and
//! W0501 for a mount or bind no need uses.

use super::ImageChecker;
use super::need_errors::{AddEntry, NeedError, Stray, Way};
use crate::check::matching::describe;
use crate::check::matching::{covers, request_met};
use crate::model::*;
use crate::namespace::path::{nested, strip_prefix};
use crate::namespace::serve::Holder;
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
                let mounted_at_or_under = inst
                    .wiring
                    .iter()
                    .any(|w| nested(&block.mount.segs, &w.link.at.segs));
                if !mounted_at_or_under {
                    // A wire no need goes through, at a path near this one:
                    // a typo, reported with this error rather than apart.
                    if let Some(wi) = self.nothing_mounted(tree, img, ii, blocks, b, block_spans[b])
                    {
                        used[wi] = true;
                    }
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
            let all_ok = self.wires[img][ii].iter().all(Result::is_ok);
            for (wi, w) in inst.wiring.iter().enumerate() {
                if all_ok && !used[wi] {
                    let sp = &self.spans().images[img.index()].instances[ii].wiring[wi];
                    self.report(NeedError::UnusedWire {
                        instance: inst.name.clone(),
                        kind: w.kind,
                        at: w.link.at.to_string(),
                        whole: sp.whole,
                    });
                }
            }
        }
    }

    /// E0502 for need block `b`; returns the wire it names as the likely
    /// typo, if one is.
    fn nothing_mounted(
        &mut self,
        tree: &Tree,
        img: ImageId,
        ii: usize,
        blocks: &[NeedBlock],
        b: usize,
        need_at: FileSpan,
    ) -> Option<usize> {
        let block = &blocks[b];
        let inst = &self.model().image(img).instances[ii];
        let at = self.spans().images[img.index()].instances[ii].name;
        let names = tree.names(img);
        // The instance named like the need's last segment, if there is one.
        let last = block.mount.segs.last().and_then(|s| match s {
            Seg::Literal(l) => Some(l.as_str()),
            _ => None,
        });
        let example = names
            .iter()
            .find(|n| Some(n.as_str()) == last && **n != inst.name)
            .or_else(|| names.iter().find(|n| **n != inst.name))
            .cloned()
            .unwrap_or_else(|| "other".into());
        // Wires at paths no need block is at or under, and the nearest.
        let stray: Vec<(usize, String)> = inst
            .wiring
            .iter()
            .enumerate()
            .filter(|(_, w)| {
                !blocks
                    .iter()
                    .any(|n| nested(&n.mount.segs, &w.link.at.segs))
            })
            .map(|(wi, w)| (wi, w.link.at.to_string()))
            .collect();
        let texts: Vec<&str> = stray.iter().map(|(_, t)| t.as_str()).collect();
        let mount = block.mount.to_string();
        let near = crate::diagnostics::suggest::closest(&mount, &texts)
            .and_then(|t| stray.iter().find(|(_, s)| s == t))
            .map(|(wi, s)| {
                let w = &inst.wiring[*wi];
                let sp = &self.spans().images[img.index()].instances[ii].wiring[*wi];
                (
                    *wi,
                    Stray {
                        at: s.clone(),
                        from: w.link.from.to_string(),
                        wire: sp.whole,
                    },
                )
            });
        self.report(NeedError::NothingMounted {
            instance: inst.name.clone(),
            mount,
            at,
            need_at,
            example,
            near: near.as_ref().map(|(_, s)| s.clone()),
        });
        near.map(|(wi, _)| wi)
    }

    /// The path `holder` serves that is nearest `there`, when `holder` is
    /// an object: what a need for `there` likely meant.
    fn served_near(&self, holder: Holder, there: &PathPattern) -> Option<String> {
        let Holder::Object(o) = holder else {
            return None;
        };
        let model = self.model();
        let served: Vec<String> = (model.object(o).serves.iter())
            .map(|e| model.entry(*e).path.to_string())
            .collect();
        let refs: Vec<&str> = served.iter().map(String::as_str).collect();
        crate::diagnostics::suggest::closest(&there.to_string(), &refs).map(str::to_string)
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
        let record = |this: &mut Self, outcome: NeedOutcome| {
            this.need_checks.push(NeedCheck {
                image: img,
                instance: ii,
                need: e,
                outcome,
            })
        };
        let hit = match view(tree, &self.wires, img, ii, &full.segs) {
            Ok(hit) => hit,
            Err(ViewMiss::Broken) => return record(self, NeedOutcome::Unresolved),
            Err(ViewMiss::Nothing) => {
                record(self, NeedOutcome::NothingMounted);
                return self.nothing_at_path((img, ii), e, &full);
            }
        };
        for &w in &hit.wires {
            used[w] = true;
        }
        let way = self.way((img, ii), e, &full, &hit.wires);
        let there = PathPattern {
            segs: hit.path.clone(),
        };
        let owner = self.owner_data(hit.target);
        let found = lookup(tree, &self.wires, hit.target, &hit.path, need.verb)
            .unwrap_or(Found::Unresolved);
        match found {
            Found::Unresolved => record(self, NeedOutcome::Unresolved),
            Found::Nothing(holder, ro) => {
                let readonly = !hit.readonly.is_empty() || !ro.is_empty();
                record(self, NeedOutcome::NothingServed { readonly });
                let owner_at = self.holder_at(holder);
                let near = self.served_near(holder, &there);
                let add = self.add_entry(holder, &there, need);
                self.report(NeedError::NotServed {
                    way,
                    owner,
                    owner_at,
                    there: there.to_string(),
                    near,
                    add,
                });
            }
            Found::OtherVerbs(verbs, holder, ro) => {
                let readonly = !hit.readonly.is_empty() || !ro.is_empty();
                record(self, NeedOutcome::OtherVerbs { readonly });
                let owner_at = self.holder_at(holder);
                let add = self.add_entry(holder, &there, need);
                self.report(NeedError::OtherVerbs {
                    way,
                    owner,
                    owner_at,
                    there: there.to_string(),
                    verbs,
                    add,
                });
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
                self.match_entry(&way, need, entry, readonly);
            }
        }
    }

    /// Nothing in the view of instance `ii` of image `img` covers need
    /// `e` at `full`: E0503.
    fn nothing_at_path(&mut self, (img, ii): (ImageId, usize), e: EntryId, full: &PathPattern) {
        let at = self.spans().images[img.index()].instances[ii].name;
        self.report(NeedError::NothingAtPath {
            instance: self.model().image(img).instances[ii].name.clone(),
            verb: self.model().entry(e).verb,
            path: full.to_string(),
            at,
            need: self.spans().entries[e.index()].whole,
        });
    }

    /// The way need `e` of instance `ii` of image `img` (at `full` in its
    /// view) goes: through the lines `wires` of its view, the first first.
    fn way(
        &self,
        (img, ii): (ImageId, usize),
        e: EntryId,
        full: &PathPattern,
        wires: &[usize],
    ) -> Way {
        let wiring = &self.spans().images[img.index()].instances[ii].wiring;
        Way {
            instance: self.model().image(img).instances[ii].name.clone(),
            verb: self.model().entry(e).verb,
            path: full.to_string(),
            wire: wiring[wires[0]].whole,
            need: self.spans().entries[e.index()].whole,
            through: wires[1..].iter().map(|w| wiring[*w].whole).collect(),
        }
    }

    /// The serve entry that would meet `need` at `there` in the object that
    /// holds the path, to add after its last serve entry; `None` when the
    /// holder is not an object with serve entries in a source file.
    fn add_entry(&self, holder: Holder, there: &PathPattern, need: &EntryDef) -> Option<AddEntry> {
        let Holder::Object(o) = holder else {
            return None;
        };
        let model = self.model();
        let last = *model.object(o).serves.last()?;
        let after = self.spans().entries[last.index()].whole;
        if after.span.end() <= after.span.start() {
            return None; // read from a module's header: no text to edit
        }
        let wanted = EntryDef {
            path: there.clone(),
            operator: false,
            doc: None,
            ..need.clone()
        };
        Some(AddEntry {
            after,
            line: crate::sections::entry_text(model, &wanted),
        })
    }

    fn match_entry(&mut self, way: &Way, need: &EntryDef, serve: EntryId, readonly: Vec<FileSpan>) {
        let model = self.model();
        let s = model.entry(serve);
        let ss = &self.spans().entries[serve.index()];
        if s.operator {
            self.report(NeedError::OperatorOnly {
                way: way.clone(),
                operator_at: ss.operator.unwrap_or(ss.whole),
            });
        }
        if !need.verb.is_safe() && !readonly.is_empty() {
            self.report(NeedError::ReadOnly {
                way: way.clone(),
                readonly,
            });
        }
        let names = |ts: &[PayloadType]| ts.iter().map(|t| describe(model, t)).collect();
        if !request_met(model, &s.request, &need.request) {
            self.report(NeedError::RequestType {
                way: way.clone(),
                sends: names(&need.request),
                takes: names(&s.request),
                serve_at: ss.whole,
            });
        }
        if let Some(want) = &need.answer {
            let ok = match &s.answer {
                Some(got) => covers(model, want, got),
                None => false,
            };
            if !ok {
                self.report(NeedError::AnswerType {
                    way: way.clone(),
                    expects_typo_of: match want {
                        PayloadType::Content(ct) => ct.near_common(),
                        _ => None,
                    },
                    expects: describe(model, want),
                    answers: s.answer.as_ref().map(|g| describe(model, g)),
                    serve_at: ss.whole,
                });
            }
        }
        if !need.stream && s.stream {
            self.report(NeedError::Stream {
                way: way.clone(),
                serve_at: ss.whole,
            });
        }
    }
}
