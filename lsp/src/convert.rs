//! The analysis's terms to LSP's, in one place: places in files (byte
//! spans of the source map) to locations and ranges, and text meant as
//! Markdown to what the client said it can show.

use lsp_types::{Location, MarkupContent, MarkupKind, Range};
use othc::ide::Analysis;
use othc::source::FileSpan;

use crate::client::ClientCaps;
use crate::lines::LineIndex;
use crate::workspace::url_of;

/// Where `at` is, as an LSP location (`None`: a file with no URL, such as
/// `othismo:env`).
pub fn location(analysis: &Analysis, at: FileSpan) -> Option<Location> {
    let f = analysis.compiled.front.sources.get(at.file);
    Some(Location::new(
        url_of(&f.name)?,
        LineIndex::of(f).range(at.span),
    ))
}

/// The range of `at` in its file.
pub fn range(analysis: &Analysis, at: FileSpan) -> Range {
    LineIndex::of(analysis.compiled.front.sources.get(at.file)).range(at.span)
}

/// Markdown as the client can show it: itself, or plain text (code blocks
/// unfenced, inline code unquoted) for a client that asked for plain text
/// only, which would show the backticks as they are.
pub fn markup(markdown: String, caps: &ClientCaps) -> MarkupContent {
    if caps.markdown_hover {
        return MarkupContent {
            kind: MarkupKind::Markdown,
            value: markdown,
        };
    }
    MarkupContent {
        kind: MarkupKind::PlainText,
        value: plain(&markdown),
    }
}

/// The text of `markdown` without its marks: fence lines dropped, code in
/// backticks kept without them.
pub fn plain(markdown: &str) -> String {
    let mut out = String::new();
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            continue;
        }
        out.push_str(&line.replace('`', ""));
        out.push('\n');
    }
    out.truncate(out.trim_end().len());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_keeps_the_words_and_drops_the_marks() {
        let md = "```oth\nmount /a /b\n```\n\nReaches `b` at `/`.\n- `/ read` → `/ read`\n";
        assert_eq!(
            plain(md),
            "mount /a /b\n\nReaches b at /.\n- / read → / read"
        );
    }
}
