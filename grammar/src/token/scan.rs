//! The callbacks that scan a token's extent and validate it as they go:
//! strings, numbers, paths and content types. A malformed one records a
//! [`SyntaxError`] in the lexer's extras and still yields its token.

use logos::Lexer;

use super::{ContentTypeText, PathText, Segment, Token};
use crate::error::{ContentTypeProblem, NumberProblem, PathProblem, SyntaxError};
use crate::span::Span;

pub(super) fn doc_text(slice: &str) -> String {
    let t = &slice[2..];
    t.strip_prefix(' ').unwrap_or(t).trim_end().to_string()
}

/// The current token's span in its file.
pub(super) fn span_of(lex: &Lexer<Token>) -> Span {
    Span::from(lex.span()).shift(lex.extras.offset)
}

/// Digits as written, without their `_` separators.
pub(super) fn digits(s: &str) -> String {
    s.chars().filter(|c| *c != '_').collect()
}

/// How many bytes at the start of `s` satisfy `keep`.
pub(super) fn run_len(s: &str, keep: impl Fn(char) -> bool) -> usize {
    s.find(|c: char| !keep(c)).unwrap_or(s.len())
}

pub(super) fn lex_decimal(lex: &mut Lexer<Token>) -> i128 {
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

pub(super) fn lex_hex(lex: &mut Lexer<Token>) -> i128 {
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

pub(super) fn lex_float(lex: &mut Lexer<Token>) -> f64 {
    // The regex admits only well-formed floats, which always parse.
    digits(lex.slice()).parse::<f64>().unwrap_or(0.0)
}

pub(super) fn lex_bad_number(lex: &mut Lexer<Token>) {
    let span = span_of(lex);
    lex.extras.errors.push(SyntaxError::InvalidNumber {
        span,
        reason: NumberProblem::BadDigits,
    });
}

/// Scans a string after its opening quote. Stops at the closing quote, or at
/// the end of the line (unterminated: E0102).
pub(super) fn lex_string(lex: &mut Lexer<Token>) -> String {
    let rest = lex.remainder();
    let start = span_of(lex).start();
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

pub(super) fn is_seg_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '~' | '-')
}

pub(super) fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Scans a path after its first `/`. A `{` is part of the path only right after
/// a `/` (a capture), so `needs /dev/cons{` still opens a block.
pub(super) fn lex_path(lex: &mut Lexer<Token>) -> Box<PathText> {
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

pub(super) fn is_token_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || "!#$&^_.+-".contains(c)
}

/// Scans a content type after `TYPE/`: a subtype, then `; name=value`
/// parameters (spaces allowed around `;`).
pub(super) fn lex_content_type(lex: &mut Lexer<Token>) -> Box<ContentTypeText> {
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
