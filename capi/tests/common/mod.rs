//! What the C API's test files share: hex decoding and the randomness
//! callback over the test generator.
#![allow(dead_code, clippy::unwrap_used, clippy::indexing_slicing, clippy::undocumented_unsafe_blocks)]

use core::ffi::c_void;

/// Bytes from a hex string (the vector files').
pub fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

/// A `pat_rng_fn` drawing from the `pat_testkit::TestRng` at `ctx`.
pub unsafe extern "C" fn test_rng(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32 {
    let rng = unsafe { &mut *ctx.cast::<pat_testkit::TestRng>() };
    rng.fill(unsafe { std::slice::from_raw_parts_mut(buf, len) });
    0
}
