//! The host ABI's imports, declared once: the functions of module
//! `othismo` and the verbs' numbers. What the runtime calls in the module
//! is `exports`.

use crate::payload::{Payload, Status};

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
    fn host_request(
        verb: i32,
        pp: *const u8,
        pl: i32,
        tp: *const u8,
        tl: i32,
        dp: *const u8,
        dl: i32,
    ) -> i32;
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
    pub unsafe fn host_request(
        _: i32,
        _: *const u8,
        _: i32,
        _: *const u8,
        _: i32,
        _: *const u8,
        _: i32,
    ) -> i32 {
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
    unsafe {
        host_request(
            verb as i32,
            path.as_ptr(),
            path.len() as i32,
            tp,
            tl,
            dp,
            dl,
        )
    }
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
    unsafe {
        host_bind(
            at.as_ptr(),
            at.len() as i32,
            existing.as_ptr(),
            existing.len() as i32,
            flags,
        )
    }
}

/// Removes the link at exactly `path` of this object's view: 0, or the
/// errno of why not.
pub fn unmount(path: &str) -> i32 {
    unsafe { host_unmount(path.as_ptr(), path.len() as i32) }
}

/// Serves `view` (a path of this object's view) at `at` of its served
/// tree: 0, or the errno of why not.
pub fn expose(at: &str, view: &str, flags: i32) -> i32 {
    unsafe {
        host_expose(
            at.as_ptr(),
            at.len() as i32,
            view.as_ptr(),
            view.len() as i32,
            flags,
        )
    }
}
