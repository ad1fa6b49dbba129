#![no_main]
//! See `othismo_harness::targets::host_abi`.
libfuzzer_sys::fuzz_target!(|data: &[u8]| othismo_harness::targets::host_abi(data));
