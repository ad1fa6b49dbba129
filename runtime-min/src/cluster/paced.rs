//! Streams read at their reader's pace across nodes. A paced stream (a big
//! file of `Files`) answering a caller on another node is kept where it is
//! read, and only its next part is sent: its answers say `paced`, and the
//! reader's node says `took` once its instance has taken a part (as
//! `pace.rs` defines taking), which sends the next. So a file crosses
//! nodes at the pace of whoever reads it, a part or two at a time, as it
//! does within one node. A reader that is not an instance (a startup
//! request, or a caller on a third node the stream is passed on to) takes
//! each part at once.

use super::RelayedOut;
use super::wire::Wire;
use crate::ActorId;
use crate::abi::{RequestId, Ticket};
use crate::natives::files::Stream;
use crate::pace::{Pace, RemoteRead};
use crate::{Runtime, Sender, Serving};

impl Runtime<'_> {
    /// Whether the answers to the caller on another node `k` are paced:
    /// parts of a paced stream, or answers a relay sends while it takes a
    /// part. Its node says when its reader took one (`took`).
    pub(crate) fn paced_out(&self, k: u32) -> bool {
        self.cluster
            .as_ref()
            .is_some_and(|c| c.paced_out.contains_key(&k) || c.relayed_out.contains_key(&k))
    }

    /// Relay `a`, taking a part of its stream `t`, answers the caller on
    /// another node `k`: the part is taken once that answer is, there.
    pub(crate) fn pace_relayed_out(&mut self, a: ActorId, t: Ticket, k: u32) {
        let Some(serial) = self.stream_serial(a, t) else {
            return;
        };
        let Some(c) = &mut self.cluster else { return };
        if !c.callers.contains_key(&k) {
            return;
        }
        let out = c.relayed_out.entry(k).or_insert(RelayedOut {
            from: a,
            ticket: t,
            serial,
            sent: 0,
        });
        // One caller's answers come from one relay's one stream; any other
        // mix is left unpaced rather than tied to the wrong part.
        if (out.from, out.ticket, out.serial) != (a, t, serial) {
            return;
        }
        out.sent += 1;
        self.count_relayed(a, t);
    }

    /// The answers relayed to a caller on another node that is gone (or
    /// whose reader took them) count as taken.
    pub(crate) fn forget_relayed(&mut self, relayed: Option<RelayedOut>) {
        if let Some(r) = relayed {
            self.relayed_taken(r.from, r.ticket, r.serial, r.sent);
        }
    }

    /// `rest` of the stream answering `ticket` of the caller on another
    /// node `k`: its first part now, the next each time its reader took
    /// the last.
    pub(crate) fn pace_remote(&mut self, k: u32, ticket: Ticket, mut rest: Box<Stream>) {
        let part = rest.next_part();
        if !part.is_last()
            && let Some(c) = &mut self.cluster
            && c.callers.contains_key(&k)
        {
            c.paced_out.insert(k, (ticket, rest));
        }
        self.reply_to(Sender::Remote(k), ticket, part);
    }

    /// The reader of the stream answering request `id` to `to`, of the
    /// node whose answers go to `reply`, took its last part.
    pub(super) fn took(&mut self, reply: String, to: String, id: RequestId) {
        let Some(c) = &mut self.cluster else { return };
        let Some(&k) = c.by_origin.get(&super::Origin { reply, to, id }) else {
            return;
        };
        // The reader there took the answers in order: those relayed to it
        // before this word came are taken (at most a part's worth of them
        // can still be on their way, so the relay is never more than a
        // part ahead of its reader).
        if let Some(out) = c.relayed_out.remove(&k) {
            return self.forget_relayed(Some(out));
        }
        let Some((ticket, mut rest)) = c.paced_out.remove(&k) else {
            return;
        };
        let part = rest.next_part();
        if !part.is_last() {
            c.paced_out.insert(k, (ticket, rest));
        }
        self.reply_to(Sender::Remote(k), ticket, part);
    }

    /// A part of a paced stream, answering request `id` to proxy `a` (`s`),
    /// came: its reader takes it at its pace (an instance), or at once.
    pub(super) fn paced_in(&mut self, a: ActorId, id: RequestId, s: &Serving) {
        match s.from {
            Sender::Instance(r) if !self.actors[r].dead => {
                self.pace_serial += 1;
                let serial = self.pace_serial;
                let read = RemoteRead {
                    proxy: a,
                    id,
                    asked: false,
                };
                match self.actors[r].paced.get_mut(&s.ticket) {
                    Some(p) => p.remote = Some(read),
                    None => {
                        self.actors[r]
                            .paced
                            .insert(s.ticket, Pace::remote(serial, read));
                    }
                }
            }
            _ => self.ask_next_part(a, id),
        }
    }

    /// Asks the node that took request `id` to proxy `a` for the next part
    /// of the stream answering it.
    pub(crate) fn ask_next_part(&mut self, a: ActorId, id: RequestId) {
        let Some(c) = &self.cluster else { return };
        let Some(node) = c.taken.get(&super::Sent { proxy: a, id }) else {
            return;
        };
        let w = Wire::Took {
            reply: c.reply.clone(),
            to: self.actors[a].name.clone(),
            id,
        };
        c.publish(format!("{}.n.{node}", c.prefix), &w);
    }
}
