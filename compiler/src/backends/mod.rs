//! Backends: what the checked model becomes: the bindings objects are
//! written against, one backend per language (`assemblyscript`, `rust`)
//! over what they share (`shared`).

mod as_entries;
mod shared;
mod as_messages;
pub mod as_types;
pub mod assemblyscript;
pub mod rust;
mod rust_types;
mod filled;
