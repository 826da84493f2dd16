//! Memory checks for `pat`'s secret types: wiped after drop.
//!
//! `pat` forbids `unsafe`, so the check that a secret is really gone from
//! memory after its destructor ran lives here: [`drop_and_read`] moves a value
//! into a heap slot, copies the slot's bytes, runs the destructor in place
//! (`core::ptr::drop_in_place`) and copies the bytes again. The slot is a
//! `MaybeUninit`, so nothing drops or reuses it in between.
//!
//! [`check`] then applies the rule: each needle (the secret in the form it has
//! in memory) must be found in the slot before the drop, and no 8-byte window
//! of it (ignoring all-zero windows) may be found after it.

use core::mem::{MaybeUninit, size_of};

/// The bytes of `slot`, read one by one with volatile reads (so the compiler
/// cannot assume the dropped value's bytes and skip the read).
fn read<T>(slot: &MaybeUninit<T>) -> Vec<u8> {
    let base = slot.as_ptr().cast::<u8>();
    (0..size_of::<T>())
        // SAFETY: `i < size_of::<T>()`, so the address is inside the slot, which
        // lives as long as the borrow. The bytes may be padding (uninitialized in
        // the abstract machine); the volatile read returns whatever memory holds.
        .map(|i| unsafe { core::ptr::read_volatile(base.add(i)) })
        .collect()
}

/// Moves `value` into a heap slot and returns the slot's bytes before and after
/// running its destructor in place. The memory is freed without a second drop.
pub fn drop_and_read<T>(value: T) -> (Vec<u8>, Vec<u8>) {
    let mut slot: Box<MaybeUninit<T>> = Box::new_uninit();
    slot.write(value);
    let before = read(&slot);
    // SAFETY: the slot was initialized just above and is dropped exactly once;
    // `MaybeUninit` never drops its content, so freeing the box does not drop it again.
    unsafe { core::ptr::drop_in_place(slot.as_mut_ptr()) };
    let after = read(&slot);
    (before, after)
}

/// The in-memory bytes of `value` (then dropped normally): the form a secret
/// takes inside other types, e.g. a Montgomery-form scalar.
pub fn snapshot<T>(value: T) -> Vec<u8> {
    drop_and_read(value).0
}

/// The bytes of a big-endian integer as `crypto-bigint` stores it on a
/// little-endian machine: little-endian, zero-padded to `len` bytes.
pub fn limbs_le(be: &[u8], len: usize) -> Vec<u8> {
    let mut out: Vec<u8> = be.iter().rev().copied().collect();
    out.resize(len, 0);
    out
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// Applies the rule to `value`: every needle is in its memory before the drop
/// (else the check would prove nothing: `Err`), and no non-zero 8-byte window
/// of any needle is left after it (else `Err` naming the survivor).
pub fn check<T>(value: T, needles: &[Vec<u8>]) -> Result<usize, String> {
    let (before, after) = drop_and_read(value);
    let mut windows = 0;
    for (i, needle) in needles.iter().enumerate() {
        if needle.len() < 8 {
            return Err(format!("needle {i} is shorter than 8 bytes"));
        }
        if !contains(&before, needle) {
            return Err(format!("needle {i} is not in the value before the drop (wrong needle)"));
        }
        for w in needle.windows(8).filter(|w| w.iter().any(|&b| b != 0)) {
            if let Some(at) = after.windows(8).position(|a| a == w) {
                return Err(format!("needle {i} survives the drop at byte {at} of {}: {w:02x?}", after.len()));
            }
            windows += 1;
        }
    }
    Ok(windows)
}
