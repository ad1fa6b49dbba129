//! The serve and need sides of the bindings: a server's methods and the
//! routes that dispatch to them, a client's methods, each with the
//! signature its payload types give it.

use super::as_types::{string_literal, type_name};
use super::shared::{
    Body, Refusal, RefusedAs, any_path, condition_of, doc_lines, methods_of, signature,
};
use super::takes::{Syntax, TakesView, takes};
use crate::asnames;
use crate::model::*;
use serde::Serialize;

#[derive(Serialize)]
pub(super) struct ServerView {
    pub(super) name: String,
    pub(super) object: String,
    pub(super) doc: Vec<String>,
    pub(super) methods: Vec<MethodView>,
    pub(super) routes: Vec<RouteView>,
    /// Conditions under which a path is served with some verb (for not_supported).
    pub(super) any_path: Vec<String>,
    /// Some verb serves every path (`/**`): what no route takes is
    /// not_supported, never not_found.
    pub(super) every_path: bool,
    /// Whether a route looks at the path's segments (`s`): a server whose
    /// routes are all `/**` never splits a path.
    pub(super) uses_segments: bool,
}

#[derive(Serialize)]
pub(super) struct MethodView {
    pub(super) name: String,
    /// `/greeting write Greeting`, for the doc comment.
    pub(super) signature: String,
    pub(super) doc: Vec<String>,
    /// `req: Request, name: string, body: Greeting`.
    pub(super) params: String,
}

#[derive(Serialize)]
pub(super) struct RouteView {
    pub(super) verb: String,
    pub(super) condition: String,
    /// How the payload is checked before the method is called.
    pub(super) takes: TakesView,
}

#[derive(Serialize)]
pub(super) struct ClientView {
    pub(super) class: String,
    pub(super) mount: String,
    /// The mount point as text, for comments.
    pub(super) mount_text: String,
    pub(super) doc: Vec<String>,
    pub(super) instance: Option<String>,
    pub(super) methods: Vec<ClientMethodView>,
}

#[derive(Serialize)]
pub(super) struct ClientMethodView {
    pub(super) name: String,
    pub(super) signature: String,
    pub(super) doc: Vec<String>,
    pub(super) params: String,
    pub(super) verb: String,
    pub(super) path: String,
    pub(super) payload: String,
    /// Arguments of the right types, for the exerciser.
    pub(super) example_args: String,
}

pub(super) fn verb_const(v: oth_syntax::ast::Verb) -> String {
    let s = v.as_str();
    format!("Verb.{}{}", s[..1].to_uppercase(), &s[1..])
}

/// The capture arguments of a path pattern, and a `**` remainder.
pub(super) fn path_params(path: &PathPattern) -> Vec<String> {
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
pub(super) fn param_decls(path: &PathPattern) -> Vec<String> {
    path_params(path)
        .iter()
        .map(|p| format!("{p}: string"))
        .collect()
}

/// The AS condition that the segments `s` match a pattern (the shared
/// `Condition`); empty for `/**`, which every path matches.
pub(super) fn condition(path: &PathPattern) -> String {
    condition_of(path).map_or_else(String::new, |c| c.render("s.length", string_literal))
}

/// The arguments a route passes for the captures and the `**` remainder.
pub(super) fn route_args(path: &PathPattern) -> Vec<String> {
    path.segs
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            Seg::Capture(_) => Some(format!("s[{i}]")),
            // The whole path (as delivered, it is its segments joined).
            Seg::Rest if i == 0 => Some("restOf(req.path)".to_string()),
            Seg::Rest => Some(format!("rest(s, {i})")),
            Seg::Literal(_) => None,
        })
        .collect()
}

/// The AS expression of a need entry's path, given its capture arguments.
pub(super) fn client_path(path: &PathPattern) -> String {
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

/// A method's body parameter, `body: T`, if it has one.
fn body_param(model: &Model, body: &Body) -> Option<String> {
    Some(match body {
        Body::None => return None,
        Body::Text(_) => "body: string".to_string(),
        Body::Message(id) => format!("body: {}", type_name(&model.ty(*id).name)),
        Body::Payload => "body: Payload".to_string(),
    })
}

pub(super) fn answers_class(model: &Model, e: &EntryDef) -> String {
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
pub(super) fn server(model: &Model, def: &ObjectDef) -> ServerView {
    let mut methods = Vec::new();
    let mut routes = Vec::new();
    // Routing prefers, segment by segment, a literal over `{name}` over `**`.
    let order = super::shared::route_order(model, def);
    for &e in &def.serves {
        let entry = model.entry(e);
        let caps = param_decls(&entry.path);
        let sig = signature(model, entry);
        for (name, body) in methods_of(model, entry) {
            let mut params = vec!["req: Request".to_string()];
            params.extend(caps.iter().cloned());
            params.extend(body_param(model, &body));
            methods.push(MethodView {
                name,
                signature: sig.clone(),
                doc: doc_lines(&entry.doc),
                params: params.join(", "),
            });
        }
    }
    for &e in &order {
        let entry = model.entry(e);
        let mut args = vec!["req".to_string()];
        args.extend(route_args(&entry.path));
        routes.push(RouteView {
            verb: verb_const(entry.verb),
            condition: condition(&entry.path),
            takes: takes(model, entry, &args, &As),
        });
    }
    let (any_path, every_path) = any_path(routes.iter().map(|r| &r.condition));
    // (Only `/**` has no condition, and its argument is the whole path.)
    let uses_segments = !any_path.is_empty() || routes.iter().any(|r| !r.condition.is_empty());
    ServerView {
        name: format!("{}Server", type_name(&def.name)),
        object: def.name.clone(),
        doc: doc_lines(&def.doc),
        methods,
        routes,
        any_path,
        every_path,
        uses_segments,
    }
}

/// How AssemblyScript spells a route's pieces.
struct As;

impl Syntax for As {
    fn literal(&self, s: &str) -> String {
        string_literal(s)
    }

    fn type_name(&self, name: &str) -> String {
        type_name(name)
    }

    fn method(&self, name: &str) -> String {
        name.to_string()
    }

    fn refuse(&self, r: &Refusal) -> String {
        let status = match r.status {
            RefusedAs::UnsupportedType => "UnsupportedType",
            RefusedAs::Invalid => "Invalid",
        };
        format!("req.fail(Status.{status}, {})", string_literal(&r.text))
    }

    fn is_of(&self, ct: &str) -> String {
        format!("p.isOf({})", string_literal(ct))
    }

    fn media_type_is(&self, ct: &str) -> String {
        format!("p.mediaType() == {}", string_literal(ct))
    }
}

pub(super) fn client(model: &Model, n: &NeedBlock) -> ClientView {
    let mut methods = Vec::new();
    for &e in &n.entries {
        let entry = model.entry(e);
        let caps = param_decls(&entry.path);
        let answers = format!("answers: {} | null", answers_class(model, entry));
        let path = client_path(&entry.path);
        let sig = signature(model, entry);
        for (name, body) in methods_of(model, entry) {
            let param = body_param(model, &body);
            let payload = match &body {
                Body::None => "null".to_string(),
                Body::Text(ct) => format!("Payload.text(body, {})", string_literal(ct)),
                Body::Message(_) => "body.toPayload()".to_string(),
                Body::Payload => "body".to_string(),
            };
            let mut example: Vec<String> = caps.iter().map(|_| "\"x\"".to_string()).collect();
            example.extend(match &body {
                Body::None => None,
                Body::Text(_) => Some("\"\"".to_string()),
                Body::Payload => Some("Payload.text(\"\")".to_string()),
                Body::Message(id) => Some(format!("new b.{}()", type_name(&model.ty(*id).name))),
            });
            example.push("null".into());
            let mut p = caps.clone();
            p.extend(param);
            p.push(answers.clone());
            methods.push(ClientMethodView {
                name,
                signature: sig.clone(),
                doc: doc_lines(&entry.doc),
                params: p.join(", "),
                verb: verb_const(entry.verb),
                path: path.clone(),
                payload,
                example_args: example.join(", "),
            });
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
