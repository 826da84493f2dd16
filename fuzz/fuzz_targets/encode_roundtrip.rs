#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pat::fuzzing::encode_roundtrip(data));
