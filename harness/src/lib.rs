//! The toolchain driven on arbitrary input, one function per input
//! boundary. The fuzz targets (`fuzz/fuzz_targets/`, run with
//! `cargo +nightly fuzz`) call these and nothing else, and `cargo test`
//! replays every input kept under `fixtures/fuzz/TARGET/` through the same
//! function (`tests/replay.rs`), so a crash found once stays fixed without
//! a nightly toolchain. Each function panics when a property fails, and
//! only then: errors in the input are the expected outcome.

pub mod targets;
pub mod wat_image;

pub use targets::TARGETS;
pub use wat_image::wat_bundle;
