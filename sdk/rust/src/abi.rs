//! The host ABI, declared once: the imports of module `othismo`, and the
//! exports the runtime calls (the start function, `_start`, is `main!`'s).

use crate::payload::{Payload, Status};
use crate::request;
use crate::server;

/// Verbs, numbered as on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verb {
    Read = 1,
    Watch = 2,
    List = 3,
    Stat = 4,
    Write = 5,
    Create = 6,
    Remove = 7,
}

impl Verb {
    pub fn from_wire(n: i32) -> Option<Verb> {
        Some(match n {
            1 => Verb::Read,
            2 => Verb::Watch,
            3 => Verb::List,
            4 => Verb::Stat,
            5 => Verb::Write,
            6 => Verb::Create,
            7 => Verb::Remove,
            _ => return None,
        })
    }
}

#[cfg(target_arch = "wasm32")]
#[link(wasm_import_module = "othismo")]
extern "C" {
    #[link_name = "request"]
    fn host_request(verb: i32, pp: *const u8, pl: i32, tp: *const u8, tl: i32, dp: *const u8, dl: i32) -> i32;
    #[link_name = "cancel"]
    fn host_cancel(ticket: i32);
    #[link_name = "answer"]
    fn host_answer(id: i32, done: i32, tp: *const u8, tl: i32, dp: *const u8, dl: i32);
    #[link_name = "fail"]
    fn host_fail(id: i32, errno: i32, cp: *const u8, cl: i32, dp: *const u8, dl: i32);
    #[link_name = "forward"]
    fn host_forward(id: i32, pp: *const u8, pl: i32);
    #[link_name = "bind"]
    fn host_bind(np: *const u8, nl: i32, op: *const u8, ol: i32, flags: i32) -> i32;
    #[link_name = "unmount"]
    fn host_unmount(pp: *const u8, pl: i32) -> i32;
    #[link_name = "expose"]
    fn host_expose(ap: *const u8, al: i32, vp: *const u8, vl: i32, flags: i32) -> i32;
}

// Off wasm32 (the codec's tests on the host), nothing is linked: a call
// is a bug, and says so.
#[cfg(not(target_arch = "wasm32"))]
mod off_wasm {
    pub unsafe fn host_request(_: i32, _: *const u8, _: i32, _: *const u8, _: i32, _: *const u8, _: i32) -> i32 {
        panic!("the host ABI exists only in a wasm32 module")
    }
    pub unsafe fn host_cancel(_: i32) {}
    pub unsafe fn host_answer(_: i32, _: i32, _: *const u8, _: i32, _: *const u8, _: i32) {}
    pub unsafe fn host_fail(_: i32, _: i32, _: *const u8, _: i32, _: *const u8, _: i32) {}
    pub unsafe fn host_forward(_: i32, _: *const u8, _: i32) {}
    pub unsafe fn host_bind(_: *const u8, _: i32, _: *const u8, _: i32, _: i32) -> i32 {
        panic!("the host ABI exists only in a wasm32 module")
    }
    pub unsafe fn host_unmount(_: *const u8, _: i32) -> i32 {
        panic!("the host ABI exists only in a wasm32 module")
    }
    pub unsafe fn host_expose(_: *const u8, _: i32, _: *const u8, _: i32, _: i32) -> i32 {
        panic!("the host ABI exists only in a wasm32 module")
    }
}
#[cfg(not(target_arch = "wasm32"))]
use off_wasm::*;

fn parts(p: Option<&Payload>) -> (*const u8, i32, *const u8, i32) {
    match p {
        None => (std::ptr::null(), 0, std::ptr::null(), 0),
        Some(p) => (
            p.content_type.as_ptr(),
            p.content_type.len() as i32,
            p.data.as_ptr(),
            p.data.len() as i32,
        ),
    }
}

pub(crate) fn request(verb: Verb, path: &str, payload: Option<&Payload>) -> i32 {
    let (tp, tl, dp, dl) = parts(payload);
    unsafe { host_request(verb as i32, path.as_ptr(), path.len() as i32, tp, tl, dp, dl) }
}

pub(crate) fn cancel(ticket: i32) {
    unsafe { host_cancel(ticket) }
}

pub(crate) fn answer(id: i32, done: bool, payload: Option<&Payload>) {
    let (tp, tl, dp, dl) = parts(payload);
    unsafe { host_answer(id, i32::from(done), tp, tl, dp, dl) }
}

pub(crate) fn fail(id: i32, status: &Status, desc: &str) {
    let code = status.code.as_bytes();
    unsafe {
        host_fail(
            id,
            status.errno,
            code.as_ptr(),
            code.len() as i32,
            desc.as_ptr(),
            desc.len() as i32,
        )
    }
}

pub(crate) fn forward(id: i32, path: &str) {
    unsafe { host_forward(id, path.as_ptr(), path.len() as i32) }
}

/// Makes `existing` (a path of this object's view) visible at `at` too:
/// 0, or the errno of why not.
pub fn bind(at: &str, existing: &str, flags: i32) -> i32 {
    unsafe { host_bind(at.as_ptr(), at.len() as i32, existing.as_ptr(), existing.len() as i32, flags) }
}

/// Removes the link at exactly `path` of this object's view: 0, or the
/// errno of why not.
pub fn unmount(path: &str) -> i32 {
    unsafe { host_unmount(path.as_ptr(), path.len() as i32) }
}

/// Serves `view` (a path of this object's view) at `at` of its served
/// tree: 0, or the errno of why not.
pub fn expose(at: &str, view: &str, flags: i32) -> i32 {
    unsafe { host_expose(at.as_ptr(), at.len() as i32, view.as_ptr(), view.len() as i32, flags) }
}

/// The bytes the runtime wrote at (`ptr`, `len`), taken back as the
/// buffer `othismo_alloc` gave it.
unsafe fn take(ptr: *mut u8, len: i32) -> Vec<u8> {
    if len <= 0 || ptr.is_null() {
        return Vec::new();
    }
    Vec::from_raw_parts(ptr, len as usize, len as usize)
}

fn text(ptr: *mut u8, len: i32) -> String {
    let bytes = unsafe { take(ptr, len) };
    String::from_utf8(bytes).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
}

fn payload(tp: *mut u8, tl: i32, dp: *mut u8, dl: i32) -> Option<Payload> {
    if tl == 0 && dl == 0 {
        return None;
    }
    Some(Payload {
        content_type: text(tp, tl),
        data: unsafe { take(dp, dl) },
    })
}

/// A buffer of `len` bytes the runtime fills; the module owns it after
/// (taken back as a `Vec` of exactly that capacity: `take`).
#[no_mangle]
pub extern "C" fn othismo_alloc(len: i32) -> *mut u8 {
    if len <= 0 {
        return std::ptr::null_mut();
    }
    let layout = std::alloc::Layout::array::<u8>(len as usize).expect("a small layout");
    unsafe { std::alloc::alloc(layout) }
}

#[no_mangle]
pub extern "C" fn othismo_start() {
    server::start();
}

#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub extern "C" fn othismo_serve(id: i32, verb: i32, flags: i32, pp: *mut u8, pl: i32, tp: *mut u8, tl: i32, dp: *mut u8, dl: i32) {
    let path = text(pp, pl);
    let payload = payload(tp, tl, dp, dl);
    let verb = Verb::from_wire(verb).unwrap_or(Verb::Read);
    server::serve(request::Request::new(id, verb, flags, path, payload));
}

#[no_mangle]
pub extern "C" fn othismo_answer(ticket: i32, done: i32, tp: *mut u8, tl: i32, dp: *mut u8, dl: i32) {
    let payload = payload(tp, tl, dp, dl);
    request::deliver(ticket, request::Answer::Payload { payload, done: done != 0 });
}

#[no_mangle]
pub extern "C" fn othismo_error(ticket: i32, errno: i32, cp: *mut u8, cl: i32, dp: *mut u8, dl: i32) {
    let code = text(cp, cl);
    let desc = text(dp, dl);
    request::deliver(ticket, request::Answer::Error { status: Status::of(errno, &code), desc });
}

#[no_mangle]
pub extern "C" fn othismo_cancel(id: i32) {
    server::cancelled(id);
}
