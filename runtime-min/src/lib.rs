//! runtime-min: runs an image bundle (abi.md §6) on wasmtime.
//!
//! Every instance of a compiled object is a wasmtime instance speaking the
//! host ABI (`host.rs`); `Console` is native. One FIFO queue carries every
//! delivery, so a run is deterministic and no module is re-entered. Every
//! request is checked on its way (runtime.md): a malformed path (`invalid`),
//! the sender's needs (`forbidden`), its view (`not_found`), read-only
//! mounts (`read_only`), the receiver's serves (`not_found`,
//! `not_supported`) and the operator rule (`forbidden`). Standard input goes
//! to the console's watchers a line at a time, only when the image is idle,
//! so piped input behaves as typed input.

mod host;
mod paths;

use std::collections::{HashMap, HashSet, VecDeque};
use std::io::Write;
use std::path::PathBuf;

use othc::bundle::ImageJson;
use othc::check::matching::{path_covers, strip_prefix};
use othc::model::{EntryDef, Model, ObjectDef, PathPattern, Seg, Verb};

use host::{Call, Wasm};

/// Errnos the runtime answers with itself (abi.md §1).
pub mod errno {
    pub const NOT_FOUND: i32 = 1;
    pub const NOT_SUPPORTED: i32 = 2;
    pub const READ_ONLY: i32 = 3;
    pub const INVALID: i32 = 4;
    pub const FORBIDDEN: i32 = 5;
    pub const UNAVAILABLE: i32 = 10;

    pub fn code(e: i32) -> &'static str {
        match e {
            NOT_FOUND => "not_found",
            NOT_SUPPORTED => "not_supported",
            READ_ONLY => "read_only",
            INVALID => "invalid",
            FORBIDDEN => "forbidden",
            UNAVAILABLE => "unavailable",
            _ => "error",
        }
    }
}

/// The operator flag (abi.md §1).
const OPERATOR: i32 = 1;
const WATCH: i32 = 2;
const WRITE: i32 = 5;

fn is_safe(verb: i32) -> bool {
    (1..=4).contains(&verb)
}

fn verb_of(v: i32) -> Option<Verb> {
    usize::try_from(v - 1)
        .ok()
        .and_then(|i| Verb::ALL.get(i))
        .copied()
}

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

/// A request being served.
#[derive(Clone)]
struct Serving {
    from: Sender,
    ticket: i32,
    verb: i32,
    flags: i32,
    payload: Option<Payload>,
}

enum Body {
    Wasm(Box<Wasm>),
    Console { watchers: Vec<(Sender, i32)> },
}

struct Actor {
    name: String,
    body: Body,
    /// The object's header, for a compiled object: what it needs and serves.
    header: Option<(Model, ObjectDef)>,
    /// The instance's view: (at, target actor, path there, read-only).
    view: Vec<(PathPattern, usize, Vec<Seg>, bool)>,
    serving: HashMap<i32, Serving>,
    cancelled: HashSet<i32>,
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

pub struct Runtime<'a> {
    actors: Vec<Actor>,
    json: ImageJson,
    queue: VecDeque<Event>,
    input: std::vec::IntoIter<String>,
    input_ended: bool,
    out: &'a mut dyn Write,
    err: &'a mut dyn Write,
    failed: bool,
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

impl<'a> Runtime<'a> {
    /// Loads a bundle: its modules checked against their hashes, read for
    /// their headers, and instantiated; every view resolved.
    pub fn load(
        bundle: &[u8],
        input: Vec<String>,
        out: &'a mut dyn Write,
        err: &'a mut dyn Write,
    ) -> Result<Runtime<'a>, LoadError> {
        let (json, modules) = othc::bundle::read(bundle).map_err(LoadError)?;
        let engine = wasmtime::Engine::default();
        let linker = host::linker(&engine).map_err(|e| LoadError(e.to_string()))?;
        let mut actors = Vec::new();
        for inst in &json.instances {
            let (body, header) = match (&inst.native, &inst.module) {
                (Some(n), _) if n == "Console" => (
                    Body::Console {
                        watchers: Vec::new(),
                    },
                    None,
                ),
                (Some(n), _) => {
                    return Err(LoadError(format!(
                        "instance `{}`: the runtime has no native `{n}` yet",
                        inst.name
                    )));
                }
                (None, Some(m)) => {
                    let (_, bytes) = modules
                        .iter()
                        .find(|(name, _)| name == m)
                        .ok_or_else(|| LoadError(format!("the bundle holds no `{m}`")))?;
                    let header = header_of(bytes).map_err(|e| LoadError(format!("`{m}`: {e}")))?;
                    let wasm = Wasm::new(&engine, &linker, bytes)
                        .map_err(|e| LoadError(format!("`{m}`: {e}")))?;
                    (Body::Wasm(Box::new(wasm)), Some(header))
                }
                (None, None) => {
                    return Err(LoadError(format!("instance `{}` has no module", inst.name)));
                }
            };
            actors.push(Actor {
                name: inst.name.clone(),
                body,
                header,
                view: Vec::new(),
                serving: HashMap::new(),
                cancelled: HashSet::new(),
                next_id: 0,
                dead: false,
            });
        }
        let index: HashMap<String, usize> = actors
            .iter()
            .enumerate()
            .map(|(i, a)| (a.name.clone(), i))
            .collect();
        for (i, inst) in json.instances.iter().enumerate() {
            for v in &inst.view {
                let t = *index.get(&v.target).ok_or_else(|| {
                    LoadError(format!("a view names `{}`, which is no instance", v.target))
                })?;
                actors[i].view.push((
                    PathPattern {
                        segs: paths::parse(&v.at).unwrap_or_default(),
                    },
                    t,
                    paths::parse(&v.path).unwrap_or_default(),
                    v.readonly,
                ));
            }
        }
        Ok(Runtime {
            actors,
            json,
            queue: VecDeque::new(),
            input: input.into_iter(),
            input_ended: false,
            out,
            err,
            failed: false,
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
        let startup = self.json.startup.clone();
        for (n, s) in startup.iter().enumerate() {
            let Some(to) = self.actors.iter().position(|x| x.name == s.target) else {
                continue;
            };
            let payload = s.payload.as_ref().map(|p| Payload {
                content_type: p.content_type.clone(),
                data: p.bytes(),
            });
            let req = Serving {
                from: Sender::Operator(n),
                ticket: n as i32 + 1,
                verb: s.verb as i32 + 1,
                flags: OPERATOR,
                payload,
            };
            self.deliver_checked(to, req, paths::parse(&s.path).unwrap_or_default(), false);
        }
        loop {
            while let Some(e) = self.queue.pop_front() {
                self.process(e);
            }
            if !self.feed_input() {
                break;
            }
        }
        let _ = self.out.flush();
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
                Body::Wasm(_) => Vec::new(),
            })
            .collect();
        if watchers.is_empty() || self.input_ended {
            return false;
        }
        match self.input.next() {
            Some(line) => {
                for (to, ticket) in watchers {
                    self.queue.push_back(Event::Answer {
                        to,
                        ticket,
                        done: false,
                        payload: Some(Payload {
                            content_type: "text/plain".into(),
                            data: line.clone().into_bytes(),
                        }),
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

    /// A request from instance `from` (its view, its needs) for `path`.
    fn route(&mut self, from: usize, req: Serving, path: &str) {
        let Some(segs) = paths::parse(path) else {
            return self.fail_to(
                req.from,
                req.ticket,
                errno::INVALID,
                format!("malformed path `{path}`"),
            );
        };
        let sender = &self.actors[from];
        if let Some((_, obj)) = &sender.header
            && !needs_allow(
                obj,
                &sender.header.as_ref().expect("a header").0,
                req.verb,
                &segs,
            )
        {
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
        let best = sender
            .view
            .iter()
            .filter_map(|(at, t, p, ro)| {
                strip_prefix(&segs, &at.segs).map(|rest| (at.segs.len(), *t, p, rest, *ro))
            })
            .max_by_key(|(len, ..)| *len);
        let Some((_, to, base, rest, readonly)) = best else {
            return self.fail_to(
                req.from,
                req.ticket,
                errno::NOT_FOUND,
                format!("nothing is mounted at {}", paths::text(&segs)),
            );
        };
        let mut target = base.clone();
        target.extend_from_slice(rest);
        self.deliver_checked(to, req, target, readonly);
    }

    /// The checks of the receiving side, then the delivery.
    fn deliver_checked(&mut self, to: usize, req: Serving, path: Vec<Seg>, readonly: bool) {
        if readonly && !is_safe(req.verb) {
            return self.fail_to(
                req.from,
                req.ticket,
                errno::READ_ONLY,
                format!("{} through a read-only mount", verb_name(req.verb)),
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
        if let Some((_, obj)) = &self.actors[to].header {
            let model = &self.actors[to].header.as_ref().expect("a header").0;
            match serves(obj, model, req.verb, &path) {
                Err(e) => {
                    return self.fail_to(
                        req.from,
                        req.ticket,
                        e,
                        format!("{} {}", verb_name(req.verb), paths::text(&path)),
                    );
                }
                Ok(entry) if entry.operator && req.flags & OPERATOR == 0 => {
                    return self.fail_to(
                        req.from,
                        req.ticket,
                        errno::FORBIDDEN,
                        "only the operator may use this".into(),
                    );
                }
                Ok(_) => {}
            }
        }
        self.queue.push_back(Event::Serve { to, req, path });
    }

    fn process(&mut self, e: Event) {
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
                let actor = &mut self.actors[to];
                match &mut actor.body {
                    Body::Console { watchers } => {
                        if !path.is_empty() {
                            return self.fail_to(
                                req.from,
                                req.ticket,
                                errno::NOT_FOUND,
                                "the console serves only /".into(),
                            );
                        }
                        match req.verb {
                            WATCH => watchers.push((req.from, req.ticket)),
                            WRITE => {
                                let text = req
                                    .payload
                                    .as_ref()
                                    .map(|p| p.data.clone())
                                    .unwrap_or_default();
                                let _ = self.out.write_all(&text);
                                let _ = self.out.write_all(b"\n");
                                self.queue.push_back(Event::Answer {
                                    to: req.from,
                                    ticket: req.ticket,
                                    done: true,
                                    payload: None,
                                });
                            }
                            _ => self.fail_to(
                                req.from,
                                req.ticket,
                                errno::NOT_SUPPORTED,
                                "the console serves watch and write".into(),
                            ),
                        }
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
            } => match to {
                Sender::Operator(_) => {}
                Sender::Instance(a) => {
                    if self.actors[a].dead {
                        return;
                    }
                    if let Body::Wasm(w) = &mut self.actors[a].body {
                        let result = w.answer(ticket, done, &payload);
                        self.after_call(a, result);
                    }
                }
            },
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
                        self.err,
                        "error: startup request {} {} failed: {errno} {code}: {desc}",
                        s.verb.as_str(),
                        othc::bundle::tree_path(&s.target, &s.path)
                    );
                    self.failed = true;
                }
                Sender::Instance(a) => {
                    if self.actors[a].dead {
                        return;
                    }
                    if let Body::Wasm(w) = &mut self.actors[a].body {
                        let result = w.error(ticket, errno, &code, &desc);
                        self.after_call(a, result);
                    }
                }
            },
            Event::Cancel { to, id } => {
                if let Body::Wasm(w) = &mut self.actors[to].body {
                    let result = w.cancel(id);
                    self.after_call(to, result);
                }
            }
        }
    }

    /// After any call into instance `a`: a trap stops it; otherwise what it
    /// asked for is done, in order.
    fn after_call(&mut self, a: usize, result: wasmtime::Result<()>) {
        if let Err(e) = result {
            return self.kill(a, &format!("{e:#}"));
        }
        let calls = match &mut self.actors[a].body {
            Body::Wasm(w) => w.take_calls(),
            Body::Console { .. } => Vec::new(),
        };
        for call in calls {
            match call {
                Call::Request {
                    ticket,
                    verb,
                    path,
                    payload,
                } => {
                    let req = Serving {
                        from: Sender::Instance(a),
                        ticket,
                        verb,
                        flags: 0,
                        payload,
                    };
                    self.route(a, req, &path);
                }
                Call::Cancel { ticket } => {
                    let from = Sender::Instance(a);
                    for (t, actor) in self.actors.iter_mut().enumerate() {
                        let ids: Vec<i32> = actor
                            .serving
                            .iter()
                            .filter(|(_, s)| s.from == from && s.ticket == ticket)
                            .map(|(id, _)| *id)
                            .collect();
                        for id in ids {
                            actor.serving.remove(&id);
                            actor.cancelled.insert(id);
                            self.queue.push_back(Event::Cancel { to: t, id });
                        }
                    }
                    for actor in &mut self.actors {
                        if let Body::Console { watchers } = &mut actor.body {
                            watchers.retain(|w| *w != (from, ticket));
                        }
                    }
                }
                Call::Answer { id, done, payload } => {
                    let Some(s) = self.actors[a].serving.get(&id).cloned() else {
                        if self.actors[a].cancelled.contains(&id) {
                            continue;
                        }
                        return self.kill(
                            a,
                            &format!("it answered request {id}, which it is not serving"),
                        );
                    };
                    if done {
                        self.actors[a].serving.remove(&id);
                    }
                    self.queue.push_back(Event::Answer {
                        to: s.from,
                        ticket: s.ticket,
                        done,
                        payload,
                    });
                }
                Call::Fail {
                    id,
                    errno,
                    code,
                    desc,
                } => {
                    let Some(s) = self.actors[a].serving.remove(&id) else {
                        if self.actors[a].cancelled.contains(&id) {
                            continue;
                        }
                        return self.kill(
                            a,
                            &format!("it failed request {id}, which it is not serving"),
                        );
                    };
                    self.queue.push_back(Event::Error {
                        to: s.from,
                        ticket: s.ticket,
                        errno,
                        code,
                        desc,
                    });
                }
                Call::Forward { id, path } => {
                    let Some(s) = self.actors[a].serving.remove(&id) else {
                        return self.kill(
                            a,
                            &format!("it forwarded request {id}, which it is not serving"),
                        );
                    };
                    // Resolved as if `a` had sent it; answered to the original caller.
                    self.route(a, s, &path);
                }
            }
        }
    }

    /// Stops a trapped instance; what it was serving is answered `unavailable`.
    fn kill(&mut self, a: usize, why: &str) {
        let actor = &mut self.actors[a];
        if actor.dead {
            return;
        }
        actor.dead = true;
        let name = actor.name.clone();
        let serving: Vec<Serving> = actor.serving.drain().map(|(_, s)| s).collect();
        let _ = writeln!(self.err, "error: instance `{name}` stopped: {why}");
        self.failed = true;
        for s in serving {
            self.fail_to(
                s.from,
                s.ticket,
                errno::UNAVAILABLE,
                format!("`{name}` has stopped"),
            );
        }
    }
}

fn verb_name(v: i32) -> &'static str {
    verb_of(v).map(|v| v.as_str()).unwrap_or("?")
}

/// Whether an object's needs allow `verb path` (a path in its view).
fn needs_allow(obj: &ObjectDef, model: &Model, verb: i32, path: &[Seg]) -> bool {
    let Some(v) = verb_of(verb) else { return false };
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
    let v = verb_of(verb).ok_or(errno::NOT_SUPPORTED)?;
    let covering: Vec<&EntryDef> = obj
        .serves
        .iter()
        .map(|e| model.entry(*e))
        .filter(|e| path_covers(&e.path.segs, path))
        .collect();
    if covering.is_empty() {
        return Err(errno::NOT_FOUND);
    }
    covering
        .into_iter()
        .filter(|e| e.verb == v)
        .min_by_key(|e| othc::check::matching::specificity(&e.path.segs))
        .ok_or(errno::NOT_SUPPORTED)
}
