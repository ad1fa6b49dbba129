//! Backends: what the checked model becomes: the bindings objects are
//! written against, one backend per language (`assemblyscript`, `rust`)
//! over what they share (`shared`), each file stamped with where it came
//! from (`stamp`).

mod as_entries;
mod as_messages;
pub mod as_types;
pub mod assemblyscript;
pub mod errors;
mod filled;
pub mod formats;
pub mod json_schema;
pub mod rust;
mod rust_types;
mod shared;
pub mod stamp;
mod takes;
