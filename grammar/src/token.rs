//! The tokens of `.oth` files (logos), shared by the file grammar and the BSON
//! block grammar.
//!
//! Paths, content types, strings and numbers are scanned by callbacks that
//! validate them as they go. A malformed one records a [`SyntaxError`] in the
//! lexer's extras and still yields its token (marked invalid), so one bad path
//! is one error, never a parse error cascade.

use logos::{Lexer, Logos};

use crate::error::{ContentTypeProblem, NumberProblem, PathProblem, SyntaxError};
use crate::span::Span;

/// A path as written: `/`, `/dev/cons`, `/hosts/{name}`, `/files/**`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct PathText {
    pub segments: Vec<Segment>,
    /// False when the lexer reported it malformed (E0108); checks skip it.
    pub valid: bool,
}

/// A segment of a path or path pattern: the one representation the
/// grammar, the checker's model, the namespace rules and the runtime share
/// (the model calls it `Seg`).
#[derive(Clone, PartialEq, Eq, Hash, Debug, serde::Serialize, serde::Deserialize)]
pub enum Segment {
    Literal(String),
    Capture(String),
    /// `**`: zero or more segments; only ever last.
    Rest,
}

impl PathText {
    pub fn is_root(&self) -> bool {
        self.segments.is_empty()
    }

    /// Concrete: no captures and no `**`.
    pub fn is_concrete(&self) -> bool {
        self.segments
            .iter()
            .all(|s| matches!(s, Segment::Literal(_)))
    }
}

impl std::fmt::Display for PathText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.segments.is_empty() {
            return f.write_str("/");
        }
        for s in &self.segments {
            match s {
                Segment::Literal(l) => write!(f, "/{l}")?,
                Segment::Capture(c) => write!(f, "/{{{c}}}")?,
                Segment::Rest => f.write_str("/**")?,
            }
        }
        Ok(())
    }
}

impl std::fmt::Debug for PathText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")?;
        if !self.valid {
            f.write_str(" (malformed)")?;
        }
        Ok(())
    }
}

/// A media type as written: `text/plain`, `*/*`, `text/html; charset=utf-8`.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ContentTypeText {
    /// The source text, exactly. The lexer only finds where a content type
    /// ends and whether it is well formed; its parts are read from this
    /// text by one parser, the compiler's `model::ContentType::parse`.
    pub text: String,
    /// False when the lexer reported it malformed (E0107): it fits nothing.
    pub valid: bool,
}

impl std::fmt::Debug for ContentTypeText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.text)?;
        if !self.valid {
            f.write_str(" (malformed)")?;
        }
        Ok(())
    }
}

/// What the callbacks collect besides tokens.
#[derive(Default)]
pub struct Extras {
    /// Where the lexed text starts in its file, so callbacks make file spans.
    pub offset: usize,
    pub errors: Vec<SyntaxError>,
}

#[derive(Logos, Debug, Clone, PartialEq)]
#[logos(extras = Extras)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip "\u{FEFF}")]
pub enum Token {
    #[token("import")]
    Import,
    #[token("from")]
    From,
    #[token("as")]
    As,
    #[token("export")]
    Export,
    #[token("schemas")]
    Schemas,
    #[token("native")]
    Native,
    #[token("object")]
    Object,
    #[token("image")]
    Image,
    #[token("serves")]
    Serves,
    #[token("needs")]
    Needs,
    #[token("operator")]
    Operator,
    #[token("instance")]
    Instance,
    #[token("mount")]
    Mount,
    #[token("bind")]
    Bind,
    #[token("require")]
    Require,
    #[token("readonly")]
    Readonly,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("null")]
    Null,
    #[token("read")]
    Read,
    #[token("watch")]
    Watch,
    #[token("list")]
    List,
    #[token("stat")]
    Stat,
    #[token("write")]
    Write,
    #[token("create")]
    Create,
    #[token("remove")]
    Remove,

    /// `message` and `enum` are keywords only inside a BSON block: the block's
    /// token stream maps those identifiers to these (see `lexer::Mode::Bson`).
    KwMessage,
    KwEnum,

    #[regex("[A-Za-z_][A-Za-z0-9_]*", |lex| lex.slice().to_string())]
    Ident(String),

    /// `$type` and the like: a name only inside a BSON block, where the
    /// checker refuses it as a field name (E0307) with a better message than
    /// "unexpected character". Elsewhere it is E0101.
    #[regex(r"\$[A-Za-z0-9_$]*", |lex| lex.slice().to_string())]
    DollarName(String),

    #[token("\"", lex_string)]
    Str(String),

    #[regex("-?[0-9][0-9_]*", lex_decimal, priority = 5)]
    #[regex("0x[0-9a-fA-F_]+", lex_hex, priority = 5)]
    Int(i128),

    #[regex(
        r"-?[0-9][0-9_]*\.[0-9][0-9_]*([eE][+-]?[0-9]+)?",
        lex_float,
        priority = 5
    )]
    Float(f64),

    /// Anything number-shaped that is not a number: `12ab`, `1.`, `0x`, `1e5`.
    #[regex(
        r"-?[0-9][A-Za-z0-9_]*(\.[A-Za-z0-9_+\-]*)?",
        lex_bad_number,
        priority = 3
    )]
    BadNumber,

    #[token("/", lex_path)]
    Path(Box<PathText>),

    /// A word directly followed by `/` always starts a content type.
    #[regex(r"[A-Za-z0-9*][A-Za-z0-9!#$&^_.+\-*]*/", lex_content_type)]
    ContentType(Box<ContentTypeText>),

    /// The raw text of a `schemas` block body; produced by the token stream,
    /// never by logos.
    SchemaBody(String),

    #[regex("##[^\n]*", |lex| doc_text(lex.slice()), priority = 10, allow_greedy = true)]
    Doc(String),
    #[regex("#[^\n]*", |lex| lex.slice()[1..].to_string(), priority = 5, allow_greedy = true)]
    Comment(String),

    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("=")]
    Eq,
    #[token("?")]
    Question,
    #[token("->")]
    Arrow,
    #[token("*")]
    Star,
    #[token("|")]
    Pipe,
}

impl Token {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Token::Ident(s) | Token::DollarName(s) => format!("name `{s}`"),
            Token::Str(_) => "string".into(),
            Token::Int(_) | Token::Float(_) | Token::BadNumber => "number".into(),
            Token::Path(p) => format!("path `{p}`"),
            Token::ContentType(c) => format!("content type `{}`", c.text),
            Token::SchemaBody(_) => "schema block body".into(),
            Token::Doc(_) => "doc comment".into(),
            Token::Comment(_) => "comment".into(),
            other => format!("`{}`", other.keyword_text().unwrap_or("?")),
        }
    }

    /// The fixed spelling of keywords and punctuation.
    pub fn keyword_text(&self) -> Option<&'static str> {
        Some(match self {
            Token::Import => "import",
            Token::From => "from",
            Token::As => "as",
            Token::Export => "export",
            Token::Schemas => "schemas",
            Token::Native => "native",
            Token::Object => "object",
            Token::Image => "image",
            Token::Serves => "serves",
            Token::Needs => "needs",
            Token::Operator => "operator",
            Token::Instance => "instance",
            Token::Mount => "mount",
            Token::Bind => "bind",
            Token::Require => "require",
            Token::Readonly => "readonly",
            Token::True => "true",
            Token::False => "false",
            Token::Null => "null",
            Token::Read => "read",
            Token::Watch => "watch",
            Token::List => "list",
            Token::Stat => "stat",
            Token::Write => "write",
            Token::Create => "create",
            Token::Remove => "remove",
            Token::KwMessage => "message",
            Token::KwEnum => "enum",
            Token::LBrace => "{",
            Token::RBrace => "}",
            Token::LBracket => "[",
            Token::RBracket => "]",
            Token::Colon => ":",
            Token::Comma => ",",
            Token::Eq => "=",
            Token::Question => "?",
            Token::Arrow => "->",
            Token::Star => "*",
            Token::Pipe => "|",
            _ => return None,
        })
    }
}

fn doc_text(slice: &str) -> String {
    let t = &slice[2..];
    t.strip_prefix(' ').unwrap_or(t).trim_end().to_string()
}

/// The current token's span in its file.
fn span_of(lex: &Lexer<Token>) -> Span {
    Span::from(lex.span()).shift(lex.extras.offset)
}

/// Digits as written, without their `_` separators.
fn digits(s: &str) -> String {
    s.chars().filter(|c| *c != '_').collect()
}

/// How many bytes at the start of `s` satisfy `keep`.
fn run_len(s: &str, keep: impl Fn(char) -> bool) -> usize {
    s.find(|c: char| !keep(c)).unwrap_or(s.len())
}

fn lex_decimal(lex: &mut Lexer<Token>) -> i128 {
    let digits = digits(lex.slice());
    match digits.parse::<i128>() {
        Ok(v) => v,
        Err(_) => {
            let span = span_of(lex);
            lex.extras.errors.push(SyntaxError::InvalidNumber {
                span,
                reason: NumberProblem::TooLarge,
            });
            0
        }
    }
}

fn lex_hex(lex: &mut Lexer<Token>) -> i128 {
    let digits = digits(&lex.slice()[2..]);
    let span = span_of(lex);
    match i128::from_str_radix(&digits, 16) {
        Ok(v) => v,
        Err(_) => {
            let reason = if digits.is_empty() {
                NumberProblem::BadDigits
            } else {
                NumberProblem::TooLarge
            };
            lex.extras
                .errors
                .push(SyntaxError::InvalidNumber { span, reason });
            0
        }
    }
}

fn lex_float(lex: &mut Lexer<Token>) -> f64 {
    // The regex admits only well-formed floats, which always parse.
    digits(lex.slice()).parse::<f64>().unwrap_or(0.0)
}

fn lex_bad_number(lex: &mut Lexer<Token>) {
    let span = span_of(lex);
    lex.extras.errors.push(SyntaxError::InvalidNumber {
        span,
        reason: NumberProblem::BadDigits,
    });
}

/// Scans a string after its opening quote. Stops at the closing quote, or at
/// the end of the line (unterminated: E0102).
fn lex_string(lex: &mut Lexer<Token>) -> String {
    let rest = lex.remainder();
    let start = span_of(lex).start;
    let mut out = String::new();
    let mut chars = rest.char_indices().peekable();
    let mut consumed = rest.len();
    let mut terminated = false;
    while let Some((i, c)) = chars.next() {
        match c {
            '"' => {
                consumed = i + 1;
                terminated = true;
                break;
            }
            '\n' => {
                consumed = i;
                break;
            }
            '\\' => {
                let esc_start = start + 1 + i;
                match chars.next() {
                    Some((_, 'n')) => out.push('\n'),
                    Some((_, 'r')) => out.push('\r'),
                    Some((_, 't')) => out.push('\t'),
                    Some((_, '0')) => out.push('\0'),
                    Some((_, '"')) => out.push('"'),
                    Some((_, '\\')) => out.push('\\'),
                    Some((j, 'u')) => {
                        // \u{1F600}: one to six hex digits naming a scalar value.
                        let tail = &rest[j + 1..];
                        // The `}` of `\u{...}`, looked for only up to the string's end.
                        let close = tail
                            .strip_prefix('{')
                            .and_then(|t| {
                                t.find(['}', '"', '\n'])
                                    .filter(|&i| t.as_bytes()[i] == b'}')
                            })
                            .map(|i| i + 1);
                        let parsed = close
                            .map(|end| &tail[1..end])
                            .filter(|h| !h.is_empty() && h.len() <= 6)
                            .and_then(|h| u32::from_str_radix(h, 16).ok())
                            .and_then(char::from_u32);
                        // Bytes of `{...}` after the `u`, if it is closed.
                        let len = close.map_or(0, |end| end + 1);
                        // Skip them: `chars` yields byte offsets into `rest`.
                        let resume = j + 1 + len;
                        while chars.next_if(|&(k, _)| k < resume).is_some() {}
                        match parsed {
                            Some(ch) => out.push(ch),
                            None => {
                                let end = start + 1 + j + 1 + len;
                                lex.extras.errors.push(SyntaxError::InvalidEscape {
                                    span: Span::new(esc_start, end),
                                    escape: format!("\\u{}", &tail[..len]),
                                });
                            }
                        }
                    }
                    Some((j, other)) if other != '\n' => {
                        lex.extras.errors.push(SyntaxError::InvalidEscape {
                            span: Span::new(esc_start, start + 1 + j + other.len_utf8()),
                            escape: format!("\\{other}"),
                        });
                        out.push(other);
                    }
                    _ => {
                        // A backslash at the end of the line: the string is unterminated.
                        consumed = i + 1;
                        break;
                    }
                }
            }
            c => out.push(c),
        }
    }
    lex.bump(consumed);
    if !terminated {
        let span = span_of(lex);
        lex.extras
            .errors
            .push(SyntaxError::UnterminatedString { span });
    }
    out
}

fn is_seg_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '-')
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Scans a path after its first `/`. A `{` is part of the path only right after
/// a `/` (a capture), so `needs /dev/cons{` still opens a block.
fn lex_path(lex: &mut Lexer<Token>) -> Box<PathText> {
    let rest = lex.remainder();
    let bytes = rest.as_bytes();
    let mut pos = 0;
    let mut segments = Vec::new();
    let mut problem: Option<PathProblem> = None;
    loop {
        // At the start of a segment, just after a `/`.
        let c = rest[pos..].chars().next();
        match c {
            Some('{') => {
                let tail = &rest[pos + 1..];
                let len = run_len(tail, |c| c.is_ascii_alphanumeric() || c == '_');
                let name = &tail[..len];
                if tail[len..].starts_with('}') && is_ident(name) {
                    segments.push(Segment::Capture(name.to_string()));
                    pos += len + 2;
                } else {
                    let closed = tail[len..].starts_with('}');
                    pos += 1 + len + usize::from(closed);
                    problem.get_or_insert(PathProblem::BadCapture(format!(
                        "{{{name}{}",
                        if closed { "}" } else { "" }
                    )));
                    segments.push(Segment::Capture(name.to_string()));
                }
            }
            Some(c) if is_seg_char(c) || c == '*' => {
                let len = run_len(&rest[pos..], |c| is_seg_char(c) || c == '*');
                let seg = &rest[pos..pos + len];
                pos += len;
                if seg == "**" {
                    segments.push(Segment::Rest);
                } else if seg.contains('*') {
                    problem.get_or_insert(PathProblem::BadStars(seg.to_string()));
                    segments.push(Segment::Literal(seg.to_string()));
                } else {
                    if seg == "." || seg == ".." {
                        problem.get_or_insert(PathProblem::DotSegment(seg.to_string()));
                    }
                    segments.push(Segment::Literal(seg.to_string()));
                }
            }
            Some('/') => {
                problem.get_or_insert(PathProblem::EmptySegment);
            }
            _ => {
                // Nothing after this `/`: the root path, or a trailing slash.
                if !segments.is_empty() {
                    problem.get_or_insert(PathProblem::TrailingSlash);
                }
                break;
            }
        }
        if bytes.get(pos) == Some(&b'/') {
            pos += 1;
            continue;
        }
        // A character that cannot follow a path directly, like `/a"b` or `/a\b`.
        if let Some(c) = rest[pos..].chars().next()
            && !c.is_whitespace()
            && !matches!(c, '{' | '}' | '[' | ']' | ',' | ':' | '#' | '|' | '=')
        {
            problem.get_or_insert(PathProblem::BadCharacter(c));
            let len = run_len(&rest[pos..], |c| {
                !(c.is_whitespace() || matches!(c, '{' | '}' | ','))
            });
            pos += len;
        }
        break;
    }
    if problem.is_none()
        && let Some(i) = segments.iter().position(|s| *s == Segment::Rest)
        && i + 1 != segments.len()
    {
        problem = Some(PathProblem::RestNotLast);
    }
    lex.bump(pos);
    let valid = problem.is_none();
    if let Some(reason) = problem {
        let span = span_of(lex);
        lex.extras
            .errors
            .push(SyntaxError::MalformedPath { span, reason });
    }
    Box::new(PathText { segments, valid })
}

fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c)
}

/// Scans a content type after `TYPE/`: a subtype, then `; name=value`
/// parameters (spaces allowed around `;`).
fn lex_content_type(lex: &mut Lexer<Token>) -> Box<ContentTypeText> {
    let ty = lex.slice()[..lex.slice().len() - 1].to_string();
    let rest = lex.remainder();
    let mut pos = 0;
    let mut problem: Option<ContentTypeProblem> = None;
    let valid_ty =
        ty == "*" || (ty.starts_with(|c: char| c.is_ascii_alphanumeric()) && !ty.contains('*'));
    if !valid_ty {
        problem = Some(ContentTypeProblem::BadType(ty.clone()));
    }
    let subtype: String;
    if rest.starts_with('*') {
        subtype = "*".into();
        pos = 1;
    } else if rest.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        let len = run_len(rest, is_token_char);
        subtype = rest[..len].to_string();
        pos = len;
        if ty == "*" {
            problem.get_or_insert(ContentTypeProblem::WildcardTypeConcreteSubtype(
                subtype.clone(),
            ));
        }
    } else {
        subtype = String::new();
        problem.get_or_insert(ContentTypeProblem::NoSubtype(ty.clone()));
    }
    if !subtype.is_empty() {
        loop {
            let after_ws = rest[pos..].trim_start_matches([' ', '\t']);
            if !after_ws.starts_with(';') {
                break;
            }
            let semi = rest.len() - after_ws.len();
            let p = semi + 1;
            let p = rest.len() - rest[p..].trim_start_matches([' ', '\t']).len();
            let name_len = run_len(&rest[p..], is_token_char);
            let name = &rest[p..p + name_len];
            let mut q = p + name_len;
            if name.is_empty() || !rest[q..].starts_with('=') {
                problem.get_or_insert(ContentTypeProblem::BadParameter);
                pos = q;
                break;
            }
            q += 1;
            if rest[q..].starts_with('"') {
                match rest[q + 1..].find(['"', '\n']) {
                    Some(end) if rest.as_bytes()[q + 1 + end] == b'"' => {
                        q += end + 2;
                    }
                    _ => {
                        problem.get_or_insert(ContentTypeProblem::UnterminatedQuotedValue);
                        pos = q;
                        break;
                    }
                }
            } else {
                let len = run_len(&rest[q..], is_token_char);
                if len == 0 {
                    problem.get_or_insert(ContentTypeProblem::MissingValue(name.to_string()));
                    pos = q;
                    break;
                }
                q += len;
            }
            pos = q;
        }
    }
    if problem.is_some() {
        // Swallow the rest of the malformed word so it is one error.
        let len = run_len(&rest[pos..], |c| {
            !(c.is_whitespace() || matches!(c, '{' | '}' | '[' | ']' | ','))
        });
        pos += len;
    }
    lex.bump(pos);
    let text = lex.slice().to_string();
    let valid = problem.is_none();
    if let Some(reason) = problem {
        let span = span_of(lex);
        lex.extras
            .errors
            .push(SyntaxError::MalformedContentType { span, reason });
    }
    Box::new(ContentTypeText { text, valid })
}
