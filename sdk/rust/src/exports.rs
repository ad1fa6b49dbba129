//! The exports the runtime calls (the start function, `_start`, is
//! `main!`'s): each hands what it was given to the request table or the
//! object. Buffers the runtime writes into are the module's own
//! (`othismo_alloc`).

use crate::abi::Verb;
use crate::payload::{Payload, Status};
use crate::request;
use crate::server;

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
pub extern "C" fn othismo_serve(
    id: i32,
    verb: i32,
    flags: i32,
    pp: *mut u8,
    pl: i32,
    tp: *mut u8,
    tl: i32,
    dp: *mut u8,
    dl: i32,
) {
    let path = text(pp, pl);
    let payload = payload(tp, tl, dp, dl);
    let verb = Verb::from_wire(verb).unwrap_or(Verb::Read);
    server::serve(request::Request::new(id, verb, flags, path, payload));
}

#[no_mangle]
pub extern "C" fn othismo_answer(
    ticket: i32,
    done: i32,
    tp: *mut u8,
    tl: i32,
    dp: *mut u8,
    dl: i32,
) {
    let payload = payload(tp, tl, dp, dl);
    request::deliver(
        ticket,
        request::Answer::Payload {
            payload,
            done: done != 0,
        },
    );
}

#[no_mangle]
pub extern "C" fn othismo_error(
    ticket: i32,
    errno: i32,
    cp: *mut u8,
    cl: i32,
    dp: *mut u8,
    dl: i32,
) {
    let code = text(cp, cl);
    let desc = text(dp, dl);
    request::deliver(
        ticket,
        request::Answer::Error {
            status: Status::of(errno, &code),
            desc,
        },
    );
}

#[no_mangle]
pub extern "C" fn othismo_cancel(id: i32) {
    server::cancelled(id);
}
