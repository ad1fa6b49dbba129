//! Backends: what the checked model becomes. `assemblyscript` writes the
//! bindings modules are written against.

mod as_entries;
mod as_messages;
pub mod as_types;
pub mod assemblyscript;
mod filled;
