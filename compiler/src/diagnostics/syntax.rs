//! The wording of syntax errors (the data is `oth_syntax::SyntaxError`).

/// How many enclosing openers an unclosed one's diagnostic labels.
const MAX_OPEN_LABELS: usize = 3;

use oth_syntax::error::{ContentTypeProblem, NumberProblem, PathProblem, UnclosedBy};
use oth_syntax::{Span, SyntaxError};

use super::{Code, Diagnostic, Label};
use crate::source::FileId;

fn list(words: &[String]) -> String {
    match words {
        [] => "nothing more".to_string(),
        [one] => one.clone(),
        [a, b] => format!("{a} or {b}"),
        _ => {
            let shown = &words[..words.len().min(8)];
            let (last, rest) = shown.split_last().expect("non-empty");
            if words.len() > shown.len() {
                format!("{}, {last}, …", rest.join(", "))
            } else {
                format!("{}, or {last}", rest.join(", "))
            }
        }
    }
}

pub fn to_diagnostic(file: FileId, e: &SyntaxError) -> Diagnostic {
    let at = |span: Span, msg: &str| Label::new(file, span, msg);
    match e {
        SyntaxError::UnexpectedChar { span, text } => {
            let shown = text.chars().next().map(|c| format!("{c:?}")).unwrap_or_default();
            let d = Diagnostic::new(
                Code::E0101,
                format!("unexpected character {shown}"),
                at(*span, "no token starts with this"),
            );
            match text.chars().next() {
                Some('\'') => d.with_help("strings use double quotes: \"like this\""),
                Some('-') => d.with_help("`-` only starts a negative number or `->`"),
                Some(';') => d.with_help("`;` only separates content-type parameters: `text/html; charset=utf-8`"),
                Some('/') => d.with_help("`//` is not a comment; comments start with `#`"),
                _ => d.with_help("remove it; comments start with `#`"),
            }
        }
        SyntaxError::UnterminatedString { span } => Diagnostic::new(
            Code::E0102,
            "unterminated string",
            at(*span, "this string has no closing quote on its line"),
        )
        .with_help("close it with `\"`; a string cannot span lines (write `\\n` for a line break)"),
        SyntaxError::UnexpectedToken {
            span,
            found,
            expected,
        } => {
            let d = Diagnostic::new(
                Code::E0103,
                format!("unexpected {found}"),
                at(*span, &format!("expected {}", list(expected))),
            );
            // A misspelt keyword: `reed` where `read` goes.
            let word = found.strip_prefix("name `").and_then(|w| w.strip_suffix('`'));
            let keywords: Vec<&str> = expected
                .iter()
                .filter_map(|e| e.strip_prefix('`').and_then(|e| e.strip_suffix('`')))
                .filter(|e| e.chars().all(|c| c.is_ascii_lowercase()))
                .collect();
            match word.and_then(|w| crate::diagnostics::suggest::closest(w, &keywords)) {
                Some(near) => d.with_help(format!("did you mean `{near}`?")),
                None if expected.iter().any(|e| e == "`read`") => d.with_help(
                    "an entry is `PATH [operator] VERB [TYPES] [-> TYPE [*]]`; the verbs are read, watch, list, stat, write, create and remove",
                ),
                None => d,
            }
        }
        SyntaxError::UnexpectedEof { span, expected } => Diagnostic::new(
            Code::E0103,
            "unexpected end of file",
            at(*span, &format!("expected {}", list(expected))),
        ),
        SyntaxError::Unclosed {
            opener,
            others,
            noticed,
            by,
        } => {
            let mut d = Diagnostic::new(
                Code::E0104,
                "unclosed block or bracket",
                at(*opener, "this is never closed"),
            );
            // A few of the enclosing openers, not all: a label each on one
            // long line is slow to draw and says nothing more.
            for o in others.iter().take(MAX_OPEN_LABELS) {
                d = d.with_label(at(*o, "and this, still open there"));
            }
            if others.len() > MAX_OPEN_LABELS {
                let more = others.len() - MAX_OPEN_LABELS;
                d = d.with_label(at(
                    others[MAX_OPEN_LABELS],
                    &format!("and {more} more enclosing this, all still open there"),
                ));
            }
            match by {
                UnclosedBy::EndOfFile => d
                    .with_label(at(*noticed, "the file ends here"))
                    .with_help("add the missing closing brace or bracket"),
                UnclosedBy::NewItem => d
                    .with_label(at(*noticed, "a new item starts here"))
                    .with_help("add the missing closing brace before this item"),
                UnclosedBy::OuterCloser => d
                    .with_label(at(*noticed, "this closes an enclosing block first"))
                    .with_help("close the inner one before this"),
            }
        }
        SyntaxError::InvalidEscape { span, escape } => Diagnostic::new(
            Code::E0105,
            format!("invalid escape `{escape}` in a string"),
            at(*span, "not an escape"),
        )
        .with_help("the escapes are \\\" \\\\ \\n \\r \\t \\0 and \\u{HEX} (1 to 6 hex digits)"),
        SyntaxError::InvalidNumber { span, reason } => match reason {
            NumberProblem::BadDigits => Diagnostic::new(
                Code::E0106,
                "invalid number literal",
                at(*span, "not a number"),
            )
            .with_help("numbers are 42, -7, 1_000, 0xff or 1.5 (a float needs digits on both sides of the dot, then an optional exponent: 2.5e3)"),
            NumberProblem::TooLarge => Diagnostic::new(
                Code::E0106,
                "number literal too large",
                at(*span, "too many digits for any integer type"),
            ),
        },
        SyntaxError::MalformedContentType { span, reason } => {
            let label = match reason {
                ContentTypeProblem::BadType(ty) => {
                    format!("`{ty}` is not a media type name (`*` or letters and digits)")
                }
                ContentTypeProblem::WildcardTypeConcreteSubtype(sub) => {
                    format!("a wildcard type takes a wildcard subtype: `*/*`, not `*/{sub}`")
                }
                ContentTypeProblem::NoSubtype(ty) => {
                    format!("`{ty}/` has no subtype (write `{ty}/SUBTYPE` or `{ty}/*`)")
                }
                ContentTypeProblem::BadParameter => "a parameter is `; name=value`".to_string(),
                ContentTypeProblem::UnterminatedQuotedValue => {
                    "unterminated quoted parameter value".to_string()
                }
                ContentTypeProblem::MissingValue(name) => format!("parameter `{name}` has no value"),
            };
            Diagnostic::new(Code::E0107, "malformed content type", at(*span, &label))
                .with_help("a content type is TYPE/SUBTYPE with optional `; name=value` parameters, like `text/plain` or `text/html; charset=utf-8`; `*` is a wildcard")
        }
        SyntaxError::MalformedPath { span, reason } => {
            let (label, help) = match reason {
                PathProblem::EmptySegment => ("empty segment (`//`)".to_string(), "remove the extra `/`"),
                PathProblem::TrailingSlash => ("ends with `/`".to_string(), "remove the trailing `/`; the root is `/` alone"),
                PathProblem::DotSegment(s) => (format!("`{s}` is not a segment"), "paths are absolute and never walk up: write the path in full"),
                PathProblem::RestNotLast => ("`**` is not last".to_string(), "`**` matches the rest of a path, so it can only be the last segment"),
                PathProblem::BadStars(s) => (format!("`{s}`: `*` only appears as `**`"), "use `{name}` for one segment or a final `/**` for the rest"),
                PathProblem::BadCapture(s) => (format!("`{s}` is not a capture"), "a capture is a whole segment holding a name: `/users/{id}`"),
                PathProblem::BadCharacter(c) => (format!("{c:?} cannot appear in a path"), "segments use letters, digits and `. _ ~ -`"),
            };
            Diagnostic::new(Code::E0108, "malformed path", at(*span, &label)).with_help(help)
        }
        SyntaxError::TooDeep { span, limit } => Diagnostic::new(
            Code::E0109,
            format!("nested more than {limit} deep"),
            at(*span, &format!("this bracket is the {}th one open", limit + 1)),
        )
        .with_help("flatten the type or value: name the inner part as a message type of its own and use it by name"),
        SyntaxError::TooLarge { len, limit } => Diagnostic::new(
            Code::E0110,
            format!("file too large to parse: {len} bytes, over the limit of {limit} ({} MiB)", limit >> 20),
            at(e.span(), "nothing of this file is checked"),
        )
        .with_help("split it into files of their own and import from them"),
        SyntaxError::DanglingDoc { span } => Diagnostic::new(
            Code::W0003,
            "doc comment attached to nothing",
            at(*span, "no declaration follows this doc comment"),
        )
        .with_help("put it directly before an object, image, entry, needs block, message, field, enum, enum value, instance or slot, or make it a plain `#` comment"),
    }
}
