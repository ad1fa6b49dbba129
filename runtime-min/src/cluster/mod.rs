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

pub mod args;
pub mod credentials;
mod inbound;
mod liveness;
pub mod node;
mod outbound;
mod paced;
pub mod wire;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::Ordering;
use std::time::Instant;

use crate::ActorId;
use crate::abi::{RequestId, Ticket};
use crate::view::Link;
use crate::{Body, Runtime};
// A request no node took within a lost node's silence is sent again.
use node::{Beat, LOST, Node};
use wire::Wire;

/// How many times a request is sent before it fails for want of a node
/// to take it.
const TRIES: u8 = 3;

/// How a node joins a cluster (`othismo-run --cluster`).
#[derive(Clone, Debug, Default)]
pub struct ClusterConfig {
    /// `nats://host:port` of each NATS server.
    pub servers: Vec<String>,
    /// The instances this node runs (or, with `placement`, none: the
    /// placement's node says).
    pub instances: Vec<String>,
    /// A placement file, and the node of it this process is.
    pub placement: Option<PlacementChoice>,
    /// What this node presents to the NATS servers.
    pub credentials: credentials::Credentials,
}

/// `--placement FILE --node NAME`.
#[derive(Clone, Debug, Default)]
pub struct PlacementChoice {
    /// The file's name, as the user gave it.
    pub file: String,
    pub text: String,
    pub node: String,
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
    /// here as their sender (`Sender::Remote`), and that key by where they
    /// came from.
    callers: HashMap<u32, Origin>,
    by_origin: HashMap<Origin, u32>,
    next_caller: u32,
    /// Each instance's view as the image gave it: what a sender on another
    /// node is checked against.
    static_views: Vec<Vec<Link>>,
    /// Each instance by name: what messages name them by.
    by_name: HashMap<String, ActorId>,
    /// The last heartbeat of each node, and when it came.
    beats: HashMap<String, (Instant, Beat)>,
    /// The totals of the last look at a quiet cluster.
    last_quiet: Option<(u64, u64)>,
    /// Which node took each request sent from here.
    taken: HashMap<Sent, String>,
    /// Requests sent from here that no node has said it took yet.
    untaken: HashMap<Sent, Untaken>,
    /// Paced streams answering callers on other nodes (by caller): the
    /// ticket and the rest, read as the caller's node says it took a part.
    paced_out: HashMap<u32, (Ticket, Box<crate::natives::files::Stream>)>,
    /// Answers a relay here sent to callers on other nodes while it took a
    /// part (by caller), not yet taken there: the part is taken once they
    /// are (`pace.rs`, relays).
    relayed_out: HashMap<u32, RelayedOut>,
}

/// The answers a relay sent a caller on another node while taking part of
/// its stream `ticket` (`serial`), none of them taken yet.
pub(crate) struct RelayedOut {
    pub(crate) from: ActorId,
    pub(crate) ticket: Ticket,
    pub(crate) serial: u64,
    pub(crate) sent: u32,
}

/// A request no node has taken yet, kept to be sent again.
struct Untaken {
    since: Instant,
    tries: u8,
    subject: String,
    bytes: Vec<u8>,
}

/// A request another node sent to an instance here, as that node names
/// it: where its answers go, the instance it was sent to, and its id on
/// the sending node.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Origin {
    reply: String,
    to: String,
    id: RequestId,
}

/// A request sent from this node to an instance run elsewhere: the proxy
/// it went through (the instance's stand-in here) and its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Sent {
    pub(crate) proxy: ActorId,
    pub(crate) id: RequestId,
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
        by_name: HashMap<String, ActorId>,
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
            by_name,
            beats: HashMap::new(),
            last_quiet: None,
            taken: HashMap::new(),
            untaken: HashMap::new(),
            paced_out: HashMap::new(),
            relayed_out: HashMap::new(),
        }
    }

    /// Caller `k` on another node is gone (answered, cancelled, lost):
    /// nothing is kept for it. What was relayed to it and not taken is
    /// returned, to be counted as taken (`Runtime::forget_relayed`).
    fn forget_caller(&mut self, k: u32) -> Option<RelayedOut> {
        self.paced_out.remove(&k);
        let relayed = self.relayed_out.remove(&k);
        if let Some(origin) = self.callers.remove(&k) {
            self.by_origin.remove(&origin);
        }
        relayed
    }

    fn publish(&self, subject: String, w: &Wire) {
        if w.is_work() {
            self.node.counters.sent.fetch_add(1, Ordering::SeqCst);
        }
        self.node.publish(subject, w.encode());
    }
}

/// The names `c` places on this node, each checked to be an instance of
/// the image; with a placement, the whole placement checked against the
/// image (as `othc check --placement` checks it), its node's instances.
pub(crate) fn placed_here(
    json: &othc::bundle::ImageJson,
    c: &ClusterConfig,
) -> Result<HashSet<String>, crate::LoadError> {
    if let Some(choice) = &c.placement {
        return placed_by(json, choice);
    }
    if c.instances.is_empty() {
        return Err(crate::LoadError::Placement(
            "--cluster needs --instances (the instances this node runs) or --placement and --node"
                .into(),
        ));
    }
    let all: Vec<&str> = json.instances.iter().map(|i| i.name.as_str()).collect();
    let mut here = HashSet::new();
    for name in &c.instances {
        if !all.contains(&name.as_str()) {
            return Err(crate::LoadError::Placement(format!(
                "--instances names `{name}`, which is no instance of the image (its instances: {})",
                all.join(", ")
            )));
        }
        here.insert(name.clone());
    }
    Ok(here)
}

/// The instances `choice`'s node runs, once its placement is found to
/// fit the bundle's image.
fn placed_by(
    json: &othc::bundle::ImageJson,
    choice: &PlacementChoice,
) -> Result<HashSet<String>, crate::LoadError> {
    use othc::placement::{PlacedImage, check_text};
    let mut sources = othc::source::SourceMap::new();
    let mut diags = othc::Diagnostics::new();
    let placement = check_text(
        &mut sources,
        &mut diags,
        choice.file.clone(),
        choice.text.clone(),
        &PlacedImage::of_bundle(json),
    );
    if diags.has_errors() {
        let text = othc::diagnostics::render::human(&sources, &diags, false);
        return Err(crate::LoadError::Placement(format!(
            "the placement `{}` cannot run this bundle's image `{}`:\n{}",
            choice.file,
            json.image,
            text.trim_end()
        )));
    }
    let Some(node) = placement.node(&choice.node) else {
        return Err(crate::LoadError::Placement(format!(
            "--node `{}` is no node of the placement `{}` (its nodes: {})",
            choice.node,
            choice.file,
            placement.node_names().join(", ")
        )));
    };
    Ok(node.instances.iter().map(|i| i.name.clone()).collect())
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
    ) -> Result<(), crate::LoadError> {
        let name = node_name();
        let joining = node::Joining {
            servers: c.servers.clone(),
            credentials: c.credentials.clone(),
            node: name.clone(),
            image: node::token(&self.json.image),
            hash: prefix.trim_start_matches("oth.").to_string(),
            serves: here.iter().map(|n| node::token(n)).collect(),
        };
        let node = node::start(joining, prefix.clone(), self.inbox.cluster_delivery())
            .map_err(|e| crate::LoadError::Host(format!("cannot join the cluster: {e}")))?;
        let mut running: Vec<&str> = here.iter().map(String::as_str).collect();
        running.sort();
        let joined = format!(
            "joined the cluster at {} as node {name}, running {}",
            c.servers.join(","),
            running.join(", ")
        );
        let by_name = (self.actors.with_ids())
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        self.cluster = Some(Cluster::new(node, name, prefix, static_views, by_name));
        // A node leaves the cluster on SIGINT or SIGTERM; it says it has
        // joined only once those are caught (as a listener says it listens).
        self.inbox.listening(self.limits.spin());
        let _ = writeln!(self.io.err, "{joined}");
        Ok(())
    }

    /// Whether instance `a` runs on this node.
    pub(crate) fn is_local(&self, a: ActorId) -> bool {
        !matches!(self.actors[a].body, Body::Remote(_))
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
