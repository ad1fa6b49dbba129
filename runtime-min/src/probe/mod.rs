//! One instance of a module, driven a delivery at a time from outside an
//! image: what `othc test` runs an object in (and, in `image`, a whole
//! image driven through its exports). It is the runtime's own host
//! (the same imports, limits, deadline and stop reasons as in a run); what
//! the event loop would do with the host calls of each delivery (route,
//! check, queue) is left to the caller, which plays every other party: the
//! callers of its serves and the servers of its needs.

pub mod image;

use crate::Payload;
use crate::abi::{RequestId, Response, Ticket};
use crate::host::Wasm;
use crate::limits::Limits;
use crate::ticker::Ticker;

pub use crate::host::{Call, Carried};
pub use othc::model::Verb;

/// The instance stopped: a trap or a limit, worded as a run says it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Stopped(pub String);

/// A module compiled and linked once, of which [`Probe`]s are made.
/// Why a module cannot be probed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NotProbed {
    /// The host could not be set up (the engine, the linker).
    Host(String),
    /// wasmtime refused the module: not valid WebAssembly, or importing
    /// what the host does not give.
    Module(String),
    /// An instance could not be made (its memories, its tables, its
    /// limits).
    Instance(String),
}

impl std::fmt::Display for NotProbed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotProbed::Host(why) => write!(f, "the host could not be set up: {why}"),
            NotProbed::Module(why) => write!(f, "the module cannot be run: {why}"),
            NotProbed::Instance(why) => write!(f, "no instance could be made: {why}"),
        }
    }
}

impl std::error::Error for NotProbed {}

pub struct Module {
    pre: wasmtime::InstancePre<crate::host::Host>,
    limits: Limits,
    // Ticks the engine's epoch while the module lives (`--max-time`).
    _ticker: Ticker,
}

impl Module {
    /// Module `bytes`, compiled for instances under `limits`.
    pub fn new(bytes: &[u8], limits: Limits) -> Result<Module, NotProbed> {
        let host = |e: wasmtime::Error| NotProbed::Host(format!("{e:#}"));
        let refused = |e: wasmtime::Error| NotProbed::Module(format!("{e:#}"));
        let engine = wasmtime::Engine::new(&crate::code::config()).map_err(host)?;
        let ticker = Ticker::start(&engine, None);
        let module = wasmtime::Module::new(&engine, bytes).map_err(refused)?;
        let linker = crate::host::linker(&engine).map_err(host)?;
        let pre = linker.instantiate_pre(&module).map_err(refused)?;
        Ok(Module {
            pre,
            limits,
            _ticker: ticker,
        })
    }

    /// A fresh instance, with nothing in its view (its requests are handed
    /// back as it wrote them). Not started: see [`Probe::start`].
    pub fn instance(&self) -> Result<Probe, NotProbed> {
        let wasm = Wasm::new(&self.pre, Vec::new(), &self.limits)
            .map_err(|e| NotProbed::Instance(format!("{e:#}")))?;
        Ok(Probe {
            wasm,
            calls: Vec::new(),
            limits: self.limits.clone(),
        })
    }
}

/// One instance of a [`Module`].
pub struct Probe {
    wasm: Wasm,
    calls: Vec<Call>,
    limits: Limits,
}

impl Probe {
    /// Runs its start functions.
    pub fn start(&mut self) -> Result<Vec<Call>, Stopped> {
        let r = self.wasm.start();
        self.asked(r)
    }

    /// Delivers request `id`.
    pub fn serve(
        &mut self,
        id: RequestId,
        verb: Verb,
        flags: i32,
        path: &str,
        payload: &Option<Payload>,
    ) -> Result<Vec<Call>, Stopped> {
        let r = self.wasm.serve(id, verb.wire(), flags, path, payload);
        self.asked(r)
    }

    /// Delivers `response` to its request `ticket`.
    pub fn respond(
        &mut self,
        ticket: Ticket,
        response: &Response<Payload>,
    ) -> Result<Vec<Call>, Stopped> {
        let r = self.wasm.respond(ticket, response);
        self.asked(r)
    }

    /// Tells it its caller gave up on request `id`.
    pub fn cancel(&mut self, id: RequestId) -> Result<Vec<Call>, Stopped> {
        let r = self.wasm.cancel(id);
        self.asked(r)
    }

    /// The bytes of its memories now.
    pub fn memory_bytes(&self) -> usize {
        self.wasm.host().memory_used()
    }

    fn asked(&mut self, r: wasmtime::Result<()>) -> Result<Vec<Call>, Stopped> {
        if let Err(e) = r {
            return Err(Stopped(crate::supervise::why_stopped(&e, &self.limits)));
        }
        self.wasm.swap_calls(&mut self.calls);
        Ok(std::mem::take(&mut self.calls))
    }
}
