//! One function per request: LSP in, `othc::ide` asked, LSP out.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use lsp_server::ErrorCode;
use lsp_types::*;
use othc::ide::{self, Target};
use othc::source::FileSpan;

use crate::convert::{location, markup, range};
use crate::lines::LineIndex;
use crate::reply::Failure;
use crate::snapshot::{Place, Snapshot};
use crate::workspace::{Overlay, path_of};

pub(crate) fn hover(snap: &Snapshot, p: HoverParams) -> Result<Option<Hover>, Failure> {
    let Some((pl, target, at)) = snap.target(&p.text_document_position_params) else {
        return Ok(None);
    };
    Ok(Some(Hover {
        contents: HoverContents::Markup(markup(pl.analysis.hover(target), &snap.config.client)),
        range: Some(range(&pl.analysis, at)),
    }))
}

pub(crate) fn definition(
    snap: &Snapshot,
    p: GotoDefinitionParams,
) -> Result<Option<GotoDefinitionResponse>, Failure> {
    let Some((pl, target, _)) = snap.target(&p.text_document_position_params) else {
        return Ok(None);
    };
    let found: Vec<Location> = pl
        .analysis
        .goes_to(target)
        .into_iter()
        .filter_map(|at| location(&pl.analysis, at))
        .collect();
    Ok(match found.len() {
        0 => None,
        1 => Some(GotoDefinitionResponse::Scalar(found[0].clone())),
        _ => Some(GotoDefinitionResponse::Array(found)),
    })
}

pub(crate) fn references(
    snap: &Snapshot,
    p: ReferenceParams,
) -> Result<Option<Vec<Location>>, Failure> {
    let Some((pl, target, _)) = snap.target(&p.text_document_position) else {
        return Ok(None);
    };
    let mut all = pl.analysis.references(target);
    if !p.context.include_declaration {
        let decl = pl.analysis.definition(target);
        all.retain(|at| Some(*at) != decl);
    }
    Ok(Some(
        all.into_iter()
            .filter_map(|at| location(&pl.analysis, at))
            .collect(),
    ))
}

/// The places in this file that name what the place names (the editor
/// marks them while the cursor is there).
pub(crate) fn highlights(
    snap: &Snapshot,
    p: DocumentHighlightParams,
) -> Result<Option<Vec<DocumentHighlight>>, Failure> {
    let Some((pl, target, _)) = snap.target(&p.text_document_position_params) else {
        return Ok(None);
    };
    Ok(Some(
        pl.analysis
            .references(target)
            .into_iter()
            .filter(|at| at.file == pl.file)
            .map(|at| DocumentHighlight {
                range: range(&pl.analysis, at),
                kind: Some(DocumentHighlightKind::TEXT),
            })
            .collect(),
    ))
}

/// Every declaration of every file the check loaded (the open files and
/// what they import) whose name holds the query, ignoring case: objects,
/// images, types, instances, slots, entries, as the outline shows them.
pub(crate) fn workspace_symbols(
    snap: &Snapshot,
    p: WorkspaceSymbolParams,
) -> Result<Option<Vec<SymbolInformation>>, Failure> {
    let Some(analysis) = snap.analysis() else {
        return Ok(None);
    };
    let query = p.query.to_lowercase();
    let mut out = Vec::new();
    for (file, source) in analysis.compiled.front.sources.files() {
        let Some(uri) = crate::workspace::url_of(&source.name) else {
            continue;
        };
        let ix = LineIndex::of(source);
        let mut pending = ide::symbols(&analysis, file);
        while let Some(s) = pending.pop() {
            if s.name.to_lowercase().contains(&query) {
                #[allow(deprecated)] // `deprecated` is a required field of the type.
                out.push(SymbolInformation {
                    name: s.name.clone(),
                    kind: symbol_kind(s.kind),
                    tags: None,
                    deprecated: None,
                    location: Location::new(uri.clone(), ix.range(s.name_at)),
                    container_name: None,
                });
            }
            pending.extend(s.children);
        }
    }
    out.sort_by(|a, b| (&a.name, a.location.uri.as_str()).cmp(&(&b.name, b.location.uri.as_str())));
    Ok(Some(out))
}

fn symbol_kind(k: ide::SymbolKind) -> SymbolKind {
    match k {
        ide::SymbolKind::Object => SymbolKind::CLASS,
        ide::SymbolKind::Image => SymbolKind::MODULE,
        ide::SymbolKind::Schemas => SymbolKind::NAMESPACE,
        ide::SymbolKind::Type => SymbolKind::STRUCT,
        ide::SymbolKind::Entry => SymbolKind::METHOD,
        ide::SymbolKind::Needs => SymbolKind::INTERFACE,
        ide::SymbolKind::Slot => SymbolKind::FIELD,
        ide::SymbolKind::Instance => SymbolKind::VARIABLE,
        ide::SymbolKind::Wire => SymbolKind::PROPERTY,
    }
}

/// What a rename at a place would rename, or why nothing can be.
fn renamable(pl: &Place) -> Result<(Target, FileSpan), Failure> {
    let refused = |m: &str| (ErrorCode::RequestFailed as i32, m.to_string());
    let (target, at) = pl
        .analysis
        .at(pl.file, pl.offset)
        .ok_or_else(|| refused("there is no name here to rename"))?;
    ide::renamable(target).map_err(refused)?;
    Ok((target, at))
}

pub(crate) fn prepare_rename(
    snap: &Snapshot,
    p: TextDocumentPositionParams,
) -> Result<Option<PrepareRenameResponse>, Failure> {
    let Some(pl) = snap.place(&p) else {
        return Ok(None);
    };
    let (_, at) = renamable(&pl)?;
    Ok(Some(PrepareRenameResponse::Range(range(&pl.analysis, at))))
}

pub(crate) fn rename(snap: &Snapshot, p: RenameParams) -> Result<Option<WorkspaceEdit>, Failure> {
    let Some(pl) = snap.place(&p.text_document_position) else {
        return Ok(None);
    };
    let (target, _) = renamable(&pl)?;
    let edits = ide::rename(&pl.analysis, target, &p.new_name).map_err(|why| {
        (
            ErrorCode::RequestFailed as i32,
            format!("cannot rename: {why}"),
        )
    })?;
    let mut changes: HashMap<Url, Vec<TextEdit>> = HashMap::new();
    for e in edits {
        let Some(loc) = location(&pl.analysis, e.at) else {
            continue;
        };
        changes
            .entry(loc.uri)
            .or_default()
            .push(TextEdit::new(loc.range, e.new_text));
    }
    Ok(Some(WorkspaceEdit::new(changes)))
}

pub(crate) fn formatting(
    snap: &Snapshot,
    p: DocumentFormattingParams,
) -> Result<Option<Vec<TextEdit>>, Failure> {
    let Some((path, text)) = text_of(snap, &p.text_document.uri)? else {
        return Ok(None);
    };
    let formatted = formatted(&path, &text)?;
    if formatted == text {
        return Ok(Some(Vec::new()));
    }
    let end = LineIndex::new(&text).position(text.len());
    Ok(Some(vec![TextEdit::new(
        Range::new(Position::new(0, 0), end),
        formatted,
    )]))
}

/// Formatting a range: the lines the printer changes, if any of them is
/// in the range (the printer formats a whole file; what it would change
/// outside the range is left alone only when no change touches the range).
pub(crate) fn range_formatting(
    snap: &Snapshot,
    p: DocumentRangeFormattingParams,
) -> Result<Option<Vec<TextEdit>>, Failure> {
    let Some((path, text)) = text_of(snap, &p.text_document.uri)? else {
        return Ok(None);
    };
    let formatted = formatted(&path, &text)?;
    let Some((changed, with)) = ide::changed_lines(&text, &formatted) else {
        return Ok(Some(Vec::new()));
    };
    let ix = LineIndex::new(&text);
    let range = Range::new(ix.position(changed.start), ix.position(changed.end));
    let touches = range.start <= p.range.end && p.range.start <= range.end;
    Ok(Some(if touches {
        vec![TextEdit::new(range, with.to_string())]
    } else {
        Vec::new()
    }))
}

/// The text of the document at `uri`: the editor's, or the disk's through
/// the loader the checks use.
fn text_of(snap: &Snapshot, uri: &Url) -> Result<Option<(PathBuf, String)>, Failure> {
    let Some(path) = path_of(uri) else {
        return Ok(None);
    };
    let bytes = othc::loader::Loader::load(&Overlay { docs: &snap.docs }, &path).map_err(|e| {
        (
            ErrorCode::RequestFailed as i32,
            format!("cannot read `{}`: {e}", path.display()),
        )
    })?;
    let text = String::from_utf8(bytes).map_err(|_| {
        (
            ErrorCode::RequestFailed as i32,
            format!("`{}` is not UTF-8 text", path.display()),
        )
    })?;
    Ok(Some((path, text)))
}

/// `text` formatted, or the refusal that names its first syntax error.
fn formatted(path: &Path, text: &str) -> Result<String, Failure> {
    ide::format(text).map_err(|n| {
        let line = LineIndex::new(text).position(n.at).line + 1;
        let said = n
            .error
            .map(|d| format!(" (line {line}: {} {})", d.code, d.message))
            .unwrap_or_default();
        (
            ErrorCode::RequestFailed as i32,
            format!(
                "`{}` does not parse, so it is not formatted{said}",
                file_name(path)
            ),
        )
    })
}

fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

pub(crate) fn symbols(
    snap: &Snapshot,
    p: DocumentSymbolParams,
) -> Result<Option<DocumentSymbolResponse>, Failure> {
    let Some((analysis, file)) = snap.file(&p.text_document.uri) else {
        return Ok(None);
    };
    let ix = LineIndex::of(analysis.compiled.front.sources.get(file));
    #[allow(deprecated)] // `deprecated` is a required field of the type.
    fn convert(ix: &LineIndex, s: ide::Symbol) -> DocumentSymbol {
        DocumentSymbol {
            name: s.name,
            detail: (!s.detail.is_empty()).then_some(s.detail),
            kind: symbol_kind(s.kind),
            tags: None,
            deprecated: None,
            range: ix.range(s.whole),
            selection_range: ix.range(s.name_at),
            children: Some(s.children.into_iter().map(|c| convert(ix, c)).collect()),
        }
    }
    let out = ide::symbols(&analysis, file)
        .into_iter()
        .map(|s| convert(&ix, s))
        .collect();
    Ok(Some(DocumentSymbolResponse::Nested(out)))
}

pub(crate) fn folding(
    snap: &Snapshot,
    p: FoldingRangeParams,
) -> Result<Option<Vec<FoldingRange>>, Failure> {
    let Some((analysis, file)) = snap.file(&p.text_document.uri) else {
        return Ok(None);
    };
    let ix = LineIndex::of(analysis.compiled.front.sources.get(file));
    Ok(Some(
        ide::folds(&analysis, file)
            .into_iter()
            .map(|f| FoldingRange {
                start_line: ix.position(f.start).line,
                start_character: None,
                end_line: ix.position(f.end).line,
                end_character: None,
                kind: None,
                collapsed_text: None,
            })
            .collect(),
    ))
}

/// Inside a message literal: its fields with their types, the one being
/// written marked.
pub(crate) fn signature_help(
    snap: &Snapshot,
    p: SignatureHelpParams,
) -> Result<Option<SignatureHelp>, Failure> {
    let Some(pl) = snap.place(&p.text_document_position_params) else {
        return Ok(None);
    };
    let Some(sig) = ide::signature(&pl.analysis, pl.file, pl.offset) else {
        return Ok(None);
    };
    // LSP counts a label's places in UTF-16 units.
    let units = |byte: usize| sig.label[..byte].encode_utf16().count() as u32;
    let parameters = sig
        .fields
        .iter()
        .map(|r| ParameterInformation {
            label: ParameterLabel::LabelOffsets([units(r.start), units(r.end)]),
            documentation: None,
        })
        .collect();
    Ok(Some(SignatureHelp {
        signatures: vec![SignatureInformation {
            label: sig.label.clone(),
            documentation: sig.doc.map(|d| {
                Documentation::MarkupContent(crate::convert::markup(d, &snap.config.client))
            }),
            parameters: Some(parameters),
            active_parameter: sig.active.map(|a| a as u32),
        }],
        active_signature: Some(0),
        active_parameter: sig.active.map(|a| a as u32),
    }))
}
