//! Semantic tokens: every token of a file classified, names by what they
//! resolved to (a type, an object, an instance, a field), so an editor
//! colours `Greeting` as a type wherever it is written.

use lsp_types::*;
use othc::ide::{self, Analysis, Highlight};
use othc::source::FileId;

use crate::lines::LineIndex;
use crate::reply::Failure;
use crate::snapshot::Snapshot;

/// The legend: what `othc::ide` says a token is, as LSP's token types
/// (a token's number is its type's place here).
const LEGEND: &[(Highlight, SemanticTokenType)] = &[
    (Highlight::Keyword, SemanticTokenType::KEYWORD),
    (Highlight::Verb, SemanticTokenType::FUNCTION),
    (Highlight::Type, SemanticTokenType::TYPE),
    (Highlight::Object, SemanticTokenType::CLASS),
    (Highlight::Instance, SemanticTokenType::VARIABLE),
    (Highlight::Field, SemanticTokenType::PROPERTY),
    (Highlight::String, SemanticTokenType::STRING),
    (Highlight::Number, SemanticTokenType::NUMBER),
    (Highlight::Comment, SemanticTokenType::COMMENT),
    (Highlight::Path, SemanticTokenType::NAMESPACE),
    (Highlight::Slot, SemanticTokenType::PARAMETER),
    (Highlight::Operator, SemanticTokenType::OPERATOR),
];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: LEGEND.iter().map(|(_, t)| t.clone()).collect(),
        token_modifiers: Vec::new(),
    }
}

/// A highlight's token type number.
fn number(h: Highlight) -> u32 {
    LEGEND.iter().position(|(k, _)| *k == h).unwrap_or(0) as u32
}

pub fn full(
    snap: &Snapshot,
    p: SemanticTokensParams,
) -> Result<Option<SemanticTokensResult>, Failure> {
    let Some((analysis, file)) = snap.file(&p.text_document.uri) else {
        return Ok(None);
    };
    Ok(Some(SemanticTokensResult::Tokens(SemanticTokens {
        result_id: None,
        data: encode(analysis.text(file), classify(&analysis, file)),
    })))
}

/// Every classified token of `file`: (start, end, type number), in order.
pub fn classify(analysis: &Analysis, file: FileId) -> Vec<(usize, usize, u32)> {
    ide::highlights(analysis, file)
        .into_iter()
        .map(|(start, end, h)| (start, end, number(h)))
        .collect()
}

/// LSP's encoding: each token relative to the one before, in UTF-16, one
/// line at a time (a token spanning lines is cut at its first line's end).
pub fn encode(text: &str, tokens: Vec<(usize, usize, u32)>) -> Vec<SemanticToken> {
    let ix = LineIndex::new(text);
    let mut out = Vec::with_capacity(tokens.len());
    let (mut line, mut col) = (0u32, 0u32);
    for (start, end, kind) in tokens {
        let a = ix.position(start);
        let line_end = text[start..end.min(text.len())]
            .find('\n')
            .map_or(end, |i| start + i);
        let b = ix.position(line_end);
        if b.character <= a.character && b.line == a.line {
            continue;
        }
        let delta_line = a.line - line;
        let delta_start = if delta_line == 0 {
            a.character - col
        } else {
            a.character
        };
        out.push(SemanticToken {
            delta_line,
            delta_start,
            length: b.character - a.character,
            token_type: kind,
            token_modifiers_bitset: 0,
        });
        (line, col) = (a.line, a.character);
    }
    out
}
