//! What the event loop does with what comes from outside (`outside`: the
//! channel): waiting for it when the image is idle, the HTTP events of a
//! turn taken together, console lines handed to their watchers, signals
//! that stop the run, the Http objects' listeners flushed before each
//! wait.

use std::time::{Duration, Instant};

use crate::ActorId;
use crate::abi::Ticket;
use crate::natives::{
    self,
    http::{Http, HttpEvent},
};
use crate::outside::Outside;
use crate::{Body, Event, InputLine, Runtime, Sender, Unfit};

impl Runtime<'_> {
    /// Whether the console has a watcher that input could still reach.
    pub(crate) fn console_watched(&self) -> bool {
        !self.input.ended
            && self
                .actors
                .iter()
                .any(|a| matches!(&a.body, Body::Console(c) if !c.watchers.is_empty()))
    }

    pub(crate) fn https(&mut self) -> impl Iterator<Item = (ActorId, &mut Http)> {
        self.actors
            .with_ids_mut()
            .filter_map(|(i, a)| match &mut a.body {
                Body::Http(h) => Some((i, &mut **h)),
                _ => None,
            })
    }

    /// The image is idle: waits for something from outside that gives it
    /// work. False when nothing can any more (the run is over).
    pub(crate) fn wake(&mut self) -> bool {
        self.cluster_idle(true);
        let woke = self.wait_for_work();
        self.cluster_idle(!woke);
        woke
    }

    pub(crate) fn wait_for_work(&mut self) -> bool {
        loop {
            if self.ending.halted {
                return false;
            }
            let watched = self.console_watched() && self.ending.stopping.is_none();
            if watched && let Some(line) = self.input.pending.take() {
                self.hand_line(line);
                return true;
            }
            let listening = self.https().any(|(_, h)| h.open()) || self.cluster_holds();
            if !watched && !listening {
                return false;
            }
            if watched {
                self.inbox.ask_line();
            }
            let Some(o) = self.next_outside(self.ending.stopping) else {
                let left: usize = self.https().map(|(_, h)| h.in_flight()).sum();
                let _ = writeln!(
                    self.io.err,
                    "stopped with {left} HTTP request(s) unfinished after {} s",
                    DRAIN.as_secs()
                );
                return false;
            };
            let http = matches!(o, Outside::Http { .. });
            if self.outside(o) {
                if http {
                    self.take_ready();
                }
                return true;
            }
            if self.ending.halted {
                return false;
            }
        }
    }

    /// The next thing from outside, waiting for it until `deadline`; the
    /// responses of the turn just ended go to their listeners first, all
    /// of a listener's in one hand-over.
    pub(crate) fn next_outside(&mut self, deadline: Option<Instant>) -> Option<Outside> {
        self.flush_http();
        self.inbox.next(deadline)
    }

    /// The parts of responses put since the last time, to each listener.
    pub(crate) fn flush_http(&mut self) {
        for (_, h) in self.https() {
            h.flush();
        }
    }

    /// After a request from a client: takes in what else its listeners have
    /// sent already (at most `BATCH` things), so they are served in the same
    /// turn rather than each waking the loop. Only HTTP's events: the first
    /// of another kind is taken in and ends the batch, so console input and
    /// what comes from other nodes are taken in as they always were, one
    /// per turn (a cluster's output is the same as one node's).
    pub(crate) fn take_ready(&mut self) {
        for _ in 0..BATCH {
            if self.ending.halted || self.ending.stopping.is_some() {
                return;
            }
            let Some(o) = self.inbox.ready() else {
                return;
            };
            let http = matches!(o, Outside::Http { .. });
            self.outside(o);
            if !http {
                return;
            }
        }
    }

    /// When the queue has not emptied for `FAIR_WAIT` (and every
    /// `FAIR_WAIT` after), in an image that listens: the responses so far
    /// go to their listeners, and what the listeners have sent is taken in
    /// (as after a request, `take_ready`). Without it, objects that keep the queue full (a
    /// listing relayed entry by entry, a chatty pair) left every client,
    /// every drained connection and every signal waiting until they were
    /// done: a 300,000-entry listing held the whole site for 11 s.
    pub(crate) fn take_in_between(&mut self) {
        if self.https().any(|(_, h)| h.open()) {
            self.flush_http();
            self.take_ready();
        }
    }

    /// While calls are out on workers and the queue is not empty: takes in
    /// what has come already (at most `BATCH` things), calls finished among
    /// it, so a worker done is given more work and the instance it called
    /// goes on with its mailbox now rather than once the queue is empty.
    pub(crate) fn take_in_meanwhile(&mut self) {
        for _ in 0..BATCH {
            let Some(o) = self.inbox.ready() else { return };
            self.outside(o);
            if self.ending.halted || self.workers.in_flight == 0 {
                return;
            }
        }
    }

    /// Takes in one thing from outside; true when it gave the image work.
    pub(crate) fn outside(&mut self, o: Outside) -> bool {
        match o {
            Outside::Line(InputLine::Failed(why)) => {
                let _ = writeln!(
                    self.io.err,
                    "error: console input could not be read: {why}; input ends here"
                );
                self.ending.failed = true;
                self.input_ended()
            }
            Outside::Line(line) => {
                self.input.pending = Some(line);
                false
            }
            Outside::InputEnded => self.input_ended(),
            Outside::Http { actor, event } => self.http_event(actor, event),
            Outside::Cluster(f) => self.cluster_event(f),
            Outside::Finished(f) => {
                self.finish(*f);
                !self.queue.is_empty()
            }
            Outside::Report => {
                self.report();
                false
            }
            Outside::Failed { thread, why } => {
                self.thread_failed(&format!("thread `{thread}`"), &why);
                false
            }
            Outside::Stop(signal) => {
                if self.ending.stopping.is_some() {
                    let _ = writeln!(self.io.err, "{signal} again: stopping now");
                    self.ending.halted = true;
                    return false;
                }
                if self.https().next().is_none() && self.cluster.is_some() {
                    let _ = writeln!(self.io.err, "{signal}: this node leaves the cluster");
                    self.ending.halted = true;
                    return false;
                }
                let left: usize = self.https().map(|(_, h)| h.in_flight()).sum();
                let _ = writeln!(
                    self.io.err,
                    "{signal}: no new connections; finishing {left} request(s) in flight (at most {} s)",
                    DRAIN.as_secs()
                );
                self.ending.stopping = Some(Instant::now() + DRAIN);
                for (_, h) in self.https() {
                    h.stop();
                }
                false
            }
        }
    }

    /// What the listener of Http instance `actor` says; true when it gave
    /// the image work.
    pub(crate) fn http_event(&mut self, actor: ActorId, event: HttpEvent) -> bool {
        if let HttpEvent::Request(incoming) = &event {
            self.trace_http(actor, incoming);
        }
        let Body::Http(h) = &mut self.actors[actor].body else {
            return false;
        };
        match event {
            HttpEvent::Request(incoming) => {
                h.take(incoming);
                self.hand_out_http(actor);
            }
            HttpEvent::Gone(id) => h.gone(id),
            HttpEvent::Drained(id) => h.drained(id),
            HttpEvent::Stopped => h.closed(),
            HttpEvent::Failed(why) => {
                h.closed();
                let what = format!("HTTP listener of `{}`", self.actors[actor].name);
                self.thread_failed(&what, &why);
                return false;
            }
        }
        self.http_due(actor);
        !self.queue.is_empty()
    }

    /// Requests an Http instance holds, to its watchers.
    pub(crate) fn hand_out_http(&mut self, actor: ActorId) {
        let limit = self.limits.payload;
        let Body::Http(h) = &mut self.actors[actor].body else {
            return;
        };
        for (to, ticket, payload) in h.hand_out(limit) {
            self.queue
                .push_back(Event::answer(to, ticket, false, Some(payload)));
        }
    }

    /// Answers an Http instance held back (`natives::http::Flow`) and now
    /// gives.
    pub(crate) fn http_due(&mut self, actor: ActorId) {
        let Body::Http(h) = &mut self.actors[actor].body else {
            return;
        };
        for (to, ticket, r) in h.take_due() {
            self.reply_to(to, ticket, r);
        }
    }

    /// Input ended: the watch streams end. True when that gave the image
    /// work.
    fn input_ended(&mut self) -> bool {
        self.input.ended = true;
        for a in self.actors.iter_mut() {
            if let Body::Console(c) = &mut a.body {
                for (to, ticket) in c.watchers.drain(..) {
                    self.queue.push_back(Event::answer(to, ticket, true, None));
                }
            }
        }
        !self.queue.is_empty()
    }

    /// Hands an input line to the console's watchers, or says why it
    /// cannot (and the run ends with status 1: input was lost).
    pub(crate) fn hand_line(&mut self, line: InputLine) {
        self.input.lines += 1;
        let n = self.input.lines;
        let limit = self.limits.payload;
        let line = match line {
            // A payload the console would make obeys the payload limit
            // like any other.
            InputLine::Text(t) if t.len() > limit => InputLine::Unfit {
                bytes: t.len() as u64,
                why: Unfit::TooLong,
            },
            line => line,
        };
        let why = match line {
            InputLine::Text(line) => return self.deliver_line(line),
            InputLine::Unfit {
                bytes,
                why: Unfit::TooLong,
            } => format!(
                "is {bytes} bytes long, over the payload limit of {limit} (`--max-payload`)"
            ),
            InputLine::Unfit {
                why: Unfit::NotUtf8 { at },
                ..
            } => format!(
                "is not UTF-8 text (its byte {} is not), and the console reads text",
                at + 1
            ),
            // Never held: `outside` takes it as it comes.
            InputLine::Failed(_) => return,
        };
        let _ = writeln!(
            self.io.err,
            "error: console input line {n} {why}; it was not delivered"
        );
        self.ending.failed = true;
    }

    fn deliver_line(&mut self, line: String) {
        let watchers: Vec<(Sender, Ticket)> = self
            .actors
            .iter()
            .flat_map(|a| match &a.body {
                Body::Console(c) => c.watchers.clone(),
                _ => Vec::new(),
            })
            .collect();
        for (to, ticket) in watchers {
            self.queue.push_back(Event::answer(
                to,
                ticket,
                false,
                Some(natives::text(line.clone())),
            ));
        }
    }

    /// A thread of the runtime's own panicked (`fault`): the run ends now,
    /// with status 1, its listeners closed.
    pub(crate) fn thread_failed(&mut self, what: &str, why: &str) {
        let _ = writeln!(
            self.io.err,
            "error: the runtime's {what} failed: {why}\n\
             the image stops: this is a bug in othismo-run, not in the image"
        );
        for (_, h) in self.https() {
            h.stop();
        }
        self.ending.failed = true;
        self.ending.fatal = true;
        self.ending.halted = true;
    }
}

/// How long a stopping run waits for HTTP requests in flight.
const DRAIN: Duration = Duration::from_secs(5);

/// The most things from outside taken into one turn of the loop besides
/// the one that woke it. 64 rather than 16 since the loop looks before it
/// sleeps (`outside`): at 64 connections the site then served a tenth more
/// (dev/performance.md), where before the look 4, 16 and 64 were alike.
const BATCH: usize = 64;

/// How long the loop works without its queue emptying before it looks at
/// what came from outside (`take_in_between`): far longer than a busy
/// site's turn (64 requests at once are some 450 deliveries, about 1.5 ms),
/// so those keep their one hand-over to the listener (looking every 256
/// deliveries split them, and cost a tenth of the requests served at 64
/// connections), and short enough that nobody waits on a long stretch of
/// work for more than this.
pub(crate) const FAIR_WAIT: std::time::Duration = std::time::Duration::from_millis(10);

/// How often, in deliveries, the clock is read for `FAIR_WAIT`.
pub(crate) const FAIR_CHECK: u64 = 64;
