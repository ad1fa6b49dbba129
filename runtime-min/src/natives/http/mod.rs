//! `Http`: an HTTP/1.1 server (book: reference/natives.md). The operator's
//! `write / HttpConfig` starts a listener (`listener`, on hyper, in a
//! thread of its own); each request a client sends comes to the event loop
//! as an `Incoming` and is handed, as an `HttpRequest`, to one watcher of
//! `/requests` (in turn). The watcher responds with writes under
//! `/exchanges/{id}`: the response (`HttpResponse`), then, for a streamed
//! body, its parts (`/exchanges/{id}/body`) and `remove` to end it, or
//! `failed` to cut it off (the client must not take half a body for the
//! whole). Each
//! write is checked here before it reaches the client: a status and
//! headers HTTP allows, the order (a response once, parts only after a
//! streamed one), and that the client is still there (`not_found` once it
//! has gone, so the object can stop what it was doing for it).

mod listener;
mod look;
mod outbox;
mod send_timeout;
mod troubles;
pub(crate) mod wire;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use hyper::StatusCode;
use hyper::header::{HeaderMap, HeaderName, HeaderValue};
use othc::model::Seg;
use tokio::sync::mpsc::UnboundedSender;

use othc::model::Verb;

use super::{Asked, Entries, Reply, entry};
use crate::abi::{Ticket, errno};
use crate::{Payload, Sender};

/// A request a client sent, on its way to an object.
pub(crate) struct Incoming {
    pub id: u64,
    /// Its method and target, and its body's length, as the trace says them.
    pub method: String,
    pub target: String,
    pub body_len: usize,
    /// The `HttpRequest` its watcher is handed: encoded on the listener's
    /// thread, where the request was read, so the event loop (which runs
    /// every module) only passes the bytes on.
    pub request: Payload,
    /// Where the response goes.
    pub parts: UnboundedSender<Part>,
    /// How much of it waits for the connection.
    pub flow: Arc<Flow>,
}

impl Incoming {
    /// Request `id` as a client sent it, its response to go to `parts`.
    pub fn new<'a>(
        id: u64,
        (method, target): (&str, &str),
        headers: impl IntoIterator<Item = (&'a str, &'a [u8])>,
        body: &[u8],
        parts: UnboundedSender<Part>,
        flow: Arc<Flow>,
    ) -> Incoming {
        Incoming {
            id,
            method: method.to_string(),
            target: target.to_string(),
            body_len: body.len(),
            request: wire::request(id, method, target, headers, body),
            parts,
            flow,
        }
    }
}

/// The bytes of a streamed body written and not yet taken by the
/// connection, shared with the listener. A write that leaves more than
/// `HIGH_WATER` waiting is answered only once the connection has taken
/// enough (`HttpEvent::Drained`): an object that waits for its writes'
/// answers (and a file read at its reader's pace) goes at the client's
/// speed, and a slow client holds a bounded amount, not the whole body.
#[derive(Default)]
pub(crate) struct Flow {
    pub queued: AtomicUsize,
    /// Set while writes are held: the listener says when it is drained.
    pub wanted: AtomicBool,
}

/// The most bytes of a body waiting for its connection before writes are
/// held back (the connection's own buffer, about as much, comes on top).
pub(crate) const HIGH_WATER: usize = 512 * 1024;

/// What goes back to the client, in order: one `Head`, then (if it said
/// `streamed`) any number of `Chunk`s; closing the channel ends the body.
pub(crate) enum Part {
    Head {
        status: StatusCode,
        headers: HeaderMap,
        body: Vec<u8>,
        streamed: bool,
        /// A streamed body's whole length, if the object said it: sent as
        /// `Content-Length`, and a body that ends short is cut off.
        length: Option<u64>,
    },
    Chunk(Vec<u8>),
    /// The body cannot be finished (why): the connection closes without
    /// ending it, so its client knows it has only a part.
    Failed(String),
}

/// Requests taken while no object watches `/requests`, kept for the first
/// watcher; past this many, clients are answered 503 at once.
const MAX_WAITING: usize = 1024;

#[derive(Default)]
pub(crate) struct Http {
    listening: Option<listener::Handle>,
    /// Who watches `/requests`, and with which ticket.
    watchers: Vec<(Sender, Ticket)>,
    /// The watcher the next request goes to.
    turn: usize,
    waiting: VecDeque<Incoming>,
    /// Exchanges handed out and not finished: not yet responded to, or
    /// streaming.
    exchanges: HashMap<u64, Exchange>,
    /// Answers to writes held back (`Flow`) that are now due, for the
    /// runtime to deliver.
    due: Vec<(Sender, Ticket, Reply)>,
    /// Parts of responses on their way to the listener (`flush`).
    out: outbox::Outbox,
    /// It has begun to listen and has not said so (`announce`).
    unannounced: bool,
}

/// An exchange handed out: where its response goes, whether it streams,
/// and the watcher it went to (should that one stop, its client is
/// answered at once rather than left waiting).
struct Exchange {
    parts: UnboundedSender<Part>,
    streaming: bool,
    watcher: Sender,
    flow: Arc<Flow>,
    /// Body writes not yet answered: the connection has too much waiting.
    held: Vec<(Sender, Ticket)>,
}

#[derive(Clone, Copy)]
pub(crate) enum Entry {
    Configure,
    Requests,
    Respond,
    BodyPart,
    End,
    Failed,
}

pub(crate) const ENTRIES: &Entries<Entry> = &[
    (Entry::Configure, Verb::Write, "/"),
    (Entry::Requests, Verb::Watch, "/requests"),
    (Entry::Respond, Verb::Write, "/exchanges/{id}"),
    (Entry::BodyPart, Verb::Write, "/exchanges/{id}/body"),
    (Entry::End, Verb::Remove, "/exchanges/{id}"),
    (Entry::Failed, Verb::Write, "/exchanges/{id}/failed"),
];

/// What a listener tells the event loop about its Http instance.
pub(crate) enum HttpEvent {
    /// A request a client sent.
    Request(Incoming),
    /// The client side of an exchange the loop still holds is over: it
    /// timed out, its client left, or its streamed body ended. Its id is
    /// not used again. (Not sent after a whole response: the loop forgot
    /// the exchange as it sent it.)
    Gone(u64),
    /// The connection of an exchange has taken enough of its body that
    /// writes held back can be answered (`Flow`).
    Drained(u64),
    /// It has stopped listening, and every connection it had is closed.
    Stopped,
    /// Its thread panicked (`fault`): it no longer listens. Why.
    Failed(String),
}

/// How a listener reaches the event loop (false once the loop has gone):
/// made by the runtime for one Http instance, so this module knows
/// nothing of the loop's channel.
pub(crate) type Notify = Arc<dyn Fn(HttpEvent) -> bool + Send + Sync>;

/// What the event loop passes a request to the Http object with.
pub(crate) struct Context<'a> {
    /// Where its listener is to send what it takes, asked for only when
    /// it starts listening.
    pub notify: &'a dyn Fn() -> Notify,
    /// How long its listener's thread looks for work before it sleeps
    /// (`--spin`, `look`).
    pub look: std::time::Duration,
}

fn answer(status: StatusCode, text: &str) -> Part {
    let mut headers = HeaderMap::new();
    headers.insert(
        hyper::header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    Part::Head {
        status,
        headers,
        body: format!("{text}\n").into_bytes(),
        streamed: false,
        length: None,
    }
}

/// What to do about an address the listener could not take, where the
/// system's words alone do not say.
fn listen_help(e: &std::io::Error) -> &'static str {
    use std::io::ErrorKind as K;
    match e.kind() {
        K::AddrInUse => {
            ": another process listens there; stop it, or give HttpConfig another `listen` (with `--set` where a slot holds it)"
        }
        K::PermissionDenied => {
            ": a port below 1024 needs privileges this process does not have; take one above it"
        }
        K::AddrNotAvailable => ": that address is not one of this host's",
        _ => "",
    }
}

fn exchange_id(s: &Seg) -> Option<u64> {
    match s {
        Seg::Literal(l) => l.parse().ok(),
        _ => None,
    }
}

/// Headers that HTTP/1.1 framing owns: hyper sets them from the body.
const FRAMING: [&str; 3] = ["content-length", "transfer-encoding", "connection"];

fn head(r: wire::Response<'_>) -> Result<Part, String> {
    let status = StatusCode::from_u16(r.status)
        .map_err(|_| format!("{} is not an HTTP status", r.status))?;
    let mut headers = HeaderMap::with_capacity(r.headers.len());
    for (n, v) in r.headers {
        let name = HeaderName::from_bytes(n.as_bytes())
            .map_err(|_| format!("`{n}` is not a header name"))?;
        if FRAMING.contains(&name.as_str()) {
            return Err(format!(
                "`{n}` is set by Http itself, from the body and `streamed`"
            ));
        }
        let value = HeaderValue::from_str(v)
            .map_err(|_| format!("the value of `{n}` is not one HTTP allows"))?;
        headers.append(name, value);
    }
    if r.length.is_some() && !r.streamed {
        return Err("`length` is for a streamed body (with `streamed: true`)".into());
    }
    if r.length.is_some_and(|l| (r.body.len() as u64) > l) {
        return Err("the body is longer than its `length`".into());
    }
    Ok(Part::Head {
        status,
        headers,
        body: r.body.to_vec(),
        streamed: r.streamed,
        length: r.length,
    })
}

impl Http {
    /// Whether it listens (or is still closing its connections).
    pub fn open(&self) -> bool {
        self.listening.as_ref().is_some_and(|l| !l.closed)
    }

    /// Where it has begun to listen, once: the runtime says so on stderr
    /// only when a signal would be caught, so whoever waits for the line
    /// (a test, a supervisor) and then sends SIGUSR1 or SIGTERM is heard
    /// rather than killing the process.
    pub fn announce(&mut self) -> Option<std::net::SocketAddr> {
        if !std::mem::take(&mut self.unannounced) {
            return None;
        }
        self.listening.as_ref().map(|l| l.addr)
    }

    /// Its tables' sizes, for a report: exchanges handed out and not
    /// finished, requests waiting for a watcher, watchers.
    pub fn tables(&self) -> (usize, usize, usize) {
        (
            self.exchanges.len(),
            self.waiting.len(),
            self.watchers.len(),
        )
    }

    /// Its listener's work caught while it looked, and looks that ended
    /// in a sleep (both 0 before it listens).
    pub fn looks(&self) -> (u64, u64) {
        self.listening.as_ref().map_or((0, 0), |l| l.look.counts())
    }

    /// Exchanges handed out and not finished, and requests waiting.
    pub fn in_flight(&self) -> usize {
        self.exchanges.len() + self.waiting.len()
    }

    /// Serves a request (already checked against the header); `None` for
    /// a watch, which is held open, and for a body part held back (`Flow`).
    pub fn serve(&mut self, cx: Context<'_>, asked: Asked<'_>) -> Option<Reply> {
        // Every entry but the root's has the exchange id second.
        let id = || asked.path.get(1).and_then(exchange_id);
        match entry(ENTRIES, asked.entry) {
            Some(Entry::Configure) => Some(self.configure(cx, asked.payload)),
            Some(Entry::Requests) => {
                self.watchers.push((asked.from, asked.ticket));
                None
            }
            Some(Entry::Respond) => Some(self.respond(id(), asked.payload)),
            Some(Entry::BodyPart) => {
                self.body_part(id(), asked.payload, (asked.from, asked.ticket))
            }
            Some(Entry::End) => Some(self.end(id(), None)),
            Some(Entry::Failed) => Some(self.end(id(), Some(Self::failure(asked.payload)))),
            None => Some(Reply::error(
                errno::NOT_SUPPORTED,
                "Http does not serve that",
            )),
        }
    }

    fn configure(&mut self, cx: Context<'_>, payload: Option<&Payload>) -> Reply {
        if let Some(l) = &self.listening {
            return Reply::error(
                errno::EXISTS,
                format!("already listening on http://{}", l.addr),
            );
        }
        let config = match wire::config(payload) {
            Ok(c) => c,
            Err(e) => return Reply::error(errno::INVALID, e),
        };
        match listener::start(&config, (cx.notify)(), cx.look) {
            Ok(handle) => {
                // Said by the runtime once it catches signals (`announce`).
                self.unannounced = true;
                self.out.deliver_through(handle.batches.clone());
                self.listening = Some(handle);
                Reply::done(None)
            }
            Err(e) => Reply::error(
                errno::UNAVAILABLE,
                format!("cannot listen on {}: {e}{}", config.listen, listen_help(&e)),
            ),
        }
    }

    fn unknown(id: Option<u64>) -> Reply {
        match id {
            Some(id) => Reply::error(
                errno::NOT_FOUND,
                format!("no exchange {id}: it is finished, or its client has gone"),
            ),
            None => Reply::error(errno::NOT_FOUND, "an exchange id is a number"),
        }
    }

    fn respond(&mut self, id: Option<u64>, payload: Option<&Payload>) -> Reply {
        let Some(ex) = id.and_then(|id| self.exchanges.get_mut(&id)) else {
            return Self::unknown(id);
        };
        if ex.streaming {
            return Reply::error(
                errno::EXISTS,
                "this exchange has its response: write the rest of the body to its `body`",
            );
        }
        let part = match wire::response(payload).and_then(head) {
            Ok(p) => p,
            Err(e) => return Reply::error(errno::INVALID, e),
        };
        let streamed = matches!(part, Part::Head { streamed: true, .. });
        let id = id.expect("found by id");
        if !self.out.put(&ex.parts, part) {
            self.exchanges.remove(&id);
            return Self::unknown(Some(id));
        }
        if streamed {
            ex.streaming = true;
        } else {
            self.exchanges.remove(&id);
        }
        Reply::done(None)
    }

    /// A part of a streamed body: answered at once, or (`Flow`) once the
    /// connection has taken enough of what waits.
    fn body_part(
        &mut self,
        id: Option<u64>,
        payload: Option<&Payload>,
        writer: (Sender, Ticket),
    ) -> Option<Reply> {
        let Some(ex) = id.and_then(|id| self.exchanges.get_mut(&id)) else {
            return Some(Self::unknown(id));
        };
        if !ex.streaming {
            return Some(Reply::error(
                errno::INVALID,
                "no streamed response yet: write an HttpResponse with `streamed: true` first",
            ));
        }
        let data = payload.map(|p| p.data.clone()).unwrap_or_default();
        ex.flow.queued.fetch_add(data.len(), Ordering::AcqRel);
        if !self.out.put(&ex.parts, Part::Chunk(data)) {
            self.exchanges.remove(&id.expect("found by id"));
            return Some(Self::unknown(id));
        }
        if ex.flow.queued.load(Ordering::Acquire) <= HIGH_WATER {
            return Some(Reply::done(None));
        }
        ex.held.push(writer);
        // Held until the listener says it has taken enough (or answered at
        // once if it took it meanwhile).
        self.drained(id.expect("found by id"));
        None
    }

    /// The connection of exchange `id` has taken what waited: the writes
    /// held are answered (or, if more came meanwhile, wait on).
    pub fn drained(&mut self, id: u64) {
        let Some(ex) = self.exchanges.get_mut(&id) else {
            return;
        };
        if ex.flow.queued.load(Ordering::Acquire) > HIGH_WATER {
            ex.flow.wanted.store(true, Ordering::Release);
            if ex.flow.queued.load(Ordering::Acquire) > HIGH_WATER {
                return;
            }
        }
        self.due
            .extend(ex.held.drain(..).map(|(to, t)| (to, t, Reply::done(None))));
    }

    /// Hands the parts of responses put since the last time to the
    /// listener's thread, all in one (`outbox`): the runtime calls it before
    /// it waits for anything from outside.
    pub fn flush(&mut self) {
        self.out.flush();
    }

    /// Answers to writes held back that are now due.
    pub fn take_due(&mut self) -> Vec<(Sender, Ticket, Reply)> {
        std::mem::take(&mut self.due)
    }

    /// Ends exchange `id`: a streamed body ends, or, if the object says it
    /// `failed` (why), is cut off; one not responded to is a bad gateway.
    fn end(&mut self, id: Option<u64>, failed: Option<String>) -> Reply {
        let Some(ex) = id.and_then(|id| self.exchanges.remove(&id)) else {
            return Self::unknown(id);
        };
        // What they wrote is on its way: the body ends (or is cut) after it.
        self.due
            .extend(ex.held.iter().map(|&(to, t)| (to, t, Reply::done(None))));
        match (ex.streaming, failed) {
            // Dropping the channel ends a streamed body.
            (true, None) => {}
            (true, Some(why)) => {
                self.out.put(&ex.parts, Part::Failed(why));
            }
            (false, why) => {
                let why = why
                    .as_deref()
                    .unwrap_or("the site ended the exchange without a response");
                self.out
                    .put(&ex.parts, answer(StatusCode::BAD_GATEWAY, why));
            }
        }
        Reply::done(None)
    }

    /// Why the object says an exchange failed: its payload's text.
    fn failure(payload: Option<&Payload>) -> String {
        let why = payload
            .map(|p| String::from_utf8_lossy(&p.data).into_owned())
            .unwrap_or_default();
        if why.trim().is_empty() {
            "the site could not finish it".to_string()
        } else {
            why
        }
    }

    /// A request from a client: queued for a watcher.
    pub fn take(&mut self, incoming: Incoming) {
        if self.waiting.len() >= MAX_WAITING {
            let busy = answer(
                StatusCode::SERVICE_UNAVAILABLE,
                "too many requests are waiting for the site",
            );
            self.out.put(&incoming.parts, busy);
            return;
        }
        self.waiting.push_back(incoming);
    }

    /// The waiting requests, each to one watcher in turn, as the payloads
    /// to deliver; one over the payload limit is answered 413 here.
    pub fn hand_out(&mut self, limit: usize) -> Vec<(Sender, Ticket, Payload)> {
        let mut out = Vec::new();
        while !self.watchers.is_empty() {
            let Some(inc) = self.waiting.pop_front() else {
                break;
            };
            let p = inc.request;
            if p.data.len() > limit {
                let too_large = answer(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "the request is over the runtime's payload limit",
                );
                self.out.put(&inc.parts, too_large);
                continue;
            }
            self.turn %= self.watchers.len();
            let (to, ticket) = self.watchers[self.turn];
            self.turn += 1;
            self.exchanges.insert(
                inc.id,
                Exchange {
                    parts: inc.parts,
                    streaming: false,
                    watcher: to,
                    flow: inc.flow,
                    held: Vec::new(),
                },
            );
            out.push((to, ticket, p));
        }
        out
    }

    /// The client side of exchange `id` is over.
    pub fn gone(&mut self, id: u64) {
        if let Some(ex) = self.exchanges.remove(&id) {
            self.due.extend(
                ex.held
                    .into_iter()
                    .map(|(to, t)| (to, t, Self::unknown(Some(id)))),
            );
        }
        self.waiting.retain(|i| i.id != id);
    }

    /// Stops accepting connections; those open finish what they are doing.
    pub fn stop(&mut self) {
        if let Some(l) = &self.listening {
            l.stop();
        }
    }

    /// Its listener has stopped and its connections are closed.
    pub fn closed(&mut self) {
        if let Some(l) = &mut self.listening {
            l.closed = true;
        }
    }

    /// Ends the watches of `from` (one ticket, or all). All of them: `from`
    /// has stopped, and the exchanges handed to it are answered now (503
    /// if it had not responded; a streamed body is cut off, since nobody
    /// can finish it).
    pub fn withdraw(&mut self, from: Sender, ticket: Option<Ticket>) {
        self.watchers
            .retain(|(s, k)| !(*s == from && ticket.is_none_or(|t| *k == t)));
        if ticket.is_some() {
            return;
        }
        let out = &mut self.out;
        self.exchanges.retain(|_, ex| {
            if ex.watcher != from {
                return true;
            }
            let why = "the object serving this request has stopped";
            if ex.streaming {
                out.put(&ex.parts, Part::Failed(why.to_string()));
            } else {
                out.put(&ex.parts, answer(StatusCode::SERVICE_UNAVAILABLE, why));
            }
            false
        });
    }
}

#[cfg(test)]
mod tests;
