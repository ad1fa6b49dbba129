//! runtime-min: runs an image bundle (abi.md §6) on wasmtime.
//!
//! Every instance of a compiled object is a wasmtime instance speaking the
//! host ABI (`host.rs`); `Console`, `Files` and `Clock` are native
//! (`natives/`). One FIFO queue carries every delivery, so a run is
//! deterministic and no module is re-entered. Every request is checked on
//! its way (runtime.md): a malformed path (`invalid`), the sender's needs
//! (`forbidden`), its view (`not_found`), read-only links (`read_only`),
//! the receiver's serves (`not_found`, `not_supported`), the operator rule
//! (`forbidden`) and the payload limit (`too_large`); a server that answers
//! a request it is not serving, or a non-stream twice, is stopped. Standard
//! input goes to the console's watchers a line at a time, only when the
//! image is idle, so piped input behaves as typed input.

pub mod abi;
mod host;
pub mod limits;
pub mod natives;
mod paths;
mod view;

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Write;
use std::path::PathBuf;
use std::rc::Rc;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use othc::bundle::ImageJson;
use othc::check::matching::{path_covers, strip_prefix};
pub(crate) use othc::model::Seg;
use othc::model::{EntryDef, Model, ObjectDef};

use abi::{errno, verb_name};
use host::{Call, Carried, Wasm};
pub use limits::Limits;
use natives::Reply;
use natives::files::Files;
use view::Link;

#[derive(Clone, Debug, PartialEq)]
pub struct Payload {
    pub content_type: String,
    pub data: Vec<u8>,
}

/// Who sent a request: an instance, or the operator (startup request `n`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Sender {
    Instance(usize),
    Operator(usize),
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

type IdMap<V> = HashMap<i32, V, BuildHasherDefault<IdHasher>>;
type IdSet = HashSet<i32, BuildHasherDefault<IdHasher>>;

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
    ticket: i32,
    verb: i32,
    flags: i32,
    payload: Option<Payload>,
    /// Whether the entry it reached streams (more than one answer allowed).
    stream: bool,
}

enum Body {
    Wasm(Box<Wasm>),
    Console { watchers: Vec<(Sender, i32)> },
    Files(Files),
    Clock,
}

struct Actor {
    name: String,
    body: Body,
    /// The object's header: what it needs and serves (shared by the
    /// instances of one module).
    header: Rc<Header>,
    /// Requests it is serving, by request id.
    serving: IdMap<Serving>,
    /// Request ids whose callers cancelled: late answers are dropped.
    cancelled: IdSet,
    /// Tickets of its own requests it cancelled: their answers are dropped.
    dropped: IdSet,
    next_id: i32,
    dead: bool,
}

enum Event {
    Serve {
        to: usize,
        req: Serving,
        path: Vec<Seg>,
    },
    Answer {
        to: Sender,
        ticket: i32,
        done: bool,
        payload: Option<Payload>,
    },
    Error {
        to: Sender,
        ticket: i32,
        errno: i32,
        code: String,
        desc: String,
    },
    Cancel {
        to: usize,
        id: i32,
    },
}

/// Why a bundle could not be run (exit status 2).
#[derive(Debug)]
pub struct LoadError(pub String);

impl std::fmt::Display for LoadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Ticks the engine's epoch, so a delivery that runs too long traps.
struct Ticker {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Ticker {
    fn start(engine: &wasmtime::Engine) -> Ticker {
        let stop = Arc::new(AtomicBool::new(false));
        let (flag, engine) = (stop.clone(), engine.clone());
        let thread = std::thread::spawn(move || {
            // Parked rather than asleep, so a finished run wakes it to stop
            // at once instead of waiting out the tick.
            while !flag.load(Ordering::Relaxed) {
                std::thread::park_timeout(limits::TICK);
                engine.increment_epoch();
            }
        });
        Ticker {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Ticker {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(t) = self.thread.take() {
            t.thread().unpark();
            let _ = t.join();
        }
    }
}

/// Where a run's console input comes from and its output goes.
pub struct Io<'a> {
    /// Console input, pulled a line at a time when the image is idle.
    pub input: Box<dyn Iterator<Item = String> + 'a>,
    pub out: &'a mut dyn Write,
    pub err: &'a mut dyn Write,
    /// Where to write a line per delivery (`--trace`), if anywhere.
    pub trace: Option<&'a mut dyn Write>,
}

pub struct Runtime<'a> {
    actors: Vec<Actor>,
    /// Each startup request's receiver and path, in order.
    startup: Vec<(usize, Vec<Seg>)>,
    json: ImageJson,
    queue: VecDeque<Event>,
    io: Io<'a>,
    input_ended: bool,
    limits: Limits,
    failed: bool,
    /// The buffer instances' host calls are collected in, reused.
    spare_calls: Vec<Call>,
    _ticker: Ticker,
}

/// The object a module's header declares, read from its sections.
fn header_of(bytes: &[u8]) -> Result<(Model, ObjectDef), String> {
    let mut l = othc::loader::MemoryLoader::new();
    l.add("module.wasm", bytes.to_vec());
    let c = othc::compile(&l, &[PathBuf::from("module.wasm")], &Default::default())
        .map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        return Err("its header does not check".into());
    }
    let root = c.front.program.roots[0].0;
    let object = c
        .checked
        .model
        .objects
        .iter()
        .find(|o| o.file.0 == root)
        .cloned()
        .ok_or("its header declares no object")?;
    Ok((c.checked.model, object))
}

/// The natives' headers, from `othismo:env` (sdk/env/Runtime.oth).
fn native_headers() -> Result<(Model, Vec<ObjectDef>), String> {
    let mut l = othc::loader::MemoryLoader::new();
    l.add(
        "natives.oth",
        b"import { Console, Files, Clock } from \"othismo:env\"\n".to_vec(),
    );
    let c = othc::compile(&l, &[PathBuf::from("natives.oth")], &Default::default())
        .map_err(|e| e.to_string())?;
    if c.front.diags.has_errors() {
        return Err("the runtime's own header does not check".into());
    }
    let natives = c
        .checked
        .model
        .objects
        .iter()
        .filter(|o| o.native)
        .cloned()
        .collect();
    Ok((c.checked.model, natives))
}

fn parse_link(l: &othc::bundle::LinkJson, index: &HashMap<&str, usize>) -> Result<Link, LoadError> {
    let target = *index
        .get(l.target.as_str())
        .ok_or_else(|| LoadError(format!("a view names `{}`, which is no instance", l.target)))?;
    let (Some(at), Some(path)) = (paths::parse(&l.at), paths::parse(&l.path)) else {
        return Err(LoadError(format!(
            "a view links `{}` to `{}`: not a path",
            l.at, l.path
        )));
    };
    Ok(Link {
        at,
        target,
        path,
        readonly: l.readonly,
    })
}

impl<'a> Runtime<'a> {
    /// Loads a bundle: its modules checked against their hashes, read for
    /// their headers, and instantiated; every view resolved.
    pub fn load(bundle: &[u8], limits: Limits, io: Io<'a>) -> Result<Runtime<'a>, LoadError> {
        let (json, modules) = othc::bundle::read(bundle).map_err(LoadError)?;
        let mut config = wasmtime::Config::new();
        config.epoch_interruption(true);
        let engine = wasmtime::Engine::new(&config).map_err(|e| LoadError(e.to_string()))?;
        let ticker = Ticker::start(&engine);
        let linker = host::linker(&engine).map_err(|e| LoadError(e.to_string()))?;
        // The natives' header is compiled only for an image that has natives.
        let natives: Vec<Rc<Header>> = if json.instances.iter().any(|i| i.native.is_some()) {
            let (env, natives) = native_headers().map_err(LoadError)?;
            natives
                .into_iter()
                .map(|o| Rc::new((env.clone(), o)))
                .collect()
        } else {
            Vec::new()
        };
        let index: HashMap<&str, usize> = json
            .instances
            .iter()
            .enumerate()
            .map(|(i, inst)| (inst.name.as_str(), i))
            .collect();
        // Each module is compiled and its header read once, however many
        // instances it has.
        let mut compiled: HashMap<&str, (wasmtime::Module, Rc<Header>)> = HashMap::new();
        let mut actors = Vec::new();
        for inst in &json.instances {
            let view = inst
                .view
                .iter()
                .map(|l| parse_link(l, &index))
                .collect::<Result<Vec<_>, _>>()?;
            let (body, header) = match (&inst.native, &inst.module) {
                (Some(n), _) => {
                    let body = match n.as_str() {
                        "Console" => Body::Console {
                            watchers: Vec::new(),
                        },
                        "Files" => Body::Files(Files::default()),
                        "Clock" => Body::Clock,
                        _ => {
                            return Err(LoadError(format!(
                                "instance `{}`: the runtime has no native object `{n}`",
                                inst.name
                            )));
                        }
                    };
                    let header = natives
                        .iter()
                        .find(|h| h.1.name == *n)
                        .cloned()
                        .ok_or_else(|| LoadError(format!("no header for native `{n}`")))?;
                    (body, header)
                }
                (None, Some(m)) => {
                    if !compiled.contains_key(m.as_str()) {
                        let (_, bytes) = modules
                            .iter()
                            .find(|(name, _)| name == m)
                            .ok_or_else(|| LoadError(format!("the bundle holds no `{m}`")))?;
                        let header =
                            header_of(bytes).map_err(|e| LoadError(format!("`{m}`: {e}")))?;
                        let module = wasmtime::Module::new(&engine, bytes)
                            .map_err(|e| LoadError(format!("`{m}`: {e:#}")))?;
                        compiled.insert(m, (module, Rc::new(header)));
                    }
                    let (module, header) = &compiled[m.as_str()];
                    let wasm = Wasm::new(&engine, &linker, module, view, &limits).map_err(|e| {
                        LoadError(format!("instance `{}` (`{m}`): {e:#}", inst.name))
                    })?;
                    (Body::Wasm(Box::new(wasm)), Rc::clone(header))
                }
                (None, None) => {
                    return Err(LoadError(format!("instance `{}` has no module", inst.name)));
                }
            };
            actors.push(Actor {
                name: inst.name.clone(),
                body,
                header,
                serving: IdMap::default(),
                cancelled: IdSet::default(),
                dropped: IdSet::default(),
                next_id: 0,
                dead: false,
            });
        }
        // Each startup request's receiver and path, checked now: a bundle
        // that names what is not there does not load.
        let startup = json
            .startup
            .iter()
            .map(|s| {
                let to = *index.get(s.target.as_str()).ok_or_else(|| {
                    LoadError(format!(
                        "a startup request names `{}`, which is no instance",
                        s.target
                    ))
                })?;
                let path = paths::parse(&s.path).ok_or_else(|| {
                    LoadError(format!(
                        "a startup request's path `{}` is malformed",
                        s.path
                    ))
                })?;
                Ok((to, path))
            })
            .collect::<Result<Vec<_>, LoadError>>()?;
        Ok(Runtime {
            actors,
            startup,
            json,
            queue: VecDeque::new(),
            io,
            input_ended: false,
            limits,
            failed: false,
            spare_calls: Vec::new(),
            _ticker: ticker,
        })
    }

    /// Starts every instance, sends the startup requests, and runs until the
    /// image is idle and its input has ended. Returns the exit status.
    pub fn run(mut self) -> i32 {
        for a in 0..self.actors.len() {
            if let Body::Wasm(w) = &mut self.actors[a].body {
                let result = w.start();
                self.after_call(a, result);
            }
        }
        // The operator's startup requests go first: they configure the
        // image, and what the instances asked for while starting waits
        // behind them (an object cannot otherwise wait for its config).
        let held = std::mem::take(&mut self.queue);
        let startup = std::mem::take(&mut self.startup);
        for (n, (to, path)) in startup.into_iter().enumerate() {
            let s = &self.json.startup[n];
            let payload = s.payload.as_ref().map(|p| Payload {
                content_type: p.content_type.clone(),
                data: p.bytes(),
            });
            let req = Serving {
                from: Sender::Operator(n),
                ticket: n as i32 + 1,
                verb: s.verb as i32 + 1,
                flags: abi::OPERATOR,
                payload,
                stream: false,
            };
            self.deliver_checked(to, req, path, false, 0);
        }
        self.queue.extend(held);
        loop {
            while let Some(e) = self.queue.pop_front() {
                self.process(e);
            }
            if !self.feed_input() {
                break;
            }
        }
        let _ = self.io.out.flush();
        if self.failed { 1 } else { 0 }
    }

    /// Hands the next input line to the console's watchers; false when
    /// there is nothing more to hand out.
    fn feed_input(&mut self) -> bool {
        let watchers: Vec<(Sender, i32)> = self
            .actors
            .iter()
            .flat_map(|a| match &a.body {
                Body::Console { watchers } => watchers.clone(),
                _ => Vec::new(),
            })
            .collect();
        if watchers.is_empty() || self.input_ended {
            return false;
        }
        match self.io.input.next() {
            Some(line) => {
                for (to, ticket) in watchers {
                    self.queue.push_back(Event::Answer {
                        to,
                        ticket,
                        done: false,
                        payload: Some(natives::text(line.clone())),
                    });
                }
            }
            None => {
                // Input ended: the watch streams end.
                self.input_ended = true;
                for a in &mut self.actors {
                    if let Body::Console { watchers } = &mut a.body {
                        for (to, ticket) in watchers.drain(..) {
                            self.queue.push_back(Event::Answer {
                                to,
                                ticket,
                                done: true,
                                payload: None,
                            });
                        }
                    }
                }
            }
        }
        true
    }

    fn fail_to(&mut self, to: Sender, ticket: i32, errno: i32, desc: String) {
        self.queue.push_back(Event::Error {
            to,
            ticket,
            errno,
            code: errno::code(errno).into(),
            desc,
        });
    }

    fn exposed(&self, a: usize) -> &[Link] {
        match &self.actors[a].body {
            Body::Wasm(w) => &w.host().exposed,
            _ => &[],
        }
    }

    /// A request from instance `from` (its needs) aimed by `aim` in its view.
    fn route(&mut self, from: usize, req: Serving, aim: view::Aim) {
        let Some(segs) = aim.segs else {
            return self.fail_to(
                req.from,
                req.ticket,
                errno::INVALID,
                format!("malformed path `{}`", aim.path),
            );
        };
        let sender = &self.actors[from];
        let (model, obj) = &*sender.header;
        if !needs_allow(obj, model, req.verb, &segs) {
            let name = sender.name.clone();
            return self.fail_to(
                req.from,
                req.ticket,
                errno::FORBIDDEN,
                format!(
                    "`{name}` does not need {} {}",
                    verb_name(req.verb),
                    paths::text(&segs)
                ),
            );
        }
        let Some((to, target, readonly)) = aim.dest else {
            return self.fail_to(
                req.from,
                req.ticket,
                errno::NOT_FOUND,
                format!("nothing is mounted at {}", paths::text(&segs)),
            );
        };
        self.deliver_checked(to, req, target, readonly, 0);
    }

    /// The checks of the receiving side (through its exposures, if the path
    /// is one), then the delivery.
    fn deliver_checked(
        &mut self,
        to: usize,
        mut req: Serving,
        path: Vec<Seg>,
        readonly: bool,
        hops: usize,
    ) {
        if readonly && !abi::is_safe(req.verb) {
            return self.fail_to(
                req.from,
                req.ticket,
                errno::READ_ONLY,
                format!("{} through a read-only link", verb_name(req.verb)),
            );
        }
        if self.actors[to].dead {
            let name = self.actors[to].name.clone();
            return self.fail_to(
                req.from,
                req.ticket,
                errno::UNAVAILABLE,
                format!("`{name}` has stopped"),
            );
        }
        if let Some((next, there, ro)) = view::resolve(self.exposed(to), &path) {
            if hops >= 32 {
                return self.fail_to(
                    req.from,
                    req.ticket,
                    errno::NOT_FOUND,
                    "exposures lead round in a circle".into(),
                );
            }
            return self.deliver_checked(next, req, there, ro, hops + 1);
        }
        let (model, obj) = &*self.actors[to].header;
        match serves(obj, model, req.verb, &path) {
            Err(e) => {
                let (name, at) = (&self.actors[to].name, paths::text(&path));
                let desc = if e == errno::NOT_FOUND {
                    format!("`{name}` serves nothing at {at}")
                } else {
                    format!("`{name}` serves {at}, but not {}", verb_name(req.verb))
                };
                return self.fail_to(req.from, req.ticket, e, desc);
            }
            Ok(entry) if entry.operator && req.flags & abi::OPERATOR == 0 => {
                return self.fail_to(
                    req.from,
                    req.ticket,
                    errno::FORBIDDEN,
                    format!(
                        "only the operator may {} {}",
                        verb_name(req.verb),
                        paths::text(&path)
                    ),
                );
            }
            Ok(entry) => req.stream = entry.stream || abi::always_streams(req.verb),
        }
        self.queue.push_back(Event::Serve { to, req, path });
    }

    /// Whether a caller has given up on `ticket` (cancelled, or stopped).
    fn abandoned(&self, from: Sender, ticket: i32) -> bool {
        match from {
            Sender::Instance(c) => self.actors[c].dead || self.actors[c].dropped.contains(&ticket),
            Sender::Operator(_) => false,
        }
    }

    /// What a native object answered, on its way to the caller.
    fn reply(&mut self, req: &Serving, replies: Vec<Reply>) {
        for r in replies {
            match r {
                Reply::Answer { payload, .. }
                    if payload
                        .as_ref()
                        .is_some_and(|p| p.data.len() > self.limits.payload) =>
                {
                    return self.fail_to(
                        req.from,
                        req.ticket,
                        errno::TOO_LARGE,
                        "the answer is over the payload limit".into(),
                    );
                }
                Reply::Answer { done, payload } => self.queue.push_back(Event::Answer {
                    to: req.from,
                    ticket: req.ticket,
                    done,
                    payload,
                }),
                Reply::Error { errno, desc } => self.fail_to(req.from, req.ticket, errno, desc),
            }
        }
    }

    fn who(&self, s: Sender) -> String {
        match s {
            Sender::Instance(a) => self.actors[a].name.clone(),
            Sender::Operator(_) => "operator".into(),
        }
    }

    /// One line per delivery, for `--trace`: what reaches whom.
    fn trace(&mut self, e: &Event) {
        if self.io.trace.is_none() {
            return;
        }
        let carried = |p: &Option<Payload>| p.as_ref().map(describe).unwrap_or_default();
        let line = match e {
            Event::Serve { to, req, path } => format!(
                "{}:{} -> {}: {}{} {}{}",
                self.who(req.from),
                req.ticket,
                self.actors[*to].name,
                if req.flags & abi::OPERATOR != 0 {
                    "operator "
                } else {
                    ""
                },
                verb_name(req.verb),
                paths::text(path),
                carried(&req.payload)
            ),
            Event::Answer {
                to,
                ticket,
                done,
                payload,
            } => format!(
                "{}:{ticket} <- {}{}",
                self.who(*to),
                if *done { "done" } else { "answer" },
                carried(payload)
            ),
            Event::Error {
                to,
                ticket,
                errno,
                code,
                desc,
            } => format!("{}:{ticket} <- error {errno} {code}: {desc}", self.who(*to)),
            Event::Cancel { to, id } => format!("{} request {id} cancelled", self.actors[*to].name),
        };
        if let Some(t) = self.io.trace.as_mut() {
            let _ = writeln!(t, "{line}");
        }
    }

    fn process(&mut self, e: Event) {
        // What the caller gave up on (cancelled, or stopped) is not delivered.
        let dropped = match &e {
            Event::Serve { req, .. } => self.abandoned(req.from, req.ticket),
            Event::Answer { to, ticket, .. } | Event::Error { to, ticket, .. } => {
                self.abandoned(*to, *ticket)
            }
            Event::Cancel { .. } => false,
        };
        if dropped {
            return;
        }
        self.trace(&e);
        match e {
            Event::Serve { to, req, path } => {
                if self.actors[to].dead {
                    let name = self.actors[to].name.clone();
                    return self.fail_to(
                        req.from,
                        req.ticket,
                        errno::UNAVAILABLE,
                        format!("`{name}` has stopped"),
                    );
                }
                let limit = self.limits.payload;
                let actor = &mut self.actors[to];
                match &mut actor.body {
                    Body::Console { watchers } => match req.verb {
                        abi::WATCH => watchers.push((req.from, req.ticket)),
                        _ => {
                            let text = req.payload.as_ref().map(|p| &p.data[..]).unwrap_or(&[]);
                            let _ = self.io.out.write_all(text);
                            let _ = self.io.out.write_all(b"\n");
                            self.reply(&req, vec![Reply::done(None)]);
                        }
                    },
                    Body::Files(files) => {
                        let replies = files.serve(natives::files::Request {
                            verb: req.verb,
                            operator: req.flags & abi::OPERATOR != 0,
                            path: &path,
                            payload: req.payload.as_ref(),
                            limit,
                        });
                        self.reply(&req, replies);
                    }
                    Body::Clock => {
                        let r = natives::clock::serve(&path);
                        self.reply(&req, vec![r]);
                    }
                    Body::Wasm(w) => {
                        actor.next_id += 1;
                        let id = actor.next_id;
                        let result =
                            w.serve(id, req.verb, req.flags, &paths::text(&path), &req.payload);
                        actor.serving.insert(id, req);
                        self.after_call(to, result);
                    }
                }
            }
            Event::Answer {
                to,
                ticket,
                done,
                payload,
            } => {
                let Sender::Instance(a) = to else { return };
                if let Body::Wasm(w) = &mut self.actors[a].body {
                    let result = w.answer(ticket, done, &payload);
                    self.after_call(a, result);
                }
            }
            Event::Error {
                to,
                ticket,
                errno,
                code,
                desc,
            } => match to {
                Sender::Operator(n) => {
                    let s = &self.json.startup[n];
                    let _ = writeln!(
                        self.io.err,
                        "error: startup request {} {} failed: {errno} {code}: {desc}",
                        s.verb.as_str(),
                        othc::bundle::tree_path(&s.target, &s.path)
                    );
                    self.failed = true;
                }
                Sender::Instance(a) => {
                    if let Body::Wasm(w) = &mut self.actors[a].body {
                        let result = w.error(ticket, errno, &code, &desc);
                        self.after_call(a, result);
                    }
                }
            },
            Event::Cancel { to, id } => {
                if self.actors[to].dead {
                    return;
                }
                match &mut self.actors[to].body {
                    Body::Wasm(w) => {
                        let result = w.cancel(id);
                        self.after_call(to, result);
                    }
                    Body::Console { .. } | Body::Files(_) | Body::Clock => {}
                }
            }
        }
    }

    /// Ends what `from` asked for (one ticket, or all of them): servers are
    /// told, console watches end.
    fn withdraw(&mut self, from: Sender, ticket: Option<i32>) {
        let mine = |s: &Serving| s.from == from && ticket.is_none_or(|t| s.ticket == t);
        for t in 0..self.actors.len() {
            let actor = &mut self.actors[t];
            let ids: Vec<i32> = actor
                .serving
                .iter()
                .filter(|(_, s)| mine(s))
                .map(|(id, _)| *id)
                .collect();
            for id in ids {
                actor.serving.remove(&id);
                actor.cancelled.insert(id);
                self.queue.push_back(Event::Cancel { to: t, id });
            }
            if let Body::Console { watchers } = &mut actor.body {
                watchers.retain(|(s, k)| !(*s == from && ticket.is_none_or(|t| *k == t)));
            }
        }
    }

    /// After any call into instance `a`: a trap stops it; otherwise what it
    /// asked for is done, in order.
    fn after_call(&mut self, a: usize, result: wasmtime::Result<()>) {
        if let Err(e) = result {
            let why = self.why(&e);
            return self.kill(a, &why);
        }
        let mut calls = std::mem::take(&mut self.spare_calls);
        if let Body::Wasm(w) = &mut self.actors[a].body {
            w.swap_calls(&mut calls);
        }
        self.act_on(a, &mut calls);
        calls.clear();
        self.spare_calls = calls;
        if self.queue.len() > self.limits.queue {
            let why = format!(
                "its requests filled the queue past {} deliveries (`--max-queue`)",
                self.limits.queue
            );
            self.kill(a, &why);
        }
    }

    /// Does what instance `a` asked for in one call, in order; stops at a
    /// call that gets it stopped.
    fn act_on(&mut self, a: usize, calls: &mut Vec<Call>) {
        let limit = self.limits.payload;
        for call in calls.drain(..) {
            match call {
                Call::Request {
                    ticket,
                    verb,
                    aim,
                    payload,
                } => {
                    let from = Sender::Instance(a);
                    let payload = match payload {
                        Carried::TooLarge(n) => {
                            self.fail_to(
                                from,
                                ticket,
                                errno::TOO_LARGE,
                                format!("the payload is {n} bytes, over the limit of {limit}"),
                            );
                            continue;
                        }
                        Carried::Some(p) => Some(p),
                        Carried::None => None,
                    };
                    let req = Serving {
                        from,
                        ticket,
                        verb,
                        flags: 0,
                        payload,
                        stream: false,
                    };
                    self.route(a, req, aim);
                }
                Call::Cancel { ticket } => {
                    self.actors[a].dropped.insert(ticket);
                    self.withdraw(Sender::Instance(a), Some(ticket));
                }
                Call::Answer { id, done, payload } => {
                    let s = match self.claim(a, id, "answered") {
                        Claim::Serving(s) => s,
                        Claim::Late => continue,
                        Claim::Stopped => return,
                    };
                    // A non-stream has one answer: the first finishes it.
                    let done = done || !s.stream;
                    let payload = match payload {
                        Carried::TooLarge(n) => {
                            self.fail_to(
                                s.from,
                                s.ticket,
                                errno::TOO_LARGE,
                                format!("the answer is {n} bytes, over the limit of {limit}"),
                            );
                            continue;
                        }
                        Carried::Some(p) => Some(p),
                        Carried::None => None,
                    };
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
                Call::Fail {
                    id,
                    errno,
                    code,
                    desc,
                } => {
                    let s = match self.claim(a, id, "failed") {
                        Claim::Serving(s) => s,
                        Claim::Late => continue,
                        Claim::Stopped => return,
                    };
                    self.queue.push_back(Event::Error {
                        to: s.from,
                        ticket: s.ticket,
                        errno,
                        code,
                        desc,
                    });
                }
                Call::Forward { id, aim } => {
                    let s = match self.claim(a, id, "forwarded") {
                        Claim::Serving(s) => s,
                        Claim::Late => continue,
                        Claim::Stopped => return,
                    };
                    // Resolved as if `a` had sent it; answered to the original caller.
                    self.route(a, s, aim);
                }
            }
        }
    }

    /// Instance `a` answers, fails or forwards (`what`) request `id`: the
    /// request, taken out of what it serves; a late answer to a cancelled
    /// one, ignored; or none it is serving, and it is stopped.
    fn claim(&mut self, a: usize, id: i32, what: &str) -> Claim {
        if let Some(s) = self.actors[a].serving.remove(&id) {
            return Claim::Serving(s);
        }
        if self.actors[a].cancelled.contains(&id) {
            return Claim::Late;
        }
        let why = self.not_serving(a, id, what);
        self.kill(a, &why);
        Claim::Stopped
    }

    /// Why instance `a` may not answer request `id`: it never got it, or
    /// has given its last answer.
    fn not_serving(&self, a: usize, id: i32, what: &str) -> String {
        if id >= 1 && id <= self.actors[a].next_id {
            format!(
                "it {what} request {id} after its last answer (only a stream answers more than once)"
            )
        } else {
            format!("it {what} request {id}, which it was never sent")
        }
    }

    /// A trap, in words: the limit it hit, or what the module did.
    fn why(&self, e: &wasmtime::Error) -> String {
        if e.downcast_ref::<wasmtime::Trap>() == Some(&wasmtime::Trap::Interrupt) {
            return format!(
                "it ran past the time limit of {} ms in one delivery (`--max-time`)",
                self.limits.time_ms
            );
        }
        // The cause (a limit, an abort, a trap), then where it happened.
        let mut chain: Vec<String> = e.chain().map(|c| c.to_string()).collect();
        let cause = chain.pop().unwrap_or_default();
        let mut out = cause;
        for c in chain {
            for line in c.lines() {
                out.push_str("\n    ");
                out.push_str(line.trim());
            }
        }
        out
    }

    /// Stops an instance: what it was serving is answered `unavailable`,
    /// what it asked for is cancelled.
    fn kill(&mut self, a: usize, why: &str) {
        let actor = &mut self.actors[a];
        if actor.dead {
            return;
        }
        actor.dead = true;
        let name = actor.name.clone();
        let serving: Vec<Serving> = actor.serving.drain().map(|(_, s)| s).collect();
        let _ = writeln!(self.io.err, "error: instance `{name}` stopped: {why}");
        self.failed = true;
        for s in serving {
            self.fail_to(
                s.from,
                s.ticket,
                errno::UNAVAILABLE,
                format!("`{name}` has stopped"),
            );
        }
        self.withdraw(Sender::Instance(a), None);
        // What it asked for and is not yet delivered goes nowhere.
        let me = Sender::Instance(a);
        self.queue
            .retain(|e| !matches!(e, Event::Serve { req, .. } if req.from == me));
    }
}

/// A payload in a trace line: text shown (up to a point), stat records
/// read, anything else by its type and size.
fn describe(p: &Payload) -> String {
    if p.content_type == abi::STAT_TYPE
        && let Some(s) = abi::Stat::decode(&p.data)
    {
        let kind = if s.kind == abi::KIND_DIRECTORY {
            "directory"
        } else {
            "file"
        };
        return format!(
            " stat {{ {:?}, {kind}, {} bytes, {} }}",
            s.name, s.length, s.content_type
        );
    }
    match std::str::from_utf8(&p.data) {
        Ok(t) if p.content_type.starts_with("text/") && t.chars().count() <= 60 => {
            format!(" {} {t:?}", p.content_type)
        }
        _ => format!(" {} ({} bytes)", p.content_type, p.data.len()),
    }
}

/// Whether an object's needs allow `verb path` (a path in its view).
fn needs_allow(obj: &ObjectDef, model: &Model, verb: i32, path: &[Seg]) -> bool {
    let Some(v) = abi::verb_of(verb) else {
        return false;
    };
    obj.needs.iter().any(|n| {
        let literal = n.mount.literal_prefix();
        let Some(rest) = strip_prefix(path, literal) else {
            return false;
        };
        let pattern_need = literal.len() != n.mount.segs.len();
        n.entries.iter().any(|e| {
            let e: &EntryDef = model.entry(*e);
            e.verb == v
                && if pattern_need {
                    // Anywhere under the mount point: the entry's path at the end.
                    (0..=rest.len()).any(|k| path_covers(&e.path.segs, &rest[k..]))
                } else {
                    path_covers(&e.path.segs, rest)
                }
        })
    })
}

/// The serves entry a request reaches, or the errno of why none does.
fn serves<'m>(
    obj: &ObjectDef,
    model: &'m Model,
    verb: i32,
    path: &[Seg],
) -> Result<&'m EntryDef, i32> {
    let v = abi::verb_of(verb).ok_or(errno::NOT_SUPPORTED)?;
    let mut covered = false;
    let mut best: Option<&EntryDef> = None;
    for e in obj.serves.iter().map(|e| model.entry(*e)) {
        if !path_covers(&e.path.segs, path) {
            continue;
        }
        covered = true;
        if e.verb == v
            && best.is_none_or(|b| {
                othc::check::matching::specificity(&e.path.segs)
                    < othc::check::matching::specificity(&b.path.segs)
            })
        {
            best = Some(e);
        }
    }
    if !covered {
        return Err(errno::NOT_FOUND);
    }
    best.ok_or(errno::NOT_SUPPORTED)
}

/// Runs a bundle on this process's standard streams: console input from
/// stdin (read a line at a time, as the image asks), output to stdout,
/// reports to stderr. Returns the exit status (runtime.md).
pub fn run_on_stdio(bundle: &[u8], limits: Limits, trace: bool) -> Result<i32, LoadError> {
    use std::io::BufRead;
    let stdin = std::io::stdin();
    let input = stdin.lock().lines().map_while(Result::ok);
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr();
    let mut trace_to = std::io::stderr();
    let io = Io {
        input: Box::new(input),
        out: &mut out,
        err: &mut err,
        trace: if trace { Some(&mut trace_to) } else { None },
    };
    Ok(Runtime::load(bundle, limits, io)?.run())
}
