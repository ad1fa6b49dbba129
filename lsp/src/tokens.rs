//! Semantic tokens: every token of a file classified, names by what they
//! resolved to (a type, an object, an instance, a field), so an editor
//! colours `Greeting` as a type wherever it is written.

use std::collections::HashMap;

use lsp_types::*;
use oth_syntax::lexer::{Mode, lex};
use oth_syntax::token::Token;
use othc::check::Sym;
use othc::ide::{Analysis, Target};
use othc::source::FileId;

use crate::lines::LineIndex;
use crate::reply::Failure;
use crate::snapshot::Snapshot;

/// The legend, in the order the token type numbers below use.
pub const TYPES: &[SemanticTokenType] = &[
    SemanticTokenType::KEYWORD,   // 0
    SemanticTokenType::FUNCTION,  // 1: verbs
    SemanticTokenType::TYPE,      // 2: message types, enums, content types
    SemanticTokenType::CLASS,     // 3: objects and images
    SemanticTokenType::VARIABLE,  // 4: instances
    SemanticTokenType::PROPERTY,  // 5: fields
    SemanticTokenType::STRING,    // 6
    SemanticTokenType::NUMBER,    // 7
    SemanticTokenType::COMMENT,   // 8: comments and docs
    SemanticTokenType::NAMESPACE, // 9: paths
    SemanticTokenType::PARAMETER, // 10: slots
    SemanticTokenType::OPERATOR,  // 11
];

pub fn legend() -> SemanticTokensLegend {
    SemanticTokensLegend {
        token_types: TYPES.to_vec(),
        token_modifiers: Vec::new(),
    }
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
    let names = names(analysis, file);
    let text = analysis.text(file);
    let mut out = Vec::new();
    let mut add = |lexed: oth_syntax::lexer::Lexed| {
        for (start, tok, end) in lexed.tokens {
            let kind = match &tok {
                Token::Read
                | Token::Watch
                | Token::List
                | Token::Stat
                | Token::Write
                | Token::Create
                | Token::Remove => 1,
                Token::Ident(n) => match names.get(&start) {
                    Some(&k) => k,
                    // A field's type written as a scalar is no name use.
                    None if n == "any" || othc::model::Scalar::parse(n).is_some() => 2,
                    None => 4,
                },
                Token::Str(_) => 6,
                Token::Int(_) | Token::Float(_) | Token::BadNumber => 7,
                Token::Path(_) => 9,
                Token::ContentType(_) => 2,
                Token::Arrow | Token::Star | Token::Pipe | Token::Question | Token::Eq => 11,
                Token::SchemaBody => continue,
                t if t
                    .keyword_text()
                    .is_some_and(|k| k.starts_with(char::is_alphabetic)) =>
                {
                    0
                }
                _ => continue,
            };
            out.push((start, end, kind));
        }
        for t in lexed.trivia {
            out.push((t.span.start(), t.span.end(), 8));
        }
    };
    let main = lex(text, 0, Mode::Main);
    // Each schema body is lexed as its format lexes it.
    let bodies: Vec<_> = main
        .tokens
        .iter()
        .filter(|(_, t, _)| matches!(t, Token::SchemaBody))
        .map(|&(start, _, end)| start..end)
        .collect();
    add(main);
    for body in bodies {
        add(lex(&text[body.clone()], body.start, Mode::Bson));
    }
    out.sort_unstable();
    out.dedup_by_key(|t| t.0);
    out
}

/// What each name of `file` (by where it starts) is.
fn names(analysis: &Analysis, file: FileId) -> HashMap<usize, u32> {
    let sym = |s: Sym| match s {
        Sym::Type(..) => 2,
        Sym::Object(_) | Sym::Image(_) => 3,
    };
    let uses = analysis
        .names
        .uses
        .iter()
        .map(|u| (Target::Sym(u.sym), u.at));
    uses.chain(analysis.occurrences())
        .filter(|(_, at)| at.file == file)
        .filter_map(|(t, at)| {
            let kind = match t {
                Target::Sym(s) => sym(s),
                Target::Instance(..) => 4,
                Target::Slot(..) => 10,
                Target::Member(..) => 5,
                Target::Entry(_) | Target::Wire(..) | Target::Export(..) | Target::Startup(..) => {
                    return None;
                }
            };
            Some((at.span.start(), kind))
        })
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
