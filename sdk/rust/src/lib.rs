//! `othismo`: the module side of the Othismo host ABI (book: reference/wire.md),
//! for objects written in Rust. The bindings `othc gen --lang rust` writes
//! stand on it: a trait per object for what it serves, a client per need,
//! and the messages with their codecs: the tree both formats are read
//! into (`bson`), its fields (`bson::Field`), and JSON's text (`json`).
//!
//! An object is a [`Server`]; [`main!`] makes the module's start function
//! run it:
//!
//! ```ignore
//! struct Shouter;
//! impl ShouterServer for Shouter { /* one method per serves entry */ }
//! othismo::main!(Shouter);
//! ```
//!
//! It builds with std for `wasm32-unknown-unknown` (Rust 1.63 or later).
//! Only one thread ever runs in a module, and the runtime never calls into
//! it while it runs: the state kept here is one module's.

mod abi;
pub mod bson;
mod exports;
mod field;
pub mod json;
mod payload;
mod request;
mod server;
mod stat;
pub mod text;
mod tree;

pub use abi::{bind, expose, unmount, Verb};
pub use payload::{Payload, Status};
pub use request::{send, Answer, Request, Ticket};
pub use server::{rest, run, segments, Server};
pub use stat::{StatRecord, KIND_DIRECTORY, KIND_FILE, STAT};

/// A request's flag: the operator (the image's startup requests) sent it.
pub const FLAG_OPERATOR: i32 = 1;

/// `bind` and `expose`'s flag: read-only.
pub const FLAG_READONLY: i32 = 1;

/// Makes `server` (an expression) the module's object: its start function
/// runs it.
#[macro_export]
macro_rules! main {
    ($server:expr) => {
        #[no_mangle]
        pub extern "C" fn _start() {
            $crate::run($server)
        }
    };
}
