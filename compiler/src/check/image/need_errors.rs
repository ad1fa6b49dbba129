//! What can be wrong with the needs of an instance, as data: who needs what,
//! through which lines, and what was found there. The wording is in one
//! place, `to_diagnostic`; the language server reads the data for its
//! quick fixes (the read-only lines to lift, the verb a serve lacks).

use crate::diagnostics::wording::{alternatives, quote_list};
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::model::{Verb, WireKind};
use crate::source::FileSpan;

/// A need of an instance and the way it goes.
#[derive(Clone, Debug, PartialEq)]
pub struct Way {
    pub instance: String,
    pub verb: Verb,
    /// The need's full path: its mount point and its entry's path.
    pub path: String,
    /// The first mount or bind it goes through.
    pub wire: FileSpan,
    /// The need entry.
    pub need: FileSpan,
    /// The other mounts and binds it goes through, in order.
    pub through: Vec<FileSpan>,
}

/// The fix for a need nothing serves: the serve entry that would meet it,
/// as a line to add after the owner's last serve entry (`after`).
#[derive(Clone, Debug, PartialEq)]
pub struct AddEntry {
    pub after: FileSpan,
    pub line: String,
}

/// `d` with the fix that adds the missing serve entry, when there is one.
fn add_entry(d: Diagnostic, owner: &Owner, add: Option<&AddEntry>) -> Diagnostic {
    match add {
        Some(a) => d.with_line_after(
            format!("Add `{}` to the serves of {owner}", a.line),
            a.after,
            &a.line,
        ),
        None => d,
    }
}

/// A mount or bind that no need goes through.
#[derive(Clone, Debug, PartialEq)]
pub struct Stray {
    /// Where it links, and to what.
    pub at: String,
    pub from: String,
    pub wire: FileSpan,
}

/// What a way leads to.
#[derive(Clone, Debug, PartialEq)]
pub enum Owner {
    Instance { name: String, of: String },
    Need { mount: String, image: String },
}

impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Instance { name, of } => write!(f, "`{name}` (a `{of}`)"),
            Owner::Need { mount, image } => write!(f, "the need `{mount}` of image `{image}`"),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum NeedError {
    /// W0501: a mount or bind no need goes through.
    UnusedWire {
        instance: String,
        kind: WireKind,
        at: String,
        whole: FileSpan,
    },
    /// E0502: a need block with nothing mounted at or under its mount point.
    NothingMounted {
        instance: String,
        mount: String,
        at: FileSpan,
        need_at: FileSpan,
        /// An instance of the image to suggest mounting.
        example: String,
        /// A wire of the instance that no need uses, at a path near the
        /// need's: most likely the mount meant for it.
        near: Option<Stray>,
    },
    /// E0503: nothing mounted at the need's path.
    NothingAtPath {
        instance: String,
        verb: Verb,
        path: String,
        at: FileSpan,
        need: FileSpan,
    },
    /// E0503: what is mounted serves nothing at the path.
    NotServed {
        way: Way,
        owner: Owner,
        owner_at: FileSpan,
        /// The path in the owner's served tree.
        there: String,
        /// A path the owner does serve that is near `there`: a typo?
        near: Option<String>,
        add: Option<AddEntry>,
    },
    /// E0503: what is mounted serves the path with other verbs only.
    OtherVerbs {
        way: Way,
        owner: Owner,
        owner_at: FileSpan,
        there: String,
        verbs: Vec<Verb>,
        add: Option<AddEntry>,
    },
    /// E0508: the entry reached is the operator's.
    OperatorOnly { way: Way, operator_at: FileSpan },
    /// E0507: an unsafe verb through read-only lines (their `readonly`).
    ReadOnly { way: Way, readonly: Vec<FileSpan> },
    /// E0504: the serve does not take what the need sends (type names).
    RequestType {
        way: Way,
        sends: Vec<String>,
        takes: Vec<String>,
        serve_at: FileSpan,
    },
    /// E0505: the serve answers what the need does not accept.
    AnswerType {
        way: Way,
        expects: String,
        /// The common content type `expects` is likely a typo of (W0201):
        /// then the typo is never suggested as a fix.
        expects_typo_of: Option<&'static str>,
        answers: Option<String>,
        serve_at: FileSpan,
    },
    /// E0506: the need expects one answer, the serve streams.
    Stream { way: Way, serve_at: FileSpan },
}

/// The diagnostic every way-based error starts from: primary on the first
/// wire, then the need and the other wires as labels.
fn along(way: &Way, code: Code, message: String, primary: String) -> Diagnostic {
    let what = format!("{} {}", way.verb.as_str(), way.path);
    let mut d = Diagnostic::new(code, message, Label::at(way.wire, primary)).with_label(Label::at(
        way.need,
        format!("`{}` needs `{what}`", way.instance),
    ));
    for t in &way.through {
        d = d.with_label(Label::at(*t, "and through this"));
    }
    d
}

impl ToDiagnostic for NeedError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            NeedError::UnusedWire {
                instance,
                kind,
                at,
                whole,
            } => {
                let kind = match kind {
                    WireKind::Mount => "mount",
                    WireKind::Bind => "bind",
                };
                Diagnostic::new(
                    Code::W0501,
                    format!("no need of `{instance}` uses the {kind} at `{at}`"),
                    Label::at(*whole, "nothing the instance needs goes through here"),
                )
                .with_help(format!(
                    "remove the {kind}, or mount it where the object's `needs` say"
                ))
            }
            NeedError::NothingMounted {
                instance,
                mount,
                at,
                need_at,
                example,
                near: None,
            } => Diagnostic::new(
                Code::E0502,
                format!("`{instance}` needs `{mount}`, but nothing is mounted there"),
                Label::at(*at, format!("nothing is mounted at `{mount}` for this instance")),
            )
            .with_label(Label::at(*need_at, "the need is declared here"))
            .with_help(format!(
                "mount something that serves it: `instance {instance} = ... {{ mount {mount} /{example} }}`"
            )),
            NeedError::NothingMounted {
                instance,
                mount,
                at: _,
                need_at,
                near: Some(near),
                ..
            } => Diagnostic::new(
                Code::E0502,
                format!("`{instance}` needs `{mount}`, but nothing is mounted there"),
                Label::at(
                    near.wire,
                    format!("this mounts `{}`, which matches no need of `{instance}`", near.at),
                ),
            )
            .with_label(Label::at(*need_at, format!("the need is at `{mount}`")))
            .with_help(format!(
                "did you mean `{mount}`? `mount {mount} {}`",
                near.from
            )),
            NeedError::NothingAtPath {
                instance,
                verb,
                path,
                at,
                need,
            } => Diagnostic::new(
                Code::E0503,
                format!(
                    "`{instance}` needs `{} {path}`, but nothing is mounted at `{path}`",
                    verb.as_str()
                ),
                Label::at(*at, "this instance's view has nothing there"),
            )
            .with_label(Label::at(*need, "the need"))
            .with_help(format!(
                "mount something that serves `{} /` at `{path}`",
                verb.as_str()
            )),
            NeedError::NotServed {
                way,
                owner,
                owner_at,
                there,
                near,
                add,
            } => {
                let d = along(
                way,
                Code::E0503,
                format!(
                    "`{}` needs `{} {}`, but {owner} serves nothing at `{there}`",
                    way.instance,
                    way.verb.as_str(),
                    way.path
                ),
                format!("this mounts {owner} here"),
            )
            .with_label(Label::at(*owner_at, format!("{owner} serves no `{there}`")));
                match near {
                    Some(near) => d.with_help(format!(
                        "did you mean `{near}`? {owner} serves it: write the need's path as it does"
                    )),
                    None => add_entry(
                        d.with_help(format!(
                            "mount an object that serves `{} {there}`, or add that entry to its `serves`",
                            way.verb.as_str()
                        )),
                        owner,
                        add.as_ref(),
                    ),
                }
            }
            NeedError::OtherVerbs {
                way,
                owner,
                owner_at,
                there,
                verbs,
                add,
            } => {
                let vs: Vec<String> = verbs.iter().map(|v| v.as_str().to_string()).collect();
                let d = along(
                    way,
                    Code::E0503,
                    format!(
                        "`{}` needs `{} {}`, but {owner} serves `{there}` only with {}",
                        way.instance,
                        way.verb.as_str(),
                        way.path,
                        quote_list(&vs)
                    ),
                    format!("this mounts {owner} here"),
                )
                .with_label(Label::at(
                    *owner_at,
                    format!("no `{}` entry covers `{there}`", way.verb.as_str()),
                ))
                .with_help(format!(
                    "add `{there} {} ...` to the `serves` of {owner}, or mount something that serves it",
                    way.verb.as_str()
                ));
                add_entry(d, owner, add.as_ref())
            }
            NeedError::OperatorOnly { way, operator_at } => along(
                way,
                Code::E0508,
                format!(
                    "`{}` needs `{} {}`, which only the operator may use",
                    way.instance,
                    way.verb.as_str(),
                    way.path
                ),
                "this leads to an operator-only entry".into(),
            )
            .with_label(Label::at(
                *operator_at,
                "`operator`: only the image's startup requests may use this",
            ))
            .with_help("send it from the image as a startup request instead, or remove `operator` from the serve if any object may use it"),
            NeedError::ReadOnly { way, readonly } => {
                let mut d = along(
                    way,
                    Code::E0507,
                    format!(
                        "`{}` needs `{} {}`, but the way there is read-only",
                        way.instance,
                        way.verb.as_str(),
                        way.path
                    ),
                    format!("`{}` is not a safe verb", way.verb.as_str()),
                );
                for r in readonly {
                    d = d
                        .with_label(Label::at(*r, "read-only: only read, watch, list and stat pass"))
                        .with_fix("Remove this `readonly`", *r, "");
                }
                d.with_help("remove `readonly` from the mount, bind or export, or make the need use only safe verbs")
            }
            NeedError::RequestType {
                way,
                sends,
                takes,
                serve_at,
            } => along(
                way,
                Code::E0504,
                format!(
                    "`{}` sends {} with `{} {}`, but the serve takes {}",
                    way.instance,
                    alternatives(sends),
                    way.verb.as_str(),
                    way.path,
                    alternatives(takes)
                ),
                "this mount leads to a serve that does not take it".into(),
            )
            .with_label(Label::at(*serve_at, format!("takes {}", alternatives(takes))))
            .with_help("make the need's request type one the serve takes, or widen what the serve takes (e.g. `text/*`, `*/*`)"),
            NeedError::AnswerType {
                way,
                expects,
                expects_typo_of,
                answers,
                serve_at,
            } => {
                let got = answers
                    .as_ref()
                    .map(|g| format!("`{g}`"))
                    .unwrap_or_else(|| "no payload".into());
                along(
                    way,
                    Code::E0505,
                    format!(
                        "`{}` expects `{expects}` from `{} {}`, but the serve answers {got}",
                        way.instance,
                        way.verb.as_str(),
                        way.path
                    ),
                    "this mount leads to a serve that answers something else".into(),
                )
                .with_label(Label::at(*serve_at, format!("answers {got}")))
                .with_help(match expects_typo_of {
                    Some(meant) => format!(
                        "`{expects}` looks like a typo of `{meant}`: make the need accept what the serve answers (`-> {}`)",
                        answers.as_deref().unwrap_or("*/*")
                    ),
                    None => format!(
                        "make the need accept what the serve answers (`-> {}`), or the serve answer `{expects}`",
                        answers.as_deref().unwrap_or("*/*")
                    ),
                })
            }
            NeedError::Stream { way, serve_at } => along(
                way,
                Code::E0506,
                format!(
                    "`{}` expects one answer to `{} {}`, but the serve answers a stream",
                    way.instance,
                    way.verb.as_str(),
                    way.path
                ),
                "this mount leads to a streaming serve".into(),
            )
            .with_label(Label::at(*serve_at, "answers a stream"))
            .with_help("mark the need's answer as a stream: `-> TYPE*`"),
        }
    }
}
