//! What may be written at a place: keywords where they fit, verbs, names
//! in scope, content types, a literal's fields, and the paths of an image's
//! tree. Which of them is decided by the item the place is in and the text
//! before it on its line, so it works while the line is still unfinished.

use oth_syntax::ast::{Item, Verb};

use super::Analysis;
use super::hover::field_type;
use crate::check::Sym;
use crate::model::{COMMON_CONTENT_TYPES, ImageId, PayloadType, Shape, TypeKind};
use crate::source::FileId;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompletionKind {
    Keyword,
    Verb,
    Type,
    Object,
    ContentType,
    Field,
    EnumValue,
    Path,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Completion {
    pub label: String,
    pub kind: CompletionKind,
    /// What it is: a field's type, an object's doc line.
    pub detail: String,
}

fn item(label: &str, kind: CompletionKind, detail: &str) -> Completion {
    Completion {
        label: label.to_string(),
        kind,
        detail: detail.to_string(),
    }
}

fn keywords(words: &[&str]) -> Vec<Completion> {
    words
        .iter()
        .map(|w| item(w, CompletionKind::Keyword, ""))
        .collect()
}

/// The import path being written at `offset` (the text between the quote
/// and the cursor), if the cursor is in an import's string: the editor
/// lists files for it, which the compiler core cannot.
pub fn import_path_prefix(text: &str, offset: usize) -> Option<&str> {
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..offset];
    let quote = before.rfind('"')?;
    let head = &before[..quote];
    (head.trim_start().starts_with("import") && head.trim_end().ends_with("from"))
        .then(|| &before[quote + 1..])
}

/// What fits at byte `offset` of `file`.
/// Where the text a completion of `kind` replaces starts, the completion
/// being asked for at `offset`: the part of it already typed. A path or a
/// content type is everything back to a space (`/dev/co`, `text/pl`); a
/// name, keyword, verb, field or value is its identifier characters only
/// (`Greeting { pre` replaces `pre`, a quoted value its letters). An
/// editor left to guess would stop at a `/` and write the path twice.
pub fn completion_start(text: &str, offset: usize, kind: CompletionKind) -> usize {
    let offset = offset.min(text.len());
    if !text.is_char_boundary(offset) {
        return offset;
    }
    let part_of = |c: char| match kind {
        CompletionKind::Path | CompletionKind::ContentType => !c.is_whitespace() && c != '"',
        _ => c.is_alphanumeric() || c == '_',
    };
    text[..offset]
        .char_indices()
        .rev()
        .take_while(|(_, c)| part_of(*c))
        .last()
        .map_or(offset, |(i, _)| i)
}

pub fn completions(analysis: &Analysis, file: FileId, offset: usize) -> Vec<Completion> {
    let text = analysis.text(file);
    if offset > text.len() || !text.is_char_boundary(offset) {
        return Vec::new();
    }
    let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
    let before = text[line_start..offset].trim_start();
    let Some(m) = analysis.module(file) else {
        return Vec::new();
    };
    let Some(fix) = analysis.model_file(file) else {
        return Vec::new();
    };
    let scope = &analysis.names.in_scope[fix.index()];
    let inside = m
        .ast
        .items
        .iter()
        .position(|i| item_span(i).is_some_and(|s| s.start() < offset && offset <= s.end()));
    let words: Vec<&str> = before.split_whitespace().collect();
    // A word being typed is replaced by the editor: judge by what precedes it.
    let done: &[&str] = if before.ends_with(char::is_whitespace) || before.is_empty() {
        &words
    } else {
        &words[..words.len().saturating_sub(1)]
    };
    match inside.map(|i| &m.ast.items[i]) {
        Some(Item::Schemas(_)) => {
            if before.contains(':') {
                let mut out: Vec<Completion> = crate::model::Scalar::ALL
                    .iter()
                    .map(|s| item(s.as_str(), CompletionKind::Type, "scalar"))
                    .collect();
                out.push(item("any", CompletionKind::Type, "any message"));
                out.extend(types_in_scope(analysis, scope));
                out
            } else {
                keywords(&["message", "enum"])
            }
        }
        Some(Item::Object(_)) => entry_completions(analysis, scope, done, &["serves", "needs"]),
        Some(Item::Image(_)) => {
            let img = image_at(analysis, fix, offset);
            if let Some(fields) = img.and_then(|_| literal_fields(analysis, scope, text, offset)) {
                return fields;
            }
            in_image(analysis, scope, img, done)
        }
        _ => match done {
            [] => keywords(&["import", "export", "schemas", "native", "object", "image"]),
            ["export"] => keywords(&["schemas", "native", "object", "image"]),
            ["native"] | ["export", "native"] => keywords(&["object"]),
            ["schemas"] | ["export", "schemas"] => content_types(analysis),
            _ => Vec::new(),
        },
    }
}

/// What may come in an image's body after the words `done` of the line.
fn in_image(
    analysis: &Analysis,
    scope: &[(String, Sym)],
    img: Option<ImageId>,
    done: &[&str],
) -> Vec<Completion> {
    match done {
        [] => {
            let mut out = keywords(&["require", "instance", "mount", "bind", "export", "needs"]);
            out.extend(verbs());
            out
        }
        ["instance", _, "="] => scope
            .iter()
            .filter(|(_, s)| matches!(s, Sym::Object(_) | Sym::Image(_)))
            .map(|(n, s)| item(n, CompletionKind::Object, s.kind().describe()))
            .collect(),
        ["require", _, ..] if done.last().is_some_and(|w| w.ends_with(':')) => {
            payload_types(analysis, scope)
        }
        ["mount" | "export", _] => img.map(|i| tree_paths(analysis, i)).unwrap_or_default(),
        ["mount" | "bind" | "export", _, _] => keywords(&["readonly"]),
        [v, _] if Verb::ALL.iter().any(|x| x.as_str() == *v) => types_in_scope(analysis, scope),
        [v] if Verb::ALL.iter().any(|x| x.as_str() == *v) => {
            img.map(|i| tree_paths(analysis, i)).unwrap_or_default()
        }
        _ => entry_completions(analysis, scope, done, &[]),
    }
}

fn item_span(i: &Item) -> Option<oth_syntax::Span> {
    Some(match i {
        Item::Import(x) => x.span,
        Item::Schemas(x) => x.span,
        Item::Object(x) => x.span,
        Item::Image(x) => x.span,
        Item::Error(_) => return None,
    })
}

/// The image a place is in: the file's last image declared before it.
fn image_at(analysis: &Analysis, fix: crate::model::FileIx, offset: usize) -> Option<ImageId> {
    let c = &analysis.compiled.checked;
    c.model
        .images
        .iter()
        .enumerate()
        .filter(|(i, def)| def.file == fix && c.spans.images[*i].name.span.start() <= offset)
        .map(|(i, _)| ImageId(i as u32))
        .next_back()
}

fn verbs() -> Vec<Completion> {
    Verb::ALL
        .iter()
        .map(|v| item(v.as_str(), CompletionKind::Verb, "verb"))
        .collect()
}

/// In an entry: a path first, then a verb (or `operator`), then payload
/// types.
fn entry_completions(
    analysis: &Analysis,
    scope: &[(String, Sym)],
    done: &[&str],
    block_words: &[&str],
) -> Vec<Completion> {
    match done {
        [] => keywords(block_words),
        [p] if p.starts_with('/') => {
            let mut out = verbs();
            out.extend(keywords(&["operator"]));
            out
        }
        [p, "operator"] if p.starts_with('/') => verbs(),
        [p, ..] if p.starts_with('/') => {
            let mut out = payload_types(analysis, scope);
            out.push(item("*", CompletionKind::Keyword, "a stream of answers"));
            out
        }
        _ => Vec::new(),
    }
}

fn types_in_scope(analysis: &Analysis, scope: &[(String, Sym)]) -> Vec<Completion> {
    let model = &analysis.compiled.checked.model;
    scope
        .iter()
        .filter_map(|(n, s)| match s {
            Sym::Type(t, is_enum) => Some(item(
                n,
                CompletionKind::Type,
                &format!(
                    "{} ({})",
                    if *is_enum { "enum" } else { "message" },
                    model.ty(*t).format
                ),
            )),
            _ => None,
        })
        .collect()
}

fn payload_types(analysis: &Analysis, scope: &[(String, Sym)]) -> Vec<Completion> {
    let mut out = types_in_scope(analysis, scope);
    out.retain(|c| c.detail.starts_with("message"));
    out.push(item("Stat", CompletionKind::Type, "stat records"));
    out.extend(content_types(analysis));
    out
}

/// The content types written anywhere in the program, then the common ones.
fn content_types(analysis: &Analysis) -> Vec<Completion> {
    let model = &analysis.compiled.checked.model;
    let mut seen: Vec<String> = Vec::new();
    for e in &model.entries {
        for t in e.request.iter().chain(&e.answer) {
            if let PayloadType::Content(c) = t
                && !seen.contains(&c.text)
                && c.text != crate::model::STAT_CONTENT_TYPE
            {
                seen.push(c.text.clone());
            }
        }
    }
    let mut out: Vec<Completion> = seen
        .iter()
        .map(|c| item(c, CompletionKind::ContentType, "used in this program"))
        .collect();
    for c in COMMON_CONTENT_TYPES {
        if !seen.iter().any(|s| s == c) {
            out.push(item(c, CompletionKind::ContentType, "common"));
        }
    }
    out
}

/// The paths of image `img`'s tree: each instance, and under it what its
/// object serves (or its image exports).
fn tree_paths(analysis: &Analysis, img: ImageId) -> Vec<Completion> {
    let model = &analysis.compiled.checked.model;
    let def = model.image(img);
    let mut out = Vec::new();
    for inst in &def.instances {
        let what = model.shape_name(inst.of);
        out.push(item(&format!("/{}", inst.name), CompletionKind::Path, what));
        let served: Vec<String> = match inst.of {
            Some(Shape::Object(o)) => model
                .object(o)
                .serves
                .iter()
                .map(|&e| {
                    let e = model.entry(e);
                    format!(
                        "{}",
                        crate::model::PathPattern::from_syntax(e.path.literal_prefix())
                    )
                })
                .collect(),
            Some(Shape::Image(i)) => model
                .image(i)
                .exports
                .iter()
                .map(|x| x.at.to_string())
                .collect(),
            None => Vec::new(),
        };
        for p in served {
            let full = format!("/{}{}", inst.name, if p == "/" { "" } else { &p });
            if !out.iter().any(|c| c.label == full) {
                out.push(item(&full, CompletionKind::Path, what));
            }
        }
    }
    for n in &def.needs {
        out.push(item(
            &n.mount.to_string(),
            CompletionKind::Path,
            "what the image needs",
        ));
    }
    out
}

/// Inside a message literal (`Greeting { | }`): the message's fields.
fn literal_fields(
    analysis: &Analysis,
    scope: &[(String, Sym)],
    text: &str,
    offset: usize,
) -> Option<Vec<Completion>> {
    // The innermost `{` still open before the place, and the word before it.
    let mut depth = 0usize;
    let mut open = None;
    for (i, c) in text[..offset].char_indices().rev() {
        match c {
            '}' => depth += 1,
            '{' if depth == 0 => {
                open = Some(i);
                break;
            }
            '{' => depth -= 1,
            _ => {}
        }
    }
    let open = open?;
    let head = text[..open].trim_end();
    let name_start = head
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphanumeric() || *c == '_')
        .last()?
        .0;
    let name = &head[name_start..];
    let (_, sym) = scope.iter().find(|(n, _)| n == name)?;
    let Sym::Type(t, false) = sym else {
        return None;
    };
    let model = &analysis.compiled.checked.model;
    let TypeKind::Message { fields } = &model.ty(*t).kind else {
        return None;
    };
    let written = &text[open..offset];
    // After `field:`, the field's values where they are few: an enum's, a bool's.
    let current = written.rsplit([',', '{']).next().unwrap_or("");
    if let Some((name, value)) = current.split_once(':') {
        let value = value.trim();
        let field = fields.iter().find(|f| f.name == name.trim());
        let simple = value.chars().all(|c| c.is_alphanumeric() || c == '_');
        return Some(match field.map(|f| &f.ty) {
            Some(crate::model::FieldType::Named(t)) if simple => match &model.ty(*t).kind {
                TypeKind::Enum { values } => values
                    .iter()
                    .map(|v| item(&v.name, CompletionKind::EnumValue, &model.ty(*t).name))
                    .collect(),
                TypeKind::Message { .. } => Vec::new(),
            },
            Some(crate::model::FieldType::Scalar(crate::model::Scalar::Bool)) if simple => {
                keywords(&["true", "false"])
            }
            _ => Vec::new(),
        });
    }
    Some(
        fields
            .iter()
            .filter(|f| !written.contains(&format!("{}:", f.name)))
            .map(|f| {
                let opt = if f.optional { "?" } else { "" };
                item(
                    &f.name,
                    CompletionKind::Field,
                    &format!("{opt}{}", field_type(model, &f.ty)),
                )
            })
            .collect(),
    )
}
