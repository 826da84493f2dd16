//! The ristretto255-SHA512 ciphersuite (RFC 9497 §4.1).

use core::num::NonZeroU16;

use curve25519_dalek::ristretto::{CompressedRistretto, RistrettoPoint};
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::Identity;
use p384::elliptic_curve::consts::U32;
use p384::hash2curve::{ExpandMsg, ExpandMsgXmd, Expander};
use rand_core::TryCryptoRng;
use sha2::{Digest, Sha512};
use subtle::{Choice, ConstantTimeEq};
use zeroize::Zeroize;

use super::suite::{Suite, SuiteOps, check_sizes, sealed};
use crate::error::{Error, Field as ErrorField, Result, RngCode};

/// ristretto255-SHA512 (RFC 9497 §4.1): the ristretto255 group (RFC 9496),
/// 32-byte elements and little-endian scalars, SHA-512 (`Nh` = 64).
/// Privacy Pass token type 0x0005.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Ristretto255Sha512;

impl sealed::Sealed for Ristretto255Sha512 {}

/// Upper bound on sampling rounds in `random_scalar` (a zero scalar has
/// probability about 2^-252 per round).
const MAX_SAMPLING_ROUNDS: usize = 64;

/// `expand_message_xmd(msg, DST, 64)` with SHA-512 (RFC 9380 §5.3.1), from
/// the RustCrypto `hash2curve` crate that `p384` re-exports (curve25519-dalek
/// keeps its own copy private). The type parameter is the security level in
/// bytes, which `ExpandMsgXmd` only uses to check that SHA-512 is wide enough.
fn expand_64(msg: &[&[u8]], dst: &[&[u8]]) -> Result<[u8; 64]> {
    const LEN: NonZeroU16 = match NonZeroU16::new(64) {
        Some(n) => n,
        None => NonZeroU16::MIN,
    };
    let mut out = [0u8; 64];
    let mut expander = <ExpandMsgXmd<Sha512> as ExpandMsg<U32>>::expand_message(msg, dst, LEN)
        .map_err(|_| Error::InvalidLength(ErrorField::Message))?;
    let n = expander.fill_bytes(&mut out).map_err(|_| Error::InvalidLength(ErrorField::Message))?;
    if n != out.len() {
        return Err(Error::InvalidLength(ErrorField::Message));
    }
    Ok(out)
}

impl Suite for Ristretto255Sha512 {
    const ID: &'static str = "ristretto255-SHA512";
    const CONTEXT_STRING: &'static [u8] = b"OPRFV1-\x01-ristretto255-SHA512";
    const NE: usize = 32;
    const NS: usize = 32;
    const NH: usize = 64;

    type Point = RistrettoPoint;
    type Scalar = Scalar;
    type ElementBytes = [u8; 32];
    type ScalarBytes = [u8; 32];
    type ProofBytes = [u8; 64];
    type Output = [u8; 64];
}

impl SuiteOps for Ristretto255Sha512 {
    /// dalek's constant-time multiplication has no reusable precomputation
    /// in its public API: the point itself.
    type Prepared = RistrettoPoint;

    // Not inlined into `hash_mul`: its frame (the expanded bytes and the
    // Elligator temporaries) then ends before the multiplication's begins,
    // which keeps the Cortex-M stack of Blind and Evaluate as before.
    #[inline(never)]
    fn hash_to_group(msg: &[&[u8]], dst: &[&[u8]]) -> Result<RistrettoPoint> {
        // RFC 9497 §4.1: expand_message_xmd(SHA-512) to 64 bytes, then the
        // ristretto255 element derivation (RFC 9496 §4.3.4), which maps each
        // 32-byte half with the one-way map and adds the two points.
        let uniform = expand_64(msg, dst)?;
        Ok(RistrettoPoint::from_uniform_bytes(&uniform))
    }

    fn hash_to_scalar(msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar> {
        // RFC 9497 §4.1: 64 uniform bytes read little-endian, reduced mod ℓ.
        let mut uniform = expand_64(msg, dst)?;
        let s = Scalar::from_bytes_mod_order_wide(&uniform);
        uniform.zeroize();
        Ok(s)
    }

    fn hash_parts(msg: &[&[u8]]) -> [u8; 64] {
        let mut h = Sha512::new();
        for part in msg {
            h.update(part);
        }
        h.finalize().into()
    }

    fn random_scalar<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Scalar> {
        // RFC 9497 §4.7: reduce 64 random bytes (bias below 2^-259) and
        // reject zero.
        let mut buf = [0u8; 64];
        for _ in 0..MAX_SAMPLING_ROUNDS {
            crate::rng::fill(rng, &mut buf)?;
            let s = Scalar::from_bytes_mod_order_wide(&buf);
            let mut zero = s.ct_eq(&Scalar::ZERO);
            crate::ct::declassify(&mut zero); // rejection verdict (probability 2^-252), not the value
            if !bool::from(zero) {
                buf.zeroize();
                return Ok(s);
            }
        }
        buf.zeroize();
        Err(Error::Rng(RngCode::EXHAUSTED))
    }

    fn mul_base(s: &Scalar) -> RistrettoPoint {
        RistrettoPoint::mul_base(s)
    }

    fn mul_base_add_vartime(a: &Scalar, b: &Scalar, p: &RistrettoPoint) -> RistrettoPoint {
        // curve25519-dalek computes b·P + a·B in one interleaved pass.
        RistrettoPoint::vartime_double_scalar_mul_basepoint(b, p, a)
    }

    fn lincomb_vartime(pairs: &[(RistrettoPoint, Scalar)]) -> Result<RistrettoPoint> {
        // curve25519-dalek's `VartimeMultiscalarMul` needs `alloc`, so pairs of
        // terms go through this module's interleaved wNAF (one shared doubling
        // chain). A lone term uses dalek's constant-time multiplication, which
        // is faster than a one-term wNAF built on the public point API
        // (about 24 µs against 38 µs here), and constant time does no harm.
        let mut acc = RistrettoPoint::identity();
        for chunk in pairs.chunks(straus::MAX_TERMS) {
            acc += match chunk {
                [(p, s)] => p * s,
                _ => straus::lincomb_vartime(chunk).ok_or(Error::InvalidLength(ErrorField::Batch))?,
            };
        }
        Ok(acc)
    }

    fn prepare(p: &RistrettoPoint) -> Result<RistrettoPoint> {
        Ok(*p)
    }

    fn prepared_mul(p: &RistrettoPoint, scalars: &[Scalar], out: &mut [RistrettoPoint]) -> Result<()> {
        if scalars.len() != out.len() || scalars.len() > 4 {
            return Err(Error::InvalidLength(ErrorField::Batch));
        }
        for (o, s) in out.iter_mut().zip(scalars) {
            *o = p * s;
        }
        Ok(())
    }

    fn invert(s: &Scalar) -> Result<Scalar> {
        // `Scalar::invert` is a fixed addition chain: constant time.
        let mut zero = s.ct_eq(&Scalar::ZERO);
        crate::ct::declassify(&mut zero); // verdict only: blinds are non-zero, a zero one is an error
        if bool::from(zero) {
            return Err(Error::InvalidScalar);
        }
        Ok(s.invert())
    }

    fn scalar_is_zero(s: &Scalar) -> Choice {
        s.ct_eq(&Scalar::ZERO)
    }

    fn is_identity(p: &RistrettoPoint) -> Choice {
        p.ct_eq(&RistrettoPoint::identity())
    }

    fn serialize_elements(points: &[RistrettoPoint], out: &mut [[u8; 32]]) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::InvalidLength(ErrorField::Batch));
        }
        for (o, p) in out.iter_mut().zip(points) {
            let mut identity = Self::is_identity(p);
            crate::ct::declassify(&mut identity); // verdict only: an identity aborts the protocol
            if bool::from(identity) {
                return Err(Error::InvalidElement);
            }
            *o = p.compress().to_bytes();
        }
        Ok(())
    }

    fn deserialize_element(bytes: &[u8; 32]) -> Result<RistrettoPoint> {
        // `decompress` implements the RFC 9496 §4.3.1 decoding, which rejects
        // non-canonical field encodings, negative s and invalid points.
        let point = CompressedRistretto(*bytes).decompress().ok_or(Error::InvalidElement)?;
        if bool::from(Self::is_identity(&point)) {
            return Err(Error::InvalidElement);
        }
        Ok(point)
    }

    fn serialize_scalar(s: &Scalar) -> [u8; 32] {
        s.to_bytes()
    }

    fn deserialize_scalar(bytes: &[u8; 32]) -> Result<Scalar> {
        let s = Scalar::from_canonical_bytes(*bytes);
        let mut ok = s.is_some();
        // Verdict only: a secret scalar (an imported blind, a private key)
        // that is not canonical is an error, whose kind is all that leaves.
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            return Err(Error::InvalidScalar);
        }
        Ok(s.unwrap_or(Scalar::ZERO))
    }
}

const _: () = assert!(check_sizes::<Ristretto255Sha512>());

/// Variable-time multi-scalar multiplication for up to [`straus::MAX_TERMS`]
/// terms (Straus–Shamir interleaving with width-5 NAFs), built on the public
/// `RistrettoPoint` operations only.
///
/// For public data only: the digit pattern, the table lookups and the skipped
/// additions all depend on the scalars.
mod straus {
    use curve25519_dalek::ristretto::RistrettoPoint;
    use curve25519_dalek::scalar::Scalar;
    use curve25519_dalek::traits::Identity;

    /// Most terms in one interleaved pass: sixteen (about 24 KiB of stack for
    /// the tables and digits) where `precomputed-tables` trades memory for
    /// speed, two on the small-stack build.
    pub(super) const MAX_TERMS: usize = if cfg!(feature = "precomputed-tables") { 16 } else { 2 };
    /// NAF width.
    const W: u32 = 5;
    /// Odd multiples 1·P, 3·P, …, (2^(W-1) − 1)·P.
    const TABLE: usize = 1 << (W - 2);
    /// Digits: scalars are below 2^253, a NAF has at most one more digit.
    const DIGITS: usize = 256;

    /// Width-W non-adjacent form of a scalar: digits are zero or odd, with
    /// |d| < 2^(W-1), least significant first. `None` if the scalar does not
    /// fit (never for a reduced scalar).
    pub(super) fn naf_vartime(s: &Scalar) -> Option<[i8; DIGITS]> {
        let bytes = s.as_bytes();
        let mut limbs = [0u64; 5];
        for (limb, chunk) in limbs.iter_mut().zip(bytes.chunks_exact(8)) {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            *limb = u64::from_le_bytes(word);
        }
        let mut digits = [0i8; DIGITS];
        for digit in digits.iter_mut() {
            if limbs.iter().all(|l| *l == 0) {
                return Some(digits);
            }
            let low = limbs.first().copied().unwrap_or(0);
            if low & 1 == 1 {
                let window = low & ((1 << W) - 1);
                if window >= 1 << (W - 1) {
                    // d = window - 2^W < 0; k -= d adds 2^W - window.
                    add_small(&mut limbs, (1 << W) - window);
                    *digit = i8::try_from(window).ok()? - (1 << W);
                } else {
                    sub_small(&mut limbs, window);
                    *digit = i8::try_from(window).ok()?;
                }
            }
            shr1(&mut limbs);
        }
        limbs.iter().all(|l| *l == 0).then_some(digits)
    }

    fn add_small(limbs: &mut [u64; 5], v: u64) {
        let mut carry = v;
        for limb in limbs.iter_mut() {
            let (sum, overflow) = limb.overflowing_add(carry);
            *limb = sum;
            carry = u64::from(overflow);
        }
    }

    fn sub_small(limbs: &mut [u64; 5], v: u64) {
        let mut borrow = v;
        for limb in limbs.iter_mut() {
            let (diff, underflow) = limb.overflowing_sub(borrow);
            *limb = diff;
            borrow = u64::from(underflow);
        }
    }

    fn shr1(limbs: &mut [u64; 5]) {
        let mut carry = 0u64;
        for limb in limbs.iter_mut().rev() {
            let next = *limb & 1;
            *limb = (*limb >> 1) | (carry << 63);
            carry = next;
        }
    }

    /// `[P, 3P, 5P, …]`.
    ///
    /// Written in place and out of line: returned by value, the table was
    /// built in a temporary and copied, and both sat in the caller's frame.
    #[inline(never)]
    fn odd_multiples(p: &RistrettoPoint, table: &mut [RistrettoPoint; TABLE]) {
        let double = p + p;
        let mut acc = *p;
        for (i, entry) in table.iter_mut().enumerate() {
            if i > 0 {
                acc += double;
            }
            *entry = acc;
        }
    }

    /// `Σ s_i·P_i` for at most [`MAX_TERMS`] pairs; `None` if there are more.
    pub(super) fn lincomb_vartime(pairs: &[(RistrettoPoint, Scalar)]) -> Option<RistrettoPoint> {
        if pairs.len() > MAX_TERMS {
            return None;
        }
        let mut nafs = [[0i8; DIGITS]; MAX_TERMS];
        let mut tables = [[RistrettoPoint::identity(); TABLE]; MAX_TERMS];
        for ((naf_slot, table), (p, s)) in nafs.iter_mut().zip(tables.iter_mut()).zip(pairs) {
            *naf_slot = naf_vartime(s)?;
            odd_multiples(p, table);
        }
        let terms = pairs.len();
        let top = (0..DIGITS).rev().find(|&i| nafs.iter().take(terms).any(|n| n.get(i).is_some_and(|d| *d != 0)));
        let Some(top) = top else {
            return Some(RistrettoPoint::identity());
        };
        let mut acc = RistrettoPoint::identity();
        for i in (0..=top).rev() {
            acc = acc + acc;
            for (n, table) in nafs.iter().zip(tables.iter()).take(terms) {
                let d = n.get(i).copied()?;
                if d > 0 {
                    acc += table.get(usize::from(d.unsigned_abs() >> 1))?;
                } else if d < 0 {
                    acc -= table.get(usize::from(d.unsigned_abs() >> 1))?;
                }
            }
        }
        Some(acc)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn test_scalar(seed: u64) -> Scalar {
        Scalar::from_bytes_mod_order_wide(&Ristretto255Sha512::hash_parts(&[&seed.to_le_bytes()]))
    }

    #[test]
    fn naf_reconstructs_scalar() {
        let two = Scalar::from(2u64);
        let extremes = [Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(31u64)];
        for s in (0u64..64).map(test_scalar).chain(extremes) {
            let digits = straus::naf_vartime(&s).unwrap();
            let mut acc = Scalar::ZERO;
            for d in digits.iter().rev() {
                acc *= two;
                let mag = Scalar::from(u64::from(d.unsigned_abs()));
                if *d >= 0 {
                    acc += mag;
                } else {
                    acc -= mag;
                }
            }
            assert_eq!(acc, s);
        }
    }

    #[test]
    fn lincomb_matches_constant_time_multiplication() {
        let g = RistrettoPoint::mul_base(&test_scalar(1000));
        let h = RistrettoPoint::mul_base(&test_scalar(1001));
        for i in 0u64..16 {
            let (a, b) = (test_scalar(2 * i), test_scalar(2 * i + 1));
            let expected = g * a + h * b;
            let got = Ristretto255Sha512::lincomb_vartime(&[(g, a), (h, b)]).unwrap();
            assert_eq!(got.compress(), expected.compress());
            let got = Ristretto255Sha512::lincomb_vartime(&[(g, a), (h, b), (g, b)]).unwrap();
            assert_eq!(got.compress(), (expected + g * b).compress());
            let got = Ristretto255Sha512::lincomb_vartime(&[(h, a)]).unwrap();
            assert_eq!(got.compress(), (h * a).compress());
        }
        let zero = Ristretto255Sha512::lincomb_vartime(&[(g, Scalar::ZERO)]).unwrap();
        assert_eq!(zero, RistrettoPoint::identity());
    }

    #[test]
    fn lincomb_every_length_across_chunks() {
        // 0 to 2·MAX_TERMS + 1 terms, with repeated and opposite points, zero
        // and negated scalars: every chunking of the interleaved pass.
        let g = RistrettoPoint::mul_base(&test_scalar(2000));
        let points = [g, -g, g + g, RistrettoPoint::mul_base(&test_scalar(2001)), g];
        let pairs: [(RistrettoPoint, Scalar); 2 * straus::MAX_TERMS + 1] = core::array::from_fn(|i| {
            let s = if i % 5 == 3 { Scalar::ZERO } else { test_scalar(3000 + i as u64) };
            (points[i % points.len()], if i % 3 == 1 { -s } else { s })
        });
        for len in 0..=pairs.len() {
            let expected = pairs[..len].iter().fold(RistrettoPoint::identity(), |acc, (p, s)| acc + p * s);
            let got = Ristretto255Sha512::lincomb_vartime(&pairs[..len]).unwrap();
            assert_eq!(got.compress(), expected.compress(), "{len} terms");
        }
        // Terms that cancel: s·P + s·(−P).
        let s = test_scalar(7);
        let cancel = Ristretto255Sha512::lincomb_vartime(&[(g, s), (-g, s)]).unwrap();
        assert_eq!(cancel, RistrettoPoint::identity());
    }
}
