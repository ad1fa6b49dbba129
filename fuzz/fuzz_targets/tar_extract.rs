#![no_main]
//! See `othismo_harness::targets::tar_extract`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::tar_extract(data));
