//! What can be wrong with a placement, as data; its wording in one place,
//! `to_diagnostic`.

use crate::diagnostics::suggest::closest;
use crate::diagnostics::wording::quote_list;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::natives::Native;
use crate::source::FileSpan;

/// What a line was expected to hold where it held something else.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Expected {
    /// A line's first word.
    Line,
    ImageName,
    NodeName,
    Colon,
    InstanceName,
    CommaOrEnd,
    LineEnd,
}

impl Expected {
    fn text(self) -> &'static str {
        match self {
            Expected::Line => "`image NAME` or `node NAME: INSTANCE, ...`",
            Expected::ImageName => "the image's name after `image`",
            Expected::NodeName => "the node's name after `node`",
            Expected::Colon => "`:` after the node's name",
            Expected::InstanceName => "an instance's name",
            Expected::CommaOrEnd => "`,` or the end of the line",
            Expected::LineEnd => "the end of the line",
        }
    }
}

/// What a placement names twice.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Twice {
    Image,
    Node,
    /// An instance twice on one node.
    Instance {
        node: String,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum PlacementError {
    /// E0801: a line that is not one of the placement's.
    Malformed {
        at: FileSpan,
        /// What was there (empty: the line ended).
        found: String,
        expected: Expected,
    },
    /// E0801: no `node` line.
    NoNodes { at: FileSpan },
    /// E0801: no `image` line.
    NoImageLine { at: FileSpan, images: Vec<String> },
    /// E0802: `image NAME` names no image there is.
    UnknownImage {
        at: FileSpan,
        name: String,
        images: Vec<String>,
    },
    /// E0802: a node names no instance of the image.
    UnknownInstance {
        at: FileSpan,
        name: String,
        image: String,
        instances: Vec<String>,
    },
    /// E0803: an instance of the image on no node.
    PlacedNowhere {
        instance: String,
        image: String,
        /// The `image` line.
        image_at: FileSpan,
        declared: Option<FileSpan>,
        /// The first node, and where an instance is added to it.
        first_node: Option<(String, FileSpan)>,
    },
    /// E0804: something named twice.
    Twice {
        what: Twice,
        name: String,
        at: FileSpan,
        first: FileSpan,
    },
    /// E0805: an instance that only one node may run, on several.
    OneNodeOnly {
        instance: String,
        native: Native,
        listen: Option<String>,
        /// Each node it is placed on, and where it is named there.
        places: Vec<(String, FileSpan)>,
        declared: Option<FileSpan>,
    },
}

impl ToDiagnostic for PlacementError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            PlacementError::Malformed {
                at,
                found,
                expected,
            } => {
                let message = if found.is_empty() {
                    format!("expected {}, but the line ends", expected.text())
                } else {
                    format!("expected {}, found `{found}`", expected.text())
                };
                Diagnostic::new(Code::E0801, message, Label::at(*at, "not understood")).with_help(
                    "a placement has an `image NAME` line and `node NAME: INSTANCE, ...` lines; \
                         `#` starts a comment",
                )
            }
            PlacementError::NoNodes { at } => Diagnostic::new(
                Code::E0801,
                "the placement places nothing: it has no `node` line",
                Label::at(*at, "the file ends here"),
            )
            .with_help("add a line per node: `node NAME: INSTANCE, ...`"),
            PlacementError::NoImageLine { at, images } => {
                let d = Diagnostic::new(
                    Code::E0801,
                    "the placement names no image: it has no `image NAME` line",
                    Label::at(*at, "expected `image NAME` in this file"),
                );
                match &images[..] {
                    [one] => d
                        .with_help(format!("add `image {one}` as its first line"))
                        .with_fix(format!("Add `image {one}`"), *at, &format!("image {one}\n")),
                    [] => d.with_help("name the image the nodes run: `image NAME`"),
                    many => d.with_help(format!(
                        "add `image NAME` as its first line, NAME one of {}",
                        quote_list(many)
                    )),
                }
            }
            PlacementError::UnknownImage { at, name, images } => {
                let d = Diagnostic::new(
                    Code::E0802,
                    format!("the placement is for image `{name}`, and there is no such image"),
                    Label::at(*at, "no image of this name"),
                );
                match &images[..] {
                    // One image to run (a bundle's): the placement is for
                    // another, or misnames this one.
                    [only] if closest(name, &[only.as_str()]).is_none() => d.with_help(format!(
                        "the image here is `{only}`: use a placement written for it"
                    )),
                    _ => suggest(d, name, images, "the images"),
                }
            }
            PlacementError::UnknownInstance {
                at,
                name,
                image,
                instances,
            } => {
                let d = Diagnostic::new(
                    Code::E0802,
                    format!("image `{image}` has no instance `{name}`"),
                    Label::at(*at, "no instance of this name"),
                )
                .about("instance", name);
                // A nested image is run as its instances, `inner.x`.
                let prefix = format!("{name}.");
                let inner: Vec<&String> = instances
                    .iter()
                    .filter(|i| i.starts_with(&prefix))
                    .collect();
                if inner.is_empty() {
                    suggest(d, name, instances, "its instances")
                } else {
                    d.with_help(format!(
                        "`{name}` is an instance of an image: place the instances it is made of, {}",
                        quote_list(&inner)
                    ))
                }
            }
            PlacementError::PlacedNowhere {
                instance,
                image,
                image_at,
                declared,
                first_node,
            } => {
                let mut d = Diagnostic::new(
                    Code::E0803,
                    format!("instance `{instance}` of image `{image}` is placed on no node"),
                    Label::at(*image_at, format!("no node runs `{instance}`")),
                )
                .about("instance", instance);
                if let Some(at) = declared {
                    d = d.with_label(Label::at(*at, "declared here"));
                }
                d = d.with_help(format!(
                    "name it on the node that should run it (`node NAME: ..., {instance}`): \
                     a request to an instance no node runs is answered `unavailable`"
                ));
                if let Some((node, at)) = first_node {
                    d = d.with_fix(
                        format!("Run `{instance}` on node `{node}`"),
                        *at,
                        &format!(", {instance}"),
                    );
                }
                d
            }
            PlacementError::Twice {
                what,
                name,
                at,
                first,
            } => {
                let (message, help) = match what {
                    Twice::Image => (
                        format!("a second `image` line (`{name}`): a placement is for one image"),
                        "keep one `image` line; a placement for another image goes in a file of its own"
                            .to_string(),
                    ),
                    Twice::Node => (
                        format!("node `{name}` is declared twice"),
                        format!(
                            "name all of `{name}`'s instances on one line, or give the second node \
                             another name"
                        ),
                    ),
                    Twice::Instance { node } => (
                        format!("node `{node}` names instance `{name}` twice"),
                        "remove the second: a node runs an instance once (replicas run on \
                         different nodes)"
                            .to_string(),
                    ),
                };
                Diagnostic::new(Code::E0804, message, Label::at(*at, "named again here"))
                    .with_label(Label::at(*first, "first named here"))
                    .with_help(help)
            }
            PlacementError::OneNodeOnly {
                instance,
                native,
                listen,
                places,
                declared,
            } => {
                let nodes: Vec<&str> = places.iter().map(|(n, _)| n.as_str()).collect();
                let (why, help) = match (native, listen) {
                    (Native::Console, _) => (
                        "there is one console, the terminal of the node that runs it".to_string(),
                        format!("place `{instance}` on one node: the one whose input it reads"),
                    ),
                    (_, Some(addr)) => (
                        format!("each node would listen on `{addr}`"),
                        format!(
                            "place `{instance}` on one node, or declare an `Http` instance per \
                             node, each with an address of its own"
                        ),
                    ),
                    _ => (
                        format!("each node would listen on the address `{instance}` is given"),
                        format!(
                            "place `{instance}` on one node, or declare an `Http` instance per \
                             node, each with an address of its own"
                        ),
                    ),
                };
                let mut d = Diagnostic::new(
                    Code::E0805,
                    format!(
                        "`{instance}` ({native}) is placed on {} nodes ({}): {why}",
                        places.len(),
                        quote_list(&nodes)
                    ),
                    Label::at(places[places.len() - 1].1, "placed again here"),
                )
                .about("instance", instance);
                for (node, at) in &places[..places.len() - 1] {
                    d = d.with_label(Label::at(*at, format!("on node `{node}`")));
                }
                if let Some(at) = declared {
                    d = d.with_label(Label::at(*at, format!("an instance of `{native}`")));
                }
                d.with_help(help)
            }
        }
    }
}

/// Adds "did you mean" (with its fix) or the list of names to `d`.
fn suggest(d: Diagnostic, name: &str, names: &[String], which: &str) -> Diagnostic {
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    match closest(name, &refs) {
        Some(near) => d
            .with_help(format!("did you mean `{near}`?"))
            .with_replacement(near),
        None if names.is_empty() => d,
        None => d.with_help(format!("{which}: {}", quote_list(names))),
    }
}
