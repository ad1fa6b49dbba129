#![no_main]
//! See `othismo_harness::targets::bundle_load`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::bundle_load(data));
