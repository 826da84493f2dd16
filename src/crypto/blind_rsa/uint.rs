//! Conversions between big-endian byte strings and `crypto_bigint::Uint`
//! (RFC 8017 §4.1 I2OSP, §4.2 OS2IP) that never panic.
//!
//! Both directions are constant time in the value (they touch every byte and
//! limb the same way); only the lengths are public.

use crypto_bigint::{Limb, Uint, Word};

/// OS2IP: a big-endian byte string of at most `Uint::<L>::BYTES` bytes.
///
/// Returns `None` when the string is too long to fit.
pub(crate) fn from_be<const L: usize>(bytes: &[u8]) -> Option<Uint<L>> {
    if bytes.len() > Uint::<L>::BYTES {
        return None;
    }
    let mut limbs = [Limb::ZERO; L];
    for (i, b) in bytes.iter().rev().enumerate() {
        let limb = limbs.get_mut(i / Limb::BYTES)?;
        limb.0 |= Word::from(*b) << (8 * (i % Limb::BYTES));
    }
    Some(Uint::new(limbs))
}

/// I2OSP into `out` (big endian, left-padded with zeros). Bytes of `x` above
/// `out.len()` are dropped; callers guarantee they are zero.
pub(crate) fn to_be<const L: usize>(x: &Uint<L>, out: &mut [u8]) {
    let limbs = x.as_limbs();
    for (i, o) in out.iter_mut().rev().enumerate() {
        let byte = limbs.get(i / Limb::BYTES).and_then(|limb| limb.0.to_le_bytes().get(i % Limb::BYTES).copied());
        *o = byte.unwrap_or(0);
    }
}

/// Compile-time checks that the const parameters of a key type agree:
/// `B` bytes fill `L` limbs exactly, and `H` limbs are half of `L`.
pub(crate) struct Sizes<const L: usize, const H: usize, const B: usize>;

impl<const L: usize, const H: usize, const B: usize> Sizes<L, H, B> {
    /// `B == Uint::<L>::BYTES`.
    pub(crate) const MODULUS: () = assert!(B == L * Limb::BYTES, "modulus byte length must fill the limbs exactly");
    /// `2·H == L`.
    pub(crate) const HALVES: () = assert!(2 * H == L, "prime limbs must be half the modulus limbs");
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crypto_bigint::U128;

    #[test]
    fn round_trip() {
        let x = U128::from_be_hex("000102030405060708090a0b0c0d0e0f");
        let mut out = [0u8; 16];
        to_be(&x, &mut out);
        assert_eq!(out, core::array::from_fn::<u8, 16, _>(|i| i as u8));
        assert_eq!(from_be::<{ U128::LIMBS }>(&out), Some(x));
        assert_eq!(from_be::<{ U128::LIMBS }>(&out[1..]), Some(x));
        assert_eq!(from_be::<{ U128::LIMBS }>(&[0u8; 17]), None);
        let mut short = [0u8; 3];
        to_be(&x, &mut short);
        assert_eq!(short, [13, 14, 15]);
    }
}
