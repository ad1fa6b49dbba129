//! The Othismo compiler's core: source map, import resolution, formats and
//! diagnostics. It does no IO: files come in through a [`loader::Loader`], and
//! diagnostics go out as values for the caller to render.

pub mod abi_check;
pub mod asnames;
pub mod backends;
pub mod bundle;
pub mod check;
pub mod diagnostics;
pub mod diff;
pub mod formats;
pub mod header;
pub mod ide;
pub mod loader;
pub mod model;
pub mod name_errors;
pub mod namespace;
pub mod natives;
pub mod placement;
pub mod printer;
pub mod resolve;
pub mod sections;
pub mod source;
pub mod wasm;
pub mod wiring;

pub use check::{Compilation, ValueInputs, compile};
pub use diagnostics::{Code, Diagnostic, Diagnostics, Severity};
pub use resolve::{FrontEnd, RootError, load};
