//! Code actions: the fixes diagnostics carry (did-you-mean names, content
//! types), and an import for a name another loaded file exports.

use std::collections::HashMap;

use lsp_types::*;
use othc::Code;
use othc::ide::Analysis;

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
        for fix in &d.fixes {
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
        if d.code == Code::E0203
            && let Some(a) = import_action(&analysis, file, d, &p.text_document.uri, &diagnostic)
        {
            out.push(a);
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

/// An unknown name that another loaded source file exports under that
/// name: offer `import { Name } from "relative/path.oth"` at the top.
fn import_action(
    analysis: &Analysis,
    file: othc::source::FileId,
    d: &othc::Diagnostic,
    uri: &Url,
    diagnostic: &Diagnostic,
) -> Option<CodeActionOrCommand> {
    let name = &analysis.text(file)[d.primary.at.span.range()];
    let here = std::path::Path::new(&analysis.compiled.front.sources.get(file).name);
    for m in &analysis.compiled.front.program.modules {
        if m.file == file || m.origin != othc::resolve::Origin::Source {
            continue;
        }
        if !m
            .declarations()
            .iter()
            .any(|x| x.name == name && x.exported)
        {
            continue;
        }
        let there = std::path::Path::new(&analysis.compiled.front.sources.get(m.file).name);
        let rel = relative(here.parent()?, there)?;
        let line = format!("import {{ {name} }} from \"{rel}\"\n");
        return Some(action(
            format!("Import `{name}` from \"{rel}\""),
            uri.clone(),
            vec![TextEdit::new(
                Range::new(Position::new(0, 0), Position::new(0, 0)),
                line,
            )],
            diagnostic,
        ));
    }
    None
}

/// `to` relative to the folder `from`, written as imports write paths.
fn relative(from: &std::path::Path, to: &std::path::Path) -> Option<String> {
    let from: Vec<_> = from.components().collect();
    let to_parts: Vec<_> = to.components().collect();
    let common = from
        .iter()
        .zip(&to_parts)
        .take_while(|(a, b)| a == b)
        .count();
    let mut parts: Vec<String> = vec!["..".into(); from.len() - common];
    for c in &to_parts[common..] {
        parts.push(c.as_os_str().to_str()?.to_string());
    }
    let joined = parts.join("/");
    Some(if joined.starts_with("..") {
        joined
    } else {
        format!("./{joined}")
    })
}
