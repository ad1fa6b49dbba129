//! The BSON format (`application/bson`): its block language is parsed by
//! `oth_syntax::parse_bson`; this module resolves it into model types and
//! compares declarations. Literals are in `bson_literal`.
//!
//! Codes: E0301, E0302, E0303, E0306, E0307, E0308, E0206 (a field naming an
//! object), W0002.

use std::collections::HashMap;

use oth_syntax::Span;
use oth_syntax::ast::Value;
use oth_syntax::ast::bson::{Block, Decl, FieldItem, Type, TypeKind as SynType};

use super::{
    DeclaredType, Format, LiteralCx, LoweredType, SchemaBlock, TypeKind, TypeLookup, TypeNames,
};
use crate::diagnostics::suggest::closest;
use crate::diagnostics::{Code, Diagnostic, Diagnostics, Label};
use crate::model::{self, EnumValueDef, FieldDef, FieldType, Model, Scalar, TypeId};
use crate::source::FileId;

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
        let mut out = Vec::new();
        for d in &self.ast.decls {
            match d {
                Decl::Message(m) => {
                    type_name_style(file, &m.name.name, m.name.span, "message type", diags);
                    let mut fields = Vec::new();
                    let mut members = Vec::new();
                    let mut seen: HashMap<&str, Span> = HashMap::new();
                    for f in &m.fields {
                        let FieldItem::Field(f) = f else { continue };
                        let name = f.name.name.as_str();
                        if let Some(first) = seen.get(name) {
                            diags.push(
                                Diagnostic::new(
                                    Code::E0301,
                                    format!(
                                        "field `{name}` is declared twice in `{}`",
                                        m.name.name
                                    ),
                                    Label::new(file, f.name.span, "declared again here"),
                                )
                                .with_label(Label::new(file, *first, "first declared here"))
                                .with_help("rename or remove one of the two fields"),
                            );
                            continue;
                        }
                        seen.insert(name, f.name.span);
                        if name.starts_with('$') {
                            diags.push(
                                Diagnostic::new(
                                    Code::E0307,
                                    format!("field name `{name}` starts with `$`"),
                                    Label::new(file, f.name.span, "names starting with `$` belong to the wire"),
                                )
                                .with_help(format!(
                                    "`$type` is written by the format itself; rename the field (e.g. `{}`)",
                                    name.trim_start_matches('$')
                                )),
                            );
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
                        diags.push(
                            Diagnostic::new(
                                Code::E0308,
                                format!("enum `{}` has no values", e.name.name),
                                Label::new(
                                    file,
                                    e.name.span,
                                    "no value of this enum can be written",
                                ),
                            )
                            .with_help("list its values: `enum Style { plain, shouted }`"),
                        );
                    }
                    let mut values = Vec::new();
                    let mut members = Vec::new();
                    let mut seen: HashMap<&str, Span> = HashMap::new();
                    for v in &e.values {
                        let name = v.name.name.as_str();
                        if let Some(first) = seen.get(name) {
                            diags.push(
                                Diagnostic::new(
                                    Code::E0302,
                                    format!(
                                        "value `{name}` is listed twice in enum `{}`",
                                        e.name.name
                                    ),
                                    Label::new(file, v.name.span, "listed again here"),
                                )
                                .with_label(Label::new(file, *first, "first listed here"))
                                .with_help("remove one of the two"),
                            );
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
            match names.lookup(n) {
                TypeLookup::Message(id) | TypeLookup::Enum(id) => FieldType::Named(id),
                TypeLookup::NotAType(kind) => {
                    diags.push(
                        Diagnostic::new(
                            Code::E0206,
                            format!("`{n}` is {} {}, not a type", article(kind.describe()), kind.describe()),
                            Label::new(file, t.span, "a field's type goes here"),
                        )
                        .with_help("a field holds a scalar, a message type, an enum, a list `[T]` or a map `{T}`"),
                    );
                    FieldType::Unknown
                }
                TypeLookup::Missing if n.starts_with(|c: char| c.is_ascii_lowercase()) => {
                    diags.push(unsupported_scalar(file, n, t.span));
                    FieldType::Unknown
                }
                TypeLookup::Missing => {
                    let candidates = names.candidates();
                    let refs: Vec<&str> = candidates.iter().map(String::as_str).collect();
                    let mut d = Diagnostic::new(
                        Code::E0303,
                        format!("unknown type `{n}`"),
                        Label::new(
                            file,
                            t.span,
                            "no message type or enum of this name is in scope",
                        ),
                    )
                    .about("field type", n);
                    d = match closest(n, &refs) {
                        Some(near) => d.with_help(format!("did you mean `{near}`?")),
                        None => d.with_help(format!(
                            "declare `{n}` in a schemas block, or import it: `import {{ {n} }} from \"file.oth\"`"
                        )),
                    };
                    diags.push(d);
                    FieldType::Unknown
                }
            }
        }
    }
}

fn unsupported_scalar(file: FileId, n: &str, span: Span) -> Diagnostic {
    let hint = match n {
        "u64" | "usize" | "u128" | "i128" | "int" | "long" | "integer" => {
            "BSON integers are at most 64-bit signed: use `i64`".to_string()
        }
        "float" | "double" | "number" => "use `f64` (or `f32`)".to_string(),
        "str" | "text" => "use `string`".to_string(),
        "boolean" => "use `bool`".to_string(),
        "date" | "datetime" | "timestamp" => "use `time`".to_string(),
        _ => {
            let scalars: Vec<&str> = Scalar::ALL
                .iter()
                .map(|s| s.as_str())
                .chain(["any"])
                .collect();
            match closest(n, &scalars) {
                Some(near) => format!("did you mean `{near}`?"),
                None => format!("the BSON format's scalars: {}", scalars.join(", ")),
            }
        }
    };
    Diagnostic::new(
        Code::E0306,
        format!("the BSON format has no type `{n}`"),
        Label::new(file, span, "not a BSON type"),
    )
    .about("scalar", n)
    .with_help(hint)
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
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

fn type_name_style(file: FileId, name: &str, span: Span, what: &str, diags: &mut Diagnostics) {
    if !is_pascal(name) {
        diags.push(
            Diagnostic::new(
                Code::W0002,
                format!("{what} `{name}` is not written in PascalCase"),
                Label::new(file, span, "type names are PascalCase"),
            )
            .with_help(format!("call it `{}`", crate::asnames::pascal(name))),
        );
    }
}

fn field_name_style(file: FileId, name: &str, span: Span, diags: &mut Diagnostics) {
    if !is_field_style(name) {
        diags.push(
            Diagnostic::new(
                Code::W0002,
                format!("field `{name}` is neither camelCase nor snake_case"),
                Label::new(file, span, "field names start with a lower-case letter"),
            )
            .with_help(format!("call it `{}`", snake(name))),
        );
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
