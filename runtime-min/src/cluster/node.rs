//! This node's link to NATS: a thread of its own running the client on a
//! small tokio runtime. It joins (refused if another bundle of the same
//! image is running), subscribes to what this node serves, passes what
//! arrives to the event loop through a callback, publishes what the loop
//! hands it, and says every 250 ms how busy the node is (its heartbeat,
//! which is how a node that reads the console knows the cluster is quiet).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use bson::Document;
use futures_util::StreamExt;
use tokio::sync::mpsc;

use super::wire::Wire;
use crate::abi::RequestId;

/// How often a node says how busy it is.
pub const BEAT: Duration = Duration::from_millis(250);

/// A node not heard from for this long is lost. Judged here, on the NATS
/// thread, by when beats arrive: an event loop busy for a while must not
/// take the beats waiting for it as late ones.
pub const LOST: Duration = Duration::from_millis(1000);

/// How to reach the cluster and what this node is in it.
pub struct Joining {
    /// `nats://host:port` of each server (any one is enough).
    pub servers: Vec<String>,
    pub credentials: super::credentials::Credentials,
    /// This node's name, unique in the cluster.
    pub node: String,
    /// The image's name and its bundle's hash.
    pub image: String,
    pub hash: String,
    /// The subject tokens of the instances run here (`token`).
    pub serves: Vec<String>,
}

/// What comes from the cluster for the event loop.
pub enum FromCluster {
    Wire(Wire),
    /// Nobody takes requests to the instance proxy `proxy` stands for:
    /// request `id` to it is not delivered.
    NoResponders {
        proxy: usize,
        id: RequestId,
    },
    /// A message on the image's subjects that is not one (it is dropped).
    Malformed(String),
    Beat(Beat),
    /// No beat of the node named has arrived for `LOST`.
    NodeLost(String),
    /// Something to say about the link to NATS (it was lost, it is back).
    Note(String),
    /// The link to NATS is gone for good.
    Lost(String),
}

/// How busy a node was when it last said so.
#[derive(Clone, Debug, PartialEq)]
pub struct Beat {
    pub node: String,
    pub idle: bool,
    /// Messages it has sent to other nodes, and received from them.
    pub sent: u64,
    pub received: u64,
}

/// How what comes from the cluster reaches the event loop.
pub type Deliver = Arc<dyn Fn(FromCluster) + Send + Sync>;

/// What the event loop and the NATS thread share.
#[derive(Default)]
pub struct Counters {
    pub idle: AtomicBool,
    pub sent: AtomicU64,
    pub received: AtomicU64,
}

/// The event loop's handle on the NATS thread.
pub struct Node {
    out: mpsc::UnboundedSender<Outgoing>,
    pub counters: Arc<Counters>,
    /// The largest message the servers take.
    pub max_payload: usize,
    /// This node's subject: answers to its requests come there.
    pub reply: String,
}

/// A message to publish, and where the servers say "no responders".
type Outgoing = (String, Option<String>, Vec<u8>);

impl Node {
    /// Publishes `bytes` on `subject` (in the order published).
    pub fn publish(&self, subject: String, bytes: Vec<u8>) {
        let _ = self.out.send((subject, None, bytes));
    }

    /// Publishes request `id` to the instance proxy `proxy` stands for: if
    /// no node takes requests on `subject`, the servers say so at once
    /// (`FromCluster::NoResponders`).
    pub fn request(&self, subject: String, proxy: usize, id: RequestId, bytes: Vec<u8>) {
        let probe = format!("{}.r.{proxy}.{id}", self.reply);
        let _ = self.out.send((subject, Some(probe), bytes));
    }
}

/// The subject token for an instance name: itself when it is made of
/// letters, digits, `-` and `_`; else `x` and its bytes in hex (NATS gives
/// `.`, `*`, `>` and spaces meanings of their own).
pub fn token(name: &str) -> String {
    if !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        && !name.starts_with('x')
    {
        name.to_string()
    } else {
        let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
        format!("x{hex}")
    }
}

/// Starts the NATS thread and joins; `Err` says why this node cannot.
pub fn start(j: Joining, prefix: String, deliver: Deliver) -> Result<Node, String> {
    let (out_tx, out_rx) = mpsc::unbounded_channel();
    let counters = Arc::new(Counters::default());
    let reply = format!("{prefix}.n.{}", j.node);
    let (ready_tx, ready_rx) = std::sync::mpsc::channel::<Result<usize, String>>();
    let c = counters.clone();
    std::thread::Builder::new()
        .name("cluster".into())
        .spawn(move || {
            let rt = match tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
            {
                Ok(rt) => rt,
                Err(e) => {
                    let _ = ready_tx.send(Err(format!("cannot start the NATS client: {e}")));
                    return;
                }
            };
            // A panic here (a bug) would leave a node that looks alive
            // and takes nothing from the cluster: the run ends instead.
            let on_fail = deliver.clone();
            let ran =
                crate::fault::caught(|| rt.block_on(run(j, prefix, deliver, out_rx, c, ready_tx)));
            if let Err(why) = ran {
                on_fail(FromCluster::Lost(format!(
                    "the runtime's NATS thread failed: {why}"
                )));
            }
        })
        .map_err(|e| format!("cannot start the NATS thread: {e}"))?;
    let max_payload = ready_rx
        .recv()
        .map_err(|_| "the NATS thread ended while joining".to_string())??;
    Ok(Node {
        out: out_tx,
        counters,
        max_payload,
        reply,
    })
}

async fn run(
    j: Joining,
    prefix: String,
    deliver: Deliver,
    mut out: mpsc::UnboundedReceiver<Outgoing>,
    counters: Arc<Counters>,
    ready: std::sync::mpsc::Sender<Result<usize, String>>,
) {
    let client = match join(&j, &prefix, deliver.clone()).await {
        Ok(c) => c,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let subs = match subscribe(&client, &j, &prefix).await {
        Ok(s) => s,
        Err(e) => {
            let _ = ready.send(Err(e));
            return;
        }
    };
    let Subscriptions {
        work: subs,
        mut beats,
        mut joins,
    } = subs;
    let _ = ready.send(Ok(client.server_info().max_payload));
    crate::fault::inject("cluster");
    let mut incoming = futures_util::stream::select_all(subs);
    let mut tick = tokio::time::interval(BEAT);
    let mut last_seen: std::collections::HashMap<String, tokio::time::Instant> =
        std::collections::HashMap::new();
    loop {
        tokio::select! {
            m = incoming.next() => {
                let Some(m) = m else {
                    deliver(FromCluster::Lost("the subscriptions ended".into()));
                    return;
                };
                take(&m, &*deliver, &counters);
            }
            m = out.recv() => {
                let Some((subject, probe, bytes)) = m else { return };
                let sent = match probe {
                    Some(p) => client.publish_with_reply(subject, p, bytes.into()).await,
                    None => client.publish(subject, bytes.into()).await,
                };
                if let Err(e) = sent {
                    deliver(FromCluster::Lost(format!("cannot publish: {e}")));
                }
            }
            b = beats.next() => {
                if let Some(b) = b.and_then(|m| read_beat(&m.payload)) {
                    if b.node != j.node {
                        last_seen.insert(b.node.clone(), tokio::time::Instant::now());
                    }
                    deliver(FromCluster::Beat(b));
                }
            }
            m = joins.next() => {
                // A node joining asks which bundle of this image runs here.
                if let Some(reply) = m.and_then(|m| m.reply) {
                    let _ = client.publish(reply, j.hash.clone().into_bytes().into()).await;
                }
            }
            _ = tick.tick() => {
                beat(&client, &j, &prefix, &counters).await;
                for n in lost(&mut last_seen) {
                    deliver(FromCluster::NodeLost(n));
                }
            }
        }
    }
}

/// A message on one of this node's subjects, handed to the event loop.
fn take(m: &async_nats::Message, deliver: &dyn Fn(FromCluster), counters: &Counters) {
    if m.status == Some(async_nats::StatusCode::NO_RESPONDERS) {
        if let Some((proxy, id)) = probed(&m.subject) {
            deliver(FromCluster::NoResponders {
                proxy,
                id: RequestId(id),
            });
        }
        return;
    }
    match Wire::decode(&m.payload) {
        Ok(w) => {
            if w.is_work() {
                counters.received.fetch_add(1, Ordering::SeqCst);
            }
            deliver(FromCluster::Wire(w));
        }
        Err(e) => deliver(FromCluster::Malformed(format!("on {}: {e}", m.subject))),
    }
}

/// Says how busy this node is.
async fn beat(client: &async_nats::Client, j: &Joining, prefix: &str, counters: &Counters) {
    let beat = Beat {
        node: j.node.clone(),
        idle: counters.idle.load(Ordering::SeqCst),
        sent: counters.sent.load(Ordering::SeqCst),
        received: counters.received.load(Ordering::SeqCst),
    };
    let _ = client
        .publish(format!("{prefix}.hb"), write_beat(&beat).into())
        .await;
}

/// The nodes whose last beat arrived over `LOST` ago, forgotten.
fn lost(last_seen: &mut std::collections::HashMap<String, tokio::time::Instant>) -> Vec<String> {
    let gone: Vec<String> = last_seen
        .iter()
        .filter(|(_, at)| at.elapsed() > LOST)
        .map(|(n, _)| n.clone())
        .collect();
    for n in &gone {
        last_seen.remove(n);
    }
    gone
}

/// What a node listens to.
struct Subscriptions {
    /// Requests to its instances (a queue group each), answers to its own
    /// requests and the servers' "no responders" for them, and cancels.
    work: Vec<async_nats::Subscriber>,
    /// Every node's heartbeats.
    beats: async_nats::Subscriber,
    /// Nodes joining, asking which bundle runs here.
    joins: async_nats::Subscriber,
}

async fn subscribe(
    client: &async_nats::Client,
    j: &Joining,
    prefix: &str,
) -> Result<Subscriptions, String> {
    let failed = |e: async_nats::SubscribeError| format!("cannot subscribe: {e}");
    let mut work = Vec::new();
    for s in &j.serves {
        let sub = client.queue_subscribe(format!("{prefix}.i.{s}"), s.clone());
        work.push(sub.await.map_err(failed)?);
    }
    for subject in [
        format!("{prefix}.n.{}", j.node),
        format!("{prefix}.n.{}.r.>", j.node),
        format!("{prefix}.cancel"),
    ] {
        work.push(client.subscribe(subject).await.map_err(failed)?);
    }
    let beats = client
        .subscribe(format!("{prefix}.hb"))
        .await
        .map_err(failed)?;
    let joins = client
        .subscribe(format!("oth.image.{}.join", j.image))
        .await
        .map_err(failed)?;
    confirmed(client).await?;
    Ok(Subscriptions { work, beats, joins })
}

/// The longest the server may take to confirm a node's subscriptions.
const CONFIRM: Duration = Duration::from_secs(10);

/// Returns once the server has taken every subscription made before: the
/// client's `flush` only writes them to the socket, and a node that said
/// it joined before the server had them would lose what is sent to it
/// meanwhile. The server handles one connection's operations in order, so
/// a message to ourselves that comes back is its word that it has.
async fn confirmed(client: &async_nats::Client) -> Result<(), String> {
    let mut echo = ask(client, None, Vec::new()).await?;
    match tokio::time::timeout(CONFIRM, echo.next()).await {
        Ok(Some(_)) => {
            let _ = echo.unsubscribe().await;
            Ok(())
        }
        _ => Err(format!(
            "NATS did not confirm this node's subscriptions within {} s",
            CONFIRM.as_secs()
        )),
    }
}

/// Publishes `payload` on `subject` (a fresh inbox's own, for `None`)
/// with that inbox for the answers, and flushes: the inbox, subscribed
/// before anything was sent, so no answer is missed.
async fn ask(
    client: &async_nats::Client,
    subject: Option<String>,
    payload: Vec<u8>,
) -> Result<async_nats::Subscriber, String> {
    let inbox = client.new_inbox();
    let answers = client
        .subscribe(inbox.clone())
        .await
        .map_err(|e| format!("cannot subscribe: {e}"))?;
    let to = subject.unwrap_or_else(|| inbox.clone());
    client
        .publish_with_reply(to, inbox, payload.into())
        .await
        .map_err(|e| format!("cannot publish: {e}"))?;
    client
        .flush()
        .await
        .map_err(|e| format!("cannot reach NATS: {e}"))?;
    Ok(answers)
}

/// Connects, and asks the nodes already running this image which bundle
/// they run: another one refuses this node.
async fn join(j: &Joining, _prefix: &str, deliver: Deliver) -> Result<async_nats::Client, String> {
    // Said once joined: a lost connection, and each reconnection (to any
    // of the servers given).
    let joined = Arc::new(AtomicBool::new(false));
    let said = joined.clone();
    let mut opts = async_nats::ConnectOptions::new()
        .name(format!("othismo {} {}", j.image, j.node))
        .connection_timeout(Duration::from_secs(5))
        .event_callback(move |e| {
            let (said, deliver) = (said.clone(), deliver.clone());
            async move {
                if said.load(Ordering::SeqCst) {
                    deliver(FromCluster::Note(format!("NATS: {e}")));
                }
            }
        });
    opts = j.credentials.apply(opts);
    let client = opts.connect(j.servers.as_slice()).await.map_err(|e| {
        let e = e.to_string();
        let hint = j.credentials.hint(&e).map(|h| format!(" ({h})"));
        format!(
            "cannot connect to {}: {e}{}",
            j.servers.join(","),
            hint.unwrap_or_default()
        )
    })?;
    let join = format!("oth.image.{}.join", j.image);
    let mut answers = ask(&client, Some(join), j.hash.clone().into_bytes()).await?;
    joined.store(true, Ordering::SeqCst);
    // Whoever runs the image answers at once; what comes later is late.
    let deadline = tokio::time::sleep(Duration::from_millis(300));
    tokio::pin!(deadline);
    loop {
        tokio::select! {
            m = answers.next() => {
                let Some(m) = m else { break };
                // The first node to join is told there is nobody else.
                if m.status == Some(async_nats::StatusCode::NO_RESPONDERS) {
                    break;
                }
                let theirs = String::from_utf8_lossy(&m.payload).to_string();
                if theirs != j.hash {
                    return Err(format!(
                        "the cluster runs another bundle of image `{}` (sha256 {theirs}…, this one {}…): every node must load the same bundle",
                        j.image, j.hash
                    ));
                }
            }
            _ = &mut deadline => break,
        }
    }
    Ok(client)
}

/// The proxy and request id a "no responders" answer names
/// (`<node subject>.r.<proxy>.<id>`).
fn probed(subject: &str) -> Option<(usize, i32)> {
    let (rest, id) = subject.rsplit_once('.')?;
    let (_, proxy) = rest.rsplit_once(".r.")?;
    Some((proxy.parse().ok()?, id.parse().ok()?))
}

fn write_beat(b: &Beat) -> Vec<u8> {
    let mut d = Document::new();
    d.insert("node", b.node.as_str());
    d.insert("idle", b.idle);
    d.insert("sent", b.sent as i64);
    d.insert("received", b.received as i64);
    let mut out = Vec::new();
    d.to_writer(&mut out).expect("a document writes to memory");
    out
}

fn read_beat(bytes: &[u8]) -> Option<Beat> {
    let d = Document::from_reader(bytes).ok()?;
    Some(Beat {
        node: d.get_str("node").ok()?.to_string(),
        idle: d.get_bool("idle").ok()?,
        sent: u64::try_from(d.get_i64("sent").ok()?).ok()?,
        received: u64::try_from(d.get_i64("received").ok()?).ok()?,
    })
}
