//! The event loop's work: each delivery made, each host call acted on, in
//! order; instances that break the rules stopped. What a request may reach
//! is decided in `route` (with the compiler's namespace rules); this file
//! only carries it out.

use std::sync::Arc;

use othc::model::{EntryId, Seg};
use othc::namespace::path::push_text;

use crate::ActorId;
use crate::abi::{Errno, Failure, RequestId, Response, Ticket, errno};
use crate::natives::Reply;
use crate::workers::Delivery;
use crate::{Body, Event, Payload, Runtime, Sender, Serving, cluster, route, view};

impl Runtime<'_> {
    /// The runtime's own failure `errno` (in words, `desc`) for request
    /// `ticket` of `to`.
    pub(crate) fn fail_to(&mut self, to: Sender, ticket: Ticket, errno: Errno, desc: String) {
        let failure = Failure::runtime(errno, desc);
        self.queue.push_back(Event::error(to, ticket, failure));
    }

    /// A request from instance `from` (its needs) aimed by `aim` in its view.
    pub(crate) fn route(&mut self, from: ActorId, req: Serving, aim: view::Aim) {
        let sender = &mut self.actors[from];
        let (model, obj) = &*sender.header;
        match route::admit(&sender.name, model, obj, req.verb, aim, &mut sender.passed) {
            Ok((to, path, readonly)) => self.deliver_checked(to, req, path, readonly),
            Err(r) => self.fail_to(req.from, req.ticket, r.errno, r.desc),
        }
    }

    /// The checks of the receiving side (through its exposures, if the path
    /// is one), then the delivery.
    pub(crate) fn deliver_checked(
        &mut self,
        to: ActorId,
        mut req: Serving,
        path: Arc<[Seg]>,
        readonly: bool,
    ) {
        let arrival = route::arrive(&|a| self.party(a), to, path, readonly, req.verb, req.flags);
        match arrival {
            Ok(a) => {
                self.actors[a.to].reached = Some((a.path.clone(), req.verb, a.entry));
                req.stream = a.stream;
                if let Sender::Instance(x) = req.from {
                    self.actors[x].queued += held_cost(&req);
                }
                self.queue.push_back(Event::Serve {
                    to: a.to,
                    req,
                    path: a.path,
                    entry: a.entry,
                });
            }
            Err(r) => self.fail_to(req.from, req.ticket, r.errno, r.desc),
        }
    }

    /// What routing needs to know of instance `a`.
    fn party(&self, a: ActorId) -> route::Party<'_> {
        let actor = &self.actors[a];
        route::Party {
            name: &actor.name,
            model: &actor.header.0,
            object: &actor.header.1,
            exposed: &actor.exposed,
            dead: actor.dead,
            reached: actor.reached.as_ref(),
        }
    }

    /// Whether a caller has given up on `ticket` (cancelled, or stopped).
    fn abandoned(&self, from: Sender, ticket: Ticket) -> bool {
        match from {
            Sender::Instance(c) => self.actors[c].dead || self.actors[c].dropped.contains(&ticket),
            Sender::Operator(_) | Sender::Outside(_) => false,
            Sender::Remote(k) => self.remote_abandoned(k),
        }
    }

    /// What a native object answered, on its way to the caller.
    pub(crate) fn reply(&mut self, req: &Serving, replies: Vec<Reply>) {
        for r in replies {
            if !self.reply_to(req.from, req.ticket, r) {
                return;
            }
        }
    }

    /// One answer of a native object to `ticket` of `to`; false if it
    /// ended the request (an answer over the payload limit is an error).
    pub(crate) fn reply_to(&mut self, to: Sender, ticket: Ticket, r: Reply) -> bool {
        match r {
            Reply::Answer { payload, .. }
                if payload
                    .as_ref()
                    .is_some_and(|p| p.data.len() > self.limits.payload) =>
            {
                self.fail_to(
                    to,
                    ticket,
                    errno::TOO_LARGE,
                    "the answer is over the payload limit".into(),
                );
                return false;
            }
            Reply::Answer { done, payload } => self
                .queue
                .push_back(Event::answer(to, ticket, done, payload)),
            Reply::Error { errno, desc } => self.fail_to(to, ticket, errno, desc),
            Reply::Paced(rest) => self.pace(to, ticket, rest),
        }
        true
    }

    /// Delivers an event taken from the queue or from a mailbox: to a
    /// busy instance it waits in its mailbox (`workers`).
    pub(crate) fn deliver(&mut self, e: Event) {
        if let Event::Serve { req, .. } = &e
            && let Sender::Instance(x) = req.from
        {
            let q = &mut self.actors[x].queued;
            *q = q.saturating_sub(held_cost(req));
        }
        if let Some(to) = receiver(&e)
            && self.actors[to].busy
        {
            self.actors[to].mailbox.push_back(e);
            return;
        }
        // What the caller gave up on (cancelled, or stopped) is not delivered.
        let dropped = match &e {
            Event::Serve { req, .. } => self.abandoned(req.from, req.ticket),
            Event::Respond { to, ticket, .. } => self.abandoned(*to, *ticket),
            Event::Cancel { .. } | Event::Restart { .. } => false,
        };
        if dropped {
            return;
        }
        self.trace(&e);
        match e {
            Event::Serve {
                to,
                req,
                path,
                entry,
            } => self.serve(to, req, path, entry),
            Event::Respond {
                to,
                ticket,
                response,
            } => self.deliver_response(to, ticket, response),
            Event::Cancel { to, id } => {
                if self.actors[to].dead {
                    return;
                }
                match &self.actors[to].body {
                    Body::Wasm(_) => self.call(to, Delivery::Cancel { id }),
                    Body::Remote(_) => self.cancel_remote(to, id),
                    _ => {}
                }
            }
            Event::Restart { to } => self.restart(to),
        }
    }

    /// An answer or failure on its way to `to`: to an instance (a call
    /// into it, made here with the payload where it lies, or on a worker),
    /// to a caller on another node, to the outside, or to the operator (a
    /// startup request's failure stops the start).
    fn deliver_response(&mut self, to: Sender, ticket: Ticket, response: Response<Payload>) {
        let last = response.is_last();
        let (a, response) = match (to, response) {
            (Sender::Instance(a), response) => (a, response),
            (Sender::Remote(k), response) => return self.respond_remote(k, response),
            (Sender::Outside(k), response) => return self.came_back(k, response),
            (Sender::Operator(n), Response::Error(failure)) => {
                return self.startup_failed(n, &failure);
            }
            (Sender::Operator(_), Response::Answer { .. }) => return,
        };
        if !self.actors[a].paced.is_empty() {
            self.pace_delivery(a, ticket, last);
        }
        let offload = self.offload(a);
        match &mut self.actors[a].body {
            Body::Wasm(w) if !offload => {
                let result = w.respond(ticket, &response);
                self.after_call(a, result);
            }
            Body::Wasm(_) => self.call(a, Delivery::Respond { ticket, response }),
            _ => {}
        }
    }

    /// `response` to the caller on another node `k`; a part of a stream
    /// read at the remote reader's pace says so.
    fn respond_remote(&mut self, k: u32, response: Response<Payload>) {
        let last = response.is_last();
        let paced = !last && self.paced_out(k);
        let w = |to, id| match response {
            Response::Answer { done, payload } => cluster::wire::Wire::Answer {
                to,
                id,
                done,
                payload,
                paced,
            },
            Response::Error(failure) => cluster::wire::Wire::Error { to, id, failure },
        };
        self.answer_remote(k, w, last);
    }

    /// Request `req` to instance `to`, on `path` of its tree, which reached
    /// serves entry `entry`: refused if `to` has stopped, else served by a
    /// native or called into a module (here, or on a worker).
    fn serve(&mut self, to: ActorId, req: Serving, path: Arc<[Seg]>, entry: EntryId) {
        if self.actors[to].dead {
            let name = self.actors[to].name.clone();
            return self.fail_to(
                req.from,
                req.ticket,
                errno::UNAVAILABLE,
                format!("`{name}` has stopped"),
            );
        }
        let offload = self.offload(to);
        let actor = &mut self.actors[to];
        match &mut actor.body {
            Body::Console(_) | Body::Files(_) | Body::Clock | Body::Http(_) => {
                self.serve_native(to, req, path, entry)
            }
            Body::Wasm(w) => {
                actor.next_id.0 += 1;
                let id = actor.next_id;
                let mut served = std::mem::take(&mut self.spare.path);
                served.clear();
                push_text(&mut served, &path);
                if !offload {
                    // Made here: the payload is read where it is kept, and
                    // the request kept once the call has returned (the round
                    // trip's path, measured by instruction counts).
                    let result = w.serve(id, req.verb.wire(), req.flags, &served, &req.payload);
                    self.spare.path = served;
                    actor.serving.insert(id, req);
                    self.after_call(to, result);
                } else {
                    let mut req = req;
                    let d = Delivery::Serve {
                        id,
                        verb: req.verb,
                        flags: req.flags,
                        path: served,
                        // Lent to the call, and put back after it.
                        payload: req.payload.take(),
                    };
                    actor.serving.insert(id, req);
                    self.call(to, d);
                }
            }
            Body::Remote(_) => {
                actor.reached = None;
                self.serve_remote(to, req, &path)
            }
            Body::Away => unreachable!("a busy instance's deliveries wait"),
        }
    }

    /// Ends what `from` asked for (one ticket, or all of them): servers are
    /// told, console watches end.
    pub(crate) fn withdraw(&mut self, from: Sender, ticket: Option<Ticket>) {
        let mine = |s: &Serving| s.from == from && ticket.is_none_or(|t| s.ticket == t);
        for t in self.actors.ids() {
            let actor = &mut self.actors[t];
            let ids: Vec<RequestId> = actor
                .serving
                .iter()
                .filter(|(_, s)| mine(s))
                .map(|(id, _)| *id)
                .collect();
            for id in ids {
                actor.serving.remove(&id);
                actor.cancelled.insert(id);
                self.queue.push_back(Event::Cancel { to: t, id });
            }
            // What waits in a mailbox is out of the queue, where dropped
            // tickets are looked for: it goes now (requests it made, and
            // answers on their way back to it).
            if !actor.mailbox.is_empty() {
                actor.mailbox.retain(|e| match e {
                    Event::Serve { req, .. } => !mine(req),
                    Event::Respond { to, ticket: k, .. } => {
                        !(*to == from && ticket.is_none_or(|t| *k == t))
                    }
                    Event::Cancel { .. } | Event::Restart { .. } => true,
                });
            }
            match &mut actor.body {
                Body::Console(console) => console.withdraw(from, ticket),
                Body::Http(http) => http.withdraw(from, ticket),
                _ => {}
            }
        }
    }
}

/// The instance an event is delivered to, if it is one.
fn receiver(e: &Event) -> Option<ActorId> {
    match e {
        Event::Serve { to, .. } | Event::Cancel { to, .. } | Event::Restart { to } => Some(*to),
        Event::Respond { to, .. } => match to {
            Sender::Instance(a) => Some(*a),
            Sender::Operator(_) | Sender::Remote(_) | Sender::Outside(_) => None,
        },
    }
}

/// What a request waiting in the queue costs the host: the event and its
/// payload's bytes.
fn held_cost(req: &Serving) -> usize {
    std::mem::size_of::<Event>() + req.payload.as_ref().map_or(0, Payload::held_bytes)
}
