//! The binding model: what every language's bindings are, decided once.
//! How an entry's request payload reaches its method (`request_kind`),
//! which methods an entry gets and each one's body (`methods_of`), why a
//! route refuses a request and with which status (`Refusal`), what a
//! route tests of a path (`Condition`) and in which order routes are
//! tried, each method's header line and doc, the name the bindings are
//! called after, and the clients of a file's objects (one per mount
//! point, shared). Each backend (`assemblyscript`, `rust`) only spells
//! these in its own language; neither decides anything the other must
//! decide the same way (`tests/codegen_routing.rs` holds both generated
//! servers to one table).

use std::collections::HashMap;

use crate::model::*;
use crate::namespace::path::specificity;

/// How an entry's request payload reaches the method.
pub(crate) enum Request {
    None,
    Text(String),
    Message(TypeId),
    Messages(Vec<TypeId>),
    Any(Vec<String>),
}

/// The status a route fails a request it refuses with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RefusedAs {
    /// A payload of no type the entry takes (or one where it takes none).
    UnsupportedType,
    /// A payload of the type, but not a valid message of it.
    Invalid,
}

/// Why a generated route refuses a request: worded here once, for the
/// bindings of every language.
pub(crate) struct Refusal {
    pub status: RefusedAs,
    pub text: String,
}

impl Request {
    /// The refusal of a payload of no type the entry takes.
    pub(crate) fn wrong_type(&self, model: &Model) -> Refusal {
        let text = match self {
            Request::None => "this request takes no payload".to_string(),
            Request::Text(ct) => format!("this request takes {ct}"),
            Request::Message(id) => format!("this request takes a {} message", model.ty(*id).name),
            Request::Messages(_) => "this request takes a BSON message".to_string(),
            Request::Any(types) => format!("this request takes {}", types.join(" | ")),
        };
        Refusal {
            status: RefusedAs::UnsupportedType,
            text,
        }
    }

    /// The refusal of a payload of the right type that is no message the
    /// entry takes (for the entries that take messages).
    pub(crate) fn not_a_message(&self, model: &Model) -> Option<Refusal> {
        let text = match self {
            Request::Message(id) => {
                format!("the payload is not a valid {} message", model.ty(*id).name)
            }
            Request::Messages(_) => {
                "the payload is none of the message types this request takes".to_string()
            }
            Request::None | Request::Text(_) | Request::Any(_) => return None,
        };
        Some(Refusal {
            status: RefusedAs::Invalid,
            text,
        })
    }
}

/// What a generated method's body parameter is.
pub(crate) enum Body {
    /// The entry takes no payload: the method has no body parameter.
    None,
    /// Text of this content type.
    Text(String),
    /// A decoded message of this type.
    Message(TypeId),
    /// The payload as it came (an entry taking several content types).
    Payload,
}

/// The methods an entry is given in every language, server's and
/// client's alike: one, or one per message type it takes; each named as
/// `asnames` names it (a backend spells the name its own way) and with
/// what its body is.
pub(crate) fn methods_of(model: &Model, entry: &EntryDef) -> Vec<(String, Body)> {
    let names = crate::asnames::method_names(model, entry);
    let first = names[0].clone();
    match request_kind(model, entry) {
        Request::None => vec![(first, Body::None)],
        Request::Text(ct) => vec![(first, Body::Text(ct))],
        Request::Message(id) => vec![(first, Body::Message(id))],
        Request::Messages(ids) => names
            .into_iter()
            .zip(ids)
            .map(|(name, id)| (name, Body::Message(id)))
            .collect(),
        Request::Any(_) => vec![(first, Body::Payload)],
    }
}

pub(crate) fn request_kind(model: &Model, e: &EntryDef) -> Request {
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
                    PayloadType::Message(id) => model.ty(*id).format.to_string(),
                    PayloadType::Unknown => "*/*".into(),
                })
                .collect(),
        ),
    }
}

/// A doc comment as the lines a template puts its marks before.
pub(crate) fn doc_lines(doc: &Option<String>) -> Vec<String> {
    doc.as_ref()
        .map(|d| d.lines().map(str::to_string).collect())
        .unwrap_or_default()
}

/// A payload type as an entry's line in the header writes it (`Stat` for
/// stat records).
fn describe(model: &Model, t: &PayloadType) -> String {
    match t {
        PayloadType::Content(c) if c.text == STAT_CONTENT_TYPE => "Stat".into(),
        PayloadType::Content(c) => c.text.clone(),
        PayloadType::Message(id) => model.ty(*id).name.clone(),
        PayloadType::Unknown => "?".into(),
    }
}

/// An entry as its header line reads (`/items/{id} write Note -> Note`):
/// the first line of every generated method's doc, in both languages.
pub(crate) fn signature(model: &Model, e: &EntryDef) -> String {
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

/// The file name the bindings of `file` are named after and say they
/// come from: `Greeter.oth`, and for a header read from a module
/// (`Store.wasm#othismo:header`), `Store.wasm`.
pub(crate) fn source_base(model: &Model, file: FileIx) -> String {
    let source = &model.files[file.index()].name;
    let base = std::path::Path::new(source)
        .file_name()
        .map_or_else(|| source.clone(), |n| n.to_string_lossy().into_owned());
    base.split('#').next().unwrap_or(&base).to_string()
}

/// The objects file `file` declares.
pub(crate) fn objects_of(model: &Model, file: FileIx) -> Vec<ObjectId> {
    (0..model.objects.len())
        .map(|i| ObjectId(i as u32))
        .filter(|o| model.object(*o).file == file)
        .collect()
}

/// Whether a pattern is `/**`: every path matches it, so a route to it
/// tests no segments (a backend gives it an empty condition).
fn every_path(path: &PathPattern) -> bool {
    matches!(path.segs.as_slice(), [Seg::Rest])
}

/// What a route tests of a request's segments: how many there are
/// (exactly, or at least with a `**`), and the literal that some places
/// hold.
pub(crate) struct Condition {
    pub at_least: bool,
    pub count: usize,
    /// (place, literal), in order.
    pub literals: Vec<(usize, String)>,
}

/// The condition of a route to `path`; `None` for `/**`, which every path
/// matches (a backend gives it an empty condition).
pub(crate) fn condition_of(path: &PathPattern) -> Option<Condition> {
    if every_path(path) {
        return None;
    }
    Some(Condition {
        at_least: path.segs.iter().any(|s| matches!(s, Seg::Rest)),
        count: path.segs.iter().filter(|s| !matches!(s, Seg::Rest)).count(),
        literals: path
            .segs
            .iter()
            .enumerate()
            .filter_map(|(i, s)| match s {
                Seg::Literal(l) => Some((i, l.clone())),
                _ => None,
            })
            .collect(),
    })
}

impl Condition {
    /// The condition in a language's syntax: `length` is how it counts
    /// `s` (`s.length`, `s.len()`), `literal` how it writes a string.
    pub(crate) fn render(&self, length: &str, literal: impl Fn(&str) -> String) -> String {
        let op = if self.at_least { ">=" } else { "==" };
        let mut parts = vec![format!("{length} {op} {}", self.count)];
        for (i, l) in &self.literals {
            parts.push(format!("s[{i}] == {}", literal(l)));
        }
        parts.join(" && ")
    }
}

/// The distinct conditions (in route order) under which some route serves
/// a path, for the `not_supported` answer, and whether one of them is
/// every path's (empty): then no path is `not_found`, and none is listed.
pub(crate) fn any_path<'a>(conditions: impl Iterator<Item = &'a String>) -> (Vec<String>, bool) {
    // Each condition once, where it first comes: two entries on one path
    // need not be next to each other in route order (`/a` read, `/b` read,
    // `/a` write).
    let mut any: Vec<String> = Vec::new();
    for c in conditions {
        if !any.contains(c) {
            any.push(c.clone());
        }
    }
    if any.iter().any(String::is_empty) {
        return (Vec::new(), true);
    }
    (any, false)
}

/// The serves entries of `def` in the order routes are tried: a literal
/// before `{name}` before `**`, segment by segment.
pub(crate) fn route_order(model: &Model, def: &ObjectDef) -> Vec<EntryId> {
    let mut order: Vec<EntryId> = def.serves.clone();
    order.sort_by_key(|e| specificity(&model.entry(*e).path.segs));
    order
}

/// The clients of `objects`: one per mount point, with the entries of every
/// need there (the objects of one file share its client; the checker made
/// sure their method names agree, E0404). In the order first met.
pub(crate) fn shared_needs(model: &Model, objects: &[ObjectId]) -> Vec<NeedBlock> {
    let mut shared: Vec<NeedBlock> = Vec::new();
    // Beside each shared block, its entries by path: an entry is looked
    // for among those of its path only (a file of a thousand objects that
    // all need one mount would otherwise compare every entry with all).
    let mut by_path: Vec<HashMap<&PathPattern, Vec<EntryId>>> = Vec::new();
    for &o in objects {
        for n in &model.object(o).needs {
            match shared.iter().position(|s| s.mount == n.mount) {
                Some(i) => {
                    for &e in &n.entries {
                        let entry = model.entry(e);
                        let alike = by_path[i].entry(&entry.path).or_default();
                        let same = |x: &EntryId| model.entry(*x).same_for_client(entry);
                        if !alike.iter().any(same) {
                            alike.push(e);
                            shared[i].entries.push(e);
                        }
                    }
                }
                None => {
                    let mut index: HashMap<&PathPattern, Vec<EntryId>> = HashMap::new();
                    for &e in &n.entries {
                        index.entry(&model.entry(e).path).or_default().push(e);
                    }
                    by_path.push(index);
                    shared.push(n.clone());
                }
            }
        }
    }
    shared
}

#[cfg(test)]
mod tests {
    use super::any_path;

    fn conditions(list: &[&str]) -> Vec<String> {
        list.iter().map(|c| c.to_string()).collect()
    }

    #[test]
    fn each_condition_is_listed_once_where_it_first_comes() {
        // `/a` read, `/b` read, `/a` write: the two `/a` are not neighbours.
        let c = conditions(&["a", "b", "a", "c", "b"]);
        assert_eq!(any_path(c.iter()), (conditions(&["a", "b", "c"]), false));
    }

    #[test]
    fn a_route_to_every_path_lists_none() {
        let c = conditions(&["a", "", "a"]);
        assert_eq!(any_path(c.iter()), (Vec::new(), true));
    }
}
