//! Completion: what `othc::ide` offers at a place, and, in an import's
//! string, the `.oth` and `.wasm` files and folders beside the file.

use std::path::Path;

use lsp_types::*;
use othc::ide::{self, CompletionKind as Kind};

use crate::lines::LineIndex;
use crate::reply::Failure;
use crate::snapshot::Snapshot;
use crate::workspace::path_of;

pub fn completion(
    snap: &Snapshot,
    p: CompletionParams,
) -> Result<Option<CompletionResponse>, Failure> {
    let at = &p.text_document_position;
    let Some(pl) = snap.place(at) else {
        return Ok(None);
    };
    let text = pl.analysis.text(pl.file);
    let lines = LineIndex::of(pl.analysis.compiled.front.sources.get(pl.file));
    // Each item says what it replaces: the part of it already typed.
    let edit = |start: usize, new_text: &str| {
        Some(CompletionTextEdit::Edit(TextEdit {
            range: Range::new(lines.position(start), lines.position(pl.offset)),
            new_text: new_text.to_string(),
        }))
    };
    if let Some(partial) = ide::import_path_prefix(text, pl.offset) {
        let Some(dir) =
            path_of(&at.text_document.uri).and_then(|p| p.parent().map(Path::to_path_buf))
        else {
            return Ok(None);
        };
        let start = pl.offset - partial.len();
        let mut items = files(&dir, partial);
        for i in &mut items {
            i.text_edit = edit(start, &i.label);
        }
        return Ok(Some(CompletionResponse::Array(items)));
    }
    let items = ide::completions(&pl.analysis, pl.file, pl.offset)
        .into_iter()
        .map(|c| CompletionItem {
            text_edit: edit(ide::completion_start(text, pl.offset, c.kind), &c.label),
            label: c.label,
            kind: Some(match c.kind {
                Kind::Keyword => CompletionItemKind::KEYWORD,
                Kind::Verb => CompletionItemKind::FUNCTION,
                Kind::Type => CompletionItemKind::STRUCT,
                Kind::Object => CompletionItemKind::CLASS,
                Kind::ContentType => CompletionItemKind::CONSTANT,
                Kind::Field => CompletionItemKind::FIELD,
                Kind::EnumValue => CompletionItemKind::ENUM_MEMBER,
                Kind::Path => CompletionItemKind::FOLDER,
            }),
            detail: (!c.detail.is_empty()).then_some(c.detail),
            ..Default::default()
        })
        .collect();
    Ok(Some(CompletionResponse::Array(items)))
}

/// The files an import path being written can go on with: in the folder
/// the partial path names (relative to the importing file), the folders
/// and the `.oth` and `.wasm` files, completing the last part.
fn files(dir: &Path, partial: &str) -> Vec<CompletionItem> {
    let (folder, _) = partial.rsplit_once('/').unwrap_or(("", partial));
    let prefix = if folder.is_empty() && !partial.contains('/') {
        "./".to_string()
    } else {
        format!("{folder}/")
    };
    let Ok(read) = std::fs::read_dir(dir.join(if folder.is_empty() { "." } else { folder })) else {
        return Vec::new();
    };
    let mut out: Vec<CompletionItem> = read
        .flatten()
        .filter_map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let is_dir = e.file_type().ok()?.is_dir();
            let wanted = is_dir || name.ends_with(".oth") || name.ends_with(".wasm");
            (wanted && !name.starts_with('.')).then(|| CompletionItem {
                label: format!("{prefix}{name}{}", if is_dir { "/" } else { "" }),
                kind: Some(if is_dir {
                    CompletionItemKind::FOLDER
                } else {
                    CompletionItemKind::FILE
                }),
                ..Default::default()
            })
        })
        .collect();
    out.sort_by(|a, b| a.label.cmp(&b.label));
    out
}
