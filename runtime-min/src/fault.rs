//! A thread of the runtime's own that panics (a bug in the runtime, never
//! something an image or a client can be blamed for) ends the run with
//! status 1, saying which thread and why. Left alone, a worker that
//! panicked would take the instance it was calling with it and the loop
//! would wait for that call forever, a listener that panicked would leave
//! its port unserved, and a node whose NATS thread panicked would take
//! nothing more from its cluster: each time a process that looks alive and
//! no longer serves. A panic on the loop's own thread already ends the
//! process. (A panic in one connection's task is caught by tokio and ends
//! only that connection.)

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Runs `f`, the whole work of one of the runtime's threads (or of one of
/// its jobs); a panic in it is caught and comes back as what it said, for
/// the thread to report before it ends. (Nothing `f` touched is used after
/// a panic: the thread ends, and the run with it.)
pub(crate) fn caught<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| message(p.as_ref()))
}

/// What a panic said, as text.
fn message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a panic with no message".to_string()
    }
}

/// In debug builds, a panic here when `OTHISMO_FAULT` names `point`: how
/// the tests make a thread fail on purpose (release builds read nothing).
pub(crate) fn inject(point: &str) {
    if cfg!(debug_assertions) && std::env::var("OTHISMO_FAULT").is_ok_and(|f| f == point) {
        panic!("injected fault `{point}` (OTHISMO_FAULT)");
    }
}
