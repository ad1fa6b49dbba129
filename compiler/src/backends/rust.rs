//! Rust bindings (`othc gen --lang rust`): a module per `.oth` file, beside
//! it (`Shouter.oth.rs`), against the `othismo` crate (`sdk/rust/`): the
//! messages and enums with their BSON codec (`rust_types`), a server trait
//! per object with a method per serves entry and the wrapper that routes to
//! it, and a client per need. What every language shares (how a payload
//! reaches a method, route order, shared clients) is `shared`'s; the server
//! and client code is rendered by the handlebars templates of
//! `templates/rust/`.

use handlebars::Handlebars;
use serde::Serialize;

use super::rust_types::{self, literal, snake, type_name};
use super::shared::{
    Body, Refusal, RefusedAs, any_path, condition_of, doc_lines, methods_of, objects_of,
    route_order, shared_needs, signature,
};
use super::stamp::{Generated, stamped};
use super::takes::{Syntax, TakesView, takes};
use crate::asnames;
use crate::model::*;

const FILE: &str = include_str!("../../../templates/rust/bindings.rs.hbs");
const SERVER: &str = include_str!("../../../templates/rust/server.rs.hbs");
const CLIENT: &str = include_str!("../../../templates/rust/client.rs.hbs");

#[derive(Serialize)]
struct FileView {
    source: String,
    types: String,
}

#[derive(Serialize)]
struct ServerView {
    name: String,
    object: String,
    wrapper: String,
    doc: Vec<String>,
    methods: Vec<MethodView>,
    routes: Vec<RouteView>,
    any_path: Vec<String>,
    /// Some verb serves every path (`/**`): what no route takes is
    /// not_supported, never not_found.
    every_path: bool,
}

#[derive(Serialize)]
struct MethodView {
    name: String,
    signature: String,
    doc: Vec<String>,
    params: String,
}

#[derive(Serialize)]
struct RouteView {
    verb: String,
    condition: String,
    /// How the payload is checked before the method is called.
    takes: TakesView,
}

#[derive(Serialize)]
struct ClientView {
    class: String,
    mount: String,
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
}

/// The Rust bindings of `file` (`source_text` is its text, hashed into
/// the first line as for the AssemblyScript bindings).
pub fn generate(model: &Model, file: FileIx, source_text: &str) -> Generated {
    let base = super::shared::source_base(model, file);
    let objects = objects_of(model, file);
    let types = model.types_for(file, &objects);
    let mut code = String::new();
    for &t in &types {
        code.push('\n');
        match model.ty(t).kind {
            TypeKind::Enum { .. } => rust_types::enumeration(&mut code, model, t),
            TypeKind::Message { .. } => rust_types::message(&mut code, model, t),
        }
    }
    let messages: Vec<TypeId> = types
        .iter()
        .copied()
        .filter(|t| matches!(model.ty(*t).kind, TypeKind::Message { .. }))
        .collect();
    code.push('\n');
    rust_types::any_message(&mut code, model, &messages);
    let hb = templates();
    let rendered = "the embedded templates render every view (tested)";
    for &o in &objects {
        let def = model.object(o);
        if !def.native {
            code.push_str(&hb.render("server", &server(model, def)).expect(rendered));
        }
    }
    for n in shared_needs(model, &objects) {
        code.push_str(&hb.render("client", &client(model, &n)).expect(rendered));
    }
    let view = FileView {
        source: base.clone(),
        types: code,
    };
    let rest = hb.render("file", &view).expect(rendered);
    Generated {
        file_name: format!("{base}.rs"),
        text: stamped("//", &base, source_text, &rest),
    }
}

fn templates() -> Handlebars<'static> {
    let mut hb = Handlebars::new();
    hb.register_escape_fn(handlebars::no_escape);
    hb.set_strict_mode(true);
    let rendered = "the embedded templates render every view (tested)";
    hb.register_template_string("file", FILE).expect(rendered);
    hb.register_template_string("server", SERVER)
        .expect(rendered);
    hb.register_template_string("client", CLIENT)
        .expect(rendered);
    hb
}

fn verb(v: Verb) -> String {
    format!("Verb::{}", asnames::pascal(v.as_str()))
}

/// `(captures and rest as parameters, their arguments from `s`)`.
fn path_params(path: &PathPattern) -> (Vec<String>, Vec<String>) {
    let mut params = Vec::new();
    let mut args = Vec::new();
    for (i, seg) in path.segs.iter().enumerate() {
        match seg {
            Seg::Capture(c) => {
                params.push(format!("{}: String", snake(c)));
                args.push(format!("s[{i}].clone()"));
            }
            Seg::Rest => {
                params.push("rest: String".into());
                args.push(format!("othismo::rest(&s, {i})"));
            }
            Seg::Literal(_) => {}
        }
    }
    (params, args)
}

/// The condition that the segments `s` match a pattern (the shared
/// `Condition`); empty for `/**`, which every path matches (`s.len() >= 0`
/// would be a comparison the compiler warns is always true).
fn condition(path: &PathPattern) -> String {
    condition_of(path).map_or_else(String::new, |c| c.render("s.len()", literal))
}

fn server(model: &Model, def: &ObjectDef) -> ServerView {
    let mut methods = Vec::new();
    let mut routes = Vec::new();
    for e in route_order(model, def) {
        let entry = model.entry(e);
        let (mut m, takes) = route(model, entry);
        methods.append(&mut m);
        routes.push(RouteView {
            verb: verb(entry.verb),
            condition: condition(&entry.path),
            takes,
        });
    }
    let (any_path, every_path) = any_path(routes.iter().map(|r| &r.condition));
    let name = type_name(&def.name);
    ServerView {
        name: format!("{name}Server"),
        wrapper: format!("{name}Object"),
        object: def.name.clone(),
        doc: doc_lines(&def.doc),
        methods,
        routes,
        any_path,
        every_path,
    }
}

/// The trait's methods for serves entry `entry` (one, or one per message
/// type it takes), and the lines of its route: the payload checked as the
/// entry takes it, then the method called.
/// The methods of serves entry `entry`, and how its route takes the
/// payload before calling one.
fn route(model: &Model, entry: &EntryDef) -> (Vec<MethodView>, TakesView) {
    let (caps, path_args) = path_params(&entry.path);
    let sig = signature(model, entry);
    let methods = methods_of(model, entry)
        .iter()
        .map(|(name, body)| {
            let mut p = vec!["req: Request".to_string()];
            p.extend(caps.iter().cloned());
            p.extend(body_param(model, body, false));
            MethodView {
                name: snake(name),
                signature: sig.clone(),
                doc: doc_lines(&entry.doc),
                params: p.join(", "),
            }
        })
        .collect();
    let mut args = vec!["req".to_string()];
    args.extend(path_args);
    (methods, takes(model, entry, &args, &Rust))
}

/// How Rust spells a route's pieces.
struct Rust;

impl Syntax for Rust {
    fn literal(&self, s: &str) -> String {
        literal(s)
    }

    fn type_name(&self, name: &str) -> String {
        type_name(name)
    }

    fn method(&self, name: &str) -> String {
        snake(name)
    }

    /// The statement failing the request, and returning.
    fn refuse(&self, r: &Refusal) -> String {
        let status = match r.status {
            RefusedAs::UnsupportedType => "unsupported_type",
            RefusedAs::Invalid => "invalid",
        };
        format!(
            "req.fail(Status::{status}(), {}); return;",
            literal(&r.text)
        )
    }

    fn is_of(&self, ct: &str) -> String {
        format!("p.is_of({})", literal(ct))
    }

    fn media_type_is(&self, ct: &str) -> String {
        format!("p.media_type() == {}", literal(ct))
    }
}

/// A method's body parameter, if it has one: owned for a server's
/// method, borrowed for a client's.
fn body_param(model: &Model, body: &Body, borrowed: bool) -> Option<String> {
    let amp = if borrowed { "&" } else { "" };
    Some(match body {
        Body::None => return None,
        Body::Text(_) if borrowed => "body: &str".to_string(),
        Body::Text(_) => "body: String".to_string(),
        Body::Message(id) => format!("body: {amp}{}", type_name(&model.ty(*id).name)),
        Body::Payload => format!("body: {amp}Payload"),
    })
}

/// The Rust expression of a need entry's path, its captures given as
/// parameters of the same names.
fn client_path(path: &PathPattern) -> String {
    if path.segs.is_empty() {
        return "\"/\"".into();
    }
    let mut format = String::new();
    let mut args = Vec::new();
    for s in &path.segs {
        match s {
            Seg::Literal(l) => {
                format.push('/');
                format.push_str(&l.replace('{', "{{").replace('}', "}}"));
            }
            Seg::Capture(c) => {
                format.push_str("/{}");
                args.push(snake(c));
            }
            Seg::Rest => {
                // `rest` is a path, as a server's `**` hands it over: `/x/y`,
                // or `/` for nothing more.
                format.push_str("{}");
                args.push("if rest == \"/\" { \"\" } else { rest }".into());
            }
        }
    }
    if args.is_empty() {
        literal(&format)
    } else {
        format!("&format!({}, {})", literal(&format), args.join(", "))
    }
}

fn client(model: &Model, n: &NeedBlock) -> ClientView {
    let mut methods = Vec::new();
    for &e in &n.entries {
        let entry = model.entry(e);
        let caps: Vec<String> = entry
            .path
            .segs
            .iter()
            .filter_map(|s| match s {
                Seg::Capture(c) => Some(format!("{}: &str", snake(c))),
                Seg::Rest => Some("rest: &str".into()),
                Seg::Literal(_) => None,
            })
            .collect();
        let sig = signature(model, entry);
        let path = client_path(&entry.path);
        for (name, body) in methods_of(model, entry) {
            let payload = match &body {
                Body::None => "None".to_string(),
                Body::Text(ct) => format!(
                    "Some(&Payload::new({}, body.as_bytes().to_vec()))",
                    literal(ct)
                ),
                Body::Message(_) => "Some(&body.to_payload())".to_string(),
                Body::Payload => "Some(body)".to_string(),
            };
            let mut p = caps.clone();
            p.extend(body_param(model, &body, true));
            p.push("on: impl FnMut(Answer) + 'static".into());
            methods.push(ClientMethodView {
                name: snake(&name),
                signature: sig.clone(),
                doc: doc_lines(&entry.doc),
                params: p.join(", "),
                verb: verb(entry.verb),
                path: path.clone(),
                payload,
            });
        }
    }
    ClientView {
        class: asnames::client_class(&n.mount.segs),
        mount: literal(&n.mount.to_string()),
        mount_text: n.mount.to_string(),
        doc: doc_lines(&n.doc),
        instance: asnames::client_instance(&n.mount.segs).map(|i| snake(&i)),
        methods,
    }
}
