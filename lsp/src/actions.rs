//! Code actions: the fixes diagnostics carry (did-you-mean names, content
//! types, entries to add), and those the whole program gives
//! (`othc::ide::program_fixes`: an import for a name another loaded file
//! exports), each as an edit.

use std::collections::HashMap;

use lsp_types::*;
use othc::ide::{self, Analysis};

use crate::convert::{location, range};
use crate::reply::Failure;
use crate::snapshot::Snapshot;

pub fn code_actions(
    snap: &Snapshot,
    p: CodeActionParams,
) -> Result<Option<CodeActionResponse>, Failure> {
    let Some((analysis, file)) = snap.file(&p.text_document.uri) else {
        return Ok(None);
    };
    let wanted = |r: Range| r.start <= p.range.end && p.range.start <= r.end;
    let mut out: CodeActionResponse = Vec::new();
    for d in analysis.compiled.front.diags.iter() {
        if d.primary.at.file != file || !wanted(range(&analysis, d.primary.at)) {
            continue;
        }
        let diagnostic = crate::diagnostics::convert(
            &analysis,
            d,
            snap.config.book.as_ref(),
            &snap.config.client,
        );
        for fix in d.fixes.iter().chain(&ide::program_fixes(&analysis, d)) {
            let (at, text) = if fix.new_line {
                new_line_after(&analysis, fix)
            } else {
                (fix.at, fix.replacement.clone())
            };
            let Some(loc) = location(&analysis, at) else {
                continue;
            };
            out.push(action(
                fix.title.clone(),
                loc.uri,
                vec![TextEdit::new(loc.range, text)],
                &diagnostic,
            ));
        }
    }
    Ok(Some(out))
}

/// Where and what to insert for a fix that adds a line: the end of the
/// line where `fix.at` ends, and the line, indented as the one where it
/// starts.
fn new_line_after(
    analysis: &Analysis,
    fix: &othc::diagnostics::Fix,
) -> (othc::source::FileSpan, String) {
    let text = analysis.text(fix.at.file);
    let start = fix.at.span.start().min(text.len());
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let indent: String = text[line_start..]
        .chars()
        .take_while(|c| *c == ' ' || *c == '\t')
        .collect();
    let end = fix.at.span.end().min(text.len());
    let eol = text[end..].find('\n').map_or(text.len(), |i| end + i);
    let at = othc::source::FileSpan::new(fix.at.file, othc::source::Span::point(eol));
    (at, format!("\n{indent}{}", fix.replacement))
}

fn action(title: String, uri: Url, edits: Vec<TextEdit>, d: &Diagnostic) -> CodeActionOrCommand {
    CodeActionOrCommand::CodeAction(CodeAction {
        title,
        kind: Some(CodeActionKind::QUICKFIX),
        diagnostics: Some(vec![d.clone()]),
        edit: Some(WorkspaceEdit::new(HashMap::from([(uri, edits)]))),
        is_preferred: Some(true),
        ..Default::default()
    })
}
