//! Declassification points for the constant-time checks.
//!
//! The valgrind secret-poisoning harness (`ctgrind/`) marks every
//! secret as undefined memory; a value derived from secrets that the protocol
//! makes public (an output, or a rejection-sampling verdict that reveals
//! nothing) must be marked defined again before code branches on it. Each call
//! of [`declassify`] is such a point, and every call site is listed with its
//! reason in `ctgrind/DECLASSIFIED.md` (checked by `tests/declassified.rs`).
//! Without `--cfg pat_ctgrind` both functions do nothing.

/// Marks `value` as public from here on. A no-op without `--cfg pat_ctgrind`.
///
/// It takes `&mut` on purpose: with `&T` the compiler may keep using a copy
/// of the value held in a register (an immutable binding cannot change), and
/// memcheck tracks that copy separately, so the mark would be lost. Through
/// `&mut` the pointer escapes into the client request as writable, so every
/// later use reloads the marked memory. (Seen with `&T`: the verdict `ok` of
/// `P384Sha384::invert` was still reported after being marked.)
#[inline(always)]
pub(crate) fn declassify<T: ?Sized>(value: &mut T) {
    #[cfg(pat_ctgrind)]
    mark(value, crabgrind::memcheck::MemState::Defined);
    #[cfg(not(pat_ctgrind))]
    let _ = value;
}

/// Marks `value` as secret (undefined memory for memcheck), for the harness's
/// `ctgrind_poison` hooks on the secret key types.
#[cfg(pat_ctgrind)]
#[inline(always)]
pub(crate) fn poison<T: ?Sized>(value: &T) {
    mark(value, crabgrind::memcheck::MemState::Undefined);
}

#[cfg(pat_ctgrind)]
#[inline(always)]
fn mark<T: ?Sized>(value: &T, state: crabgrind::memcheck::MemState) {
    // Outside valgrind the client request is a no-op that reports `NoValgrind`.
    let _ = crabgrind::memcheck::mark_memory((value as *const T).cast(), size_of_val(value), state);
}
