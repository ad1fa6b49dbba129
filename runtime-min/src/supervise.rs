//! Supervision, as an OTP supervisor does it (book: reference/running.md):
//! an instance stopped by a trap or a limit is replaced by a fresh instance
//! of its module, made from the module's `InstancePre` and the view the
//! image gave it; it starts, and the image's startup requests to it are
//! sent again before anything else reaches it. One stopped more than
//! `--max-restarts` times within `--restart-period` stays stopped and the
//! run ends (status 1). What the old instance was serving and asking for
//! was ended when it stopped (`Runtime::kill`): its callers got
//! `unavailable`, its requests were cancelled.
//!
//! Also here: the startup requests themselves (sent at the start and
//! again on each restart), and forgetting dropped tickets, which is what
//! keeps the host's tables from growing with cancels.

use std::collections::VecDeque;
use std::rc::Rc;
use std::time::Instant;

use wasmtime::InstancePre;

use crate::ActorId;
use crate::Limits;
use crate::abi::{self, Failure, RequestId, Ticket, errno};
use crate::host::{Host, Wasm};
use crate::view::Link;
use crate::{Body, Event, Payload, Runtime, Sender, Serving};

/// How to make a fresh instance of a module's instance.
pub(crate) struct Supervised {
    /// The module, linked once (shared by its instances).
    pub pre: Rc<InstancePre<Host>>,
    /// Its view as the image gave it.
    pub links: Vec<Link>,
    /// When it was restarted, within the restart period.
    restarts: VecDeque<Instant>,
}

impl Supervised {
    pub fn new(pre: Rc<InstancePre<Host>>, links: Vec<Link>) -> Supervised {
        Supervised {
            pre,
            links,
            restarts: VecDeque::new(),
        }
    }
}

/// A dropped ticket of `actor`, to forget once delivery `mark` is taken:
/// every delivery queued before the cancel has been then, and nothing
/// queued after it can carry the ticket (its servers were told, its
/// watches withdrawn).
pub(crate) struct Forget {
    mark: u64,
    actor: ActorId,
    ticket: Ticket,
}

impl Runtime<'_> {
    /// The operator's startup requests (those to instance `only`, or all),
    /// ahead of everything queued: they configure an instance, and what it
    /// asked for while starting waits behind them (an object cannot
    /// otherwise wait for its config).
    pub(crate) fn configure(&mut self, only: Option<ActorId>) {
        let held = std::mem::take(&mut self.queue);
        for n in 0..self.startup.len() {
            let (to, path) = self.startup[n].clone();
            // On a cluster's node, each runs its own instances' startup
            // requests (every replica gets them).
            if only.is_some_and(|a| a != to) || !self.is_local(to) {
                continue;
            }
            let s = &self.json.startup[n];
            let payload = s.payload.as_ref().map(|p| Payload {
                content_type: p.content_type.as_str().into(),
                data: p.bytes(),
            });
            let from = Sender::Operator(n);
            let req = Serving::sent(from, Ticket(n as i32 + 1), s.verb, abi::OPERATOR, payload);
            self.deliver_checked(to, req, path, false);
        }
        self.queue.extend(held);
        self.forget_after_queue();
    }

    /// Startup request `n` failed: the image is not configured as written,
    /// and it stops before it serves anything (listeners close at once).
    pub(crate) fn startup_failed(&mut self, n: usize, failure: &Failure) {
        let s = &self.json.startup[n];
        let request = format!(
            "{} {}",
            s.verb.as_str(),
            othc::bundle::tree_path(&s.target, &s.path)
        );
        let Failure { errno, code, desc } = failure;
        let _ = writeln!(
            self.io.err,
            "error: startup request {request} failed: {errno} {code}: {desc}\n\
             the image stops: it is not configured as its startup requests say",
        );
        if let Some(seen) = &mut self.probed {
            seen.startup_failed = Some((n, request, failure.clone()));
        }
        self.ending.failed = true;
        self.ending.fatal = true;
    }

    /// Instance `a` cancelled `ticket`: answers still on their way to it
    /// are dropped, and the ticket forgotten once they have all been taken.
    pub(crate) fn drop_ticket(&mut self, a: ActorId, ticket: Ticket) {
        if self.actors[a].dropped.insert(ticket) {
            self.forget.push_back(Forget {
                mark: self.queue_end(),
                actor: a,
                ticket,
            });
        }
    }

    /// The number the last delivery queued now will have when taken.
    fn queue_end(&self) -> u64 {
        self.taken + self.queue.len() as u64
    }

    /// The queue was reordered (what was queued moved back): no dropped
    /// ticket is forgotten before all of it has been taken.
    fn forget_after_queue(&mut self) {
        let end = self.queue_end();
        for f in &mut self.forget {
            f.mark = f.mark.max(end);
        }
    }

    /// Forgets the dropped tickets whose mark has been reached.
    pub(crate) fn forget_dropped(&mut self) {
        while let Some(f) = self.forget.front()
            && f.mark <= self.taken
        {
            self.actors[f.actor].dropped.remove(&f.ticket);
            self.forget.pop_front();
        }
    }

    /// Instance `a` was stopped: its tickets are forgotten now (a fresh
    /// instance numbers its own from 1).
    pub(crate) fn forget_all_of(&mut self, a: ActorId) {
        self.forget.retain(|f| f.actor != a);
        self.actors[a].dropped.clear();
    }

    /// Whether instance `a` is to be replaced when it stops.
    pub(crate) fn supervised(&self, a: ActorId) -> bool {
        self.limits.restarts > 0 && self.actors[a].supervised.is_some()
    }

    /// Replaces stopped instance `a` with a fresh one of its module, or,
    /// past the restart intensity, leaves it stopped and ends the run.
    pub(crate) fn restart(&mut self, a: ActorId) {
        let now = Instant::now();
        let (max, period) = (self.limits.restarts, self.limits.restart_period());
        let actor = &mut self.actors[a];
        let Some(sup) = actor.supervised.as_mut() else {
            return;
        };
        while sup
            .restarts
            .front()
            .is_some_and(|t| now.duration_since(*t) > period)
        {
            sup.restarts.pop_front();
        }
        if sup.restarts.len() >= max as usize {
            let name = actor.name.clone();
            let period = self.limits.restart_period_s;
            self.note(format_args!(
                "{name} stays stopped: restarted {max} time(s) within {period} s"
            ));
            let actor = &self.actors[a];
            let _ = writeln!(
                self.io.err,
                "error: instance `{}` stopped again after {max} restart(s) within {} s \
                 (`--max-restarts`, `--restart-period`): it stays stopped, and the run ends",
                actor.name, self.limits.restart_period_s
            );
            self.ending.fatal = true;
            return;
        }
        sup.restarts.push_back(now);
        let count = sup.restarts.len();
        self.queue.retain(|e| !Self::for_old_tickets(e, a));
        let actor = &mut self.actors[a];
        let sup = actor.supervised.as_mut().expect("supervised");
        let fresh = Wasm::new(&sup.pre, sup.links.clone(), &self.limits);
        let wasm = match fresh {
            Ok(w) => w,
            Err(e) => {
                let _ = writeln!(
                    self.io.err,
                    "error: instance `{}` could not be restarted: {e:#}; the run ends",
                    actor.name
                );
                self.ending.fatal = true;
                return;
            }
        };
        actor.body = Body::Wasm(Box::new(wasm));
        actor.serving.clear();
        actor.cancelled.clear();
        actor.dropped.clear();
        actor.queued = 0;
        actor.next_id = RequestId(0);
        actor.passed = None;
        actor.reached = None;
        actor.exposed.clear();
        actor.dead = false;
        let _ = writeln!(
            self.io.err,
            "instance `{}` restarted ({count} of at most {max} within {} s)",
            actor.name, self.limits.restart_period_s
        );
        let name = actor.name.clone();
        self.note(format_args!("{name} restarted ({count} of {max})"));
        // Its start, then its startup requests, ahead of what was queued.
        let held = std::mem::take(&mut self.queue);
        if let Body::Wasm(w) = &mut self.actors[a].body {
            let result = w.start();
            self.after_call(a, result);
        }
        self.configure(Some(a));
        let started = std::mem::replace(&mut self.queue, held);
        for e in started.into_iter().rev() {
            self.queue.push_front(e);
        }
        self.forget_after_queue();
    }

    /// Whether the event is on its way to instance `a`'s tickets (which a
    /// fresh instance does not have).
    pub(crate) fn for_old_tickets(e: &Event, a: ActorId) -> bool {
        matches!(e,
            Event::Respond { to: Sender::Instance(x), .. } if *x == a)
            || matches!(e, Event::Cancel { to, .. } if *to == a)
    }
}

/// Stopping an instance: what it was serving is answered, what it asked
/// for is cancelled, and a supervised one is replaced next.
impl Runtime<'_> {
    /// A trap, in words: the limit it hit, or what the module did.
    pub(crate) fn why(&self, e: &wasmtime::Error) -> String {
        why_stopped(e, &self.limits)
    }

    /// Stops an instance: what it was serving is answered `unavailable`,
    /// what it asked for is cancelled.
    pub(crate) fn kill(&mut self, a: ActorId, why: &str) {
        let actor = &mut self.actors[a];
        if actor.dead {
            return;
        }
        actor.dead = true;
        self.pace_stopped(a);
        let actor = &mut self.actors[a];
        let name = actor.name.clone();
        let serving: Vec<Serving> = actor.serving.drain().map(|(_, s)| s).collect();
        let _ = writeln!(self.io.err, "error: instance `{name}` stopped: {why}");
        if let Some(p) = &mut self.probed {
            p.stopped.push(format!("`{name}` stopped: {why}"));
        }
        self.ending.failed = true;
        for s in serving {
            self.fail_to(
                s.from,
                s.ticket,
                errno::UNAVAILABLE,
                format!("`{name}` has stopped"),
            );
        }
        self.withdraw(Sender::Instance(a), None);
        // What it asked for and is not yet delivered goes nowhere.
        let me = Sender::Instance(a);
        self.queue
            .retain(|e| !matches!(e, Event::Serve { req, .. } if req.from == me));
        self.actors[a].queued = 0;
        self.forget_all_of(a);
        // Requests waiting in its mailbox go back to the queue's front (to a
        // fresh instance, or to be refused); what was for its tickets, not.
        let parked = std::mem::take(&mut self.actors[a].mailbox);
        for e in parked.into_iter().rev() {
            if !Self::for_old_tickets(&e, a) {
                self.queue.push_front(e);
            }
        }
        if self.supervised(a) {
            // Next, before anything else: what is queued for it goes to the
            // fresh instance (after its startup requests), not to a gap.
            self.queue.push_front(Event::Restart { to: a });
        }
    }
}

/// Why a call into an instance stopped it, as a run says it: the time
/// limit, or the cause (a limit, an abort, a trap) and where it happened.
pub(crate) fn why_stopped(e: &wasmtime::Error, limits: &Limits) -> String {
    if e.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::Interrupt) {
        return format!(
            "it ran past the time limit of {} ms in one delivery (`--max-time`)",
            limits.time_ms
        );
    }
    let mut chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
    let cause = chain.pop().unwrap_or_default();
    let mut out = cause;
    for c in chain {
        for line in c.lines() {
            out.push_str("\n    ");
            out.push_str(line.trim());
        }
    }
    out
}
