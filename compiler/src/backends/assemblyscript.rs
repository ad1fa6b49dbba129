//! AssemblyScript bindings (book: reference/generated-names.md): a plain view model built here
//! from the checked model, rendered by the handlebars templates of
//! `templates/as/`. Names come from `asnames`, types from `as_types`; the
//! templates only loop and test flags.

use handlebars::Handlebars;
use serde::Serialize;

use super::as_types::{self, Helpers, default_value, field_type, string_literal, type_name};
use crate::asnames;
use crate::model::*;
use crate::namespace::path::specificity;

const TEMPLATE: &str = include_str!("../../../templates/as/bindings.ts.hbs");
const EXERCISE: &str = include_str!("../../../templates/as/exercise.ts.hbs");

/// The bindings of one file: what `othc gen --lang as FILE` writes.
pub struct Generated {
    /// `Greeter.oth.ts` for `Greeter.oth`.
    pub file_name: String,
    pub text: String,
}

#[derive(Serialize)]
struct FileView {
    source: String,
    /// The module name an entry imports the bindings by: `./Greeter.oth`.
    import: String,
    hash: String,
    messages: Vec<MessageView>,
    enums: Vec<EnumView>,
    servers: Vec<ServerView>,
    clients: Vec<ClientView>,
    helpers: Vec<String>,
}

#[derive(Serialize)]
struct MessageView {
    name: String,
    wire: String,
    doc: Vec<String>,
    /// The blocks of the class body, each a run of whole, indented lines:
    /// a message has many fields, and one string per block keeps rendering
    /// large files fast.
    fields: String,
    write: String,
    read_locals: String,
    read_cases: String,
    read_checks: String,
}

/// One field, before its lines are joined into the blocks of its message.
struct FieldView {
    name: String,
    doc: Vec<String>,
    ty: String,
    init: String,
    optional: bool,
    /// Statements writing the field into writer `w`.
    write: Vec<String>,
    /// Statements reading it from the current element of reader `r` into `m`.
    read: Vec<String>,
    key: String,
}

/// Joins lines, each indented by `indent` spaces and ended by a newline.
fn block(lines: impl IntoIterator<Item = String>, indent: usize) -> String {
    let pad = " ".repeat(indent);
    let mut out = String::new();
    for l in lines {
        out.push_str(&pad);
        out.push_str(&l);
        out.push('\n');
    }
    out
}

impl MessageView {
    fn new(name: String, wire: String, doc: Vec<String>, fields: Vec<FieldView>) -> MessageView {
        let decls = fields.iter().flat_map(|f| {
            f.doc
                .iter()
                .map(|d| format!("/// {d}"))
                .chain([format!("{}: {} = {}", f.name, f.ty, f.init)])
                .collect::<Vec<_>>()
        });
        let write = fields.iter().flat_map(|f| f.write.clone());
        let locals = fields
            .iter()
            .filter(|f| !f.optional)
            .map(|f| format!("let has_{} = false", f.name));
        let cases = fields
            .iter()
            .map(|f| format!("if (k == {}) {{ {}; continue }}", f.key, f.read.join("; ")));
        let checks = fields
            .iter()
            .filter(|f| !f.optional)
            .map(|f| format!("if (!has_{}) r.fail()", f.name));
        MessageView {
            name,
            wire,
            doc,
            fields: block(decls, 2),
            write: block(write, 4),
            read_locals: block(locals, 4),
            read_cases: block(cases, 6),
            read_checks: block(checks, 4),
        }
    }
}

#[derive(Serialize)]
struct EnumView {
    name: String,
    doc: Vec<String>,
    values: Vec<EnumValueView>,
}

#[derive(Serialize)]
struct EnumValueView {
    name: String,
    wire: String,
    number: usize,
    doc: Vec<String>,
}

#[derive(Serialize)]
struct ServerView {
    name: String,
    object: String,
    doc: Vec<String>,
    methods: Vec<MethodView>,
    routes: Vec<RouteView>,
    /// Conditions under which a path is served with some verb (for not_supported).
    any_path: Vec<String>,
}

#[derive(Serialize)]
struct MethodView {
    name: String,
    /// `/greeting write Greeting`, for the doc comment.
    signature: String,
    doc: Vec<String>,
    /// `req: Request, name: string, body: Greeting`.
    params: String,
}

#[derive(Serialize)]
struct RouteView {
    verb: String,
    condition: String,
    /// Statements that check the payload and call the method.
    body: Vec<String>,
}

#[derive(Serialize)]
struct ClientView {
    class: String,
    mount: String,
    /// The mount point as text, for comments.
    mount_text: String,
    doc: Vec<String>,
    instance: Option<String>,
    methods: Vec<ClientMethodView>,
}

#[derive(Serialize)]
struct ClientMethodView {
    name: String,
    signature: String,
    doc: Vec<String>,
    params: String,
    verb: String,
    path: String,
    payload: String,
    /// Arguments of the right types, for the exerciser.
    example_args: String,
}

/// A doc comment's lines; the templates write them as `///` comments.
fn doc_lines(doc: &Option<String>) -> Vec<String> {
    doc.as_ref()
        .map(|d| d.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

fn verb_const(v: oth_syntax::ast::Verb) -> String {
    let s = v.as_str();
    format!("Verb.{}{}", s[..1].to_uppercase(), &s[1..])
}

/// How an entry's request payload reaches the method.
enum Request {
    None,
    Text(String),
    Message(TypeId),
    Messages(Vec<TypeId>),
    Any(Vec<String>),
}

fn request_kind(model: &Model, e: &EntryDef) -> Request {
    let messages: Vec<TypeId> = e
        .request
        .iter()
        .filter_map(|t| match t {
            PayloadType::Message(id) => Some(*id),
            _ => None,
        })
        .collect();
    match e.request.as_slice() {
        [] => Request::None,
        [PayloadType::Content(c)] if c.ty.eq_ignore_ascii_case("text") && c.subtype != "*" => {
            Request::Text(c.text.clone())
        }
        [PayloadType::Message(id)] => Request::Message(*id),
        _ if messages.len() == e.request.len() => Request::Messages(messages),
        _ => Request::Any(
            e.request
                .iter()
                .map(|t| match t {
                    PayloadType::Content(c) => c.text.clone(),
                    PayloadType::Message(id) => model.ty(*id).format.clone(),
                    PayloadType::Unknown => "*/*".into(),
                })
                .collect(),
        ),
    }
}

fn describe(model: &Model, t: &PayloadType) -> String {
    match t {
        PayloadType::Content(c) if c.text == STAT_CONTENT_TYPE => "Stat".into(),
        PayloadType::Content(c) => c.text.clone(),
        PayloadType::Message(id) => model.ty(*id).name.clone(),
        PayloadType::Unknown => "?".into(),
    }
}

fn signature(model: &Model, e: &EntryDef) -> String {
    let mut s = format!("{} {}", e.path, e.verb.as_str());
    if e.operator {
        s = format!("{} operator {}", e.path, e.verb.as_str());
    }
    if !e.request.is_empty() {
        let types: Vec<String> = e.request.iter().map(|t| describe(model, t)).collect();
        s.push(' ');
        s.push_str(&types.join(" | "));
    }
    if let Some(a) = &e.answer {
        s.push_str(" -> ");
        s.push_str(&describe(model, a));
        if e.stream && !e.verb.always_streams() {
            s.push('*');
        }
    }
    s
}

/// The capture arguments of a path pattern, and a `**` remainder.
fn path_params(path: &PathPattern) -> Vec<String> {
    path.segs
        .iter()
        .filter_map(|s| match s {
            Seg::Capture(c) => Some(asnames::identifier(c)),
            Seg::Rest => Some("rest".to_string()),
            Seg::Literal(_) => None,
        })
        .collect()
}

/// The path's parameters declared, `id: string` each, as method parameters.
fn param_decls(path: &PathPattern) -> Vec<String> {
    path_params(path)
        .iter()
        .map(|p| format!("{p}: string"))
        .collect()
}

/// The AS condition that the segments `s` match a pattern.
fn condition(path: &PathPattern) -> String {
    let rest = path.segs.iter().any(|s| matches!(s, Seg::Rest));
    let fixed = path.segs.iter().filter(|s| !matches!(s, Seg::Rest)).count();
    let mut parts = vec![if rest {
        format!("s.length >= {fixed}")
    } else {
        format!("s.length == {fixed}")
    }];
    for (i, seg) in path.segs.iter().enumerate() {
        if let Seg::Literal(l) = seg {
            parts.push(format!("s[{i}] == {}", string_literal(l)));
        }
    }
    parts.join(" && ")
}

/// The arguments a route passes for the captures and the `**` remainder.
fn route_args(path: &PathPattern) -> Vec<String> {
    path.segs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Seg::Capture(_) => Some(format!("s[{i}]")),
            Seg::Rest => Some(format!("rest(s, {i})")),
            Seg::Literal(_) => None,
        })
        .collect()
}

/// The AS expression of a need entry's path, given its capture arguments.
fn client_path(path: &PathPattern) -> String {
    if path.segs.is_empty() {
        return "\"/\"".into();
    }
    let mut parts: Vec<String> = Vec::new();
    let mut lit = String::new();
    for s in &path.segs {
        match s {
            Seg::Literal(l) => {
                lit.push('/');
                lit.push_str(l);
            }
            Seg::Capture(c) => {
                lit.push('/');
                parts.push(string_literal(&lit));
                lit.clear();
                parts.push(asnames::identifier(c));
            }
            Seg::Rest => {
                if !lit.is_empty() {
                    parts.push(string_literal(&lit));
                    lit.clear();
                }
                // `rest` is a path: `/x/y`, or `/` for nothing more.
                parts.push("(rest == \"/\" ? \"\" : rest)".into());
            }
        }
    }
    if !lit.is_empty() {
        parts.push(string_literal(&lit));
    }
    parts.join(" + ")
}

fn answers_class(model: &Model, e: &EntryDef) -> String {
    match &e.answer {
        None => "OnDone".into(),
        Some(PayloadType::Message(id)) => format!("OnMessage<{}>", type_name(&model.ty(*id).name)),
        Some(PayloadType::Content(c)) if c.text.eq_ignore_ascii_case(STAT_CONTENT_TYPE) => {
            "OnStat".into()
        }
        Some(PayloadType::Content(c)) if c.ty.eq_ignore_ascii_case("text") => "OnText".into(),
        Some(_) => "OnPayload".into(),
    }
}

/// Renders the bindings of the objects and types of file `file`.
pub fn generate(model: &Model, file: FileIx, source_text: &str) -> Generated {
    render(model, file, source_text, TEMPLATE)
}

/// An entry file that uses every class, method and function of the
/// bindings of `file`. AssemblyScript compiles only what is reachable, so
/// this is how a test (or a build's self-check) has all of them compiled.
pub fn exerciser(model: &Model, file: FileIx, source_text: &str) -> String {
    render(model, file, source_text, EXERCISE).text
}

fn render(model: &Model, file: FileIx, source_text: &str, template: &str) -> Generated {
    let source = model.files[file.index()].name.clone();
    let base = std::path::Path::new(&source)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| source.clone());
    // `Store.wasm#othismo:header` → `Store.wasm`.
    let base = base.split('#').next().unwrap_or(&base).to_string();
    let objects: Vec<ObjectId> = (0..model.objects.len())
        .map(|i| ObjectId(i as u32))
        .filter(|o| model.object(*o).file == file)
        .collect();
    let types = model.types_for(file, &objects);
    let mut helpers = Helpers::default();
    let mut messages = Vec::new();
    let mut enums = Vec::new();
    for t in types {
        let def = model.ty(t);
        match &def.kind {
            TypeKind::Message { fields } => messages.push(MessageView::new(
                type_name(&def.name),
                string_literal(&def.name),
                doc_lines(&def.doc),
                fields
                    .iter()
                    .map(|f| {
                        let boxed = f.optional && !as_types::nullable(model, &f.ty);
                        let key = string_literal(&f.name);
                        let name = asnames::identifier(&f.name);
                        let write = helpers.write(model, &f.ty, &key, "v");
                        let read = helpers.read(model, &f.ty, "r");
                        let base = as_types::as_type(model, &f.ty);
                        let (write, read) = match (f.optional, boxed) {
                            (false, _) => (
                                vec![helpers.write(model, &f.ty, &key, &format!("this.{name}"))],
                                vec![format!("m.{name} = {read}"), format!("has_{name} = true")],
                            ),
                            (true, false) => (
                                vec![
                                    "{".into(),
                                    format!("  const v = this.{name}"),
                                    format!("  if (v != null) {write}"),
                                    "}".into(),
                                ],
                                vec![format!("if (!r.isNull()) m.{name} = {read}")],
                            ),
                            (true, true) => (
                                vec![
                                    "{".into(),
                                    format!("  const o = this.{name}"),
                                    format!("  if (o != null) {{ const v = o.value; {write} }}"),
                                    "}".into(),
                                ],
                                vec![format!(
                                    "if (!r.isNull()) m.{name} = new Box<{base}>({read})"
                                )],
                            ),
                        };
                        FieldView {
                            name,
                            doc: doc_lines(&f.doc),
                            ty: field_type(model, &f.ty, f.optional),
                            init: if f.optional {
                                "null".into()
                            } else {
                                default_value(model, &f.ty)
                            },
                            optional: f.optional,
                            key,
                            write,
                            read,
                        }
                    })
                    .collect(),
            )),
            TypeKind::Enum { values } => enums.push(EnumView {
                name: type_name(&def.name),
                doc: doc_lines(&def.doc),
                values: values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| EnumValueView {
                        name: asnames::identifier(&v.name),
                        wire: string_literal(&v.name),
                        number: i,
                        doc: doc_lines(&v.doc),
                    })
                    .collect(),
            }),
        }
    }
    let mut servers = Vec::new();
    let mut clients = Vec::new();
    for &o in &objects {
        let def = model.object(o);
        if !def.native {
            servers.push(server(model, def));
        }
        for n in &def.needs {
            clients.push(client(model, n));
        }
    }
    let view = FileView {
        import: format!("./{base}"),
        source: base.clone(),
        hash: source_hash(source_text),
        messages,
        enums,
        servers,
        clients,
        helpers: helpers.code,
    };
    let mut hb = Handlebars::new();
    hb.register_escape_fn(handlebars::no_escape);
    hb.set_strict_mode(true);
    let text = hb
        .render_template(template, &view)
        .expect("the embedded template renders every view (tested)");
    Generated {
        file_name: format!("{base}.ts"),
        text,
    }
}

/// A stable hash of the source, for the header comment (stale bindings, E0703).
pub fn source_hash(text: &str) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn server(model: &Model, def: &ObjectDef) -> ServerView {
    let mut methods = Vec::new();
    let mut routes = Vec::new();
    let mut order: Vec<EntryId> = def.serves.clone();
    // Routing prefers, segment by segment, a literal over `{name}` over `**`.
    order.sort_by_key(|e| specificity(&model.entry(*e).path.segs));
    for &e in &def.serves {
        let entry = model.entry(e);
        let names = asnames::method_names(model, entry);
        let caps = param_decls(&entry.path);
        let sig = signature(model, entry);
        let params_with = |body: Option<String>| {
            let mut p = vec!["req: Request".to_string()];
            p.extend(caps.iter().cloned());
            p.extend(body);
            p.join(", ")
        };
        match request_kind(model, entry) {
            Request::None => methods.push(MethodView {
                name: names[0].clone(),
                signature: sig,
                doc: doc_lines(&entry.doc),
                params: params_with(None),
            }),
            Request::Text(_) => methods.push(MethodView {
                name: names[0].clone(),
                signature: sig,
                doc: doc_lines(&entry.doc),
                params: params_with(Some("body: string".into())),
            }),
            Request::Message(id) => methods.push(MethodView {
                name: names[0].clone(),
                signature: sig,
                doc: doc_lines(&entry.doc),
                params: params_with(Some(format!("body: {}", type_name(&model.ty(id).name)))),
            }),
            Request::Messages(ids) => {
                for (name, id) in names.iter().zip(&ids) {
                    methods.push(MethodView {
                        name: name.clone(),
                        signature: sig.clone(),
                        doc: doc_lines(&entry.doc),
                        params: params_with(Some(format!(
                            "body: {}",
                            type_name(&model.ty(*id).name)
                        ))),
                    });
                }
            }
            Request::Any(_) => methods.push(MethodView {
                name: names[0].clone(),
                signature: sig,
                doc: doc_lines(&entry.doc),
                params: params_with(Some("body: Payload".into())),
            }),
        }
    }
    for &e in &order {
        let entry = model.entry(e);
        let names = asnames::method_names(model, entry);
        let mut args = vec!["req".to_string()];
        args.extend(route_args(&entry.path));
        let call = |name: &str, body: Option<&str>| {
            let mut a = args.clone();
            a.extend(body.map(str::to_string));
            format!("this.{name}({})", a.join(", "))
        };
        let body = match request_kind(model, entry) {
            Request::None => vec![
                "if (req.payload != null) {".into(),
                "  req.fail(Status.UnsupportedType, \"this request takes no payload\")".into(),
                "  return".into(),
                "}".into(),
                call(&names[0], None),
            ],
            Request::Text(ct) => vec![
                "const p = req.payload".into(),
                format!("if (p == null || !p.isOf({})) {{", string_literal(&ct)),
                format!(
                    "  req.fail(Status.UnsupportedType, {})",
                    string_literal(&format!("this request takes {ct}"))
                ),
                "  return".into(),
                "}".into(),
                call(&names[0], Some("p.asText()")),
            ],
            Request::Message(id) => {
                let t = type_name(&model.ty(id).name);
                vec![
                    "const p = req.payload".into(),
                    "if (p == null || p.mediaType() != bson.BSON) {".into(),
                    format!(
                        "  req.fail(Status.UnsupportedType, {})",
                        string_literal(&format!(
                            "this request takes a {} message",
                            model.ty(id).name
                        ))
                    ),
                    "  return".into(),
                    "}".into(),
                    format!("const m = {t}.fromPayload(p)"),
                    "if (m == null) {".into(),
                    format!(
                        "  req.fail(Status.Invalid, {})",
                        string_literal(&format!(
                            "the payload is not a valid {} message",
                            model.ty(id).name
                        ))
                    ),
                    "  return".into(),
                    "}".into(),
                    call(&names[0], Some("m")),
                ]
            }
            Request::Messages(ids) => {
                let mut b = vec![
                    "const p = req.payload".into(),
                    "if (p == null || p.mediaType() != bson.BSON) {".into(),
                    "  req.fail(Status.UnsupportedType, \"this request takes a BSON message\")"
                        .into(),
                    "  return".into(),
                    "}".into(),
                    "const m = bson.decode(p)".into(),
                ];
                for (name, id) in names.iter().zip(&ids) {
                    let t = type_name(&model.ty(*id).name);
                    b.push(format!("if (m instanceof {t}) {{"));
                    b.push(format!(
                        "  {}",
                        call(name, Some(&format!("changetype<{t}>(m)")))
                    ));
                    b.push("  return".into());
                    b.push("}".into());
                }
                b.push("req.fail(Status.Invalid, \"the payload is none of the message types this request takes\")".into());
                b
            }
            Request::Any(types) => {
                let test = types
                    .iter()
                    .map(|t| format!("p.isOf({})", string_literal(t)))
                    .collect::<Vec<_>>()
                    .join(" || ");
                vec![
                    "const p = req.payload".into(),
                    format!("if (p == null || !({test})) {{"),
                    format!(
                        "  req.fail(Status.UnsupportedType, {})",
                        string_literal(&format!("this request takes {}", types.join(" | ")))
                    ),
                    "  return".into(),
                    "}".into(),
                    call(&names[0], Some("p")),
                ]
            }
        };
        routes.push(RouteView {
            verb: verb_const(entry.verb),
            condition: condition(&entry.path),
            body,
        });
    }
    let mut any_path: Vec<String> = order
        .iter()
        .map(|e| condition(&model.entry(*e).path))
        .collect();
    any_path.dedup();
    ServerView {
        name: format!("{}Server", type_name(&def.name)),
        object: def.name.clone(),
        doc: doc_lines(&def.doc),
        methods,
        routes,
        any_path,
    }
}

fn client(model: &Model, n: &NeedBlock) -> ClientView {
    let mut methods = Vec::new();
    for &e in &n.entries {
        let entry = model.entry(e);
        let names = asnames::method_names(model, entry);
        let caps = param_decls(&entry.path);
        let answers = format!("answers: {} | null", answers_class(model, entry));
        let path = client_path(&entry.path);
        let sig = signature(model, entry);
        let mut push = |name: &str, body: Option<String>, payload: String| {
            let mut example: Vec<String> = caps.iter().map(|_| "\"x\"".to_string()).collect();
            example.extend(body.as_ref().map(|b| match b.trim_start_matches("body: ") {
                "string" => "\"\"".to_string(),
                "Payload" => "Payload.text(\"\")".to_string(),
                class => format!("new b.{class}()"),
            }));
            example.push("null".into());
            let mut p = caps.clone();
            p.extend(body);
            p.push(answers.clone());
            methods.push(ClientMethodView {
                name: name.to_string(),
                signature: sig.clone(),
                doc: doc_lines(&entry.doc),
                params: p.join(", "),
                verb: verb_const(entry.verb),
                path: path.clone(),
                payload,
                example_args: example.join(", "),
            });
        };
        match request_kind(model, entry) {
            Request::None => push(&names[0], None, "null".into()),
            Request::Text(ct) => push(
                &names[0],
                Some("body: string".into()),
                format!("Payload.text(body, {})", string_literal(&ct)),
            ),
            Request::Message(id) => push(
                &names[0],
                Some(format!("body: {}", type_name(&model.ty(id).name))),
                "body.toPayload()".into(),
            ),
            Request::Messages(ids) => {
                for (name, id) in names.iter().zip(&ids) {
                    push(
                        name,
                        Some(format!("body: {}", type_name(&model.ty(*id).name))),
                        "body.toPayload()".into(),
                    );
                }
            }
            Request::Any(_) => push(&names[0], Some("body: Payload".into()), "body".into()),
        }
    }
    ClientView {
        class: asnames::client_class(&n.mount.segs),
        mount: string_literal(&n.mount.to_string()),
        mount_text: n.mount.to_string(),
        doc: doc_lines(&n.doc),
        instance: asnames::client_instance(&n.mount.segs),
        methods,
    }
}
