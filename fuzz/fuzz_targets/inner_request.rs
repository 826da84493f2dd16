#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pat::fuzzing::inner_request(data));
