//! What each token of a file is, for colouring it: names by what they
//! resolved to (a type, an object, an instance, a field, a slot), so
//! `Greeting` is coloured as a type wherever it is written; verbs, paths,
//! content types, literals, comments and operators by their kind. An
//! editor's protocol only encodes this (`othc-lsp`'s semantic tokens).

use std::collections::HashMap;

use oth_syntax::lexer::{Lexed, Mode, lex};
use oth_syntax::token::Token;

use super::{Analysis, Target};
use crate::check::Sym;
use crate::source::FileId;

/// What a token is. (Two at one place, which never happens, would be
/// told apart by this order.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Highlight {
    Keyword,
    Verb,
    /// A message type, an enum, a scalar type or a content type.
    Type,
    /// An object or an image.
    Object,
    Instance,
    /// A field or an enum value.
    Field,
    String,
    Number,
    /// A comment or a doc comment.
    Comment,
    Path,
    Slot,
    Operator,
}

/// Every token of `file` worth colouring: (start, end, what it is), by
/// start, one per place.
pub fn highlights(analysis: &Analysis, file: FileId) -> Vec<(usize, usize, Highlight)> {
    let names = names(analysis, file);
    let text = analysis.text(file);
    let mut out = Vec::new();
    let mut add = |lexed: Lexed| {
        for (start, tok, end) in lexed.tokens {
            let kind = match &tok {
                Token::Read
                | Token::Watch
                | Token::List
                | Token::Stat
                | Token::Write
                | Token::Create
                | Token::Remove => Highlight::Verb,
                Token::Ident(n) => match names.get(&start) {
                    Some(&k) => k,
                    // A field's type written as a scalar is no name use.
                    None if n == "any" || crate::model::Scalar::parse(n).is_some() => {
                        Highlight::Type
                    }
                    None => Highlight::Instance,
                },
                Token::Str(_) => Highlight::String,
                Token::Int(_) | Token::Float(_) | Token::BadNumber => Highlight::Number,
                Token::Path(_) => Highlight::Path,
                Token::ContentType(_) => Highlight::Type,
                Token::Arrow | Token::Star | Token::Pipe | Token::Question | Token::Eq => {
                    Highlight::Operator
                }
                Token::SchemaBody => continue,
                t if t
                    .keyword_text()
                    .is_some_and(|k| k.starts_with(char::is_alphabetic)) =>
                {
                    Highlight::Keyword
                }
                _ => continue,
            };
            out.push((start, end, kind));
        }
        for t in lexed.trivia {
            out.push((t.span.start(), t.span.end(), Highlight::Comment));
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

/// What each name of `file` (by where it starts) resolved to.
fn names(analysis: &Analysis, file: FileId) -> HashMap<usize, Highlight> {
    let uses = analysis
        .names
        .uses
        .iter()
        .map(|u| (Target::Sym(u.sym), u.at));
    uses.chain(analysis.occurrences())
        .filter(|(_, at)| at.file == file)
        .filter_map(|(t, at)| {
            let kind = match t {
                Target::Sym(Sym::Type(..)) => Highlight::Type,
                Target::Sym(Sym::Object(_) | Sym::Image(_)) => Highlight::Object,
                Target::Instance(..) => Highlight::Instance,
                Target::Slot(..) => Highlight::Slot,
                Target::Member(..) => Highlight::Field,
                Target::Entry(_) | Target::Wire(..) | Target::Export(..) | Target::Startup(..) => {
                    return None;
                }
            };
            Some((at.span.start(), kind))
        })
        .collect()
}
