//! ristretto255 as ACT uses it (draft-schlesinger-cfrg-act-01 §2.3, §3.7):
//! `Encode` of elements (RFC 9496 compression, 32 bytes) and scalars (32
//! bytes little-endian), the strict decoders, random scalars, credit
//! amounts as scalars (§3.7.4) and the bit decomposition of §3.7.3.
//!
//! Scalar multiplications in the roles are curve25519-dalek's
//! `RistrettoPoint * Scalar` and `RistrettoPoint::mul_base`, and the
//! products by H1..H4 of [`super::fixed_base`], all constant time; the
//! variable-time ones, for public values only, are in [`super::vartime`]
//! and [`Params::mul_vartime`](super::params::Params). Scalar inversion is
//! crypto-bigint's (constant time, [`invert`]).

use crypto_bigint::{Odd, U256};
use curve25519_dalek::Scalar;
use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::traits::IsIdentity;
use rand_core::TryCryptoRng;
use subtle::{Choice, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

use crate::error::{Error, Result, RngCode};

/// Length of an encoded element (`Np`).
pub const NE: usize = 32;
/// Length of an encoded scalar (`Ns`).
pub const NS: usize = 32;
/// The largest bit length of balances the draft allows (§3.1: 1 ≤ L ≤ 128).
pub const MAX_L: usize = 128;

/// Checks 1 ≤ `L` ≤ [`MAX_L`] (§3.1): `InvalidLength(Message)` otherwise.
pub(crate) const fn check_l<const L: usize>() -> Result<()> {
    if L == 0 || L > MAX_L {
        return Err(Error::InvalidLength(crate::error::Field::Message));
    }
    Ok(())
}

/// An element with its encoding (the transcript and the codec use both).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Elem {
    pub(crate) point: RistrettoPoint,
    pub(crate) bytes: [u8; NE],
}

impl Elem {
    /// Decodes a canonical ristretto255 encoding that is not the identity
    /// (`InvalidElement` otherwise). Only public values are decoded.
    pub(crate) fn decode(bytes: &[u8; NE]) -> Result<Self> {
        let point = CompressedRistretto(*bytes).decompress().ok_or(Error::InvalidElement)?;
        if point.is_identity() {
            return Err(Error::InvalidElement);
        }
        Ok(Self { point, bytes: *bytes })
    }

    /// Encodes a point the protocol sends (its encoding is marked public for
    /// the constant-time harness): the identity, which the peer would
    /// refuse, is `InvalidElement` (it happens only with probability 2^-252).
    pub(crate) fn new(point: RistrettoPoint) -> Result<Self> {
        let mut bytes = point.compress().to_bytes();
        crate::ct::declassify(&mut bytes);
        if bool::from(bytes.ct_eq(&[0u8; NE])) {
            return Err(Error::InvalidElement);
        }
        Ok(Self { point, bytes })
    }
}

/// Decodes a canonical scalar (below the group order; `InvalidScalar`
/// otherwise), in constant time.
pub(crate) fn decode_scalar(bytes: &[u8; NS]) -> Result<Scalar> {
    let s = Scalar::from_canonical_bytes(*bytes);
    let mut ok = s.is_some();
    crate::ct::declassify(&mut ok);
    if !bool::from(ok) {
        return Err(Error::InvalidScalar);
    }
    Ok(s.unwrap_or(Scalar::ZERO))
}

/// Draws before [`random_scalar`] gives up on a generator that keeps giving
/// zero.
const MAX_DRAWS: usize = 64;

/// `x <- Zq`: 64 bytes from the generator, read little-endian and reduced
/// modulo q (what the reference code and the appendix vectors do, so the
/// same generator gives the same scalars). A zero result, which an honest
/// generator gives with probability 2^-252, is drawn again; a generator
/// that gives it [`MAX_DRAWS`] times is stuck: `Rng(EXHAUSTED)`.
pub(crate) fn random_scalar<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Scalar> {
    for _ in 0..MAX_DRAWS {
        let mut wide = [0u8; 64];
        crate::rng::fill(rng, &mut wide)?;
        let s = Scalar::from_bytes_mod_order_wide(&wide);
        wide.zeroize();
        let mut zero = s.ct_eq(&Scalar::ZERO);
        crate::ct::declassify(&mut zero);
        if !bool::from(zero) {
            return Ok(s);
        }
    }
    Err(Error::Rng(RngCode::EXHAUSTED))
}

/// Scalars drawn per call of the generator by [`random_scalars`].
const BATCH: usize = 8;

/// [`random_scalar`] for each of `out` in turn, with one call of the
/// generator for up to [`BATCH`] of them: the same bytes in the same order
/// (a generator's stream does not depend on how its reads are cut, at
/// 64-byte boundaries), and a tenth of the system calls for `OsRng` (the
/// spend proof of L = 16 draws 76 scalars: 20 µs in 64-byte reads on the
/// bench machine). A zero scalar, probability 2^-252 each, is drawn again
/// after the batch rather than at once.
pub(crate) fn random_scalars<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R, out: &mut [Scalar]) -> Result<()> {
    let mut wide = Zeroizing::new([0u8; 64 * BATCH]);
    for chunk in out.chunks_mut(BATCH) {
        let bytes = wide.get_mut(..64 * chunk.len()).ok_or(Error::Rng(RngCode::UNKNOWN))?;
        crate::rng::fill(rng, bytes)?;
        for (s, w) in chunk.iter_mut().zip(bytes.chunks_exact(64)) {
            let mut block = [0u8; 64];
            block.copy_from_slice(w);
            *s = Scalar::from_bytes_mod_order_wide(&block);
            block.zeroize();
            let mut zero = s.ct_eq(&Scalar::ZERO);
            crate::ct::declassify(&mut zero);
            if bool::from(zero) {
                *s = random_scalar(rng)?;
            }
        }
    }
    Ok(())
}

/// The group order q = 2^252 + 27742317777372353535851937790883648493.
const ORDER: Odd<U256> = Odd::<U256>::from_be_hex("1000000000000000000000000000000014def9dea2f79cd65812631a5cf5d3ed");

/// s⁻¹ mod q (0 for s = 0, as dalek's `Scalar::invert` gives), constant
/// time: crypto-bigint's safegcd (Bernstein–Yang) inversion, 3.0 µs against
/// 9.4 µs for dalek's `Scalar::invert` (an addition chain of Montgomery
/// products) on the bench machine (x86_64). Both parties invert secrets:
/// the client r1 (§3.4.1), the issuer e + x (§3.3.2).
pub(crate) fn invert(s: &Scalar) -> Scalar {
    let mut x = U256::from_le_slice(s.as_bytes());
    let mut inv = x.invert_odd_mod(&ORDER).unwrap_or(U256::ZERO);
    let mut bytes: [u8; NS] = inv.to_le_bytes().into();
    // The inverse lies below q: canonical.
    let out = Scalar::from_canonical_bytes(bytes).unwrap_or(Scalar::ZERO);
    x.zeroize();
    inv.zeroize();
    bytes.zeroize();
    out
}

/// `CreditToScalar` (§3.7.4): `ValueTooLarge` unless `amount` < 2^L.
pub(crate) fn credit_to_scalar<const L: usize>(amount: u128) -> Result<Scalar> {
    check_l::<L>()?;
    if L < 128 && amount >> L != 0 {
        return Err(Error::ValueTooLarge);
    }
    Ok(Scalar::from(amount))
}

/// Whether a scalar, read as an integer, lies below 2^L; constant time in
/// the scalar (`L` ≤ [`MAX_L`] is checked by the callers).
pub(crate) fn fits_in_bits<const L: usize>(s: &Scalar) -> Choice {
    let bytes = s.as_bytes();
    let mut high = 0u8;
    for (i, b) in bytes.iter().enumerate() {
        // The bits of byte i at positions 8i.. that are at or above L.
        let keep = if 8 * i >= L {
            0xffu8
        } else if 8 * (i + 1) <= L {
            0
        } else {
            0xffu8 << (L - 8 * i)
        };
        high |= b & keep;
    }
    high.ct_eq(&0)
}

/// `ScalarToCredit` (§3.7.4) for a public scalar: `ValueTooLarge` unless it
/// lies below 2^L.
pub(crate) fn scalar_to_credit<const L: usize>(s: &Scalar) -> Result<u128> {
    check_l::<L>()?;
    if !bool::from(fits_in_bits::<L>(s)) {
        return Err(Error::ValueTooLarge);
    }
    let mut low = [0u8; 16];
    low.copy_from_slice(s.as_bytes().get(..16).ok_or(Error::ValueTooLarge)?);
    Ok(u128::from_le_bytes(low))
}

/// Bit `i` of a scalar's little-endian encoding (`BitDecompose`, §3.7.3),
/// as a `Choice`; `i` < 256.
pub(crate) fn bit(s: &Scalar, i: usize) -> Choice {
    let byte = s.as_bytes().get(i / 8).copied().unwrap_or(0);
    #[allow(clippy::cast_possible_truncation)] // i % 8 < 8
    let shift = (i % 8) as u32;
    Choice::from((byte >> shift) & 1)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn fits_in_bits_at_the_edges() {
        assert!(bool::from(fits_in_bits::<8>(&Scalar::from(255u64))));
        assert!(!bool::from(fits_in_bits::<8>(&Scalar::from(256u64))));
        assert!(bool::from(fits_in_bits::<9>(&Scalar::from(511u64))));
        assert!(!bool::from(fits_in_bits::<9>(&Scalar::from(512u64))));
        assert!(bool::from(fits_in_bits::<1>(&Scalar::ONE)));
        assert!(!bool::from(fits_in_bits::<1>(&Scalar::from(2u64))));
        assert!(bool::from(fits_in_bits::<128>(&Scalar::from(u128::MAX))));
        assert!(!bool::from(fits_in_bits::<128>(&(Scalar::from(u128::MAX) + Scalar::ONE))));
        assert!(!bool::from(fits_in_bits::<64>(&-Scalar::ONE)));
        assert_eq!(scalar_to_credit::<128>(&Scalar::from(u128::MAX)).unwrap(), u128::MAX);
        assert_eq!(credit_to_scalar::<8>(256).err(), Some(Error::ValueTooLarge));
        assert_eq!(credit_to_scalar::<0>(0).err(), Some(Error::InvalidLength(crate::error::Field::Message)));
        assert_eq!(credit_to_scalar::<129>(0).err(), Some(Error::InvalidLength(crate::error::Field::Message)));
    }

    #[test]
    fn invert_matches_dalek() {
        assert_eq!(invert(&Scalar::ZERO), Scalar::ZERO);
        assert_eq!(invert(&Scalar::ONE), Scalar::ONE);
        assert_eq!(invert(&-Scalar::ONE), -Scalar::ONE);
        let mut s = Scalar::from(3u8);
        for i in 0u8..64 {
            let mut wide = [i; 64];
            wide[0] ^= 0x5a;
            s = s * Scalar::from_bytes_mod_order_wide(&wide) + Scalar::ONE;
            assert_eq!(invert(&s), s.invert());
            assert_eq!(invert(&s) * s, Scalar::ONE);
        }
    }
}
