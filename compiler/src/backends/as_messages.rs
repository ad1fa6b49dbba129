//! The message classes of a file's bindings: each one's view (its name, its
//! field declarations, its shape descriptor) filled into the message
//! template (`filled.rs`), in the model's order.
//!
//! A large schema has tens of thousands of messages, so the classes are
//! rendered in parallel, in contiguous runs of the file's messages, each run
//! into a buffer of its own, the buffers joined in order: the text is the
//! one a single pass writes. What the classes share is the list and map
//! helpers, numbered as the fields first name them; they are all added in
//! one pass over the fields first, so that the runs only read them.

use super::as_types::{Helpers, push_default_value, push_field_type, string_literal, type_name};
use super::filled::Filled;
use crate::asnames;
use crate::model::*;

/// What fills the message template's holes, in the order of
/// `MESSAGE_HOLES`.
struct MessageView {
    name: String,
    wire: String,
    /// The class's doc comment, whole `///` lines.
    doc: String,
    /// The field declarations, whole indented lines in one string: a
    /// message has many fields, and one string keeps rendering large files
    /// fast.
    fields: String,
    /// What the SDK reads and writes the fields by (`shape.ts`): `key
    /// type` for each, in declaration order.
    descriptor: String,
    /// `, __h` when a field is a list or map (read by the file's helpers).
    helpers: &'static str,
}

pub(super) const MESSAGE_HOLES: [&str; 6] =
    ["name", "wire", "doc", "fields", "descriptor", "helpers"];

/// Fewer messages than this are rendered on the calling thread: a thread
/// costs more than it saves on a small file.
const MESSAGES_PER_THREAD: usize = 1024;

impl MessageView {
    fn fill(&self, template: &Filled, out: &mut String) {
        template.fill(
            out,
            &[
                &self.name,
                &self.wire,
                &self.doc,
                &self.fields,
                &self.descriptor,
                self.helpers,
            ],
        );
    }
}

/// A doc comment as whole `/// ` lines, each ended by a newline; empty when
/// there is none.
pub(super) fn doc_block(doc: &Option<String>) -> String {
    let mut out = String::new();
    push_doc(&mut out, doc, "");
    out
}

/// Appends a doc comment as whole `/// ` lines, each after `indent` and
/// ended by a newline (a class's or enum's, a field's, an enum value's).
pub(super) fn push_doc(out: &mut String, doc: &Option<String>, indent: &str) {
    for line in doc.iter().flat_map(|d| d.lines()) {
        out.push_str(indent);
        out.push_str("/// ");
        out.push_str(line);
        out.push('\n');
    }
}

/// Renders the message classes among `types` (in their order) with
/// `template`, appended to `out` when given; adds the helpers their fields
/// use to `helpers`. Returns the classes' names when `out` is not given
/// (the exerciser names them), and none when it is.
pub(super) fn render_messages(
    model: &Model,
    types: &[TypeId],
    helpers: &mut Helpers,
    template: &Filled,
    out: Option<&mut String>,
) -> Vec<String> {
    let messages: Vec<(&TypeDef, &[FieldDef])> = types
        .iter()
        .filter_map(|&t| {
            let def = model.ty(t);
            match &def.kind {
                TypeKind::Message { fields } => Some((def, fields.as_slice())),
                TypeKind::Enum { .. } => None,
            }
        })
        .collect();
    for (_, fields) in &messages {
        for f in *fields {
            helpers.add(model, &f.ty);
        }
    }
    let helpers = &*helpers;
    let Some(out) = out else {
        return messages
            .iter()
            .map(|(def, _)| type_name(&def.name))
            .collect();
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let runs = (messages.len() / MESSAGES_PER_THREAD).clamp(1, cores);
    let per_run = messages.len().div_ceil(runs).max(1);
    let render = |run: &[(&TypeDef, &[FieldDef])], out: &mut String| {
        for (def, fields) in run {
            message_view(model, def, fields, helpers).fill(template, out);
        }
    };
    let mut chunks = messages.chunks(per_run);
    let first = chunks.next().unwrap_or_default();
    std::thread::scope(|scope| {
        let others: Vec<_> = chunks
            .map(|run| {
                scope.spawn(move || {
                    let mut text = String::with_capacity(estimated_size(run));
                    render(run, &mut text);
                    text
                })
            })
            .collect();
        // The first run on this thread, straight into `out`.
        render(first, out);
        for run in others {
            match run.join() {
                Ok(text) => out.push_str(&text),
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    Vec::new()
}

/// About what a run of classes comes to (a class is some 200 bytes and
/// 40 a field), so that its buffer is not grown and copied many times.
fn estimated_size(run: &[(&TypeDef, &[FieldDef])]) -> usize {
    run.iter().map(|(_, f)| 200 + 40 * f.len()).sum()
}

/// The view of one message class.
fn message_view(
    model: &Model,
    def: &TypeDef,
    fields: &[FieldDef],
    helpers: &Helpers,
) -> MessageView {
    // Written straight into the two strings, name by name (a message's
    // lines are not kept one by one: this runs for every field of a file).
    let mut decls = String::with_capacity(fields.len() * 32);
    let mut descriptor = String::with_capacity(fields.len() * 8);
    let mut uses_helpers = false;
    for f in fields {
        push_doc(&mut decls, &f.doc, "  ");
        decls.push_str("  ");
        asnames::push_identifier(&mut decls, &f.name);
        decls.push_str(": ");
        push_field_type(&mut decls, model, &f.ty, f.optional);
        decls.push_str(" = ");
        if f.optional {
            decls.push_str("null");
        } else {
            push_default_value(&mut decls, model, &f.ty);
        }
        decls.push('\n');
        if !descriptor.is_empty() {
            descriptor.push(' ');
        }
        descriptor.push_str(&f.name);
        descriptor.push(' ');
        uses_helpers |= helpers.push_descriptor(&mut descriptor, model, &f.ty, f.optional);
    }
    MessageView {
        name: type_name(&def.name),
        wire: string_literal(&def.name),
        doc: doc_block(&def.doc),
        fields: decls,
        descriptor,
        helpers: if uses_helpers { ", __h" } else { "" },
    }
}
