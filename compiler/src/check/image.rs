//! Image rules: each instance's view is built from its mounts and binds, and
//! every need is resolved through it to the serve that will answer it.
//!
//! Codes: E0501–E0514 and E0517 (see checks.md), W0501; literals (E06xx)
//! through the formats.

use std::collections::HashSet;

use oth_syntax::ast::{self, ImagePart, Verb};

use super::lower::{Lowered, ScopeNames};
use super::matching::{covers, path_covers, reaches_under, request_met, specificity, strip_prefix};
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Label};
use crate::formats::{Formats, LiteralCx};
use crate::model::*;
use crate::resolve::{FrontEnd, closest};
use crate::source::{FileId, FileSpan};

/// A value for a slot from outside the image: a value file line or `--set`.
pub struct SlotValue {
    pub file: FileId,
    pub slot: ast::Ident,
    pub value: ast::Value,
}

/// Where a path in an image tree leads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Target {
    /// An instance's served tree.
    Instance(ImageId, usize),
    /// What an image-level `needs` block stands for.
    Need(ImageId, usize),
}

/// A path in an instance's view, resolved.
struct ViewHit {
    target: Target,
    rest: Vec<Seg>,
    readonly: Vec<FileSpan>,
    /// The wires followed, first to last.
    wires: Vec<usize>,
}

enum ViewMiss {
    /// Nothing is mounted there.
    Nothing,
    /// A wire was followed whose source is broken (reported on its own).
    Broken,
}

/// What serves a path with a verb.
enum Found {
    Entry {
        entry: EntryId,
        readonly: Vec<FileSpan>,
    },
    /// Something names no known object (already reported): no cascade.
    Unresolved,
    /// The path is served, but not with this verb.
    OtherVerbs(Vec<Verb>, FileSpan),
    Nothing(FileSpan),
}

pub struct ImageChecker<'a> {
    pub front: &'a FrontEnd,
    pub lowered: &'a Lowered,
    pub formats: &'a Formats,
    pub diags: &'a mut Diagnostics,
    /// Images that instantiate themselves (E0517): not looked into.
    broken: HashSet<ImageId>,
    /// Per image, per instance, per wire: whether its source resolves.
    wire_ok: Vec<Vec<Vec<bool>>>,
    /// Per image: its instances by name (the first of a name; E0204 reported the rest).
    by_name: Vec<std::collections::HashMap<&'a str, usize>>,
    /// Results to store in the model: (image, slot, value) and (image, startup, payload).
    pub slot_values: Vec<(ImageId, usize, Encoded)>,
    pub startup_payloads: Vec<(ImageId, usize, StartupPayload)>,
}

fn describe(model: &Model, t: &PayloadType) -> String {
    match t {
        PayloadType::Content(c) => c.text.clone(),
        PayloadType::Message(id) => model.ty(*id).name.clone(),
        PayloadType::Unknown => "?".into(),
    }
}

fn describe_all(model: &Model, ts: &[PayloadType]) -> String {
    if ts.is_empty() {
        return "no payload".into();
    }
    ts.iter()
        .map(|t| format!("`{}`", describe(model, t)))
        .collect::<Vec<_>>()
        .join(" | ")
}

fn quote_list(items: &[String]) -> String {
    items
        .iter()
        .map(|i| format!("`{i}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl<'a> ImageChecker<'a> {
    pub fn new(
        front: &'a FrontEnd,
        lowered: &'a Lowered,
        formats: &'a Formats,
        diags: &'a mut Diagnostics,
    ) -> ImageChecker<'a> {
        ImageChecker {
            front,
            lowered,
            formats,
            diags,
            broken: HashSet::new(),
            wire_ok: Vec::new(),
            by_name: lowered
                .model
                .images
                .iter()
                .map(|img| {
                    let mut m = std::collections::HashMap::with_capacity(img.instances.len());
                    for (i, inst) in img.instances.iter().enumerate() {
                        m.entry(inst.name.as_str()).or_insert(i);
                    }
                    m
                })
                .collect(),
            slot_values: Vec::new(),
            startup_payloads: Vec::new(),
        }
    }

    fn model(&self) -> &'a Model {
        &self.lowered.model
    }

    fn spans(&self) -> &'a Spans {
        &self.lowered.spans
    }

    pub fn run(&mut self, values: &[SlotValue]) {
        self.recursion();
        let n = self.model().images.len();
        self.wire_ok = self
            .model()
            .images
            .iter()
            .map(|i| {
                i.instances
                    .iter()
                    .map(|inst| vec![true; inst.wiring.len()])
                    .collect()
            })
            .collect();
        for img in 0..n {
            let img = ImageId(img as u32);
            self.sources(img);
        }
        for img in 0..n {
            let img = ImageId(img as u32);
            self.needs(img);
            self.exports(img);
            self.startup(img);
        }
        self.slots(values);
    }

    // ---- E0517 ------------------------------------------------------------------

    fn recursion(&mut self) {
        let model = self.model();
        let mut state = vec![0u8; model.images.len()]; // 0 new, 1 on path, 2 done
        let mut path: Vec<(ImageId, usize)> = Vec::new();
        for start in 0..model.images.len() {
            self.visit_image(ImageId(start as u32), &mut state, &mut path);
        }
    }

    fn visit_image(&mut self, img: ImageId, state: &mut Vec<u8>, path: &mut Vec<(ImageId, usize)>) {
        if state[img.index()] != 0 {
            return;
        }
        state[img.index()] = 1;
        let model = self.model();
        for (ii, inst) in model.image(img).instances.iter().enumerate() {
            let Some(Shape::Image(j)) = inst.of else {
                continue;
            };
            path.push((img, ii));
            match state[j.index()] {
                1 => {
                    let from = path.iter().position(|(i, _)| *i == j).unwrap_or(0);
                    let cycle: Vec<(ImageId, usize)> = path[from..].to_vec();
                    self.report_recursion(&cycle);
                }
                0 => self.visit_image(j, state, path),
                _ => {}
            }
            path.pop();
        }
        state[img.index()] = 2;
    }

    fn report_recursion(&mut self, cycle: &[(ImageId, usize)]) {
        let model = self.model();
        let names: Vec<String> = cycle
            .iter()
            .map(|(i, _)| model.image(*i).name.clone())
            .chain(std::iter::once(model.image(cycle[0].0).name.clone()))
            .collect();
        let (last_img, last_inst) = *cycle.last().expect("a cycle has a step");
        let at = self.spans().images[last_img.index()].instances[last_inst].object;
        let message = if cycle.len() == 1 {
            format!("image `{}` instantiates itself", names[0])
        } else {
            format!("images instantiate each other: {}", names.join(" → "))
        };
        let mut d = Diagnostic::new(
            Code::E0517,
            message,
            Label::new(
                at.file,
                at.span,
                format!(
                    "`{}` makes an instance of `{}` here",
                    model.image(last_img).name,
                    names[0]
                ),
            ),
        );
        for (k, (i, ii)) in cycle[..cycle.len() - 1].iter().enumerate() {
            let s = self.spans().images[i.index()].instances[*ii].object;
            d = d.with_label(Label::new(
                s.file,
                s.span,
                format!(
                    "`{}` makes an instance of `{}` here",
                    names[k],
                    names[k + 1]
                ),
            ));
        }
        self.diags.push(d.with_help(
            "an image cannot contain itself: take the instance out, or split the image",
        ));
        for (i, _) in cycle {
            self.broken.insert(*i);
        }
    }

    // ---- the image tree ---------------------------------------------------------

    /// Resolves a concrete path of image `img`'s tree: `/INSTANCE/...`, or
    /// under one of its `needs` mount points.
    fn tree(&self, img: ImageId, path: &[Seg]) -> Result<(Target, Vec<Seg>), Option<String>> {
        let def = self.model().image(img);
        if let Some(Seg::Lit(first)) = path.first()
            && let Some(&i) = self.by_name[img.index()].get(first.as_str())
        {
            return Ok((Target::Instance(img, i), path[1..].to_vec()));
        }
        let best = def
            .needs
            .iter()
            .enumerate()
            .filter_map(|(n, b)| {
                strip_prefix(path, &b.mount.segs).map(|rest| (n, rest, b.mount.segs.len()))
            })
            .filter(|(_, _, len)| *len > 0)
            .max_by_key(|(_, _, len)| *len);
        if let Some((n, rest, _)) = best {
            return Ok((Target::Need(img, n), rest.to_vec()));
        }
        Err(match path.first() {
            Some(Seg::Lit(first)) => Some(first.clone()),
            _ => None,
        })
    }

    fn tree_names(&self, img: ImageId) -> Vec<String> {
        let def = self.model().image(img);
        def.instances
            .iter()
            .map(|i| i.name.clone())
            .chain(def.needs.iter().filter_map(|n| match n.mount.segs.first() {
                Some(Seg::Lit(l)) => Some(l.clone()),
                _ => None,
            }))
            .collect()
    }

    /// E0501 for a path whose first segment names nothing in the image tree.
    fn unknown_tree_name(&mut self, img: ImageId, at: FileSpan, name: Option<String>, what: &str) {
        let names = self.tree_names(img);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let img_name = &self.model().image(img).name;
        let (message, label) = match &name {
            Some(n) => (
                format!("image `{img_name}` has no instance `{n}`"),
                format!("this {what} names `/{n}`, which is not in the image tree"),
            ),
            None => (
                format!("`/` is the whole tree of image `{img_name}`, not something in it"),
                "name an instance: `/INSTANCE/...`".to_string(),
            ),
        };
        let mut d = Diagnostic::new(Code::E0501, message, Label::new(at.file, at.span, label));
        d = match name.as_deref().and_then(|n| closest(n, &refs)) {
            Some(near) => d.with_help(format!("did you mean `/{near}`?")),
            None if refs.is_empty() => d.with_help(
                "the image tree holds `/NAME` for each instance; this image has none yet",
            ),
            None => d.with_help(format!(
                "the image tree holds {}",
                quote_list(&names.iter().map(|n| format!("/{n}")).collect::<Vec<_>>())
            )),
        };
        self.diags.push(d);
    }

    /// Whether anything is served at or under `rest` of a target.
    fn anything_under(&self, target: Target, rest: &[Seg], depth: usize) -> bool {
        if depth > 32 {
            return true;
        }
        let model = self.model();
        let entries: &[EntryId] = match target {
            Target::Need(img, n) => &model.image(img).needs[n].entries,
            Target::Instance(img, i) => match model.image(img).instances[i].of {
                None => return true,
                Some(Shape::Object(o)) => &model.object(o).serves,
                Some(Shape::Image(j)) => {
                    if self.broken.contains(&j) {
                        return true;
                    }
                    return model.image(j).exports.iter().any(|e| {
                        if strip_prefix(&e.at.segs, rest).is_some() {
                            // The export is at or under `rest`.
                            true
                        } else if let Some(r) = strip_prefix(rest, &e.at.segs) {
                            match self.tree(j, &e.from.join(r).segs) {
                                Ok((t, r2)) => self.anything_under(t, &r2, depth + 1),
                                Err(_) => true,
                            }
                        } else {
                            false
                        }
                    });
                }
            },
        };
        entries
            .iter()
            .any(|e| reaches_under(&model.entry(*e).path.segs, rest))
    }

    // ---- mount, bind and export sources ------------------------------------------

    fn sources(&mut self, img: ImageId) {
        let model = self.model();
        let def = model.image(img);
        for (ii, inst) in def.instances.iter().enumerate() {
            for (wi, w) in inst.wiring.iter().enumerate() {
                let sp = &self.spans().images[img.index()].instances[ii].wiring[wi];
                let ok = match w.kind {
                    WireKind::Mount => self.source(img, &w.link.from, sp.from, "mount"),
                    WireKind::Bind => match self.view(img, ii, &w.link.from.segs, Some(wi), 0) {
                        Ok(_) => true,
                        Err(ViewMiss::Broken) => false,
                        Err(ViewMiss::Nothing) => {
                            let mounted: Vec<String> = inst
                                .wiring
                                .iter()
                                .enumerate()
                                .filter(|(k, _)| *k != wi)
                                .map(|(_, w)| w.link.at.to_string())
                                .collect();
                            self.diags.push(
                                Diagnostic::new(
                                    Code::E0510,
                                    format!("bind source `{}` is not in the view of `{}`", w.link.from, inst.name),
                                    Label::new(sp.from.file, sp.from.span, "nothing is mounted here in this instance's view"),
                                )
                                .with_help(if mounted.is_empty() {
                                    "a bind rearranges what the instance can already see: mount something first".to_string()
                                } else {
                                    format!("a bind's source is a path in the instance's own view, which holds {}", quote_list(&mounted))
                                }),
                            );
                            false
                        }
                    },
                };
                self.wire_ok[img.index()][ii][wi] = ok;
            }
        }
        for (ei, e) in def.exports.iter().enumerate() {
            let sp = self.spans().images[img.index()].exports[ei].from;
            self.source(img, &e.from, sp, "export");
        }
    }

    /// A mount or export source: a concrete path in the image tree with
    /// something served at or under it (E0501, E0509).
    fn source(&mut self, img: ImageId, from: &PathPattern, at: FileSpan, what: &str) -> bool {
        match self.tree(img, &from.segs) {
            Err(name) => {
                self.unknown_tree_name(img, at, name, what);
                false
            }
            Ok((target, rest)) => {
                if self.anything_under(target, &rest, 0) {
                    return true;
                }
                let (owner, owner_at) = self.owner(target);
                self.diags.push(
                    Diagnostic::new(
                        Code::E0509,
                        format!(
                            "{what} source `{from}`: {owner} serves nothing at `{}`",
                            PathPattern { segs: rest.clone() }
                        ),
                        Label::new(at.file, at.span, "nothing here"),
                    )
                    .with_label(Label::new(
                        owner_at.file,
                        owner_at.span,
                        format!("{owner} is declared here"),
                    ))
                    .with_help(format!(
                        "{what} a path that {owner} serves, or the instance itself (`/{}`)",
                        self.target_name(target)
                    )),
                );
                false
            }
        }
    }

    fn target_name(&self, t: Target) -> String {
        match t {
            Target::Instance(img, i) => self.model().image(img).instances[i].name.clone(),
            Target::Need(img, n) => self.model().image(img).needs[n]
                .mount
                .to_string()
                .trim_start_matches('/')
                .to_string(),
        }
    }

    /// How a target reads in messages, and where its declaration is.
    fn owner(&self, t: Target) -> (String, FileSpan) {
        let model = self.model();
        match t {
            Target::Instance(img, i) => {
                let inst = &model.image(img).instances[i];
                let at = match inst.of {
                    Some(Shape::Object(o)) => self.spans().objects[o.index()].name,
                    Some(Shape::Image(j)) => self.spans().images[j.index()].name,
                    None => self.spans().images[img.index()].instances[i].object,
                };
                let of = match inst.of {
                    Some(Shape::Object(o)) => model.object(o).name.clone(),
                    Some(Shape::Image(j)) => model.image(j).name.clone(),
                    None => "?".into(),
                };
                (format!("`{}` (a `{of}`)", inst.name), at)
            }
            Target::Need(img, n) => (
                format!(
                    "the need `{}` of image `{}`",
                    model.image(img).needs[n].mount,
                    model.image(img).name
                ),
                self.spans().images[img.index()].needs[n],
            ),
        }
    }

    // ---- views ------------------------------------------------------------------

    /// Resolves `path` in instance `ii`'s view: the longest mounted prefix
    /// wins, binds are followed, read-only accumulates.
    fn view(
        &self,
        img: ImageId,
        ii: usize,
        path: &[Seg],
        exclude: Option<usize>,
        depth: usize,
    ) -> Result<ViewHit, ViewMiss> {
        if depth > 32 {
            return Err(ViewMiss::Broken);
        }
        let inst = &self.model().image(img).instances[ii];
        let best = inst
            .wiring
            .iter()
            .enumerate()
            .filter(|(wi, _)| Some(*wi) != exclude)
            .filter_map(|(wi, w)| strip_prefix(path, &w.link.at.segs).map(|rest| (wi, w, rest)))
            // The longest prefix; of equal ones, the last written.
            .max_by_key(|(wi, w, _)| (w.link.at.segs.len(), *wi));
        let Some((wi, w, rest)) = best else {
            return Err(ViewMiss::Nothing);
        };
        if !self.wire_ok[img.index()][ii][wi] {
            return Err(ViewMiss::Broken);
        }
        let sp = &self.spans().images[img.index()].instances[ii].wiring[wi];
        let mut readonly = Vec::new();
        if w.link.readonly {
            readonly.extend(sp.readonly);
        }
        let from = w.link.from.join(rest);
        let mut hit = match w.kind {
            WireKind::Mount => match self.tree(img, &from.segs) {
                Ok((target, rest)) => ViewHit {
                    target,
                    rest,
                    readonly: Vec::new(),
                    wires: Vec::new(),
                },
                Err(_) => return Err(ViewMiss::Broken),
            },
            WireKind::Bind => self.view(img, ii, &from.segs, Some(wi), depth + 1)?,
        };
        hit.wires.insert(0, wi);
        readonly.append(&mut hit.readonly);
        hit.readonly = readonly;
        Ok(hit)
    }

    // ---- what serves a path ---------------------------------------------------------

    fn lookup(&self, target: Target, path: &[Seg], verb: Verb, depth: usize) -> Found {
        if depth > 32 {
            return Found::Unresolved;
        }
        let model = self.model();
        let (entries, owner_at): (&[EntryId], FileSpan) = match target {
            Target::Need(img, n) => (
                &model.image(img).needs[n].entries,
                self.spans().images[img.index()].needs[n],
            ),
            Target::Instance(img, i) => match model.image(img).instances[i].of {
                None => return Found::Unresolved,
                Some(Shape::Object(o)) => (
                    &model.object(o).serves,
                    self.spans().objects[o.index()].name,
                ),
                Some(Shape::Image(j)) => {
                    if self.broken.contains(&j) {
                        return Found::Unresolved;
                    }
                    return self.lookup_exports(j, path, verb, depth);
                }
            },
        };
        best_entry(model, entries, path, verb, owner_at)
    }

    /// A path of a nested image's served tree: through its exports.
    fn lookup_exports(&self, j: ImageId, path: &[Seg], verb: Verb, depth: usize) -> Found {
        let model = self.model();
        let best = model
            .image(j)
            .exports
            .iter()
            .enumerate()
            .filter_map(|(ei, e)| strip_prefix(path, &e.at.segs).map(|rest| (ei, e, rest)))
            .max_by_key(|(ei, e, _)| (e.at.segs.len(), *ei));
        let img_at = self.spans().images[j.index()].name;
        let Some((ei, e, rest)) = best else {
            return Found::Nothing(img_at);
        };
        let Ok((target, rest)) = self.tree(j, &e.from.join(rest).segs) else {
            return Found::Unresolved;
        };
        match self.lookup(target, &rest, verb, depth + 1) {
            Found::Entry {
                entry,
                mut readonly,
            } => {
                if e.readonly {
                    readonly.extend(self.spans().images[j.index()].exports[ei].readonly);
                }
                Found::Entry { entry, readonly }
            }
            other => other,
        }
    }

    // ---- needs -----------------------------------------------------------------------

    fn needs(&mut self, img: ImageId) {
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
                    if self.broken.contains(&j) {
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
                    self.nothing_mounted(img, ii, block, block_spans[b]);
                    continue;
                }
                for &e in &block.entries {
                    self.need_entry(img, ii, block, e, &mut used);
                }
            }
            // A broken wire was reported; what it would have used is unknown.
            let all_ok = self.wire_ok[img.index()][ii].iter().all(|ok| *ok);
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

    fn nothing_mounted(&mut self, img: ImageId, ii: usize, block: &NeedBlock, need_at: FileSpan) {
        let inst = &self.model().image(img).instances[ii];
        let at = self.spans().images[img.index()].instances[ii].name;
        let names = self.tree_names(img);
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
        img: ImageId,
        ii: usize,
        block: &NeedBlock,
        e: EntryId,
        used: &mut [bool],
    ) {
        let model = self.model();
        let need = model.entry(e);
        let full = block.mount.join(&need.path.segs);
        let hit = match self.view(img, ii, &full.segs, None, 0) {
            Ok(hit) => hit,
            Err(ViewMiss::Broken) => return,
            Err(ViewMiss::Nothing) => {
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
            segs: hit.rest.clone(),
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
        match self.lookup(hit.target, &hit.rest, need.verb, 0) {
            Found::Unresolved => {}
            Found::Nothing(owner_at) => {
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
            Found::OtherVerbs(verbs, owner_at) => {
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
            Found::Entry {
                entry,
                mut readonly,
            } => {
                readonly.splice(0..0, hit.readonly);
                self.match_entry(&base, need, entry, &readonly, &what, who, false);
            }
        }
    }

    /// Holds a request (a need, or a startup request when `operator`)
    /// against the serve it reaches: operator, read-only, payload types.
    #[allow(clippy::too_many_arguments)]
    fn match_entry(
        &mut self,
        base: &dyn Fn(Code, String, String) -> Diagnostic,
        need: &EntryDef,
        serve: EntryId,
        readonly: &[FileSpan],
        what: &str,
        who: &str,
        _operator: bool,
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

    // ---- exports -----------------------------------------------------------------------

    fn exports(&mut self, img: ImageId) {
        let def = self.model().image(img);
        for (ei, e) in def.exports.iter().enumerate() {
            if let Some(first) = def.exports[..ei].iter().position(|x| x.at == e.at) {
                let sp = &self.spans().images[img.index()].exports;
                self.diags.push(
                    Diagnostic::new(
                        Code::E0511,
                        format!("two exports at `{}`", e.at),
                        Label::new(sp[ei].at.file, sp[ei].at.span, "exported again here"),
                    )
                    .with_label(Label::new(
                        sp[first].at.file,
                        sp[first].at.span,
                        "first exported here",
                    ))
                    .with_help("export each at its own path"),
                );
            }
        }
    }

    // ---- startup requests -----------------------------------------------------------------

    fn image_ast(&self, img: ImageId) -> (&'a ast::Image, FileId, usize) {
        let (m, item) = self.lowered.image_src[img.index()];
        let module = &self.front.program.modules[m.0 as usize];
        let ast::Item::Image(i) = &module.ast.items[item] else {
            unreachable!("image_src points at an image item")
        };
        (i, module.file, m.0 as usize)
    }

    fn startup(&mut self, img: ImageId) {
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
            let (target, rest) = match self.tree(img, &path.segs) {
                Ok(t) => t,
                Err(name) => {
                    self.unknown_tree_name(img, sp.path, name, "startup request");
                    continue;
                }
            };
            let verb = s.verb.verb;
            let (owner, _) = self.owner(target);
            let through = PathPattern { segs: rest.clone() };
            let what = format!("{} {path}", verb.as_str());
            match self.lookup(target, &rest, verb, 0) {
                Found::Unresolved => {}
                Found::Nothing(owner_at) => self.diags.push(
                    Diagnostic::new(
                        Code::E0512,
                        format!("startup request `{what}`: {owner} serves nothing at `{through}`"),
                        Label::new(sp.path.file, sp.path.span, "nothing serves this"),
                    )
                    .with_label(Label::new(
                        owner_at.file,
                        owner_at.span,
                        format!("{owner} is declared here"),
                    ))
                    .with_help("send it to a path the instance serves"),
                ),
                Found::OtherVerbs(verbs, owner_at) => {
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
                        for r in &readonly {
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
                let ty = PayloadType::Content(ContentType {
                    text: ct.ct.text.clone(),
                    ty: ct.ct.ty.clone(),
                    subtype: ct.ct.subtype.clone(),
                    params: ct.ct.params.clone(),
                });
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
    fn encode(
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

    // ---- slots -------------------------------------------------------------------------

    fn slots(&mut self, values: &[SlotValue]) {
        let model = self.model();
        let roots: HashSet<usize> = self
            .front
            .program
            .roots
            .iter()
            .map(|m| m.0 as usize)
            .collect();
        let root_images: Vec<ImageId> = (0..model.images.len())
            .map(|i| ImageId(i as u32))
            .filter(|i| roots.contains(&model.image(*i).file.index()))
            .collect();
        for v in values {
            let takers: Vec<ImageId> = root_images
                .iter()
                .copied()
                .filter(|i| model.image(*i).slots.iter().any(|s| s.name == v.slot.name))
                .collect();
            if takers.is_empty() {
                let all: Vec<&str> = root_images
                    .iter()
                    .flat_map(|i| model.image(*i).slots.iter().map(|s| s.name.as_str()))
                    .collect();
                let mut d = Diagnostic::new(
                    Code::E0610,
                    format!("no slot `{}`", v.slot.name),
                    Label::new(v.file, v.slot.span, "the image has no slot of this name"),
                );
                d = match closest(&v.slot.name, &all) {
                    Some(near) => d.with_help(format!("did you mean `{near}`?")),
                    None if all.is_empty() => {
                        d.with_help("the image has no slots (`require NAME : TYPE`)")
                    }
                    None => d.with_help(format!(
                        "the slots are {}",
                        quote_list(&all.iter().map(|s| s.to_string()).collect::<Vec<_>>())
                    )),
                };
                self.diags.push(d);
            }
        }
        for img in 0..model.images.len() {
            let img = ImageId(img as u32);
            let (ast_img, file, mi) = self.image_ast(img);
            let is_root = root_images.contains(&img);
            let mut si = 0;
            for part in &ast_img.parts {
                let ImagePart::Slot(s) = part else { continue };
                // Duplicates were dropped from the model (E0204).
                let Some(idx) = model
                    .image(img)
                    .slots
                    .iter()
                    .position(|x| x.name == s.name.name)
                else {
                    continue;
                };
                if idx != si {
                    continue;
                }
                si += 1;
                let ty = model.image(img).slots[idx].ty.clone();
                let mut winner: Option<Option<Encoded>> = None;
                if let Some(d) = &s.default {
                    winner = Some(self.slot_value(file, mi, &ty, d));
                }
                if is_root {
                    for v in values.iter().filter(|v| v.slot.name == s.name.name) {
                        winner = Some(self.slot_value(v.file, mi, &ty, &v.value));
                    }
                }
                match winner {
                    Some(Some(enc)) => self.slot_values.push((img, idx, enc)),
                    Some(None) => {}
                    None if is_root => {
                        let sp = &self.spans().images[img.index()].slots[idx];
                        self.diags.push(
                            Diagnostic::new(
                                Code::E0514,
                                format!("slot `{}` has no value", s.name.name),
                                Label::new(sp.name.file, sp.name.span, "no default, and no value file or --set gives one"),
                            )
                            .with_help(format!(
                                "give it a default (`require {} : {} = ...`), or a value: `--set '{}=...'`",
                                s.name.name,
                                describe(model, &ty),
                                s.name.name
                            )),
                        );
                    }
                    None => {}
                }
            }
        }
    }

    fn slot_value(
        &mut self,
        file: FileId,
        mi: usize,
        ty: &PayloadType,
        v: &ast::Value,
    ) -> Option<Encoded> {
        match ty {
            PayloadType::Unknown => None,
            PayloadType::Message(id) => self.encode(file, mi, Some(*id), v),
            PayloadType::Content(ct) => match &v.kind {
                ast::ValueKind::Str(s) => Some(Encoded {
                    content_type: ct.text.clone(),
                    message: None,
                    bytes: s.clone().into_bytes(),
                }),
                ast::ValueKind::Error => None,
                _ => {
                    self.diags.push(
                        Diagnostic::new(
                            Code::E0601,
                            format!("a `{}` slot takes a string", ct.text),
                            Label::new(file, v.span, "expected a string"),
                        )
                        .with_help("write the payload's text in quotes"),
                    );
                    None
                }
            },
        }
    }
}

fn text_plain() -> PayloadType {
    PayloadType::Content(ContentType {
        text: "text/plain".into(),
        ty: "text".into(),
        subtype: "plain".into(),
        params: Vec::new(),
    })
}

/// The entry a request `verb path` is routed to among `entries`: of those
/// with the verb whose pattern covers the path, the most specific.
fn best_entry(
    model: &Model,
    entries: &[EntryId],
    path: &[Seg],
    verb: Verb,
    owner_at: FileSpan,
) -> Found {
    let best = entries
        .iter()
        .copied()
        .filter(|e| {
            let d = model.entry(*e);
            d.verb == verb && path_covers(&d.path.segs, path)
        })
        .min_by_key(|e| specificity(&model.entry(*e).path.segs));
    if let Some(entry) = best {
        return Found::Entry {
            entry,
            readonly: Vec::new(),
        };
    }
    let mut verbs: Vec<Verb> = entries
        .iter()
        .map(|e| model.entry(*e))
        .filter(|d| path_covers(&d.path.segs, path))
        .map(|d| d.verb)
        .collect();
    verbs.sort_by_key(|v| Verb::ALL.iter().position(|x| x == v));
    verbs.dedup();
    if verbs.is_empty() {
        Found::Nothing(owner_at)
    } else {
        Found::OtherVerbs(verbs, owner_at)
    }
}
