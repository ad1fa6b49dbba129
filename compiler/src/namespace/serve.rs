//! What answers a request that has reached a place in an image tree: an
//! object's serves entry (chosen by `route`), or, for a nested image,
//! whatever its export at that path leads to. Inside a nested image, its
//! own needs lead back out through the enclosing instance's view, as they
//! will at run time; only at the top of the lookup does an image-level need
//! stand for its declared entries (the contract the image is checked
//! against on its own).

use super::route::{Route, select};
use super::tree::{ExportMiss, Target, Tree};
use super::view::{ReadonlyBy, view};
use super::{Limit, MAX_DEPTH, Wires};
use crate::model::{EntryId, ImageId, ObjectId, Seg, Shape, Verb};

/// Who holds the entries a lookup looked at (for messages and labels).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    Object(ObjectId),
    /// Image-level need `.1` of image `.0`.
    Need(ImageId, usize),
    /// A nested image with no export at the path.
    Image(ImageId),
}

/// What answers `verb path` at a target.
#[derive(Clone, Debug, PartialEq)]
pub enum Found {
    Entry {
        entry: EntryId,
        /// Read-only exports on the way.
        readonly: Vec<ReadonlyBy>,
    },
    /// Something on the way names nothing known (reported already).
    Unresolved,
    /// The path is served, but not with this verb (read-only exports on
    /// the way last).
    OtherVerbs(Vec<Verb>, Holder, Vec<ReadonlyBy>),
    Nothing(Holder, Vec<ReadonlyBy>),
}

/// Looks up `verb path` at `target`, with the wires the checker resolved.
pub fn lookup(
    tree: &Tree,
    wires: &Wires,
    target: Target,
    path: &[Seg],
    verb: Verb,
) -> Result<Found, Limit> {
    let mut lookup = Lookup {
        tree,
        wires,
        verb,
        ctx: Vec::new(),
    };
    lookup.at(target, path.to_vec(), 0)
}

/// One lookup of a verb, as it goes in and out of nested images.
struct Lookup<'a, 'm> {
    tree: &'a Tree<'m>,
    wires: &'a Wires,
    verb: Verb,
    /// The nested images' instances the lookup went into, innermost last.
    ctx: Vec<(ImageId, usize)>,
}

impl Lookup<'_, '_> {
    fn at(&mut self, target: Target, path: Vec<Seg>, depth: usize) -> Result<Found, Limit> {
        if depth > MAX_DEPTH {
            return Err(Limit);
        }
        let (tree, model) = (self.tree, self.tree.model);
        let holder = match target {
            Target::Need(img, n) => {
                if let Some(&(pimg, pi)) = self.ctx.last()
                    && model.image(pimg).instances[pi].of == Some(Shape::Image(img))
                {
                    // Out through the enclosing instance's view.
                    let full = model.image(img).needs[n].mount.join(&path);
                    let Ok(r) = view(tree, self.wires, pimg, pi, &full.segs) else {
                        return Ok(Found::Unresolved);
                    };
                    self.ctx.pop();
                    let mut found = self.at(r.target, r.path, depth + 1)?;
                    self.ctx.push((pimg, pi));
                    if let Found::Entry { readonly, .. }
                    | Found::OtherVerbs(_, _, readonly)
                    | Found::Nothing(_, readonly) = &mut found
                    {
                        readonly.splice(0..0, r.readonly);
                    }
                    return Ok(found);
                }
                Holder::Need(img, n)
            }
            Target::Instance(img, i) => match model.image(img).instances[i].of {
                None => return Ok(Found::Unresolved),
                Some(Shape::Object(o)) => Holder::Object(o),
                Some(Shape::Image(j)) => {
                    if tree.is_broken(j) {
                        return Ok(Found::Unresolved);
                    }
                    self.ctx.push((img, i));
                    let found = self.exports(j, &path, depth);
                    self.ctx.pop();
                    return found;
                }
            },
        };
        let entries = tree.entries(target).unwrap_or(&[]);
        Ok(match select(model, entries, self.verb, &path) {
            Route::Entry(entry) => Found::Entry {
                entry,
                readonly: Vec::new(),
            },
            Route::OtherVerbs(vs) => Found::OtherVerbs(vs, holder, Vec::new()),
            Route::Nothing => Found::Nothing(holder, Vec::new()),
        })
    }

    /// A path of a nested image's served tree: through its exports.
    fn exports(&mut self, j: ImageId, path: &[Seg], depth: usize) -> Result<Found, Limit> {
        let (ei, target, there) = match self.tree.through_export(j, path) {
            Ok(x) => x,
            Err(ExportMiss::NoExport) => {
                return Ok(Found::Nothing(Holder::Image(j), Vec::new()));
            }
            Err(ExportMiss::SourceNamesNothing(_)) => return Ok(Found::Unresolved),
        };
        let e = &self.tree.model.image(j).exports[ei];
        let mut found = self.at(target, there, depth + 1)?;
        if e.readonly
            && let Found::Entry { readonly, .. }
            | Found::OtherVerbs(_, _, readonly)
            | Found::Nothing(_, readonly) = &mut found
        {
            readonly.push(ReadonlyBy::Export(j, ei));
        }
        Ok(found)
    }
}
