//! Variable-time multi-scalar multiplication `Σ s_i·P_i` on P-384:
//! Straus–Shamir interleaving of width-5 NAFs over one chain of doublings.
//! Public points and scalars only (blinded and evaluated elements,
//! composites, proof scalars); every function here is `_vartime`. Built only
//! with `precomputed-tables`, since each term takes about 3.6 KiB of stack.

use p384::elliptic_curve::ff::PrimeField;
use p384::{AffinePoint, ProjectivePoint, Scalar};

use super::point::{Affine, Jacobian, PAD, to_affine, to_projective};
use crate::error::{Error, Result};

/// wNAF width of [`lincomb_vartime`]: digits are odd and below 2^4 in
/// absolute value, so each base needs `1·P, 3·P, …, 15·P`.
const NAF_W: u32 = 5;
/// Odd multiples per base.
const NAF_TABLE: usize = 1 << (NAF_W - 2);
/// A wNAF of a scalar below 2^384 has at most 385 digits.
const NAF_DIGITS: usize = 385;
/// Most terms [`lincomb_vartime`] takes in one pass (one shared chain of
/// doublings). Each term costs about 3.6 KiB of stack (wNAF, Jacobian and
/// affine odd multiples, batch-inversion scratch), hence `precomputed-tables`
/// only: the Cortex-M build keeps p384's two-term combination.
pub(in crate::crypto::voprf) const MSM_TERMS: usize = 4;

/// Width-[`NAF_W`] non-adjacent form, least significant digit first. Variable
/// time: public scalars only.
pub(super) fn naf_vartime(s: &Scalar) -> [i8; NAF_DIGITS] {
    let bytes = s.to_repr();
    // Little-endian 64-bit limbs, one spare for the carries of negative digits.
    let mut limbs = [0u64; 7];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.rchunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        *limb = u64::from_be_bytes(word);
    }
    let mut digits = [0i8; NAF_DIGITS];
    for digit in digits.iter_mut() {
        let low = limbs.first().copied().unwrap_or(0);
        if low & 1 == 1 {
            let window = low & ((1 << NAF_W) - 1);
            let d = if window >= 1 << (NAF_W - 1) { window.cast_signed() - (1 << NAF_W) } else { window.cast_signed() };
            // limbs -= d, exactly (d is odd and |d| < 16).
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

/// `acc + q` in variable time, exceptional cases included (the identity,
/// `acc = q` needs a doubling, `acc = −q` gives `Z = 0`).
fn add_vartime(acc: &Jacobian, q: &Affine) -> Jacobian {
    if bool::from(acc.is_identity()) {
        return Jacobian::from_affine(q);
    }
    let (sum, doubling) = acc.add_affine(q);
    if bool::from(doubling) { acc.double() } else { sum }
}

/// `Σ s_i·P_i` for at most [`MSM_TERMS`] terms: Straus–Shamir interleaving of
/// width-5 NAFs over one chain of doublings, odd multiples normalized to
/// affine form with one batch inversion so that every addition is mixed.
/// Variable time: the points and scalars must be public (blinded and
/// evaluated elements, composites, proof scalars).
pub(in crate::crypto::voprf) fn lincomb_vartime(pairs: &[(ProjectivePoint, Scalar)]) -> Result<ProjectivePoint> {
    if pairs.len() > MSM_TERMS {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut bases = [ProjectivePoint::GENERATOR; MSM_TERMS];
    for (b, (p, _)) in bases.iter_mut().zip(pairs) {
        *b = *p;
    }
    let affine: [AffinePoint; MSM_TERMS] =
        <ProjectivePoint as p384::elliptic_curve::BatchNormalize<_>>::batch_normalize(&bases);
    // An identity base contributes nothing: it keeps a zero wNAF.
    let mut nafs = [[0i8; NAF_DIGITS]; MSM_TERMS];
    let mut firsts = [Affine::default(); MSM_TERMS];
    let mut twos = [PAD; MSM_TERMS];
    for (((naf, first), two), (a, (_, s))) in
        nafs.iter_mut().zip(firsts.iter_mut()).zip(twos.iter_mut()).zip(affine.iter().zip(pairs))
    {
        if let Ok(p) = Affine::from_affine(a) {
            *naf = naf_vartime(s);
            *first = p;
            *two = Jacobian::from_affine(&p).double();
        }
    }
    let mut twos_affine = [Affine::default(); MSM_TERMS];
    to_affine(&twos, &mut twos_affine);
    // (2j+1)·P = (2j−1)·P + 2·P: never exceptional (that would need
    // (2j−3)·P or (2j+1)·P to be the identity, j ≤ 7).
    let mut odd = [PAD; MSM_TERMS * NAF_TABLE];
    for ((row, first), two) in odd.chunks_exact_mut(NAF_TABLE).zip(&firsts).zip(&twos_affine) {
        let mut acc = Jacobian::from_affine(first);
        for slot in row.iter_mut() {
            *slot = acc;
            acc = acc.add_affine(two).0;
        }
    }
    let mut tables = [Affine::default(); MSM_TERMS * NAF_TABLE];
    to_affine(&odd, &mut tables);

    let top = (0..NAF_DIGITS).rev().find(|&i| nafs.iter().any(|n| n.get(i).is_some_and(|d| *d != 0)));
    let mut acc = Jacobian::IDENTITY;
    if let Some(top) = top {
        for i in (0..=top).rev() {
            if !bool::from(acc.is_identity()) {
                acc = acc.double();
            }
            for (naf, table) in nafs.iter().zip(tables.chunks_exact(NAF_TABLE)) {
                let d = naf.get(i).copied().unwrap_or(0);
                if d != 0 {
                    let mut q = *table.get(usize::from(d.unsigned_abs() >> 1)).ok_or(Error::InvalidElement)?;
                    if d < 0 {
                        q.y = -q.y;
                    }
                    acc = add_vartime(&acc, &q);
                }
            }
        }
    }
    let mut out = [ProjectivePoint::IDENTITY];
    to_projective(&[acc], &mut out);
    let [out] = out;
    Ok(out)
}
