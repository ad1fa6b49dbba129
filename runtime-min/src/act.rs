//! What an instance asked for in a call, carried out: after each call
//! into an instance, its host calls (requests, answers, errors, forwards,
//! cancels) are acted on in order, and the limits on what the host holds
//! for it checked. Deliveries themselves are `deliver`'s.

use othc::model::Verb;
use othc::namespace::MAX_DEPTH;

use crate::ActorId;
use crate::abi::{RequestId, Ticket, errno};
use crate::host::{Call, Carried};
use crate::{Body, Claim, Event, Payload, Runtime, Sender, Serving, view};

impl Runtime<'_> {
    /// After any call into instance `a`: a trap stops it; otherwise what it
    /// asked for is done, in order.
    pub(crate) fn after_call(&mut self, a: ActorId, result: wasmtime::Result<()>) {
        if let Err(e) = result {
            let why = self.why(&e);
            return self.kill(a, &why);
        }
        let mut calls = std::mem::take(&mut self.spare.calls);
        let actor = &mut self.actors[a];
        if let Body::Wasm(w) = &mut actor.body {
            w.swap_calls(&mut calls);
            if w.host().exposed != actor.exposed {
                actor.exposed = w.host().exposed.clone();
            }
        }
        self.count_call(a);
        self.act_on(a, &mut calls);
        calls.clear();
        self.spare.calls = calls;
        self.pace_returned(a);
        if self.queue.len() > self.limits.queue {
            let why = format!(
                "its requests filled the queue past {} deliveries (`--max-queue`)",
                self.limits.queue
            );
            return self.kill(a, &why);
        }
        let actor = &self.actors[a];
        let held = actor.queued + actor.dropped.len() * TICKET_COST;
        if held > self.limits.held_bytes() {
            let why = format!(
                "the host held more than {} MiB for it (`--max-held`): its requests waiting and tickets cancelled",
                self.limits.held_mib
            );
            self.kill(a, &why);
        }
    }

    /// Does what instance `a` asked for in one call, in order; stops at a
    /// call that gets it stopped.
    fn act_on(&mut self, a: ActorId, calls: &mut Vec<Call>) {
        for call in calls.drain(..) {
            let went = match call {
                Call::Request {
                    ticket,
                    verb,
                    aim,
                    payload,
                } => {
                    self.request(a, ticket, verb, aim, payload);
                    Went::On
                }
                Call::Cancel { ticket } => {
                    if !self.actors[a].paced.is_empty() {
                        self.settled(a, ticket);
                    }
                    self.drop_ticket(a, ticket);
                    self.withdraw(Sender::Instance(a), Some(ticket));
                    Went::On
                }
                Call::Answer { id, done, payload } => self.answer(a, id, done, payload),
                Call::Fail { id, failure } => match self.claim(a, id, "failed") {
                    Claim::Serving(s) => {
                        self.queue
                            .push_back(Event::error(s.from, s.ticket, failure));
                        Went::On
                    }
                    Claim::Late => Went::On,
                    Claim::Stopped => Went::Stopped,
                },
                Call::Forward { id, aim } => self.forward(a, id, aim),
            };
            if went == Went::Stopped {
                return;
            }
        }
    }

    /// Instance `a` sends a request.
    fn request(
        &mut self,
        a: ActorId,
        ticket: Ticket,
        verb: Verb,
        aim: view::Aim,
        payload: Carried,
    ) {
        let from = Sender::Instance(a);
        let payload = match payload {
            Carried::TooLarge(n) => {
                let limit = self.limits.payload;
                let why = format!("the payload is {n} bytes, over the limit of {limit}");
                self.fail_to(from, ticket, errno::TOO_LARGE, why);
                return;
            }
            Carried::Some(p) => Some(p),
            Carried::None => None,
        };
        if self.actors[a].pacing.is_some() {
            self.pace_request(a, ticket);
        }
        let req = Serving::sent(from, ticket, verb, 0, payload);
        self.route(a, req, aim);
    }

    /// Instance `a` answers request `id` (`done`: its last answer).
    fn answer(&mut self, a: ActorId, id: RequestId, done: bool, payload: Carried) -> Went {
        let s = match self.claim(a, id, "answered") {
            Claim::Serving(s) => s,
            Claim::Late => return Went::On,
            Claim::Stopped => return Went::Stopped,
        };
        // A non-stream has one answer: the first finishes it.
        let done = done || !s.stream;
        let payload = match payload {
            Carried::TooLarge(n) => {
                let limit = self.limits.payload;
                let why = format!("the answer is {n} bytes, over the limit of {limit}");
                self.fail_to(s.from, s.ticket, errno::TOO_LARGE, why);
                return Went::On;
            }
            Carried::Some(p) => Some(p),
            Carried::None => None,
        };
        self.pass_answer(a, id, s, done, payload);
        Went::On
    }

    /// An answer to request `id`, which `a` served (`s`, taken out of its
    /// table), goes to its caller; a stream not done goes on being served.
    pub(crate) fn pass_answer(
        &mut self,
        a: ActorId,
        id: RequestId,
        s: Serving,
        done: bool,
        payload: Option<Payload>,
    ) {
        if !done && self.actors[a].pacing.is_some() {
            self.pace_answer(a, s.from, s.ticket);
        }
        self.queue
            .push_back(Event::answer(s.from, s.ticket, done, payload));
        if !done {
            self.actors[a].serving.insert(id, s);
        }
    }

    /// Instance `a` hands request `id` on to `aim`, to be answered to its
    /// original caller.
    fn forward(&mut self, a: ActorId, id: RequestId, aim: view::Aim) -> Went {
        let mut s = match self.claim(a, id, "forwarded") {
            Claim::Serving(s) => s,
            Claim::Late => return Went::On,
            Claim::Stopped => return Went::Stopped,
        };
        // A request handed on and on (A to B to A…) would never end: past
        // the limit its caller is answered, naming the instances it went
        // round; they themselves run on.
        s.forwarded.push(a);
        if s.forwarded.len() > MAX_DEPTH {
            let names: Vec<&str> = s.forwarded[..4.min(s.forwarded.len())]
                .iter()
                .map(|i| self.actors[*i].name.as_str())
                .collect();
            let desc = format!(
                "forwarded more than {MAX_DEPTH} times, round {} → …",
                names.join(" → ")
            );
            self.fail_to(s.from, s.ticket, errno::NOT_FOUND, desc);
            return Went::On;
        }
        // Resolved as if `a` had sent it; answered to the original caller.
        self.route(a, s, aim);
        Went::On
    }

    /// Instance `a` answers, fails or forwards (`what`) request `id`: the
    /// request, taken out of what it serves; a late answer to a cancelled
    /// one, ignored; or none it is serving, and it is stopped.
    fn claim(&mut self, a: ActorId, id: RequestId, what: &str) -> Claim {
        if let Some(s) = self.actors[a].serving.remove(&id) {
            return Claim::Serving(s);
        }
        if self.actors[a].cancelled.contains(&id) {
            return Claim::Late;
        }
        let why = self.not_serving(a, id, what);
        self.kill(a, &why);
        Claim::Stopped
    }

    /// Why instance `a` may not answer request `id`: it never got it, or
    /// has given its last answer.
    fn not_serving(&self, a: ActorId, id: RequestId, what: &str) -> String {
        if id.0 >= 1 && id <= self.actors[a].next_id {
            format!(
                "it {what} request {id} after its last answer (only a stream answers more than once)"
            )
        } else {
            format!("it {what} request {id}, which it was never sent")
        }
    }
}

/// Whether an instance is still running after one of its calls was done.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Went {
    On,
    Stopped,
}

/// What one cancelled ticket costs the host to remember.
const TICKET_COST: usize = 16;
