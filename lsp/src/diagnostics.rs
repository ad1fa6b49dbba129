//! The checker's diagnostics as LSP diagnostics: one per diagnostic, in the
//! file of its primary label, the other labels as related information
//! (also in other files) for a client that shows it, or folded into the
//! message, one line each, for one that does not; the help in the message,
//! and the code linked to its page of the book.

use std::collections::BTreeMap;

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, NumberOrString, Url,
};
use othc::ide::Analysis;
use othc::{Diagnostic, Severity};

use crate::client::ClientCaps;
use crate::convert::{location, range};
use crate::workspace::url_of;

/// Where the code pages are: `{base}{CODE}.html` (a served book) or
/// `{base}{CODE}.md` (the book's sources on disk).
#[derive(Clone, Debug)]
pub struct BookLinks {
    pub base: Url,
    pub extension: &'static str,
}

impl BookLinks {
    /// The book this server was built with, if its sources are still where
    /// they were: a link that opens in any editor without a network.
    pub fn local() -> Option<BookLinks> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/errors/");
        let dir = dir.canonicalize().ok()?;
        Some(BookLinks {
            base: Url::from_directory_path(dir).ok()?,
            extension: "md",
        })
    }

    /// A served book (`initializationOptions.bookUrl`): its `errors/` pages.
    pub fn served(root: &str) -> Option<BookLinks> {
        let root = if root.ends_with('/') {
            root.to_string()
        } else {
            format!("{root}/")
        };
        Some(BookLinks {
            base: Url::parse(&root).ok()?.join("errors/").ok()?,
            extension: "html",
        })
    }

    fn page(&self, code: &str) -> Option<Url> {
        self.base.join(&format!("{code}.{}", self.extension)).ok()
    }
}

/// Every diagnostic of `analysis`, by the URL of the file it is in.
pub fn by_file(
    analysis: &Analysis,
    book: Option<&BookLinks>,
    caps: &ClientCaps,
) -> BTreeMap<Url, Vec<lsp_types::Diagnostic>> {
    let sources = &analysis.compiled.front.sources;
    let mut out: BTreeMap<Url, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
    for d in analysis.compiled.front.diags.sorted() {
        let file = sources.get(d.primary.at.file);
        let Some(url) = url_of(&file.name) else {
            continue;
        };
        out.entry(url)
            .or_default()
            .push(convert(analysis, d, book, caps));
    }
    out
}

pub fn convert(
    analysis: &Analysis,
    d: &Diagnostic,
    book: Option<&BookLinks>,
    caps: &ClientCaps,
) -> lsp_types::Diagnostic {
    let mut message = d.message.clone();
    // The primary label says more only when the message does not say it.
    if !d.primary.message.is_empty() && !d.message.contains(&d.primary.message) {
        message.push_str(&format!(" ({})", d.primary.message));
    }
    let mut related: Vec<DiagnosticRelatedInformation> = d
        .labels
        .iter()
        .filter_map(|l| {
            Some(DiagnosticRelatedInformation {
                location: location(analysis, l.at)?,
                message: l.message.clone(),
            })
        })
        .collect();
    if !caps.related_information {
        // Shown nowhere else: each label a line of the message, where it is.
        for r in related.drain(..) {
            let name = r
                .location
                .uri
                .path_segments()
                .and_then(|mut s| s.next_back())
                .unwrap_or("");
            message.push_str(&format!(
                "\n{name}:{}:{}: {}",
                r.location.range.start.line + 1,
                r.location.range.start.character + 1,
                r.message
            ));
        }
    }
    if let Some(help) = &d.help {
        message.push_str(&format!("\nhelp: {help}"));
    }
    let code = d.code.as_str();
    lsp_types::Diagnostic {
        range: range(analysis, d.primary.at),
        severity: Some(match d.severity {
            Severity::Error => DiagnosticSeverity::ERROR,
            Severity::Warning => DiagnosticSeverity::WARNING,
        }),
        code: Some(NumberOrString::String(code.to_string())),
        code_description: book
            .and_then(|b| b.page(code))
            .map(|href| CodeDescription { href }),
        source: Some("othc".into()),
        message,
        related_information: (!related.is_empty()).then_some(related),
        tags: None,
        data: None,
    }
}
