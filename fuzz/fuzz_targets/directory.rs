#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    pat::fuzzing::directory(data);
    pat_fuzz::directory::directory_differential(data);
});
