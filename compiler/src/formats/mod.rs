//! Payload formats. A `schemas CONTENT-TYPE { ... }` block's body belongs to
//! the format registered for its content type; the rest of the compiler talks
//! to formats only through [`Format`] and [`SchemaBlock`].

mod bson_wire;
mod declared;
mod json_wire;
mod literal;
mod schema_errors;
pub use schema_errors::SchemaError;
mod value_errors;
pub use value_errors::ValueError;

use oth_syntax::Span;
use oth_syntax::ast::{ContentTypeText, Value};

use crate::diagnostics::Diagnostics;
use crate::model::DeclKind;
use crate::model::{self, FieldType, Model, TypeId};
use crate::source::FileId;

/// A type a block declares.
#[derive(Clone, Debug, PartialEq)]
pub struct DeclaredType<'a> {
    pub name: &'a str,
    /// `Message` or `Enum`.
    pub kind: DeclKind,
    pub span: Span,
}

/// What a name in a schema block stands for, as the file's scope sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TypeLookup {
    Message(TypeId),
    Enum(TypeId),
    /// A name in scope that is not a type (an object, an image).
    NotAType(DeclKind),
    Missing,
}

/// The names a block's types may refer to.
pub trait TypeNames {
    /// What `name`, written at `at`, stands for (the place is recorded for
    /// the language server's references).
    fn lookup(&self, name: &str, at: crate::source::FileSpan) -> TypeLookup;
    /// The type names in scope, for "did you mean" help.
    fn candidates(&self) -> crate::diagnostics::suggest::Candidates;
    /// Records that the text at `at` names member `member` (a field, or an
    /// enum's value) of type `ty`: a literal's field name or enum value,
    /// which the language server's hover, definition and rename read.
    fn member_used(&self, at: crate::source::FileSpan, ty: TypeId, member: usize);
}

/// The message type a literal names before its braces, or what is wrong
/// with the name (E0203, E0206): one lookup for startup requests, slot
/// values and the formats' own literals.
pub fn message_type(
    names: &dyn TypeNames,
    name: &str,
    at: crate::source::FileSpan,
) -> Result<TypeId, crate::name_errors::NameError> {
    use crate::name_errors::{NameError, Sought};
    let kind = match names.lookup(name, at) {
        TypeLookup::Message(id) => return Ok(id),
        TypeLookup::Enum(_) => DeclKind::Enum,
        TypeLookup::NotAType(k) => k,
        TypeLookup::Missing => {
            return Err(NameError::Unknown {
                sought: Sought::MessageType,
                name: name.to_string(),
                at,
                candidates: names.candidates(),
            });
        }
    };
    Err(NameError::WrongKind {
        sought: Sought::MessageType,
        name: name.to_string(),
        kind,
        at,
    })
}

/// One declared type, lowered into the model's terms.
pub struct LoweredType {
    pub kind: model::TypeKind,
    pub doc: Option<String>,
    /// Per field or enum value: the span of its name, and of its type.
    pub members: Vec<(Span, Span)>,
}

/// A parsed schema block, in the format's own terms.
pub trait SchemaBlock: std::fmt::Debug + Send + Sync {
    /// The types the block declares, in order.
    fn declared(&self) -> Vec<DeclaredType<'_>>;

    /// Lowers the declared types (one per `declared()` entry, in order),
    /// resolving the names their fields use and reporting the format's own
    /// rules (duplicate fields and values, unknown and unsupported types,
    /// reserved names, empty enums, naming style).
    ///
    /// The members (fields, enum values) are moved out of the block into
    /// what it returns, not copied: a large schema's tree and its model
    /// would otherwise be alive together. So a block is lowered once;
    /// `declared` still answers afterwards.
    fn lower(
        &mut self,
        file: FileId,
        names: &dyn TypeNames,
        diags: &mut Diagnostics,
    ) -> Vec<LoweredType>;
}

/// Where a literal is checked: the file it is in (for its spans and the
/// names in scope there) and where diagnostics go.
pub struct LiteralCx<'a> {
    pub model: &'a Model,
    pub file: FileId,
    /// Resolves a type named before a literal's braces.
    pub names: &'a dyn TypeNames,
    pub diags: &'a mut Diagnostics,
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

    /// How two declarations of one type name differ, one line per
    /// difference; empty when they agree (E0304).
    fn differences(&self, model: &Model, a: TypeId, b: TypeId) -> Vec<String>;

    /// Checks a literal against message type `ty` (E06xx) and encodes it as
    /// the payload the runtime will send; `None` when it does not check.
    fn encode_message(&self, cx: &mut LiteralCx, ty: TypeId, value: &Value) -> Option<Vec<u8>>;
}

/// The formats this compiler knows.
pub struct Formats {
    list: Vec<Box<dyn Format>>,
}

impl Default for Formats {
    fn default() -> Formats {
        Formats {
            list: vec![Box::new(declared::BSON), Box::new(declared::JSON)],
        }
    }
}

impl Formats {
    /// The format for a content type; types compare without regard to case,
    /// and parameters do not select a format.
    pub fn find(&self, ct: &ContentTypeText) -> Option<&dyn Format> {
        let want = model::ContentType::from_syntax(ct).essence();
        self.list
            .iter()
            .find(|f| f.content_type().eq_ignore_ascii_case(&want))
            .map(|f| f.as_ref())
    }

    /// The format registered for exactly this content type (as the model stores it).
    pub fn by_name(&self, content_type: &str) -> Option<&dyn Format> {
        self.list
            .iter()
            .find(|f| f.content_type().eq_ignore_ascii_case(content_type))
            .map(|f| f.as_ref())
    }

    pub fn names(&self) -> Vec<&'static str> {
        self.list.iter().map(|f| f.content_type()).collect()
    }
}

/// How a field type reads in messages: `[string]`, `Friend`.
pub fn describe_field_type(model: &Model, t: &FieldType) -> String {
    match t {
        FieldType::Scalar(s) => s.as_str().to_string(),
        FieldType::Any => "any".into(),
        FieldType::Named(id) => model.ty(*id).name.clone(),
        FieldType::List(i) => format!("[{}]", describe_field_type(model, i)),
        FieldType::Map(i) => format!("{{{}}}", describe_field_type(model, i)),
        FieldType::Unknown => "?".into(),
    }
}
