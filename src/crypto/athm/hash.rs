//! ATHM's parameters, hashing and random scalars (draft-yun-cfrg-athm-00
//! §3.1, §4).
//!
//! `HashToScalar` is RFC 9380's `hash_to_field` with `expand_message_xmd`
//! over SHA-256 (L = 48), as RustCrypto's `hash_to_scalar` computes it; the
//! issuance proof's transcript grows with the number of buckets, so it is
//! fed to SHA-256 as it is built instead of being collected into one
//! buffer first (a unit test checks this against `p256::hash2curve`).

use p256::elliptic_curve::array::Array;
use p256::elliptic_curve::group::Group as _;
use p256::elliptic_curve::{Field as _, PrimeField};
use p256::hash2curve::{ExpandMsgXmd, hash_from_bytes};
use p256::{NistP256, ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use zeroize::Zeroize;

use crate::crypto::arc::group::{Elem, NE, NS, generator_g, reduce_wide};
use crate::error::{Error, Field, Result, RngCode};

/// The prefix of every context string.
const CONTEXT_PREFIX: &[u8] = b"ATHMV1-P256-";

/// The largest deployment id (§3.1: its length must fit in one byte).
pub const MAX_DEPLOYMENT_ID_LEN: usize = 255;

/// A deployment's parameters: the number of metadata values `N` (1 to 255,
/// the type parameter) and the deployment id, which together make the
/// context string `"ATHMV1-P256-" ‖ decimal(N) ‖ "-" ‖ deploymentId` that
/// separates every hash, and generatorH derived from it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params<'a, const N: usize> {
    deployment_id: &'a [u8],
    digits: [u8; 3],
    digits_len: usize,
    pub(crate) h: Elem,
}

impl<'a, const N: usize> Params<'a, N> {
    /// The parameters for `deployment_id` with `N` buckets:
    /// `InvalidValue(HiddenMetadata)` unless 1 ≤ `N` ≤ 255,
    /// `InvalidLength(DeploymentId)` for an id over 255 bytes.
    pub fn new(deployment_id: &'a [u8]) -> Result<Self> {
        let n = u8::try_from(N).map_err(|_| Error::InvalidValue(Field::HiddenMetadata))?;
        if n == 0 {
            return Err(Error::InvalidValue(Field::HiddenMetadata));
        }
        if deployment_id.len() > MAX_DEPLOYMENT_ID_LEN {
            return Err(Error::InvalidLength(Field::DeploymentId));
        }
        let (digits, digits_len) = decimal(n);
        let mut params = Self { deployment_id, digits, digits_len, h: generator_g() };
        let g = generator_g();
        let dst = params.dst(b"HashToGroup-", b"generatorH");
        let h = hash_from_bytes::<NistP256, ExpandMsgXmd<Sha256>>(&[&g.bytes], &dst)
            .map_err(|_| Error::InvalidLength(Field::DeploymentId))?;
        params.h = Elem::public(h)?;
        Ok(params)
    }

    /// The deployment id.
    pub fn deployment_id(&self) -> &'a [u8] {
        self.deployment_id
    }

    /// `SerializeElement(generatorH)`.
    pub fn generator_h(&self) -> [u8; NE] {
        self.h.bytes
    }

    /// The number of buckets, `N`.
    pub const fn buckets(&self) -> usize {
        N
    }

    /// The pieces of `prefix ‖ contextString ‖ info`.
    fn dst<'s>(&'s self, prefix: &'s [u8], info: &'s [u8]) -> [&'s [u8]; 6] {
        [prefix, CONTEXT_PREFIX, self.digits.get(..self.digits_len).unwrap_or_default(), b"-", self.deployment_id, info]
    }
}

/// `SerializeElement(generatorG)`, the P-256 base point compressed.
pub fn generator_g_bytes() -> [u8; NE] {
    generator_g().bytes
}

/// `n` in decimal without leading zeros.
fn decimal(n: u8) -> ([u8; 3], usize) {
    let (h, t, u) = (n / 100, (n / 10) % 10, n % 10);
    if h > 0 {
        ([b'0' + h, b'0' + t, b'0' + u], 3)
    } else if t > 0 {
        ([b'0' + t, b'0' + u, 0], 2)
    } else {
        ([b'0' + u, 0, 0], 1)
    }
}

const _: () = assert!(NE == 33 && NS == 32, "the transcript writes these lengths as constants");

/// A Fiat–Shamir transcript: each item is `I2OSP(len, 2) ‖ item`, absorbed
/// into `expand_message_xmd`'s first hash as it comes.
pub(crate) struct Transcript(Sha256);

impl Transcript {
    pub(crate) fn new() -> Self {
        let mut h = Sha256::new();
        h.update([0u8; 64]); // Z_pad: SHA-256's block size
        Self(h)
    }

    pub(crate) fn element(&mut self, e: &Elem) {
        self.0.update([0, 33]); // I2OSP(Ne, 2)
        self.0.update(e.bytes);
    }

    pub(crate) fn scalar(&mut self, s: &[u8; NS]) {
        self.0.update([0, 32]); // I2OSP(Ns, 2)
        self.0.update(s);
    }

    /// `HashToScalar(transcript, info)`.
    pub(crate) fn challenge<const N: usize>(self, params: &Params<'_, N>, info: &[u8]) -> Scalar {
        let parts = params.dst(b"HashToScalar-", info);
        let total: usize = parts.iter().map(|p| p.len()).sum();
        // RFC 9380 §5.3.3: a DST over 255 bytes is replaced by its hash.
        let mut short = [0u8; 32];
        let oversize = total > 255;
        if oversize {
            let mut h = Sha256::new();
            h.update(b"H2C-OVERSIZE-DST-");
            for p in parts {
                h.update(p);
            }
            short = h.finalize().into();
        }
        let dst_len = if oversize { 32u8 } else { u8::try_from(total).unwrap_or(u8::MAX) };
        let dst = |h: &mut Sha256| {
            if oversize {
                h.update(short);
            } else {
                for p in parts {
                    h.update(p);
                }
            }
            h.update([dst_len]);
        };
        let mut h0 = self.0;
        h0.update([0, 48, 0]); // I2OSP(L = 48, 2) ‖ I2OSP(0, 1)
        dst(&mut h0);
        let b0: [u8; 32] = h0.finalize().into();
        let mut h1 = Sha256::new();
        h1.update(b0);
        h1.update([1]);
        dst(&mut h1);
        let b1: [u8; 32] = h1.finalize().into();
        let mut mixed = [0u8; 32];
        for ((m, x), y) in mixed.iter_mut().zip(b0).zip(b1) {
            *m = x ^ y;
        }
        let mut h2 = Sha256::new();
        h2.update(mixed);
        h2.update([2]);
        dst(&mut h2);
        let b2: [u8; 32] = h2.finalize().into();
        let mut uniform = [0u8; 48];
        let (lo, hi) = uniform.split_at_mut(32);
        lo.copy_from_slice(&b1);
        hi.copy_from_slice(b2.get(..16).unwrap_or_default());
        reduce_wide(&uniform)
    }
}

/// Draws before a generator is taken as stuck: an honest one is redrawn with
/// probability about 2^-32 per draw.
const MAX_DRAWS: usize = 64;

/// `RandomScalar` as the reference code draws it: 32 bytes read big-endian,
/// redrawn when not below the order (zero is possible).
pub(crate) fn random_scalar<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Scalar> {
    for _ in 0..MAX_DRAWS {
        let mut bytes = [0u8; NS];
        crate::rng::fill(rng, &mut bytes)?;
        let s = Scalar::from_repr(Array::from(bytes));
        bytes.zeroize();
        let mut ok = s.is_some();
        crate::ct::declassify(&mut ok);
        if bool::from(ok) {
            return Ok(s.unwrap_or(Scalar::ZERO));
        }
    }
    Err(Error::Rng(RngCode::EXHAUSTED))
}

/// `RandomNonzeroScalar`: [`random_scalar`] until it is not zero.
pub(crate) fn random_nonzero_scalar<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Scalar> {
    for _ in 0..MAX_DRAWS {
        let s = random_scalar(rng)?;
        let mut zero = s.is_zero();
        crate::ct::declassify(&mut zero);
        if !bool::from(zero) {
            return Ok(s);
        }
    }
    Err(Error::Rng(RngCode::EXHAUSTED))
}

/// `x·G`, constant time.
pub(crate) fn mul_g(x: &Scalar) -> ProjectivePoint {
    ProjectivePoint::mul_by_generator(x)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;
    use p256::elliptic_curve::consts::U48;
    use p256::hash2curve::hash_to_scalar;

    #[test]
    fn streamed_hash_to_scalar_matches_the_crate() {
        let long_id = [b'x'; 255];
        for id in [&b"test_vector_deployment_id"[..], b"", &long_id[..200], &long_id[..]] {
            let params = Params::<4>::new(id).unwrap();
            let g = generator_g();
            for items in 0..6usize {
                let mut t = Transcript::new();
                let mut flat = std::vec::Vec::new();
                for i in 0..items {
                    if i % 2 == 0 {
                        t.element(&g);
                        flat.extend_from_slice(&[0, 33]);
                        flat.extend_from_slice(&g.bytes);
                    } else {
                        let s = [u8::try_from(i).unwrap(); 32];
                        t.scalar(&s);
                        flat.extend_from_slice(&[0, 32]);
                        flat.extend_from_slice(&s);
                    }
                }
                let got = t.challenge(&params, b"TokenResponseProof");
                let dst = params.dst(b"HashToScalar-", b"TokenResponseProof");
                let want = hash_to_scalar::<NistP256, ExpandMsgXmd<Sha256>, U48>(&[&flat], &dst).unwrap();
                assert_eq!(got, want, "id {} items {items}", id.len());
            }
        }
    }

    #[test]
    fn context_digits() {
        assert_eq!(decimal(4), (*b"4\0\0", 1));
        assert_eq!(decimal(10), (*b"10\0", 2));
        assert_eq!(decimal(255), (*b"255", 3));
        assert_eq!(decimal(100), (*b"100", 3));
        assert_eq!(Params::<0>::new(b"").err(), Some(Error::InvalidValue(Field::HiddenMetadata)));
        assert_eq!(Params::<256>::new(b"").err(), Some(Error::InvalidValue(Field::HiddenMetadata)));
        assert_eq!(Params::<4>::new(&[0; 256]).err(), Some(Error::InvalidLength(Field::DeploymentId)));
        assert!(Params::<255>::new(&[0; 255]).is_ok());
        assert!(Params::<1>::new(b"").is_ok());
    }

    #[test]
    fn generator_h_of_the_vectors() {
        let p = Params::<4>::new(b"test_vector_deployment_id").unwrap();
        let want = "02361fc6831d3796a82612dffb231ec67253b2f69dbb124c9a0f9917b4e3180d03";
        let want: std::vec::Vec<u8> =
            (0..want.len()).step_by(2).map(|i| u8::from_str_radix(&want[i..i + 2], 16).unwrap()).collect();
        assert_eq!(p.generator_h()[..], want[..]);
    }
}
