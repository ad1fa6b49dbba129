//! Schema changes: the message types and enums the object's file declares
//! and its entries name, compared by name.

use super::{Change, Class, Version};
use crate::formats::describe_field_type as describe;
use crate::model::{EnumValueDef, FieldDef, Model, TypeDef, TypeId, TypeKind};

fn types<'m>(v: &Version<'m>) -> Vec<&'m TypeDef> {
    let file = v.object().file;
    v.model
        .types_for(file, &[v.id])
        .into_iter()
        .map(|t: TypeId| v.model.ty(t))
        .collect()
}

pub(super) fn diff(old: &Version, new: &Version) -> Vec<Change> {
    let (was, now) = (types(old), types(new));
    let mut out = Vec::new();
    let removed: Vec<&TypeDef> = was
        .iter()
        .filter(|t| !now.iter().any(|n| n.name == t.name))
        .copied()
        .collect();
    let added: Vec<&TypeDef> = now
        .iter()
        .filter(|t| !was.iter().any(|o| o.name == t.name))
        .copied()
        .collect();
    for t in &removed {
        // The same shape under another name: a rename, which changes `$type`.
        let renamed = added
            .iter()
            .find(|n| same_shape(old.model, t, new.model, n));
        let what = match renamed {
            Some(n) => format!(
                "renamed to `{}`: a document's `$type` names it, so each side rejects the other's",
                n.name
            ),
            None => "removed: documents of it are no longer read or written".into(),
        };
        out.push(Change {
            subject: format!("{} {}", kind(t), t.name),
            what,
            class: Class::BreaksWire,
        });
    }
    for t in &added {
        if removed
            .iter()
            .any(|o| same_shape(old.model, o, new.model, t))
        {
            continue;
        }
        out.push(Change {
            subject: format!("{} {}", kind(t), t.name),
            what: "added".into(),
            class: Class::Compatible,
        });
    }
    for o in &was {
        if let Some(n) = now.iter().find(|n| n.name == o.name) {
            members(old.model, o, new.model, n, &mut out);
        }
    }
    out
}

fn kind(t: &TypeDef) -> &'static str {
    match t.kind {
        TypeKind::Message { .. } => "message",
        TypeKind::Enum { .. } => "enum",
    }
}

fn same_shape(om: &Model, o: &TypeDef, nm: &Model, n: &TypeDef) -> bool {
    match (&o.kind, &n.kind) {
        (TypeKind::Message { fields: a }, TypeKind::Message { fields: b }) => {
            a.len() == b.len()
                && a.iter().zip(b).all(|(x, y)| {
                    x.name == y.name
                        && x.optional == y.optional
                        && describe(om, &x.ty) == describe(nm, &y.ty)
                })
        }
        (TypeKind::Enum { values: a }, TypeKind::Enum { values: b }) => {
            a.iter().map(|v| &v.name).eq(b.iter().map(|v| &v.name))
        }
        _ => false,
    }
}

fn members(om: &Model, o: &TypeDef, nm: &Model, n: &TypeDef, out: &mut Vec<Change>) {
    let subject = |m: &str| format!("{}.{m}", o.name);
    let mut push = |subject: String, what: String, class: Class| {
        out.push(Change {
            subject,
            what,
            class,
        })
    };
    if o.doc != n.doc {
        push(
            format!("{} {}", kind(o), o.name),
            "its doc changed".into(),
            Class::Compatible,
        );
    }
    match (&o.kind, &n.kind) {
        (TypeKind::Message { fields: a }, TypeKind::Message { fields: b }) => {
            for f in a {
                match b.iter().find(|g| g.name == f.name) {
                    None if f.optional => push(
                        subject(&f.name),
                        "optional field removed: the old version reads it as absent".into(),
                        Class::Compatible,
                    ),
                    None => push(
                        subject(&f.name),
                        "required field removed: the old version rejects documents without it"
                            .into(),
                        Class::BreaksWire,
                    ),
                    Some(g) => field(om, f, nm, g, &subject(&f.name), &mut push),
                }
            }
            for g in b.iter().filter(|g| !a.iter().any(|f| f.name == g.name)) {
                if g.optional {
                    push(
                        subject(&g.name),
                        "optional field added: the old version skips it".into(),
                        Class::Compatible,
                    );
                } else {
                    push(
                        subject(&g.name),
                        "required field added: documents the old version writes lack it".into(),
                        Class::BreaksWire,
                    );
                }
            }
            let order = |fs: &[FieldDef]| fs.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
            let common = |x: &[FieldDef], y: &[FieldDef]| {
                order(x)
                    .into_iter()
                    .filter(|n| y.iter().any(|f| &f.name == n))
                    .collect::<Vec<_>>()
            };
            if common(a, b) != common(b, a) {
                push(
                    format!("message {}", o.name),
                    "fields reordered: encoded in the new order, read by name".into(),
                    Class::Compatible,
                );
            }
        }
        (TypeKind::Enum { values: a }, TypeKind::Enum { values: b }) => {
            values_changed(&o.name, a, b, &mut push)
        }
        _ => push(
            format!("{} {}", kind(o), o.name),
            format!("now {} {}", article(kind(n)), kind(n)),
            Class::BreaksWire,
        ),
    }
}

/// The values enum `name` lost (`a` before, `b` after) and gained: each
/// breaks the wire, one way or the other.
fn values_changed(
    name: &str,
    a: &[EnumValueDef],
    b: &[EnumValueDef],
    push: &mut impl FnMut(String, String, Class),
) {
    for v in a.iter().filter(|v| !b.iter().any(|w| w.name == v.name)) {
        push(
            format!("{name}.{}", v.name),
            "enum value removed: the new version rejects it when the old one sends it".into(),
            Class::BreaksWire,
        );
    }
    for w in b.iter().filter(|w| !a.iter().any(|v| v.name == w.name)) {
        push(
            format!("{name}.{}", w.name),
            "enum value added: the old version rejects it when the new one sends it".into(),
            Class::BreaksWire,
        );
    }
}

fn article(word: &str) -> &'static str {
    if word.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    }
}

fn field(
    om: &Model,
    f: &FieldDef,
    nm: &Model,
    g: &FieldDef,
    subject: &str,
    push: &mut impl FnMut(String, String, Class),
) {
    let (t0, t1) = (describe(om, &f.ty), describe(nm, &g.ty));
    if t0 != t1 {
        push(
            subject.to_string(),
            format!(
                "type changed from `{t0}` to `{t1}`: each side misreads or rejects the other's"
            ),
            Class::BreaksWire,
        );
    }
    match (f.optional, g.optional) {
        (true, false) => push(
            subject.to_string(),
            "made required: the old version may leave it out, and the new one rejects that".into(),
            Class::BreaksWire,
        ),
        (false, true) => push(
            subject.to_string(),
            "made optional: the new version may leave it out, and the old one rejects that".into(),
            Class::BreaksWire,
        ),
        _ => {}
    }
    if f.doc != g.doc {
        push(
            subject.to_string(),
            "its doc changed".into(),
            Class::Compatible,
        );
    }
}
