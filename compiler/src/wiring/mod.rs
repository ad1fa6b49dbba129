//! What each instance of an image sees, and through what: the answer of
//! `othc ns`, as data. Everything here is read from what the checker
//! recorded ([`crate::namespace::Namespace`]) or decided by the namespace
//! module's own rule ([`crate::namespace::path::longest`] picks the line a
//! need goes through); nothing resolves a path a second way.
//!
//! `text` prints a report as tables, `dot` as a Graphviz picture; both are
//! pure functions of the data, which is also what `--message-format json`
//! prints.

pub mod bundle;
pub mod dot;
pub mod text;

use std::collections::HashMap;

use serde::Serialize;

use crate::bundle::tree_path;
use crate::check::Compilation;
use crate::model::{EntryId, ImageId, Model, PathPattern, Shape, WireKind};
use crate::namespace::path::longest;
use crate::namespace::tree;
use crate::namespace::view::ReadonlyBy;
use crate::namespace::{NeedOutcome, path};
use crate::source::FileSpan;

/// One image's wiring.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImageWiring {
    pub image: String,
    /// `file:line` of its declaration (empty for a bundle).
    pub declared: String,
    pub instances: Vec<InstanceWiring>,
    /// The image's exports: its own served tree.
    pub exports: Vec<ExportLine>,
    pub startup: Vec<StartupLine>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct InstanceWiring {
    pub name: String,
    /// Its object's or nested image's name.
    pub of: String,
    pub kind: ShapeKind,
    pub declared: String,
    /// Its view, in the order a path is resolved: the longest `at` first
    /// (of equal ones, the last written first).
    pub view: Vec<ViewLine>,
    /// What it serves, as paths of the image's tree.
    pub serves: Vec<String>,
    /// Its needs that nothing in its view meets.
    pub unmet: Vec<String>,
    /// For an instance of a nested image: that image's wiring.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nested: Option<Box<ImageWiring>>,
    /// With a placement ([`place`]): the nodes that run it (none: placed
    /// nowhere). A nested image's instances each say their own.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<Vec<String>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ShapeKind {
    Object,
    Native,
    Image,
    Unknown,
}

/// One place of an instance's view.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ViewLine {
    /// The path in the instance's view.
    pub at: String,
    pub kind: LineKind,
    /// The line as written (`mount /dev/cons /cons`).
    pub line: String,
    /// `file:line` of it.
    pub written: String,
    /// Where it leads; `None` when it leads nowhere (the checker said why).
    pub reaches: Option<Reach>,
    /// The lines that make the way read-only, first to last.
    pub readonly_by: Vec<String>,
    /// The instance's needs that resolve through this line.
    pub used_by: Vec<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineKind {
    Mount,
    Bind,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reach {
    /// The instance reached, or `needs /x` for what the image is given.
    pub target: String,
    /// Its object's name (or the image's, for a need).
    pub of: String,
    /// The path in the target's served tree.
    pub path: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ExportLine {
    pub at: String,
    /// The instance its source names.
    pub target: Option<String>,
    pub line: String,
    pub written: String,
    pub readonly: bool,
    /// The serve entries it exports, as paths of the image's tree.
    pub serves: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct StartupLine {
    pub line: String,
    /// The instance its path names.
    pub target: Option<String>,
    pub written: String,
    /// The serve entry that answers it, if the checker found one.
    pub answered_by: Option<String>,
}

/// A report as one line of JSON (`othc ns --message-format json`).
pub fn json(w: &ImageWiring) -> String {
    // Strings, lists and plain structs only: serialising cannot fail.
    serde_json::to_string(w).unwrap_or_default()
}

/// The wiring of image `img` of a checked program.
pub fn of_image(c: &Compilation, img: ImageId) -> ImageWiring {
    // What each need of each instance reached, looked up once per need:
    // an image of many instances has many needs.
    let mut outcomes = HashMap::new();
    for n in &c.checked.namespace.needs {
        outcomes
            .entry((n.image, n.instance, n.need))
            .or_insert(&n.outcome);
    }
    Report { c, outcomes }.image(img, 0)
}

/// Says which nodes of `placement` run each instance of `w` (a nested
/// image's instances are placed as `outer.inner`).
pub fn place(w: &mut ImageWiring, placement: &crate::placement::Placement) {
    place_under(w, placement, "");
}

fn place_under(w: &mut ImageWiring, placement: &crate::placement::Placement, prefix: &str) {
    for inst in &mut w.instances {
        let name = format!("{prefix}{}", inst.name);
        match &mut inst.nested {
            Some(inner) => place_under(inner, placement, &format!("{name}.")),
            None => {
                let nodes = placement.nodes_of(&name);
                inst.nodes = Some(nodes.into_iter().map(str::to_string).collect());
            }
        }
    }
}

/// How deep nested images are reported (each is also reported on its own
/// with `--image`).
const NESTED: usize = 8;

struct Report<'a> {
    c: &'a Compilation,
    outcomes: HashMap<(ImageId, usize, EntryId), &'a NeedOutcome>,
}

impl Report<'_> {
    fn model(&self) -> &Model {
        &self.c.checked.model
    }

    /// `file:line` of a place.
    fn place(&self, at: FileSpan) -> String {
        let f = self.c.front.sources.get(at.file);
        format!("{}:{}", f.name, f.line_col(at.span.start()).line)
    }

    /// The text at a place, its whitespace runs made one space.
    fn written(&self, at: FileSpan) -> String {
        let text = &self.c.front.sources.get(at.file).text;
        text.get(at.span.range())
            .unwrap_or("")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn image(&self, img: ImageId, depth: usize) -> ImageWiring {
        let model = self.model();
        let def = model.image(img);
        let spans = &self.c.checked.spans.images[img.index()];
        let ns = &self.c.checked.namespace;
        let instances = (0..def.instances.len())
            .map(|ii| self.instance(img, ii, depth))
            .collect();
        let exports = def
            .exports
            .iter()
            .enumerate()
            .map(|(x, e)| ExportLine {
                at: e.at.to_string(),
                target: first_instance(def, &e.from),
                line: self.written(spans.exports[x].whole),
                written: self.place(spans.exports[x].whole),
                readonly: e.readonly,
                serves: ns
                    .exports
                    .get(img)
                    .and_then(|v| v.get(x))
                    .map(|es| es.iter().map(|&s| self.served_text(img, s)).collect())
                    .unwrap_or_default(),
            })
            .collect();
        let startup = spans
            .startup
            .iter()
            .enumerate()
            .map(|(k, s)| StartupLine {
                line: self.written(s.whole),
                target: first_instance(def, &def.startup[k].path),
                written: self.place(s.whole),
                answered_by: ns
                    .startup
                    .get(img)
                    .and_then(|v| v.get(k).copied().flatten())
                    .map(|e| self.served_text(img, e)),
            })
            .collect();
        ImageWiring {
            image: def.name.clone(),
            declared: self.place(spans.name),
            instances,
            exports,
            startup,
        }
    }

    fn instance(&self, img: ImageId, ii: usize, depth: usize) -> InstanceWiring {
        let model = self.model();
        let def = &model.image(img).instances[ii];
        let spans = &self.c.checked.spans.images[img.index()].instances[ii];
        let (of, kind, serves, nested) = match def.of {
            Some(Shape::Object(o)) => {
                let obj = model.object(o);
                let serves = obj
                    .serves
                    .iter()
                    .map(|&e| self.entry_at(Some(&def.name), e))
                    .collect();
                let kind = if obj.native {
                    ShapeKind::Native
                } else {
                    ShapeKind::Object
                };
                (obj.name.clone(), kind, serves, None)
            }
            Some(Shape::Image(j)) => {
                let inner = (depth < NESTED).then(|| Box::new(self.image(j, depth + 1)));
                // A nested image serves what it exports, at its exports' paths.
                let serves = model
                    .image(j)
                    .exports
                    .iter()
                    .map(|x| format!("{} (export)", tree_path(&def.name, &x.at.to_string())))
                    .collect();
                (model.image(j).name.clone(), ShapeKind::Image, serves, inner)
            }
            None => ("?".into(), ShapeKind::Unknown, Vec::new(), None),
        };
        let (mut used_by, unmet) = self.needs_through(img, ii);
        let mut view: Vec<(usize, ViewLine)> = def
            .wiring
            .iter()
            .enumerate()
            .map(|(w, wire)| {
                let sp = &spans.wiring[w];
                (
                    w,
                    ViewLine {
                        at: wire.link.at.to_string(),
                        kind: match wire.kind {
                            WireKind::Mount => LineKind::Mount,
                            WireKind::Bind => LineKind::Bind,
                        },
                        line: self.written(sp.whole),
                        written: self.place(sp.whole),
                        reaches: self.reach(img, ii, w),
                        readonly_by: self.readonly_by(img, ii, w),
                        used_by: std::mem::take(&mut used_by[w]),
                    },
                )
            })
            .collect();
        view.sort_by(|(wa, a), (wb, b)| {
            let (la, lb) = (
                def.wiring[*wa].link.at.segs.len(),
                def.wiring[*wb].link.at.segs.len(),
            );
            lb.cmp(&la).then(wb.cmp(wa)).then(a.at.cmp(&b.at))
        });
        InstanceWiring {
            name: def.name.clone(),
            of,
            kind,
            declared: self.place(spans.name),
            view: view.into_iter().map(|(_, v)| v).collect(),
            serves,
            unmet,
            nested,
            nodes: None,
        }
    }

    /// The needs of instance `ii` of image `img` that go through each line
    /// of its view (by line, as a report writes them), and those nothing
    /// meets.
    fn needs_through(&self, img: ImageId, ii: usize) -> (Vec<Vec<String>>, Vec<String>) {
        let model = self.model();
        let def = &model.image(img).instances[ii];
        let ats: Vec<&[crate::model::Seg]> =
            def.wiring.iter().map(|w| &w.link.at.segs[..]).collect();
        // Which line each need goes through: the view's own rule.
        let through = |full: &PathPattern| {
            longest(ats.iter().enumerate().map(|(w, at)| (*at, w)), &full.segs).map(|(w, _)| w)
        };
        let mut used_by: Vec<Vec<String>> = vec![Vec::new(); def.wiring.len()];
        let mut unmet = Vec::new();
        for (need, full, outcome, pattern) in &self.needs_of(img, ii) {
            let text = need_text(model, full, *need);
            match (through(full), outcome) {
                (Some(w), Some(NeedOutcome::Reached { .. })) => used_by[w].push(text),
                // A need at a pattern mount point sends anywhere under its
                // prefix: each request is checked when it is sent.
                (Some(w), None) if *pattern => {
                    used_by[w].push(format!("{text} (checked when sent)"))
                }
                (None, None) if *pattern => {}
                (Some(w), _) => {
                    used_by[w].push(format!("{text} (not met)"));
                    unmet.push(text);
                }
                (None, _) => unmet.push(text),
            }
        }
        (used_by, unmet)
    }

    /// Each need entry of instance `ii`: its id, its full path in the
    /// instance's view, what the checker found it reaches, and whether its
    /// mount point is a pattern (checked when sent).
    fn needs_of(
        &self,
        img: ImageId,
        ii: usize,
    ) -> Vec<(EntryId, PathPattern, Option<NeedOutcome>, bool)> {
        let model = self.model();
        let blocks = match model.image(img).instances[ii].of {
            Some(Shape::Object(o)) => &model.object(o).needs,
            Some(Shape::Image(j)) => &model.image(j).needs,
            None => return Vec::new(),
        };
        blocks
            .iter()
            .flat_map(|b| b.entries.iter().map(move |&e| (b, e)))
            .map(|(b, e)| {
                let outcome = self.outcomes.get(&(img, ii, e)).map(|&o| o.clone());
                let pattern = !b.mount.is_concrete();
                (e, b.mount.join(&model.entry(e).path.segs), outcome, pattern)
            })
            .collect()
    }

    fn reach(&self, img: ImageId, ii: usize, w: usize) -> Option<Reach> {
        let model = self.model();
        let reached = self.c.checked.namespace.wire(img, ii, w)?.as_ref().ok()?;
        let path = path::text(&reached.path);
        Some(match reached.target {
            tree::Target::Instance(ti, tii) => {
                let inst = &model.image(ti).instances[tii];
                Reach {
                    target: inst.name.clone(),
                    of: model.shape_name(inst.of).to_string(),
                    path,
                }
            }
            tree::Target::Need(ti, n) => Reach {
                target: format!("needs {}", model.image(ti).needs[n].mount),
                of: model.image(ti).name.clone(),
                path,
            },
        })
    }

    fn readonly_by(&self, img: ImageId, ii: usize, w: usize) -> Vec<String> {
        let Some(Ok(reached)) = self.c.checked.namespace.wire(img, ii, w) else {
            return Vec::new();
        };
        let spans = &self.c.checked.spans.images;
        reached
            .readonly
            .iter()
            .map(|r| {
                let at = match *r {
                    ReadonlyBy::Wire(i, k, x) => spans[i.index()].instances[k].wiring[x].whole,
                    ReadonlyBy::Export(i, x) => spans[i.index()].exports[x].whole,
                };
                format!("{} ({})", self.written(at), self.place(at))
            })
            .collect()
    }

    /// A serve entry as a path of image `img`'s tree, with its verb and
    /// types: the instance (or image-level need) holding it comes first.
    fn served_text(&self, img: ImageId, e: EntryId) -> String {
        let model = self.model();
        match find_holder(model, img, e) {
            Some(holder) => self.entry_at(Some(&holder), e),
            // Inside a nested image: said with the object that serves it.
            None => {
                let owner = model.server_of(e).map_or("?", |o| o.name.as_str());
                format!("{} of {owner}", self.entry_at(None, e))
            }
        }
    }

    /// An entry with its verb and types, at its path in the image's tree
    /// under `holder` (an instance's name, or a need's mount without its
    /// first `/`), or at its own path.
    fn entry_at(&self, holder: Option<&str>, e: EntryId) -> String {
        let model = self.model();
        let path = model.entry(e).path.to_string();
        let full = match holder {
            Some(h) => tree_path(h, &path),
            None => path,
        };
        format!("{full} {}", entry_rest(model, e))
    }
}

/// Where image `img` holds the entry `e`: the name of the instance whose
/// object serves it, or the mount (without its first `/`) of the need
/// block declaring it.
fn find_holder(model: &Model, img: ImageId, e: EntryId) -> Option<String> {
    let def = model.image(img);
    let by_instance = def.instances.iter().find_map(|inst| match inst.of {
        Some(Shape::Object(o)) if model.object(o).serves.contains(&e) => Some(inst.name.clone()),
        _ => None,
    });
    by_instance.or_else(|| {
        def.needs
            .iter()
            .find(|n| n.entries.contains(&e))
            .map(|n| n.mount.to_string().trim_start_matches('/').to_string())
    })
}

/// The instance of `img` a path of its tree starts with.
fn first_instance(img: &crate::model::ImageDef, p: &PathPattern) -> Option<String> {
    let Some(crate::model::Seg::Literal(first)) = p.segs.first() else {
        return None;
    };
    img.instances
        .iter()
        .any(|i| &i.name == first)
        .then(|| first.clone())
}

/// An entry's verb and types, without its path (`write Greeting`).
fn entry_rest(model: &Model, e: EntryId) -> String {
    let line = crate::sections::entry_text(model, model.entry(e));
    let line = line.trim();
    let rest = line
        .split_once(char::is_whitespace)
        .map_or("", |(_, r)| r.trim());
    rest.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A need entry at its full path: `/dev/cons watch -> text/plain*`.
fn need_text(model: &Model, full: &PathPattern, e: EntryId) -> String {
    format!("{full} {}", entry_rest(model, e))
}
