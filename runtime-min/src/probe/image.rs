//! An image driven from outside through its exports: what `othc test
//! --image` runs. It is a run of the image as `othismo-run` makes it (its
//! natives, its startup requests, every rule and limit, supervision), with
//! one thread of calls, whose event loop is turned by the caller: each
//! request sent through an export runs until nothing is left to deliver,
//! and what came back to it is returned, with the instances that stopped
//! meanwhile.

use othc::model::Verb;

use crate::abi::{Failure, Response, Ticket};
use crate::view::Link;
use crate::{Io, Limits, LoadError, Payload, Runtime, Sender, Serving};

/// What came back to a request from outside.
pub type Came = Response<Payload>;

/// What a run driven from outside has seen since it was last asked.
#[derive(Default)]
pub struct Seen {
    came: Vec<(u32, Came)>,
    pub(crate) stopped: Vec<String>,
    /// The startup request that failed (its place in the bundle's list,
    /// and `verb /path`), with its failure.
    pub(crate) startup_failed: Option<(usize, String, Failure)>,
}

/// Why an image driven from outside cannot serve.
#[derive(Clone, Debug, PartialEq)]
pub enum NotStarted {
    /// Startup request `index` of the bundle's list (`verb /path`:
    /// `request`) failed so.
    StartupFailed {
        index: usize,
        request: String,
        failure: Failure,
    },
    /// An instance stopped past its restarts (`` `name` stopped: why ``).
    Stopped(String),
}

impl std::fmt::Display for NotStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotStarted::StartupFailed {
                request, failure, ..
            } => write!(
                f,
                "startup request {request} failed: {} {}: {}",
                failure.errno, failure.code, failure.desc
            ),
            NotStarted::Stopped(why) => f.write_str(why),
        }
    }
}

/// What sending one request did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Outcome {
    /// Its answers and errors, in order.
    pub came: Vec<Came>,
    /// The instances that stopped while it ran (`` `name` stopped: why ``).
    pub stopped: Vec<String>,
}

/// An image run from outside.
pub struct ImageProbe<'a> {
    rt: Runtime<'a>,
    exports: Vec<Link>,
    next: u32,
}

impl<'a> ImageProbe<'a> {
    /// The image of `bundle`, loaded (its modules compiled, or taken from
    /// `code`), not started. Calls are made on this thread only.
    pub fn load(
        bundle: &[u8],
        mut limits: Limits,
        io: Io<'a>,
        code: Option<&std::path::Path>,
    ) -> Result<ImageProbe<'a>, LoadError> {
        limits.workers = Some(1);
        let mut rt = Runtime::load_with_code(bundle, limits, io, code)?;
        let index: std::collections::HashMap<&str, crate::ActorId> = rt
            .json
            .instances
            .iter()
            .enumerate()
            .map(|(i, inst)| (inst.name.as_str(), crate::ActorId::at(i)))
            .collect();
        let exports = rt
            .json
            .exports
            .iter()
            .map(|l| crate::view::parse_link(l, &index))
            .collect::<Result<Vec<_>, _>>()?;
        rt.probed = Some(Seen::default());
        Ok(ImageProbe {
            rt,
            exports,
            next: 0,
        })
    }

    /// Starts its instances and sends its startup requests, until idle.
    /// `Err` says why it cannot serve: a startup request failed, or an
    /// instance stopped past its restarts.
    pub fn start(&mut self) -> Result<Outcome, NotStarted> {
        let rt = &mut self.rt;
        for a in rt.actors.ids() {
            if let crate::Body::Wasm(w) = &mut rt.actors[a].body {
                let result = w.start();
                rt.after_call(a, result);
            }
        }
        rt.configure(None);
        self.settle();
        let failed = self
            .rt
            .probed
            .as_mut()
            .and_then(|s| s.startup_failed.take());
        let seen = self.seen(None);
        if let Some((index, request, failure)) = failed {
            return Err(NotStarted::StartupFailed {
                index,
                request,
                failure,
            });
        }
        if self.rt.ending.fatal {
            let why = seen
                .stopped
                .last()
                .cloned()
                .unwrap_or_else(|| "it stopped as it started, with no instance stopped".into());
            return Err(NotStarted::Stopped(why));
        }
        Ok(seen)
    }

    /// Sends `verb path` (a path of the image's exports) from outside,
    /// runs until nothing is left to deliver, and says what came back.
    pub fn send(
        &mut self,
        verb: Verb,
        flags: i32,
        path: &str,
        payload: Option<Payload>,
    ) -> Outcome {
        self.next += 1;
        let k = self.next;
        let (to, there, readonly) = match crate::route::through_exports(&self.exports, path) {
            Ok(resolved) => resolved,
            Err(r) => {
                return Outcome {
                    came: vec![Came::Error(Failure::runtime(r.errno, r.desc))],
                    stopped: Vec::new(),
                };
            }
        };
        let req = Serving::sent(Sender::Outside(k), Ticket(k as i32), verb, flags, payload);
        self.rt.deliver_checked(to, req, there, readonly);
        self.settle();
        self.seen(Some(k))
    }

    /// The caller of request `k` gives up on it (a watch, say).
    pub fn cancel(&mut self) -> Outcome {
        let k = self.next;
        self.rt.withdraw(Sender::Outside(k), Some(Ticket(k as i32)));
        self.settle();
        self.seen(Some(k))
    }

    /// Whether the run can serve no more (an instance stopped past its
    /// restarts).
    pub fn over(&self) -> bool {
        self.rt.ending.fatal
    }

    fn settle(&mut self) {
        let rt = &mut self.rt;
        while let Some(e) = rt.queue.pop_front() {
            rt.taken += 1;
            rt.deliver(e);
            rt.forget_dropped();
            if rt.ending.fatal {
                break;
            }
        }
    }

    /// What came back to request `k` (everything that came, for none), and
    /// who stopped, since last asked.
    fn seen(&mut self, k: Option<u32>) -> Outcome {
        let Some(seen) = &mut self.rt.probed else {
            return Outcome::default();
        };
        let came = std::mem::take(&mut seen.came)
            .into_iter()
            .filter(|(x, _)| k.is_none_or(|k| k == *x))
            .map(|(_, c)| c)
            .collect();
        Outcome {
            came,
            stopped: std::mem::take(&mut seen.stopped),
        }
    }
}

impl Runtime<'_> {
    /// An answer or error for request `k` from outside.
    pub(crate) fn came_back(&mut self, k: u32, came: Came) {
        if let Some(p) = &mut self.probed {
            p.came.push((k, came));
        }
    }
}
