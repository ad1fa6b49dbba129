//! Rendering diagnostics: ariadne reports for people, JSON lines for tools
//! (book: reference/checking.md). Both write into a buffer; the caller decides where it goes.

use ariadne::{Config, IndexType, Label as ALabel, Report, ReportKind};
use serde::Serialize;

use super::{Diagnostic, Diagnostics, Severity};
use crate::source::{FileSpan, SourceMap};

/// Widens an empty span to one character so it can be pointed at.
fn visible(map: &SourceMap, at: FileSpan) -> std::ops::Range<usize> {
    let text = &map.get(at.file).text;
    let (s, e) = (
        at.span.start().min(text.len()),
        at.span.end().min(text.len()),
    );
    if s < e {
        return s..e;
    }
    if let Some(c) = text[s..].chars().next() {
        s..s + c.len_utf8()
    } else if let Some(c) = text[..s].chars().next_back() {
        s - c.len_utf8()..s
    } else {
        s..s
    }
}

/// One ariadne report per diagnostic, then the summary line.
pub fn human(map: &SourceMap, diags: &Diagnostics, color: bool) -> String {
    if diags.iter().next().is_none() {
        return String::new();
    }
    let mut out = Vec::new();
    let config = Config::default()
        .with_color(color)
        .with_index_type(IndexType::Byte);
    let name = |at: FileSpan| map.get(at.file).name.clone();
    // One cache for every report, borrowing the texts rather than copying them.
    let mut cache = ariadne::sources(map.files().map(|(_, f)| (f.name.clone(), f.text.as_str())));
    for d in diags.sorted() {
        let kind = match d.severity {
            Severity::Error => ReportKind::Error,
            Severity::Warning => ReportKind::Warning,
        };
        let primary = (name(d.primary.at), visible(map, d.primary.at));
        let mut report = Report::build(kind, primary.clone())
            .with_config(config)
            .with_code(d.code)
            .with_message(&d.message)
            .with_label(
                ALabel::new(primary)
                    .with_message(&d.primary.message)
                    .with_order(0),
            );
        for (i, l) in d.labels.iter().enumerate() {
            report = report.with_label(
                ALabel::new((name(l.at), visible(map, l.at)))
                    .with_message(&l.message)
                    .with_order(i as i32 + 1),
            );
        }
        if let Some(help) = &d.help {
            report = report.with_help(help);
        }
        // Writing into a Vec cannot fail.
        let _ = report.finish().write(&mut cache, &mut out);
    }
    let mut text = String::from_utf8_lossy(&out).into_owned();
    text.push_str(&summary(diags));
    text
}

/// `error: 2 errors, 1 warning`; empty when there is nothing to say.
pub fn summary(diags: &Diagnostics) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let (e, w) = (diags.count(Severity::Error), diags.count(Severity::Warning));
    match (e, w) {
        (0, 0) => String::new(),
        (0, w) => format!("warning: {}\n", plural(w, "warning")),
        (e, 0) => format!("error: {}\n", plural(e, "error")),
        (e, w) => format!("error: {}, {}\n", plural(e, "error"), plural(w, "warning")),
    }
}

#[derive(Serialize)]
struct JsonLabel<'a> {
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    message: &'a str,
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    severity: &'static str,
    code: &'static str,
    message: &'a str,
    file: &'a str,
    line: usize,
    column: usize,
    end_line: usize,
    end_column: usize,
    /// The other spans involved; the primary one is the top-level position.
    labels: Vec<JsonLabel<'a>>,
    help: Option<&'a str>,
}

fn position(map: &SourceMap, at: FileSpan) -> (&str, usize, usize, usize, usize) {
    let f = map.get(at.file);
    let s = f.line_col(at.span.start());
    let e = f.line_col(at.span.end());
    (&f.name, s.line, s.column, e.line, e.column)
}

/// One JSON object per line. Columns are 1-based and count Unicode scalar
/// values; `end_column` is the column just past the span.
pub fn json(map: &SourceMap, diags: &Diagnostics) -> String {
    let mut out = String::new();
    for d in diags.sorted() {
        out.push_str(&json_line(map, d));
        out.push('\n');
    }
    out
}

fn json_line(map: &SourceMap, d: &Diagnostic) -> String {
    let (file, line, column, end_line, end_column) = position(map, d.primary.at);
    let labels = d
        .labels
        .iter()
        .map(|l| {
            let (file, line, column, end_line, end_column) = position(map, l.at);
            JsonLabel {
                file,
                line,
                column,
                end_line,
                end_column,
                message: &l.message,
            }
        })
        .collect();
    let j = JsonDiagnostic {
        severity: d.severity.as_str(),
        code: d.code.as_str(),
        message: &d.message,
        file,
        line,
        column,
        end_line,
        end_column,
        labels,
        help: d.help.as_deref(),
    };
    serde_json::to_string(&j).expect("diagnostics serialize")
}
