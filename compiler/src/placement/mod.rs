//! Placement: which node of a cluster runs which instances of an image
//! (book: reference/cluster.md, "Placement"). A placement file is a few
//! lines of text:
//!
//! ```text
//! # Where the instances of Site run.
//! image Site
//! node front: web, server, public
//! node pages: site
//! node pages2: site
//! ```
//!
//! It is parsed here ([`parse`]), checked against the image it names
//! ([`check`]) as the checker flattened it or as a bundle holds it (both
//! read as a [`PlacedImage`]), and read by `othc check`, `othc ns` and the
//! runtime (`othismo-run --placement FILE --node NAME`).

mod errors;
mod image;
mod parse;
mod rules;

pub use errors::{PlacementError, Twice};
pub use image::{Placeable, PlacedImage};
pub use parse::parse;
pub use rules::check;

use crate::source::FileSpan;

/// A name as written in a placement file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Named {
    pub name: String,
    pub at: FileSpan,
}

/// `node NAME: INSTANCE, ...`
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeDecl {
    pub name: Named,
    pub instances: Vec<Named>,
    /// Just after the last instance named: where another one is added.
    pub list_end: FileSpan,
}

/// A placement file, parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// `image NAME`: the image it places.
    pub image: Option<Named>,
    pub nodes: Vec<NodeDecl>,
    /// The start of the file: where a missing `image` line goes.
    pub start: FileSpan,
    /// Every line was understood: a line that was not may have named any
    /// instance, so none is said to be placed nowhere.
    pub complete: bool,
}

impl Placement {
    /// The node declared as `name`.
    pub fn node(&self, name: &str) -> Option<&NodeDecl> {
        self.nodes.iter().find(|n| n.name.name == name)
    }

    /// The nodes that run `instance`, in the file's order.
    pub fn nodes_of(&self, instance: &str) -> Vec<&str> {
        self.nodes
            .iter()
            .filter(|n| n.instances.iter().any(|i| i.name == instance))
            .map(|n| n.name.name.as_str())
            .collect()
    }

    /// The names of the nodes, in the file's order.
    pub fn node_names(&self) -> Vec<&str> {
        self.nodes.iter().map(|n| n.name.name.as_str()).collect()
    }
}

/// Parses and checks placement `text` (named `name`, added to `sources`)
/// against `image`, reporting into `diags`: what a runtime does with the
/// bundle's image. The placement comes back also when it has errors.
pub fn check_text(
    sources: &mut crate::source::SourceMap,
    diags: &mut crate::Diagnostics,
    name: String,
    text: String,
    image: &PlacedImage,
) -> Placement {
    let file = sources.add(name, text);
    let (placement, errors) = parse(file, &sources.get(file).text);
    for e in errors.into_iter().chain(check(&placement, image)) {
        diags.report(e);
    }
    placement
}

/// Parses placement `text` and checks it against the image of `c` it
/// names (one the files on the command line declare, or import),
/// reporting into `c`'s diagnostics: what `othc check` and `othc ns` do.
/// The placement and the image, when it names one.
pub fn check_in(
    c: &mut crate::Compilation,
    name: String,
    text: String,
) -> (Placement, Option<crate::model::ImageId>) {
    let file = c.front.sources.add(name, text);
    let (placement, errors) = parse(file, &c.front.sources.get(file).text);
    for e in errors {
        c.front.diags.report(e);
    }
    // The images of the files named first, then those they import.
    let model = &c.checked.model;
    let mut images = c.root_images();
    for k in 0..model.images.len() {
        let id = crate::model::ImageId(k as u32);
        if !images.contains(&id) {
            images.push(id);
        }
    }
    let names: Vec<String> = images
        .iter()
        .map(|&i| model.image(i).name.clone())
        .collect();
    let Some(wanted) = &placement.image else {
        let roots = c.root_images().len();
        c.front.diags.report(PlacementError::NoImageLine {
            at: placement.start,
            images: names[..roots].to_vec(),
        });
        return (placement, None);
    };
    let Some(k) = names.iter().position(|n| *n == wanted.name) else {
        c.front.diags.report(PlacementError::UnknownImage {
            at: wanted.at,
            name: wanted.name.clone(),
            images: names,
        });
        return (placement, None);
    };
    let roots = images;
    // An image that did not check has no flattened form: its own errors
    // say why, and the placement is checked once they are fixed.
    if let Some(image) = PlacedImage::of_checked(&c.checked, roots[k]) {
        for e in check(&placement, &image) {
            c.front.diags.report(e);
        }
    }
    (placement, Some(roots[k]))
}
