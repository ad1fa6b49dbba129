//! Turns source text into the token list the grammars read.
//!
//! Three jobs sit between logos and lalrpop:
//! - comments and doc comments go to a side table ([`Trivia`]) instead of the
//!   grammar, for doc attachment, the formatter and the language server;
//! - the body of `schemas CONTENT-TYPE { ... }` is captured raw, up to the
//!   matching brace, as one [`Token::SchemaBody`]: it belongs to the format;
//! - brackets are balanced. A `{` or `[` left open is reported once (E0104) at
//!   its opener and closed with synthetic tokens where the next top-level item
//!   begins (or at the end of the file), so the items after it still parse.

use logos::Logos;

use crate::error::{SyntaxError, UnclosedBy};
use crate::span::Span;
use crate::token::{Extras, Token};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// A `.oth` file or a value file.
    Main,
    /// The body of a BSON schema block: `message` and `enum` are keywords.
    Bson,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TriviaKind {
    /// `# ...`
    Comment,
    /// `## ...`
    Doc,
}

/// A comment, kept beside the tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct Trivia {
    pub kind: TriviaKind,
    /// The text after `#` (comments) or after `## ` (docs).
    pub text: String,
    pub span: Span,
}

pub type Spanned = (usize, Token, usize);

pub struct Lexed {
    pub tokens: Vec<Spanned>,
    pub trivia: Vec<Trivia>,
    pub errors: Vec<SyntaxError>,
    /// Where synthetic closers were inserted: parse errors there are
    /// consequences of an E0104 already reported.
    pub injected: Vec<usize>,
}

/// Lexes `src`, whose first byte is at `offset` in its file, into a list.
/// The parsers read a [`TokenStream`] instead, which never holds the list.
pub fn lex(src: &str, offset: usize, mode: Mode) -> Lexed {
    let mut stream = TokenStream::new(src, offset, mode);
    let tokens: Vec<Spanned> = stream.by_ref().collect();
    let done = stream.finish();
    Lexed {
        tokens,
        trivia: done.trivia,
        errors: done.errors,
        injected: done.injected,
    }
}

/// How deep brackets may nest (`[`, `{`): deeper ones are an error (E0109)
/// and are left out of the token stream, their contents kept, so every
/// recursive walk of a tree (lowering, the literal encoder, the printer, a
/// runtime reading a module's header) has a bounded depth whatever the
/// input. No schema or value people write comes near it.
pub const MAX_NESTING: usize = 64;

/// What a [`TokenStream`] gathered beside its tokens.
pub struct StreamEnd {
    pub trivia: Vec<Trivia>,
    pub errors: Vec<SyntaxError>,
    pub injected: Vec<usize>,
    /// The stretches of text nested deeper than [`MAX_NESTING`] (E0109):
    /// parse errors inside them are its echo.
    pub too_deep: Vec<Span>,
    /// The start of the first token after each trivia item, in order: all
    /// doc attachment needs to know of token positions.
    pub starts_after_trivia: Vec<usize>,
}

/// Tokens, one at a time, balanced: what the grammars read. Large inputs
/// are never held as a token list.
pub struct TokenStream<'src> {
    lex: logos::Lexer<'src, Token>,
    src: &'src str,
    offset: usize,
    mode: Mode,
    /// The next raw token (`None` at the end), when it was read ahead for
    /// [`item_start`]'s test: only after a word that may begin an item,
    /// inside a block (most tokens are handed on without a look at the next).
    peeked: Option<Option<Spanned>>,
    /// Tokens ready to hand out (synthetic closers, then the real token).
    ready: std::collections::VecDeque<Spanned>,
    stack: Vec<(Token, Span)>,
    /// The last raw token was `schemas`.
    last_schemas: bool,
    /// The last raw token was a content type right after `schemas`.
    last_schema_type: bool,
    /// A schema body read with its `{`, handed out next.
    body: Option<Spanned>,
    /// A run of characters no token starts with: one error, not one per byte.
    bad: Option<Span>,
    trivia_seen: usize,
    ended: bool,
    /// Openers past [`MAX_NESTING`] still open, left out of the stream, and
    /// where the outermost of them began.
    excess: usize,
    deep_from: usize,
    end: StreamEnd,
}

impl<'src> TokenStream<'src> {
    pub fn new(src: &'src str, offset: usize, mode: Mode) -> TokenStream<'src> {
        TokenStream {
            lex: Token::lexer_with_extras(
                src,
                Extras {
                    offset,
                    errors: Vec::new(),
                },
            ),
            src,
            offset,
            mode,
            peeked: None,
            ready: std::collections::VecDeque::new(),
            stack: Vec::new(),
            last_schemas: false,
            last_schema_type: false,
            body: None,
            bad: None,
            trivia_seen: 0,
            ended: false,
            excess: 0,
            deep_from: 0,
            end: StreamEnd {
                trivia: Vec::new(),
                errors: Vec::new(),
                injected: Vec::new(),
                too_deep: Vec::new(),
                starts_after_trivia: Vec::new(),
            },
        }
    }

    /// Everything gathered; call once the stream is exhausted.
    pub fn finish(mut self) -> StreamEnd {
        // Drain what the parser did not read (it stopped at an error).
        while self.next().is_some() {}
        self.end.errors.append(&mut self.lex.extras.errors);
        self.end
    }

    /// Reports the run of unexpected characters just ended, if any (called
    /// before every token: the check inlines, the report does not).
    #[inline]
    fn flush_bad(&mut self) {
        if self.bad.is_some() {
            self.report_bad();
        }
    }

    #[cold]
    fn report_bad(&mut self) {
        if let Some(span) = self.bad.take() {
            self.end.errors.push(SyntaxError::UnexpectedChar {
                span: span.shift(self.offset),
                text: self.src[span.range()].to_string(),
            });
        }
    }

    /// The next token from logos, comments set aside, schema bodies captured.
    fn raw(&mut self) -> Option<Spanned> {
        if let Some(body) = self.body.take() {
            return Some(body);
        }
        let offset = self.offset;
        loop {
            let result = match self.lex.next() {
                Some(r) => r,
                None => {
                    self.flush_bad();
                    return None;
                }
            };
            let span: Span = self.lex.span().into();
            let tok = match result {
                Err(()) => {
                    match self.bad {
                        Some(b) if b.end() == span.start() => self.bad = Some(b.to(span)),
                        _ => {
                            self.flush_bad();
                            self.bad = Some(span);
                        }
                    }
                    continue;
                }
                Ok(tok) => tok,
            };
            self.flush_bad();
            let (s, e) = (span.start() + offset, span.end() + offset);
            let out = match tok {
                Token::Doc(text) => {
                    self.end.trivia.push(Trivia {
                        kind: TriviaKind::Doc,
                        text,
                        span: Span::new(s, e),
                    });
                    continue;
                }
                Token::Comment(text) => {
                    self.end.trivia.push(Trivia {
                        kind: TriviaKind::Comment,
                        text,
                        span: Span::new(s, e),
                    });
                    continue;
                }
                Token::KwMessage | Token::KwEnum if self.mode != Mode::Bson => {
                    // Spelled as the token is (both have a fixed spelling).
                    let word = tok.keyword_text().unwrap_or_default();
                    (s, Token::Ident(word.to_string()), e)
                }
                Token::DollarName(name) if self.mode == Mode::Bson => (s, Token::Ident(name), e),
                Token::DollarName(text) => {
                    self.end.errors.push(SyntaxError::UnexpectedChar {
                        span: Span::new(s, s + 1),
                        text: text[..1].to_string(),
                    });
                    continue;
                }
                Token::LBrace if self.mode == Mode::Main && self.last_schema_type => {
                    // `schemas CONTENT-TYPE {`: the body belongs to the format.
                    let body_start = span.end();
                    let body_len = schema_body_len(&self.src[body_start..]);
                    self.lex.bump(body_len);
                    self.body = Some((
                        body_start + offset,
                        Token::SchemaBody,
                        body_start + body_len + offset,
                    ));
                    (s, Token::LBrace, e)
                }
                tok => (s, tok, e),
            };
            if self.end.trivia.len() != self.trivia_seen {
                // The first token since a comment: where a doc before it attaches.
                self.trivia_seen = self.end.trivia.len();
                self.end.starts_after_trivia.push(out.0);
            }
            self.last_schema_type = self.last_schemas && matches!(out.1, Token::ContentType(_));
            self.last_schemas = matches!(out.1, Token::Schemas);
            return Some(out);
        }
    }

    /// Closes every opener above the first `keep`, reporting the innermost as
    /// unclosed (E0104) and queueing synthetic closers at `at`.
    fn close_above(&mut self, keep: usize, at: usize, noticed: Span, by: UnclosedBy) {
        self.end_too_deep(at);
        if keep >= self.stack.len() {
            // Nothing left open (every matched closer comes here).
            return;
        }
        let open: Vec<(Token, Span)> = self.stack.drain(keep..).collect();
        let Some(((_, innermost), enclosing)) = open.split_last() else {
            return;
        };
        self.end.errors.push(SyntaxError::Unclosed {
            opener: *innermost,
            others: enclosing.iter().rev().map(|(_, s)| *s).collect(),
            noticed,
            by,
        });
        self.end.injected.push(at);
        for (tok, _) in open.iter().rev() {
            self.ready.push_back((at, closer_for(tok), at));
        }
    }

    /// Ends the stretch nested too deep, if one is open, at `at`.
    fn end_too_deep(&mut self, at: usize) {
        if self.excess > 0 {
            self.excess = 0;
            self.end.too_deep.push(Span::new(self.deep_from, at));
        }
    }

    /// Reads the next raw token and balances brackets around it. Synthetic
    /// closers go to `ready`; the token itself is returned (unless it is
    /// left out), to be handed out after them.
    fn advance(&mut self) -> Option<Spanned> {
        let current = match self.peeked.take() {
            Some(t) => t,
            None => self.raw(),
        };
        let Some((s, tok, e)) = current else {
            if !self.ended {
                self.ended = true;
                let end = self.src.len() + self.offset;
                self.close_above(0, end, Span::point(end), UnclosedBy::EndOfFile);
            }
            return None;
        };
        if !self.stack.is_empty()
            && let Some(next_fits) = item_start(self.mode, &tok)
        {
            let next = self.raw();
            let starts = next_fits(next.as_ref().map(|(_, t, _)| t));
            self.peeked = Some(next);
            if starts {
                self.close_above(0, s, Span::new(s, e), UnclosedBy::NewItem);
            }
        }
        match tok {
            Token::LBrace | Token::LBracket
                if self.excess > 0 || self.stack.len() >= MAX_NESTING =>
            {
                if self.excess == 0 {
                    self.deep_from = s;
                    self.end.errors.push(SyntaxError::TooDeep {
                        span: Span::new(s, e),
                        limit: MAX_NESTING,
                    });
                }
                self.excess += 1;
                return None;
            }
            Token::RBrace | Token::RBracket if self.excess > 0 => {
                self.excess -= 1;
                if self.excess == 0 {
                    self.end.too_deep.push(Span::new(self.deep_from, e));
                }
                return None;
            }
            Token::LBrace | Token::LBracket => self.stack.push((tok.clone(), Span::new(s, e))),
            Token::RBrace | Token::RBracket => {
                let opener = if tok == Token::RBrace {
                    Token::LBrace
                } else {
                    Token::LBracket
                };
                // A closer that matches an outer opener closes the inner ones
                // too: they were left open (`{ a: [1, 2 }`).
                if let Some(i) = self.stack.iter().rposition(|(t, _)| *t == opener) {
                    self.close_above(i + 1, s, Span::new(s, e), UnclosedBy::OuterCloser);
                    self.stack.pop();
                }
                // A stray closer is left to the parser (E0103).
            }
            _ => {}
        }
        Some((s, tok, e))
    }
}

impl Iterator for TokenStream<'_> {
    type Item = Spanned;

    fn next(&mut self) -> Option<Spanned> {
        // A token left out (nested too deep) readies nothing: read on.
        loop {
            if let Some(t) = self.ready.pop_front() {
                return Some(t);
            }
            if self.ended {
                return None;
            }
            match self.advance() {
                // Most tokens come alone: no queue on the way.
                Some(t) if self.ready.is_empty() => return Some(t),
                Some(t) => self.ready.push_back(t),
                None => {}
            }
        }
    }
}

/// The length of a schema body: up to (not including) the brace matching the
/// one just read. Unclosed: the rest of the text.
pub fn schema_body_len(text: &str) -> usize {
    let mut depth = 1usize;
    let mut end = text.len();
    braces(text, |i, opens| {
        if opens {
            depth += 1;
        } else {
            depth -= 1;
            if depth == 0 {
                end = i;
                return false;
            }
        }
        true
    });
    end
}

/// Visits the braces of `text` that count: those outside double-quoted
/// strings (which end at a line break, as the lexer's do) and `#` comments.
/// `visit(i, opens)` is called for the brace at byte `i`, `{` or `}`, and
/// returns whether to go on. One scan for every reader of raw text that
/// must agree with the lexer on where blocks begin and end.
pub fn braces(text: &str, mut visit: impl FnMut(usize, bool) -> bool) {
    let bytes = text.as_bytes();
    let mut i = 0;
    loop {
        i = next_brace_or_quote(bytes, i);
        if i >= bytes.len() {
            return;
        }
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                    if bytes[i] == b'\\' {
                        i += 1;
                    }
                    i += 1;
                }
            }
            b'#' => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b @ (b'{' | b'}') if !visit(i, b == b'{') => return,
            _ => {}
        }
        i += 1;
    }
}

/// The index of the first `"`, `#`, `{` or `}` in `bytes` at or after `i`,
/// or `bytes.len()`. [`braces`] runs over whole schema bodies (megabytes,
/// before the parse can start), where these bytes are a few in a hundred:
/// eight bytes are tested at a time, as one word.
fn next_brace_or_quote(bytes: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    // The high bit of each byte of `word` equal to `b`, and maybe of bytes
    // above such a byte (a borrow carries up), never below the lowest one:
    // so the lowest bit set marks the first match exactly.
    fn equal_to(word: u64, b: u8) -> u64 {
        let x = word ^ (ONES * b as u64);
        x.wrapping_sub(ONES) & !x & HIGHS
    }
    while let Some(chunk) = bytes.get(i..i + 8) {
        let word = u64::from_le_bytes(chunk.try_into().unwrap_or_default());
        let found = equal_to(word, b'"')
            | equal_to(word, b'#')
            | equal_to(word, b'{')
            | equal_to(word, b'}');
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while i < bytes.len() && !matches!(bytes[i], b'"' | b'#' | b'{' | b'}') {
        i += 1;
    }
    i
}

/// A test of the token after one that may begin a top-level item.
type NextFits = fn(Option<&Token>) -> bool;

/// What the token after `tok` must be for the two to begin a top-level
/// item, when `tok` may begin one: if they do, an enclosing block must have
/// been left open. `None` for every other token, which is handed on without
/// reading the next.
fn item_start(mode: Mode, tok: &Token) -> Option<NextFits> {
    let fits: NextFits = match (mode, tok) {
        (Mode::Main, Token::Object | Token::Image) => |n| matches!(n, Some(Token::Ident(_))),
        (Mode::Main, Token::Import) => |n| matches!(n, Some(Token::LBrace)),
        (Mode::Main, Token::Schemas) => |n| matches!(n, Some(Token::ContentType(_))),
        (Mode::Main, Token::Native) => |n| matches!(n, Some(Token::Object)),
        (Mode::Main, Token::Export) => |n| {
            matches!(
                n,
                Some(Token::Object | Token::Image | Token::Schemas | Token::Native)
            )
        },
        (Mode::Bson, Token::KwMessage | Token::KwEnum) => |n| matches!(n, Some(Token::Ident(_))),
        _ => return None,
    };
    Some(fits)
}

fn closer_for(opener: &Token) -> Token {
    match opener {
        Token::LBracket => Token::RBracket,
        _ => Token::RBrace,
    }
}

/// The state of bracket balancing: what is open, and what has been emitted.
#[cfg(test)]
mod tests;
