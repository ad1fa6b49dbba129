//! What can go wrong while loading a program, as data: which import, what
//! was looked for, what was found. The wording is in `to_diagnostic`.

use crate::diagnostics::suggest::closest;
use crate::diagnostics::wording::{quote_joined, quote_list};
use crate::diagnostics::{Code, Diagnostic, Label, ToDiagnostic};
use crate::source::FileSpan;

#[derive(Clone, Debug, PartialEq)]
pub enum LoadError {
    /// E0201: no file where the import points.
    NotFound {
        at: FileSpan,
        from: String,
        looked: String,
    },
    /// E0201: the file is there but cannot be read.
    Unreadable {
        at: FileSpan,
        from: String,
        looked: String,
        reason: String,
    },
    /// E0209: an imported `.wasm` without a valid Othismo header.
    NoHeader {
        at: FileSpan,
        from: String,
        reason: String,
    },
    /// E0205: `at` imports the first of `chain`, which (through the rest,
    /// each with the import that led there) imports the file of `at`.
    Cycle {
        at: FileSpan,
        chain: Vec<(String, Option<FileSpan>)>,
    },
    /// E0202: the name is declared there without `export`.
    Private {
        at: FileSpan,
        name: String,
        file: String,
        kind: &'static str,
        declared: FileSpan,
    },
    /// E0202: the file declares no such name.
    NotExported {
        at: FileSpan,
        name: String,
        file: String,
        exported: Vec<String>,
    },
    /// E0207: a schemas block no format reads.
    NoFormat {
        at: FileSpan,
        content_type: String,
        known: Vec<String>,
    },
}

impl ToDiagnostic for LoadError {
    fn to_diagnostic(&self) -> Diagnostic {
        match self {
            LoadError::NotFound { at, from, looked } => Diagnostic::new(
                Code::E0201,
                format!("cannot read `{from}`"),
                Label::at(*at, format!("no such file (looked for `{looked}`)")),
            )
            .with_help(
                "import paths are relative to the importing file; `othismo:env` names the runtime's own objects",
            ),
            LoadError::Unreadable {
                at,
                from,
                looked,
                reason,
            } => Diagnostic::new(
                Code::E0201,
                format!("cannot read `{from}`"),
                Label::at(*at, format!("{reason} (looked for `{looked}`)")),
            ),
            LoadError::NoHeader { at, from, reason } => Diagnostic::new(
                Code::E0209,
                format!("`{from}` has no Othismo header"),
                Label::at(*at, reason.clone()),
            )
            .with_help(
                "build the module with `othc build` so it carries its header, or import its .oth file",
            ),
            LoadError::Cycle { at, chain } => {
                let first = &chain[0].0;
                let message = if chain.len() == 1 {
                    format!("import cycle: `{first}` imports itself")
                } else {
                    let mut names: Vec<&str> = chain.iter().map(|(n, _)| n.as_str()).collect();
                    names.push(first);
                    format!("import cycle: {}", quote_joined(&names, " → "))
                };
                let mut d = Diagnostic::new(
                    Code::E0205,
                    message,
                    Label::at(
                        *at,
                        format!("this imports `{first}`, which is importing this file"),
                    ),
                );
                for (name, site) in &chain[1..] {
                    if let Some(site) = site {
                        d = d.with_label(Label::at(*site, format!("which imports `{name}`")));
                    }
                }
                d.with_help(
                    "imports form a tree: move what these files share into a file that each of them imports",
                )
            }
            LoadError::Private {
                at,
                name,
                file,
                kind,
                declared,
            } => Diagnostic::new(
                Code::E0202,
                format!("`{name}` is not exported by `{file}`"),
                Label::at(*at, format!("this {kind} is private to its file")),
            )
            .about("import", name)
            .with_label(Label::at(*declared, "declared here without `export`"))
            .with_help(format!(
                "write `export` before the declaration of `{name}` in `{file}`"
            )),
            LoadError::NotExported {
                at,
                name,
                file,
                exported,
            } => {
                let d = Diagnostic::new(
                    Code::E0202,
                    format!("`{file}` exports no `{name}`"),
                    Label::at(*at, "not exported there"),
                )
                .about("import", name);
                let names: Vec<&str> = exported.iter().map(String::as_str).collect();
                match closest(name, &names) {
                    Some(near) => d
                        .with_help(format!("did you mean `{near}`?"))
                        .with_replacement(near),
                    None if exported.is_empty() => d.with_help(format!("`{file}` exports nothing")),
                    None => d.with_help(format!("`{file}` exports {}", quote_list(exported))),
                }
            }
            LoadError::NoFormat {
                at,
                content_type,
                known,
            } => Diagnostic::new(
                Code::E0207,
                format!("no format for `{content_type}`"),
                Label::at(*at, "no format reads schemas of this content type"),
            )
            .with_help(format!("the formats othc knows: {}", quote_list(known))),
        }
    }
}
