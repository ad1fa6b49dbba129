#![no_main]
//! See `othismo_harness::targets::fmt_roundtrip`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::fmt_roundtrip(data));
