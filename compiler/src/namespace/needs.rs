//! Whether an object's needs allow a request it makes: the runtime refuses
//! anything else with `forbidden`. A need for a concrete mount point
//! allows its entries' paths under that mount point; a pattern need
//! (`needs /x/**`) allows them anywhere under its literal prefix, since the
//! object decides at run time where it points them.

use super::path::{path_covers, strip_prefix};
use crate::model::{EntryId, Model, NeedBlock, Seg, Verb};

/// Whether `needs` allow `verb path` (a concrete path in the object's view).
pub fn allows(model: &Model, needs: &[NeedBlock], verb: Verb, path: &[Seg]) -> bool {
    entry_for(model, needs, verb, path).is_some()
}

/// The need entry that allows `verb path`, if one does (the first
/// written): what it declares the request carries and is answered with.
pub fn entry_for(model: &Model, needs: &[NeedBlock], verb: Verb, path: &[Seg]) -> Option<EntryId> {
    needs.iter().find_map(|n| {
        let literal = n.mount.literal_prefix();
        let rest = strip_prefix(path, literal)?;
        let pattern_need = literal.len() != n.mount.segs.len();
        n.entries.iter().copied().find(|&id| {
            let e = model.entry(id);
            e.verb == verb
                && if pattern_need {
                    // Anywhere under the mount point: the entry's path at the end.
                    (0..=rest.len()).any(|k| path_covers(&e.path.segs, &rest[k..]))
                } else {
                    path_covers(&e.path.segs, rest)
                }
        })
    })
}
