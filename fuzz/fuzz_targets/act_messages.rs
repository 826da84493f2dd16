#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| pat::fuzzing::act_messages(data));
