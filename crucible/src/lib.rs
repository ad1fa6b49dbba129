//! crucible: the wire protocol of crucible hosts (KVM-backed sandboxes),
//! client and daemon side. See `book/src/reference/crucible.md`.

pub mod client;
pub mod daemon;
pub mod fixtures;
pub mod frame;
pub mod guest;
mod http;
pub mod io;
pub mod sandbox;
pub mod vm;
pub mod wire;
