//! What can be wrong with what mounts, binds and exports point at, as
//! data; their wording in one place, `to_diagnostic`.

use super::need_errors::Owner;
use crate::diagnostics::wording::quote_list;
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::namespace::MAX_DEPTH;
use crate::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum WiringError {
    /// E0501: a path whose first segment is nothing in the image tree
    /// (`name` is `None` for `/` itself).
    UnknownTreeName {
        image: String,
        /// `mount`, `bind`, `export` or `startup request`.
        what: &'static str,
        at: FileSpan,
        name: Option<String>,
        /// The top of the image tree.
        names: Vec<String>,
        /// The nearest of `names`, if it is near enough to be a typo.
        near: Option<String>,
    },
    /// E0509: a source in the tree under which nothing is served.
    NothingServed {
        what: &'static str,
        from: String,
        at: FileSpan,
        owner: Owner,
        owner_at: FileSpan,
        /// The path in the owner's served tree.
        there: String,
        /// The owner's own place in the tree (`/NAME`), to suggest.
        owner_path: String,
    },
    /// E0510: a bind's source is not in the instance's view.
    BindNotInView {
        instance: String,
        from: String,
        at: FileSpan,
        /// Where the instance's other mounts and binds are.
        mounted: Vec<String>,
    },
    /// E0518: binds that lead to each other (their `at`s, and where each is written).
    BindCircle {
        instance: String,
        ats: Vec<String>,
        binds: Vec<FileSpan>,
    },
    /// E0518: a chain of binds longer than the limit.
    BindTooDeep {
        instance: String,
        what: &'static str,
        at_path: String,
        whole: FileSpan,
    },
    /// E0517: images that contain themselves: each step, the image and
    /// where it makes an instance of the next (the last, of the first).
    Recursion { steps: Vec<(String, FileSpan)> },
    /// E0518: images nested deeper than the limit.
    NestTooDeep { image: String, at: FileSpan },
    /// E0518: following an image's paths goes round or too deep.
    FlattenTooDeep {
        image: String,
        why: String,
        at: FileSpan,
        /// Whether `at` is an instance (else the image itself).
        at_instance: bool,
    },
    /// E0511: two exports at one path.
    DuplicateExport {
        at_path: String,
        at: FileSpan,
        first: FileSpan,
    },
}

impl ToDiagnostic for WiringError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            WiringError::UnknownTreeName {
                image,
                what,
                at,
                name,
                names,
                near,
            } => {
                let (message, primary) = match name {
                    Some(n) => (
                        format!("image `{image}` has no instance `{n}`"),
                        format!("this {what} names `/{n}`, which is not in the image tree"),
                    ),
                    None => (
                        format!("`/` is the whole tree of image `{image}`, not something in it"),
                        "name an instance: `/INSTANCE/...`".to_string(),
                    ),
                };
                let d = Diagnostic::new(Code::E0501, message, Label::at(*at, primary));
                match near {
                    Some(near) => d.with_help(format!("did you mean `/{near}`?")),
                    None if names.is_empty() => d.with_help(
                        "the image tree holds `/NAME` for each instance; this image has none yet",
                    ),
                    None => d.with_help(format!(
                        "the image tree holds {}",
                        quote_list(&names.iter().map(|n| format!("/{n}")).collect::<Vec<_>>())
                    )),
                }
            }
            WiringError::NothingServed {
                what,
                from,
                at,
                owner,
                owner_at,
                there,
                owner_path,
            } => Diagnostic::new(
                Code::E0509,
                format!("{what} source `{from}`: {owner} serves nothing at `{there}`"),
                Label::at(*at, "nothing here"),
            )
            .with_label(Label::at(*owner_at, format!("{owner} is declared here")))
            .with_help(format!(
                "{what} a path that {owner} serves, or the instance itself (`/{owner_path}`)"
            )),
            WiringError::BindNotInView {
                instance,
                from,
                at,
                mounted,
            } => Diagnostic::new(
                Code::E0510,
                format!("bind source `{from}` is not in the view of `{instance}`"),
                Label::at(*at, "nothing is mounted here in this instance's view"),
            )
            .with_help(if mounted.is_empty() {
                "a bind rearranges what the instance can already see: mount something first"
                    .to_string()
            } else {
                format!(
                    "a bind's source is a path in the instance's own view, which holds {}",
                    quote_list(mounted)
                )
            }),
            WiringError::BindCircle {
                instance,
                ats,
                binds,
            } => {
                let mut d = Diagnostic::new(
                    Code::E0518,
                    format!(
                        "the binds of `{instance}` lead round in a circle: {}",
                        ats.join(" → ")
                    ),
                    Label::at(binds[0], "this bind's source leads back to it"),
                );
                for b in &binds[1..] {
                    d = d.with_label(Label::at(*b, "and through this"));
                }
                d.with_help(
                    "a bind's source must lead to a mount: bind one of these to a mounted path instead",
                )
            }
            WiringError::BindTooDeep {
                instance,
                what,
                at_path,
                whole,
            } => Diagnostic::new(
                Code::E0518,
                format!(
                    "the {what} at `{at_path}` of `{instance}` goes through more than {MAX_DEPTH} binds"
                ),
                Label::at(
                    *whole,
                    format!("resolving this follows more than {MAX_DEPTH} binds"),
                ),
            )
            .with_help("bind the source directly instead of through a chain of binds"),
            WiringError::Recursion { steps } => {
                let names: Vec<&str> = steps
                    .iter()
                    .map(|(n, _)| n.as_str())
                    .chain(steps.first().map(|(n, _)| n.as_str()))
                    .collect();
                let message = if steps.len() == 1 {
                    format!("image `{}` instantiates itself", names[0])
                } else {
                    format!("images instantiate each other: {}", names.join(" → "))
                };
                let (last, at) = &steps[steps.len() - 1];
                let mut d = Diagnostic::new(
                    Code::E0517,
                    message,
                    Label::at(
                        *at,
                        format!("`{last}` makes an instance of `{}` here", names[0]),
                    ),
                );
                for (k, (_, at)) in steps[..steps.len() - 1].iter().enumerate() {
                    d = d.with_label(Label::at(
                        *at,
                        format!(
                            "`{}` makes an instance of `{}` here",
                            names[k],
                            names[k + 1]
                        ),
                    ));
                }
                d.with_help("an image cannot contain itself: take the instance out, or split the image")
            }
            WiringError::NestTooDeep { image, at } => Diagnostic::new(
                Code::E0518,
                format!("image `{image}` nests images more than {MAX_DEPTH} deep"),
                Label::at(*at, format!("this instance holds images {MAX_DEPTH} deep")),
            )
            .with_help("flatten the chain: instantiate the inner objects in fewer levels of images"),
            WiringError::FlattenTooDeep {
                image,
                why,
                at,
                at_instance,
            } => Diagnostic::new(
                Code::E0518,
                format!("image `{image}`: {why}"),
                Label::at(
                    *at,
                    if *at_instance {
                        "following this instance's view"
                    } else {
                        "in this image"
                    },
                ),
            )
            .with_help(
                "a nested image's need is mounted on its own export: mount something else there",
            ),
            WiringError::DuplicateExport { at_path, at, first } => Diagnostic::new(
                Code::E0511,
                format!("two exports at `{at_path}`"),
                Label::at(*at, "exported again here"),
            )
            .with_label(Label::at(*first, "first exported here"))
            .with_help("export each at its own path"),
        }
    }
}
