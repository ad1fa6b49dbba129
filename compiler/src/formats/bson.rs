//! The BSON format (`application/bson`): its block language is parsed by
//! `oth_syntax::parse_bson`.

use oth_syntax::ast::bson::{Block, Decl};

use super::{DeclaredType, Format, SchemaBlock, TypeKind};
use crate::diagnostics::Diagnostics;
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
}
