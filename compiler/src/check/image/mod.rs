//! Image rules: each instance's view is built from its mounts and binds
//! (by the namespace module), and every need is resolved through it to the
//! serve that will answer it.
//!
//! Codes: E0501–E0513, E0517 and E0518, W0501 (slot values, E0514 and the
//! literals' E06xx belong to `check::payloads`). One file per concern: `recursion` (images inside themselves,
//! nesting depth), `sources` (what mounts, binds and exports point at),
//! `needs` (every need of every instance), `exports`, `startup` (what
//! startup requests reach). Literals were checked and encoded when the
//! model was finished (`check::payloads`): nothing here reads syntax.

mod exports;
mod need_errors;
mod needs;
mod recursion;
mod sources;
mod startup;
mod startup_errors;
mod wiring_errors;

use super::lower::Lowered;
use crate::diagnostics::Diagnostics;
use crate::model::*;
use crate::namespace::serve::Holder;
use crate::namespace::tree::{Target, Tree};
use crate::namespace::view::ReadonlyBy;
use crate::namespace::{NeedCheck, Wires};
use crate::source::FileSpan;

pub struct ImageChecker<'a> {
    pub lowered: &'a Lowered,
    pub diags: &'a mut Diagnostics,
    /// Images that instantiate themselves (E0517) or nest too deep (E0518):
    /// not looked into.
    broken: Vec<bool>,
    /// Where each wire leads (resolved by the namespace module in `run`).
    wires: Wires,
    /// What each need entry reached.
    pub need_checks: Vec<NeedCheck>,
    /// Per image, per export: the serve entries it leads to.
    export_entries: PerImage<Vec<Vec<EntryId>>>,
    /// Per image, per startup request: the serve entry that answers it.
    startup_entries: PerImage<Vec<Option<EntryId>>>,
}

impl<'a> ImageChecker<'a> {
    pub fn new(lowered: &'a Lowered, diags: &'a mut Diagnostics) -> ImageChecker<'a> {
        ImageChecker {
            lowered,
            diags,
            broken: vec![false; lowered.model.images.len()],
            wires: PerImage::default(),
            need_checks: Vec::new(),
            export_entries: PerImage::new(&lowered.model, |_, i| vec![Vec::new(); i.exports.len()]),
            startup_entries: PerImage::new(&lowered.model, |_, i| vec![None; i.startup.len()]),
        }
    }

    fn model(&self) -> &'a Model {
        &self.lowered.model
    }

    fn spans(&self) -> &'a Spans {
        &self.lowered.spans
    }

    /// The namespace module's view of the model.
    fn tree(&self) -> Tree<'a> {
        Tree::new(self.model(), self.broken.clone())
    }

    /// Checks every image; returns what the namespace module resolved.
    pub fn run(mut self) -> crate::namespace::Namespace {
        self.recursion();
        let tree = self.tree();
        self.wires = crate::namespace::resolve_wires(&tree);
        let n = self.model().images.len();

        for img in 0..n {
            self.sources(&tree, ImageId(img as u32));
        }
        for img in 0..n {
            let img = ImageId(img as u32);
            self.needs(&tree, img);
            self.exports(img);
            self.startup(&tree, img);
        }
        // The images that can run on their own, flattened as a bundle will
        // hold them; only once everything checked, so a flattening failure
        // is never a cascade of another error.
        let clean = !self.diags.has_errors();
        let flat = PerImage::new(self.model(), |id, img| {
            if !clean || self.broken[id.index()] || !img.needs.is_empty() {
                return None;
            }
            self.flatten(&tree, id)
        });
        crate::namespace::Namespace {
            wires: self.wires,
            needs: self.need_checks,
            exports: self.export_entries,
            startup: self.startup_entries,
            flat,
        }
    }

    /// How a target reads in messages, and where its declaration is.
    fn owner(&self, t: Target) -> (String, FileSpan) {
        let at = match t {
            Target::Instance(img, i) => match self.model().image(img).instances[i].of {
                Some(Shape::Object(o)) => self.spans().objects[o.index()].name,
                Some(Shape::Image(j)) => self.spans().images[j.index()].name,
                None => self.spans().images[img.index()].instances[i].object,
            },
            Target::Need(img, n) => self.spans().images[img.index()].needs[n],
        };
        (self.owner_data(t).to_string(), at)
    }

    /// What a target is, as data for an error.
    fn owner_data(&self, t: Target) -> need_errors::Owner {
        let model = self.model();
        match t {
            Target::Instance(img, i) => {
                let inst = &model.image(img).instances[i];
                need_errors::Owner::Instance {
                    name: inst.name.clone(),
                    of: model.shape_name(inst.of).to_string(),
                }
            }
            Target::Need(img, n) => need_errors::Owner::Need {
                mount: model.image(img).needs[n].mount.to_string(),
                image: model.image(img).name.clone(),
            },
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

    /// Where the entries a lookup looked at are declared.
    fn holder_at(&self, h: Holder) -> FileSpan {
        match h {
            Holder::Object(o) => self.spans().objects[o.index()].name,
            Holder::Need(img, n) => self.spans().images[img.index()].needs[n],
            Holder::Image(j) => self.spans().images[j.index()].name,
        }
    }

    /// Where a read-only line is: its `readonly` word.
    fn readonly_at(&self, r: ReadonlyBy) -> Option<FileSpan> {
        match r {
            ReadonlyBy::Wire(img, ii, wi) => {
                self.spans().images[img.index()].instances[ii].wiring[wi].readonly
            }
            ReadonlyBy::Export(img, ei) => self.spans().images[img.index()].exports[ei].readonly,
        }
    }

    /// Image `id` flattened as its bundle will hold it; a flattening that
    /// goes round in a circle or too deep (through nested images' needs
    /// and exports) is E0518, at the instance whose view it was following.
    fn flatten(&mut self, tree: &Tree, id: ImageId) -> Option<crate::namespace::flatten::Flat> {
        match crate::namespace::flatten::flatten(tree, &self.wires, id) {
            Ok(flat) => Some(flat),
            Err(e) => {
                let (at, at_instance) = match e.at {
                    Some((img, i)) => (self.spans().images[img.index()].instances[i].name, true),
                    None => (self.spans().images[id.index()].name, false),
                };
                // Anything else that stops a flattening is reported by the
                // rules above; only the depth limit is new here.
                if e.too_deep {
                    self.report(wiring_errors::WiringError::FlattenTooDeep {
                        image: self.model().image(id).name.clone(),
                        why: e.message,
                        at,
                        at_instance,
                    });
                }
                None
            }
        }
    }

    /// Reports an error held as data.
    fn report(
        &mut self,
        e: impl crate::diagnostics::ToDiagnostic + crate::diagnostics::CauseValue,
    ) {
        self.diags.push(crate::diagnostics::with_cause(e));
    }
}
