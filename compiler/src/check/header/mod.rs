//! Header rules: what one object (or image) declares, on its own.
//!
//! Codes: E0401 (duplicate serves entry), E0402 (ambiguous serves entries),
//! E0403 (`operator` in needs), E0404 (generated method names collide),
//! E0405 (pattern mount point), E0406 (unknown native object). A `*` on
//! `watch` or `list`, which always stream, is the protocol's own notation
//! and accepted silently.

use std::collections::HashMap;

use super::Cx;
use crate::asnames;
use crate::model::{EntryId, NeedBlock, Origin, Seg};
use crate::source::FileSpan;

mod errors;
pub use errors::HeaderError;

pub fn check(cx: &mut Cx) {
    let natives: Vec<String> = cx
        .model
        .objects
        .iter()
        .filter(|o| o.native && cx.model.files[o.file.index()].origin == Origin::Env)
        .map(|o| o.name.clone())
        .collect();
    // The clients of the objects of one file live in one bindings file.
    let mut clients_by_file: HashMap<u32, Clients> = HashMap::new();
    for oi in 0..cx.model.objects.len() {
        let o = &cx.model.objects[oi];
        let file = o.file.0;
        let sp = &cx.spans.objects[oi];
        if o.native
            && cx.model.files[o.file.index()].origin == Origin::Source
            && !natives.contains(&o.name)
        {
            cx.diags.report(HeaderError::UnknownNative {
                object: o.name.clone(),
                native_at: sp.native.unwrap_or(sp.name),
                name_at: sp.name,
                natives: natives.clone(),
            });
        }
        let serves = o.serves.clone();
        let needs = o.needs.clone();
        let need_spans = sp.needs.clone();
        let native = o.native;
        let distinct = serves_rules(cx, &serves);
        // Native objects have no generated server, so no server methods.
        if !native {
            methods_unique(cx, &distinct, "serves");
        }
        let clients = clients_by_file.entry(file).or_default();
        needs_rules(cx, &needs, &need_spans, clients);
    }
    for ii in 0..cx.model.images.len() {
        let needs = cx.model.images[ii].needs.clone();
        let spans = cx.spans.images[ii].needs.clone();
        needs_rules(cx, &needs, &spans, &mut HashMap::new());
    }
}

/// The generated clients of a bindings file so far, by name: where the
/// first came from, its mount point, and the methods of all the need
/// blocks of the file's objects at that mount point (one client serves
/// them all: the union of their entries).
type Clients = HashMap<String, SharedClient>;

struct SharedClient {
    at: FileSpan,
    mount: String,
    /// Method name → the entry it was made for, and where that is.
    methods: HashMap<String, (EntryId, FileSpan)>,
}

fn needs_rules(cx: &mut Cx, needs: &[NeedBlock], spans: &[FileSpan], clients: &mut Clients) {
    let mut own: HashMap<String, FileSpan> = HashMap::new();
    for (n, at) in needs.iter().zip(spans) {
        if n.mount.segs.iter().any(|s| matches!(s, Seg::Capture(_))) {
            cx.diags.report(HeaderError::PatternMount {
                mount: n.mount.to_string(),
                at: *at,
            });
        }
        for e in &n.entries {
            if let Some(op) = cx.spans.entries[e.index()].operator {
                cx.diags.report(HeaderError::OperatorInNeeds { at: op });
            }
        }
        methods_unique(cx, &n.entries, "needs");
        // Two needs whose ready-made clients or client classes would share
        // a name: one report per pair of needs. Across the objects of one
        // file, needs at the same mount point share one client, with the
        // methods of both; at another mount point they clash.
        let names: Vec<String> = asnames::client_instance(&n.mount.segs)
            .into_iter()
            .chain([asnames::client_class(&n.mount.segs)])
            .collect();
        let mount = n.mount.to_string();
        let class = asnames::client_class(&n.mount.segs);
        let clash = names
            .iter()
            .find_map(|name| own.get(name).map(|f| (name, *f)))
            .or_else(|| {
                clients
                    .get(&class)
                    .filter(|c| c.mount != mount)
                    .map(|c| (&names[0], c.at))
            });
        if let Some((name, first)) = clash {
            cx.diags.report(HeaderError::ClientsCollide {
                name: name.clone(),
                at: *at,
                first,
            });
            continue;
        }
        for name in &names {
            own.insert(name.clone(), *at);
        }
        let shared = clients.entry(class).or_insert_with(|| SharedClient {
            at: *at,
            mount: mount.clone(),
            methods: HashMap::new(),
        });
        add_to_shared(cx, shared, &n.entries);
    }
}

/// The methods of need entries `entries` added to the client their mount
/// point shares: one entry each, whichever object's. Held against the
/// other objects' only (one block's own are E0404 above): the methods this
/// block adds are told from the ones there before it. (Not a copy of the
/// keys before: with one mount shared by every object of a file, that copy
/// made the check quadratic.)
fn add_to_shared(cx: &mut Cx, shared: &mut SharedClient, entries: &[EntryId]) {
    let mut mine: std::collections::HashSet<String> = std::collections::HashSet::new();
    for &e in entries {
        let whole = cx.spans.entries[e.index()].whole;
        for method in asnames::method_names(cx.model, cx.model.entry(e)) {
            match shared.methods.get(&method) {
                Some((other, first))
                    if !mine.contains(&method)
                        && !cx.model.entry(*other).same_for_client(cx.model.entry(e)) =>
                {
                    let first = *first;
                    cx.diags.report(HeaderError::MethodsCollide {
                        block: "needs",
                        name: method,
                        at: whole,
                        first,
                    });
                }
                Some(_) => {}
                None => {
                    mine.insert(method.clone());
                    shared.methods.insert(method, (e, whole));
                }
            }
        }
    }
}

/// E0401 and E0402; returns the entries that are not repeats of an earlier
/// one, so a repeat is not also reported as a method collision.
fn serves_rules(cx: &mut Cx, serves: &[EntryId]) -> Vec<EntryId> {
    let mut distinct = Vec::new();
    // Keyed by verb and the pattern with its capture names erased.
    let mut seen: HashMap<(oth_syntax::ast::Verb, Vec<Seg>), EntryId> = HashMap::new();
    for &e in serves {
        let def = cx.model.entry(e);
        let erased: Vec<Seg> = def
            .path
            .segs
            .iter()
            .map(|s| match s {
                Seg::Capture(_) => Seg::Capture(String::new()),
                s => s.clone(),
            })
            .collect();
        let key = (def.verb, erased);
        let Some(&first) = seen.get(&key) else {
            seen.insert(key, e);
            distinct.push(e);
            continue;
        };
        let fdef = cx.model.entry(first);
        let (here, there) = (
            cx.spans.entries[e.index()].path,
            cx.spans.entries[first.index()].path,
        );
        let entry = format!("{} {}", def.path, def.verb.as_str());
        cx.diags.report(if fdef.path == def.path {
            HeaderError::ServedTwice {
                entry,
                at: here,
                first: there,
            }
        } else {
            HeaderError::SamePaths {
                entry,
                first_entry: format!("{} {}", fdef.path, fdef.verb.as_str()),
                at: here,
                first: there,
            }
        });
    }
    distinct
}

fn methods_unique(cx: &mut Cx, entries: &[EntryId], what: &'static str) {
    let mut seen: HashMap<String, EntryId> = HashMap::new();
    for &e in entries {
        for name in asnames::method_names(cx.model, cx.model.entry(e)) {
            match seen.get(&name) {
                Some(&first) if first != e => {
                    let (here, there) = (
                        cx.spans.entries[e.index()].whole,
                        cx.spans.entries[first.index()].whole,
                    );
                    cx.diags.report(HeaderError::MethodsCollide {
                        block: what,
                        name,
                        at: here,
                        first: there,
                    });
                }
                Some(_) => {}
                None => {
                    seen.insert(name, e);
                }
            }
        }
    }
}
