//! Width-w non-adjacent form of a public scalar, for the variable-time
//! multi-scalar multiplications of the Jacobian P-384 (`voprf`) and P-256
//! (`arc`) code. Variable time: public scalars only.

/// The width-`w` NAF of the scalar whose big-endian encoding is `be`, least
/// significant digit first: every nonzero digit is odd and below 2^(w−1)
/// in absolute value, and of any `w` consecutive digits at most one is
/// nonzero. `LIMBS` 64-bit limbs must hold the scalar with one to spare (the
/// carries of negative digits), and `DIGITS` must be at least its bit length
/// plus one; a scalar that does not fit is truncated to its low bits, which
/// the callers' fixed sizes (`be` of `8·(LIMBS − 1)` bytes) rule out.
pub(crate) fn naf_vartime<const LIMBS: usize, const DIGITS: usize>(be: &[u8], w: u32) -> [i8; DIGITS] {
    let mut limbs = [0u64; LIMBS];
    for (limb, chunk) in limbs.iter_mut().zip(be.rchunks(8)) {
        let mut word = [0u8; 8];
        if let Some(tail) = word.get_mut(8 - chunk.len()..) {
            tail.copy_from_slice(chunk);
        }
        *limb = u64::from_be_bytes(word);
    }
    let window_mask = (1u64 << w) - 1;
    let half = 1i64 << (w - 1);
    let mut digits = [0i8; DIGITS];
    for digit in digits.iter_mut() {
        let low = limbs.first().copied().unwrap_or(0);
        if low & 1 == 1 {
            let window = (low & window_mask).cast_signed();
            let d = if window >= half { window - 2 * half } else { window };
            // limbs −= d, exactly (|d| < 2^(w−1)).
            let mut carry = d.unsigned_abs();
            for limb in limbs.iter_mut() {
                let (v, over) = if d > 0 { limb.overflowing_sub(carry) } else { limb.overflowing_add(carry) };
                *limb = v;
                carry = u64::from(over);
            }
            *digit = i8::try_from(d).unwrap_or(0);
        }
        let mut high = 0u64;
        for limb in limbs.iter_mut().rev() {
            let next = *limb & 1;
            *limb = (*limb >> 1) | (high << 63);
            high = next;
        }
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::naf_vartime;

    /// Rebuilds the value from the digits (as i128: the test values fit).
    fn value(digits: &[i8]) -> i128 {
        digits.iter().rev().fold(0i128, |acc, d| 2 * acc + i128::from(*d))
    }

    #[test]
    fn digits_rebuild_the_scalar_and_are_sparse() {
        for x in [0u64, 1, 2, 15, 16, 17, 31, 0x5555, 0xdead_beef, u64::MAX - 1, u64::MAX] {
            let be = x.to_be_bytes();
            for w in [2u32, 4, 5, 6] {
                let d = naf_vartime::<2, 66>(&be, w);
                assert_eq!(value(&d), i128::from(x), "{x} w={w}");
                for (i, digit) in d.iter().enumerate() {
                    if *digit != 0 {
                        assert_eq!(digit.rem_euclid(2), 1);
                        assert!(i32::from(digit.unsigned_abs()) < 1 << (w - 1));
                        let next = d.get(i + 1..(i + w as usize).min(d.len())).unwrap();
                        assert!(next.iter().all(|n| *n == 0), "{x} w={w} at {i}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_short_encoding_is_read_as_its_low_bytes() {
        assert_eq!(value(&naf_vartime::<2, 66>(&[0x01, 0x00], 5)), 256);
    }
}
