//! `oth-syntax`: turns `.oth` text into syntax trees, and nothing else.
//!
//! - [`parse_file`]: a `.oth` file (imports, schema blocks, objects, images);
//! - [`parse_values`]: a value file, or one `--set` assignment;
//! - [`parse_bson`]: the body of a `schemas application/bson { ... }` block.
//!
//! Each returns the tree it could build, the comments it saw, and every syntax
//! problem (lexical errors, parse errors after recovery, W0003 for a doc
//! comment attached to nothing). They never fail and never panic.

// lalrpop's `ParseError` is what its parsers return; it is converted to a
// `SyntaxError` at once, so its size never travels.
#![allow(clippy::result_large_err)]

pub mod ast;
pub mod chunks;
mod docs;
pub mod error;
pub mod lexer;
pub mod span;
pub mod token;

use lalrpop_util::{ErrorRecovery, ParseError, lalrpop_mod};

pub use error::SyntaxError;
pub use lexer::{Trivia, TriviaKind};
pub use span::{MAX_SOURCE_BYTES, Span};

lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    oth
);
lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused)]
    bson
);

use lexer::Mode;
use token::Token;

/// The grammars' own error type: they never raise one (the token stream
/// reports lexical errors beside the tokens, and recovery records parse
/// errors), so none can exist. Uninhabited, it costs nothing to carry: the
/// tokens the parser reads are `Result`s of it.
pub enum NoError {}

/// A tree and what was found while building it.
#[derive(Debug)]
pub struct Parsed<T> {
    pub tree: T,
    /// Comments and doc comments, in source order.
    pub trivia: Vec<Trivia>,
    /// Sorted by position. Codes starting with `W` are warnings.
    pub errors: Vec<SyntaxError>,
    /// The parser met an error it could not recover from: the tree is the
    /// empty one, whatever came before the error.
    pub gave_up: bool,
}

/// What the grammars record while recovering from errors.
///
/// lalrpop resumes after an error at the first token that can follow it. When
/// that is the very token that failed (nothing was dropped), the member it
/// restarts may fail again for the same reason: `since time }` fails at
/// `time`, restarts a field at `time`, and fails at `}`. Such an echo, an
/// error with no member completed since a recovery that dropped nothing, is
/// not reported.
#[derive(Default)]
pub struct Recovery {
    errors: Vec<ParseError<usize, Token, NoError>>,
    completed: usize,
    /// Members completed at the last error, and whether its recovery dropped nothing.
    last: Option<(usize, bool)>,
}

impl Recovery {
    fn error(&mut self, e: ErrorRecovery<usize, Token, NoError>) {
        let echo = matches!(self.last, Some((at, true)) if at == self.completed);
        self.last = Some((self.completed, e.dropped_tokens.is_empty()));
        if !echo {
            self.errors.push(e.error);
        }
    }

    fn done(&mut self) {
        self.completed += 1;
    }
}

/// Parses a `.oth` file.
pub fn parse_file(src: &str) -> Parsed<ast::File> {
    run(
        src,
        0,
        Mode::Main,
        ast::File { items: Vec::new() },
        |rec, toks| oth::FileParser::new().parse(rec, toks),
        docs::attach_file,
    )
}

/// Parses a value file (`slot = Value` lines); `--set` values parse the same way.
pub fn parse_values(src: &str) -> Parsed<ast::ValueFile> {
    run(
        src,
        0,
        Mode::Main,
        ast::ValueFile { lines: Vec::new() },
        |rec, toks| oth::ValueFileParser::new().parse(rec, toks),
        |_, _| {},
    )
}

/// Parses a BSON block body that starts at byte `offset` of its file; spans in
/// the result are positions in that file.
///
/// A large block is parsed in pieces on the machine's cores, with the same
/// result as one parse (see [`chunks`]).
pub fn parse_bson(body: &str, offset: usize) -> Parsed<ast::bson::Block> {
    if body.len() < chunks::MIN_PARALLEL_BYTES {
        return parse_bson_whole(body, offset);
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    chunks::parse_in_pieces(body, offset, cores.min(8), parse_bson_whole)
}

/// [`parse_bson`] in one piece, on this thread.
pub fn parse_bson_whole(body: &str, offset: usize) -> Parsed<ast::bson::Block> {
    run(
        body,
        offset,
        Mode::Bson,
        ast::bson::Block { decls: Vec::new() },
        |rec, toks| bson::BlockParser::new().parse(rec, toks),
        docs::attach_bson,
    )
}

/// What the grammars read: the balanced token stream.
type Toks<'a> = &'a mut dyn Iterator<Item = Result<lexer::Spanned, NoError>>;

fn run<T>(
    src: &str,
    offset: usize,
    mode: Mode,
    empty: T,
    parse: impl FnOnce(&mut Recovery, Toks) -> Result<T, ParseError<usize, Token, NoError>>,
    attach: impl FnOnce(&mut T, &mut docs::Docs),
) -> Parsed<T> {
    if offset + src.len() > span::MAX_SOURCE_BYTES {
        return Parsed {
            tree: empty,
            trivia: Vec::new(),
            errors: vec![SyntaxError::TooLarge {
                len: offset + src.len(),
                limit: span::MAX_SOURCE_BYTES,
            }],
            gave_up: true,
        };
    }
    let mut stream = lexer::TokenStream::new(src, offset, mode);
    let end = offset + src.len();
    let mut recovery = Recovery::default();
    let result = parse(&mut recovery, &mut stream.by_ref().map(Ok));
    let lexer::StreamEnd {
        trivia,
        mut errors,
        injected,
        too_deep,
        starts_after_trivia: starts,
    } = stream.finish();
    let mut parse_errors = recovery.errors;
    let gave_up = result.is_err();
    let mut tree = match result {
        Ok(tree) => tree,
        Err(e) => {
            parse_errors.push(e);
            empty
        }
    };
    for e in parse_errors {
        let e = convert(e, end);
        // Errors where a block was closed for the user are the E0104's echo,
        // and errors where brackets were left out, the E0109's.
        let at = e.span().start();
        if matches!(
            e,
            SyntaxError::UnexpectedToken { .. } | SyntaxError::UnexpectedEof { .. }
        ) && (injected.contains(&at)
            || too_deep.iter().any(|r| r.start() <= at && at <= r.end()))
        {
            continue;
        }
        errors.push(e);
    }
    let mut docs = docs::Docs::new(src, offset, &trivia, &starts);
    attach(&mut tree, &mut docs);
    errors.extend(docs.unattached());
    errors.sort_by_key(|e| e.span().start());
    Parsed {
        tree,
        trivia,
        errors,
        gave_up,
    }
}

fn convert(e: ParseError<usize, Token, NoError>, end: usize) -> SyntaxError {
    match e {
        ParseError::InvalidToken { location } => SyntaxError::UnexpectedChar {
            span: Span::new(location, location + 1),
            text: String::new(),
        },
        ParseError::UnrecognizedEof { location, expected } => SyntaxError::UnexpectedEof {
            span: Span::point(location.max(end)),
            expected: describe_expected(&expected),
        },
        ParseError::UnrecognizedToken {
            token: (s, tok, e),
            expected,
        } => SyntaxError::UnexpectedToken {
            span: Span::new(s, e),
            found: tok.describe(),
            expected: describe_expected(&expected),
        },
        ParseError::ExtraToken { token: (s, tok, e) } => SyntaxError::UnexpectedToken {
            span: Span::new(s, e),
            found: tok.describe(),
            expected: Vec::new(),
        },
        ParseError::User { error } => match error {},
    }
}

/// Turns lalrpop's terminal names into words for people: `"name"` → "a name",
/// `"}"` → "`}`". A long run of keywords that are only there because any name
/// fits (field names) folds into "a name".
fn describe_expected(expected: &[String]) -> Vec<String> {
    /// Terminals that stand for a kind of token rather than fixed text.
    const CATEGORIES: [(&str, &str); 7] = [
        ("name", "a name"),
        ("string", "a string"),
        ("integer", "a number"),
        ("float", "a number"),
        ("bad number", "a number"),
        ("path", "a path"),
        ("content type", "a content type"),
    ];
    let names: Vec<&str> = expected.iter().map(|s| s.trim_matches('"')).collect();
    let is_keyword = |n: &str| {
        n.chars().all(|c| c.is_ascii_lowercase()) && !CATEGORIES.iter().any(|(c, _)| *c == n)
    };
    let fold_keywords =
        names.contains(&"name") && names.iter().filter(|n| is_keyword(n)).count() > 10;
    let mut out: Vec<String> = Vec::new();
    for n in names {
        let word = match CATEGORIES.iter().find(|(c, _)| *c == n) {
            Some((_, word)) => word.to_string(),
            None if n == "schema body" || (fold_keywords && is_keyword(n)) => continue,
            None => format!("`{n}`"),
        };
        if !out.contains(&word) {
            out.push(word);
        }
    }
    out
}

/// Whether `word` is spelt like a keyword of `.oth` files or of schema
/// blocks (`message`, `enum`): a name an editor must not rename to.
pub fn is_keyword(word: &str) -> bool {
    if word == "message" || word == "enum" {
        return true;
    }
    let lexed = lexer::lex(word, 0, lexer::Mode::Main);
    matches!(lexed.tokens.as_slice(), [(0, t, end)] if *end == word.len() && t.keyword_text().is_some())
}

#[cfg(test)]
mod keyword_tests {
    #[test]
    fn keywords_are_known_by_their_spelling() {
        for k in [
            "import", "mount", "readonly", "read", "remove", "message", "enum",
        ] {
            assert!(super::is_keyword(k), "{k}");
        }
        for n in ["Greeter", "reader", "mounted", "x", "list_all"] {
            assert!(!super::is_keyword(n), "{n}");
        }
    }
}
