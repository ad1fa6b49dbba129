//! The microVM backend's parts: the agent protocol ([`wire`]), the guest
//! agent's work ([`agent`]), and the host's end of its port ([`link`]).

pub mod agent;
pub mod cpio;
pub mod image;
pub mod link;
pub mod wire;
