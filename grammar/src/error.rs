//! What can go wrong while turning text into trees: data only.
//!
//! The wording lives in the compiler (`othc::diagnostics`), which turns each of
//! these into a `Diagnostic` in one match; here we keep spans and facts.

use crate::span::Span;

/// One syntax problem. Every variant maps to one stable code (see `code`).
#[derive(Debug, Clone, PartialEq)]
pub enum SyntaxError {
    /// A character no token starts with (E0101). `text` is the run of such characters.
    UnexpectedChar { span: Span, text: String },
    /// A string with no closing quote on its line (E0102).
    UnterminatedString { span: Span },
    /// A token the grammar cannot take here (E0103).
    UnexpectedToken {
        span: Span,
        found: String,
        expected: Vec<String>,
    },
    /// The file ended where the grammar needed more (E0103).
    UnexpectedEof { span: Span, expected: Vec<String> },
    /// A `{` or `[` that is never closed (E0104). `opener` is the innermost one;
    /// `others` the enclosing ones still open at the same point.
    Unclosed {
        opener: Span,
        others: Vec<Span>,
        /// Where it was noticed, and how.
        noticed: Span,
        by: UnclosedBy,
    },
    /// An escape a string cannot hold (E0105).
    InvalidEscape { span: Span, escape: String },
    /// A number literal that is not one (E0106).
    InvalidNumber { span: Span, reason: NumberProblem },
    /// A content type that is not `type/subtype[; name=value]*` (E0107).
    MalformedContentType {
        span: Span,
        reason: ContentTypeProblem,
    },
    /// A path that breaks the path rules (E0108).
    MalformedPath { span: Span, reason: PathProblem },
    /// A text of `len` bytes, over the `limit` the parsers take (E0110):
    /// nothing of it is parsed.
    TooLarge { len: usize, limit: usize },
    /// Brackets nested deeper than `limit` (E0109); `span` is the first
    /// opener past it.
    TooDeep { span: Span, limit: usize },
    /// A `##` doc comment that precedes no declaration it can document (W0003).
    DanglingDoc { span: Span },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum UnclosedBy {
    /// The file ended.
    EndOfFile,
    /// A top-level item began inside the block.
    NewItem,
    /// A closer for an enclosing block came first (`{ a: [1 }`).
    OuterCloser,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NumberProblem {
    /// Letters or a second dot where digits go (`12ab`, `1.`, `0x`).
    BadDigits,
    /// More digits than any integer type holds.
    TooLarge,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentTypeProblem {
    /// The type is neither `*` nor a media-type token.
    BadType(String),
    /// `*/plain`: a wildcard type with a concrete subtype.
    WildcardTypeConcreteSubtype(String),
    /// `text/` with nothing (or nothing valid) after the slash; holds the type.
    NoSubtype(String),
    /// `; x` or `;` with no `name=`.
    BadParameter,
    /// `; a="...` with no closing quote on the line.
    UnterminatedQuotedValue,
    /// `; name=` with no value; holds the name.
    MissingValue(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PathProblem {
    EmptySegment,
    TrailingSlash,
    DotSegment(String),
    RestNotLast,
    BadStars(String),
    BadCapture(String),
    BadCharacter(char),
}

impl SyntaxError {
    /// The stable code of this error (see the book's reference/checking.md).
    pub fn code(&self) -> &'static str {
        match self {
            SyntaxError::UnexpectedChar { .. } => "E0101",
            SyntaxError::UnterminatedString { .. } => "E0102",
            SyntaxError::UnexpectedToken { .. } | SyntaxError::UnexpectedEof { .. } => "E0103",
            SyntaxError::Unclosed { .. } => "E0104",
            SyntaxError::InvalidEscape { .. } => "E0105",
            SyntaxError::InvalidNumber { .. } => "E0106",
            SyntaxError::MalformedContentType { .. } => "E0107",
            SyntaxError::MalformedPath { .. } => "E0108",
            SyntaxError::TooDeep { .. } => "E0109",
            SyntaxError::TooLarge { .. } => "E0110",
            SyntaxError::DanglingDoc { .. } => "W0003",
        }
    }

    pub fn is_warning(&self) -> bool {
        self.code().starts_with('W')
    }

    /// The primary span.
    pub fn span(&self) -> Span {
        match self {
            SyntaxError::UnexpectedChar { span, .. }
            | SyntaxError::UnterminatedString { span }
            | SyntaxError::UnexpectedToken { span, .. }
            | SyntaxError::UnexpectedEof { span, .. }
            | SyntaxError::InvalidEscape { span, .. }
            | SyntaxError::InvalidNumber { span, .. }
            | SyntaxError::MalformedContentType { span, .. }
            | SyntaxError::MalformedPath { span, .. }
            | SyntaxError::TooDeep { span, .. }
            | SyntaxError::DanglingDoc { span } => *span,
            SyntaxError::Unclosed { opener, .. } => *opener,
            SyntaxError::TooLarge { .. } => Span::point(0),
        }
    }
}
