//! Backends: what the checked model becomes. `assemblyscript` writes the
//! bindings modules are written against.

pub mod as_types;
pub mod assemblyscript;
