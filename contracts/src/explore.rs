//! The loop every subject of `othc test` is explored by: cases spread over
//! its entries in turn (each case's first request goes to the next entry),
//! an entry that failed tested no further, each failing case shrunk to the
//! smallest choices that fail the same way and run once more for its
//! trace, findings kept once each. An object (its serves entries) and an
//! image (the entries it exports) differ only in how a case runs and how
//! its finding is placed: `Subject`.

use crate::choices::{Choices, case_seed, shrink};
use crate::findings::{Finding, Kind};
use crate::inputs::Request;
use crate::{Failure, Options, Report};

/// What one case did.
pub struct Ran {
    pub requests: Vec<Request>,
    /// What went wrong, and the request it went wrong on (an index into
    /// `requests`), if it went wrong.
    pub failed: Option<(Kind, Option<usize>)>,
    pub trace: Vec<String>,
    /// Requests delivered and checked.
    pub checked: usize,
    /// The startup request (its place in the image's flattened list) the
    /// case went wrong on, when it went wrong before any request of its
    /// own.
    pub startup: Option<usize>,
}

impl Ran {
    pub fn new() -> Ran {
        Ran {
            requests: Vec::new(),
            failed: None,
            trace: Vec::new(),
            checked: 0,
            startup: None,
        }
    }
}

impl Default for Ran {
    fn default() -> Ran {
        Ran::new()
    }
}

/// What is explored.
pub trait Subject {
    /// What the report names: the object or the image.
    fn name(&self) -> String;
    /// Its entries' names (`read /greeting`), in the order cases take them.
    fn entries(&self) -> Vec<String>;
    /// A case whose first request goes to entry `first` (none: there are
    /// no entries, and the subject is only started).
    fn run(&self, first: Option<usize>, c: &mut Choices) -> Ran;
    /// The finding a case made, placed in the source.
    fn finding(&self, ran: &Ran) -> Option<Finding>;
    /// The entry request `k` of `ran` went to, when a finding there also
    /// ends that entry's testing (an object's); `None` otherwise.
    fn broken_entry(&self, _ran: &Ran, _k: usize) -> Option<usize> {
        None
    }
}

/// Explores `s` as `opts` says.
pub fn explore(s: &impl Subject, opts: &Options) -> Report {
    let names = s.entries();
    let mut report = Report {
        object: s.name(),
        entries: names.into_iter().map(|n| (n, 0)).collect(),
        requests: 0,
        cases: 0,
        failures: Vec::new(),
        shown: None,
    };
    let count = report.entries.len();
    let first_of = |slot: usize| (count > 0).then_some(slot);
    // An entry that failed is not tested further: its finding is enough.
    let mut failed = vec![false; count.max(1)];
    for n in 0..opts.cases {
        let slot = if count == 0 {
            0
        } else {
            (n % count as u64) as usize
        };
        if failed[slot] {
            if failed.iter().all(|f| *f) {
                break;
            }
            continue;
        }
        let mut c = Choices::new(case_seed(opts.seed, n));
        let ran = s.run(first_of(slot), &mut c);
        report.cases += 1;
        report.requests += ran.checked;
        if opts.show == Some(n) {
            report.shown = Some(ran.trace.clone());
        }
        if let Some(e) = report.entries.get_mut(slot) {
            e.1 += 1;
        }
        let Some(found) = s.finding(&ran) else {
            continue;
        };
        failed[slot] = true;
        // The smallest choices that fail the same way.
        let best = shrink(c.record, opts.shrink_budget, |candidate| {
            let ran = s.run(first_of(slot), &mut Choices::replaying(candidate.to_vec()));
            s.finding(&ran).is_some_and(|f| f.same_as(&found))
        });
        let ran = s.run(first_of(slot), &mut Choices::replaying(best));
        let finding = s.finding(&ran).unwrap_or(found);
        if let Some(k) = ran.failed.as_ref().and_then(|f| f.1)
            && let Some(at) = s.broken_entry(&ran, k)
        {
            failed[at] = true;
        }
        if report.failures.iter().any(|f| f.finding.same_as(&finding)) {
            continue;
        }
        report.failures.push(Failure {
            finding,
            case: n,
            requests: ran.requests.iter().map(Request::describe).collect(),
            trace: ran.trace,
        });
    }
    report
}
