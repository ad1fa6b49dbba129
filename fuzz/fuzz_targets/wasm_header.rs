#![no_main]
//! See `othismo_harness::targets::wasm_header`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::wasm_header(data));
