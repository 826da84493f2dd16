//! Constant-time variable-base scalar multiplication on P-384 in Jacobian
//! coordinates, for the issuer (`k·B_i`, `k·M`, `t·M`, and `k·HashToGroup(x)`
//! when it checks a token) and the client (`r·HashToGroup(x)` when it blinds, `blind⁻¹·Z` when it unblinds).
//!
//! `p384`'s `ProjectivePoint * Scalar` uses the complete Renes–Costello–Batina
//! formulas: no exceptional cases, but a doubling costs 8M + 3S + 2·(mul by
//! b) and an addition 12M + 2·(mul by b). In Jacobian coordinates with
//! `a = −3` a doubling is 3M + 5S (`dbl-2001-b`) and the addition of an
//! affine point 7M + 4S (`madd-2007-bl`). The doubling has no exceptional
//! case on a prime-order curve (the identity, `Z = 0`, doubles to itself);
//! the mixed addition is wrong for `P = ±Q` and for the identity. Why those
//! cases cannot occur, or are selected away in constant time, is argued at
//! [`mul`]. The field arithmetic is the own `field.rs` (a product-scanning
//! Montgomery multiplication specialized to the P-384 prime, constant time;
//! its module doc says why not `p384`'s and what it gains).
//!
//! The table of `1·P … 8·P` is normalized to affine form with one batch
//! inversion (`p384`'s safegcd, about 95 K instructions), so every addition
//! in the main loop is a mixed one.
//! Nothing is static: a table is 8 affine points (768 bytes) on the stack.
//! The variable-time multi-scalar multiplication needs more stack and is only
//! built with `precomputed-tables`.
//!
//! # Why not `primeorder`
//!
//! `primeorder` (RustCrypto's arithmetic for prime-order short Weierstrass
//! curves, behind `p384::ProjectivePoint`) does this job: constant-time
//! `Mul<Scalar>` with complete formulas, and `LinearCombination` for sums of
//! products. It is used for everything else (hash-to-curve, `k·G` with its
//! precomputed table, encodings, ECDSA). This module replaces only the three
//! multiplications that dominate issuance and finalization, because the
//! complete formulas cost about 60% more per scalar multiplication here.
//! The instruction counts of each of these against `primeorder` are in
//! `docs/reports/2026-12-01-crypto-design-measurements.md`.
//!
//! The cost is code to review: the exceptional cases of the incomplete
//! formulas are argued in [`ct_mul`] and tested adversarially (`adversarial.rs`).
//!
//! One job per file:
//! - `field`: the base field (Montgomery form, inversion, the square-root
//!   power);
//! - [`point`]: the point types, the two formulas and batch normalization;
//! - [`ct_mul`]: the constant-time fixed-window multiplication and the
//!   [`Comb`] for several multiplications of one point;
//! - `msm_vartime`: the variable-time multi-scalar multiplication, for public
//!   inputs only;
//! - [`hash_to_curve`]: RFC 9380 `P384_XMD:SHA-384_SSWU_RO_` into Jacobian
//!   coordinates (no inversion per map, an addition chain for the square root);
//! - this file: the batch entry points the suite calls, which share one
//!   inversion among all their results.

mod ct_mul;
mod field;
mod hash_to_curve;
#[cfg(feature = "precomputed-tables")]
mod msm_vartime;
mod point;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests;

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod field_tests;

#[cfg(all(test, feature = "std"))]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod adversarial;

use p384::elliptic_curve::point::AffineCoordinates;
use p384::{AffinePoint, ProjectivePoint, Scalar};

use crate::error::{Error, Result};
use ct_mul::{Table, mul};
use hash_to_curve::hash_to_curve;
use point::{Affine, PAD, to_affine, to_projective};
use zeroize::Zeroize;

pub(crate) use ct_mul::Comb;
#[cfg(feature = "precomputed-tables")]
pub(super) use msm_vartime::{MSM_TERMS, lincomb_vartime};

/// Whether the products of [`mul_serialize`] are sent (an issuer's evaluated
/// elements, public once computed) or stay secret (a client's unblinded
/// elements).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Sent {
    /// Sent: declassified for the constant-time checks after encoding.
    Yes,
    /// Kept secret.
    No,
}

/// `out_i = SerializeElement(k·P_i)` for up to `N` points: one batch
/// normalization of the inputs, a [`Table`] and a [`mul`] per point, one
/// batch inversion for the results, and the compressed SEC1 encoding written
/// directly. `InvalidElement` if a result is the identity.
pub(super) fn mul_serialize<const N: usize>(
    k: &Scalar,
    points: &[ProjectivePoint],
    out: &mut [[u8; 49]],
    sent: Sent,
) -> Result<()> {
    if points.len() > N || points.len() != out.len() {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut inputs = [ProjectivePoint::GENERATOR; N];
    for (slot, p) in inputs.iter_mut().zip(points) {
        *slot = *p;
    }
    let affine: [AffinePoint; N] =
        <ProjectivePoint as p384::elliptic_curve::BatchNormalize<_>>::batch_normalize(&inputs);
    let mut products = [PAD; N];
    let mut normal = [Affine::default(); N];
    let result = (|| {
        for (prod, a) in products.iter_mut().zip(&affine).take(points.len()) {
            *prod = mul(&Table::new(&Affine::from_affine(a)?), k);
        }
        to_affine(&products, &mut normal);
        for ((o, a), p) in out.iter_mut().zip(&normal).zip(&products) {
            let mut is_identity = p.is_identity();
            // Whether k·B_i is the identity is public: an issuer's C_i is sent (or
            // refused), and a client's unblinded element never is (its inputs are not).
            crate::ct::declassify(&mut is_identity);
            if bool::from(is_identity) {
                return Err(Error::InvalidElement);
            }
            let (tag, x) = o.split_at_mut(1);
            tag.fill(0x02 | a.y.is_odd().unwrap_u8());
            x.copy_from_slice(&a.x.to_bytes());
            if sent == Sent::Yes {
                // C_i = k·B_i is sent to the client.
                crate::ct::declassify(o);
            }
        }
        Ok(())
    })();
    // A client's unblinded elements determine its outputs: wipe the products
    // in every case (the encoded ones are the caller's).
    products.zeroize();
    normal.zeroize();
    result
}

/// `(k·HashToGroup(msg), SerializeElement(k·HashToGroup(msg)))` (RFC 9497
/// `Blind` and `Evaluate`): the hash to the curve, a [`Table`] of its result,
/// one [`mul`] and one inversion for the product. Constant time in `k` and in
/// the hashed point. `InvalidElement` if the hashed point is the identity
/// (`InvalidInputError`, RFC 9497 §3.3.1) or the product is (only for `k = 0`);
/// both verdicts are public.
pub(super) fn hash_mul(msg: &[&[u8]], dst: &[&[u8]], k: &Scalar) -> Result<(ProjectivePoint, [u8; 49])> {
    let p = hash_to_curve(msg, dst)?;
    let mut is_identity = p.is_identity();
    crate::ct::declassify(&mut is_identity); // verdict only: InvalidInputError aborts
    if bool::from(is_identity) {
        return Err(Error::InvalidElement);
    }
    let mut product = [mul(&Table::from_jacobian(&p), k)];
    let mut is_identity = product[0].is_identity();
    crate::ct::declassify(&mut is_identity); // verdict only: the protocol aborts on it
    if bool::from(is_identity) {
        product.zeroize();
        return Err(Error::InvalidElement);
    }
    let mut normal = [Affine::default()];
    to_affine(&product, &mut normal);
    let [mut a] = normal;
    let mut out = [0x02 | a.y.is_odd().unwrap_u8(); 49];
    let (_, x) = out.split_at_mut(1);
    x.copy_from_slice(&a.x.to_bytes());
    let point = AffinePoint::from_coordinates(&a.x.to_bytes().into(), &a.y.to_bytes().into());
    // k·H(x) is the client's blinded element or the issuer's evaluation that
    // determines a token's authenticator: the caller wipes what it is given,
    // these copies are wiped here.
    product.zeroize();
    normal.zeroize();
    a.zeroize();
    Ok((ProjectivePoint::from(point.unwrap_or(AffinePoint::IDENTITY)), out))
}

/// `HashToGroup(msg)` as a `ProjectivePoint`: [`hash_to_curve`] and one
/// inversion (the identity stays the identity; the caller checks).
pub(super) fn hash_to_group(msg: &[&[u8]], dst: &[&[u8]]) -> Result<ProjectivePoint> {
    let mut out = [ProjectivePoint::IDENTITY];
    to_projective(&[hash_to_curve(msg, dst)?], &mut out);
    let [p] = out;
    Ok(p)
}

/// Most scalars [`prepared_mul`] takes at once.
pub(super) const SAME_BASE_MAX: usize = 4;

/// `out_i = s_i·P` for up to [`SAME_BASE_MAX`] scalars with the [`Comb`] of
/// `P` and one batch inversion for the results, in constant time.
pub(super) fn prepared_mul(comb: &Comb, scalars: &[Scalar], out: &mut [ProjectivePoint]) -> Result<()> {
    if scalars.len() > SAME_BASE_MAX || out.len() != scalars.len() {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut products = [PAD; SAME_BASE_MAX];
    for (prod, s) in products.iter_mut().zip(scalars) {
        *prod = comb.mul(s);
    }
    let mut projective = [ProjectivePoint::IDENTITY; SAME_BASE_MAX];
    to_projective(&products, &mut projective);
    for (o, q) in out.iter_mut().zip(projective) {
        *o = q;
    }
    Ok(())
}
