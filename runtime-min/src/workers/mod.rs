//! Every core (`--workers N`, book: reference/running.md): the long calls
//! into instances (`Cost`), and a slow disk's work, run on N worker
//! threads, while the event loop makes the short calls and keeps
//! everything else (routing, every rule and limit, the tables of requests)
//! on its own thread, as with one worker.
//!
//! An instance out on a worker is *busy*: what reaches it meanwhile waits
//! in its mailbox, in the order it came, and is delivered when the call
//! returns. So an instance is single-threaded and never re-entered,
//! deliveries to one instance keep the queue's order, and one sender's
//! requests to one receiver arrive in the order it sent them (it sends in
//! order; the queue and the mailbox are first in, first out). Between
//! instances there is no order: with several workers a run is no longer
//! deterministic, which is why tests that compare traces use one worker
//! (then every call is made on the loop's thread, as before).
//!
//! What the workers finish is told through a `Done` the runtime gives the
//! pool: the channel everything from outside comes on, so the loop waits
//! on one thing (`Inbox::worker_done`).

use std::sync::Arc;
use std::time::{Duration, Instant};

use othc::model::{Seg, Verb};

use crate::ActorId;
use crate::abi::{RequestId, Response, Ticket};
use crate::host::Wasm;
use crate::natives::files::{Files, SLOW_DISK, Stream};
use crate::natives::{self, Reply};
use crate::stall::Wait;
use crate::{Body, Payload, Runtime, Serving};

mod pool;
pub(crate) use pool::{Done, Failed, Workers};

/// One call into an instance, with what it carries.
pub(crate) enum Delivery {
    Serve {
        id: RequestId,
        verb: Verb,
        flags: i32,
        path: String,
        payload: Option<Payload>,
    },
    Respond {
        ticket: Ticket,
        response: Response<Payload>,
    },
    Cancel {
        id: RequestId,
    },
}

impl Delivery {
    fn run(&self, w: &mut Wasm) -> wasmtime::Result<()> {
        match self {
            Delivery::Serve {
                id,
                verb,
                flags,
                path,
                payload,
            } => w.serve(*id, verb.wire(), *flags, path, payload),
            Delivery::Respond { ticket, response } => w.respond(*ticket, response),
            Delivery::Cancel { id } => w.cancel(*id),
        }
    }
}

/// What an instance's calls take: a moving average of their times, each
/// call weighing 1/`WEIGHT`. A call handed to a worker costs two thread
/// switches (the worker woken, then the loop woken with the result), more
/// than a call of a few microseconds itself (a web server's, a file's
/// look-up), which is made faster where it is. So an instance's calls go
/// to workers once they average `--long-call` (100 µs) or more, and come
/// back to the loop's thread once they average under half of it (two
/// lines, so an average near one does not flip at every call).
///
/// Each call counts for at most `CLIP` times the line: a short call whose
/// thread was preempted on a busy machine (for milliseconds) moves the
/// average by a few dozen microseconds, not over the line, while calls
/// past the clip are long all the same, and move it over within five.
/// (One delivery in four is timed, `host::TIMED_EVERY`: five timed calls
/// are some twenty.)
#[derive(Default, Clone, Copy)]
pub(crate) struct Cost {
    average: Duration,
    long: bool,
}

impl Cost {
    const WEIGHT: u32 = 32;
    const CLIP: u32 = 8;

    /// Counts a call that took `took`, calls of `long` on average being
    /// long; true when that changed whether they are.
    pub fn add(&mut self, took: Duration, long: Duration) -> bool {
        let w = Self::WEIGHT;
        let took = took.min(long * Self::CLIP);
        self.average = (self.average * (w - 1) + took) / w;
        let now = if self.long {
            self.average >= long / 2
        } else {
            self.average >= long
        };
        std::mem::replace(&mut self.long, now) != now
    }

    pub fn long(&self) -> bool {
        self.long
    }

    pub fn average(&self) -> Duration {
        self.average
    }
}

/// Work for a worker.
pub(crate) enum Job {
    Wasm {
        a: ActorId,
        body: Box<Wasm>,
        delivery: Delivery,
    },
    Files {
        a: ActorId,
        files: Files,
        req: Serving,
        path: Arc<[Seg]>,
        /// The serves entry it reached, by its place in Files' header.
        entry: usize,
        limit: usize,
    },
    /// The next part of stream `t` that instance `a` reads (`pace`).
    Part {
        a: ActorId,
        t: Ticket,
        serial: u64,
        rest: Box<Stream>,
    },
}

/// Work a worker did, on its way back to the loop.
pub(crate) enum Finished {
    Wasm {
        a: ActorId,
        body: Box<Wasm>,
        result: wasmtime::Result<()>,
        delivery: Delivery,
    },
    Files {
        a: ActorId,
        files: Files,
        req: Serving,
        replies: Vec<Reply>,
    },
    Part {
        a: ActorId,
        t: Ticket,
        serial: u64,
        rest: Box<Stream>,
        part: Reply,
    },
}

impl Job {
    /// Does the work, wherever it is.
    fn run(self) -> Finished {
        match self {
            Job::Wasm {
                a,
                mut body,
                delivery,
            } => Finished::Wasm {
                a,
                result: delivery.run(&mut body),
                body,
                delivery,
            },
            Job::Files {
                a,
                mut files,
                req,
                path,
                entry,
                limit,
            } => {
                let began = Instant::now();
                let replies = timed_files(&mut files, &path, entry, &req, limit, began);
                Finished::Files {
                    a,
                    replies,
                    files,
                    req,
                }
            }
            Job::Part {
                a,
                t,
                serial,
                mut rest,
            } => Finished::Part {
                a,
                t,
                serial,
                part: rest.next_part(),
                rest,
            },
        }
    }
}

/// A `Files` request served from `began`, its disk marked slow or not by
/// its time.
fn timed_files(
    files: &mut Files,
    path: &[Seg],
    entry: usize,
    req: &Serving,
    limit: usize,
    began: Instant,
) -> Vec<Reply> {
    let replies = files.serve(natives::files::Request {
        entry,
        path,
        payload: req.payload.as_ref(),
        limit,
        now: began,
    });
    files.slow = began.elapsed() > SLOW_DISK;
    replies
}

impl Runtime<'_> {
    /// Whether the next call into `a` goes to a worker: there are workers,
    /// and `a`'s calls are long (`Cost`). A short call is made here: handing
    /// it over would add two thread switches, which cost more than it. A
    /// long one is never made here, even with every worker busy (it waits
    /// for one): the loop's thread goes on routing, answering and making
    /// the short calls meanwhile, and takes each finished call back as it
    /// comes.
    pub(crate) fn offload(&self, a: ActorId) -> bool {
        self.has_workers() && self.actors[a].cost.long()
    }

    /// Whether there are workers to hand work to (started when first
    /// needed): `--workers` 2 or more, once the run's starts are done.
    pub(crate) fn has_workers(&self) -> bool {
        self.workers.any()
    }

    /// Counts the time of the call into `a` just returned (with several
    /// workers, where calls are timed); `--trace` says when that makes its
    /// calls long enough to go to workers, or short enough to be made here
    /// again (`Cost`).
    pub(crate) fn count_call(&mut self, a: ActorId) {
        let long_call = self.limits.long_call();
        let actor = &mut self.actors[a];
        let Body::Wasm(w) = &mut actor.body else {
            return;
        };
        let Some(took) = w.take_took() else { return };
        if !actor.cost.add(took, long_call) {
            return;
        }
        let (name, micros) = (actor.name.clone(), actor.cost.average().as_micros());
        let now = if actor.cost.long() {
            "made on workers from now on"
        } else {
            "made on the loop's thread from now on"
        };
        self.note(format_args!(
            "{name}: its calls take {micros} µs on average: {now}"
        ));
    }

    /// Makes call `d` into instance `a`: on a worker, or here.
    pub(crate) fn call(&mut self, a: ActorId, d: Delivery) {
        if self.offload(a) {
            let Body::Wasm(body) = std::mem::replace(&mut self.actors[a].body, Body::Away) else {
                unreachable!("a call into an instance that is not a module's");
            };
            self.workers.calls += 1;
            return self.dispatch(
                a,
                Job::Wasm {
                    a,
                    body,
                    delivery: d,
                },
            );
        }
        let Body::Wasm(w) = &mut self.actors[a].body else {
            return;
        };
        let result = d.run(w);
        self.called(a, result, d);
    }

    /// What the `Files` instance `a` does for `req`: on a worker, or here.
    /// A fast disk's work is done here (handing it over costs more than a
    /// stat and a read); a disk seen to be slow always has a worker do it
    /// (waiting for one to be free if need be), so it stalls nobody else.
    pub(crate) fn serve_files(&mut self, a: ActorId, req: Serving, path: Arc<[Seg]>, entry: usize) {
        let limit = self.limits.payload;
        let slow = matches!(&self.actors[a].body, Body::Files(f) if f.slow);
        if slow && self.has_workers() {
            let Body::Files(files) = std::mem::replace(&mut self.actors[a].body, Body::Away) else {
                unreachable!("a Files request to another kind of object");
            };
            let job = Job::Files {
                a,
                files,
                req,
                path,
                entry,
                limit,
            };
            return self.dispatch(a, job);
        }
        let Body::Files(files) = &mut self.actors[a].body else {
            return;
        };
        let waiting = self.stall.begin(a, Wait::Disk);
        let replies = timed_files(files, &path, entry, &req, limit, waiting.began());
        self.stall_over(waiting);
        self.reply(&req, replies);
    }

    /// Hands `job` (instance `a`'s, its body taken) to the workers: `a` is
    /// busy until it is back.
    fn dispatch(&mut self, a: ActorId, job: Job) {
        self.actors[a].busy = true;
        self.send_job(job);
    }

    /// Reads the next part of stream `t` of instance `a` on a worker: the
    /// reader is not busy meanwhile (it may be sent other things), and the
    /// part is delivered when it is back, if the stream is still read.
    pub(crate) fn read_part_away(&mut self, a: ActorId, t: Ticket, serial: u64, rest: Box<Stream>) {
        self.send_job(Job::Part { a, t, serial, rest });
    }

    /// Sends `job` to a free worker; with none free, it waits for one (a
    /// job here is disk work or a call, which a worker finishes). With no
    /// worker at all (they could not be started), it is done here.
    fn send_job(&mut self, job: Job) {
        let inbox = &self.inbox;
        if let Some(job) = self.workers.send(job, || inbox.worker_done()) {
            self.finish(job.run());
        }
    }

    /// A call into `a` has returned: the payload of a request goes back to
    /// where it is kept (a forward sends it on), then what it asked for
    /// is done.
    fn called(&mut self, a: ActorId, result: wasmtime::Result<()>, d: Delivery) {
        match d {
            Delivery::Serve {
                id, path, payload, ..
            } => {
                self.spare.path = path;
                if let Some(s) = self.actors[a].serving.get_mut(&id) {
                    s.payload = payload;
                }
                self.after_call(a, result);
            }
            Delivery::Cancel { id } => {
                self.after_call(a, result);
                // It has been told: from now on an answer to the request is
                // one to a request it is not serving.
                self.actors[a].cancelled.remove(&id);
            }
            Delivery::Respond { .. } => self.after_call(a, result),
        }
    }

    /// A worker's work is back: the instance takes its body again, what it
    /// did is acted on, and its mailbox is delivered.
    pub(crate) fn finish(&mut self, f: Finished) {
        if let Some(job) = self.workers.finished() {
            self.send_job(job);
        }
        let a = match f {
            Finished::Wasm {
                a,
                body,
                result,
                delivery,
            } => {
                self.actors[a].body = Body::Wasm(body);
                self.actors[a].busy = false;
                self.called(a, result, delivery);
                a
            }
            Finished::Files {
                a,
                files,
                req,
                replies,
            } => {
                self.actors[a].body = Body::Files(files);
                self.actors[a].busy = false;
                self.reply(&req, replies);
                a
            }
            Finished::Part {
                a,
                t,
                serial,
                rest,
                part,
            } => return self.part_read(a, t, serial, rest, part),
        };
        while !self.actors[a].busy
            && let Some(e) = self.actors[a].mailbox.pop_front()
        {
            self.deliver(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cost;
    use std::time::Duration;

    const LINE: Duration = Duration::from_micros(100);

    fn us(n: u64) -> Duration {
        Duration::from_micros(n)
    }

    #[test]
    fn short_calls_preempted_now_and_then_stay_short() {
        let mut c = Cost::default();
        for i in 0..10_000 {
            // 5 µs calls; every tenth waited 20 ms for its thread.
            let took = if i % 10 == 0 { us(20_000) } else { us(5) };
            assert!(!c.add(took, LINE), "call {i}: {:?}", c.average());
        }
    }

    #[test]
    fn long_calls_turn_long_within_five_and_short_ones_bring_them_back() {
        let mut c = Cost::default();
        let turned = (1..=10).find(|_| c.add(us(50_000), LINE));
        assert_eq!(turned, Some(5));
        assert!(c.long());
        // Just over half the line, it stays (no flip at every call).
        for _ in 0..200 {
            assert!(!c.add(us(60), LINE));
        }
        assert!((1..=200).any(|_| c.add(us(5), LINE)));
        assert!(!c.long());
    }

    #[test]
    fn calls_just_over_the_line_turn_long() {
        let mut c = Cost::default();
        assert!((1..=500).any(|_| c.add(us(150), LINE)));
        assert!(c.long());
    }

    #[test]
    fn a_line_of_zero_makes_every_call_long() {
        let mut c = Cost::default();
        assert!(c.add(Duration::ZERO, Duration::ZERO));
        assert!(c.long());
    }
}
