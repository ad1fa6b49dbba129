//! The tokens of `.oth` files (logos), shared by the file grammar and the BSON
//! block grammar.
//!
//! Paths, content types, strings and numbers are scanned by callbacks that
//! validate them as they go. A malformed one records a [`SyntaxError`] in the
//! lexer's extras and still yields its token (marked invalid), so one bad path
//! is one error, never a parse error cascade.

use logos::Logos;

use crate::error::SyntaxError;

mod scan;
use scan::*;

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

    /// `message` and `enum` are keywords only inside a BSON block: outside
    /// one, the token stream hands them on as identifiers (see
    /// `lexer::Mode`). Lexed as keywords, they cost no string in the blocks,
    /// where there are thousands of them.
    #[token("message")]
    KwMessage,
    #[token("enum")]
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

    /// The raw text of a `schemas` block body (its span says where); produced
    /// by the token stream, never by logos.
    SchemaBody,

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
            Token::SchemaBody => "schema block body".into(),
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
