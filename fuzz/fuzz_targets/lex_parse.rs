#![no_main]
//! See `othismo_harness::targets::lex_parse`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::lex_parse(data));
