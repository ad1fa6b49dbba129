//! Which serves entry a request reaches: of the entries with its verb whose
//! pattern covers its path, the most specific (literal over `{name}` over
//! `**`, segment by segment; of equally specific ones, the first written).
//! The checker asks it for a need's path, the runtime for every request.

use super::path::{path_covers, specificity};
use crate::model::{EntryDef, EntryId, Model, Seg, Verb};

/// Where a request goes among an object's serves entries.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Route {
    /// The entry that answers it.
    Entry(EntryId),
    /// Entries cover the path, but none with this verb: these verbs, in
    /// wire order.
    OtherVerbs(Vec<Verb>),
    /// No entry covers the path.
    Nothing,
}

/// Routes `verb path` among `entries`.
pub fn select(model: &Model, entries: &[EntryId], verb: Verb, path: &[Seg]) -> Route {
    let mut best: Option<(EntryId, &EntryDef)> = None;
    let mut covered = false;
    for &id in entries {
        let e = model.entry(id);
        if !path_covers(&e.path.segs, path) {
            continue;
        }
        covered = true;
        if e.verb == verb
            && best.is_none_or(|(_, b)| specificity(&e.path.segs) < specificity(&b.path.segs))
        {
            best = Some((id, e));
        }
    }
    if let Some((id, _)) = best {
        return Route::Entry(id);
    }
    if !covered {
        return Route::Nothing;
    }
    let mut verbs: Vec<Verb> = entries
        .iter()
        .map(|e| model.entry(*e))
        .filter(|d| path_covers(&d.path.segs, path))
        .map(|d| d.verb)
        .collect();
    verbs.sort_by_key(|v| v.wire());
    verbs.dedup();
    Route::OtherVerbs(verbs)
}
