//! An image's tree: `/INSTANCE/...` for each instance, and each image-level
//! need's mount point. Mount, export and startup paths name places in it.

use std::collections::HashMap;

use super::path::{reaches_under, strip_prefix};
use super::{Limit, MAX_DEPTH};
use crate::model::{EntryId, ImageId, Model, Seg, Shape};

/// What a place in an image tree is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// An instance's served tree: instance `.1` of image `.0`.
    Instance(ImageId, usize),
    /// What an image-level `needs` block (`.1`) stands for: whatever the
    /// enclosing image mounts there.
    Need(ImageId, usize),
}

/// Why a path names nothing in an image tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeMiss {
    /// Its first segment is no instance and no need's mount point.
    Unknown(String),
    /// `/`: the whole tree, not something in it.
    Root,
}

/// The model, with what the namespace rules look up often.
pub struct Tree<'m> {
    pub model: &'m Model,
    /// Per image: its instances by name (the first of a name; E0204 reported the rest).
    by_name: Vec<HashMap<&'m str, usize>>,
    /// Images that are not looked into: they instantiate themselves
    /// (E0517) or nest deeper than the limit.
    pub broken: Vec<bool>,
}

impl<'m> Tree<'m> {
    pub fn new(model: &'m Model, broken: Vec<bool>) -> Tree<'m> {
        let by_name = model
            .images
            .iter()
            .map(|img| {
                let mut m = HashMap::with_capacity(img.instances.len());
                for (i, inst) in img.instances.iter().enumerate() {
                    m.entry(inst.name.as_str()).or_insert(i);
                }
                m
            })
            .collect();
        Tree {
            model,
            by_name,
            broken,
        }
    }

    pub fn is_broken(&self, img: ImageId) -> bool {
        self.broken.get(img.index()).copied().unwrap_or(false)
    }

    /// Resolves a concrete path of image `img`'s tree: `/INSTANCE/...`, or
    /// under one of its `needs` mount points (the longest).
    pub fn resolve(&self, img: ImageId, path: &[Seg]) -> Result<(Target, Vec<Seg>), TreeMiss> {
        let def = self.model.image(img);
        if let Some(Seg::Literal(first)) = path.first()
            && let Some(&i) = self.by_name[img.index()].get(first.as_str())
        {
            return Ok((Target::Instance(img, i), path[1..].to_vec()));
        }
        let best = def
            .needs
            .iter()
            .enumerate()
            .filter(|(_, b)| !b.mount.segs.is_empty())
            .filter_map(|(n, b)| {
                strip_prefix(path, &b.mount.segs).map(|rest| (n, rest, b.mount.segs.len()))
            })
            .max_by_key(|(_, _, len)| *len);
        if let Some((n, rest, _)) = best {
            return Ok((Target::Need(img, n), rest.to_vec()));
        }
        Err(match path.first() {
            Some(Seg::Literal(first)) => TreeMiss::Unknown(first.clone()),
            _ => TreeMiss::Root,
        })
    }

    /// The names at the top of an image's tree: its instances, and the
    /// first segments of its needs' mount points.
    pub fn names(&self, img: ImageId) -> Vec<String> {
        let def = self.model.image(img);
        def.instances
            .iter()
            .map(|i| i.name.clone())
            .chain(def.needs.iter().filter_map(|n| match n.mount.segs.first() {
                Some(Seg::Literal(l)) => Some(l.clone()),
                _ => None,
            }))
            .collect()
    }

    /// The entries a target answers with, when it is an object or a need
    /// (`None` for a nested image, which answers through its exports, or an
    /// instance whose object did not resolve).
    pub fn entries(&self, t: Target) -> Option<&'m [EntryId]> {
        let model = self.model;
        match t {
            Target::Need(img, n) => Some(&model.image(img).needs[n].entries),
            Target::Instance(img, i) => match model.image(img).instances[i].of {
                Some(Shape::Object(o)) => Some(&model.object(o).serves),
                _ => None,
            },
        }
    }

    /// Whether anything is served at or under `rest` of a target: what a
    /// mount or export source must point at. Unknowns count as served (they
    /// were reported where they are).
    pub fn anything_under(
        &self,
        target: Target,
        rest: &[Seg],
        depth: usize,
    ) -> Result<bool, Limit> {
        let served = self.served_under(target, rest, depth)?;
        Ok(served.unknown || !served.entries.is_empty())
    }

    /// The serve entries at or under `rest` of a target, following nested
    /// images' exports: what an export's source leads to.
    pub fn served_under(
        &self,
        target: Target,
        rest: &[Seg],
        depth: usize,
    ) -> Result<Served, Limit> {
        let mut out = Served::default();
        self.collect_under(target, rest, depth, &mut out)?;
        Ok(out)
    }

    fn collect_under(
        &self,
        target: Target,
        rest: &[Seg],
        depth: usize,
        out: &mut Served,
    ) -> Result<(), Limit> {
        if depth > MAX_DEPTH {
            return Err(Limit);
        }
        let model = self.model;
        if let Some(entries) = self.entries(target) {
            out.entries.extend(
                entries
                    .iter()
                    .filter(|e| reaches_under(&model.entry(**e).path.segs, rest)),
            );
            return Ok(());
        }
        let Target::Instance(img, i) = target else {
            out.unknown = true;
            return Ok(());
        };
        let Some(Shape::Image(j)) = model.image(img).instances[i].of else {
            out.unknown = true;
            return Ok(());
        };
        if self.is_broken(j) {
            out.unknown = true;
            return Ok(());
        }
        for e in &model.image(j).exports {
            // An export at or under `rest` puts something there whatever
            // its source serves (an export that serves nothing is reported
            // on its own line); one above `rest` serves what its source
            // serves under the rest of the path.
            let (r, there_anyway) = if strip_prefix(&e.at.segs, rest).is_some() {
                (&[][..], true)
            } else if let Some(r) = strip_prefix(rest, &e.at.segs) {
                (r, false)
            } else {
                continue;
            };
            let before = out.entries.len();
            match self.resolve(j, &e.from.join(r).segs) {
                Ok((t, r2)) => self.collect_under(t, &r2, depth + 1, out)?,
                Err(_) => out.unknown = true,
            }
            if there_anyway && out.entries.len() == before {
                out.unknown = true;
            }
        }
        Ok(())
    }

    /// Where `path` of nested image `j`'s served tree leads: through the
    /// export with the longest `at` that is a prefix of it, the export's
    /// index and its source in `j`'s tree with the rest of the path.
    pub fn through_export(
        &self,
        j: ImageId,
        path: &[Seg],
    ) -> Result<(usize, Target, Vec<Seg>), ExportMiss> {
        let exports = self.model.image(j).exports.iter();
        let links = exports
            .enumerate()
            .map(|(ei, e)| (e.at.segs.as_slice(), ei));
        let (ei, rest) = super::path::longest(links, path).ok_or(ExportMiss::NoExport)?;
        let e = &self.model.image(j).exports[ei];
        let (target, mut there) = self
            .resolve(j, &e.from.segs)
            .map_err(|_| ExportMiss::SourceNamesNothing(ei))?;
        there.extend_from_slice(rest);
        Ok((ei, target, there))
    }
}

/// What is served at or under a path: the entries, and whether something
/// on the way was unknown (reported where it is).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Served {
    pub entries: Vec<EntryId>,
    pub unknown: bool,
}

/// Why a path of a nested image's served tree leads nowhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExportMiss {
    /// No export covers it.
    NoExport,
    /// The export that covers it (this one) names nothing (reported).
    SourceNamesNothing(usize),
}
