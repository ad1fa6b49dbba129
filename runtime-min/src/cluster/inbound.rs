//! What this node receives: requests for its instances, checked again
//! against its copy of the image, and answers to its own requests.

use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Instant;

use othc::model::Seg;
use othc::namespace::path::{parse_request, push_text};

use super::node::FromCluster;
use super::wire::{Request, Wire};
use super::{Origin, Sent};
use crate::ActorId;
use crate::abi::{Errno, Failure, RequestId, Ticket, errno};
use crate::view::Aim;
use crate::{Body, Event, Runtime, Sender, Serving, route};

impl Runtime<'_> {
    /// What came from the cluster; true when it gave the image work.
    pub(crate) fn cluster_event(&mut self, f: FromCluster) -> bool {
        match f {
            FromCluster::Wire(w) => {
                self.wire(w);
                !self.queue.is_empty()
            }
            FromCluster::Malformed(why) => {
                if let Some(t) = &mut self.io.trace {
                    let _ = writeln!(t, "cluster: dropped a malformed message {why}");
                }
                false
            }
            FromCluster::NoResponders { proxy, id } => {
                let proxy = self.actors.id_at(proxy);
                if let Some(proxy) =
                    proxy.filter(|p| matches!(self.actors[*p].body, Body::Remote(_)))
                {
                    // Never received: it does not count as sent.
                    if let Some(c) = &self.cluster {
                        c.node.counters.sent.fetch_sub(1, Ordering::SeqCst);
                    }
                    let name = &self.actors[proxy].name;
                    let desc = format!("no node runs `{name}` (none has joined, or all have left)");
                    self.fail_unavailable(proxy, id, desc);
                }
                !self.queue.is_empty()
            }
            FromCluster::Beat(b) => {
                if let Some(c) = &mut self.cluster {
                    c.beats.insert(b.node.clone(), (Instant::now(), b));
                }
                self.retry_untaken();
                !self.queue.is_empty()
            }
            FromCluster::NodeLost(node) => {
                self.lose_node(node);
                !self.queue.is_empty()
            }
            FromCluster::Note(what) => {
                let _ = writeln!(self.io.err, "cluster: {what}");
                false
            }
            FromCluster::Lost(why) => {
                let _ = writeln!(self.io.err, "error: the cluster is lost: {why}");
                self.ending.failed = true;
                self.ending.halted = true;
                false
            }
        }
    }
    pub(super) fn wire(&mut self, w: Wire) {
        match w {
            Wire::Request(r) => self.remote_request(r),
            Wire::Answer {
                to,
                id,
                done,
                payload,
                paced,
            } => {
                let Some((a, s, taken_by)) = self.settle(&to, id) else {
                    return;
                };
                let done = done || !s.stream;
                if !done && let (Some(c), Some(n)) = (&mut self.cluster, taken_by) {
                    // A stream goes on: the node that took it still holds it.
                    c.taken.insert(Sent { proxy: a, id }, n);
                }
                if paced && !done {
                    self.paced_in(a, id, &s);
                }
                self.pass_answer(a, id, s, done, payload);
            }
            Wire::Error { to, id, failure } => {
                let Some((_, s, _)) = self.settle(&to, id) else {
                    return;
                };
                self.queue
                    .push_back(Event::error(s.from, s.ticket, failure));
            }
            Wire::Taken { to, id, node } => {
                let Some(a) = self.remote_index(&to) else {
                    return;
                };
                if let Some(c) = &mut self.cluster {
                    c.untaken.remove(&Sent { proxy: a, id });
                    if self.actors[a].serving.contains_key(&id) {
                        c.taken.insert(Sent { proxy: a, id }, node);
                    }
                }
            }
            Wire::Cancel { reply, to, id } => {
                let Some(cluster) = &mut self.cluster else {
                    return;
                };
                let Some(&k) = cluster.by_origin.get(&Origin { reply, to, id }) else {
                    return;
                };
                let relayed = cluster.forget_caller(k);
                self.forget_relayed(relayed);
                self.withdraw(Sender::Remote(k), None);
            }
            Wire::Took { reply, to, id } => self.took(reply, to, id),
        }
    }

    /// Request `id` to the proxy named `to` is answered: the proxy, the
    /// request (out of the proxy's table, and of those of requests untaken
    /// and taken) and the node that took it, if this node sent it and
    /// still waits for it.
    fn settle(&mut self, to: &str, id: RequestId) -> Option<(ActorId, Serving, Option<String>)> {
        let a = self.remote_index(to)?;
        let (s, taken_by) = self.settle_at(a, id)?;
        Some((a, s, taken_by))
    }

    /// [`Runtime::settle`] for proxy `a`: the request and who took it.
    fn settle_at(&mut self, a: ActorId, id: RequestId) -> Option<(Serving, Option<String>)> {
        let s = self.actors[a].serving.remove(&id)?;
        let taken_by = self.cluster.as_mut().and_then(|c| {
            c.untaken.remove(&Sent { proxy: a, id });
            c.taken.remove(&Sent { proxy: a, id })
        });
        Some((s, taken_by))
    }

    /// Request `id` to proxy `a` fails `unavailable` for its caller, as
    /// `desc` says (a lost node, nobody taking it), if it still waits.
    pub(super) fn fail_unavailable(&mut self, a: ActorId, id: RequestId, desc: String) {
        if let Some((s, _)) = self.settle_at(a, id) {
            self.fail_to(s.from, s.ticket, errno::UNAVAILABLE, desc);
        }
    }

    /// Instance `name`, by the cluster's table of names.
    fn named(&self, name: &str) -> Option<ActorId> {
        self.cluster.as_ref()?.by_name.get(name).copied()
    }

    /// The proxy named `name`, if there is one.
    pub(super) fn remote_index(&self, name: &str) -> Option<ActorId> {
        self.named(name)
            .filter(|a| matches!(self.actors[*a].body, Body::Remote(_)))
    }

    /// A request another node sent to instance `to` here: checked again
    /// against this node's copy of the image, then delivered.
    fn remote_request(&mut self, r: Request) {
        let (from, to, id, verb, path) = (&r.from, &r.to, r.id, r.verb, &r.path);
        let reply = &r.reply;
        let refuse = |rt: &mut Self, errno: Errno, desc: String| {
            if let Some(c) = &rt.cluster {
                let w = Wire::Error {
                    to: to.clone(),
                    id,
                    failure: Failure::runtime(errno, desc),
                };
                c.publish(reply.clone(), &w);
            }
        };
        let local = self.named(to).filter(|t| self.is_local(*t));
        let sender = self.named(from);
        let (Some(t), Some(s)) = (local, sender) else {
            return refuse(self, errno::NOT_FOUND, format!("no instance `{to}` here"));
        };
        let Some(segs) = parse_request(path) else {
            return refuse(self, errno::INVALID, format!("malformed path `{path}`"));
        };
        let Some(readonly) = self.sent_through_view(s, t, verb, &segs) else {
            return refuse(
                self,
                errno::FORBIDDEN,
                format!(
                    "`{from}` has no way to {} `{path}` of `{to}`",
                    verb.as_str()
                ),
            );
        };
        let Some(cluster) = &mut self.cluster else {
            return;
        };
        let taken = Wire::Taken {
            to: to.clone(),
            id,
            node: cluster.name.clone(),
        };
        cluster.publish(reply.clone(), &taken);
        cluster.next_caller = cluster.next_caller.wrapping_add(1);
        let k = cluster.next_caller;
        let origin = Origin {
            reply: reply.clone(),
            to: to.clone(),
            id,
        };
        cluster.by_origin.insert(origin.clone(), k);
        cluster.callers.insert(k, origin);
        let req = Serving::sent(
            Sender::Remote(k),
            Ticket(k as i32),
            verb,
            r.flags,
            r.payload,
        );
        self.deliver_checked(t, req, segs.into(), readonly);
    }

    /// Whether instance `s`'s view as the image gave it leads to `segs` of
    /// instance `t`, for a request its needs allow: the way's read-only
    /// flag, if so.
    fn sent_through_view(
        &mut self,
        s: ActorId,
        t: ActorId,
        verb: othc::model::Verb,
        segs: &[Seg],
    ) -> Option<bool> {
        let cluster = self.cluster.as_ref()?;
        let links = &cluster.static_views[s.index()];
        for l in links.iter().filter(|l| l.target == t) {
            let Some(rest) = segs.strip_prefix(&l.path[..]) else {
                continue;
            };
            let mut written = String::new();
            let mut at: Vec<Seg> = l.at.to_vec();
            at.extend_from_slice(rest);
            push_text(&mut written, &at);
            let aim = Aim::new(links, &written);
            let sender = &self.actors[s];
            let (model, obj) = &*sender.header;
            let mut passed = None;
            if let Ok((to, path, readonly)) =
                route::admit(&sender.name, model, obj, verb, aim, &mut passed)
                && to == t
                && *path == *segs
            {
                return Some(readonly);
            }
        }
        None
    }
}
