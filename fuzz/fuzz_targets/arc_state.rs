#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pat::fuzzing::arc_state(data));
