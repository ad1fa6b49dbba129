//! One case: a fresh instance of the object, started, then sent a few
//! generated requests one after another, each run until nothing is left
//! to deliver; every party around it played here. Its needs are met by
//! stubs ([`crate::stubs`]); what it answers is checked as it comes.

use std::collections::{HashMap, VecDeque};

use othc::model::{EntryId, Model, ObjectDef, Verb};
use othismo_runtime::abi::{Errno, Failure, RequestId, Ticket};
use othismo_runtime::probe::{Call, Carried, Probe, Stopped};
use othismo_runtime::{Payload, probe};

use crate::choices::Choices;
use crate::explore::Ran;
use crate::findings::{During, Kind};
use crate::inputs::{self, Input, Request};
use crate::judge;
use crate::stubs::{self, Delivery};

/// Answers delivered in one case past which it is said never to settle.
const MOST_DELIVERIES: usize = 2_000;

/// What is tested: an object's header and its compiled module.
pub struct Subject<'a> {
    pub model: &'a Model,
    pub object: &'a ObjectDef,
    pub module: &'a probe::Module,
    /// Check that a write then a read of its path gives the write back.
    pub round_trip: bool,
}

/// A request of the case, as it is being answered.
struct Tracked {
    stream: bool,
    /// Its last answer came (or an error, or it was handed on).
    ended: bool,
    /// It was failed.
    failed: bool,
}

/// Runs a case whose first request goes to `first` (none: an object that
/// serves nothing is started, and its needs answered, only).
pub fn run(s: &Subject, first: Option<EntryId>, c: &mut Choices) -> Ran {
    let mut ran = run_world(s, first, c);
    if let Some((Kind::Stopped { why, .. }, _)) = &ran.failed {
        ran.trace
            .push(format!("✗ stopped: {}", why.replace('\n', "\n    ")));
    }
    ran
}

fn run_world(s: &Subject, first: Option<EntryId>, c: &mut Choices) -> Ran {
    let mut w = World {
        s,
        pending: VecDeque::new(),
        tracked: HashMap::new(),
        trace: Vec::new(),
        delivered: 0,
        codes: HashMap::new(),
        requests: Vec::new(),
        answers: HashMap::new(),
    };
    let failed = w.run(first, c).err();
    let checked = w.requests.len();
    Ran {
        requests: w.requests,
        failed,
        trace: w.trace,
        checked,
        startup: None,
    }
}

struct World<'a, 'b> {
    s: &'b Subject<'a>,
    /// Answers and errors on their way to the instance's requests.
    pending: VecDeque<Delivery>,
    /// The case's requests, by id.
    tracked: HashMap<RequestId, Tracked>,
    trace: Vec<String>,
    delivered: usize,
    /// The code each errno was failed with.
    codes: HashMap<Errno, String>,
    requests: Vec<Request>,
    /// What each request was answered with (kept for the round trip).
    answers: HashMap<RequestId, Vec<Payload>>,
}

/// A failure and the request it happened on.
type Failed = (Kind, Option<usize>);

impl World<'_, '_> {
    fn note(&mut self, line: String) {
        if self.trace.len() < 400 {
            self.trace.push(line);
        }
    }

    fn run(&mut self, first: Option<EntryId>, c: &mut Choices) -> Result<(), Failed> {
        let mut probe = self.s.module.instance().map_err(|e| {
            (
                Kind::Stopped {
                    during: During::Start,
                    why: e.to_string(),
                },
                None,
            )
        })?;
        self.note("start".into());
        let asked = probe.start().map_err(|Stopped(why)| {
            (
                Kind::Stopped {
                    during: During::Start,
                    why,
                },
                None,
            )
        })?;
        self.settle(&mut probe, asked, c, None)?;
        let Some(first) = first else {
            return Ok(());
        };
        let serves = &self.s.object.serves;
        let n = 1 + c.below(3) as usize;
        for k in 0..n {
            let entry = if k == 0 {
                first
            } else {
                serves[c.below(serves.len() as u64) as usize]
            };
            let req = inputs::request(self.s.model, self.s.object, entry, c);
            self.serve(&mut probe, req, c)?;
        }
        Ok(())
    }

    /// Sends `req` (request `k` of the case), runs until nothing is left to
    /// deliver, and checks it was answered as its entry says.
    fn serve(&mut self, probe: &mut Probe, req: Request, c: &mut Choices) -> Result<(), Failed> {
        let k = self.requests.len();
        let id = id_of(k);
        let e = self.s.model.entry(req.entry);
        let stream = e.stream || req.verb.always_streams();
        let described = req.describe();
        self.note(format!("→ #{id} {described}"));
        self.tracked.insert(
            id,
            Tracked {
                stream,
                ended: false,
                failed: false,
            },
        );
        let (verb, flags, path, payload) =
            (req.verb, req.flags, req.path.clone(), req.payload.clone());
        self.requests.push(req);
        let during = || During::Request(k + 1, described.clone());
        let asked = probe
            .serve(id, verb, flags, &path, &payload)
            .map_err(|Stopped(why)| {
                (
                    Kind::Stopped {
                        during: during(),
                        why,
                    },
                    Some(k),
                )
            })?;
        self.settle(probe, asked, c, Some(k))?;
        if self.tracked[&id].ended {
            return self.round_trip(probe, k, c);
        }
        if verb == Verb::Watch {
            // A watch ends when its caller gives up.
            self.note(format!("→ cancel #{id}"));
            let asked = probe.cancel(id).map_err(|Stopped(why)| {
                (
                    Kind::Stopped {
                        during: during(),
                        why,
                    },
                    Some(k),
                )
            })?;
            if let Some(t) = self.tracked.get_mut(&id) {
                t.ended = true;
            }
            return self.settle(probe, asked, c, Some(k));
        }
        Err((Kind::NeverAnswered { stream }, Some(k)))
    }

    /// Acts on what the instance asked, then delivers what is pending,
    /// until nothing is.
    fn settle(
        &mut self,
        probe: &mut Probe,
        mut asked: Vec<Call>,
        c: &mut Choices,
        k: Option<usize>,
    ) -> Result<(), Failed> {
        loop {
            for a in asked.drain(..) {
                self.act(a, c, k)?;
            }
            let Some(d) = self.pending.pop_front() else {
                return Ok(());
            };
            self.delivered += 1;
            if self.delivered > MOST_DELIVERIES {
                return Err((
                    Kind::NeverSettles {
                        deliveries: MOST_DELIVERIES,
                    },
                    k,
                ));
            }
            self.note(format!("  ← {}", d.describe()));
            let during = || match k {
                Some(k) => During::Request(k + 1, self.requests[k].describe()),
                None => During::Start,
            };
            asked = probe
                .respond(d.ticket, &d.response)
                .map_err(|Stopped(why)| {
                    (
                        Kind::Stopped {
                            during: during(),
                            why,
                        },
                        k,
                    )
                })?;
        }
    }

    /// One thing the instance asked for.
    fn act(&mut self, a: Call, c: &mut Choices, k: Option<usize>) -> Result<(), Failed> {
        match a {
            Call::Request {
                ticket,
                verb,
                aim,
                payload,
            } => {
                let path = &aim.path;
                self.note(format!(
                    "  → it asks {} {path} (ticket {ticket})",
                    verb.as_str()
                ));
                let plan = self
                    .stubs()
                    .answer(ticket, verb, path, Some(&payload), c)
                    .map_err(|why| {
                        let request = format!("{} {path}", verb.as_str());
                        (Kind::OutsideNeeds { request, why }, k)
                    })?;
                self.pending.extend(plan);
                Ok(())
            }
            Call::Cancel { ticket } => {
                self.note(format!("  → it cancels ticket {ticket}"));
                self.pending.retain(|d| d.ticket != ticket);
                Ok(())
            }
            Call::Forward { id, aim } => {
                let path = &aim.path;
                self.note(format!("  → it hands #{id} on to {path}"));
                let verb = self.verb_of(id, k)?;
                // The request goes on as sent: a stub answers its caller.
                self.stubs()
                    .answer(Ticket(0), verb, path, None, c)
                    .map_err(|why| {
                        let request = format!("{} {path}", verb.as_str());
                        (Kind::OutsideNeeds { request, why }, k)
                    })?;
                self.end(id, k)
            }
            Call::Answer { id, done, payload } => {
                self.note(format!(
                    "  ← it answers #{id}{}: {}",
                    if done { " (done)" } else { "" },
                    carried(&payload)
                ));
                self.answer(id, done, payload, k)
            }
            Call::Fail { id, failure } => {
                let Failure { errno, code, desc } = &failure;
                self.note(format!("  ← it fails #{id}: {errno} {code}: {desc}"));
                self.fail(id, &failure, k)
            }
        }
    }

    /// The stubs that meet the object's needs.
    fn stubs(&self) -> stubs::Stubs<'_> {
        stubs::Stubs {
            model: self.s.model,
            object: self.s.object,
        }
    }

    /// The verb of request `id` of the case.
    fn verb_of(&self, id: RequestId, k: Option<usize>) -> Result<Verb, Failed> {
        let at = usize::try_from(id.0 - 1)
            .ok()
            .filter(|&i| i < self.requests.len());
        match at {
            Some(i) if !self.tracked[&id].ended => Ok(self.requests[i].verb),
            _ => Err((
                Kind::AnsweredAgain {
                    what: format!("handed on request #{id}, which it was not serving"),
                },
                k,
            )),
        }
    }

    /// Request `id` has had its last answer.
    fn end(&mut self, id: RequestId, k: Option<usize>) -> Result<(), Failed> {
        match self.tracked.get_mut(&id) {
            Some(t) if !t.ended => {
                t.ended = true;
                Ok(())
            }
            _ => Err((
                Kind::AnsweredAgain {
                    what: format!("answered request #{id} after its last answer"),
                },
                k,
            )),
        }
    }

    fn answer(
        &mut self,
        id: RequestId,
        done: bool,
        payload: Carried,
        k: Option<usize>,
    ) -> Result<(), Failed> {
        let Some(i) = usize::try_from(id.0 - 1)
            .ok()
            .filter(|&i| i < self.requests.len())
        else {
            return Err((
                Kind::AnsweredAgain {
                    what: format!("answered request #{id}, which it was never sent"),
                },
                k,
            ));
        };
        let stream = match self.tracked.get(&id) {
            Some(t) if !t.ended => t.stream,
            _ => {
                return Err((
                    Kind::AnsweredAgain {
                        what: format!(
                            "answered `{} {}` again after its last answer",
                            self.requests[i].verb.as_str(),
                            self.requests[i].path
                        ),
                    },
                    Some(i),
                ));
            }
        };
        let carried = match &payload {
            Carried::None => Ok(None),
            Carried::Some(p) => Ok(Some(p)),
            Carried::TooLarge(n) => Err(*n),
        };
        if let Some(kind) = judge::answer(self.s.model, &self.requests[i], stream, done, carried) {
            return Err((kind, Some(i)));
        }
        if let Some(t) = self.tracked.get_mut(&id)
            && (done || !stream)
        {
            t.ended = true;
        }
        if self.s.round_trip
            && let Carried::Some(p) = payload
        {
            self.answers.entry(id).or_default().push(p);
        }
        Ok(())
    }

    fn fail(&mut self, id: RequestId, failure: &Failure, k: Option<usize>) -> Result<(), Failed> {
        let at = usize::try_from(id.0 - 1)
            .ok()
            .filter(|&i| i < self.requests.len());
        if let Some(kind) = judge::error(&mut self.codes, failure) {
            return Err((kind, at.or(k)));
        }
        if let Some(t) = self.tracked.get_mut(&id) {
            t.failed = true;
        }
        match at {
            Some(i) => self.end(id, Some(i)),
            None => self.end(id, k),
        }
    }
}

impl World<'_, '_> {
    /// After a write (request `k`) that was taken and answered: a read of
    /// the same path, if the object serves one, must give the write back.
    fn round_trip(&mut self, probe: &mut Probe, k: usize, c: &mut Choices) -> Result<(), Failed> {
        let req = &self.requests[k];
        let id = id_of(k);
        if !self.s.round_trip
            || req.verb != Verb::Write
            || req.input != Input::Taken
            || self.tracked[&id].failed
        {
            return Ok(());
        }
        let Some(written) = req.payload.clone() else {
            return Ok(());
        };
        let Some(segs) = othc::namespace::path::parse_request(&req.path) else {
            return Ok(());
        };
        let model = self.s.model;
        let route = othc::namespace::route::select(model, &self.s.object.serves, Verb::Read, &segs);
        let othc::namespace::route::Route::Entry(entry) = route else {
            return Ok(());
        };
        let read = Request {
            entry,
            verb: Verb::Read,
            path: req.path.clone(),
            flags: if model.entry(entry).operator {
                othismo_runtime::abi::OPERATOR
            } else {
                0
            },
            payload: None,
            input: Input::Taken,
            wrong: None,
        };
        let r = self.requests.len();
        self.serve(probe, read, c)?;
        let read_id = id_of(r);
        if self.tracked[&read_id].failed {
            return Err((
                Kind::RoundTrip {
                    why: format!(
                        "the read of {} failed after the write succeeded",
                        self.requests[r].path
                    ),
                },
                Some(r),
            ));
        }
        let parts = self.answers.remove(&read_id).unwrap_or_default();
        let mut data = Vec::new();
        for p in &parts {
            data.extend_from_slice(&p.data);
        }
        let ct = parts
            .first()
            .map(|p| p.content_type.to_string())
            .unwrap_or_default();
        match crate::round_trip::differs(&written, &ct, &data) {
            None => Ok(()),
            Some(why) => Err((Kind::RoundTrip { why }, Some(k))),
        }
    }
}

/// A carried payload, for the trace.
fn carried(p: &Carried) -> String {
    match p {
        Carried::None => "no payload".into(),
        Carried::Some(p) => format!("{} ({} bytes)", p.content_type, p.data.len()),
        Carried::TooLarge(n) => format!("{n} bytes, over the limit"),
    }
}

/// The id request `k` of a case is served under: its position, from 1.
fn id_of(k: usize) -> RequestId {
    RequestId(k as i32 + 1)
}
