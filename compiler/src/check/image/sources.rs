//! What mounts, binds and exports point at: a mount or export source is a
//! path in the image tree with something served at or under it (E0501,
//! E0509); a bind's source is in the instance's own view (E0510); binds
//! that lead round in a circle, or chain too deep, are E0518.

use super::ImageChecker;
use super::wiring_errors::WiringError;
use crate::diagnostics::suggest::closest;
use crate::model::{ImageId, PathPattern, WireKind};
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
                let Err(e) = &self.wires[img][ii][wi] else {
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
                        self.report(WiringError::BindNotInView {
                            instance: inst.name.clone(),
                            from: w.link.from.to_string(),
                            at: sp.from,
                            mounted,
                        });
                    }
                    LinkError::Cycle(cycle) => {
                        // Once per circle, at its first-written bind.
                        if cycle.iter().min() == Some(&wi) {
                            self.bind_circle(img, ii, &cycle);
                        }
                    }
                    LinkError::TooDeep => self.report(WiringError::BindTooDeep {
                        instance: inst.name.clone(),
                        what,
                        at_path: w.link.at.to_string(),
                        whole: sp.whole,
                    }),
                    LinkError::Broken => {}
                }
            }
        }
        for (ei, e) in def.exports.iter().enumerate() {
            let sp = self.spans().images[img.index()].exports[ei].from;
            match tree.resolve(img, &e.from.segs) {
                Err(miss) => self.unknown_tree_name(tree, img, sp, miss, "export"),
                Ok((target, rest)) => {
                    if let Ok(served) = tree.served_under(target, &rest, 0) {
                        if !served.unknown && served.entries.is_empty() {
                            self.nothing_served(target, &rest, &e.from, sp, "export");
                        }
                        self.export_entries[img][ei] = served.entries;
                    }
                }
            }
        }
    }

    fn bind_circle(&mut self, img: ImageId, ii: usize, cycle: &[usize]) {
        let inst = &self.model().image(img).instances[ii];
        let sp = &self.spans().images[img.index()].instances[ii].wiring;
        self.report(WiringError::BindCircle {
            instance: inst.name.clone(),
            ats: cycle
                .iter()
                .chain(cycle.first())
                .map(|w| inst.wiring[*w].link.at.to_string())
                .collect(),
            binds: cycle.iter().map(|w| sp[*w].whole).collect(),
        });
    }

    fn nothing_served(
        &mut self,
        target: Target,
        rest: &[crate::model::Seg],
        from: &PathPattern,
        at: FileSpan,
        what: &'static str,
    ) {
        let (_, owner_at) = self.owner(target);
        self.report(WiringError::NothingServed {
            what,
            from: from.to_string(),
            at,
            owner: self.owner_data(target),
            owner_at,
            there: PathPattern {
                segs: rest.to_vec(),
            }
            .to_string(),
            owner_path: self.target_name(target),
        });
    }

    /// E0501 for a path whose first segment names nothing in the image tree.
    pub(super) fn unknown_tree_name(
        &mut self,
        tree: &Tree,
        img: ImageId,
        at: FileSpan,
        miss: TreeMiss,
        what: &'static str,
    ) {
        let names = tree.names(img);
        let name = match miss {
            TreeMiss::Unknown(n) => Some(n),
            TreeMiss::Root => None,
        };
        let near = name.as_deref().and_then(|n| {
            let refs: Vec<&str> = names.iter().map(String::as_str).collect();
            closest(n, &refs).map(str::to_string)
        });
        self.report(WiringError::UnknownTreeName {
            image: self.model().image(img).name.clone(),
            what,
            at,
            name,
            names,
            near,
        });
    }
}
