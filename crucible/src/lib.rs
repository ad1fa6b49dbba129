//! crucible: the wire protocol of crucible hosts (KVM-backed sandboxes),
//! client and daemon side. See `book/src/reference/crucible.md`.

pub mod client;
pub mod daemon;
pub mod failure;
pub mod fixtures;
pub mod frame;
pub mod guest;
mod http;
pub mod io;
pub mod local;
pub mod sandbox;
pub mod vm;
pub mod wire;

/// The crate's one policy for a poisoned lock: take the value as the
/// panicking holder left it. Every table behind a lock here (sandboxes,
/// VMs, a link's routes, the agent's sessions) is changed in single steps
/// (an insert, a remove), so what a panic leaves is still whole, and a
/// daemon that stopped answering because one request panicked would be
/// worse than one that goes on.
pub(crate) fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}
