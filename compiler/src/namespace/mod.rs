//! The namespace rules, in one place: what a path in an instance's view
//! reaches, which serves entry answers a request, what an object's needs
//! allow, and how an image with nested images flattens into the instances
//! a runtime runs.
//!
//! Invariant: nothing else in the toolchain decides what a path reaches.
//! The checker resolves every link with these functions and records the
//! result ([`crate::check::Checked::namespace`]); the bundle writer writes
//! what the checker recorded; the runtime routes every request with
//! [`route::select`], [`needs::allows`] and [`path::longest`]. So what
//! `othc check` proves is what the runtime enforces.
//!
//! Every resolution that can chain (binds through binds, exports of nested
//! images, needs of nested images through the enclosing view, exposures at
//! run time) stops at [`MAX_DEPTH`] links, which the checker reports as
//! E0518 and the runtime answers as `not_found`.

pub mod flatten;
pub mod needs;
pub mod path;
pub mod route;
pub mod serve;
pub mod tree;
pub mod view;

use crate::model::{EntryId, ImageId, Model, PerImage};

/// How many links one resolution may follow.
pub const MAX_DEPTH: usize = 32;

/// A resolution went past [`MAX_DEPTH`] links.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit;

/// Per image, per instance (its position in the image), per wire (its
/// position in the instance's wiring): where the wire leads.
pub type Wires = PerImage<Vec<Vec<Result<view::Reached, view::LinkError>>>>;

/// What the checker found out about an image's paths, kept for those who
/// come after it (the bundle writer, the language server, the tests).
#[derive(Clone, Debug, Default)]
pub struct Namespace {
    /// Where each wire leads, per image, per instance.
    pub wires: Wires,
    /// Per checked need entry of an instance, what it reached.
    pub needs: Vec<NeedCheck>,
    /// Per image, per export: the serve entries its source leads to.
    pub exports: PerImage<Vec<Vec<EntryId>>>,
    /// Per image, per startup request: the serve entry that answers it
    /// (none when the request is refused).
    pub startup: PerImage<Vec<Option<EntryId>>>,
    /// Per image: the image flattened, for an image that can run on its own
    /// (no needs of its own, and nothing broken in it).
    pub flat: PerImage<Option<flatten::Flat>>,
}

/// What a need entry of an instance reaches, as the checker resolved it.
#[derive(Clone, Debug, PartialEq)]
pub struct NeedCheck {
    pub image: ImageId,
    pub instance: usize,
    /// The need's entry.
    pub need: EntryId,
    pub outcome: NeedOutcome,
}

#[derive(Clone, Debug, PartialEq)]
pub enum NeedOutcome {
    /// The serve entry it reaches, and whether the way is read-only.
    Reached { serve: EntryId, readonly: bool },
    /// Nothing is mounted at its path.
    NothingMounted,
    /// The target serves nothing at the path (`readonly`: the way there is).
    NothingServed { readonly: bool },
    /// The target serves the path with other verbs only.
    OtherVerbs { readonly: bool },
    /// Something on the way was broken or unknown (reported elsewhere).
    Unresolved,
}

impl Namespace {
    /// Where wire `w` of instance `ii` of image `img` leads (`None` when
    /// the checker did not resolve that image's wires).
    pub fn wire(
        &self,
        img: ImageId,
        ii: usize,
        w: usize,
    ) -> Option<&Result<view::Reached, view::LinkError>> {
        self.wires.get(img)?.get(ii)?.get(w)
    }

    /// The flattened image `id`, if the checker could flatten it.
    pub fn flat(&self, id: ImageId) -> Option<&flatten::Flat> {
        self.flat.get(id).and_then(Option::as_ref)
    }
}

/// Resolves every wire of every image (`broken` images are skipped).
pub fn resolve_wires(tree: &tree::Tree) -> Wires {
    let model: &Model = tree.model;
    PerImage::new(model, |id, img| {
        (0..img.instances.len())
            .map(|ii| {
                if tree.is_broken(id) {
                    vec![Err(view::LinkError::Broken); img.instances[ii].wiring.len()]
                } else {
                    view::resolve_wires(tree, id, ii)
                }
            })
            .collect()
    })
}
