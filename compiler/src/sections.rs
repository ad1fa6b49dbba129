//! Writing what a compiled module says about itself (book: reference/bundles.md): its header
//! and its schemas as canonical `.oth` text, printed by the same printer as
//! `othc fmt`, in custom sections appended with wasm-encoder.

use oth_syntax::Span;
use oth_syntax::ast::{self, bson};
use oth_syntax::token::{ContentTypeText, PathText};

use crate::model::*;
use crate::printer::Printer;
use crate::wasm::{HEADER_MAGIC, HEADER_SECTION, SCHEMAS_SECTION_PREFIX};

fn ident(name: &str) -> ast::Ident {
    ast::Ident {
        name: name.to_string(),
        span: Span::default(),
    }
}

fn doc(d: &Option<String>) -> Option<ast::Doc> {
    d.as_ref().map(|t| ast::Doc {
        text: t.clone(),
        span: Span::default(),
    })
}

fn path(p: &PathPattern) -> ast::Path {
    ast::Path {
        path: PathText {
            segments: p.segs.clone(),
            valid: true,
        },
        span: Span::default(),
    }
}

fn type_ref(model: &Model, t: &PayloadType) -> ast::TypeRef {
    match t {
        PayloadType::Content(c) if c.text == STAT_CONTENT_TYPE => ast::TypeRef::Name(ident("Stat")),
        PayloadType::Content(c) => ast::TypeRef::ContentType(ast::ContentType {
            ct: ContentTypeText {
                text: c.text.clone(),
                valid: true,
            },
            span: Span::default(),
        }),
        PayloadType::Message(id) => ast::TypeRef::Name(ident(&model.ty(*id).name)),
        PayloadType::Unknown => ast::TypeRef::ContentType(ast::ContentType {
            ct: ContentTypeText {
                text: "*/*".into(),
                valid: true,
            },
            span: Span::default(),
        }),
    }
}

fn entry(model: &Model, e: &EntryDef) -> ast::Entry {
    ast::Entry {
        doc: doc(&e.doc),
        path: path(&e.path),
        operator: e.operator.then(Span::default),
        verb: ast::VerbLit {
            verb: e.verb,
            span: Span::default(),
        },
        request: e.request.iter().map(|t| type_ref(model, t)).collect(),
        answer: e.answer.as_ref().map(|a| ast::Answer {
            ty: type_ref(model, a),
            // `watch` and `list` stream anyway: their `*` only as written.
            stream: (e.star || (e.stream && !e.verb.always_streams())).then(Span::default),
        }),
        span: Span::default(),
    }
}

/// An entry as the line that declares it (`/x  write text/plain`), its doc
/// left out.
pub fn entry_text(model: &Model, e: &EntryDef) -> String {
    let mut x = entry(model, e);
    x.doc = None;
    crate::printer::entry_line(&x)
}

/// The object as a syntax tree (exported: a module's header is for others).
pub fn object_tree(model: &Model, id: ObjectId) -> ast::Object {
    let o = model.object(id);
    let mut members = Vec::new();
    if !o.serves.is_empty() {
        members.push(ast::ObjectMember::Serves(ast::Serves {
            entries: o
                .serves
                .iter()
                .map(|e| ast::EntryItem::Entry(entry(model, model.entry(*e))))
                .collect(),
            span: Span::default(),
        }));
    }
    for n in &o.needs {
        members.push(ast::ObjectMember::Needs(ast::Needs {
            doc: doc(&n.doc),
            mount: path(&n.mount),
            entries: n
                .entries
                .iter()
                .map(|e| ast::EntryItem::Entry(entry(model, model.entry(*e))))
                .collect(),
            span: Span::default(),
        }));
    }
    ast::Object {
        doc: doc(&o.doc),
        export: Some(Span::default()),
        native: o.native.then(Span::default),
        name: ident(&o.name),
        members,
        span: Span::default(),
    }
}

fn field_type(model: &Model, t: &FieldType) -> bson::Type {
    let kind = match t {
        FieldType::Scalar(s) => bson::TypeKind::Named(s.as_str().to_string()),
        FieldType::Any | FieldType::Unknown => bson::TypeKind::Named("any".into()),
        FieldType::Named(id) => bson::TypeKind::Named(model.ty(*id).name.clone()),
        FieldType::List(i) => bson::TypeKind::List(Box::new(field_type(model, i))),
        FieldType::Map(i) => bson::TypeKind::Map(Box::new(field_type(model, i))),
    };
    bson::Type {
        kind,
        span: Span::default(),
    }
}

fn type_tree(model: &Model, id: TypeId) -> bson::Decl {
    let t = model.ty(id);
    match &t.kind {
        TypeKind::Message { fields } => bson::Decl::Message(bson::Message {
            doc: doc(&t.doc),
            name: ident(&t.name),
            fields: fields
                .iter()
                .map(|f| {
                    bson::FieldItem::Field(bson::Field {
                        doc: doc(&f.doc).map(Box::new),
                        name: ident(&f.name),
                        optional: f.optional.then(Span::default),
                        ty: field_type(model, &f.ty),
                        span: Span::default(),
                    })
                })
                .collect(),
            span: Span::default(),
        }),
        TypeKind::Enum { values } => bson::Decl::Enum(bson::Enum {
            doc: doc(&t.doc),
            name: ident(&t.name),
            values: values
                .iter()
                .map(|v| bson::EnumValue {
                    doc: doc(&v.doc),
                    name: ident(&v.name),
                    span: Span::default(),
                })
                .collect(),
            span: Span::default(),
        }),
    }
}

/// Every type the object's entries name, transitively, and the types its file
/// declares: what a module's schemas section holds. In model order.
pub fn header_types(model: &Model, id: ObjectId) -> Vec<TypeId> {
    model.types_for(model.object(id).file, &[id])
}

/// The `othismo:header` section's text: the magic line, then the object.
pub fn header_text(model: &Model, id: ObjectId) -> String {
    let mut p = Printer::plain();
    p.object(&object_tree(model, id));
    format!("{HEADER_MAGIC}\n{}", p.finish())
}

/// The schemas sections: (section name, text) per format, for the types of
/// `header_types`.
pub fn schemas_texts(model: &Model, id: ObjectId) -> Vec<(String, String)> {
    let types = header_types(model, id);
    let mut formats: Vec<&str> = types.iter().map(|t| &*model.ty(*t).format).collect();
    formats.sort_unstable();
    formats.dedup();
    formats
        .into_iter()
        .map(|format| {
            let decls: Vec<bson::Decl> = types
                .iter()
                .filter(|t| model.ty(**t).format == format)
                .map(|t| type_tree(model, *t))
                .collect();
            let block = ast::SchemasBlock {
                doc: None,
                export: Some(Span::default()),
                content_type: ast::ContentType {
                    ct: ContentTypeText {
                        text: format.to_string(),
                        valid: true,
                    },
                    span: Span::default(),
                },
                body: Span::default(),
                span: Span::default(),
            };
            let mut p = Printer::plain();
            p.schemas(&block, &bson::Block { decls });
            (format!("{SCHEMAS_SECTION_PREFIX}{format}"), p.finish())
        })
        .collect()
}

/// `module` with `sections` appended (replacing any `othismo:*` it had),
/// every other section copied through unchanged; validated.
pub fn append(module: &[u8], sections: &[(String, String)]) -> Result<Vec<u8>, String> {
    let mut out = wasm_encoder::Module::new();
    for payload in wasmparser::Parser::new(0).parse_all(module) {
        let payload = payload.map_err(|e| format!("not a valid module: {e}"))?;
        if let wasmparser::Payload::CustomSection(c) = &payload
            && c.name().starts_with("othismo:")
        {
            continue;
        }
        if let Some((id, range)) = payload.as_section() {
            out.section(&wasm_encoder::RawSection {
                id,
                data: &module[range.start as usize..range.end as usize],
            });
        }
    }
    for (name, text) in sections {
        out.section(&wasm_encoder::CustomSection {
            name: name.as_str().into(),
            data: text.as_bytes().into(),
        });
    }
    let bytes = out.finish();
    wasmparser::Validator::new()
        .validate_all(&bytes)
        .map_err(|e| format!("the module with its sections does not validate: {e}"))?;
    Ok(bytes)
}

/// The sections of object `id`: its header, then its schemas.
pub fn sections_of(model: &Model, id: ObjectId) -> Vec<(String, String)> {
    let mut v = vec![(HEADER_SECTION.to_string(), header_text(model, id))];
    v.extend(schemas_texts(model, id));
    v
}
