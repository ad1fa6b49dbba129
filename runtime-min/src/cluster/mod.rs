//! One image on several nodes (`--cluster`, book: reference/cluster.md).
//! Every node loads the same bundle; each runs the instances placed on it
//! (`--instances`), and stands in for every other instance with a proxy
//! (`Body::Remote`) that has its header and its view but no code. A
//! request to a proxy is checked here as any other (needs, view,
//! read-only, the receiver's serves), then published on the instance's
//! subject (a queue group: one of its replicas takes it). The node that
//! takes it checks it again against its own copy of the bundle: the path
//! must be one the sender's static view leads to that instance through,
//! and the sender's needs must allow it; else it is refused and nothing
//! is delivered. Answers and errors go back to the sending node, which
//! hands them on as its own instance's would be.

pub mod node;
pub mod wire;

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::sync::atomic::Ordering;
use std::time::Instant;

use othc::model::Seg;
use othc::namespace::path::{parse_request, push_text};

use crate::abi::errno;
use crate::view::{Aim, Link};
use crate::{Body, Event, Payload, Runtime, Sender, Serving, route};
use node::{Beat, FromCluster, Node};
use wire::Wire;

/// A node not heard from for this long is lost; a request no node took
/// within it is sent again.
const LOST: std::time::Duration = std::time::Duration::from_millis(1000);

/// How many times a request is sent before it fails for want of a node
/// to take it.
const TRIES: u8 = 3;

/// How a node joins a cluster (`othismo-run --cluster`).
#[derive(Clone, Debug, Default)]
pub struct ClusterConfig {
    /// `nats://host:port` of each NATS server.
    pub servers: Vec<String>,
    /// The instances this node runs.
    pub instances: Vec<String>,
    /// User and password for the NATS servers.
    pub user: Option<(String, String)>,
}

/// The cluster as the event loop sees it.
pub(crate) struct Cluster {
    node: Node,
    /// This node's name.
    name: String,
    /// `oth.<hash>`: the subjects of this bundle.
    prefix: String,
    /// Where answers to this node's requests go.
    reply: String,
    /// Requests other nodes sent to instances here, by the key they carry
    /// here as their sender (`Sender::Remote`).
    callers: HashMap<u32, Caller>,
    by_origin: HashMap<(String, String, i32), u32>,
    next_caller: u32,
    /// Each instance's view as the image gave it: what a sender on another
    /// node is checked against.
    static_views: Vec<Vec<Link>>,
    /// The last heartbeat of each node, and when it came.
    beats: HashMap<String, (Instant, Beat)>,
    /// The totals of the last look at a quiet cluster.
    last_quiet: Option<(u64, u64)>,
    /// Which node took each request sent from here (by proxy and id).
    taken: HashMap<(usize, i32), String>,
    /// Requests sent from here that no node has said it took yet.
    untaken: HashMap<(usize, i32), Untaken>,
}

/// A request no node has taken yet, kept to be sent again.
struct Untaken {
    since: Instant,
    tries: u8,
    subject: String,
    token: String,
    bytes: Vec<u8>,
}

/// A request another node sent to an instance here.
struct Caller {
    reply: String,
    /// The instance it was sent to, and its id on the sending node.
    to: String,
    id: i32,
}

/// A proxy for an instance run by other nodes.
pub(crate) struct Remote {
    subject: String,
}

impl Cluster {
    pub(crate) fn new(
        node: Node,
        name: String,
        prefix: String,
        static_views: Vec<Vec<Link>>,
    ) -> Cluster {
        let reply = node.reply.clone();
        Cluster {
            node,
            name,
            prefix,
            reply,
            callers: HashMap::new(),
            by_origin: HashMap::new(),
            next_caller: 0,
            static_views,
            beats: HashMap::new(),
            last_quiet: None,
            taken: HashMap::new(),
            untaken: HashMap::new(),
        }
    }

    fn publish(&self, subject: String, w: &Wire) {
        if w.is_work() {
            self.node.counters.sent.fetch_add(1, Ordering::SeqCst);
        }
        self.node.publish(subject, w.encode());
    }
}

/// The names `c` places on this node, each checked to be an instance of
/// the image.
pub(crate) fn placed_here(
    json: &othc::bundle::ImageJson,
    c: &ClusterConfig,
) -> Result<HashSet<String>, crate::LoadError> {
    if c.instances.is_empty() {
        return Err(crate::LoadError(
            "--cluster needs --instances: the instances this node runs".into(),
        ));
    }
    let all: Vec<&str> = json.instances.iter().map(|i| i.name.as_str()).collect();
    let mut here = HashSet::new();
    for name in &c.instances {
        if !all.contains(&name.as_str()) {
            return Err(crate::LoadError(format!(
                "--instances names `{name}`, which is no instance of the image (its instances: {})",
                all.join(", ")
            )));
        }
        here.insert(name.clone());
    }
    Ok(here)
}

/// `oth.<the bundle's hash>`: the subjects of one bundle, so nodes that
/// load different bundles never take each other's messages.
pub(crate) fn prefix_of(bundle: &[u8]) -> String {
    use sha2::Digest;
    let h = sha2::Sha256::digest(bundle);
    let hex: String = h[..8].iter().map(|b| format!("{b:02x}")).collect();
    format!("oth.{hex}")
}

impl Remote {
    pub(crate) fn new(prefix: &str, name: &str) -> Remote {
        Remote {
            subject: format!("{prefix}.i.{}", node::token(name)),
        }
    }
}

impl Runtime<'_> {
    /// Joins the cluster as the node running `here`.
    pub(crate) fn join(
        &mut self,
        c: &ClusterConfig,
        here: &HashSet<String>,
        prefix: String,
        static_views: Vec<Vec<Link>>,
        bundle: &[u8],
    ) -> Result<(), crate::LoadError> {
        let name = node_name();
        let tx = self.inbox.sender();
        let joining = node::Joining {
            servers: c.servers.clone(),
            user: c.user.clone(),
            node: name.clone(),
            image: node::token(&self.json.image),
            hash: prefix.trim_start_matches("oth.").to_string(),
            serves: here.iter().map(|n| node::token(n)).collect(),
        };
        let _ = bundle;
        let deliver = Box::new(move |f| {
            let _ = tx.send(crate::outside::Outside::Cluster(f));
        });
        let node = node::start(joining, prefix.clone(), deliver)
            .map_err(|e| crate::LoadError(format!("cannot join the cluster: {e}")))?;
        let mut running: Vec<&str> = here.iter().map(String::as_str).collect();
        running.sort();
        let _ = writeln!(
            self.io.err,
            "joined the cluster at {} as node {name}, running {}",
            c.servers.join(","),
            running.join(", ")
        );
        self.cluster = Some(Cluster::new(node, name, prefix, static_views));
        // A node leaves the cluster on SIGINT or SIGTERM.
        self.inbox.watch_signals();
        Ok(())
    }

    /// Whether instance `a` runs on this node.
    pub(crate) fn is_local(&self, a: usize) -> bool {
        !matches!(self.actors[a].body, Body::Remote(_))
    }

    /// Request `req` to instance `to`, run elsewhere: sent to it.
    pub(crate) fn serve_remote(&mut self, to: usize, req: Serving, path: &[Seg]) {
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
        let token = node::token(&self.actors[to].name);
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
        actor.next_id += 1;
        let id = actor.next_id;
        let w = Wire::Request {
            from,
            to: actor.name.clone(),
            id,
            verb: req.verb,
            path: text,
            flags: req.flags,
            payload: req.payload.clone(),
            reply: cluster.reply.clone(),
        };
        actor.serving.insert(id, req);
        let bytes = w.encode();
        cluster.node.counters.sent.fetch_add(1, Ordering::SeqCst);
        cluster
            .node
            .request(subject.clone(), &token, id, bytes.clone());
        if let Some(c) = &mut self.cluster {
            c.untaken.insert(
                (to, id),
                Untaken {
                    since: Instant::now(),
                    tries: 1,
                    subject,
                    token,
                    bytes,
                },
            );
        }
    }

    /// Requests sent from here that no node has taken within `LOST`: sent
    /// again (to whichever replica NATS picks; never delivered, so sending
    /// again is safe), at most `TRIES` times in all; then they fail.
    fn retry_untaken(&mut self) {
        let Some(c) = &mut self.cluster else { return };
        let due: Vec<(usize, i32)> = c
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
                    .request(u.subject.clone(), &u.token, k.1, u.bytes.clone());
            } else {
                c.untaken.remove(&k);
                // Never received: it does not count as sent.
                c.node.counters.sent.fetch_sub(1, Ordering::SeqCst);
                failed.push(k);
            }
        }
        for (a, id) in failed {
            let to = self.actors[a].name.clone();
            let desc = format!(
                "no node took the request to `{to}` ({TRIES} tries, {} ms each)",
                LOST.as_millis()
            );
            self.wire(Wire::Error {
                to,
                id,
                errno: errno::UNAVAILABLE,
                code: errno::code(errno::UNAVAILABLE).into(),
                desc,
            });
        }
    }

    /// Request `id` to instance `to`, run elsewhere, was cancelled here.
    pub(crate) fn cancel_remote(&mut self, to: usize, id: i32) {
        if let Some(cluster) = &mut self.cluster {
            cluster.taken.remove(&(to, id));
            cluster.untaken.remove(&(to, id));
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
        w: impl FnOnce(String, i32) -> Wire,
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
        if last && let Some(c) = cluster.callers.remove(&k) {
            cluster.by_origin.remove(&(c.reply, c.to, c.id));
        }
        cluster.publish(reply, &msg);
    }

    /// Whether the caller on another node gave up on its request `k`.
    pub(crate) fn remote_abandoned(&self, k: u32) -> bool {
        self.cluster
            .as_ref()
            .is_none_or(|c| !c.callers.contains_key(&k))
    }

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
            FromCluster::NoResponders { to, id } => {
                let name = self
                    .actors
                    .iter()
                    .find(|a| matches!(a.body, Body::Remote(_)) && node::token(&a.name) == to)
                    .map(|a| a.name.clone());
                if let Some(name) = name {
                    // Never received: it does not count as sent.
                    if let Some(c) = &self.cluster {
                        c.node.counters.sent.fetch_sub(1, Ordering::SeqCst);
                    }
                    let desc = format!("no node runs `{name}` (none has joined, or all have left)");
                    self.wire(Wire::Error {
                        to: name,
                        id,
                        errno: errno::UNAVAILABLE,
                        code: errno::code(errno::UNAVAILABLE).into(),
                        desc,
                    });
                }
                !self.queue.is_empty()
            }
            FromCluster::Beat(b) => {
                if let Some(c) = &mut self.cluster {
                    c.beats.insert(b.node.clone(), (Instant::now(), b));
                }
                self.lose_silent_nodes();
                self.retry_untaken();
                !self.queue.is_empty()
            }
            FromCluster::Lost(why) => {
                let _ = writeln!(self.io.err, "error: the cluster is lost: {why}");
                self.failed = true;
                self.halted = true;
                false
            }
        }
    }

    fn wire(&mut self, w: Wire) {
        match w {
            Wire::Request {
                from,
                to,
                id,
                verb,
                path,
                flags,
                payload,
                reply,
            } => self.remote_request(from, to, id, verb, path, flags, payload, reply),
            Wire::Answer {
                to,
                id,
                done,
                payload,
            } => {
                let Some(a) = self.remote_index(&to) else {
                    return;
                };
                let Some(s) = self.actors[a].serving.remove(&id) else {
                    return;
                };
                let done = done || !s.stream;
                if let Some(c) = &mut self.cluster {
                    c.untaken.remove(&(a, id));
                    if done {
                        c.taken.remove(&(a, id));
                    }
                }
                self.queue.push_back(Event::Answer {
                    to: s.from,
                    ticket: s.ticket,
                    done,
                    payload,
                });
                if !done {
                    self.actors[a].serving.insert(id, s);
                }
            }
            Wire::Error {
                to,
                id,
                errno,
                code,
                desc,
            } => {
                let Some(a) = self.remote_index(&to) else {
                    return;
                };
                let Some(s) = self.actors[a].serving.remove(&id) else {
                    return;
                };
                if let Some(c) = &mut self.cluster {
                    c.untaken.remove(&(a, id));
                    c.taken.remove(&(a, id));
                }
                self.queue.push_back(Event::Error {
                    to: s.from,
                    ticket: s.ticket,
                    errno,
                    code,
                    desc,
                });
            }
            Wire::Taken { to, id, node } => {
                let Some(a) = self.remote_index(&to) else {
                    return;
                };
                if let Some(c) = &mut self.cluster {
                    c.untaken.remove(&(a, id));
                    if self.actors[a].serving.contains_key(&id) {
                        c.taken.insert((a, id), node);
                    }
                }
            }
            Wire::Cancel { reply, to, id } => {
                let Some(cluster) = &mut self.cluster else {
                    return;
                };
                let Some(k) = cluster.by_origin.remove(&(reply, to, id)) else {
                    return;
                };
                cluster.callers.remove(&k);
                self.withdraw(Sender::Remote(k), None);
            }
        }
    }

    /// Nodes not heard from for `LOST` are gone: requests they took fail
    /// (`unavailable`), and what they asked of the instances here is
    /// withdrawn (their streams end, their requests are cancelled).
    fn lose_silent_nodes(&mut self) {
        let Some(c) = &mut self.cluster else { return };
        let lost: Vec<String> = c
            .beats
            .iter()
            .filter(|(_, (at, _))| at.elapsed() > LOST)
            .map(|(n, _)| n.clone())
            .collect();
        for node in lost {
            let Some(c) = &mut self.cluster else { return };
            c.beats.remove(&node);
            let failed: Vec<(usize, i32)> = c
                .taken
                .iter()
                .filter(|(_, n)| **n == node)
                .map(|(k, _)| *k)
                .collect();
            let their_reply = format!("{}.n.{node}", c.prefix);
            let callers: Vec<u32> = c
                .callers
                .iter()
                .filter(|(_, caller)| caller.reply == their_reply)
                .map(|(k, _)| *k)
                .collect();
            for k in &callers {
                if let Some(caller) = c.callers.remove(k) {
                    c.by_origin.remove(&(caller.reply, caller.to, caller.id));
                }
            }
            let _ = writeln!(
                self.io.err,
                "cluster: node {node} is lost (no heartbeat for {} ms): {} request(s) it took fail",
                LOST.as_millis(),
                failed.len()
            );
            for (a, id) in failed {
                let to = self.actors[a].name.clone();
                let desc = format!("node {node}, which took the request to `{to}`, is lost");
                self.wire(Wire::Error {
                    to,
                    id,
                    errno: errno::UNAVAILABLE,
                    code: errno::code(errno::UNAVAILABLE).into(),
                    desc,
                });
            }
            for k in callers {
                self.withdraw(Sender::Remote(k), None);
            }
        }
    }

    /// The proxy named `name`, if there is one.
    fn remote_index(&self, name: &str) -> Option<usize> {
        self.actors
            .iter()
            .position(|a| a.name == name && matches!(a.body, Body::Remote(_)))
    }

    /// A request another node sent to instance `to` here: checked again
    /// against this node's copy of the image, then delivered.
    #[allow(clippy::too_many_arguments)] // the request's parts, as they came
    fn remote_request(
        &mut self,
        from: String,
        to: String,
        id: i32,
        verb: othc::model::Verb,
        path: String,
        flags: i32,
        payload: Option<Payload>,
        reply: String,
    ) {
        let refuse = |rt: &mut Self, errno: i32, desc: String| {
            if let Some(c) = &rt.cluster {
                let w = Wire::Error {
                    to: to.clone(),
                    id,
                    errno,
                    code: errno::code(errno).into(),
                    desc,
                };
                c.publish(reply.clone(), &w);
            }
        };
        let local = self
            .actors
            .iter()
            .position(|a| a.name == to && !matches!(a.body, Body::Remote(_)));
        let sender = self.actors.iter().position(|a| a.name == from);
        let (Some(t), Some(s)) = (local, sender) else {
            return refuse(self, errno::NOT_FOUND, format!("no instance `{to}` here"));
        };
        let Some(segs) = parse_request(&path) else {
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
        cluster.by_origin.insert((reply.clone(), to.clone(), id), k);
        cluster.callers.insert(k, Caller { reply, to, id });
        let req = Serving {
            from: Sender::Remote(k),
            ticket: k as i32,
            verb,
            flags,
            payload,
            stream: false,
            forwarded: Vec::new(),
        };
        self.deliver_checked(t, req, segs.into(), readonly);
    }

    /// Whether instance `s`'s view as the image gave it leads to `segs` of
    /// instance `t`, for a request its needs allow: the way's read-only
    /// flag, if so.
    fn sent_through_view(
        &mut self,
        s: usize,
        t: usize,
        verb: othc::model::Verb,
        segs: &[Seg],
    ) -> Option<bool> {
        let cluster = self.cluster.as_ref()?;
        let links = &cluster.static_views[s];
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

    /// Whether being in a cluster keeps this node running, idle as it is.
    /// A node that runs the console ends as a local run does, once its
    /// input has ended, but only when nothing is moving anywhere in the
    /// cluster (the console may still be written to); a node without it
    /// serves until SIGINT or SIGTERM.
    pub(crate) fn cluster_holds(&mut self) -> bool {
        if self.cluster.is_none() || self.halted || self.stopping.is_some() {
            return false;
        }
        let console_here = self
            .actors
            .iter()
            .any(|a| matches!(a.body, Body::Console(_)));
        !(console_here && self.input_ended && self.cluster_quiet())
    }

    /// This node says whether it is idle, for the others' heartbeats.
    pub(crate) fn cluster_idle(&self, idle: bool) {
        if let Some(c) = &self.cluster {
            c.node.counters.idle.store(idle, Ordering::SeqCst);
        }
    }

    /// Whether the whole cluster is quiet: every node heard from lately is
    /// idle, every message sent has been received, and the totals are the
    /// ones of the last look (so nothing moved in between).
    pub(crate) fn cluster_quiet(&mut self) -> bool {
        let Some(c) = &mut self.cluster else {
            return true;
        };
        let fresh = node::BEAT * 4;
        c.beats.retain(|_, (at, _)| at.elapsed() < fresh);
        let (mut sent, mut received) = (
            c.node.counters.sent.load(Ordering::SeqCst),
            c.node.counters.received.load(Ordering::SeqCst),
        );
        let mut idle = true;
        // This node's own heartbeat comes back too: its counts are taken
        // as they are now instead.
        for (_, b) in c.beats.values().filter(|(_, b)| b.node != c.name) {
            idle &= b.idle;
            sent += b.sent;
            received += b.received;
        }
        let totals = (sent, received);
        let quiet = idle && sent == received && c.last_quiet == Some(totals);
        c.last_quiet = (idle && sent == received).then_some(totals);
        quiet
    }
}

/// A name for this node no other node has: the host's name, the process
/// id and the time it started.
fn node_name() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|h| node::token(h.trim()))
        .unwrap_or_else(|_| "node".into());
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64);
    format!("{host}-{}-{:x}", std::process::id(), t & 0xffff_ffff)
}
