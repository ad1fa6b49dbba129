//! AssemblyScript bindings (book: reference/generated-names.md): a plain view model built here
//! from the checked model, rendered by the handlebars templates of
//! `templates/as/`. Names come from `asnames`, types from `as_types`, the
//! message classes from `as_messages`, the server and client views from
//! `as_entries`; the templates only loop and test flags (the message and
//! enum templates not even that: they are filled, `filled.rs`).

use handlebars::Handlebars;
use serde::Serialize;

use super::as_entries::{ClientView, ServerView, client, server};
use super::as_messages::{MESSAGE_HOLES, doc_block, push_doc, render_messages};
use super::as_types::{Helpers, string_literal, type_name};
use super::filled::Filled;
use super::stamp::{Generated, source_hash};
use crate::asnames;
use crate::model::*;

const TEMPLATE: &str = include_str!("../../../templates/as/bindings.ts.hbs");
const MESSAGE: &str = include_str!("../../../templates/as/message.ts.hbs");
const ENUM: &str = include_str!("../../../templates/as/enum.ts.hbs");
const SERVER: &str = include_str!("../../../templates/as/server.ts.hbs");
const CLIENT: &str = include_str!("../../../templates/as/client.ts.hbs");
/// Where the file template's `{{types}}` goes, spliced in after rendering:
/// the types' text is most of a large file, and passing it through the
/// template's context would copy it twice more.
const TYPES_MARK: &str = "\u{0}othc:types\u{0}";
const EXERCISE: &str = include_str!("../../../templates/as/exercise.ts.hbs");

#[derive(Serialize)]
pub(super) struct FileView {
    source: String,
    /// The module name an entry imports the bindings by: `./Greeter.oth`.
    import: String,
    hash: String,
    /// The enums and message classes, then the servers and clients,
    /// rendered one at a time (see `TYPES_MARK`).
    types: &'static str,
    /// Their names, for the exerciser (left empty when generating).
    messages: Vec<Named>,
    enums: Vec<Named>,
    /// Only for the exerciser: generating renders each one at once.
    servers: Vec<ServerView>,
    clients: Vec<ClientView>,
    helpers: Vec<String>,
    /// The helpers by number, for the shapes that name them (`#n`).
    helper_reads: String,
    helper_writes: String,
}

#[derive(Serialize)]
pub(super) struct Named {
    name: String,
}

/// What fills the enum template's holes, in the order of `ENUM_HOLES`:
/// like a message, an enum is filled, not rendered (a large schema has
/// thousands), so its per-value lines are made here, whole.
pub(super) struct EnumView {
    name: String,
    wire: String,
    /// The enum's doc comment, whole `///` lines.
    doc: String,
    /// `  Name = n,` for each value, after the value's doc lines.
    members: String,
    /// `    case Enum.Name: return "wire"` for each value.
    cases: String,
    /// `  if (s == "wire") return Enum.Name` for each value.
    parses: String,
}

const ENUM_HOLES: [&str; 6] = ["name", "wire", "doc", "members", "cases", "parses"];

impl EnumView {
    fn fill(&self, template: &Filled, out: &mut String) {
        template.fill(
            out,
            &[
                &self.name,
                &self.wire,
                &self.doc,
                &self.members,
                &self.cases,
                &self.parses,
            ],
        );
    }
}

/// The bindings of `file` (`source_text` is its text, hashed into the
/// first line).
pub fn generate(model: &Model, file: FileIx, source_text: &str) -> Generated {
    // The text can be tens of megabytes: it is made in one buffer, never
    // copied whole. The types are rendered into it first (the bindings
    // come to about 16 times the header; reserved, not touched), the head
    // is put before them (a move within the buffer), the tail after.
    let mut text = String::with_capacity(source_text.len().saturating_mul(16) + 4096);
    let (file_name, head, tail) = render(model, file, source_text, TEMPLATE, Some(&mut text));
    // The first line also carries the hash of the rest, so a build can
    // tell a generated file left as it was (regenerated when stale) from
    // one edited by hand (never overwritten). A placeholder of the hash's
    // length holds its place until the rest is there to hash.
    let (first, rest_of_head) = head.split_once('\n').unwrap_or((&head, ""));
    let first = first.trim_end_matches(").");
    const HEX_LEN: usize = 64;
    let hash_at = first.len() + ", body ".len();
    let rest_at = hash_at + HEX_LEN + ").\n".len();
    let prefix = format!("{first}, body {:0<HEX_LEN$}).\n{rest_of_head}", "");
    text.insert_str(0, &prefix);
    text.push_str(&tail);
    let body = source_hash(&text[rest_at..]);
    text.replace_range(hash_at..hash_at + HEX_LEN, &body);
    Generated { file_name, text }
}

/// An entry file that uses every class, method and function of the
/// bindings of `file`. AssemblyScript compiles only what is reachable, so
/// this is how a test (or a build's self-check) has all of them compiled.
pub fn exerciser(model: &Model, file: FileIx, source_text: &str) -> String {
    // (Its template has no `{{types}}`: it names the types, it does not declare them.)
    let (_, head, tail) = render(model, file, source_text, EXERCISE, None);
    head + &tail
}

/// The servers of `objects` and the clients of their needs: rendered onto
/// `out` at once when generating (a view of a large object is large), or
/// kept for the exerciser, which names them all.
fn servers_and_clients(
    model: &Model,
    objects: &[ObjectId],
    hb: &Handlebars,
    mut out: Option<&mut String>,
) -> (Vec<ServerView>, Vec<ClientView>) {
    let rendered = "the embedded templates render every view (tested)";
    let mut servers = Vec::new();
    for &o in objects {
        let def = model.object(o);
        if !def.native {
            let view = server(model, def);
            match out.as_deref_mut() {
                Some(out) => out.push_str(&hb.render("server", &view).expect(rendered)),
                None => servers.push(view),
            }
        }
    }
    let mut clients = Vec::new();
    for n in &super::shared::shared_needs(model, objects) {
        let view = client(model, n);
        match out.as_deref_mut() {
            Some(out) => out.push_str(&hb.render("client", &view).expect(rendered)),
            None => clients.push(view),
        }
    }
    (servers, clients)
}

/// Renders `template` for `file`: (the file's name, the text before the
/// types, the text after them); the types are appended to `types`, when
/// they are wanted.
fn render(
    model: &Model,
    file: FileIx,
    source_text: &str,
    template: &str,
    types_out: Option<&mut String>,
) -> (String, String, String) {
    let base = super::shared::source_base(model, file);
    let objects = super::shared::objects_of(model, file);
    let types = model.types_for(file, &objects);
    let mut helpers = Helpers::default();
    let hb = templates(template);
    let message = Filled::new(&hb, "message", &MESSAGE_HOLES);
    let enumeration = Filled::new(&hb, "enum", &ENUM_HOLES);
    let rendered = "the embedded templates render every view (tested)";
    // Each type is rendered as soon as its view is made, and its view
    // dropped: with tens of thousands of types, the views of all of them
    // at once would be most of the memory `othc gen` touches. Enums first,
    // then messages, each in the model's order.
    let mut out = types_out;
    let mut enum_names = Vec::new();
    let mut message_names = Vec::new();
    for &t in &types {
        let def = model.ty(t);
        if let TypeKind::Enum { values } = &def.kind {
            let view = enum_view(def, values);
            match out.as_deref_mut() {
                Some(out) => view.fill(&enumeration, out),
                // Only the exerciser names them (the bindings' own
                // template would carry thousands of names unused).
                None => enum_names.push(Named { name: view.name }),
            }
        }
    }
    for name in render_messages(model, &types, &mut helpers, &message, out.as_deref_mut()) {
        message_names.push(Named { name });
    }
    let (servers, clients) = servers_and_clients(model, &objects, &hb, out);
    let view = FileView {
        import: format!("./{base}"),
        source: base.clone(),
        hash: source_hash(source_text),
        types: TYPES_MARK,
        messages: message_names,
        enums: enum_names,
        servers,
        clients,
        helper_reads: (0..helpers.count())
            .map(|n| format!("__read{n}"))
            .collect::<Vec<_>>()
            .join(", "),
        helper_writes: (0..helpers.count())
            .map(|n| format!("__write{n}"))
            .collect::<Vec<_>>()
            .join(", "),
        helpers: helpers.code,
    };
    let text = hb.render("file", &view).expect(rendered);
    // The mark stands on a line of its own in the template: its line
    // break goes with it.
    let (head, tail) = match text.split_once(TYPES_MARK) {
        Some((h, t)) => (h.to_string(), t.strip_prefix('\n').unwrap_or(t).to_string()),
        None => (text, String::new()),
    };
    (format!("{base}.ts"), head, tail)
}

/// The templates: the file's (`template`), a message's and an enum's.
fn templates(template: &str) -> Handlebars<'_> {
    let mut hb = Handlebars::new();
    hb.register_escape_fn(handlebars::no_escape);
    hb.set_strict_mode(true);
    let rendered = "the embedded templates render every view (tested)";
    hb.register_template_string("file", template)
        .expect(rendered);
    hb.register_template_string("message", MESSAGE)
        .expect(rendered);
    hb.register_template_string("enum", ENUM).expect(rendered);
    hb.register_template_string("server", SERVER)
        .expect(rendered);
    hb.register_template_string("client", CLIENT)
        .expect(rendered);
    hb
}

/// The view of one enum.
fn enum_view(def: &TypeDef, values: &[EnumValueDef]) -> EnumView {
    use std::fmt::Write as _;
    let name = type_name(&def.name);
    let mut members = String::with_capacity(values.len() * 16);
    let mut cases = String::with_capacity(values.len() * 40);
    let mut parses = String::with_capacity(values.len() * 40);
    for (number, v) in values.iter().enumerate() {
        let value = asnames::identifier(&v.name);
        let wire = string_literal(&v.name);
        push_doc(&mut members, &v.doc, "  ");
        let _ = writeln!(members, "  {value} = {number},");
        let _ = writeln!(cases, "    case {name}.{value}: return {wire}");
        let _ = writeln!(parses, "  if (s == {wire}) return {name}.{value}");
    }
    EnumView {
        wire: string_literal(&def.name),
        doc: doc_block(&def.doc),
        name,
        members,
        cases,
        parses,
    }
}
