#![no_main]
//! See `othismo_harness::targets::check_render`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::check_render(data));
