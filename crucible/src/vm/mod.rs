//! The microVM backend's parts: the agent protocol ([`wire`]), the guest
//! agent's work ([`agent`]), the host's end of its port ([`link`]), the
//! guest's kernel and initramfs ([`image`], [`cpio`]), one VM ([`qemu`], driven over [`qmp`] to save and load snapshots),
//! and the backend over them ([`backend`]).

pub mod accel;
pub mod agent;
pub mod backend;
pub mod cpio;
pub mod image;
pub mod link;
pub mod qemu;
pub mod qmp;
pub mod snapshot;
pub mod wire;
