//! Serve and need changes. An entry is known by its path and verb (a need
//! entry by its full path: the block's mount joined with the entry's).
//! Serves are judged from a caller's side: what was accepted must still
//! be, what was answered must still fit. Needs from the wiring's: what the
//! new version needs, images must give. Payload types are compared by the
//! checker's own matching rules (`check::matching`), across the two models.

use super::{Change, Class, Version};
use crate::check::matching::describe as payload_text;
use crate::check::matching::{covers_across, request_met_across};
use crate::model::{EntryDef, EntryId, Model, PathPattern};

/// An entry with what identifies it and what it carries, in words.
struct Seen<'m> {
    path: PathPattern,
    def: &'m EntryDef,
    request: Vec<String>,
    answer: Option<String>,
}

impl Seen<'_> {
    fn key(&self) -> (String, &'static str) {
        (self.path.to_string(), self.def.verb.as_str())
    }

    fn subject(&self, what: &str) -> String {
        format!("{what} {} {}", self.path, self.def.verb.as_str())
    }
}

fn seen<'m>(model: &'m Model, path: PathPattern, e: EntryId) -> Seen<'m> {
    let def = model.entry(e);
    Seen {
        path,
        def,
        request: def.request.iter().map(|t| payload_text(model, t)).collect(),
        answer: def.answer.as_ref().map(|t| payload_text(model, t)),
    }
}

fn serves_of<'m>(v: &Version<'m>) -> Vec<Seen<'m>> {
    v.object()
        .serves
        .iter()
        .map(|&e| seen(v.model, v.model.entry(e).path.clone(), e))
        .collect()
}

fn needs_of<'m>(v: &Version<'m>) -> Vec<Seen<'m>> {
    v.object()
        .needs
        .iter()
        .flat_map(|b| {
            b.entries
                .iter()
                .map(move |&e| seen(v.model, b.mount.join(&v.model.entry(e).path.segs), e))
        })
        .collect()
}

pub(super) fn serves(old: &Version, new: &Version) -> Vec<Change> {
    let (was, now) = (serves_of(old), serves_of(new));
    let mut out = Vec::new();
    let mut push = |subject: String, what: &str, class: Class| {
        out.push(Change {
            subject,
            what: what.to_string(),
            class,
        })
    };
    for o in &was {
        let Some(n) = now.iter().find(|n| n.key() == o.key()) else {
            push(
                o.subject("serve"),
                "removed: callers are answered not_found or not_supported",
                Class::BreaksCallers,
            );
            continue;
        };
        let s = o.subject("serve");
        // The new serve must take whatever callers of the old one send.
        if !request_met_across(new.model, &n.def.request, old.model, &o.def.request) {
            push(
                s.clone(),
                &format!(
                    "request narrowed from `{}` to `{}`: callers sending what it took are refused",
                    words(&o.request),
                    words(&n.request)
                ),
                Class::BreaksCallers,
            );
        } else if n.request != o.request {
            let same = request_met_across(old.model, &o.def.request, new.model, &n.def.request);
            let what = if same {
                "request written otherwise: it takes the same"
            } else {
                "request widened"
            };
            push(s.clone(), what, Class::Compatible);
        }
        if let Some((what, class)) = answer_change((old, o), (new, n)) {
            push(s.clone(), &what, class);
        }
        for (what, class) in flag_changes(o.def, n.def) {
            push(s.clone(), what, class);
        }
        if o.def.doc != n.def.doc {
            push(s, "its doc changed", Class::Compatible);
        }
    }
    for n in now
        .iter()
        .filter(|n| !was.iter().any(|o| o.key() == n.key()))
    {
        push(n.subject("serve"), "added", Class::Compatible);
    }
    out
}

/// How a serve's answer changed, seen by its callers: what callers
/// expected of the old answer must cover the new one.
fn answer_change(
    (old, o): (&Version, &Seen),
    (new, n): (&Version, &Seen),
) -> Option<(String, Class)> {
    let answer_fits = match (&o.def.answer, &n.def.answer) {
        (Some(a), Some(b)) => covers_across(old.model, a, new.model, b),
        _ => true,
    };
    Some(match (&o.answer, &n.answer) {
        (Some(a), Some(b)) if !answer_fits => (
            format!(
                "answer changed from `{a}` to `{b}`: callers expecting `{a}` get something else"
            ),
            Class::BreaksCallers,
        ),
        (None, Some(b)) => (
            format!("now answers `{b}`: callers expecting no payload get one"),
            Class::BreaksCallers,
        ),
        (Some(a), None) => (
            format!("no longer answers `{a}`: callers expecting it get nothing"),
            Class::BreaksCallers,
        ),
        (Some(a), Some(b)) if a != b => (
            format!("answer narrowed from `{a}` to `{b}`"),
            Class::Compatible,
        ),
        _ => return None,
    })
}

/// How a serve's `stream` and `operator` flags changed, seen by its
/// callers.
fn flag_changes(o: &EntryDef, n: &EntryDef) -> Vec<(&'static str, Class)> {
    let mut out = Vec::new();
    if n.stream && !o.stream {
        out.push((
            "now answers a stream: callers expecting one answer get several",
            Class::BreaksCallers,
        ));
    } else if o.stream && !n.stream {
        out.push((
            "no longer streams: callers get one answer",
            Class::Compatible,
        ));
    }
    if n.operator && !o.operator {
        out.push((
            "now `operator`: only startup requests may use it, objects are refused",
            Class::BreaksCallers,
        ));
    } else if o.operator && !n.operator {
        out.push((
            "no longer `operator`: any caller may use it",
            Class::Compatible,
        ));
    }
    out
}

pub(super) fn needs(old: &Version, new: &Version) -> Vec<Change> {
    let (was, now) = (needs_of(old), needs_of(new));
    let mut out = Vec::new();
    let mut push = |subject: String, what: String, class: Class| {
        out.push(Change {
            subject,
            what,
            class,
        })
    };
    for n in &now {
        let s = n.subject("need");
        let Some(o) = was.iter().find(|o| o.key() == n.key()) else {
            push(
                s,
                "added: images must mount something that serves it".into(),
                Class::BreaksWiring,
            );
            continue;
        };
        // What images mount took everything the old need sent; the new
        // one must send nothing more.
        if !request_met_across(old.model, &o.def.request, new.model, &n.def.request) {
            push(
                s.clone(),
                format!(
                    "sends more: `{}` where it sent `{}`; what images mount there may not take it",
                    words(&n.request),
                    words(&o.request)
                ),
                Class::BreaksWiring,
            );
        }
        // What images mount answers as the old need expected; the new one
        // must take that.
        let answer_fits = match (&o.def.answer, &n.def.answer) {
            (Some(a), Some(b)) => covers_across(new.model, b, old.model, a),
            _ => true,
        };
        match (&o.answer, &n.answer) {
            (Some(a), Some(b)) if !answer_fits => push(
                s.clone(),
                format!(
                    "now expects `{b}` where it took `{a}`: what images mount there may answer otherwise"
                ),
                Class::BreaksWiring,
            ),
            (None, Some(b)) => push(
                s.clone(),
                format!("now expects an answer `{b}`"),
                Class::BreaksWiring,
            ),
            _ => {}
        }
        if n.def.stream && !o.def.stream {
            push(
                s.clone(),
                "now expects a stream".into(),
                Class::BreaksWiring,
            );
        }
    }
    for o in was
        .iter()
        .filter(|o| !now.iter().any(|n| n.key() == o.key()))
    {
        push(
            o.subject("need"),
            "removed: what images mount there is no longer used".into(),
            Class::Compatible,
        );
    }
    out
}

fn words(ts: &[String]) -> String {
    if ts.is_empty() {
        "nothing".into()
    } else {
        ts.join(" | ")
    }
}
