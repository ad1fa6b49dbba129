//! The host ABI (book: reference/wire.md) on wasmtime: the imports a module calls, which
//! only record what it asked (the runtime acts once the call has returned,
//! so no module is ever re-entered), and the exports the runtime calls.

use std::sync::Arc;
use std::time::{Duration, Instant};

use wasmtime::{Caller, Engine, Instance, InstancePre, Linker, Memory, Store, TypedFunc};

use othc::model::Verb;

use crate::Payload;
use crate::abi::{Errno, Failure, RequestId, Response, Ticket};
use crate::limits::Limits;
use crate::view::{self, Link, View};

mod budget;
mod buffers;

/// A payload as a module handed it over: carried, absent, or over the
/// payload limit (its length; the bytes are never copied).
#[derive(Clone, Debug, PartialEq)]
pub enum Carried {
    None,
    Some(Payload),
    TooLarge(usize),
}

/// What an instance asked of the host during one call into it: what the
/// event loop acts on (`act`), and what a probe hands its caller.
#[derive(Clone, Debug, PartialEq)]
pub enum Call {
    Request {
        ticket: Ticket,
        verb: Verb,
        aim: view::Aim,
        payload: Carried,
    },
    Cancel {
        ticket: Ticket,
    },
    Answer {
        id: RequestId,
        done: bool,
        payload: Carried,
    },
    Fail {
        id: RequestId,
        failure: Failure,
    },
    Forward {
        id: RequestId,
        aim: view::Aim,
    },
}

/// The store's data: what the instance asked for, its view, and its limits.
pub struct Host {
    pub calls: Vec<Call>,
    next_ticket: Ticket,
    pub view: View,
    pub exposed: Vec<Link>,
    memory_limit: usize,
    /// What the host may hold for it from one call (`--max-held`), and
    /// what it holds from this one so far.
    held_limit: usize,
    held_in_call: usize,
    /// Bytes of all its memories, and elements of all its tables, so far.
    memory_used: usize,
    table_elements: usize,
    payload_limit: usize,
    /// The instance's memory, once instantiated (looked up once, not on
    /// every host call).
    memory: Option<Memory>,
    /// The content type its last payload named.
    last_content_type: Option<Arc<str>>,
}

type Serve = TypedFunc<(i32, i32, i32, i32, i32, i32, i32, i32, i32), ()>;
type Six = TypedFunc<(i32, i32, i32, i32, i32, i32), ()>;

/// One instance of a compiled module.
pub struct Wasm {
    store: Store<Host>,
    memory: Memory,
    start: TypedFunc<(), ()>,
    othismo_start: TypedFunc<(), ()>,
    alloc: TypedFunc<i32, i32>,
    serve: Serve,
    answer: Six,
    error: Six,
    cancel: TypedFunc<i32, ()>,
    /// The module's `othismo_scratch`, if it has one, until it has started.
    scratch_export: Option<TypedFunc<(), i32>>,
    /// Where a delivery's path and content type go if they fit (`buffers`).
    scratch: Option<buffers::Scratch>,
    /// Ticks of work allowed per delivery.
    deadline: u64,
    /// How long a delivery's call took, on whichever thread made it, until
    /// the loop reads it: one delivery in `TIMED_EVERY` is timed, and only
    /// with several workers (what decides where calls go).
    took: Option<Duration>,
    timed: bool,
    deliveries: u32,
}

/// One delivery in this many is timed: a clock read costs some 40 ns here,
/// a tenth of a short call.
const TIMED_EVERY: u32 = 4;

/// What a module hands a host call is its own business to get right: a
/// run of bytes outside its memory, text that is not UTF-8, a content type
/// too long to be one, or an errno of 0 is a bug in the module, and the
/// host call traps with a message naming the call and what was wrong (the
/// instance is stopped; its callers get `unavailable`). Nothing is papered
/// over as an empty payload or a lossy string.
fn misuse(call: &str, what: String) -> wasmtime::Error {
    wasmtime::Error::msg(format!("it misused the host call `{call}`: {what}"))
}

/// The bytes at (`ptr`, `len`) of the module's memory, for host call `call`
/// (`what` names them in the message), handed to `f` with the host's state
/// (so that what the host keeps can be looked up by them without a copy).
fn in_memory<R>(
    c: &mut Caller<'_, Host>,
    call: &str,
    what: &str,
    ptr: i32,
    len: i32,
    f: impl FnOnce(&[u8], &mut Host) -> R,
) -> wasmtime::Result<R> {
    if len == 0 {
        return Ok(f(&[], c.data_mut()));
    }
    let Some(mem) = c.data().memory else {
        return Err(misuse(call, "it has no memory".into()));
    };
    let (data, host) = mem.data_and_store_mut(&mut *c);
    let size = data.len();
    let range = usize::try_from(ptr)
        .ok()
        .zip(usize::try_from(len).ok())
        .and_then(|(p, l)| Some(p..p.checked_add(l)?));
    match range.and_then(|r| data.get(r)) {
        Some(b) => Ok(f(b, host)),
        None => Err(misuse(
            call,
            format!("{what}: ({ptr}, {len}) is outside its memory of {size} bytes"),
        )),
    }
}

/// The bytes at (`ptr`, `len`), copied.
fn bytes(
    c: &mut Caller<'_, Host>,
    call: &str,
    what: &str,
    ptr: i32,
    len: i32,
) -> wasmtime::Result<Vec<u8>> {
    in_memory(c, call, what, ptr, len, |b, _| b.to_vec())
}

/// The UTF-8 text at (`ptr`, `len`), handed to `f` with the host's state.
fn in_text<R>(
    c: &mut Caller<'_, Host>,
    call: &str,
    what: &str,
    ptr: i32,
    len: i32,
    f: impl FnOnce(&str, &mut Host) -> R,
) -> wasmtime::Result<R> {
    in_memory(c, call, what, ptr, len, |b, host| {
        std::str::from_utf8(b).ok().map(|s| f(s, host))
    })?
    .ok_or_else(|| misuse(call, format!("{what} is not UTF-8")))
}

/// The UTF-8 text at (`ptr`, `len`), copied.
fn string(
    c: &mut Caller<'_, Host>,
    call: &str,
    what: &str,
    ptr: i32,
    len: i32,
) -> wasmtime::Result<String> {
    in_text(c, call, what, ptr, len, |s, _| s.to_string())
}

/// Where the path at (`ptr`, `len`) leads in the instance's view.
fn aim(c: &mut Caller<'_, Host>, call: &str, ptr: i32, len: i32) -> wasmtime::Result<view::Aim> {
    in_memory(c, call, "its path", ptr, len, |b, host| {
        host.view.aim_bytes(b)
    })?
    .ok_or_else(|| misuse(call, "its path is not UTF-8".into()))
}

/// The content type at (`ptr`, `len`). An instance names the same one
/// over and over: the last one is kept, shared by the payloads naming it.
fn content_type(
    c: &mut Caller<'_, Host>,
    call: &str,
    ptr: i32,
    len: i32,
) -> wasmtime::Result<Arc<str>> {
    in_memory(c, call, "its content type", ptr, len, |b, host| {
        if let Some(last) = &host.last_content_type
            && last.as_bytes() == b
        {
            return Some(last.clone());
        }
        let text: Arc<str> = std::str::from_utf8(b).ok()?.into();
        host.last_content_type = Some(text.clone());
        Some(text)
    })?
    .ok_or_else(|| misuse(call, "its content type is not UTF-8".into()))
}

/// The longest content type a payload may name.
const MAX_CONTENT_TYPE: i32 = 4096;

fn payload(
    c: &mut Caller<'_, Host>,
    call: &str,
    (tp, tl, dp, dl): (i32, i32, i32, i32),
) -> wasmtime::Result<Carried> {
    if tl == 0 && dl == 0 {
        return Ok(Carried::None);
    }
    if tl > MAX_CONTENT_TYPE {
        return Err(misuse(
            call,
            format!("its content type is {tl} bytes, over {MAX_CONTENT_TYPE}"),
        ));
    }
    let limit = c.data().payload_limit;
    if usize::try_from(dl).is_ok_and(|d| d > limit) {
        // Over the run's limit is the caller's error, not a module bug:
        // the bytes are never copied.
        return Ok(Carried::TooLarge(dl as usize));
    }
    Ok(Carried::Some(Payload {
        content_type: content_type(c, call, tp, tl)?,
        data: bytes(c, call, "its payload's bytes", dp, dl)?,
    }))
}

/// AssemblyScript's strings (for `env.abort`): UTF-16, byte length before them.
/// A pointer the module got wrong reads as an empty string (the abort is
/// reported all the same); no arithmetic on it can overflow.
fn as_string(c: &mut Caller<'_, Host>, ptr: i32) -> String {
    let Some(prefix) = ptr.checked_sub(4) else {
        return String::new();
    };
    let len = bytes(c, "abort", "", prefix, 4)
        .ok()
        .and_then(|b| b.try_into().ok())
        .map(u32::from_le_bytes)
        .unwrap_or(0);
    let Ok(len) = i32::try_from(len) else {
        return String::new();
    };
    let raw = bytes(c, "abort", "", ptr, len).unwrap_or_default();
    let units: Vec<u16> = raw
        .chunks_exact(2)
        .map(|b| u16::from_le_bytes([b[0], b[1]]))
        .collect();
    String::from_utf16_lossy(&units)
}

/// The host functions a module imports, one named function each.
pub fn linker(engine: &Engine) -> wasmtime::Result<Linker<Host>> {
    let mut l: Linker<Host> = Linker::new(engine);
    l.func_wrap("env", "abort", abort)?;
    l.func_wrap("othismo", "request", request)?;
    l.func_wrap("othismo", "cancel", cancel)?;
    l.func_wrap("othismo", "answer", answer)?;
    l.func_wrap("othismo", "fail", fail)?;
    l.func_wrap("othismo", "forward", forward)?;
    // The view is the store's own: rearranging it calls nobody, so it is
    // done during the call and the errno returned at once.
    l.func_wrap("othismo", "bind", bind)?;
    l.func_wrap("othismo", "unmount", unmount)?;
    l.func_wrap("othismo", "expose", expose)?;
    Ok(l)
}

fn abort(
    mut c: Caller<'_, Host>,
    msg: i32,
    file: i32,
    line: i32,
    col: i32,
) -> wasmtime::Result<()> {
    let (m, f) = (as_string(&mut c, msg), as_string(&mut c, file));
    Err(wasmtime::Error::msg(format!(
        "aborted: {m} ({f}:{line}:{col})"
    )))
}

#[allow(clippy::too_many_arguments)] // the ABI's shape: pointer and length pairs
fn request(
    mut c: Caller<'_, Host>,
    verb: i32,
    pp: i32,
    pl: i32,
    tp: i32,
    tl: i32,
    dp: i32,
    dl: i32,
) -> wasmtime::Result<i32> {
    let verb = Verb::from_wire(verb).ok_or_else(|| {
        misuse(
            "request",
            format!("{verb} is not a verb (1 read to 7 remove)"),
        )
    })?;
    let aim = aim(&mut c, "request", pp, pl)?;
    let payload = payload(&mut c, "request", (tp, tl, dp, dl))?;
    let host = c.data_mut();
    host.next_ticket.0 += 1;
    let ticket = host.next_ticket;
    host.hold(Call::Request {
        ticket,
        verb,
        aim,
        payload,
    })?;
    Ok(ticket.0)
}

fn cancel(mut c: Caller<'_, Host>, ticket: i32) -> wasmtime::Result<()> {
    let host = c.data_mut();
    if ticket <= 0 || ticket > host.next_ticket.0 {
        return Err(misuse(
            "cancel",
            format!("ticket {ticket} was never issued"),
        ));
    }
    host.hold(Call::Cancel {
        ticket: Ticket(ticket),
    })
}

fn answer(
    mut c: Caller<'_, Host>,
    id: i32,
    done: i32,
    tp: i32,
    tl: i32,
    dp: i32,
    dl: i32,
) -> wasmtime::Result<()> {
    let payload = payload(&mut c, "answer", (tp, tl, dp, dl))?;
    c.data_mut().hold(Call::Answer {
        id: RequestId(id),
        done: done != 0,
        payload,
    })
}

fn fail(
    mut c: Caller<'_, Host>,
    id: i32,
    errno: i32,
    cp: i32,
    cl: i32,
    dp: i32,
    dl: i32,
) -> wasmtime::Result<()> {
    let Some(errno) = Errno::new(errno) else {
        return Err(misuse(
            "fail",
            format!("errno {errno}: an error's errno is a positive number"),
        ));
    };
    let code = string(&mut c, "fail", "its code", cp, cl)?;
    let desc = string(&mut c, "fail", "its description", dp, dl)?;
    c.data_mut().hold(Call::Fail {
        id: RequestId(id),
        failure: Failure::new(errno, code, desc),
    })
}

fn forward(mut c: Caller<'_, Host>, id: i32, pp: i32, pl: i32) -> wasmtime::Result<()> {
    let aim = aim(&mut c, "forward", pp, pl)?;
    c.data_mut().hold(Call::Forward {
        id: RequestId(id),
        aim,
    })
}

fn bind(
    mut c: Caller<'_, Host>,
    np: i32,
    nl: i32,
    op: i32,
    ol: i32,
    flags: i32,
) -> wasmtime::Result<i32> {
    let new = string(&mut c, "bind", "its new path", np, nl)?;
    let old = string(&mut c, "bind", "its old path", op, ol)?;
    Ok(status(c.data_mut().view.bind(&new, &old, flags)))
}

fn unmount(mut c: Caller<'_, Host>, pp: i32, pl: i32) -> wasmtime::Result<i32> {
    let path = string(&mut c, "unmount", "its path", pp, pl)?;
    Ok(status(c.data_mut().view.unmount(&path)))
}

fn expose(
    mut c: Caller<'_, Host>,
    ap: i32,
    al: i32,
    vp: i32,
    vl: i32,
    flags: i32,
) -> wasmtime::Result<i32> {
    let at = string(&mut c, "expose", "its path", ap, al)?;
    let from = string(&mut c, "expose", "its view path", vp, vl)?;
    let host = c.data_mut();
    Ok(status(view::expose(
        host.view.links(),
        &mut host.exposed,
        &at,
        &from,
        flags,
    )))
}

/// A view change's result as the module is given it: 0, or the errno.
fn status(r: Result<(), Errno>) -> i32 {
    r.err().map_or(0, Errno::get)
}

impl Wasm {
    /// An instance of a module, linked once however many instances it
    /// has (or however often one is restarted).
    pub fn new(
        pre: &InstancePre<Host>,
        view: Vec<Link>,
        limits: &Limits,
    ) -> wasmtime::Result<Wasm> {
        let host = Host {
            calls: Vec::new(),
            next_ticket: Ticket(0),
            view: View::new(view),
            exposed: Vec::new(),
            memory_limit: limits.memory_bytes(),
            held_limit: limits.held_bytes(),
            held_in_call: 0,
            memory_used: 0,
            table_elements: 0,
            payload_limit: limits.payload,
            memory: None,
            last_content_type: None,
        };
        let mut store = Store::new(pre.module().engine(), host);
        store.limiter(|h| h);
        store.epoch_deadline_trap();
        store.set_epoch_deadline(limits.deadline_ticks());
        let instance: Instance = pre.instantiate(&mut store)?;
        let memory = instance
            .get_memory(&mut store, "memory")
            .ok_or_else(|| wasmtime::Error::msg("the module exports no memory"))?;
        store.data_mut().memory = Some(memory);
        Ok(Wasm {
            start: instance.get_typed_func(&mut store, "_start")?,
            othismo_start: instance.get_typed_func(&mut store, "othismo_start")?,
            alloc: instance.get_typed_func(&mut store, "othismo_alloc")?,
            serve: instance.get_typed_func(&mut store, "othismo_serve")?,
            answer: instance.get_typed_func(&mut store, "othismo_answer")?,
            error: instance.get_typed_func(&mut store, "othismo_error")?,
            cancel: instance.get_typed_func(&mut store, "othismo_cancel")?,
            scratch_export: instance
                .get_func(&mut store, "othismo_scratch")
                .map(|f| f.typed(&store))
                .transpose()?,
            scratch: None,
            memory,
            store,
            deadline: limits.deadline_ticks(),
            took: None,
            timed: limits.workers() > 1,
            deliveries: 0,
        })
    }

    pub fn host(&self) -> &Host {
        self.store.data()
    }

    /// A fresh execution deadline: each delivery gets the whole allowance.
    fn arm(&mut self) {
        self.store.data_mut().held_in_call = 0;
        self.store.set_epoch_deadline(self.deadline);
    }

    /// How long the last timed delivery took (`serve`, `answer`, `error`,
    /// `cancel`: its payload put in and the call made), if one was timed
    /// since the last time this was asked. None with one worker, where
    /// every call is made on the loop's thread anyway.
    pub fn take_took(&mut self) -> Option<Duration> {
        self.took.take()
    }

    /// When a delivery began, if it is one of those timed.
    fn began(&mut self) -> Option<Instant> {
        if !self.timed {
            return None;
        }
        self.deliveries = self.deliveries.wrapping_add(1);
        self.deliveries
            .is_multiple_of(TIMED_EVERY)
            .then(Instant::now)
    }

    fn ended(&mut self, began: Option<Instant>) {
        if let Some(b) = began {
            self.took = Some(b.elapsed());
        }
    }

    /// What the last call asked for, swapped into `into` (an empty buffer,
    /// handed back and forth so no call allocates one).
    pub fn swap_calls(&mut self, into: &mut Vec<Call>) {
        std::mem::swap(&mut self.store.data_mut().calls, into);
    }

    pub fn start(&mut self) -> wasmtime::Result<()> {
        self.arm();
        self.start.call(&mut self.store, ())?;
        let export = self.scratch_export.take();
        self.scratch = buffers::Scratch::find(export, &mut self.store, &self.memory)?;
        self.arm();
        self.othismo_start.call(&mut self.store, ())
    }

    pub fn serve(
        &mut self,
        id: RequestId,
        verb: i32,
        flags: i32,
        path: &str,
        p: &Option<Payload>,
    ) -> wasmtime::Result<()> {
        let began = self.began();
        self.arm();
        let mut room = self.scratch.map(buffers::Scratch::room);
        let (pp, pl) = self.put_small(path.as_bytes(), &mut room)?;
        let (tp, tl, dp, dl) = self.put_payload(p, &mut room)?;
        let result = self
            .serve
            .call(&mut self.store, (id.0, verb, flags, pp, pl, tp, tl, dp, dl));
        self.ended(began);
        result
    }

    /// Gives it `r` for its request `ticket`: `othismo_answer` or
    /// `othismo_error`.
    pub fn respond(&mut self, ticket: Ticket, r: &Response<Payload>) -> wasmtime::Result<()> {
        let began = self.began();
        self.arm();
        let result = match r {
            Response::Answer { done, payload } => {
                let mut room = self.scratch.map(buffers::Scratch::room);
                let (tp, tl, dp, dl) = self.put_payload(payload, &mut room)?;
                let done = i32::from(*done);
                let args = (ticket.0, done, tp, tl, dp, dl);
                self.answer.call(&mut self.store, args)
            }
            Response::Error(failure) => {
                let (cp, cl) = self.put(failure.code.as_bytes())?;
                let (dp, dl) = self.put(failure.desc.as_bytes())?;
                let args = (ticket.0, failure.errno.get(), cp, cl, dp, dl);
                self.error.call(&mut self.store, args)
            }
        };
        self.ended(began);
        result
    }

    pub fn cancel(&mut self, id: RequestId) -> wasmtime::Result<()> {
        let began = self.began();
        self.arm();
        let result = self.cancel.call(&mut self.store, id.0);
        self.ended(began);
        result
    }
}

#[cfg(test)]
mod tests;
