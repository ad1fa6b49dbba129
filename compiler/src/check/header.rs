//! Header rules: what one object (or image) declares, on its own.
//!
//! Codes: E0401 (duplicate serves entry), E0402 (ambiguous serves entries),
//! E0403 (`operator` in needs), E0404 (generated method names collide),
//! E0405 (pattern mount point), E0406 (unknown native object), W0401
//! (redundant `*`).

use std::collections::HashMap;

use super::Cx;
use crate::asnames;
use crate::diagnostics::{Code, Diagnostic, Label};
use crate::model::{EntryId, FileOrigin, NeedBlock, Seg};
use crate::source::FileSpan;

pub fn check(cx: &mut Cx) {
    let natives: Vec<String> = cx
        .model
        .objects
        .iter()
        .filter(|o| o.native && cx.model.files[o.file.index()].origin == FileOrigin::Env)
        .map(|o| o.name.clone())
        .collect();
    for oi in 0..cx.model.objects.len() {
        let o = &cx.model.objects[oi];
        let sp = &cx.spans.objects[oi];
        if o.native
            && cx.model.files[o.file.index()].origin == FileOrigin::Source
            && !natives.contains(&o.name)
        {
            let at = sp.native.unwrap_or(sp.name);
            cx.diags.push(
                Diagnostic::new(
                    Code::E0406,
                    format!("the runtime provides no native object `{}`", o.name),
                    Label::new(at.file, at.span, "`native` says the runtime implements this object"),
                )
                .with_label(Label::new(sp.name.file, sp.name.span, "no object of this name in `othismo:env`"))
                .with_help(format!(
                    "the runtime's objects are {}; remove `native` to implement `{}` in AssemblyScript",
                    natives.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", "),
                    o.name
                )),
            );
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
        needs_rules(cx, &needs, &need_spans);
    }
    for ii in 0..cx.model.images.len() {
        let needs = cx.model.images[ii].needs.clone();
        let spans = cx.spans.images[ii].needs.clone();
        needs_rules(cx, &needs, &spans);
    }
}

fn needs_rules(cx: &mut Cx, needs: &[NeedBlock], spans: &[FileSpan]) {
    let mut clients: HashMap<String, FileSpan> = HashMap::new();
    for (n, at) in needs.iter().zip(spans) {
        if n.mount.segs.iter().any(|s| matches!(s, Seg::Capture(_))) {
            cx.diags.push(
                Diagnostic::new(
                    Code::E0405,
                    format!("mount point `{}` is a pattern", n.mount),
                    Label::new(at.file, at.span, "a need's mount point is a path, or ends in `/**`"),
                )
                .with_help("name the mount point literally (`needs /db { ... }`), or say `needs /db/** { ... }` to send anywhere under it, and put captures in the entries"),
            );
        }
        for e in &n.entries {
            if let Some(op) = cx.spans.entries[e.index()].operator {
                cx.diags.push(
                    Diagnostic::new(
                        Code::E0403,
                        "`operator` in a needs block",
                        Label::new(op.file, op.span, "only a serves entry can be operator-only"),
                    )
                    .with_help("remove `operator`: objects cannot make operator requests; the image's startup requests are the operator's"),
                );
            }
        }
        redundant_stars(cx, &n.entries);
        methods_unique(cx, &n.entries, "needs");
        // Two needs whose ready-made clients or client classes would share
        // a name: one report per pair of needs.
        let names: Vec<String> = asnames::client_instance(&n.mount.segs)
            .into_iter()
            .chain([asnames::client_class(&n.mount.segs)])
            .collect();
        if let Some((name, first)) = names
            .iter()
            .find_map(|name| clients.get(name).map(|f| (name, *f)))
        {
            cx.diags.push(
                Diagnostic::new(
                    Code::E0404,
                    format!("two needs would both generate `{name}`"),
                    Label::new(at.file, at.span, format!("this need generates `{name}`")),
                )
                .with_label(Label::new(first.file, first.span, "and so does this one"))
                .with_help("clients are named for the mount point's last segment: give the two mount points different last segments"),
            );
        } else {
            for name in names {
                clients.insert(name, *at);
            }
        }
    }
}

/// E0401 and E0402; returns the entries that are not repeats of an earlier
/// one, so a repeat is not also reported as a method collision.
fn serves_rules(cx: &mut Cx, serves: &[EntryId]) -> Vec<EntryId> {
    redundant_stars(cx, serves);
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
        let verb = def.verb.as_str();
        let d = if fdef.path == def.path {
            Diagnostic::new(
                Code::E0401,
                format!("`{} {verb}` is served twice", def.path),
                Label::new(here.file, here.span, "served again here"),
            )
            .with_label(Label::new(there.file, there.span, "first served here"))
            .with_help("remove one of the two entries (an entry can take several request types: `write A | B`)")
        } else {
            Diagnostic::new(
                Code::E0402,
                format!(
                    "`{} {verb}` and `{} {verb}` match the same paths",
                    fdef.path, def.path
                ),
                Label::new(
                    here.file,
                    here.span,
                    "this pattern differs only in capture names",
                ),
            )
            .with_label(Label::new(there.file, there.span, "from this one"))
            .with_help("no request could tell them apart: keep one of the two")
        };
        cx.diags.push(d);
    }
    distinct
}

fn redundant_stars(cx: &mut Cx, entries: &[EntryId]) {
    for &e in entries {
        let def = cx.model.entry(e);
        if let (true, Some(star)) = (
            def.verb.always_streams(),
            cx.spans.entries[e.index()].stream,
        ) {
            cx.diags.push(
                Diagnostic::new(
                    Code::W0401,
                    format!("`{}` answers are always a stream", def.verb.as_str()),
                    Label::new(star.file, star.span, "this `*` says nothing more"),
                )
                .with_help("remove the `*`"),
            );
        }
    }
}

fn methods_unique(cx: &mut Cx, entries: &[EntryId], what: &str) {
    let mut seen: HashMap<String, EntryId> = HashMap::new();
    for &e in entries {
        for name in asnames::method_names(cx.model, cx.model.entry(e)) {
            match seen.get(&name) {
                Some(&first) if first != e => {
                    let (here, there) = (
                        cx.spans.entries[e.index()].whole,
                        cx.spans.entries[first.index()].whole,
                    );
                    cx.diags.push(
                        Diagnostic::new(
                            Code::E0404,
                            format!("two {what} entries would both generate the method `{name}`"),
                            Label::new(here.file, here.span, format!("this entry generates `{name}`")),
                        )
                        .with_label(Label::new(there.file, there.span, "and so does this one"))
                        .with_help("methods are named for the verb and the path's literal segments: give one of the two paths another literal segment"),
                    );
                }
                Some(_) => {}
                None => {
                    seen.insert(name, e);
                }
            }
        }
    }
}
