//! Loading a bundle: hashes checked, each module's header read back and
//! held against what `image.json` says the instance is, modules compiled
//! once, instances made, views and startup requests resolved.

use std::collections::{HashMap, HashSet, VecDeque};
use std::rc::Rc;
use std::sync::Arc;

use othc::model::Seg;

use othc::namespace::path::parse_request;

use crate::abi::RequestId;
use crate::host::{self, Wasm};
use crate::outside::Inbox;
use crate::supervise::Supervised;
use crate::ticker::Ticker;
use crate::view::{Link, parse_link};
use crate::{Actor, ActorId, Body, Header, IdMap, IdSet, Io, Limits, LoadError, Runtime};

impl<'a> Runtime<'a> {
    /// Loads a bundle: its modules checked against their hashes, read for
    /// their headers, and instantiated; every view resolved.
    pub fn load(bundle: &[u8], limits: Limits, io: Io<'a>) -> Result<Runtime<'a>, LoadError> {
        Runtime::load_with_code(bundle, limits, io, None)
    }

    /// [`Runtime::load`], taking each module's precompiled code from `code`
    /// where it is there and usable ([`crate::code`]).
    pub fn load_with_code(
        bundle: &[u8],
        limits: Limits,
        io: Io<'a>,
        code: Option<&std::path::Path>,
    ) -> Result<Runtime<'a>, LoadError> {
        Runtime::load_placed(bundle, limits, io, code, None)
    }

    /// [`Runtime::load_with_code`] on one node of a cluster: the instances
    /// `cluster` places here are made, the others stand in as proxies, and
    /// the node joins.
    pub fn load_placed(
        bundle: &[u8],
        limits: Limits,
        io: Io<'a>,
        code: Option<&std::path::Path>,
        cluster: Option<&crate::cluster::ClusterConfig>,
    ) -> Result<Runtime<'a>, LoadError> {
        let (json, modules) = othc::bundle::read(bundle)?;
        let here = (cluster.map(|c| crate::cluster::placed_here(&json, c))).transpose()?;
        let prefix = crate::cluster::prefix_of(bundle);
        let (engine, stall, ticker) = engine_for(&json)?;
        let mut io = io;
        let mut making = Making {
            compiled: Compiled {
                linker: host::linker(&engine).map_err(|e| LoadError::Host(e.to_string()))?,
                engine: &engine,
                modules: &modules,
                code,
                done: HashMap::new(),
                headers: HashMap::new(),
            },
            natives: natives_of(&json)?,
            prefix: &prefix,
            limits: &limits,
            here: here.as_ref(),
        };
        let index: HashMap<&str, ActorId> = json
            .instances
            .iter()
            .enumerate()
            .map(|(i, inst)| (inst.name.as_str(), ActorId::at(i)))
            .collect();
        let mut actors = Vec::with_capacity(json.instances.len());
        let mut views = Vec::with_capacity(json.instances.len());
        for inst in &json.instances {
            let view = inst
                .view
                .iter()
                .map(|l| parse_link(l, &index))
                .collect::<Result<Vec<_>, _>>()?;
            if here.is_some() {
                views.push(view.clone());
            }
            actors.push(making.actor(inst, view, &mut *io.err)?);
        }
        let startup = startup_requests(&json, &index)?;
        drop(making);
        let input = std::mem::replace(&mut io.input, Box::new(std::iter::empty()));
        let mut rt = Runtime {
            actors: crate::actors::Actors::new(actors),
            startup,
            json,
            queue: VecDeque::new(),
            taken: 0,
            workers: crate::workers::Workers::new(),
            forget: VecDeque::new(),
            cluster: None,
            pace_serial: 0,
            probed: None,
            ending: Default::default(),
            io,
            inbox: Inbox::new(input),
            input: Default::default(),
            limits,
            spare: Default::default(),
            stall,
            _ticker: ticker,
        };
        if let (Some(c), Some(here)) = (cluster, here) {
            rt.join(c, &here, prefix, views)?;
        }
        Ok(rt)
    }
}

/// The engine a bundle's modules run on, the record of the loop's waits
/// on a disk (by instance), and the ticker that watches both.
fn engine_for(
    json: &othc::bundle::ImageJson,
) -> Result<(wasmtime::Engine, Arc<crate::stall::Stall>, Ticker), LoadError> {
    let engine = wasmtime::Engine::new(&crate::code::config())
        .map_err(|e| LoadError::Host(e.to_string()))?;
    let names = json.instances.iter().map(|i| i.name.clone()).collect();
    let stall = Arc::new(crate::stall::Stall::new(names));
    let ticker = Ticker::start(&engine, Some(stall.clone()));
    Ok((engine, stall, ticker))
}

/// What makes each instance of a bundle on this node: its modules
/// (compiled once), the natives' headers, the bundle's cluster subjects,
/// the limits, and which instances run here (`None`: all of them).
struct Making<'b, 'l> {
    compiled: Compiled<'b>,
    natives: Vec<Rc<Header>>,
    prefix: &'l str,
    limits: &'l Limits,
    here: Option<&'l HashSet<String>>,
}

impl Making<'_, '_> {
    /// Instance `inst` with view `view`: a module's instance, a native, or
    /// a proxy for an instance other nodes run. Compiling says so on `err`.
    fn actor(
        &mut self,
        inst: &othc::bundle::InstanceJson,
        view: Vec<Link>,
        err: &mut dyn std::io::Write,
    ) -> Result<Actor, LoadError> {
        if self.here.is_some_and(|h| !h.contains(&inst.name)) {
            return proxy_actor(inst, &self.natives, &mut self.compiled, self.prefix);
        }
        match (&inst.native, &inst.module) {
            (Some(n), _) => native_actor(inst, n, &self.natives),
            (None, Some(m)) => {
                let module = self.compiled.module(m, err)?;
                wasm_actor(inst, m, module, view, self.limits)
            }
            (None, None) => Err(LoadError::Image(format!(
                "instance `{}` has no module",
                inst.name
            ))),
        }
    }
}

/// A startup request: its receiver and its path.
type Startup = (ActorId, Arc<[Seg]>);

impl Actor {
    /// A fresh instance, serving nothing yet.
    fn new(name: String, body: Body, header: Rc<Header>, supervised: Option<Supervised>) -> Actor {
        Actor {
            name,
            body,
            header,
            serving: IdMap::default(),
            cancelled: IdSet::default(),
            dropped: IdSet::default(),
            queued: 0,
            next_id: RequestId(0),
            dead: false,
            passed: None,
            reached: None,
            supervised,
            busy: false,
            cost: Default::default(),
            mailbox: VecDeque::new(),
            exposed: Vec::new(),
            paced: IdMap::default(),
            pacing: None,
        }
    }
}

/// A module ready to instantiate, with the header read from it and that
/// header's digest.
struct Module {
    pre: Rc<wasmtime::InstancePre<host::Host>>,
    header: Rc<Header>,
    digest: String,
}

/// The bundle's modules, each compiled, linked and its header read once,
/// however many instances it has.
struct Compiled<'b> {
    engine: &'b wasmtime::Engine,
    linker: wasmtime::Linker<host::Host>,
    modules: &'b [(String, Vec<u8>)],
    code: Option<&'b std::path::Path>,
    done: HashMap<String, Module>,
    /// The headers of modules run on other nodes (not compiled here).
    headers: HashMap<String, (Rc<Header>, String)>,
}

impl<'b> Compiled<'b> {
    fn module(&mut self, m: &str, err: &mut dyn std::io::Write) -> Result<&Module, LoadError> {
        if !self.done.contains_key(m) {
            let module = self.compile(m, err)?;
            self.done.insert(m.to_string(), module);
        }
        Ok(&self.done[m])
    }

    /// Module `m`'s header and its digest, without compiling it.
    fn header(&mut self, m: &str) -> Result<&(Rc<Header>, String), LoadError> {
        if !self.headers.contains_key(m) {
            let bytes = self.bytes(m)?;
            let h = othc::header::read(bytes).map_err(|e| module_fault(m, e))?;
            let digest = othc::bundle::header_sha256(bytes).map_err(|e| module_fault(m, e))?;
            self.headers
                .insert(m.to_string(), (Rc::new((h.model, h.object)), digest));
        }
        Ok(&self.headers[m])
    }

    fn bytes(&self, m: &str) -> Result<&'b [u8], LoadError> {
        self.modules
            .iter()
            .find(|(name, _)| name == m)
            .map(|(_, b)| b.as_slice())
            .ok_or_else(|| module_fault(m, "the bundle does not hold it"))
    }

    fn compile(&self, m: &str, err: &mut dyn std::io::Write) -> Result<Module, LoadError> {
        let bytes = self.bytes(m)?;
        // The same ABI table `othc build` checks against: a module that
        // breaks it is refused in its words, not wasmtime's.
        let problems = othc::abi_check::problems(bytes);
        if !problems.is_empty() {
            return Err(LoadError::BreaksAbi {
                module: m.to_string(),
                problems,
            });
        }
        let h = othc::header::read(bytes).map_err(|e| module_fault(m, e))?;
        let digest = othc::bundle::header_sha256(bytes).map_err(|e| module_fault(m, e))?;
        let module = crate::code::module(self.engine, bytes, m, self.code, err)
            .map_err(|e| module_fault(m, e))?;
        let pre = self
            .linker
            .instantiate_pre(&module)
            .map_err(|e| module_fault(m, format!("{e:#}")))?;
        Ok(Module {
            pre: Rc::new(pre),
            header: Rc::new((h.model, h.object)),
            digest,
        })
    }
}

/// An instance of native object `n`.
fn native_actor(
    inst: &othc::bundle::InstanceJson,
    n: &str,
    natives: &[Rc<Header>],
) -> Result<Actor, LoadError> {
    let body = crate::natives::body(n).ok_or_else(|| {
        LoadError::Image(format!(
            "instance `{}`: the runtime has no native object `{n}`",
            inst.name
        ))
    })?;
    let header = natives
        .iter()
        .find(|h| h.1.name == *n)
        .cloned()
        .ok_or_else(|| LoadError::Host(format!("no header for native `{n}`")))?;
    Ok(Actor::new(inst.name.clone(), body, header, None))
}

/// The natives' headers: compiled only for an image that has natives.
fn natives_of(json: &othc::bundle::ImageJson) -> Result<Vec<Rc<Header>>, LoadError> {
    if !json.instances.iter().any(|i| i.native.is_some()) {
        return Ok(Vec::new());
    }
    Ok(othc::header::natives()
        .map_err(|e| LoadError::Host(format!("the runtime's own header (othismo:env): {e}")))?
        .into_iter()
        .map(|h| Rc::new((h.model, h.object)))
        .collect())
}

/// A stand-in for an instance run by other nodes: its header (a module's
/// read, not compiled, and held to the image) and no code.
fn proxy_actor(
    inst: &othc::bundle::InstanceJson,
    natives: &[Rc<Header>],
    compiled: &mut Compiled,
    prefix: &str,
) -> Result<Actor, LoadError> {
    let header = match (&inst.native, &inst.module) {
        (Some(n), _) => native_actor(inst, n, natives)?.header,
        (None, Some(m)) => {
            let (header, digest) = compiled.header(m)?;
            held_to_image(inst, m, header, digest)?;
            header.clone()
        }
        (None, None) => {
            return Err(LoadError::Image(format!(
                "instance `{}` has no module",
                inst.name
            )));
        }
    };
    let remote = crate::cluster::Remote::new(prefix, &inst.name);
    Ok(Actor::new(
        inst.name.clone(),
        Body::Remote(Box::new(remote)),
        header,
        None,
    ))
}

/// An instance of module `m`.
fn wasm_actor(
    inst: &othc::bundle::InstanceJson,
    m: &str,
    module: &Module,
    view: Vec<Link>,
    limits: &Limits,
) -> Result<Actor, LoadError> {
    held_to_image(inst, m, &module.header, &module.digest)?;
    let wasm = Wasm::new(&module.pre, view.clone(), limits).map_err(|e| LoadError::Module {
        module: m.to_string(),
        why: format!("instance `{}`: {e:#}", inst.name),
    })?;
    let supervised = Supervised::new(Rc::clone(&module.pre), view);
    Ok(Actor::new(
        inst.name.clone(),
        Body::Wasm(Box::new(wasm)),
        Rc::clone(&module.header),
        Some(supervised),
    ))
}

/// Module `m` must be the object the image was checked with: a module
/// swapped in (its hash updated) is not.
fn held_to_image(
    inst: &othc::bundle::InstanceJson,
    m: &str,
    header: &Header,
    digest: &str,
) -> Result<(), LoadError> {
    if header.1.name != inst.object {
        return Err(LoadError::Image(format!(
            "instance `{}` is a `{}`, but `{m}` declares `{}`",
            inst.name, inst.object, header.1.name
        )));
    }
    if inst.header_sha256.as_deref() != Some(digest) {
        return Err(LoadError::Image(format!(
            "instance `{}`: the header of `{m}` is not the one the image was checked with",
            inst.name
        )));
    }
    Ok(())
}

/// Each startup request's receiver and path, checked now: a bundle that
/// names what is not there does not load.
fn startup_requests(
    json: &othc::bundle::ImageJson,
    index: &HashMap<&str, ActorId>,
) -> Result<Vec<Startup>, LoadError> {
    json.startup
        .iter()
        .map(|s| {
            let to = *index.get(s.target.as_str()).ok_or_else(|| {
                LoadError::Image(format!(
                    "a startup request names `{}`, which is no instance",
                    s.target
                ))
            })?;
            let path = parse_request(&s.path).ok_or_else(|| {
                LoadError::Image(format!(
                    "a startup request's path `{}` is malformed",
                    s.path
                ))
            })?;
            Ok((to, path.into()))
        })
        .collect()
}

/// Module `m` of the bundle cannot be run, for `why`.
fn module_fault(m: &str, why: impl std::fmt::Display) -> LoadError {
    LoadError::Module {
        module: m.to_string(),
        why: why.to_string(),
    }
}
