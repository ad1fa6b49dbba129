#![no_main]
//! See `othismo_harness::targets::http_response`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::http_response(data));
