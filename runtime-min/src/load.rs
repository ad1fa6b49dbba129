//! Loading a bundle: hashes checked, each module's header read back and
//! held against what `image.json` says the instance is, modules compiled
//! once, instances made, views and startup requests resolved.

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use othc::namespace::path::parse_request;

use crate::host::{self, Wasm};
use crate::natives::console::Console;
use crate::natives::files::Files;
use crate::outside::Inbox;
use crate::supervise::Supervised;
use crate::ticker::Ticker;
use crate::view::Link;
use crate::{Actor, Body, Header, IdMap, IdSet, Io, Limits, LoadError, Runtime};

pub(crate) fn parse_link(
    l: &othc::bundle::LinkJson,
    index: &HashMap<&str, usize>,
) -> Result<Link, LoadError> {
    let target = *index
        .get(l.target.as_str())
        .ok_or_else(|| LoadError(format!("a view names `{}`, which is no instance", l.target)))?;
    let (Some(at), Some(path)) = (parse_request(&l.at), parse_request(&l.path)) else {
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
        let (json, modules) = othc::bundle::read(bundle).map_err(LoadError)?;
        let engine =
            wasmtime::Engine::new(&crate::code::config()).map_err(|e| LoadError(e.to_string()))?;
        let ticker = Ticker::start(&engine);
        let linker = host::linker(&engine).map_err(|e| LoadError(e.to_string()))?;
        // The natives' header is compiled only for an image that has natives.
        let natives: Vec<Rc<Header>> = if json.instances.iter().any(|i| i.native.is_some()) {
            othc::header::natives()
                .map_err(LoadError)?
                .into_iter()
                .map(|h| Rc::new((h.model, h.object)))
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
        type Linked = Rc<wasmtime::InstancePre<host::Host>>;
        let mut compiled: HashMap<&str, (Linked, (Rc<Header>, String))> = HashMap::new();
        let mut actors = Vec::new();
        for inst in &json.instances {
            let view = inst
                .view
                .iter()
                .map(|l| parse_link(l, &index))
                .collect::<Result<Vec<_>, _>>()?;
            let mut supervised = None;
            let (body, header) = match (&inst.native, &inst.module) {
                (Some(n), _) => {
                    let body = match n.as_str() {
                        "Console" => Body::Console(Console::default()),
                        "Files" => Body::Files(Files::default()),
                        "Clock" => Body::Clock,
                        "Http" => Body::Http(Box::default()),
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
                        // The same ABI table `othc build` checks against: a
                        // module that breaks it is refused in its words, not
                        // wasmtime's.
                        let problems = othc::abi_check::problems(bytes);
                        if !problems.is_empty() {
                            return Err(LoadError(format!(
                                "`{m}` breaks the host ABI: {}",
                                problems.join("; ")
                            )));
                        }
                        let h = othc::header::read(bytes)
                            .map_err(|e| LoadError(format!("`{m}`: {e}")))?;
                        let digest = othc::bundle::header_sha256(bytes)
                            .map_err(|e| LoadError(format!("`{m}`: {e}")))?;
                        let header = ((h.model, h.object), digest);
                        let module = crate::code::module(&engine, bytes, m, code, &mut *io.err)
                            .map_err(|e| LoadError(format!("`{m}`: {e}")))?;
                        let pre = linker
                            .instantiate_pre(&module)
                            .map_err(|e| LoadError(format!("`{m}`: {e:#}")))?;
                        compiled.insert(m, (Rc::new(pre), (Rc::new(header.0), header.1)));
                    }
                    let (pre, (header, digest)) = &compiled[m.as_str()];
                    // The module must be the object the image was checked
                    // with: a module swapped in (its hash updated) is not.
                    if header.1.name != inst.object {
                        return Err(LoadError(format!(
                            "instance `{}` is a `{}`, but `{m}` declares `{}`",
                            inst.name, inst.object, header.1.name
                        )));
                    }
                    if inst.header_sha256.as_deref() != Some(digest.as_str()) {
                        return Err(LoadError(format!(
                            "instance `{}`: the header of `{m}` is not the one the image was checked with",
                            inst.name
                        )));
                    }
                    let wasm = Wasm::new(pre, view.clone(), &limits).map_err(|e| {
                        LoadError(format!("instance `{}` (`{m}`): {e:#}", inst.name))
                    })?;
                    supervised = Some(Supervised::new(Rc::clone(pre), view));
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
                queued: 0,
                next_id: 0,
                dead: false,
                passed: None,
                reached: None,
                supervised,
                busy: false,
                mailbox: VecDeque::new(),
                exposed: Vec::new(),
                paced: IdMap::default(),
                pacing: None,
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
                let path = parse_request(&s.path).ok_or_else(|| {
                    LoadError(format!(
                        "a startup request's path `{}` is malformed",
                        s.path
                    ))
                })?;
                Ok((to, path.into()))
            })
            .collect::<Result<Vec<_>, LoadError>>()?;
        let mut io = io;
        let input = std::mem::replace(&mut io.input, Box::new(std::iter::empty()));
        Ok(Runtime {
            actors,
            startup,
            json,
            queue: VecDeque::new(),
            taken: 0,
            forget: VecDeque::new(),
            fatal: false,
            pool: None,
            in_flight: 0,
            io,
            inbox: Inbox::new(input),
            pending_line: None,
            input_ended: false,
            stopping: None,
            halted: false,
            limits,
            failed: false,
            spare_calls: Vec::new(),
            spare_path: String::new(),
            _ticker: ticker,
        })
    }
}
