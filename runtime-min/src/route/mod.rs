//! What a request may reach, decided from headers and views alone (no
//! wasmtime, no queue), with the compiler's namespace rules: the same
//! functions `othc check` proved the image with. In order, as a request
//! travels:
//!
//! - the sender's side ([`admit`]): a malformed path is `invalid`; a path
//!   outside the sender's needs is `forbidden`; nothing mounted there is
//!   `not_found`;
//! - the receiver's side ([`arrive`]): an unsafe verb through a read-only
//!   link is `read_only`; a stopped receiver is `unavailable`; exposures
//!   are followed (at most `MAX_DEPTH` of them); no serves entry covering
//!   the path is `not_found`, none with the verb `not_supported`; an
//!   operator-only entry reached by anyone else is `forbidden`.

mod probe;
pub use probe::{probe, probe_export};

use std::sync::Arc;

use othc::model::{EntryId, Model, ObjectDef, Seg, Verb};
use othc::namespace::MAX_DEPTH;
use othc::namespace::needs::allows;
use othc::namespace::path::text;
use othc::namespace::route::{Route, select};

use crate::ActorId;
use crate::abi::{self, Errno, errno};
use crate::view::{self, Aim, Link};

/// Why a request is answered with an error instead of delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal {
    pub errno: Errno,
    pub desc: String,
}

fn refuse(errno: Errno, desc: String) -> Refusal {
    Refusal { errno, desc }
}

/// Where `path`, sent from outside the image, reaches through its
/// `exports`: the one reading of it for a live probe and a probe before
/// anything runs.
pub(crate) fn through_exports(exports: &[Link], path: &str) -> Result<view::Resolved, Refusal> {
    let Some(segs) = othc::namespace::path::parse_request(path) else {
        return Err(refuse(errno::INVALID, format!("malformed path `{path}`")));
    };
    view::resolve(exports, &segs).ok_or_else(|| {
        let desc = format!("the image exports nothing at {path}");
        refuse(errno::NOT_FOUND, desc)
    })
}

/// What routing needs to know of an instance.
pub struct Party<'a> {
    pub name: &'a str,
    pub model: &'a Model,
    pub object: &'a ObjectDef,
    /// What it serves of its view (`expose`).
    pub exposed: &'a [Link],
    pub dead: bool,
    /// The serves entry its last request reached, if any.
    pub reached: Option<&'a Reached>,
}

/// A check that passed, remembered by the path's segments and the verb.
/// A view hands out the same shared segments for a path it has kept (see
/// `view::View`), so the same `Arc` means the same path, and an instance
/// sends to the same few paths over and over. What is remembered depends
/// only on headers, which never change while an image runs: the sender's
/// needs, the receiver's serves.
pub type Passed = (Arc<[Seg]>, Verb);

/// A serves entry reached: the path and verb that reached it, and it.
pub type Reached = (Arc<[Seg]>, Verb, EntryId);

/// Where a request is delivered.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arrival {
    pub to: ActorId,
    /// The path in the receiver's served tree.
    pub path: Arc<[Seg]>,
    /// The serves entry it reached.
    pub entry: EntryId,
    /// Whether the entry it reached answers more than once.
    pub stream: bool,
}

/// The sender's side of a request: where it leads in the sender's view
/// (receiver, path there, read-only on the way). `passed` is the sender's
/// last request that its needs allowed, updated.
pub fn admit(
    name: &str,
    model: &Model,
    object: &ObjectDef,
    verb: Verb,
    aim: Aim,
    passed: &mut Option<Passed>,
) -> Result<view::Resolved, Refusal> {
    // Taken apart: where it leads is moved out, not copied.
    let Aim { path, segs, dest } = aim;
    let Some(segs) = &segs else {
        return Err(refuse(errno::INVALID, format!("malformed path `{path}`")));
    };
    let known = matches!(passed, Some((s, v)) if *v == verb && Arc::ptr_eq(s, segs));
    let allowed = known || allows(model, &object.needs, verb, segs);
    if allowed && !known {
        *passed = Some((segs.clone(), verb));
    }
    if !allowed {
        return Err(refuse(
            errno::FORBIDDEN,
            format!("`{name}` does not need {} {}", verb.as_str(), text(segs)),
        ));
    }
    dest.ok_or_else(|| {
        refuse(
            errno::NOT_FOUND,
            format!("nothing is mounted at {}", text(segs)),
        )
    })
}

/// The receiver's side: a request on its way to `path` of instance `to`.
pub fn arrive<'a>(
    party: &dyn Fn(ActorId) -> Party<'a>,
    mut to: ActorId,
    mut path: Arc<[Seg]>,
    mut readonly: bool,
    verb: Verb,
    flags: i32,
) -> Result<Arrival, Refusal> {
    let mut hops = 0;
    loop {
        if readonly && !verb.is_safe() {
            return Err(refuse(
                errno::READ_ONLY,
                format!("{} through a read-only link", verb.as_str()),
            ));
        }
        let p = party(to);
        if p.dead {
            return Err(refuse(
                errno::UNAVAILABLE,
                format!("`{}` has stopped", p.name),
            ));
        }
        let Some((next, there, ro)) = view::resolve(p.exposed, &path) else {
            break;
        };
        hops += 1;
        if hops > MAX_DEPTH {
            return Err(refuse(
                errno::NOT_FOUND,
                format!("exposures lead more than {MAX_DEPTH} deep, or round in a circle"),
            ));
        }
        (to, path, readonly) = (next, there, ro);
    }
    let p = party(to);
    let route = match p.reached {
        Some((s, v, e)) if *v == verb && Arc::ptr_eq(s, &path) => Route::Entry(*e),
        _ => select(p.model, &p.object.serves, verb, &path),
    };
    // Only refusals say where: the text is made for them alone, not for
    // every request that arrives.
    let at = || text(&path);
    match route {
        Route::Nothing => Err(refuse(
            errno::NOT_FOUND,
            format!("`{}` serves nothing at {}", p.name, at()),
        )),
        Route::OtherVerbs(_) => Err(refuse(
            errno::NOT_SUPPORTED,
            format!("`{}` serves {}, but not {}", p.name, at(), verb.as_str()),
        )),
        Route::Entry(e) => {
            let entry = p.model.entry(e);
            if entry.operator && flags & abi::OPERATOR == 0 {
                return Err(refuse(
                    errno::FORBIDDEN,
                    format!("only the operator may {} {}", verb.as_str(), at()),
                ));
            }
            Ok(Arrival {
                to,
                path,
                entry: e,
                stream: entry.stream || verb.always_streams(),
            })
        }
    }
}
