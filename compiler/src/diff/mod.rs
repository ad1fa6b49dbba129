//! What changed between two versions of one object, and who it breaks:
//! the answer of `othc diff`, as data. Each version is an object in the
//! model it was read into (from `.oth` source or a module's header), so
//! source and built modules compare alike.
//!
//! The rules (book: reference/diff.md) follow the BSON encoding: readers
//! skip elements they do not ask for, a required field missing is a
//! rejected document, an enum travels as its value's name, a message's
//! `$type` is its name. Serve changes are judged from a caller's side,
//! need changes from the wiring's: what images give the object.

mod entries;
mod schema;

use serde::Serialize;

use crate::model::{Model, ObjectDef, ObjectId};

/// One version of the object: its model and the object in it.
pub struct Version<'a> {
    pub model: &'a Model,
    pub id: ObjectId,
}

impl Version<'_> {
    pub fn object(&self) -> &ObjectDef {
        self.model.object(self.id)
    }
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// What changed: `message Greeting`, `field Greeting.prefix`,
    /// `serve /greeting write`, `need /dev/cons write`.
    pub subject: String,
    /// The change in words.
    pub what: String,
    pub class: Class,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Class {
    /// Documents written by one version are rejected or misread by the
    /// other (either way round).
    BreaksWire,
    /// Callers of a serve entry that work today are refused or surprised.
    BreaksCallers,
    /// Images that wire the old version no longer meet the new one's needs.
    BreaksWiring,
    /// Nothing that works today stops working.
    Compatible,
}

impl Class {
    pub fn is_breaking(self) -> bool {
        self != Class::Compatible
    }

    pub fn label(self) -> &'static str {
        match self {
            Class::BreaksWire => "breaks the wire",
            Class::BreaksCallers => "breaks callers",
            Class::BreaksWiring => "breaks wiring",
            Class::Compatible => "compatible",
        }
    }
}

/// Every change from `old` to `new`: schemas first, then serves, then
/// needs; breaking ones before compatible ones within each.
pub fn diff(old: &Version, new: &Version) -> Vec<Change> {
    let mut out = Vec::new();
    if old.object().name != new.object().name {
        out.push(Change {
            subject: format!("object {}", old.object().name),
            what: format!(
                "renamed to `{}`: images that name `{}` no longer find it",
                new.object().name,
                old.object().name
            ),
            class: Class::BreaksWiring,
        });
    }
    if old.object().doc != new.object().doc {
        out.push(Change {
            subject: format!("object {}", new.object().name),
            what: "its doc changed".into(),
            class: Class::Compatible,
        });
    }
    let mut types = schema::diff(old, new);
    types.sort_by_key(|c| c.class);
    out.extend(types);
    let mut serves = entries::serves(old, new);
    serves.sort_by_key(|c| c.class);
    out.extend(serves);
    let mut needs = entries::needs(old, new);
    needs.sort_by_key(|c| c.class);
    out.extend(needs);
    out
}
