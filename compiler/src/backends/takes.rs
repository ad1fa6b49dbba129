//! What a generated route does with a request's payload before it calls a
//! method: the binding model's `Request` (none / text / one message /
//! one of several / any), with the pieces a template needs for it, each
//! spelled by the backend's `Syntax`. The statements themselves are the
//! templates' (`templates/*/server.*.hbs`): no backend builds a line of a
//! route, and the refusals are worded once (`shared::Request`).

use serde::Serialize;

use super::shared::{Refusal, Request, request_kind};
use crate::model::*;

/// How a backend spells what a route's template is given.
pub(crate) trait Syntax {
    /// A string literal of `s`.
    fn literal(&self, s: &str) -> String;
    /// The class or struct of message type `name`.
    fn type_name(&self, name: &str) -> String;
    /// A method named `name` (as `asnames` names it).
    fn method(&self, name: &str) -> String;
    /// The statement failing the request as `r` says.
    fn refuse(&self, r: &Refusal) -> String;
    /// The test that the payload `p` is of content type `ct`.
    fn is_of(&self, ct: &str) -> String;
    /// The test that the payload `p`'s media type is exactly `ct` (a
    /// format's: what its messages are read from).
    fn media_type_is(&self, ct: &str) -> String;
}

/// One shape of `Request`, for a template to test: exactly one flag is
/// set, and the fields it uses are filled.
#[derive(Serialize)]
pub(crate) struct TakesView {
    none: bool,
    text: bool,
    message: bool,
    messages: bool,
    any: bool,
    /// The method called (every shape but `messages`, whose arms name
    /// theirs).
    method: String,
    /// The arguments before the body: the request and the path's.
    args: String,
    /// `text`: the content type, as a literal.
    content_type: String,
    /// `message`: its type.
    ty: String,
    /// `message`, `messages`: the test that the payload is of the format
    /// (of one of the formats) of the message types the entry takes.
    format_test: String,
    /// `message`: the function reading its type from the payload:
    /// `fromPayload` (the payload names its type), or for JSON `fromBody`
    /// (a body without `$type` is read as the one type the entry takes,
    /// as a browser's `fetch` sends it).
    read: String,
    /// `messages`: each type with its method.
    arms: Vec<Arm>,
    /// `any`: the test that the payload is of a type the entry takes.
    test: String,
    /// The statement refusing a payload of no type the entry takes.
    wrong: String,
    /// The statement refusing a payload of the type that is no message
    /// the entry takes (`message`, `messages`).
    invalid: String,
}

#[derive(Serialize)]
struct Arm {
    ty: String,
    method: String,
}

/// The payload handling of `entry`'s route, whose method call passes
/// `args` (the request, then the path's captures and remainder) before the
/// body.
pub(crate) fn takes(
    model: &Model,
    entry: &EntryDef,
    args: &[String],
    syntax: &dyn Syntax,
) -> TakesView {
    let names = crate::asnames::method_names(model, entry);
    let kind = request_kind(model, entry);
    let ty = |id: &TypeId| syntax.type_name(&model.ty(*id).name);
    let mut view = TakesView {
        none: false,
        text: false,
        message: false,
        messages: false,
        any: false,
        method: syntax.method(&names[0]),
        args: args.join(", "),
        content_type: String::new(),
        ty: String::new(),
        format_test: String::new(),
        read: String::new(),
        arms: Vec::new(),
        test: String::new(),
        wrong: syntax.refuse(&kind.wrong_type(model)),
        invalid: kind
            .not_a_message(model)
            .map(|r| syntax.refuse(&r))
            .unwrap_or_default(),
    };
    match &kind {
        Request::None => view.none = true,
        Request::Text(ct) => {
            view.text = true;
            view.content_type = syntax.literal(ct);
        }
        Request::Message(id) => {
            view.message = true;
            view.ty = ty(id);
            view.format_test = format_test(model, std::slice::from_ref(id), syntax);
            let typeless = model
                .ty(*id)
                .format
                .eq_ignore_ascii_case("application/json");
            view.read = syntax.method(if typeless { "fromBody" } else { "fromPayload" });
        }
        Request::Messages(ids) => {
            view.messages = true;
            view.format_test = format_test(model, ids, syntax);
            view.arms = names
                .iter()
                .zip(ids)
                .map(|(name, id)| Arm {
                    ty: ty(id),
                    method: syntax.method(name),
                })
                .collect();
        }
        Request::Any(types) => {
            view.any = true;
            view.test = types
                .iter()
                .map(|t| syntax.is_of(t))
                .collect::<Vec<_>>()
                .join(" || ");
        }
    }
    view
}

/// The test that a payload is of the format of one of `types`.
fn format_test(model: &Model, types: &[TypeId], syntax: &dyn Syntax) -> String {
    let mut formats: Vec<String> = types
        .iter()
        .map(|t| model.ty(*t).format.to_ascii_lowercase())
        .collect();
    formats.sort();
    formats.dedup();
    (formats.iter())
        .map(|f| syntax.media_type_is(f))
        .collect::<Vec<_>>()
        .join(" || ")
}
