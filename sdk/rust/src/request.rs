//! Requests: those this object serves (answer each once, or several times
//! for a stream), and those it sends, whose answers come to a closure.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

use crate::abi::{self, Verb};
use crate::payload::{Payload, Status};

/// What came back to a request this object sent.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// An answer; `done` on the last.
    Payload {
        payload: Option<Payload>,
        done: bool,
    },
    /// The last answer: an error.
    Error { status: Status, desc: String },
}

impl Answer {
    /// Whether no more answers follow.
    pub fn is_last(&self) -> bool {
        match self {
            Answer::Payload { done, .. } => *done,
            Answer::Error { .. } => true,
        }
    }
}

type OnAnswer = Box<dyn FnMut(Answer)>;

thread_local! {
    /// The answers this object waits for, by ticket.
    static PENDING: RefCell<HashMap<i32, Option<OnAnswer>>> = RefCell::new(HashMap::new());
    /// The requests being served, by id, until each has its last answer
    /// (or is cancelled).
    static SERVING: RefCell<HashMap<i32, Request>> = RefCell::new(HashMap::new());
}

/// `req` is being served from now on.
pub(crate) fn serving(req: &Request) {
    SERVING.with(|s| s.borrow_mut().insert(req.id, req.clone()));
}

/// The request `id` its caller cancelled, if it was still being served:
/// it is no longer.
pub(crate) fn cancelled(id: i32) -> Option<Request> {
    SERVING.with(|s| s.borrow_mut().remove(&id))
}

/// A request this object is serving. Cheap to clone: a clone kept to
/// answer later is the same request.
#[derive(Clone, Debug)]
pub struct Request {
    pub id: i32,
    pub verb: Verb,
    pub flags: i32,
    pub path: String,
    pub payload: Option<Payload>,
    finished: Rc<Cell<bool>>,
}

impl Request {
    pub(crate) fn new(
        id: i32,
        verb: Verb,
        flags: i32,
        path: String,
        payload: Option<Payload>,
    ) -> Request {
        Request {
            id,
            verb,
            flags,
            path,
            payload,
            finished: Rc::new(Cell::new(false)),
        }
    }

    /// Whether the operator (the image's startup requests) sent it.
    pub fn is_operator(&self) -> bool {
        self.flags & crate::FLAG_OPERATOR != 0
    }

    /// Whether its last answer (or an error) has gone.
    pub fn is_finished(&self) -> bool {
        self.finished.get()
    }

    fn finish(&self) {
        self.finished.set(true);
        SERVING.with(|s| s.borrow_mut().remove(&self.id));
    }

    /// Cancelled by its caller: answering it is pointless now.
    pub(crate) fn mark_finished(&self) {
        self.finished.set(true);
    }

    /// Answers with a payload; `done` makes it the last answer.
    pub fn answer(&self, payload: Option<&Payload>, done: bool) {
        if self.is_finished() {
            return;
        }
        if done {
            self.finish();
        }
        abi::answer(self.id, done, payload);
    }

    /// The last answer: text, `text/plain`.
    pub fn answer_text(&self, text: &str) {
        self.answer(Some(&Payload::text(text)), true);
    }

    /// The last answer, with no payload.
    pub fn end(&self) {
        self.answer(None, true);
    }

    /// Fails the request: its last answer is this error.
    pub fn fail(&self, status: Status, desc: &str) {
        if self.is_finished() {
            return;
        }
        self.finish();
        abi::fail(self.id, &status, desc);
    }

    /// Hands the request to a path of this object's view; its answers go
    /// straight to the caller.
    pub fn forward(&self, path: &str) {
        if self.is_finished() {
            return;
        }
        self.finish();
        abi::forward(self.id, path);
    }
}

/// A request this object sent: cancel it to stop its answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ticket(pub i32);

impl Ticket {
    pub fn cancel(self) {
        let waited = PENDING.with(|p| p.borrow_mut().remove(&self.0).is_some());
        if waited {
            abi::cancel(self.0);
        }
    }
}

/// Sends `verb path` (a path of this object's view) with `payload`; each
/// answer goes to `on`, until the last.
pub fn send(
    verb: Verb,
    path: &str,
    payload: Option<&Payload>,
    on: impl FnMut(Answer) + 'static,
) -> Ticket {
    let ticket = abi::request(verb, path, payload);
    PENDING.with(|p| p.borrow_mut().insert(ticket, Some(Box::new(on))));
    Ticket(ticket)
}

/// An answer to `ticket` came: to its closure (taken out while it runs,
/// so that it may send requests itself).
pub(crate) fn deliver(ticket: i32, answer: Answer) {
    let last = answer.is_last();
    let on = PENDING.with(|p| {
        let mut p = p.borrow_mut();
        if last {
            p.remove(&ticket).flatten()
        } else {
            p.get_mut(&ticket).and_then(Option::take)
        }
    });
    let mut on = match on {
        Some(on) => on,
        None => return,
    };
    on(answer);
    if !last {
        PENDING.with(|p| {
            if let Some(slot) = p.borrow_mut().get_mut(&ticket) {
                *slot = Some(on);
            }
        });
    }
}
