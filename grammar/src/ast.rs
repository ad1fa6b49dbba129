//! Syntax trees of `.oth` files and value files. Every node that can be blamed
//! carries a [`Span`]. Nodes the parser could not build are `Error` variants
//! holding the span of what was skipped.

// Trees are built once and walked; boxing the large variants of the item
// enums would buy nothing but indirection.
#![allow(clippy::large_enum_variant)]

use crate::span::Span;
pub use crate::token::{ContentTypeText, PathText, Segment};

/// A `## ...` doc comment: consecutive `##` lines, joined with newlines.
#[derive(Debug, Clone, PartialEq)]
pub struct Doc {
    pub text: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Ident {
    pub name: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct StrLit {
    pub value: String,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Path {
    pub path: PathText,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ContentType {
    pub ct: ContentTypeText,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct File {
    pub items: Vec<Item>,
}

impl File {
    /// The file's `import` items, in order.
    pub fn imports(&self) -> impl Iterator<Item = &Import> {
        self.items.iter().filter_map(|i| match i {
            Item::Import(imp) => Some(imp),
            _ => None,
        })
    }
}

#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    Import(Import),
    Schemas(SchemasBlock),
    Object(Object),
    Image(Image),
    Error(Span),
}

/// `import { A, B as C } from "path"`.
#[derive(Debug, Clone, PartialEq)]
pub struct Import {
    pub names: Vec<ImportName>,
    pub from: StrLit,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ImportName {
    pub name: Ident,
    pub alias: Option<Ident>,
    pub span: Span,
}

impl ImportName {
    /// The name this import binds in the importing file.
    pub fn local(&self) -> &Ident {
        self.alias.as_ref().unwrap_or(&self.name)
    }
}

/// `[export] schemas CONTENT-TYPE { BODY }`. The body is the format's business:
/// the tree keeps where it is in the file, not a copy of its text (a large
/// schema's body is most of its file).
#[derive(Debug, Clone, PartialEq)]
pub struct SchemasBlock {
    pub doc: Option<Doc>,
    pub export: Option<Span>,
    pub content_type: ContentType,
    /// The text between the braces.
    pub body: Span,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Object {
    pub doc: Option<Doc>,
    pub export: Option<Span>,
    pub native: Option<Span>,
    pub name: Ident,
    pub members: Vec<ObjectMember>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ObjectMember {
    Serves(Serves),
    Needs(Needs),
    Error(Span),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Serves {
    pub entries: Vec<EntryItem>,
    pub span: Span,
}

/// `needs MOUNT-POINT { entries }`, in objects and images.
#[derive(Debug, Clone, PartialEq)]
pub struct Needs {
    pub doc: Option<Doc>,
    pub mount: Path,
    pub entries: Vec<EntryItem>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum EntryItem {
    Entry(Entry),
    Error(Span),
}

/// `PATH [operator] VERB [TYPES] [-> TYPE [*]]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    pub doc: Option<Doc>,
    pub path: Path,
    pub operator: Option<Span>,
    pub verb: VerbLit,
    /// What the request may carry; empty: no payload.
    pub request: Vec<TypeRef>,
    pub answer: Option<Answer>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub ty: TypeRef,
    /// The span of a `*` stream marker.
    pub stream: Option<Span>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Verb {
    Read,
    Watch,
    List,
    Stat,
    Write,
    Create,
    Remove,
}

impl Verb {
    pub const ALL: [Verb; 7] = [
        Verb::Read,
        Verb::Watch,
        Verb::List,
        Verb::Stat,
        Verb::Write,
        Verb::Create,
        Verb::Remove,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Verb::Read => "read",
            Verb::Watch => "watch",
            Verb::List => "list",
            Verb::Stat => "stat",
            Verb::Write => "write",
            Verb::Create => "create",
            Verb::Remove => "remove",
        }
    }

    /// Safe verbs ask without changing anything; only they pass read-only mounts.
    pub fn is_safe(self) -> bool {
        matches!(self, Verb::Read | Verb::Watch | Verb::List | Verb::Stat)
    }

    /// `watch` and `list` are always streams.
    pub fn always_streams(self) -> bool {
        matches!(self, Verb::Watch | Verb::List)
    }

    /// The verb's number on the wire and in the host ABI: 1 (read) to 7
    /// (remove), in the order of [`Verb::ALL`]. Pinned: changing it breaks
    /// every built module.
    pub fn wire(self) -> i32 {
        Verb::ALL.iter().position(|v| *v == self).unwrap_or(0) as i32 + 1
    }

    /// The verb a wire number stands for.
    pub fn from_wire(n: i32) -> Option<Verb> {
        usize::try_from(n.checked_sub(1)?)
            .ok()
            .and_then(|i| Verb::ALL.get(i))
            .copied()
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct VerbLit {
    pub verb: Verb,
    pub span: Span,
}

/// Where a type goes: a content type, or a name (a message type, or `Stat`).
#[derive(Debug, Clone, PartialEq)]
pub enum TypeRef {
    ContentType(ContentType),
    Name(Ident),
}

impl TypeRef {
    pub fn span(&self) -> Span {
        match self {
            TypeRef::ContentType(c) => c.span,
            TypeRef::Name(n) => n.span,
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Image {
    pub doc: Option<Doc>,
    pub export: Option<Span>,
    pub name: Ident,
    pub parts: Vec<ImagePart>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ImagePart {
    Slot(Slot),
    Instance(Instance),
    Export(ImageExport),
    Startup(Startup),
    Needs(Needs),
    Error(Span),
}

/// `require NAME : TYPE [= VALUE]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Slot {
    pub doc: Option<Doc>,
    pub name: Ident,
    pub ty: TypeRef,
    pub default: Option<Value>,
    pub span: Span,
}

/// `instance NAME = OBJECT [{ mounts and binds }]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Instance {
    pub doc: Option<Doc>,
    pub name: Ident,
    pub object: Ident,
    pub wiring: Vec<Wire>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Wire {
    /// `mount AT FROM [readonly]`: AT in the instance's view, FROM in the image tree.
    Mount(Link),
    /// `bind NEW EXISTING [readonly]`: both in the instance's view.
    Bind(Link),
    Error(Span),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Link {
    pub to: Path,
    pub from: Path,
    pub readonly: Option<Span>,
    pub span: Span,
}

impl Link {
    pub fn with_span(self, span: Span) -> Link {
        Link { span, ..self }
    }
}

/// `export AT FROM [readonly]`: AT in the image's served tree, FROM in the image tree.
#[derive(Debug, Clone, PartialEq)]
pub struct ImageExport {
    pub link: Link,
}

/// A startup request: `VERB PATH [PAYLOAD]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Startup {
    pub verb: VerbLit,
    pub path: Path,
    pub payload: Option<Payload>,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Payload {
    /// `Greeting { ... }`.
    Message(Value),
    /// A slot's name.
    Slot(Ident),
    /// A bare string: `text/plain`.
    Text(StrLit),
    /// `text/html "<p>hi</p>"`.
    Typed(ContentType, StrLit),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    pub kind: ValueKind,
    pub span: Span,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ValueKind {
    Str(String),
    Int(i128),
    Float(f64),
    Bool(bool),
    Null,
    List(Vec<Value>),
    /// `{ key: value }`; also a message whose type is left out.
    Map(Vec<(Key, Value)>),
    /// `Name { field: value }`.
    Message(Ident, Vec<(Key, Value)>),
    /// A slot's name, in images.
    Ref(Ident),
    /// A literal the lexer already reported (a malformed number).
    Error,
}

/// A map key or field name: a name (keywords allowed) or a quoted string.
#[derive(Debug, Clone, PartialEq)]
pub struct Key {
    pub name: String,
    pub quoted: bool,
    pub span: Span,
}

/// A value file: `slot = Value` lines; also what `--set` parses.
#[derive(Debug, Clone, PartialEq)]
pub struct ValueFile {
    pub lines: Vec<ValueLine>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum ValueLine {
    Set {
        slot: Ident,
        value: Value,
        span: Span,
    },
    Error(Span),
}

/// The body of a `schemas application/bson { ... }` block.
pub mod bson {
    use super::{Doc, Ident};
    use crate::span::Span;

    #[derive(Debug, Clone, PartialEq)]
    pub struct Block {
        pub decls: Vec<Decl>,
    }

    #[derive(Debug, Clone, PartialEq)]
    pub enum Decl {
        Message(Message),
        Enum(Enum),
        Error(Span),
    }

    #[derive(Debug, Clone, PartialEq)]
    pub struct Message {
        pub doc: Option<Doc>,
        pub name: Ident,
        pub fields: Vec<FieldItem>,
        pub span: Span,
    }

    #[derive(Debug, Clone, PartialEq)]
    pub enum FieldItem {
        Field(Field),
        Error(Span),
    }

    /// `name[?]: Type`.
    #[derive(Debug, Clone, PartialEq)]
    pub struct Field {
        /// Boxed: most fields have none, and a large schema has a great
        /// many fields (the node is 32 bytes smaller for it).
        pub doc: Option<Box<Doc>>,
        pub name: Ident,
        pub optional: Option<Span>,
        pub ty: Type,
        pub span: Span,
    }

    #[derive(Debug, Clone, PartialEq)]
    pub struct Type {
        pub kind: TypeKind,
        pub span: Span,
    }

    #[derive(Debug, Clone, PartialEq)]
    pub enum TypeKind {
        /// A scalar (`string`, `i32`, `any`, ...), a message or an enum: the
        /// format tells which.
        Named(String),
        List(Box<Type>),
        Map(Box<Type>),
    }

    #[derive(Debug, Clone, PartialEq)]
    pub struct Enum {
        pub doc: Option<Doc>,
        pub name: Ident,
        pub values: Vec<EnumValue>,
        pub span: Span,
    }

    #[derive(Debug, Clone, PartialEq)]
    pub struct EnumValue {
        pub doc: Option<Doc>,
        pub name: Ident,
        pub span: Span,
    }
}
