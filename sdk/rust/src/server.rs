//! The object: what `main!` runs, and the requests it is serving.

use std::cell::RefCell;

use crate::payload::Status;
use crate::request::{self, Request};

/// An object: the generated `…Object` wrapper of a server trait is one.
pub trait Server {
    /// Once, after the module is instantiated.
    fn start(&mut self) {}
    /// A request for this object.
    fn serve(&mut self, req: Request);
    /// A caller gave up on `req`: its answers go nowhere now.
    fn cancelled(&mut self, _req: &Request) {}
}

thread_local! {
    static SERVER: RefCell<Option<Box<dyn Server>>> = RefCell::new(None);
}

/// Makes `server` this module's object (`main!` calls it at start).
pub fn run<S: Server + 'static>(server: S) {
    SERVER.with(|s| *s.borrow_mut() = Some(Box::new(server)));
}

/// Calls `f` on the object, taken out while it runs (so that whatever it
/// does may reach this module's state); false when there is none.
fn with_server(f: impl FnOnce(&mut dyn Server)) -> bool {
    let taken = SERVER.with(|s| s.borrow_mut().take());
    match taken {
        Some(mut server) => {
            f(server.as_mut());
            SERVER.with(|s| {
                let mut slot = s.borrow_mut();
                if slot.is_none() {
                    *slot = Some(server);
                }
            });
            true
        }
        None => false,
    }
}

pub(crate) fn start() {
    with_server(|s| s.start());
}

pub(crate) fn serve(req: Request) {
    request::serving(&req);
    let unserved = req.clone();
    if !with_server(|s| s.serve(req)) {
        unserved.fail(Status::not_found(), "this module serves nothing");
    }
}

pub(crate) fn cancelled(id: i32) {
    if let Some(req) = request::cancelled(id) {
        req.mark_finished();
        with_server(|s| s.cancelled(&req));
    }
}

/// The segments of a request's path: `/a/b` → `["a", "b"]`, `/` → none.
pub fn segments(path: &str) -> Vec<String> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_string)
        .collect()
}

/// What a `**` matched: the segments from `from` on, as a path (`/a/b`,
/// or `/` for none), as the AssemblyScript SDK hands it over.
pub fn rest(s: &[String], from: usize) -> String {
    match s.get(from..) {
        Some(r) if !r.is_empty() => format!("/{}", r.join("/")),
        _ => "/".to_string(),
    }
}
