//! crucible: the wire protocol of crucible hosts (KVM-backed sandboxes),
//! client and daemon side. See `book/src/reference/crucible.md`.

pub mod fixtures;
pub mod frame;
pub mod io;
pub mod wire;
