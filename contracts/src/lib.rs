//! `othc test`: contract tests generated from an object's header (book:
//! reference/testing.md). Every serves entry is sent generated requests
//! (every verb it serves, paths its pattern covers, payloads it takes and
//! payloads it does not); its needs are met by stubs that answer as the
//! need entries declare; what it answers is held to what its entries
//! declare. A case is a fresh instance of the module (the runtime's own
//! host, limits and stop reasons: `othismo_runtime::probe`), started and
//! sent one to three requests; a case that fails is shrunk to the smallest
//! one that fails the same way, and its seed replays it.
//!
//! Files: `choices` (the random choices every value comes from, and
//! shrinking them), `values` (BSON values of schema types), `inputs`
//! (requests of an entry), `stubs` (the needs), `conform` (is a payload
//! what a type declares), `case` (one case run), `findings` (what is
//! found, as diagnostics), `explore` (the loop an object and an image are
//! both explored by), `image` (an image through its exports), `report`
//! (JSON lines, JUnit XML).

pub mod case;
pub mod choices;
pub mod conform;
pub mod explore;
pub mod findings;
pub mod formats;
pub mod image;
pub mod inputs;
pub mod judge;
pub mod report;
mod round_trip;
pub mod stubs;
pub mod values;

use othc::check::Checked;
use othc::model::{EntryId, ObjectId};
use othismo_runtime::probe;

use choices::Choices;
use explore::Ran;
use findings::{Finding, Kind};

/// How a run goes.
#[derive(Clone, Debug)]
pub struct Options {
    /// Cases per object, spread over its serves entries in turn.
    pub cases: u64,
    pub seed: u64,
    /// Hold a write then a read of the same path to giving the write back.
    pub round_trip: bool,
    /// Re-runs allowed to shrink one failing case.
    pub shrink_budget: usize,
    /// Keep what happened in this case, found or not (`othc test --show`).
    pub show: Option<u64>,
}

/// A finding with what replays it.
#[derive(Clone, Debug)]
pub struct Failure {
    pub finding: Finding,
    /// The case it was found in (with the run's seed, replays it).
    pub case: u64,
    /// The requests of the shrunk case, described.
    pub requests: Vec<String>,
    /// What happened in the shrunk case, a line per step.
    pub trace: Vec<String>,
}

/// What testing one object found.
#[derive(Clone, Debug)]
pub struct Report {
    pub object: String,
    /// Each serves entry (`read /greeting`) and how many cases began with it.
    pub entries: Vec<(String, u64)>,
    /// Requests sent and checked, shrinking aside.
    pub requests: usize,
    pub cases: u64,
    pub failures: Vec<Failure>,
    /// What happened in the case `Options::show` asked for, if it ran.
    pub shown: Option<Vec<String>>,
}

/// `verb /path` of entry `e`, as findings name it.
pub fn entry_text(checked: &Checked, e: EntryId) -> String {
    let entry = checked.model.entry(e);
    format!("{} {}", entry.verb.as_str(), entry.path)
}

/// Tests object `o` of `checked`, compiled as `module`.
pub fn test_object(
    checked: &Checked,
    o: ObjectId,
    module: &probe::Module,
    opts: &Options,
) -> Report {
    let object = checked.model.object(o);
    let subject = ObjectSubject {
        checked,
        o,
        case: case::Subject {
            model: &checked.model,
            object,
            module,
            round_trip: opts.round_trip,
        },
    };
    explore::explore(&subject, opts)
}

/// An object explored: its serves entries, each case a fresh instance.
struct ObjectSubject<'a> {
    checked: &'a Checked,
    o: ObjectId,
    case: case::Subject<'a>,
}

impl explore::Subject for ObjectSubject<'_> {
    fn name(&self) -> String {
        self.case.object.name.clone()
    }

    fn entries(&self) -> Vec<String> {
        let serves = &self.case.object.serves;
        serves
            .iter()
            .map(|&e| entry_text(self.checked, e))
            .collect()
    }

    fn run(&self, first: Option<usize>, c: &mut Choices) -> Ran {
        let first = first.and_then(|slot| self.case.object.serves.get(slot).copied());
        case::run(&self.case, first, c)
    }

    fn finding(&self, ran: &Ran) -> Option<Finding> {
        finding(self.checked, self.o, ran)
    }

    /// The entry a failing request went to is tested no further either.
    fn broken_entry(&self, ran: &Ran, k: usize) -> Option<usize> {
        let entry = ran.requests.get(k)?.entry;
        self.case.object.serves.iter().position(|e| *e == entry)
    }
}

/// The finding a case made, placed in the header.
fn finding(checked: &Checked, o: ObjectId, ran: &Ran) -> Option<Finding> {
    let (kind, k) = ran.failed.clone()?;
    let object = checked.model.object(o);
    let object_at = checked.spans.objects[o.index()].name;
    let request = k.and_then(|k| ran.requests.get(k));
    let (entry, at) = match (&kind, request) {
        // What it asked of its needs is the object's, not an entry's.
        (Kind::OutsideNeeds { .. }, _) | (_, None) => (None, object_at),
        (_, Some(r)) => (
            Some(entry_text(checked, r.entry)),
            checked.spans.entries[r.entry.index()].whole,
        ),
    };
    let input = inputs::described(&ran.requests);
    Some(Finding {
        kind,
        object: object.name.clone(),
        entry,
        at,
        input,
    })
}
