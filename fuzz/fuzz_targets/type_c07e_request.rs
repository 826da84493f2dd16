#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pat::fuzzing::type_c07e_request(data));
