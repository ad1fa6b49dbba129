//! The build driver: everything `othc build` and `othc run` do outside the
//! compiler's core. It writes files, installs and runs the pinned
//! AssemblyScript compiler, keeps the module cache, and says what it is doing
//! on stderr. The core (`othc`) does none of that: it takes files in through
//! a `Loader` and hands back models, diagnostics, bindings, sections and
//! bundles as values; this crate turns them into files.

pub mod build;
pub mod build_errors;
mod in_turns;
mod layout;
pub mod resident;
pub mod rust_toolchain;
pub mod toolchain;
pub mod toolchains;
