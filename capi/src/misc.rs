//! The power-on self-test, and wiping secrets the compiler must not skip.

use crate::ffi;

/// Power-on self-test of type 0x0001: a known answer of pat-go's vectors
/// through the client (request and finalize). Returns 0, or
/// `-PAT_E_SELF_TEST` with the failed half as detail. Links only type
/// 0x0001's code.
#[unsafe(no_mangle)]
pub extern "C" fn pat_self_test_type1() -> i32 {
    ffi::status(pat::self_test::type1().map(|()| 0).map_err(Into::into))
}

/// Power-on self-test of type 0x0002, as `pat_self_test_type1` (the token
/// is also verified as an origin would).
#[unsafe(no_mangle)]
pub extern "C" fn pat_self_test_type2() -> i32 {
    ffi::status(pat::self_test::type2().map(|()| 0).map_err(Into::into))
}

/// Power-on self-test of type 0x0005, as `pat_self_test_type1`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_self_test_type5() -> i32 {
    ffi::status(pat::self_test::type5().map(|()| 0).map_err(Into::into))
}

/// Zeroes `len` bytes at `buf` in a way the compiler does not remove (a
/// `memset` before `free` or a return may be): use it on client states,
/// `request_blind`, tokens and anything else secret once done with them.
/// NULL does nothing.
///
/// # Safety
/// `buf` points to `len` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_wipe(buf: *mut u8, len: usize) {
    // SAFETY: the caller lends `len` writable bytes at `buf`; zero_raw skips
    // NULL and impossible ranges. The caller's memory outlives this call and
    // is not visible to the compiler here, so the writes cannot be elided.
    unsafe { ffi::zero_raw(buf, len) };
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}
