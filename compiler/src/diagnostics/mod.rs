//! Diagnostics as data: what went wrong, where, and how to fix it.
//!
//! Phases produce [`Diagnostic`] values into a [`Diagnostics`] sink; rendering
//! (ariadne for people, JSON for tools) happens at the edge, in [`render`].

pub mod codes;
pub mod render;
pub mod suggest;
pub(crate) mod syntax;
pub mod wording;

pub use codes::Code;

use crate::source::{FileId, FileSpan};
use oth_syntax::Span;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Severity {
    Error,
    Warning,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    pub at: FileSpan,
    pub message: String,
}

impl Label {
    pub fn new(file: FileId, span: Span, message: impl Into<String>) -> Label {
        Label {
            at: FileSpan::new(file, span),
            message: message.into(),
        }
    }

    /// A label at a place already held as a [`FileSpan`].
    pub fn at(at: FileSpan, message: impl Into<String>) -> Label {
        Label {
            at,
            message: message.into(),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub code: Code,
    pub severity: Severity,
    /// One sentence, lower case, no final period: "unexpected `}`".
    pub message: String,
    /// Where the problem is, with what to say there.
    pub primary: Label,
    /// The other places involved.
    pub labels: Vec<Label>,
    /// The fix, when there is one.
    pub help: Option<String>,
    /// What it is about, as data (`type Greeting`): repeats of one
    /// diagnostic about one thing in one file fold into one
    /// ([`Diagnostics::merge_repeats`]).
    pub subject: Option<Subject>,
    /// Edits that make the fix the help names, when it is that concrete
    /// (an editor offers them as code actions).
    pub fixes: Vec<Fix>,
    /// The typed error this was made from, when a phase reported one
    /// ([`Diagnostics::report`]): what consumers that act on a diagnostic
    /// (the editor's fixes, folding) read, instead of its code and words.
    pub cause: Option<Cause>,
}

/// A phase's error value, kept beside the diagnostic it reads as. Read back
/// by its type with [`Diagnostic::cause`]; the diagnostics layer needs no
/// knowledge of the phases (they depend on it, not it on them).
#[derive(Clone)]
pub struct Cause(std::sync::Arc<dyn CauseValue>);

/// What a cause must be: any error a phase reports ([`ToDiagnostic`]),
/// comparable so that diagnostics stay comparable.
pub trait CauseValue: std::any::Any + std::fmt::Debug + Send + Sync {
    fn as_any(&self) -> &dyn std::any::Any;
    fn same(&self, other: &dyn CauseValue) -> bool;
}

impl<T: std::any::Any + std::fmt::Debug + PartialEq + Send + Sync> CauseValue for T {
    fn as_any(&self) -> &dyn std::any::Any {
        self
    }
    fn same(&self, other: &dyn CauseValue) -> bool {
        other.as_any().downcast_ref::<T>() == Some(self)
    }
}

impl Cause {
    pub fn new(e: impl CauseValue) -> Cause {
        Cause(std::sync::Arc::new(e))
    }
}

impl std::fmt::Debug for Cause {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.0.same(&*other.0)
    }
}

/// Replace the text at `at` with `replacement`: a fix an editor can apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fix {
    /// What the editor offers: "Replace with `Greeter`".
    pub title: String,
    pub at: FileSpan,
    pub replacement: String,
    /// Instead of replacing `at`: `replacement` goes on a new line after
    /// the line where `at` ends, indented as the line where it starts (an
    /// entry added after the last of its block). Only the editor, which
    /// has the text, knows the indentation.
    pub new_line: bool,
}

impl Diagnostic {
    /// A diagnostic with the severity its code implies.
    pub fn new(code: Code, message: impl Into<String>, primary: Label) -> Diagnostic {
        Diagnostic {
            code,
            severity: code.severity(),
            message: message.into(),
            primary,
            labels: Vec::new(),
            help: None,
            subject: None,
            fixes: Vec::new(),
            cause: None,
        }
    }

    /// The typed error this diagnostic was made from, if it is a `T`.
    pub fn cause<T: 'static>(&self) -> Option<&T> {
        self.cause.as_ref()?.0.as_any().downcast_ref::<T>()
    }

    /// Says what the diagnostic is about (a kind and a name).
    pub fn about(mut self, kind: &str, name: &str) -> Diagnostic {
        self.subject = Some(Subject {
            kind: kind.to_string(),
            name: name.to_string(),
        });
        self
    }

    pub fn with_label(mut self, label: Label) -> Diagnostic {
        self.labels.push(label);
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }

    /// Offers replacing the text at `at` with `replacement`, as `title` says.
    pub fn with_fix(
        mut self,
        title: impl Into<String>,
        at: FileSpan,
        replacement: &str,
    ) -> Diagnostic {
        self.fixes.push(Fix {
            title: title.into(),
            at,
            replacement: replacement.to_string(),
            new_line: false,
        });
        self
    }

    /// A fix that adds `line` on a line of its own after the line where `at`
    /// ends, indented like it (see [`Fix::new_line`]).
    pub fn with_line_after(
        mut self,
        title: impl Into<String>,
        at: FileSpan,
        line: &str,
    ) -> Diagnostic {
        self.fixes.push(Fix {
            title: title.into(),
            at,
            replacement: line.to_string(),
            new_line: true,
        });
        self
    }

    /// Offers replacing the primary span's text with `replacement`.
    pub fn with_replacement(mut self, replacement: &str) -> Diagnostic {
        self.fixes.push(Fix {
            title: format!("Replace with `{replacement}`"),
            at: self.primary.at,
            replacement: replacement.to_string(),
            new_line: false,
        });
        self
    }
}

/// What a diagnostic is about: a kind of thing (`type`, `object`,
/// `import`) and its name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Subject {
    pub kind: String,
    pub name: String,
}

/// An error held as data (names, spans, what was found), with its wording
/// in one place: how it reads as a diagnostic.
pub trait ToDiagnostic {
    fn to_diagnostic(&self) -> Diagnostic;
}

/// The diagnostic `e` reads as, holding `e` as its cause.
pub fn with_cause(e: impl ToDiagnostic + CauseValue) -> Diagnostic {
    let mut d = e.to_diagnostic();
    d.cause = Some(Cause::new(e));
    d
}

/// How many repeats of one diagnostic are labelled before they are counted.
const MAX_REPEAT_LABELS: usize = 8;

/// The sink every phase reports into.
#[derive(Default, Debug)]
pub struct Diagnostics {
    list: Vec<Diagnostic>,
}

impl Diagnostics {
    pub fn new() -> Diagnostics {
        Diagnostics::default()
    }

    pub fn push(&mut self, d: Diagnostic) {
        self.list.push(d);
    }

    /// Reports an error held as data: its diagnostic, with the error
    /// itself kept as the diagnostic's cause.
    pub fn report(&mut self, e: impl ToDiagnostic + CauseValue) {
        self.list.push(with_cause(e));
    }

    /// Moves every diagnostic of `other` into this sink.
    pub fn append(&mut self, mut other: Diagnostics) {
        self.list.append(&mut other.list);
    }

    pub fn syntax(&mut self, file: FileId, e: &oth_syntax::SyntaxError) {
        self.push(syntax::to_diagnostic(file, e));
    }

    /// Folds diagnostics of one of `codes` about the same subject in the
    /// same file into the first of them, the others' places becoming labels:
    /// one unknown name used ten times is one error, not ten. Diagnostics
    /// with no subject are never folded.
    pub fn merge_repeats(&mut self, codes: &[Code], label: &str) {
        let mut out: Vec<Diagnostic> = Vec::with_capacity(self.list.len());
        let mut first: std::collections::HashMap<(Code, FileId, Subject), usize> =
            std::collections::HashMap::new();
        // Per folded diagnostic: repeats labelled, and repeats past that.
        let mut repeats: std::collections::HashMap<usize, (usize, usize)> =
            std::collections::HashMap::new();
        for d in self.list.drain(..) {
            if codes.contains(&d.code)
                && let Some(subject) = &d.subject
            {
                let key = (d.code, d.primary.at.file, subject.clone());
                if let Some(&i) = first.get(&key) {
                    // A few of the places, then how many more: a label for
                    // each of thousands is slow to draw and no help.
                    let (labelled, more) = repeats.entry(i).or_default();
                    if *labelled < MAX_REPEAT_LABELS {
                        *labelled += 1;
                        out[i]
                            .labels
                            .push(Label::new(d.primary.at.file, d.primary.at.span, label));
                    } else {
                        *more += 1;
                    }
                    continue;
                }
                first.insert(key, out.len());
            }
            out.push(d);
        }
        for (i, (_, more)) in repeats {
            if more > 0
                && let Some(last) = out[i].labels.last_mut()
            {
                last.message = format!("{label} (and {more} more times)");
            }
        }
        self.list = out;
    }

    /// Keeps the diagnostics `keep` says yes to.
    pub fn retain(&mut self, keep: impl FnMut(&Diagnostic) -> bool) {
        self.list.retain(keep);
    }

    /// Drops the warnings whose primary span is in one of `files`.
    pub fn drop_warnings_in(&mut self, files: &[FileId]) {
        self.list
            .retain(|d| d.severity != Severity::Warning || !files.contains(&d.primary.at.file));
    }

    pub fn has_errors(&self) -> bool {
        self.list.iter().any(|d| d.severity == Severity::Error)
    }

    pub fn count(&self, severity: Severity) -> usize {
        self.list.iter().filter(|d| d.severity == severity).count()
    }

    pub fn iter(&self) -> impl Iterator<Item = &Diagnostic> {
        self.list.iter()
    }

    /// In file order, then by position: the order people read them in.
    pub fn sorted(&self) -> Vec<&Diagnostic> {
        let mut v: Vec<&Diagnostic> = self.list.iter().collect();
        v.sort_by_key(|d| (d.primary.at.file, d.primary.at.span.start()));
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oth_syntax::Span;

    fn at(n: usize) -> Label {
        Label::new(FileId(0), Span::new(n, n + 1), "here")
    }

    /// Thousands of repeats fold into one diagnostic with a few labels and
    /// a count (a label each made a one-line file take seconds to draw).
    #[test]
    fn repeats_fold_into_a_few_labels_and_a_count() {
        let mut d = Diagnostics::new();
        for n in 0..1000 {
            d.push(Diagnostic::new(Code::E0203, "unknown type `X`", at(n)).about("type", "X"));
        }
        d.merge_repeats(&[Code::E0203], "and here");
        let all: Vec<&Diagnostic> = d.iter().collect();
        assert_eq!(all.len(), 1);
        assert_eq!(all[0].labels.len(), MAX_REPEAT_LABELS);
        assert_eq!(
            all[0].labels.last().unwrap().message,
            format!("and here (and {} more times)", 999 - MAX_REPEAT_LABELS)
        );
    }

    /// An unclosed bracket inside hundreds of others labels a few of them
    /// and counts the rest.
    #[test]
    fn an_unclosed_bracket_labels_a_few_enclosing_ones() {
        let src = format!("{}x", "[".repeat(60));
        let parsed = oth_syntax::parse_values(&format!("a = {src}"));
        let mut d = Diagnostics::new();
        for e in &parsed.errors {
            d.syntax(FileId(0), e);
        }
        let unclosed: Vec<&Diagnostic> = d.iter().filter(|d| d.code == Code::E0104).collect();
        assert_eq!(unclosed.len(), 1, "{:?}", d.iter().collect::<Vec<_>>());
        assert!(unclosed[0].labels.len() <= 5, "{:?}", unclosed[0].labels);
        assert!(
            unclosed[0]
                .labels
                .iter()
                .any(|l| l.message.starts_with("and 56 more enclosing this")),
            "{:?}",
            unclosed[0].labels
        );
    }
}
