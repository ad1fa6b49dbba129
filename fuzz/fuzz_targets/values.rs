#![no_main]
//! See `othismo_harness::targets::values`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::values(data));
