//! The BSON format (`application/bson`): its block language is parsed by
//! `oth_syntax::parse_bson`; this module resolves it into model types and
//! compares declarations. Literals are in `bson_literal`.
//!
//! Codes: E0301, E0302, E0303, E0306, E0307, E0308, E0206 (a field naming an
//! object), W0002.

use foldhash::HashMap as FastMap;

use oth_syntax::Span;
use oth_syntax::ast::Value;
use oth_syntax::ast::bson::{Block, Decl, FieldItem, Type, TypeKind as SynType};

use super::schema_errors::SchemaError;
use super::{
    DeclaredType, Format, LiteralCx, LoweredType, SchemaBlock, TypeKind, TypeLookup, TypeNames,
};
use crate::diagnostics::Diagnostics;
use crate::model::{self, EnumValueDef, FieldDef, FieldType, Model, Scalar, TypeId};
use crate::name_errors::{NameError, Sought};
use crate::source::{FileId, FileSpan};

pub struct Bson;

#[derive(Debug)]
pub struct BsonBlock {
    pub ast: Block,
}

impl SchemaBlock for BsonBlock {
    fn declared(&self) -> Vec<DeclaredType> {
        self.ast
            .decls
            .iter()
            .filter_map(|d| match d {
                Decl::Message(m) => Some(DeclaredType {
                    name: m.name.name.clone(),
                    kind: TypeKind::Message,
                    span: m.name.span,
                }),
                Decl::Enum(e) => Some(DeclaredType {
                    name: e.name.name.clone(),
                    kind: TypeKind::Enum,
                    span: e.name.span,
                }),
                Decl::Error(_) => None,
            })
            .collect()
    }

    fn lower(
        &self,
        file: FileId,
        names: &dyn TypeNames,
        diags: &mut Diagnostics,
    ) -> Vec<LoweredType> {
        let mut out = Vec::with_capacity(self.ast.decls.len());
        // The names seen in the current declaration: one map for all of
        // them, cleared for each, rather than one allocated per message.
        let mut seen: FastMap<&str, Span> = FastMap::default();
        for d in &self.ast.decls {
            seen.clear();
            match d {
                Decl::Message(m) => {
                    type_name_style(file, &m.name.name, m.name.span, "message type", diags);
                    let mut fields = Vec::with_capacity(m.fields.len());
                    let mut members = Vec::with_capacity(m.fields.len());
                    for f in &m.fields {
                        let FieldItem::Field(f) = f else { continue };
                        let name = f.name.name.as_str();
                        if let Some(first) = seen.get(name) {
                            diags.report(SchemaError::FieldTwice {
                                message: m.name.name.clone(),
                                field: name.to_string(),
                                at: FileSpan::new(file, f.name.span),
                                first: FileSpan::new(file, *first),
                            });
                            continue;
                        }
                        seen.insert(name, f.name.span);
                        if name.starts_with('$') {
                            diags.report(SchemaError::DollarField {
                                field: name.to_string(),
                                at: FileSpan::new(file, f.name.span),
                            });
                        } else {
                            field_name_style(file, name, f.name.span, diags);
                        }
                        fields.push(FieldDef {
                            name: name.to_string(),
                            optional: f.optional.is_some(),
                            ty: resolve_type(file, &f.ty, names, diags),
                            doc: f.doc.as_ref().map(|d| d.text.clone()),
                        });
                        members.push((f.name.span, f.ty.span));
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
                    let mut values = Vec::with_capacity(e.values.len());
                    let mut members = Vec::with_capacity(e.values.len());
                    for v in &e.values {
                        let name = v.name.name.as_str();
                        if let Some(first) = seen.get(name) {
                            diags.report(SchemaError::ValueTwice {
                                enum_: e.name.name.clone(),
                                value: name.to_string(),
                                at: FileSpan::new(file, v.name.span),
                                first: FileSpan::new(file, *first),
                            });
                            continue;
                        }
                        seen.insert(name, v.name.span);
                        values.push(EnumValueDef {
                            name: name.to_string(),
                            doc: v.doc.as_ref().map(|d| d.text.clone()),
                        });
                        members.push((v.name.span, v.name.span));
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

fn is_pascal(s: &str) -> bool {
    s.starts_with(|c: char| c.is_ascii_uppercase()) && s.chars().all(|c| c.is_ascii_alphanumeric())
}

fn is_field_style(s: &str) -> bool {
    let lower_start = s.starts_with(|c: char| c.is_ascii_lowercase());
    let camel = s.chars().all(|c| c.is_ascii_alphanumeric());
    let snake = s
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    lower_start && (camel || snake)
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

/// How a field type reads in messages: `[string]`, `Friend`.
pub fn describe(model: &Model, t: &FieldType) -> String {
    match t {
        FieldType::Scalar(s) => s.as_str().to_string(),
        FieldType::Any => "any".into(),
        FieldType::Named(id) => model.ty(*id).name.clone(),
        FieldType::List(i) => format!("[{}]", describe(model, i)),
        FieldType::Map(i) => format!("{{{}}}", describe(model, i)),
        FieldType::Unknown => "?".into(),
    }
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

impl Format for Bson {
    fn content_type(&self) -> &'static str {
        "application/bson"
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
        Box::new(BsonBlock { ast: parsed.tree })
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
                                    describe(model, &f.ty),
                                    describe(model, &g.ty)
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
        super::bson_literal::encode_payload(cx, ty, value)
    }
}
