//! Flattening an image for running it: nested images' instances become
//! instances of the one image, named `outer.inner`, and every link is
//! followed to an object's instance. A nested image's path leads through
//! its export there; an image-level need leads to whatever the enclosing
//! image's instance has at that place in its view. The links themselves
//! are the ones the checker resolved (`view`); this only joins them up.

use super::tree::{ExportMiss, Target, Tree};
use super::view::{Reached, view};
use super::{MAX_DEPTH, Wires};
use crate::model::{EntryId, ImageId, Model, ObjectId, PathPattern, Seg, Shape};

/// A place in the flattened image: `at` leads to `path` in the served tree
/// of instance `target`.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatLink {
    pub at: PathPattern,
    pub target: String,
    pub path: PathPattern,
    pub readonly: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlatInstance {
    /// `outer.inner` for an instance of a nested image.
    pub name: String,
    /// Where it is declared: instance `.1` of image `.0`.
    pub decl: (ImageId, usize),
    /// Its view: one link per place.
    pub view: Vec<FlatLink>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct FlatStartup {
    /// Startup request `.1` of image `.0`.
    pub decl: (ImageId, usize),
    pub target: String,
    pub path: PathPattern,
}

/// An image, flattened: what a bundle holds, less the modules and payloads.
#[derive(Clone, Debug, PartialEq)]
pub struct Flat {
    pub instances: Vec<FlatInstance>,
    pub exports: Vec<FlatLink>,
    /// Inner images' first: they configure what the outer ones use.
    pub startup: Vec<FlatStartup>,
}

impl Flat {
    /// Where a request from outside to `path` enters the image: the export
    /// whose `at` is the longest prefix of it (the one rule of every view,
    /// `path::longest`), and the rest of the path.
    pub fn export_for<'a>(&'a self, path: &'a [Seg]) -> Option<(&'a FlatLink, &'a [Seg])> {
        super::path::longest(self.exports.iter().map(|l| (l.at.segs.as_slice(), l)), path)
    }

    /// The object instance `name` of the flattened image is, if it is one.
    pub fn object_of(&self, model: &Model, name: &str) -> Option<ObjectId> {
        let inst = self.instances.iter().find(|i| i.name == name)?;
        let (img, i) = inst.decl;
        match model.image(img).instances[i].of {
            Some(Shape::Object(o)) => Some(o),
            _ => None,
        }
    }

    /// Each serves entry the image exports: each entry of an exported
    /// instance under an export's path, at its path in the image's served
    /// tree, with whether the way there is read-only.
    pub fn exported_entries(&self, model: &Model) -> Vec<ExportedEntry> {
        let mut out = Vec::new();
        for link in &self.exports {
            let Some(o) = self.object_of(model, &link.target) else {
                continue;
            };
            for &e in &model.object(o).serves {
                let segs = &model.entry(e).path.segs;
                let Some(rest) = super::path::strip_prefix(segs, &link.path.segs) else {
                    continue;
                };
                out.push(ExportedEntry {
                    entry: e,
                    pattern: link.at.join(rest),
                    readonly: link.readonly,
                });
            }
        }
        out
    }
}

/// A serves entry as an image exports it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportedEntry {
    pub entry: EntryId,
    /// Its pattern in the image's served tree.
    pub pattern: PathPattern,
    /// Whether the way to it is read-only (unsafe verbs are refused).
    pub readonly: bool,
}

/// Why an image cannot be flattened.
#[derive(Clone, Debug, PartialEq)]
pub struct FlatError {
    /// The instance whose view could not be followed (instance `.1` of
    /// image `.0`), if it is one.
    pub at: Option<(ImageId, usize)>,
    pub too_deep: bool,
    pub message: String,
}

struct Frame {
    img: ImageId,
    prefix: String,
    /// The frame holding the instance this image is, and that instance.
    parent: Option<(usize, usize)>,
}

struct Flattener<'a, 'm> {
    tree: &'a Tree<'m>,
    wires: &'a Wires,
    frames: Vec<Frame>,
}

type Grounded = (String, Vec<Seg>, bool);

impl Flattener<'_, '_> {
    fn error(&self, at: Option<(usize, usize)>, too_deep: bool, message: String) -> FlatError {
        FlatError {
            at: at.map(|(f, i)| (self.frames[f].img, i)),
            too_deep,
            message,
        }
    }

    /// Follows `target`/`path` of frame `f`'s image to an object's instance.
    fn ground(
        &self,
        f: usize,
        target: Target,
        path: Vec<Seg>,
        readonly: bool,
        depth: usize,
    ) -> Result<Grounded, FlatError> {
        if depth > MAX_DEPTH {
            return Err(self.error(
                None,
                true,
                format!("its paths lead more than {MAX_DEPTH} links deep, or round in a circle"),
            ));
        }
        let model = self.tree.model;
        let frame = &self.frames[f];
        match target {
            Target::Instance(img, k) => {
                let inst = &model.image(img).instances[k];
                match inst.of {
                    Some(Shape::Object(_)) => {
                        Ok((format!("{}{}", frame.prefix, inst.name), path, readonly))
                    }
                    Some(Shape::Image(j)) => {
                        let child = self
                            .frames
                            .iter()
                            .position(|fr| fr.parent == Some((f, k)))
                            .ok_or_else(|| {
                                self.error(None, false, "a nested image was not opened".into())
                            })?;
                        let def = model.image(j);
                        let (ei, t, there) =
                            self.tree.through_export(j, &path).map_err(|miss| {
                                let message = match miss {
                                    ExportMiss::NoExport => format!(
                                        "image `{}` exports nothing at `{}`",
                                        def.name,
                                        PathPattern { segs: path.clone() }
                                    ),
                                    ExportMiss::SourceNamesNothing(ei) => format!(
                                        "export `{}` of image `{}` names nothing",
                                        def.exports[ei].at, def.name
                                    ),
                                };
                                self.error(None, false, message)
                            })?;
                        let e = &def.exports[ei];
                        self.ground(child, t, there, readonly || e.readonly, depth + 1)
                    }
                    None => Err(self.error(
                        None,
                        false,
                        format!("instance `{}` names nothing", inst.name),
                    )),
                }
            }
            Target::Need(img, n) => {
                let need = &model.image(img).needs[n];
                let Some((pf, pi)) = frame.parent else {
                    return Err(self.error(None, false, format!(
                        "image `{}` needs `{}` of whatever runs it: run it inside another image",
                        model.image(img).name,
                        need.mount
                    )));
                };
                let full = need.mount.join(&path);
                let r = self.view_of(pf, pi, &full.segs)?;
                self.ground(
                    pf,
                    r.target,
                    r.path,
                    readonly || !r.readonly.is_empty(),
                    depth + 1,
                )
            }
        }
    }

    /// What `path` leads to in the view of instance `i` of frame `f`.
    fn view_of(&self, f: usize, i: usize, path: &[Seg]) -> Result<Reached, FlatError> {
        let img = self.frames[f].img;
        let inst = &self.tree.model.image(img).instances[i];
        view(self.tree, self.wires, img, i, path).map_err(|_| {
            self.error(
                Some((f, i)),
                false,
                format!(
                    "nothing is mounted at `{}` for `{}`",
                    PathPattern {
                        segs: path.to_vec()
                    },
                    inst.name
                ),
            )
        })
    }

    /// Makes a frame for each nested image, depth first.
    fn open(&mut self, f: usize, depth: usize) -> Result<(), FlatError> {
        if depth > MAX_DEPTH {
            return Err(self.error(
                None,
                true,
                format!("images nest more than {MAX_DEPTH} deep"),
            ));
        }
        let img = self.tree.model.image(self.frames[f].img);
        for (i, inst) in img.instances.iter().enumerate() {
            if let Some(Shape::Image(j)) = inst.of {
                let prefix = format!("{}{}.", self.frames[f].prefix, inst.name);
                self.frames.push(Frame {
                    img: j,
                    prefix,
                    parent: Some((f, i)),
                });
                let child = self.frames.len() - 1;
                self.open(child, depth + 1)?;
            }
        }
        Ok(())
    }
}

impl Flattener<'_, '_> {
    /// The view of instance `i` of frame `f`'s image, each link grounded
    /// at an instance of the flattened image (a later mount or bind at the
    /// same place replaces an earlier one).
    fn links_of(&self, f: usize, i: usize) -> Result<Vec<FlatLink>, FlatError> {
        let img_id = self.frames[f].img;
        let inst = &self.tree.model.image(img_id).instances[i];
        let mut links = Vec::new();
        for (k, w) in inst.wiring.iter().enumerate() {
            if inst.wiring[k + 1..].iter().any(|x| x.link.at == w.link.at) {
                continue;
            }
            let Ok(r) = &self.wires[img_id][i][k] else {
                let kind = match w.kind {
                    crate::model::WireKind::Mount => "mount",
                    crate::model::WireKind::Bind => "bind",
                };
                let why = format!(
                    "the {kind} at `{}` of `{}` leads nowhere",
                    w.link.at, inst.name
                );
                return Err(self.error(Some((f, i)), false, why));
            };
            let ro = !r.readonly.is_empty();
            let (target, path, readonly) = self
                .ground(f, r.target, r.path.clone(), ro, 0)
                .map_err(|e| FlatError {
                    at: e.at.or(Some((img_id, i))),
                    ..e
                })?;
            links.push(FlatLink {
                at: w.link.at.clone(),
                target,
                path: PathPattern { segs: path },
                readonly,
            });
        }
        Ok(links)
    }
}

/// Flattens image `id`, whose links (and its nested images') are `wires`.
pub fn flatten(tree: &Tree, wires: &Wires, id: ImageId) -> Result<Flat, FlatError> {
    let mut fl = Flattener {
        tree,
        wires,
        frames: vec![Frame {
            img: id,
            prefix: String::new(),
            parent: None,
        }],
    };
    fl.open(0, 0)?;
    let model = tree.model;
    let mut instances = Vec::new();
    let mut startup = Vec::new();
    // Inner images first: their startup requests configure what the outer ones use.
    for f in (0..fl.frames.len()).rev() {
        let img_id = fl.frames[f].img;
        let img = model.image(img_id);
        for (i, inst) in img.instances.iter().enumerate() {
            if let Some(Shape::Image(_)) = inst.of {
                continue;
            }
            let links = fl.links_of(f, i)?;
            instances.push(FlatInstance {
                name: format!("{}{}", fl.frames[f].prefix, inst.name),
                decl: (img_id, i),
                view: links,
            });
        }
        for (si, s) in img.startup.iter().enumerate() {
            let (t, p) = tree.resolve(img_id, &s.path.segs).map_err(|_| {
                fl.error(
                    None,
                    false,
                    format!("startup request path `{}` names nothing", s.path),
                )
            })?;
            let (target, path, _) = fl.ground(f, t, p, false, 0)?;
            startup.push(FlatStartup {
                decl: (img_id, si),
                target,
                path: PathPattern { segs: path },
            });
        }
    }
    // Declaration order of the outermost image first, as people read it.
    // (Positions looked up in a map: a search of the list per comparison
    // made an image of 10,000 instances take seconds.)
    let top = model.image(id);
    let mut position: std::collections::HashMap<&str, usize> =
        std::collections::HashMap::with_capacity(top.instances.len());
    for (i, x) in top.instances.iter().enumerate() {
        position.entry(x.name.as_str()).or_insert(i);
    }
    instances.sort_by_cached_key(|i: &FlatInstance| {
        let first = i.name.split('.').next().unwrap_or("");
        position.get(first).copied().unwrap_or(usize::MAX)
    });
    let mut exports = Vec::new();
    for e in &top.exports {
        let (t, p) = tree
            .resolve(id, &e.from.segs)
            .map_err(|_| fl.error(None, false, format!("export `{}` names nothing", e.at)))?;
        let (target, path, ro) = fl.ground(0, t, p, e.readonly, 0)?;
        exports.push(FlatLink {
            at: e.at.clone(),
            target,
            path: PathPattern { segs: path },
            readonly: ro,
        });
    }
    Ok(Flat {
        instances,
        exports,
        startup,
    })
}
