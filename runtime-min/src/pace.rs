//! Streams read at their reader's pace. A file bigger than one part, and a
//! directory's listing, is a stream (`Files`, `Reply::Paced`): its next
//! part is made only once the
//! instance reading it has *taken* the one before, which is: the call that
//! delivered it has returned, and every request the instance made in that
//! call has had its last answer (or been cancelled). An instance that
//! passes each part on (HttpServer writing it to an HTTP connection, whose
//! write is answered once the connection has room) so sets the pace of the
//! disk to that of its client, and no file is ever held whole: at most a
//! part in the host and one in the instance, whatever the file's size.
//!
//! An instance that keeps each part without asking anything reads as fast
//! as its calls return; what it keeps is its own memory, under its limit.
//! A reader that is not an instance (a startup request) takes every part
//! at once.
//!
//! A relay (an instance that, while it takes a part, answers a reader of
//! its own: StaticSite making a listing's page of the entries the files
//! give it) passes its reader's pace back: the part is taken only once
//! each answer it sent for it has been taken by the instance it went to,
//! taken in the same sense. So a page made of a million entries goes to a
//! slow client at that client's pace, through any number of relays, and
//! nothing along the way holds more than a part or two. The answer's
//! reader keeps a `Relay` entry for the request answered, until what was
//! relayed to it is taken, it has the last answer, it cancels or it stops.

use crate::ActorId;
use crate::abi::{RequestId, Ticket};
use crate::natives::files::Stream;
use crate::stall::Wait;
use crate::{Runtime, Sender};

/// A stream of parts waiting for its reader.
pub(crate) struct Pace {
    /// The stream's rest; `None` while a worker reads its next part, or
    /// when another node reads it (`remote`).
    rest: Option<Box<Stream>>,
    /// A stream read on another node, asked for part by part.
    pub(crate) remote: Option<RemoteRead>,
    /// Which stream this is, whatever its ticket: a part read on a worker
    /// comes back to it only, never to a later stream that took the ticket
    /// (a restarted instance numbers its tickets again).
    serial: u64,
    /// The requests its reader made while taking the last part, not yet
    /// answered for good.
    awaiting: Vec<Ticket>,
    /// Answers its reader relayed while taking the last part, not yet
    /// taken by the instances they went to.
    relayed: u32,
    /// Set when this is not a stream of parts but a request its reader
    /// made of a relay: whose part the answers to it are waiting on.
    relay: Option<Relay>,
}

/// At the reader of a relay's answers: the relay's stream whose part is
/// taken once the reader has taken the answers relayed of it.
pub(crate) struct Relay {
    from: ActorId,
    ticket: Ticket,
    serial: u64,
    /// Answers relayed to this request not yet taken, and how many of them
    /// have been delivered and their calls returned.
    sent: u32,
    returned: u32,
}

/// A stream another node reads for the request `id` to proxy `proxy`.
pub(crate) struct RemoteRead {
    pub(crate) proxy: ActorId,
    pub(crate) id: RequestId,
    /// Whether its next part was asked for since the last came.
    pub(crate) asked: bool,
}

impl Pace {
    /// A stream read on another node (`cluster/paced.rs`).
    pub(crate) fn remote(serial: u64, read: RemoteRead) -> Pace {
        Pace {
            rest: None,
            remote: Some(read),
            serial,
            awaiting: Vec::new(),
            relayed: 0,
            relay: None,
        }
    }
}

impl Runtime<'_> {
    /// `rest` of the stream answering `ticket` of `to`: read as `to` takes it.
    pub(crate) fn pace(&mut self, to: Sender, ticket: Ticket, mut rest: Box<Stream>) {
        match to {
            Sender::Instance(a) if !self.actors[a].dead => {
                self.pace_serial += 1;
                let serial = self.pace_serial;
                self.actors[a].paced.insert(
                    ticket,
                    Pace {
                        rest: Some(rest),
                        remote: None,
                        serial,
                        awaiting: Vec::new(),
                        relayed: 0,
                        relay: None,
                    },
                );
            }
            Sender::Instance(_) => {}
            // Another node's reader takes it at its own pace.
            Sender::Remote(k) => self.pace_remote(k, ticket, rest),
            // The operator, or a caller outside the image, takes every
            // part at once.
            Sender::Operator(_) | Sender::Outside(_) => loop {
                let r = rest.next_part();
                let last = r.is_last();
                if !self.reply_to(to, ticket, r) || last {
                    return;
                }
            },
        }
    }

    /// An answer (`done` or not) or an error for `ticket` is being delivered
    /// to instance `a`, which reads paced streams.
    pub(crate) fn pace_delivery(&mut self, a: ActorId, ticket: Ticket, done: bool) {
        let actor = &mut self.actors[a];
        if !done && actor.paced.contains_key(&ticket) {
            // The requests of this call are what taking the part takes.
            actor.pacing = Some(ticket);
        } else if done {
            self.settled(a, ticket);
        }
    }

    /// Instance `a` made request `ticket` in the call delivering a part.
    pub(crate) fn pace_request(&mut self, a: ActorId, ticket: Ticket) {
        let actor = &mut self.actors[a];
        if let Some(t) = actor.pacing
            && let Some(p) = actor.paced.get_mut(&t)
        {
            p.awaiting.push(ticket);
        }
    }

    /// Instance `a` answers `to`'s request `ticket`, not for the last time:
    /// if `a` is taking a part, the part is taken only once `to` has taken
    /// this answer (`a` is a relay).
    pub(crate) fn pace_answer(&mut self, a: ActorId, to: Sender, ticket: Ticket) {
        let Some(t) = self.actors[a].pacing else {
            return;
        };
        let r = match to {
            Sender::Instance(r) => r,
            Sender::Remote(k) => return self.pace_relayed_out(a, t, k),
            _ => return,
        };
        if r == a || self.actors[r].dead {
            return;
        }
        let Some(serial) = self.stream_serial(a, t) else {
            return;
        };
        self.pace_serial += 1;
        let own = self.pace_serial;
        let at = self.actors[r].paced.entry(ticket).or_insert_with(|| Pace {
            rest: None,
            remote: None,
            serial: own,
            awaiting: Vec::new(),
            relayed: 0,
            relay: Some(Relay {
                from: a,
                ticket: t,
                serial,
                sent: 0,
                returned: 0,
            }),
        });
        // Answers to one request come from one relay's one stream; any
        // other mix is left unpaced rather than tied to the wrong part.
        match &mut at.relay {
            Some(rel) if (rel.from, rel.ticket, rel.serial) == (a, t, serial) => rel.sent += 1,
            _ => return,
        }
        self.count_relayed(a, t);
    }

    /// Which stream `a`'s stream `t` is (its serial), if `a` reads one.
    pub(crate) fn stream_serial(&self, a: ActorId, t: Ticket) -> Option<u64> {
        self.actors[a].paced.get(&t).map(|p| p.serial)
    }

    /// `a` relayed one more answer while taking a part of stream `t`.
    pub(crate) fn count_relayed(&mut self, a: ActorId, t: Ticket) {
        if let Some(p) = self.actors[a].paced.get_mut(&t) {
            p.relayed += 1;
        }
    }

    /// The call delivering a part to `a` has returned.
    pub(crate) fn pace_returned(&mut self, a: ActorId) {
        if let Some(t) = self.actors[a].pacing.take() {
            if let Some(Pace {
                relay: Some(rel), ..
            }) = self.actors[a].paced.get_mut(&t)
            {
                rel.returned += 1;
            }
            self.advance(a, t);
        }
    }

    /// `a` has stopped: the relays whose answers it was taking go on.
    pub(crate) fn pace_stopped(&mut self, a: ActorId) {
        let relays: Vec<Relay> = self.actors[a]
            .paced
            .drain()
            .filter_map(|(_, p)| p.relay)
            .collect();
        self.actors[a].pacing = None;
        for rel in relays {
            self.relayed_taken(rel.from, rel.ticket, rel.serial, rel.sent);
        }
    }

    /// `n` answers relayed by `a` while it took a part of stream `t`
    /// (`serial`) have been taken: the part is, once all of them are.
    pub(crate) fn relayed_taken(&mut self, a: ActorId, t: Ticket, serial: u64, n: u32) {
        let actor = &mut self.actors[a];
        let Some(p) = actor.paced.get_mut(&t) else {
            return;
        };
        if actor.dead || p.serial != serial {
            return;
        }
        p.relayed = p.relayed.saturating_sub(n);
        if p.relayed == 0 && actor.pacing != Some(t) {
            self.advance(a, t);
        }
    }

    /// `ticket` of `a` has had its last answer, or was cancelled (then the
    /// stream it names, if it is one, is read no further).
    pub(crate) fn settled(&mut self, a: ActorId, ticket: Ticket) {
        let actor = &mut self.actors[a];
        if let Some(Pace {
            relay: Some(rel), ..
        }) = actor.paced.remove(&ticket)
        {
            self.relayed_taken(rel.from, rel.ticket, rel.serial, rel.sent);
        }
        let actor = &mut self.actors[a];
        let waited: Vec<Ticket> = actor
            .paced
            .iter_mut()
            .filter_map(|(t, p)| {
                let at = p.awaiting.iter().position(|k| *k == ticket)?;
                p.awaiting.swap_remove(at);
                Some(*t)
            })
            .collect();
        for t in waited {
            if self.actors[a].pacing != Some(t) {
                self.advance(a, t);
            }
        }
    }

    /// The next part of stream `t` of `a`, if its last one is taken (and
    /// it is not being read already). A stream whose last part was slow
    /// to read has its next read on a worker, when there are workers.
    fn advance(&mut self, a: ActorId, t: Ticket) {
        let has_workers = self.has_workers();
        let Some(p) = self.actors[a].paced.get_mut(&t) else {
            return;
        };
        if !p.awaiting.is_empty() || p.relayed > 0 {
            return;
        }
        if let Some(rel) = &mut p.relay {
            // What was delivered of the relay's answers is taken.
            let (from, ticket, serial, n) = (rel.from, rel.ticket, rel.serial, rel.returned);
            rel.sent -= n.min(rel.sent);
            rel.returned = 0;
            if rel.sent == 0 {
                self.actors[a].paced.remove(&t);
            }
            return self.relayed_taken(from, ticket, serial, n);
        }
        if let Some(read) = &mut p.remote {
            if !read.asked {
                read.asked = true;
                let (proxy, id) = (read.proxy, read.id);
                self.ask_next_part(proxy, id);
            }
            return;
        }
        let Some(rest) = p.rest.as_mut() else {
            return;
        };
        if rest.slow && has_workers {
            let (serial, rest) = (p.serial, p.rest.take().expect("present"));
            return self.read_part_away(a, t, serial, rest);
        }
        let waiting = self.stall.begin(a, Wait::Part);
        let r = rest.next_part();
        self.stall_over(waiting);
        if r.is_last() {
            self.actors[a].paced.remove(&t);
        }
        self.reply_to(Sender::Instance(a), t, r);
    }

    /// A part of stream `t` of `a` read on a worker is back: delivered if
    /// the stream is still read (not cancelled, its reader not stopped).
    pub(crate) fn part_read(
        &mut self,
        a: ActorId,
        t: Ticket,
        serial: u64,
        rest: Box<Stream>,
        part: crate::natives::Reply,
    ) {
        let actor = &mut self.actors[a];
        if actor.dead {
            return;
        }
        let Some(p) = actor.paced.get_mut(&t) else {
            return;
        };
        if p.serial != serial {
            return;
        }
        if part.is_last() {
            self.actors[a].paced.remove(&t);
        } else {
            p.rest = Some(rest);
        }
        self.reply_to(Sender::Instance(a), t, part);
    }
}
