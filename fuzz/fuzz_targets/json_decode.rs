#![no_main]
//! See `othismo_harness::targets::json_decode`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::json_decode(data));
