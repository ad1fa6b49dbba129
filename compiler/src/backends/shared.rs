//! What every language's bindings share, decided once: how an entry's
//! request payload reaches its method, the order routes are tried in, and
//! the clients of a file's objects (one per mount point, shared). Each
//! backend (`assemblyscript`, `rust`) writes these in its own language.

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

/// The objects file `file` declares.
pub(crate) fn objects_of(model: &Model, file: FileIx) -> Vec<ObjectId> {
    (0..model.objects.len())
        .map(|i| ObjectId(i as u32))
        .filter(|o| model.object(*o).file == file)
        .collect()
}

/// The serves entries of `def` in the order routes are tried: a literal
/// before `{name}` before `**`, segment by segment.
/// Whether a pattern is `/**`: every path matches it, so a route to it
/// tests no segments (a backend gives it an empty condition).
pub(crate) fn every_path(path: &PathPattern) -> bool {
    matches!(path.segs.as_slice(), [Seg::Rest])
}

/// The distinct conditions (in route order) under which some route serves
/// a path, for the `not_supported` answer, and whether one of them is
/// every path's (empty): then no path is `not_found`, and none is listed.
pub(crate) fn any_path<'a>(conditions: impl Iterator<Item = &'a String>) -> (Vec<String>, bool) {
    let mut any: Vec<String> = conditions.cloned().collect();
    any.dedup();
    if any.iter().any(String::is_empty) {
        return (Vec::new(), true);
    }
    (any, false)
}

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

/// `rest` with a first line naming `source`, the hash of the source's
/// text and the hash of `rest` (so a build can tell bindings left as
/// generated from bindings edited by hand: `assemblyscript::written`).
pub(crate) fn stamped(comment: &str, source: &str, source_text: &str, rest: &str) -> String {
    let hash = super::assemblyscript::source_hash(source_text);
    let body = super::assemblyscript::source_hash(rest);
    format!("{comment} Generated by othc from {source} (sha256 {hash}, body {body}).\n{rest}")
}
