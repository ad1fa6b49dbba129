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
//! found, as diagnostics), `report` (JSON lines, JUnit XML).

pub mod case;
pub mod choices;
pub mod conform;
pub mod findings;
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

use choices::{Choices, case_seed, shrink};
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
    let model = &checked.model;
    let object = model.object(o);
    let subject = case::Subject {
        model,
        object,
        module,
        round_trip: opts.round_trip,
    };
    let serves = &object.serves;
    let mut report = Report {
        object: object.name.clone(),
        entries: serves
            .iter()
            .map(|&e| (entry_text(checked, e), 0))
            .collect(),
        requests: 0,
        cases: 0,
        failures: Vec::new(),
        shown: None,
    };
    // An entry that failed is not tested further: its finding is enough.
    let mut failed = vec![false; serves.len().max(1)];
    for n in 0..opts.cases {
        let slot = if serves.is_empty() {
            0
        } else {
            (n % serves.len() as u64) as usize
        };
        if failed[slot] {
            if failed.iter().all(|f| *f) {
                break;
            }
            continue;
        }
        let first = serves.get(slot).copied();
        let seed = case_seed(opts.seed, n);
        let mut c = Choices::new(seed);
        let ran = run_one(&subject, first, &mut c);
        report.cases += 1;
        report.requests += ran.checked;
        if opts.show == Some(n) {
            report.shown = Some(ran.trace.clone());
        }
        if let Some(e) = report.entries.get_mut(slot) {
            e.1 += 1;
        }
        let Some(found) = finding(checked, o, &ran) else {
            continue;
        };
        failed[slot] = true;
        // The smallest choices that fail the same way.
        let best = shrink(c.record, opts.shrink_budget, |candidate| {
            let mut c = Choices::replaying(candidate.to_vec());
            let ran = run_one(&subject, first, &mut c);
            finding(checked, o, &ran).is_some_and(|f| f.same_as(&found))
        });
        let mut c = Choices::replaying(best);
        let ran = run_one(&subject, first, &mut c);
        let finding = finding(checked, o, &ran).unwrap_or(found);
        // The entry it broke is tested no further either.
        if let Some(k) = ran.failed.as_ref().and_then(|f| f.1)
            && let Some(at) = serves.iter().position(|e| *e == ran.requests[k].entry)
        {
            failed[at] = true;
        }
        if report.failures.iter().any(|f| f.finding.same_as(&finding)) {
            continue;
        }
        report.failures.push(Failure {
            finding,
            case: n,
            requests: ran.requests.iter().map(inputs::Request::describe).collect(),
            trace: ran.trace,
        });
    }
    report
}

/// A case whose first request goes to `first` (none: the object serves
/// nothing, and is only started and its needs answered).
fn run_one(s: &case::Subject, first: Option<EntryId>, c: &mut Choices) -> case::Ran {
    case::run(s, first, c)
}

/// The finding a case made, placed in the header.
fn finding(checked: &Checked, o: ObjectId, ran: &case::Ran) -> Option<Finding> {
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
