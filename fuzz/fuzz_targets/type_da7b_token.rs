#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pat::fuzzing::type_da7b_token(data));
