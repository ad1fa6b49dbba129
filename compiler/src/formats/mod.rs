//! Payload formats. A `schemas CONTENT-TYPE { ... }` block's body belongs to
//! the format registered for its content type; the rest of the compiler talks
//! to formats only through [`Format`] and [`SchemaBlock`].

mod bson;

use oth_syntax::Span;
use oth_syntax::ast::ContentTypeText;

use crate::diagnostics::Diagnostics;
use crate::source::FileId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeKind {
    Message,
    Enum,
}

/// A type a block declares.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredType {
    pub name: String,
    pub kind: TypeKind,
    pub span: Span,
}

/// A parsed schema block, in the format's own terms.
pub trait SchemaBlock: std::fmt::Debug + Send + Sync {
    /// The types the block declares, in order.
    fn declared(&self) -> Vec<DeclaredType>;
}

pub trait Format: Send + Sync {
    /// The media type this format is for, lower case: `application/bson`.
    fn content_type(&self) -> &'static str;

    /// Parses a block body that starts at byte `offset` of `file`, reporting
    /// its syntax errors into `diags`.
    fn parse_block(
        &self,
        file: FileId,
        body: &str,
        offset: usize,
        diags: &mut Diagnostics,
    ) -> Box<dyn SchemaBlock>;
}

/// The formats this compiler knows.
pub struct Formats {
    list: Vec<Box<dyn Format>>,
}

impl Default for Formats {
    fn default() -> Formats {
        Formats {
            list: vec![Box::new(bson::Bson)],
        }
    }
}

impl Formats {
    /// The format for a content type; types compare without regard to case,
    /// and parameters do not select a format.
    pub fn find(&self, ct: &ContentTypeText) -> Option<&dyn Format> {
        let want = format!("{}/{}", ct.ty, ct.subtype);
        self.list
            .iter()
            .find(|f| f.content_type().eq_ignore_ascii_case(&want))
            .map(|f| f.as_ref())
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.list.iter().map(|f| f.content_type()).collect()
    }
}
