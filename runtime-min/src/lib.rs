//! runtime-min: runs an image bundle (book: reference/bundles.md) on wasmtime.
//!
//! Every instance of a compiled object is a wasmtime instance speaking the
//! host ABI (`host.rs`); `Console`, `Files` and `Clock` are native
//! (`natives/`). One FIFO queue carries every delivery and no module is
//! re-entered; with one worker a run is deterministic, with more the calls
//! into different instances run at once on worker threads (`workers`),
//! each instance's deliveries still in order. A stopped instance is
//! replaced by a fresh one (`supervise`). Every request is checked on
//! its way (book: reference/running.md), as `route` decides: a malformed path (`invalid`), the sender's needs
//! (`forbidden`), its view (`not_found`), read-only links (`read_only`),
//! the receiver's serves (`not_found`, `not_supported`), the operator rule
//! (`forbidden`), the payload limit (`too_large`) and, for a native, the
//! payload types its entry takes (`unsupported_type`); a server that answers
//! a request it is not serving, or a non-stream twice, is stopped. What
//! comes from outside (`outside`: console input, HTTP requests, signals)
//! is taken only when the image is idle, so piped input behaves as typed
//! input and nothing re-enters a module. A run ends when the image is idle
//! and nothing outside can wake it: no console watch with input left, no
//! listener. SIGINT or SIGTERM stops a run with a listener gracefully.
//!
//! Files: `load` (bundle to instances), `route` (what a request may reach:
//! pure decisions over headers and views), `deliver` (the event loop's
//! work), `host` (the wasmtime side of the host ABI), `view` (an instance's
//! links and its `bind`/`unmount`/`expose`), `outside` (what wakes an idle
//! image), `take_in` (what the loop does with it), `native_calls` (requests handed to the natives), `workers` (calls
//! on other threads), `supervise` (restarts, stopping an instance, the
//! startup requests, forgetting tickets), `pace` (big files read as their
//! reader takes them), `report` (SIGUSR1), `trace`,
//! `natives/`.

pub mod abi;
mod act;
mod actors;
mod aside;
pub mod cluster;
pub mod code;
mod deliver;
mod fault;
mod host;
pub mod input;
pub mod limits;
mod load;
mod native_calls;
pub mod natives;
mod outside;
mod pace;
pub mod probe;
mod report;
pub mod route;
mod stall;
mod stdio;
mod supervise;
mod take_in;
mod ticker;
mod trace;
pub mod view;
mod workers;

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::rc::Rc;
use std::sync::Arc;
use std::time::Instant;

use othc::bundle::ImageJson;
use othc::model::{EntryId, Model, ObjectDef, Seg, Verb};

use abi::{Failure, RequestId, Response, Ticket};
pub use actors::ActorId;
use actors::Actors;
use host::{Call, Wasm};
pub use input::{InputLine, Unfit};
pub use limits::Limits;
use natives::console::Console;
use natives::files::Files;
use natives::http::Http;
use outside::Inbox;
pub use stdio::{run_on_stdio, run_on_stdio_placed, run_on_stdio_with_code};
use ticker::Ticker;

#[derive(Clone, Debug, PartialEq)]
pub struct Payload {
    /// Shared: payloads of one instance name the same type over and over.
    pub content_type: Arc<str>,
    pub data: Vec<u8>,
}

impl Payload {
    /// What holding a copy costs the host: its bytes and its type's
    /// (`--max-held`).
    pub fn held_bytes(&self) -> usize {
        self.data.len() + self.content_type.len()
    }
}

/// Who sent a request: an instance, the operator (startup request `n`),
/// an instance on another node (its request's key here, `cluster`), or a
/// caller outside the image driving it through its exports (request `k`
/// of `probe::image`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sender {
    Instance(ActorId),
    Operator(usize),
    Remote(u32),
    Outside(u32),
}

/// Request ids and tickets are small counters: hashed by one multiply
/// (Fibonacci hashing) rather than SipHash, which the profile showed.
#[derive(Default)]
struct IdHasher(u64);

impl Hasher for IdHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 = (self.0.rotate_left(8) ^ u64::from(*b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        }
    }

    fn write_i32(&mut self, n: i32) {
        self.0 = (n as u32 as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
}

type IdMap<K, V> = HashMap<K, V, BuildHasherDefault<IdHasher>>;
type IdSet<K> = HashSet<K, BuildHasherDefault<IdHasher>>;

/// An object's header: the model it was read into, and the object.
type Header = (Model, ObjectDef);

/// What an answer, failure or forward from a server meets (`Runtime::claim`).
enum Claim {
    /// The request it is serving.
    Serving(Serving),
    /// A request whose caller cancelled: the late answer is dropped.
    Late,
    /// No request it is serving: it has been stopped.
    Stopped,
}

/// A request on its way, or being served.
struct Serving {
    from: Sender,
    ticket: Ticket,
    verb: Verb,
    flags: i32,
    payload: Option<Payload>,
    /// Whether the entry it reached streams (more than one answer allowed).
    stream: bool,
    /// The instances that forwarded it, in order (at most `MAX_DEPTH`).
    forwarded: Vec<ActorId>,
}

impl Serving {
    /// A request as its sender makes it: not yet routed (whether it
    /// streams is the entry's to say), forwarded by nobody.
    fn sent(
        from: Sender,
        ticket: Ticket,
        verb: Verb,
        flags: i32,
        payload: Option<Payload>,
    ) -> Serving {
        Serving {
            from,
            ticket,
            verb,
            flags,
            payload,
            stream: false,
            forwarded: Vec::new(),
        }
    }
}

enum Body {
    Wasm(Box<Wasm>),
    Console(Console),
    Files(Files),
    Http(Box<Http>),
    Clock,
    /// Out on a worker (`workers`): back when the call returns.
    Away,
    /// Run by other nodes (`cluster`).
    Remote(Box<cluster::Remote>),
}

struct Actor {
    name: String,
    body: Body,
    /// The object's header: what it needs and serves (shared by the
    /// instances of one module).
    header: Rc<Header>,
    /// Requests it is serving, by request id.
    serving: IdMap<RequestId, Serving>,
    /// Request ids whose callers cancelled: a late answer is dropped, not
    /// held against it, until the cancel has been delivered to it (an id is
    /// forgotten once its `othismo_cancel` call returns).
    cancelled: IdSet<RequestId>,
    /// Tickets of its own requests it cancelled: their answers are dropped.
    /// A ticket is forgotten once every delivery queued before its cancel
    /// has been taken (`Runtime::forget`): nothing newer can carry it.
    dropped: IdSet<Ticket>,
    /// Bytes of its requests waiting in the queue (`held_cost` each): with
    /// its cancelled tickets, what the host holds for it between calls.
    queued: usize,
    next_id: RequestId,
    dead: bool,
    /// Its last request its needs allowed, and the serves entry the last
    /// request it was sent reached: the next request on the same path (the
    /// same shared segments) with the same verb skips those checks' work,
    /// not their outcome (`route::Passed`).
    passed: Option<route::Passed>,
    reached: Option<route::Reached>,
    /// How to make a fresh instance of it (a module's instances; natives
    /// are never stopped), and when it was restarted lately.
    supervised: Option<supervise::Supervised>,
    /// Out on a worker; what reaches it meanwhile waits in `mailbox`, in
    /// order.
    busy: bool,
    /// What its calls take, about: a moving average over its last few
    /// dozen (`workers::Cost`). Only a module whose calls are long is
    /// called on a worker.
    cost: workers::Cost,
    mailbox: VecDeque<Event>,
    /// What it exposes, as of its last call (routing reads it while the
    /// instance itself may be out on a worker).
    exposed: Vec<view::Link>,
    /// Streams it reads at its own pace (`pace`), by ticket, and the one
    /// whose part is being delivered to it now.
    paced: IdMap<Ticket, pace::Pace>,
    pacing: Option<Ticket>,
}

impl Event {
    fn answer(to: Sender, ticket: Ticket, done: bool, payload: Option<Payload>) -> Event {
        let response = Response::Answer { done, payload };
        Event::Respond {
            to,
            ticket,
            response,
        }
    }

    fn error(to: Sender, ticket: Ticket, failure: Failure) -> Event {
        let response = Response::Error(failure);
        Event::Respond {
            to,
            ticket,
            response,
        }
    }
}

enum Event {
    Serve {
        to: ActorId,
        req: Serving,
        path: Arc<[Seg]>,
        /// The serves entry the router matched.
        entry: EntryId,
    },
    /// An answer or failure on its way to the sender of request `ticket`.
    Respond {
        to: Sender,
        ticket: Ticket,
        response: Response<Payload>,
    },
    Cancel {
        to: ActorId,
        id: RequestId,
    },
    /// Instance `to` was stopped: a fresh one takes its place
    /// (`supervise`), after what was queued before.
    Restart {
        to: ActorId,
    },
}

/// Why a bundle could not be run (exit status 2), by whose fault.
#[derive(Debug)]
pub enum LoadError {
    /// The file is not a bundle this runtime reads.
    Bundle(othc::bundle::BundleError),
    /// Its `image.json` reads, but says what cannot be run (an instance
    /// with no module, a view or startup request naming what is not there).
    Image(String),
    /// Module `module` of the bundle cannot be run: why.
    Module { module: String, why: String },
    /// Module `module` does not speak the host ABI: each way it breaks it.
    BreaksAbi {
        module: String,
        problems: Vec<String>,
    },
    /// This node's share of a cluster is not given as it must be (its
    /// flags, its placement).
    Placement(String),
    /// The host could not set the run up (the engine, the linker, the
    /// cluster's servers).
    Host(String),
}

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LoadError::Bundle(e) => e.fmt(f),
            LoadError::Module { module, why } => write!(f, "`{module}`: {why}"),
            LoadError::BreaksAbi { module, problems } => {
                write!(f, "`{module}` breaks the host ABI: {}", problems.join("; "))
            }
            LoadError::Image(why) | LoadError::Placement(why) | LoadError::Host(why) => {
                f.write_str(why)
            }
        }
    }
}

impl std::error::Error for LoadError {}

impl From<othc::bundle::BundleError> for LoadError {
    fn from(e: othc::bundle::BundleError) -> LoadError {
        LoadError::Bundle(e)
    }
}

/// Where a run's console input comes from and its output goes.
pub struct Io<'a> {
    /// Console input, pulled a line at a time when the image is idle (on
    /// a thread of its own, so that HTTP requests can come meanwhile).
    pub input: Box<dyn Iterator<Item = InputLine> + Send>,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// Where to write a line per delivery (`--trace`), if anywhere.
    pub trace: Option<&'a mut dyn Write>,
}

/// How a run stands toward its end.
#[derive(Default)]
struct Ending {
    /// It must end now (a startup request failed, an instance stopped past
    /// its restarts): it serves nothing more.
    fatal: bool,
    /// It ends with status 1 (something was lost or refused on the way).
    failed: bool,
    /// A second signal: the run ends now.
    halted: bool,
    /// Set by SIGINT/SIGTERM: how long in-flight HTTP requests may take.
    stopping: Option<Instant>,
}

/// The console's input as a run has taken it.
#[derive(Default)]
struct ConsoleInput {
    /// A line that came while nobody watched.
    pending: Option<InputLine>,
    /// Lines taken so far (delivered or not): a line's number in what the
    /// run says of it.
    lines: u64,
    /// It has ended (or could not be read on).
    ended: bool,
}

/// Buffers reused from one delivery to the next.
#[derive(Default)]
struct Spare {
    /// What an instance asked of the host in a call.
    calls: Vec<Call>,
    /// The path of a request delivered to an instance.
    path: String,
}

pub struct Runtime<'a> {
    actors: Actors<Actor>,
    /// Each startup request's receiver and path, in order (sent again to a
    /// restarted instance).
    startup: Vec<(ActorId, Arc<[Seg]>)>,
    json: ImageJson,
    queue: VecDeque<Event>,
    /// Deliveries taken from the queue so far: with the queue's length,
    /// the place of each one in it.
    taken: u64,
    /// Dropped tickets to forget, each once `taken` reaches its mark.
    forget: VecDeque<supervise::Forget>,
    /// The calls and disk work handed to other threads.
    workers: workers::Workers,
    /// The last stream given to a reader (`pace`).
    pace_serial: u64,
    /// The other nodes, when the image runs on several (`--cluster`).
    cluster: Option<cluster::Cluster>,
    /// When driven from outside (`probe::image`): what came back to the
    /// outside caller's requests, and each instance stopped, as they came.
    probed: Option<probe::image::Seen>,
    /// How the run stands toward its end.
    ending: Ending,
    io: Io<'a>,
    inbox: Inbox,
    /// The console's input as the run has taken it.
    input: ConsoleInput,
    limits: Limits,
    /// Buffers reused from one delivery to the next.
    spare: Spare,
    /// The loop's waits on a disk, watched by the ticker's thread.
    stall: Arc<stall::Stall>,
    _ticker: Ticker,
}

impl<'a> Runtime<'a> {
    /// Runs the image until it is idle and its input has ended. Returns the
    /// exit status.
    pub fn run(mut self) -> i32 {
        for a in self.actors.ids() {
            if let Body::Wasm(w) = &mut self.actors[a].body {
                let result = w.start();
                self.after_call(a, result);
            }
        }
        self.configure(None);
        // The starts and the startup requests' order are settled: from here
        // on, long calls go to the workers if there are several (`workers`).
        self.workers.allow(self.limits.workers());
        loop {
            // When this stretch of work began: one that goes on too long
            // lets what came from outside in (`take_in_between`).
            let mut busy_since = Instant::now();
            while let Some(e) = self.queue.pop_front() {
                self.taken += 1;
                self.deliver(e);
                self.forget_dropped();
                if self.ending.fatal {
                    break;
                }
                if self.workers.in_flight > 0 {
                    self.take_in_meanwhile();
                } else if self.taken.is_multiple_of(take_in::FAIR_CHECK)
                    && busy_since.elapsed() >= take_in::FAIR_WAIT
                {
                    self.take_in_between();
                    busy_since = Instant::now();
                }
            }
            if self.ending.fatal {
                // Nothing more is served: listeners close at once.
                self.flush_http();
                for (_, h) in self.https() {
                    h.stop();
                }
                break;
            }
            if self.workers.in_flight > 0 {
                // Calls are out on the workers: wait for one, and take in
                // what comes from outside meanwhile (a console line waits
                // for the image to be idle, as ever).
                if let Some(o) = self.next_outside(None) {
                    self.outside(o);
                }
                continue;
            }
            if !self.wake() {
                break;
            }
        }
        self.flush_http();
        if self.workers.calls > 0 {
            let n = self.workers.calls;
            self.note(format_args!("{n} call(s) made on workers"));
        }
        let _ = self.io.out.flush();
        let lost = self.actors.iter().find_map(|a| match &a.body {
            Body::Console(c) => c.lost_output.clone(),
            _ => None,
        });
        if let Some(why) = lost {
            let _ = writeln!(
                self.io.err,
                "error: console output was lost: writing to standard output failed ({why})"
            );
            self.ending.failed = true;
        }
        if self.ending.failed { 1 } else { 0 }
    }
}
