//! What this node sends: requests to instances run elsewhere (and again,
//! when no node took them), cancels, and answers to other nodes' requests.

use std::sync::atomic::Ordering;
use std::time::Instant;

use othc::model::Seg;
use othc::namespace::path::push_text;

use super::wire::{Request, Wire};
use super::{LOST, Sent, TRIES, Untaken};
use crate::ActorId;
use crate::abi::{RequestId, errno};
use crate::{Body, Runtime, Sender, Serving};

impl Runtime<'_> {
    /// Request `req` to instance `to`, run elsewhere: sent to it.
    pub(crate) fn serve_remote(&mut self, to: ActorId, mut req: Serving, path: &[Seg]) {
        let Some(cluster) = &self.cluster else {
            return;
        };
        // Who routed it: the last instance that forwarded it, or its sender.
        let router = match (req.forwarded.last(), req.from) {
            (Some(a), _) => Some(*a),
            (None, Sender::Instance(a)) => Some(a),
            (None, _) => None,
        };
        let from = match router {
            Some(a) => self.actors[a].name.clone(),
            None => {
                let name = self.actors[to].name.clone();
                return self.fail_to(
                    req.from,
                    req.ticket,
                    errno::FORBIDDEN,
                    format!("`{name}` runs on another node: only instances may send to it there"),
                );
            }
        };
        let Body::Remote(remote) = &self.actors[to].body else {
            return;
        };
        let subject = remote.subject.clone();
        let size = req.payload.as_ref().map_or(0, |p| p.data.len());
        if size + 1024 > cluster.node.max_payload {
            let limit = cluster.node.max_payload;
            return self.fail_to(
                req.from,
                req.ticket,
                errno::TOO_LARGE,
                format!(
                    "the payload is {size} bytes: a message between nodes holds at most {limit} bytes (the NATS servers' max_payload), less 1 KiB for the request itself"
                ),
            );
        }
        let mut text = String::new();
        push_text(&mut text, path);
        let actor = &mut self.actors[to];
        actor.next_id.0 += 1;
        let id = actor.next_id;
        let w = Wire::Request(Request {
            from,
            to: actor.name.clone(),
            id,
            verb: req.verb,
            path: text,
            flags: req.flags,
            // Sent, not kept: the request waits for its answer without it.
            payload: req.payload.take(),
            reply: cluster.reply.clone(),
        });
        actor.serving.insert(id, req);
        let bytes = w.encode();
        cluster.node.counters.sent.fetch_add(1, Ordering::SeqCst);
        cluster
            .node
            .request(subject.clone(), to.index(), id, bytes.clone());
        if let Some(c) = &mut self.cluster {
            c.untaken.insert(
                Sent { proxy: to, id },
                Untaken {
                    since: Instant::now(),
                    tries: 1,
                    subject,
                    bytes,
                },
            );
        }
    }

    /// Requests sent from here that no node has taken within `LOST`: sent
    /// again (to whichever replica NATS picks; never delivered, so sending
    /// again is safe), at most `TRIES` times in all; then they fail.
    pub(super) fn retry_untaken(&mut self) {
        let Some(c) = &mut self.cluster else { return };
        let due: Vec<Sent> = c
            .untaken
            .iter()
            .filter(|(_, u)| u.since.elapsed() > LOST)
            .map(|(k, _)| *k)
            .collect();
        let mut failed = Vec::new();
        for k in due {
            let Some(u) = c.untaken.get_mut(&k) else {
                continue;
            };
            if u.tries < TRIES {
                u.tries += 1;
                u.since = Instant::now();
                c.node
                    .request(u.subject.clone(), k.proxy.index(), k.id, u.bytes.clone());
            } else {
                c.untaken.remove(&k);
                // Never received: it does not count as sent.
                c.node.counters.sent.fetch_sub(1, Ordering::SeqCst);
                failed.push(k);
            }
        }
        for Sent { proxy: a, id } in failed {
            let to = &self.actors[a].name;
            let desc = format!(
                "no node took the request to `{to}` ({TRIES} tries, {} ms each)",
                LOST.as_millis()
            );
            self.fail_unavailable(a, id, desc);
        }
    }

    /// Request `id` to instance `to`, run elsewhere, was cancelled here.
    pub(crate) fn cancel_remote(&mut self, to: ActorId, id: RequestId) {
        if let Some(cluster) = &mut self.cluster {
            cluster.taken.remove(&Sent { proxy: to, id });
            cluster.untaken.remove(&Sent { proxy: to, id });
            let w = Wire::Cancel {
                reply: cluster.reply.clone(),
                to: self.actors[to].name.clone(),
                id,
            };
            cluster.publish(format!("{}.cancel", cluster.prefix), &w);
        }
    }

    /// An answer or error for the request another node sent (`k`).
    pub(crate) fn answer_remote(
        &mut self,
        k: u32,
        w: impl FnOnce(String, RequestId) -> Wire,
        last: bool,
    ) {
        let Some(cluster) = &mut self.cluster else {
            return;
        };
        let Some(c) = cluster.callers.get(&k) else {
            return;
        };
        let msg = w(c.to.clone(), c.id);
        let reply = c.reply.clone();
        let relayed = if last { cluster.forget_caller(k) } else { None };
        cluster.publish(reply, &msg);
        self.forget_relayed(relayed);
    }

    /// Whether the caller on another node gave up on its request `k`.
    pub(crate) fn remote_abandoned(&self, k: u32) -> bool {
        self.cluster
            .as_ref()
            .is_none_or(|c| !c.callers.contains_key(&k))
    }
}
