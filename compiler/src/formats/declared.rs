//! The formats whose types are declared in othismo's schema language (a
//! `schemas CONTENT-TYPE { message ... enum ... }` block, parsed by
//! `oth_syntax::parse_bson`): BSON and JSON. The language is one — this
//! module resolves a block into model types and compares declarations for
//! every such format —; what differs is the wire, each format's own
//! encoding of a checked literal (`bson_wire`, `json_wire`).
//!
//! Codes: E0301, E0302, E0303, E0306, E0307, E0308, E0206 (a field naming an
//! object), W0002.

use oth_syntax::Span;
use oth_syntax::ast::Value;
use oth_syntax::ast::bson::{Block, Decl, EnumValue, FieldItem, Type, TypeKind as SynType};

use super::literal::Encode;
use super::schema_errors::SchemaError;
use super::{
    DeclaredType, Format, LiteralCx, LoweredType, SchemaBlock, TypeLookup, TypeNames,
    describe_field_type,
};
use crate::diagnostics::Diagnostics;
use crate::model::DeclKind;
use crate::model::{self, EnumValueDef, FieldDef, FieldType, Model, Scalar, TypeId};
use crate::name_errors::{NameError, Sought};
use crate::source::{FileId, FileSpan};

/// A format of the schema language: its media type and its wire.
pub struct Declared {
    content_type: &'static str,
    encode: Encode,
}

/// `application/bson` (book: reference/wire.md).
pub const BSON: Declared = Declared {
    content_type: "application/bson",
    encode: super::bson_wire::encode,
};

/// `application/json` (book: reference/json.md).
pub const JSON: Declared = Declared {
    content_type: "application/json",
    encode: super::json_wire::encode,
};

#[derive(Debug)]
pub struct DeclaredBlock {
    pub ast: Block,
}

impl SchemaBlock for DeclaredBlock {
    fn declared(&self) -> Vec<DeclaredType<'_>> {
        self.ast
            .decls
            .iter()
            .filter_map(|d| match d {
                Decl::Message(m) => Some(DeclaredType {
                    name: &m.name.name,
                    kind: DeclKind::Message,
                    span: m.name.span,
                }),
                Decl::Enum(e) => Some(DeclaredType {
                    name: &e.name.name,
                    kind: DeclKind::Enum,
                    span: e.name.span,
                }),
                Decl::Error(_) => None,
            })
            .collect()
    }

    fn lower(
        &mut self,
        file: FileId,
        names: &dyn TypeNames,
        diags: &mut Diagnostics,
    ) -> Vec<LoweredType> {
        let mut out = Vec::with_capacity(self.ast.decls.len());
        // Which member repeats which: buffers shared by every declaration
        // (one allocation per block, not per message).
        let mut twice = Twice::default();
        // The kept fields' types, resolved in the first pass (so diagnostics
        // come field by field, as written) and moved in by the second.
        let mut types: Vec<FieldType> = Vec::new();
        for d in &mut self.ast.decls {
            match d {
                Decl::Message(m) => {
                    type_name_style(file, &m.name.name, m.name.span, "message type", diags);
                    fn field_name(item: &FieldItem) -> Option<&str> {
                        match item {
                            FieldItem::Field(f) => Some(&f.name.name),
                            FieldItem::Error(_) => None,
                        }
                    }
                    twice.find(&m.fields, field_name);
                    for (i, item) in m.fields.iter().enumerate() {
                        let FieldItem::Field(f) = item else { continue };
                        let name = f.name.name.as_str();
                        if let Some(first) = twice.first(i) {
                            // Only fields have names, so `first` is one.
                            let first = match &m.fields[first] {
                                FieldItem::Field(g) => g.name.span,
                                FieldItem::Error(span) => *span,
                            };
                            diags.report(SchemaError::FieldTwice {
                                message: m.name.name.clone(),
                                field: name.to_string(),
                                at: FileSpan::new(file, f.name.span),
                                first: FileSpan::new(file, first),
                            });
                        } else if name.starts_with('$') {
                            diags.report(SchemaError::DollarField {
                                field: name.to_string(),
                                at: FileSpan::new(file, f.name.span),
                            });
                            types.push(resolve_type(file, &f.ty, names, diags));
                        } else {
                            field_name_style(file, name, f.name.span, diags);
                            types.push(resolve_type(file, &f.ty, names, diags));
                        }
                    }
                    let mut resolved = types.drain(..);
                    let mut fields = Vec::with_capacity(m.fields.len());
                    let mut members = Vec::with_capacity(m.fields.len());
                    for (i, item) in std::mem::take(&mut m.fields).into_iter().enumerate() {
                        let FieldItem::Field(f) = item else { continue };
                        if twice.first(i).is_some() {
                            continue;
                        }
                        members.push((f.name.span, f.ty.span));
                        fields.push(FieldDef {
                            ty: resolved.next().unwrap_or(FieldType::Unknown),
                            name: f.name.name,
                            optional: f.optional.is_some(),
                            doc: f.doc.map(|d| d.text),
                        });
                    }
                    out.push(LoweredType {
                        kind: model::TypeKind::Message { fields },
                        doc: m.doc.as_ref().map(|d| d.text.clone()),
                        members,
                    });
                }
                Decl::Enum(e) => {
                    type_name_style(file, &e.name.name, e.name.span, "enum", diags);
                    if e.values.is_empty() {
                        diags.report(SchemaError::EmptyEnum {
                            name: e.name.name.clone(),
                            at: FileSpan::new(file, e.name.span),
                        });
                    }
                    fn value_name(v: &EnumValue) -> Option<&str> {
                        Some(&v.name.name)
                    }
                    twice.find(&e.values, value_name);
                    for (i, v) in e.values.iter().enumerate() {
                        if let Some(first) = twice.first(i) {
                            diags.report(SchemaError::ValueTwice {
                                enum_: e.name.name.clone(),
                                value: v.name.name.clone(),
                                at: FileSpan::new(file, v.name.span),
                                first: FileSpan::new(file, e.values[first].name.span),
                            });
                        }
                    }
                    let mut values = Vec::with_capacity(e.values.len());
                    let mut members = Vec::with_capacity(e.values.len());
                    for (i, v) in std::mem::take(&mut e.values).into_iter().enumerate() {
                        if twice.first(i).is_some() {
                            continue;
                        }
                        members.push((v.name.span, v.name.span));
                        values.push(EnumValueDef {
                            name: v.name.name,
                            doc: v.doc.map(|d| d.text),
                        });
                    }
                    out.push(LoweredType {
                        kind: model::TypeKind::Enum { values },
                        doc: e.doc.as_ref().map(|d| d.text.clone()),
                        members,
                    });
                }
                Decl::Error(_) => {}
            }
        }
        out
    }
}

/// Finds the members of one declaration whose name an earlier member has,
/// by sorting their indices by name: no map borrowing the names, so the
/// members can be moved out afterwards, and the buffers serve every
/// declaration of a block.
#[derive(Default)]
struct Twice {
    order: Vec<u32>,
    /// Per member: the index of the first member of its name, or `NONE`
    /// when it is the first (or has no name).
    first: Vec<u32>,
}

impl Twice {
    const NONE: u32 = u32::MAX;

    /// Declarations with at most this many members are searched pair by
    /// pair: for the handful of members most have, comparing each with
    /// those before it (most differ in length) costs less than sorting.
    const PAIRWISE: usize = 16;

    fn find<T>(&mut self, members: &[T], name: impl for<'a> Fn(&'a T) -> Option<&'a str>) {
        self.first.clear();
        self.first.resize(members.len(), Self::NONE);
        if members.len() <= Self::PAIRWISE {
            for (i, m) in members.iter().enumerate() {
                let Some(n) = name(m) else { continue };
                // The first earlier member of the name is the first of all.
                if let Some(j) = members[..i].iter().position(|e| name(e) == Some(n)) {
                    self.first[i] = j as u32;
                }
            }
            return;
        }
        self.order.clear();
        self.order
            .extend((0..members.len() as u32).filter(|&i| name(&members[i as usize]).is_some()));
        let name_at = |i: u32| name(&members[i as usize]).unwrap_or_default();
        // By name (its length first: most names differ in it, and telling
        // them apart costs no comparison of bytes), then by position: each
        // run of one name starts at its first.
        self.order.sort_unstable_by(|&a, &b| {
            let (x, y) = (name_at(a), name_at(b));
            (x.len(), x).cmp(&(y.len(), y)).then(a.cmp(&b))
        });
        for run in self.order.chunk_by(|&a, &b| name_at(a) == name_at(b)) {
            for &later in &run[1..] {
                self.first[later as usize] = run[0];
            }
        }
    }

    /// The first member with member `i`'s name, when `i` is not it.
    fn first(&self, i: usize) -> Option<usize> {
        let first = self.first[i];
        (first != Self::NONE).then_some(first as usize)
    }
}

fn resolve_type(
    file: FileId,
    t: &Type,
    names: &dyn TypeNames,
    diags: &mut Diagnostics,
) -> FieldType {
    match &t.kind {
        SynType::List(inner) => FieldType::List(Box::new(resolve_type(file, inner, names, diags))),
        SynType::Map(inner) => FieldType::Map(Box::new(resolve_type(file, inner, names, diags))),
        SynType::Named(n) => {
            if n == "any" {
                return FieldType::Any;
            }
            if let Some(s) = Scalar::parse(n) {
                return FieldType::Scalar(s);
            }
            match names.lookup(n, FileSpan::new(file, t.span)) {
                TypeLookup::Message(id) | TypeLookup::Enum(id) => FieldType::Named(id),
                TypeLookup::NotAType(kind) => {
                    diags.report(NameError::WrongKind {
                        sought: Sought::FieldType,
                        name: n.clone(),
                        kind,
                        at: FileSpan::new(file, t.span),
                    });
                    FieldType::Unknown
                }
                TypeLookup::Missing if n.starts_with(|c: char| c.is_ascii_lowercase()) => {
                    diags.report(SchemaError::UnsupportedScalar {
                        name: n.clone(),
                        at: FileSpan::new(file, t.span),
                    });
                    FieldType::Unknown
                }
                TypeLookup::Missing => {
                    diags.report(SchemaError::UnknownType {
                        name: n.clone(),
                        at: FileSpan::new(file, t.span),
                        candidates: names.candidates(),
                    });
                    FieldType::Unknown
                }
            }
        }
    }
}

// The style tests read bytes: every byte of a character past ASCII fails
// an ASCII test as the character does, and a schema has a name per field.

fn is_pascal(s: &str) -> bool {
    s.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
        && s.bytes().all(|c| c.is_ascii_alphanumeric())
}

fn is_field_style(s: &str) -> bool {
    if !s.as_bytes().first().is_some_and(u8::is_ascii_lowercase) {
        return false;
    }
    let (mut camel, mut snake) = (true, true);
    for c in s.bytes() {
        camel &= c.is_ascii_alphanumeric();
        snake &= c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'_';
    }
    camel || snake
}

fn type_name_style(
    file: FileId,
    name: &str,
    span: Span,
    what: &'static str,
    diags: &mut Diagnostics,
) {
    if !is_pascal(name) {
        diags.report(SchemaError::TypeStyle {
            what,
            name: name.to_string(),
            at: FileSpan::new(file, span),
            fix: crate::asnames::pascal(name),
        });
    }
}

fn field_name_style(file: FileId, name: &str, span: Span, diags: &mut Diagnostics) {
    if !is_field_style(name) {
        diags.report(SchemaError::FieldStyle {
            name: name.to_string(),
            at: FileSpan::new(file, span),
            fix: snake(name),
        });
    }
}

fn snake(name: &str) -> String {
    let mut out = String::new();
    for (i, c) in name.trim_start_matches('_').chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Field types are equal when they have the same shape and name the same
/// type names (a name stands for its declaration, compared on its own).
fn same_type(model: &Model, a: &FieldType, b: &FieldType) -> bool {
    match (a, b) {
        (FieldType::Scalar(x), FieldType::Scalar(y)) => x == y,
        (FieldType::Any, FieldType::Any) => true,
        (FieldType::Named(x), FieldType::Named(y)) => model.ty(*x).name == model.ty(*y).name,
        (FieldType::List(x), FieldType::List(y)) | (FieldType::Map(x), FieldType::Map(y)) => {
            same_type(model, x, y)
        }
        (FieldType::Unknown, _) | (_, FieldType::Unknown) => true,
        _ => false,
    }
}

impl Format for Declared {
    fn content_type(&self) -> &'static str {
        self.content_type
    }

    fn parse_block(
        &self,
        file: FileId,
        body: &str,
        offset: usize,
        diags: &mut Diagnostics,
    ) -> Box<dyn SchemaBlock> {
        let parsed = oth_syntax::parse_bson(body, offset);
        for e in &parsed.errors {
            diags.syntax(file, e);
        }
        Box::new(DeclaredBlock { ast: parsed.tree })
    }

    fn differences(&self, model: &Model, a: TypeId, b: TypeId) -> Vec<String> {
        use model::TypeKind as K;
        let (ta, tb) = (model.ty(a), model.ty(b));
        let mut out = Vec::new();
        match (&ta.kind, &tb.kind) {
            (K::Message { fields: fa }, K::Message { fields: fb }) => {
                for f in fa {
                    match fb.iter().find(|g| g.name == f.name) {
                        None => out.push(format!("field `{}` is only in the first", f.name)),
                        Some(g) => {
                            if !same_type(model, &f.ty, &g.ty) {
                                out.push(format!(
                                    "field `{}` is `{}` in the first, `{}` in the second",
                                    f.name,
                                    describe_field_type(model, &f.ty),
                                    describe_field_type(model, &g.ty)
                                ));
                            }
                            if f.optional != g.optional {
                                let opt = |o: bool| if o { "optional" } else { "required" };
                                out.push(format!(
                                    "field `{}` is {} in the first, {} in the second",
                                    f.name,
                                    opt(f.optional),
                                    opt(g.optional)
                                ));
                            }
                        }
                    }
                }
                for g in fb {
                    if !fa.iter().any(|f| f.name == g.name) {
                        out.push(format!("field `{}` is only in the second", g.name));
                    }
                }
            }
            (K::Enum { values: va }, K::Enum { values: vb }) => {
                for v in va {
                    if !vb.iter().any(|w| w.name == v.name) {
                        out.push(format!("value `{}` is only in the first", v.name));
                    }
                }
                for w in vb {
                    if !va.iter().any(|v| v.name == w.name) {
                        out.push(format!("value `{}` is only in the second", w.name));
                    }
                }
            }
            (K::Message { .. }, K::Enum { .. }) => {
                out.push("the first is a message type, the second an enum".into())
            }
            (K::Enum { .. }, K::Message { .. }) => {
                out.push("the first is an enum, the second a message type".into())
            }
        }
        out
    }

    fn encode_message(&self, cx: &mut LiteralCx, ty: TypeId, value: &Value) -> Option<Vec<u8>> {
        super::literal::encode_payload(cx, ty, value, (self.content_type, self.encode))
    }
}
