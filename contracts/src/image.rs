//! `othc test --image`: an image tested from outside, through its exports.
//! Each exported path of each serves entry behind an export is an entry of
//! the image's contract; a case is a fresh run of the image (its modules'
//! code compiled once, its natives real, its startup requests sent), sent
//! one to three requests through the exports, each run until nothing is
//! left to deliver. What comes back is judged as for an object; an instance
//! that stops is a finding. Its needs are the image's own instances, so a
//! request outside an object's needs is the runtime's to refuse, not this.

use std::collections::HashMap;

use othc::check::Checked;
use othc::model::{EntryId, ImageId, PathPattern, Verb};
use othc::namespace::path::parse_request;
use othc::namespace::route::{Route, select};
use othc::source::FileSpan;
use othismo_runtime::abi::{Errno, Failure};
use othismo_runtime::probe::image::{Came, ImageProbe, NotStarted, Outcome};
use othismo_runtime::{Io, Limits};

use crate::choices::Choices;
use crate::explore::{self, Ran};
use crate::findings::{During, Finding, Kind};
use crate::inputs::{self, Request};
use crate::{Options, Report, judge};

/// A serves entry as the image exports it.
#[derive(Clone, Debug)]
pub struct Exported {
    pub entry: EntryId,
    /// Its pattern in the image's exported tree.
    pub pattern: PathPattern,
    /// `verb /exported/path`, as findings name it.
    pub name: String,
}

/// The entries image `id` exports: each serves entry of an exported
/// instance under the export's path, at its exported path; unsafe verbs
/// through a read-only export left out (the runtime refuses them), and
/// unless `writes`, left out everywhere (they change what the image keeps:
/// its files, say).
pub fn exported(checked: &Checked, id: ImageId, writes: bool) -> Vec<Exported> {
    let model = &checked.model;
    let Some(flat) = checked.namespace.flat(id) else {
        return Vec::new();
    };
    (flat.exported_entries(model).into_iter())
        .filter(|x| (writes && !x.readonly) || model.entry(x.entry).verb.is_safe())
        .map(|x| Exported {
            entry: x.entry,
            name: format!("{} {}", model.entry(x.entry).verb.as_str(), x.pattern),
            pattern: x.pattern,
        })
        .collect()
}

/// Where the image's exports take `path` for `verb`: the serves entry it
/// reaches, as the runtime routes it (the namespace's export rule).
fn reached(checked: &Checked, id: ImageId, verb: Verb, path: &str) -> Option<EntryId> {
    let model = &checked.model;
    let flat = checked.namespace.flat(id)?;
    let segs = parse_request(path)?;
    let (link, rest) = flat.export_for(&segs)?;
    let there = link.path.join(rest);
    let o = flat.object_of(model, &link.target)?;
    match select(model, &model.object(o).serves, verb, &there.segs) {
        Route::Entry(e) => Some(e),
        _ => None,
    }
}

/// Compiles each module of `bundle` once into `dir`, as
/// `othismo_runtime::code` names them: every case's run loads the code
/// from there instead of compiling it again.
pub fn compile_code(bundle: &[u8], dir: &std::path::Path) -> Result<(), String> {
    let (_, modules) = othc::bundle::read(bundle)?;
    std::fs::create_dir_all(dir).map_err(|e| format!("cannot create `{}`: {e}", dir.display()))?;
    for (_, wasm) in &modules {
        let code = othismo_runtime::code::precompile(wasm)?;
        let path = dir.join(othismo_runtime::code::file_name(wasm));
        // Whole or not at all: a run killed mid-write leaves no cut-short
        // code for the next run to load.
        write_whole::write_whole(&path, code)
            .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    }
    Ok(())
}

/// What is tested: a checked image and its bundle.
pub struct Subject<'a> {
    pub checked: &'a Checked,
    pub image: ImageId,
    pub bundle: &'a [u8],
    /// The modules' code, compiled once (`othismo_runtime::code`).
    pub code: &'a std::path::Path,
    pub entries: Vec<Exported>,
}

/// Tests image `s` as `opts` says.
pub fn test_image(s: &Subject, opts: &Options) -> Report {
    explore::explore(s, opts)
}

impl explore::Subject for Subject<'_> {
    fn name(&self) -> String {
        self.checked.model.image(self.image).name.clone()
    }

    fn entries(&self) -> Vec<String> {
        self.entries.iter().map(|e| e.name.clone()).collect()
    }

    fn run(&self, first: Option<usize>, c: &mut Choices) -> Ran {
        let mut ran = run(self, first.unwrap_or(0), c);
        ran.checked = ran.requests.len();
        ran
    }

    fn finding(&self, ran: &Ran) -> Option<Finding> {
        finding(self, ran)
    }
}

/// A case whose first request goes to exported entry `first`.
fn run(s: &Subject, first: usize, c: &mut Choices) -> Ran {
    let mut ran = Ran::new();
    let (mut out, mut err) = (std::io::sink(), std::io::sink());
    let io = Io {
        input: Box::new(std::iter::empty()),
        out: &mut out,
        err: &mut err,
        trace: None,
    };
    let mut probe = match ImageProbe::load(s.bundle, Limits::default(), io, Some(s.code)) {
        Ok(p) => p,
        Err(e) => {
            ran.failed = Some((
                Kind::Stopped {
                    during: During::Start,
                    why: e.to_string(),
                },
                None,
            ));
            return ran;
        }
    };
    ran.trace.push("start (its startup requests sent)".into());
    if let Err(e) = probe.start() {
        let mut during = During::Start;
        if let NotStarted::StartupFailed { index, .. } = &e {
            ran.startup = Some(*index);
            during = During::StartupRequest;
        }
        let why = e.to_string();
        ran.trace.push(format!("✗ {why}"));
        ran.failed = Some((Kind::Stopped { during, why }, None));
        return ran;
    }
    if s.entries.is_empty() {
        return ran;
    }
    let mut judge = Judge {
        model: &s.checked.model,
        codes: HashMap::new(),
    };
    for k in 0..1 + c.below(3) as usize {
        let at = if k == 0 {
            first
        } else {
            c.below(s.entries.len() as u64) as usize
        };
        let ex = &s.entries[at];
        let verb = s.checked.model.entry(ex.entry).verb;
        let reaches = |p: &str| reached(s.checked, s.image, verb, p) == Some(ex.entry);
        let req = inputs::request_at(&s.checked.model, ex.entry, &ex.pattern, &reaches, c);
        ran.trace.push(format!("→ #{} {}", k + 1, req.describe()));
        let outcome = probe.send(req.verb, req.flags, &req.path, req.payload.clone());
        ran.requests.push(req);
        let judged = judge.outcome(k, &ran.requests[k], &outcome, &mut ran.trace, &mut probe);
        if let Err(kind) = judged {
            ran.failed = Some((kind, Some(k)));
            return ran;
        }
    }
    ran
}

/// What judges a case's outcomes: the image's model, and the code each
/// errno was failed with so far.
struct Judge<'m> {
    model: &'m othc::model::Model,
    codes: HashMap<Errno, String>,
}

impl Judge<'_> {
    /// What came back to `req` (request `k` of the case), judged; its
    /// trace written on `trace`, a watch left open cancelled through
    /// `probe`.
    fn outcome(
        &mut self,
        k: usize,
        req: &Request,
        outcome: &Outcome,
        trace: &mut Vec<String>,
        probe: &mut ImageProbe,
    ) -> Result<(), Kind> {
        let model = self.model;
        let e = model.entry(req.entry);
        let stream = e.stream || req.verb.always_streams();
        let mut ended = false;
        for came in &outcome.came {
            if ended {
                return Err(Kind::AnsweredAgain {
                    what: format!(
                        "answered `{} {}` again after its last answer",
                        req.verb.as_str(),
                        req.path
                    ),
                });
            }
            match came {
                Came::Answer { done, payload } => {
                    trace.push(format!(
                        "  ← answer{}: {}",
                        if *done { " (done)" } else { "" },
                        payload.as_ref().map_or("no payload".into(), |p| format!(
                            "{} ({} bytes)",
                            p.content_type,
                            p.data.len()
                        ))
                    ));
                    if let Some(kind) =
                        judge::answer(model, req, stream, *done, Ok(payload.as_ref()))
                    {
                        return Err(kind);
                    }
                    ended = *done || !stream;
                }
                Came::Error(failure) => {
                    let Failure { errno, code, desc } = failure;
                    trace.push(format!("  ← error {errno} {code}: {desc}"));
                    // The runtime's own refusals are not the image's answers.
                    if let Some(kind) = judge::error(&mut self.codes, failure) {
                        return Err(kind);
                    }
                    ended = true;
                }
            }
        }
        if let Some(why) = outcome.stopped.first() {
            trace.push(format!("✗ {}", why.replace('\n', "\n    ")));
            return Err(Kind::Stopped {
                during: During::Request(k + 1, req.describe()),
                why: why.clone(),
            });
        }
        if ended {
            return Ok(());
        }
        if req.verb == Verb::Watch {
            trace.push("→ cancel".into());
            let after = probe.cancel();
            if let Some(why) = after.stopped.first() {
                return Err(Kind::Stopped {
                    during: During::Request(k + 1, req.describe()),
                    why: why.clone(),
                });
            }
            return Ok(());
        }
        Err(Kind::NeverAnswered { stream })
    }
}

/// Where startup request `n` of the flattened image is written.
fn startup_at(s: &Subject, n: Option<usize>) -> Option<FileSpan> {
    let flat = s.checked.namespace.flat(s.image)?;
    let (img, si) = flat.startup.get(n?)?.decl;
    Some(s.checked.spans.images[img.index()].startup.get(si)?.whole)
}

/// The finding a case made, placed at the entry behind the export.
fn finding(s: &Subject, ran: &Ran) -> Option<Finding> {
    let (kind, k) = ran.failed.clone()?;
    let model = &s.checked.model;
    let image_at = s.checked.spans.images[s.image.index()].name;
    let request = k.and_then(|k| ran.requests.get(k));
    let (entry, at) = match request {
        None => (None, startup_at(s, ran.startup).unwrap_or(image_at)),
        Some(r) => {
            let name = s
                .entries
                .iter()
                .find(|e| e.entry == r.entry)
                .map(|e| e.name.clone());
            (name, s.checked.spans.entries[r.entry.index()].whole)
        }
    };
    let input = inputs::described(&ran.requests);
    Some(Finding {
        kind,
        object: model.image(s.image).name.clone(),
        entry,
        at,
        input,
    })
}
