//! Variable-time multi-scalar multiplication `Σ s_i·P_i` on P-384:
//! Straus–Shamir interleaving of width-5 NAFs over one chain of doublings.
//! Public points and scalars only (blinded and evaluated elements,
//! composites, proof scalars); every function here is `_vartime`. Built only
//! with `precomputed-tables`, since each term takes about 3.6 KiB of stack.

use p384::elliptic_curve::ff::PrimeField;
use p384::{AffinePoint, ProjectivePoint, Scalar};

use super::point::{Affine, to_projective};
use crate::crypto::jacobian::msm::{NAF_W, ODD};
use crate::error::{Error, Result};

/// A wNAF of a scalar below 2^384 has at most 385 digits.
const NAF_DIGITS: usize = 385;
/// Most terms [`lincomb_vartime`] takes in one pass (one shared chain of
/// doublings). Each term costs about 3.6 KiB of stack (wNAF, Jacobian and
/// affine odd multiples, batch-inversion scratch), hence `precomputed-tables`
/// only: the Cortex-M build keeps p384's two-term combination.
pub(in crate::crypto::voprf) const MSM_TERMS: usize = 4;

/// Width-[`NAF_W`] non-adjacent form, least significant digit first
/// (`crypto::naf`, over seven limbs: six for the scalar, one for carries).
/// Variable time: public scalars only.
pub(super) fn naf_vartime(s: &Scalar) -> [i8; NAF_DIGITS] {
    crate::crypto::naf::naf_vartime::<7, NAF_DIGITS>(&s.to_repr(), NAF_W)
}

/// `Σ s_i·P_i` for at most [`MSM_TERMS`] terms (`crypto::jacobian::msm` on
/// the own field arithmetic). Variable time: the points and scalars must be
/// public (blinded and evaluated elements, composites, proof scalars).
pub(in crate::crypto::voprf) fn lincomb_vartime(pairs: &[(ProjectivePoint, Scalar)]) -> Result<ProjectivePoint> {
    if pairs.len() > MSM_TERMS {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut points = [ProjectivePoint::GENERATOR; MSM_TERMS];
    for (b, (p, _)) in points.iter_mut().zip(pairs) {
        *b = *p;
    }
    let affine: [AffinePoint; MSM_TERMS] =
        <ProjectivePoint as p384::elliptic_curve::BatchNormalize<_>>::batch_normalize(&points);
    // An identity base contributes nothing, as an unused slot.
    let mut bases = [None; MSM_TERMS];
    let mut nafs = [[0i8; NAF_DIGITS]; MSM_TERMS];
    for ((base, naf), (a, (_, s))) in bases.iter_mut().zip(nafs.iter_mut()).zip(affine.iter().zip(pairs)) {
        if let Ok(p) = Affine::from_affine(a) {
            *base = Some(p);
            *naf = naf_vartime(s);
        }
    }
    let acc =
        crate::crypto::jacobian::msm::lincomb_vartime::<_, MSM_TERMS, { MSM_TERMS * ODD }, NAF_DIGITS>(&bases, &nafs)?;
    let mut out = [ProjectivePoint::IDENTITY];
    to_projective(&[acc], &mut out);
    let [out] = out;
    Ok(out)
}
