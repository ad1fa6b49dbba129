//! The resolved model: what a program declares, with every name resolved to
//! a typed id. The checker proves its rules on it; the backends and the
//! section encoder read it. It serializes with serde, and its spans live
//! beside it (in [`Spans`]) so two models compare equal whatever files they
//! came from: a model decoded from a `.wasm` equals the one built from source.

use serde::{Deserialize, Serialize};

mod content_type;
pub use content_type::{COMMON_CONTENT_TYPES, ContentType};

use crate::source::{FileSpan, Span};
pub use oth_syntax::ast::Verb;

mod ids;
pub use ids::{DeclKind, EntryId, FileIx, ImageId, ObjectId, PerImage, TypeId};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Model {
    pub files: Vec<FileDef>,
    pub types: Vec<TypeDef>,
    pub objects: Vec<ObjectDef>,
    pub images: Vec<ImageDef>,
    pub entries: Vec<EntryDef>,
}

impl Model {
    pub fn ty(&self, id: TypeId) -> &TypeDef {
        &self.types[id.index()]
    }
    pub fn object(&self, id: ObjectId) -> &ObjectDef {
        &self.objects[id.index()]
    }
    pub fn image(&self, id: ImageId) -> &ImageDef {
        &self.images[id.index()]
    }
    pub fn entry(&self, id: EntryId) -> &EntryDef {
        &self.entries[id.index()]
    }

    /// The name of what an instance is of (`?` when it did not resolve).
    pub fn shape_name(&self, of: Option<Shape>) -> &str {
        match of {
            Some(Shape::Object(o)) => &self.object(o).name,
            Some(Shape::Image(i)) => &self.image(i).name,
            None => "?",
        }
    }

    /// The object that serves entry `e` (none for a need's entry).
    pub fn server_of(&self, e: EntryId) -> Option<&ObjectDef> {
        self.objects.iter().find(|o| o.serves.contains(&e))
    }

    /// The types `file` declares, and every type the entries of `objects`
    /// name, transitively through fields: what bindings and module headers
    /// of that file hold. In model order.
    pub fn types_for(&self, file: FileIx, objects: &[ObjectId]) -> Vec<TypeId> {
        let mut roots: Vec<TypeId> = (0..self.types.len())
            .map(|i| TypeId(i as u32))
            .filter(|t| self.ty(*t).file == file)
            .collect();
        for &o in objects {
            let def = self.object(o);
            for e in def
                .serves
                .iter()
                .chain(def.needs.iter().flat_map(|n| &n.entries))
            {
                let e = self.entry(*e);
                for t in e.request.iter().chain(&e.answer) {
                    if let PayloadType::Message(id) = t {
                        roots.push(*id);
                    }
                }
            }
        }
        // A flag per type, read out in order: the model's order, which the
        // bindings keep (a set of ids cost a tree node per type).
        let mut seen = vec![false; self.types.len()];
        while let Some(t) = roots.pop() {
            if std::mem::replace(&mut seen[t.index()], true) {
                continue;
            }
            if let TypeKind::Message { fields } = &self.ty(t).kind {
                for f in fields {
                    f.ty.named_types(&mut roots);
                }
            }
        }
        seen.iter()
            .enumerate()
            .filter(|(_, s)| **s)
            .map(|(i, _)| TypeId(i as u32))
            .collect()
    }
}

/// Where a file of the program came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Origin {
    /// A `.oth` file.
    Source,
    /// `othismo:env`.
    Env,
    /// The header sections of a compiled module.
    Wasm,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FileDef {
    /// The path as shown to people, or `othismo:env`.
    pub name: String,
    pub origin: Origin,
}

// ---- types ----------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TypeDef {
    pub name: String,
    pub file: FileIx,
    /// The content type of the format that declares it: `application/bson`.
    /// Borrowed from the format when lowered (a large schema declares tens
    /// of thousands of types, all of one format); owned when read back.
    pub format: std::borrow::Cow<'static, str>,
    pub exported: bool,
    pub doc: Option<String>,
    pub kind: TypeKind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum TypeKind {
    Message { fields: Vec<FieldDef> },
    Enum { values: Vec<EnumValueDef> },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FieldDef {
    pub name: String,
    pub optional: bool,
    pub ty: FieldType,
    pub doc: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EnumValueDef {
    pub name: String,
    pub doc: Option<String>,
}

/// The scalars a schema can name (book: reference/syntax.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Scalar {
    Bool,
    String,
    Bytes,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    F32,
    F64,
    Time,
    Uuid,
}

impl Scalar {
    pub const ALL: [Scalar; 14] = [
        Scalar::Bool,
        Scalar::String,
        Scalar::Bytes,
        Scalar::I8,
        Scalar::I16,
        Scalar::I32,
        Scalar::I64,
        Scalar::U8,
        Scalar::U16,
        Scalar::U32,
        Scalar::F32,
        Scalar::F64,
        Scalar::Time,
        Scalar::Uuid,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Scalar::Bool => "bool",
            Scalar::String => "string",
            Scalar::Bytes => "bytes",
            Scalar::I8 => "i8",
            Scalar::I16 => "i16",
            Scalar::I32 => "i32",
            Scalar::I64 => "i64",
            Scalar::U8 => "u8",
            Scalar::U16 => "u16",
            Scalar::U32 => "u32",
            Scalar::F32 => "f32",
            Scalar::F64 => "f64",
            Scalar::Time => "time",
            Scalar::Uuid => "uuid",
        }
    }

    pub fn parse(s: &str) -> Option<Scalar> {
        // Every field type is asked about: the first byte rules out most
        // candidates before their bytes are compared.
        let first = *s.as_bytes().first()?;
        Scalar::ALL.into_iter().find(|x| {
            let name = x.as_str();
            name.as_bytes()[0] == first && name == s
        })
    }

    /// The inclusive range of an integer scalar.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            Scalar::I8 => (i8::MIN.into(), i8::MAX.into()),
            Scalar::I16 => (i16::MIN.into(), i16::MAX.into()),
            Scalar::I32 => (i32::MIN.into(), i32::MAX.into()),
            Scalar::I64 => (i64::MIN.into(), i64::MAX.into()),
            Scalar::U8 => (0, u8::MAX.into()),
            Scalar::U16 => (0, u16::MAX.into()),
            Scalar::U32 => (0, u32::MAX.into()),
            _ => return None,
        })
    }
}

impl FieldType {
    /// The message types and enums this type names, into `out`.
    pub fn named_types(&self, out: &mut Vec<TypeId>) {
        match self {
            FieldType::Named(id) => out.push(*id),
            FieldType::List(i) | FieldType::Map(i) => i.named_types(out),
            _ => {}
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FieldType {
    Scalar(Scalar),
    /// A message of any type, which names itself.
    Any,
    /// A message (embedded) or an enum.
    Named(TypeId),
    List(Box<FieldType>),
    Map(Box<FieldType>),
    /// A name that did not resolve (already reported).
    Unknown,
}

// ---- objects and entries ----------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ObjectDef {
    pub name: String,
    pub file: FileIx,
    pub exported: bool,
    pub native: bool,
    pub doc: Option<String>,
    pub serves: Vec<EntryId>,
    pub needs: Vec<NeedBlock>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NeedBlock {
    pub mount: PathPattern,
    pub doc: Option<String>,
    pub entries: Vec<EntryId>,
}

/// A path segment: the grammar's own type, one representation everywhere.
pub use oth_syntax::ast::Segment as Seg;

/// A path or path pattern, as segments (`/` is no segment at all).
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub struct PathPattern {
    pub segs: Vec<Seg>,
}

impl PathPattern {
    pub fn from_syntax(segments: &[Seg]) -> PathPattern {
        PathPattern {
            segs: segments.to_vec(),
        }
    }

    /// The literal segments before the first capture or `**`: where a
    /// pattern need's requests may go.
    pub fn literal_prefix(&self) -> &[Seg] {
        let n = self
            .segs
            .iter()
            .take_while(|s| matches!(s, Seg::Literal(_)))
            .count();
        &self.segs[..n]
    }

    /// A path of literal segments only.
    pub fn is_concrete(&self) -> bool {
        self.segs.iter().all(|s| matches!(s, Seg::Literal(_)))
    }

    pub fn join(&self, rest: &[Seg]) -> PathPattern {
        let mut segs = self.segs.clone();
        segs.extend_from_slice(rest);
        PathPattern { segs }
    }
}

impl std::fmt::Display for PathPattern {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.segs.is_empty() {
            return f.write_str("/");
        }
        for s in &self.segs {
            match s {
                Seg::Literal(l) => write!(f, "/{l}")?,
                Seg::Capture(c) => write!(f, "/{{{c}}}")?,
                Seg::Rest => f.write_str("/**")?,
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EntryDef {
    pub path: PathPattern,
    pub operator: bool,
    pub verb: Verb,
    /// What the request may carry; empty: no payload.
    pub request: Vec<PayloadType>,
    /// What a successful answer carries; `None`: nothing.
    pub answer: Option<PayloadType>,
    /// Answers are a stream (written `*`, or the verb always streams).
    pub stream: bool,
    /// The header wrote `*` (says nothing more on `watch` and `list`): kept so
    /// a module's header prints as its source did.
    #[serde(default)]
    pub star: bool,
    pub doc: Option<String>,
}

impl EntryDef {
    /// Whether two need entries make the same client method: all but the
    /// doc and how a stream was written. Objects of one file share a
    /// client, with one method for entries that are the same this way.
    pub fn same_for_client(&self, other: &EntryDef) -> bool {
        (
            &self.path,
            self.operator,
            self.verb,
            &self.request,
            &self.answer,
            self.stream,
        ) == (
            &other.path,
            other.operator,
            other.verb,
            &other.request,
            &other.answer,
            other.stream,
        )
    }
}

/// What a payload may be: a content type, or a message type (which stands
/// for `application/bson` and that type).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum PayloadType {
    Content(ContentType),
    Message(TypeId),
    /// A name that did not resolve (already reported): matches anything, so
    /// one unknown name is one error.
    Unknown,
}

/// The content type of stat records (book: reference/wire.md), written `Stat` in headers.
pub const STAT_CONTENT_TYPE: &str = "application/x-othismo-stat";

// ---- images -----------------------------------------------------------------

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ImageDef {
    pub name: String,
    pub file: FileIx,
    pub exported: bool,
    pub doc: Option<String>,
    pub slots: Vec<SlotDef>,
    pub instances: Vec<InstanceDef>,
    pub exports: Vec<LinkDef>,
    pub startup: Vec<StartupDef>,
    /// What the image needs of whatever it runs in.
    pub needs: Vec<NeedBlock>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SlotDef {
    pub name: String,
    pub ty: PayloadType,
    pub doc: Option<String>,
    /// The payload its value encodes to, once a value is known (default,
    /// value file or `--set`).
    pub value: Option<Encoded>,
}

/// What an instance is an instance of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Shape {
    Object(ObjectId),
    Image(ImageId),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct InstanceDef {
    pub name: String,
    /// `None` when the name did not resolve (already reported).
    pub of: Option<Shape>,
    pub doc: Option<String>,
    pub wiring: Vec<WireDef>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum WireKind {
    /// `at` in the instance's view, `from` in the image tree.
    Mount,
    /// Both in the instance's view.
    Bind,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WireDef {
    pub kind: WireKind,
    pub link: LinkDef,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkDef {
    pub at: PathPattern,
    pub from: PathPattern,
    pub readonly: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StartupDef {
    pub verb: Verb,
    pub path: PathPattern,
    pub payload: Option<StartupPayload>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum StartupPayload {
    /// A slot's value, by index into the image's slots.
    Slot(usize),
    /// A literal, encoded (`None` if it did not check).
    Literal(Option<Encoded>),
}

/// A payload as the runtime will send it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Encoded {
    pub content_type: String,
    /// The message type, for a message payload.
    pub message: Option<String>,
    pub bytes: Vec<u8>,
}

// ---- spans, beside the model --------------------------------------------------

/// Where each part of the model was written. Parallel to the model's arenas.
#[derive(Clone, Debug, Default)]
pub struct Spans {
    pub types: Vec<TypeSpans>,
    pub objects: Vec<ObjectSpans>,
    pub images: Vec<ImageSpans>,
    pub entries: Vec<EntrySpans>,
}

#[derive(Clone, Debug)]
pub struct TypeSpans {
    pub name: FileSpan,
    /// Per field (or enum value): its name, and its type, in the file of
    /// `name` (a type's members are all in its declaration's file; a large
    /// schema has a great many members, so the file is not repeated).
    pub members: Vec<(Span, Span)>,
}

impl TypeSpans {
    /// Member `k`'s name and type.
    pub fn member(&self, k: usize) -> Option<(FileSpan, FileSpan)> {
        let file = self.name.file;
        self.members
            .get(k)
            .map(|&(name, ty)| (FileSpan::new(file, name), FileSpan::new(file, ty)))
    }
}

#[derive(Clone, Debug)]
pub struct ObjectSpans {
    pub name: FileSpan,
    pub native: Option<FileSpan>,
    /// Per need block: its mount point.
    pub needs: Vec<FileSpan>,
}

#[derive(Clone, Debug)]
pub struct EntrySpans {
    pub whole: FileSpan,
    pub path: FileSpan,
    pub verb: FileSpan,
    pub operator: Option<FileSpan>,
    pub request: Vec<FileSpan>,
    pub answer: Option<FileSpan>,
    pub stream: Option<FileSpan>,
}

#[derive(Clone, Debug)]
pub struct ImageSpans {
    pub name: FileSpan,
    pub slots: Vec<SlotSpans>,
    pub instances: Vec<InstanceSpans>,
    pub exports: Vec<LinkSpans>,
    pub startup: Vec<StartupSpans>,
    pub needs: Vec<FileSpan>,
}

#[derive(Clone, Debug)]
pub struct SlotSpans {
    pub name: FileSpan,
    pub ty: FileSpan,
}

#[derive(Clone, Debug)]
pub struct InstanceSpans {
    pub name: FileSpan,
    pub object: FileSpan,
    pub wiring: Vec<LinkSpans>,
}

#[derive(Clone, Debug)]
pub struct LinkSpans {
    pub whole: FileSpan,
    pub at: FileSpan,
    pub from: FileSpan,
    pub readonly: Option<FileSpan>,
}

#[derive(Clone, Debug)]
pub struct StartupSpans {
    pub whole: FileSpan,
    pub verb: FileSpan,
    pub path: FileSpan,
    pub payload: Option<FileSpan>,
}
