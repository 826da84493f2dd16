//! The P384-SHA384 ciphersuite (RFC 9497 §4.4).

use p384::elliptic_curve::consts::U72;
use p384::elliptic_curve::group::GroupEncoding;
use p384::elliptic_curve::ops::{MulByGeneratorVartime, ReduceNonZero};
use p384::elliptic_curve::point::AffineCoordinates;
use p384::elliptic_curve::{BatchNormalize, Group, PrimeField};
use p384::hash2curve::{ExpandMsgXmd, hash_to_scalar};
use p384::{AffinePoint, NistP384, ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use sha2::{Digest, Sha384};
use subtle::Choice;
use zeroize::Zeroize;

use super::p384_jacobian;
use super::suite::{Suite, SuiteOps, check_sizes, sealed};
use crate::error::{Error, Field as ErrorField, Result};

/// P384-SHA384 (RFC 9497 §4.4): NIST P-384 with `hash_to_curve`
/// `P384_XMD:SHA-384_SSWU_RO_` (RFC 9380), compressed SEC1 elements
/// (`Ne` = 49), big-endian scalars (`Ns` = 48) and SHA-384 (`Nh` = 48).
/// Privacy Pass token type 0x0001 (RFC 9578 §5).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct P384Sha384;

impl sealed::Sealed for P384Sha384 {}

/// Points are normalized to affine form in batches of this size, so that one
/// field inversion serves up to this many elements.
const NORMALIZE_BATCH: usize = 8;

impl Suite for P384Sha384 {
    const ID: &'static str = "P384-SHA384";
    const CONTEXT_STRING: &'static [u8] = b"OPRFV1-\x01-P384-SHA384";
    const NE: usize = 49;
    const NS: usize = 48;
    const NH: usize = 48;

    type Point = ProjectivePoint;
    type Scalar = Scalar;
    type ElementBytes = [u8; 49];
    type ScalarBytes = [u8; 48];
    type ProofBytes = [u8; 96];
    type Output = [u8; 48];
}

impl SuiteOps for P384Sha384 {
    type Prepared = p384_jacobian::Comb;

    fn hash_to_group(msg: &[&[u8]], dst: &[&[u8]]) -> Result<ProjectivePoint> {
        // RFC 9380 P384_XMD:SHA-384_SSWU_RO_ in Jacobian coordinates
        // (`p384_jacobian::hash_to_curve`), made affine once.
        p384_jacobian::hash_to_group(msg, dst)
    }

    fn hash_mul(msg: &[&[u8]], dst: &[&[u8]], k: &Scalar) -> Result<(ProjectivePoint, [u8; 49])> {
        // The constant-time Jacobian multiplication of `p384_jacobian` (about
        // 60% of `ProjectivePoint * Scalar`), one inversion for the result.
        p384_jacobian::hash_mul(msg, dst, k)
    }

    fn hash_to_scalar(msg: &[&[u8]], dst: &[&[u8]]) -> Result<Scalar> {
        // hash_to_field with L = 72 and expand_message_xmd(SHA-384) (RFC 9497 §4.4).
        hash_to_scalar::<NistP384, ExpandMsgXmd<Sha384>, U72>(msg, dst)
            .map_err(|_| Error::InvalidLength(ErrorField::Message))
    }

    fn hash_parts(msg: &[&[u8]]) -> [u8; 48] {
        let mut h = Sha384::new();
        for part in msg {
            h.update(part);
        }
        h.finalize().into()
    }

    fn random_scalar<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Scalar> {
        // RFC 9497 §4.7 allows rejection sampling or reduction. A 384-bit
        // string reduced into [1, n − 1] (`x mod (n − 1) + 1`, one constant-time
        // conditional subtraction) is within statistical distance 2^-190 of
        // uniform, the same order as the rejection probability of sampling;
        // unlike a rejection loop nothing here branches on the bytes.
        let mut buf = [0u8; 48];
        crate::rng::fill(rng, &mut buf)?;
        let s = <Scalar as ReduceNonZero<p384::FieldBytes>>::reduce_nonzero(&buf.into());
        buf.zeroize();
        Ok(s)
    }

    fn mul_base(s: &Scalar) -> ProjectivePoint {
        ProjectivePoint::mul_by_generator(s)
    }

    fn mul_base_add_vartime(a: &Scalar, b: &Scalar, p: &ProjectivePoint) -> ProjectivePoint {
        // One interleaved wNAF pass: `lincomb_vartime(&[(G, a), (p, b)])`.
        ProjectivePoint::mul_by_generator_and_mul_add_vartime(a, b, p)
    }

    #[cfg(feature = "precomputed-tables")]
    fn lincomb_vartime(pairs: &[(ProjectivePoint, Scalar)]) -> Result<ProjectivePoint> {
        // Jacobian Straus–Shamir over MSM_TERMS terms at a time (one chain of
        // doublings per chunk); public inputs only. About 15 KiB of stack for
        // four terms, so only with `precomputed-tables` (the feature that
        // trades memory for speed).
        let mut acc = ProjectivePoint::IDENTITY;
        for chunk in pairs.chunks(p384_jacobian::MSM_TERMS) {
            acc += p384_jacobian::lincomb_vartime(chunk)?;
        }
        Ok(acc)
    }

    #[cfg(not(feature = "precomputed-tables"))]
    fn lincomb_vartime(pairs: &[(ProjectivePoint, Scalar)]) -> Result<ProjectivePoint> {
        // The small-stack path (microcontrollers): p384's `LinearCombination`
        // is only implemented for fixed-size arrays without `alloc`, so the
        // sum is taken two terms at a time.
        use p384::elliptic_curve::ops::LinearCombination;
        let mut acc = ProjectivePoint::IDENTITY;
        let mut chunks = pairs.chunks_exact(2);
        for chunk in &mut chunks {
            let pair: &[(ProjectivePoint, Scalar); 2] =
                chunk.try_into().map_err(|_| Error::InvalidLength(ErrorField::Batch))?;
            acc += ProjectivePoint::lincomb_vartime(pair);
        }
        if let [single] = chunks.remainder() {
            acc += ProjectivePoint::lincomb_vartime(&[*single]);
        }
        Ok(acc)
    }

    fn mul_serialize(k: &Scalar, points: &[ProjectivePoint], out: &mut [[u8; 49]]) -> Result<()> {
        // Jacobian coordinates with affine tables (see `p384_jacobian`),
        // NORMALIZE_BATCH points per inversion.
        if points.len() != out.len() {
            return Err(Error::InvalidLength(ErrorField::Batch));
        }
        for (inp, out) in points.chunks(NORMALIZE_BATCH).zip(out.chunks_mut(NORMALIZE_BATCH)) {
            p384_jacobian::mul_serialize::<NORMALIZE_BATCH>(k, inp, out, p384_jacobian::Sent::Yes)?;
        }
        Ok(())
    }

    fn unblind_serialize(k: &Scalar, p: &ProjectivePoint, out: &mut [u8; 49]) -> Result<()> {
        p384_jacobian::mul_serialize::<1>(
            k,
            core::slice::from_ref(p),
            core::slice::from_mut(out),
            p384_jacobian::Sent::No,
        )
    }

    fn prepare(p: &ProjectivePoint) -> Result<p384_jacobian::Comb> {
        p384_jacobian::Comb::new(p)
    }

    fn prepared_mul(comb: &p384_jacobian::Comb, scalars: &[Scalar], out: &mut [ProjectivePoint]) -> Result<()> {
        p384_jacobian::prepared_mul(comb, scalars, out)
    }

    fn invert(s: &Scalar) -> Result<Scalar> {
        // `Scalar::invert` is the constant-time inversion (not `invert_vartime`).
        let inverse = s.invert();
        let mut ok = inverse.is_some();
        crate::ct::declassify(&mut ok); // verdict only: blinds are non-zero, a zero one is an error
        if bool::from(ok) { Ok(inverse.unwrap_or(Scalar::ZERO)) } else { Err(Error::InvalidScalar) }
    }

    fn scalar_is_zero(s: &Scalar) -> Choice {
        s.is_zero()
    }

    fn is_identity(p: &ProjectivePoint) -> Choice {
        p.is_identity()
    }

    fn serialize_elements(points: &[ProjectivePoint], out: &mut [[u8; 49]]) -> Result<()> {
        if points.len() != out.len() {
            return Err(Error::InvalidLength(ErrorField::Batch));
        }
        let mut identity = points.iter().fold(Choice::from(0), |acc, p| acc | p.is_identity());
        crate::ct::declassify(&mut identity); // verdict only: an identity aborts the protocol
        if bool::from(identity) {
            return Err(Error::InvalidElement);
        }
        // Batch normalization: one field inversion per NORMALIZE_BATCH points
        // instead of one per point. Unused slots hold the generator (Z = 1).
        for (chunk, out_chunk) in points.chunks(NORMALIZE_BATCH).zip(out.chunks_mut(NORMALIZE_BATCH)) {
            let mut batch = [ProjectivePoint::GENERATOR; NORMALIZE_BATCH];
            for (slot, p) in batch.iter_mut().zip(chunk) {
                *slot = *p;
            }
            let affine: [AffinePoint; NORMALIZE_BATCH] = ProjectivePoint::batch_normalize(&batch);
            for (o, a) in out_chunk.iter_mut().zip(affine.iter()) {
                *o = compress(a);
            }
        }
        Ok(())
    }

    fn deserialize_element(bytes: &[u8; 49]) -> Result<ProjectivePoint> {
        // Only the compressed form (tag 0x02 or 0x03) is canonical (RFC 9497
        // §4.4); this rejects the identity, uncompressed and compact forms
        // before parsing. `from_bytes` rejects x >= p and x not on the curve.
        if !matches!(bytes.first(), Some(0x02 | 0x03)) {
            return Err(Error::InvalidElement);
        }
        let affine =
            Option::<AffinePoint>::from(AffinePoint::from_bytes(&(*bytes).into())).ok_or(Error::InvalidElement)?;
        let point = ProjectivePoint::from(affine);
        if bool::from(point.is_identity()) {
            return Err(Error::InvalidElement);
        }
        Ok(point)
    }

    fn serialize_scalar(s: &Scalar) -> [u8; 48] {
        s.to_repr().into()
    }

    fn deserialize_scalar(bytes: &[u8; 48]) -> Result<Scalar> {
        let s = Scalar::from_repr((*bytes).into());
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

/// The compressed SEC1 encoding `0x02 | sgn(y) ‖ x` of a non-identity point,
/// without branching on `y`: `sec1`'s `EncodedPoint` (behind `to_bytes`)
/// validates the tag byte with a `match`, which leaks the parity of `y` for
/// secret points (found by the ctgrind harness).
fn compress(a: &AffinePoint) -> [u8; 49] {
    let mut out = [0x02 | a.y_is_odd().unwrap_u8(); 49];
    for (o, b) in out.iter_mut().skip(1).zip(a.x().iter()) {
        *o = *b;
    }
    out
}

const _: () = assert!(check_sizes::<P384Sha384>());
