//! What mounts, binds and exports point at: a mount or export source is a
//! path in the image tree with something served at or under it (E0501,
//! E0509); a bind's source is in the instance's own view (E0510); binds
//! that lead round in a circle, or chain too deep, are E0518.

use super::{ImageChecker, quote_list};
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::{ImageId, PathPattern, WireKind};
use crate::namespace::MAX_DEPTH;
use crate::namespace::tree::{Target, Tree, TreeMiss};
use crate::namespace::view::LinkError;
use crate::source::FileSpan;

impl ImageChecker<'_> {
    pub(super) fn sources(&mut self, tree: &Tree, img: ImageId) {
        let model = self.model();
        let def = model.image(img);
        for (ii, inst) in def.instances.iter().enumerate() {
            for (wi, w) in inst.wiring.iter().enumerate() {
                let sp = &self.spans().images[img.index()].instances[ii].wiring[wi];
                let what = match w.kind {
                    WireKind::Mount => "mount",
                    WireKind::Bind => "bind",
                };
                let Err(e) = &self.wires[img.index()][ii][wi] else {
                    continue;
                };
                match e.clone() {
                    LinkError::Tree(miss) => self.unknown_tree_name(tree, img, sp.from, miss, what),
                    LinkError::NothingServed(target, rest) => {
                        self.nothing_served(target, &rest, &w.link.from, sp.from, what)
                    }
                    LinkError::NotInView => {
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
                    }
                    LinkError::Cycle(cycle) => {
                        // Once per circle, at its first-written bind.
                        if cycle.iter().min() == Some(&wi) {
                            self.bind_circle(img, ii, &cycle);
                        }
                    }
                    LinkError::TooDeep => {
                        self.diags.push(
                            Diagnostic::new(
                                Code::E0518,
                                format!("the {what} at `{}` of `{}` goes through more than {MAX_DEPTH} binds", w.link.at, inst.name),
                                Label::new(sp.whole.file, sp.whole.span, format!("resolving this follows more than {MAX_DEPTH} binds")),
                            )
                            .with_help("bind the source directly instead of through a chain of binds"),
                        );
                    }
                    LinkError::Broken => {}
                }
            }
        }
        for (ei, e) in def.exports.iter().enumerate() {
            let sp = self.spans().images[img.index()].exports[ei].from;
            match tree.resolve(img, &e.from.segs) {
                Err(miss) => self.unknown_tree_name(tree, img, sp, miss, "export"),
                Ok((target, rest)) => {
                    if let Ok(false) = tree.anything_under(target, &rest, 0) {
                        self.nothing_served(target, &rest, &e.from, sp, "export");
                    }
                }
            }
        }
    }

    fn bind_circle(&mut self, img: ImageId, ii: usize, cycle: &[usize]) {
        let inst = &self.model().image(img).instances[ii];
        let sp = &self.spans().images[img.index()].instances[ii].wiring;
        let first = sp[cycle[0]].whole;
        let ats: Vec<String> = cycle
            .iter()
            .chain(cycle.first())
            .map(|w| inst.wiring[*w].link.at.to_string())
            .collect();
        let mut d = Diagnostic::new(
            Code::E0518,
            format!(
                "the binds of `{}` lead round in a circle: {}",
                inst.name,
                ats.join(" → ")
            ),
            Label::new(
                first.file,
                first.span,
                "this bind's source leads back to it",
            ),
        );
        for w in &cycle[1..] {
            let s = sp[*w].whole;
            d = d.with_label(Label::new(s.file, s.span, "and through this"));
        }
        self.diags.push(d.with_help(
            "a bind's source must lead to a mount: bind one of these to a mounted path instead",
        ));
    }

    fn nothing_served(
        &mut self,
        target: Target,
        rest: &[crate::model::Seg],
        from: &PathPattern,
        at: FileSpan,
        what: &str,
    ) {
        let (owner, owner_at) = self.owner(target);
        self.diags.push(
            Diagnostic::new(
                Code::E0509,
                format!(
                    "{what} source `{from}`: {owner} serves nothing at `{}`",
                    PathPattern {
                        segs: rest.to_vec()
                    }
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
    }

    /// E0501 for a path whose first segment names nothing in the image tree.
    pub(super) fn unknown_tree_name(
        &mut self,
        tree: &Tree,
        img: ImageId,
        at: FileSpan,
        miss: TreeMiss,
        what: &str,
    ) {
        let names = tree.names(img);
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        let img_name = &self.model().image(img).name;
        let name = match miss {
            TreeMiss::Unknown(n) => Some(n),
            TreeMiss::Root => None,
        };
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
}
