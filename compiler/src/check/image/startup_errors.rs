//! What can be wrong with a startup request, as data; its wording in one
//! place, `to_diagnostic`.

use super::need_errors::Owner;
use crate::diagnostics::wording::{alternatives, quote_list};
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::model::Verb;
use crate::source::FileSpan;

/// A startup request: `verb path`, where it is written.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub verb: Verb,
    pub path: String,
    pub whole: FileSpan,
}

impl Request {
    fn what(&self) -> String {
        format!("{} {}", self.verb.as_str(), self.path)
    }
}

/// What a startup payload should be, for the fix.
#[derive(Clone, Debug, PartialEq)]
pub enum Expected {
    Message(String),
    Content(String),
    Nothing,
}

#[derive(Clone, Debug, PartialEq)]
pub enum StartupError {
    /// E0512: nothing at the path serves anything there.
    NotServed {
        request: Request,
        path_at: FileSpan,
        owner: Owner,
        owner_at: FileSpan,
        there: String,
    },
    /// E0512: the path is served with other verbs only.
    OtherVerbs {
        request: Request,
        verb_at: FileSpan,
        owner: Owner,
        owner_at: FileSpan,
        there: String,
        verbs: Vec<Verb>,
    },
    /// E0507: an unsafe verb through read-only exports (their `readonly`).
    ReadOnly {
        request: Request,
        readonly: Vec<FileSpan>,
    },
    /// E0513: the payload is not one the serve takes (type names).
    Payload {
        request: Request,
        at: FileSpan,
        sends: Vec<String>,
        takes: Vec<String>,
        serve_at: FileSpan,
        expected: Expected,
    },
}

impl ToDiagnostic for StartupError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            StartupError::NotServed {
                request,
                path_at,
                owner,
                owner_at,
                there,
            } => Diagnostic::new(
                Code::E0512,
                format!(
                    "startup request `{}`: {owner} serves nothing at `{there}`",
                    request.what()
                ),
                Label::at(*path_at, "nothing serves this"),
            )
            .with_label(Label::at(*owner_at, format!("{owner} is declared here")))
            .with_help("send it to a path the instance serves"),
            StartupError::OtherVerbs {
                request,
                verb_at,
                owner,
                owner_at,
                there,
                verbs,
            } => {
                let vs: Vec<String> = verbs.iter().map(|v| v.as_str().to_string()).collect();
                let vs = quote_list(&vs);
                Diagnostic::new(
                    Code::E0512,
                    format!(
                        "startup request `{}`: {owner} serves `{there}` only with {vs}",
                        request.what()
                    ),
                    Label::at(*verb_at, format!("no `{}` here", request.verb.as_str())),
                )
                .with_label(Label::at(*owner_at, format!("{owner} is declared here")))
                .with_help(format!("use one of {vs}"))
            }
            StartupError::ReadOnly { request, readonly } => {
                let mut d = Diagnostic::new(
                    Code::E0507,
                    format!(
                        "startup request `{}` goes through a read-only export",
                        request.what()
                    ),
                    Label::at(
                        request.whole,
                        format!("`{}` is not a safe verb", request.verb.as_str()),
                    ),
                );
                for r in readonly {
                    d = d.with_label(Label::at(*r, "read-only"));
                }
                d.with_help(
                    "remove `readonly` from the export, or send the request to the instance directly",
                )
            }
            StartupError::Payload {
                request,
                at,
                sends,
                takes,
                serve_at,
                expected,
            } => Diagnostic::new(
                Code::E0513,
                format!(
                    "startup request `{}` sends {}, but the serve takes {}",
                    request.what(),
                    alternatives(sends),
                    alternatives(takes)
                ),
                Label::at(*at, format!("this is {}", alternatives(sends))),
            )
            .with_label(Label::at(
                *serve_at,
                format!("takes {}", alternatives(takes)),
            ))
            .with_help(match expected {
                Expected::Message(m) => {
                    format!("send a `{m}`: `{} {m} {{ ... }}`", request.what())
                }
                Expected::Content(t) => format!("send a payload of type `{t}`"),
                Expected::Nothing => "send it without a payload".into(),
            }),
        }
    }
}
