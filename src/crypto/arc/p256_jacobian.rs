//! ARC's products on P-256 in Jacobian coordinates: `crypto::jacobian`'s
//! formulas, constant-time multiplication and variable-time multi-scalar
//! multiplication on fiat-crypto's P-256 field ([`Fe`]). Built only with
//! `precomputed-tables`, with the fixed-base tables they join
//! (`fixed_base`); the device build keeps primeorder's products, whose
//! stack it budgets.
//!
//! primeorder's complete formulas cost a doubling 8M + 3S and an addition
//! 12M plus products by b; here a doubling is 3M + 5S and a mixed addition
//! 7M + 4S. The exceptional cases are argued at
//! `crypto::jacobian::ct_mul::mul` (for P-256, `n ≡ 1 mod 16`, the last
//! digit's doubling case is `k = n − 2`; tested below) and handled by
//! branches in the variable-time code.

use core::ops::{Add, Mul, Neg, Sub};

#[cfg(not(target_pointer_width = "64"))]
use fiat_crypto::p256_32 as fiat;
#[cfg(target_pointer_width = "64")]
use fiat_crypto::p256_64 as fiat;
use p256::elliptic_curve::BatchNormalize;
use p256::elliptic_curve::ff::{Field, PrimeField};
use p256::elliptic_curve::hazmat::FieldArithmetic;
use p256::elliptic_curve::point::AffineCoordinates;
use p256::{AffinePoint, NistP256, ProjectivePoint, Scalar};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use super::fixed_base::MAX_VAR;
use crate::crypto::jacobian::msm::{NAF_W, ODD};
use crate::crypto::jacobian::{self, Coord};
use crate::error::{Error, Field as ErrorField, Result};
use fiat::{
    fiat_p256_montgomery_domain_field_element as Mont, fiat_p256_non_montgomery_domain_field_element as NonMont,
};

/// `p256`'s base-field element.
type P256Fe = <NistP256 as FieldArithmetic>::FieldElement;

/// A P-256 base-field element in fiat-crypto's Montgomery form (formally
/// verified, constant-time code: every operation inlines, where `p256`'s
/// field calls out to a Karatsuba product and a separate reduction; the
/// profile of the verifier had 70% of its time in those calls and in
/// `p256`'s out-of-line addition and subtraction). Conversions go through
/// the canonical encoding; inversion through `p256`'s (safegcd).
#[derive(Clone, Copy)]
pub(super) struct Fe(Mont);

impl core::fmt::Debug for Fe {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Fe(..)")
    }
}

impl Fe {
    const fn one() -> Self {
        let mut m = Mont([0; LIMBS]);
        fiat::fiat_p256_set_one(&mut m);
        Self(m)
    }

    /// From a canonical big-endian encoding (below p, as `p256` encodes
    /// its elements and coordinates), in constant time.
    fn from_be_bytes(be: &[u8; 32]) -> Self {
        let mut le = *be;
        le.reverse();
        let mut limbs = [0; LIMBS];
        fiat::fiat_p256_from_bytes(&mut limbs, &le);
        let mut m = Mont([0; LIMBS]);
        let mut n = NonMont(limbs);
        fiat::fiat_p256_to_montgomery(&mut m, &n);
        le.zeroize();
        limbs.zeroize();
        n.0.zeroize();
        Self(m)
    }

    /// From `p256`'s element, through its canonical encoding.
    fn from_p256(x: &P256Fe) -> Self {
        let mut be: [u8; 32] = x.to_repr().into();
        let fe = Self::from_be_bytes(&be);
        be.zeroize();
        fe
    }

    /// To `p256`'s element, through the canonical encoding.
    fn to_p256(self) -> P256Fe {
        let mut n = NonMont([0; LIMBS]);
        fiat::fiat_p256_from_montgomery(&mut n, &self.0);
        let mut le = [0u8; 32];
        fiat::fiat_p256_to_bytes(&mut le, &n.0);
        le.reverse();
        let x = P256Fe::from_repr(le.into()).unwrap_or(<P256Fe as Field>::ZERO);
        le.zeroize();
        n.0.zeroize();
        x
    }
}

/// Machine words in a field element.
#[cfg(target_pointer_width = "64")]
const LIMBS: usize = 4;
#[cfg(not(target_pointer_width = "64"))]
const LIMBS: usize = 8;

/// A P-256 point in Jacobian coordinates.
pub(super) type Jacobian = jacobian::Jacobian<Fe>;
type Affine = jacobian::Affine<Fe>;

/// Signed radix-16 digits of a scalar below 2^256: 64 nibbles and a carry.
const DIGITS: usize = 65;
/// A wNAF of a scalar below 2^256 has at most 257 digits.
const NAF_DIGITS: usize = 257;

impl Add for Fe {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        let mut out = Mont([0; LIMBS]);
        fiat::fiat_p256_add(&mut out, &self.0, &rhs.0);
        Self(out)
    }
}

impl Sub for Fe {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        let mut out = Mont([0; LIMBS]);
        fiat::fiat_p256_sub(&mut out, &self.0, &rhs.0);
        Self(out)
    }
}

impl Mul for Fe {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        let mut out = Mont([0; LIMBS]);
        fiat::fiat_p256_mul(&mut out, &self.0, &rhs.0);
        Self(out)
    }
}

impl Neg for Fe {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        let mut out = Mont([0; LIMBS]);
        fiat::fiat_p256_opp(&mut out, &self.0);
        Self(out)
    }
}

impl ConditionallySelectable for Fe {
    #[inline]
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mut out = [0; LIMBS];
        fiat::fiat_p256_selectznz(&mut out, choice.unwrap_u8(), &a.0.0, &b.0.0);
        Self(Mont(out))
    }
}

impl Zeroize for Fe {
    fn zeroize(&mut self) {
        self.0.0.zeroize();
    }
}

impl Coord for Fe {
    const ZERO: Self = Self(Mont([0; LIMBS]));
    const ONE: Self = Self::one();

    #[inline]
    fn square(&self) -> Self {
        let mut out = Mont([0; LIMBS]);
        fiat::fiat_p256_square(&mut out, &self.0);
        Self(out)
    }

    #[inline]
    fn double(&self) -> Self {
        *self + *self
    }

    #[inline]
    fn is_zero(&self) -> Choice {
        let mut any = 0;
        fiat::fiat_p256_nonzero(&mut any, &self.0.0);
        any.ct_eq(&0)
    }

    fn invert(&self) -> Self {
        Self::from_p256(&self.to_p256().invert().unwrap_or(<P256Fe as Field>::ZERO))
    }
}

/// The coordinates of an affine point; `None` for the identity. Constant
/// time but for that verdict.
fn affine_of(p: &AffinePoint) -> Option<Affine> {
    let mut identity = p.is_identity();
    crate::ct::declassify(&mut identity);
    if bool::from(identity) {
        return None;
    }
    // The coordinates' encodings are canonical: no range check (and no
    // branch on one) is needed.
    let (mut x, mut y): ([u8; 32], [u8; 32]) = (p.x().into(), p.y().into());
    let affine = Affine { x: Fe::from_be_bytes(&x), y: Fe::from_be_bytes(&y) };
    x.zeroize();
    y.zeroize();
    Some(affine)
}

/// The point `j` as a `ProjectivePoint`, with one inversion; constant time.
pub(super) fn to_projective(j: &Jacobian) -> ProjectivePoint {
    let mut a = [Affine::default()];
    jacobian::to_affine(&[*j], &mut a);
    let [mut a] = a;
    let point = AffinePoint::from_coordinates(&a.x.to_p256().to_repr(), &a.y.to_p256().to_repr());
    a.zeroize();
    // The formulas keep points on the curve; only the identity (Z = 0, whose
    // coordinates come out as (0, 0)) is not, and is selected.
    let p = ProjectivePoint::from(point.unwrap_or(AffinePoint::IDENTITY));
    ProjectivePoint::conditional_select(&p, &ProjectivePoint::IDENTITY, j.is_identity())
}

/// `k·P` in constant time (one inversion to make `P` affine, a table of
/// `1·P … 8·P`, 64 rounds of four doublings and a mixed addition).
/// `InvalidElement` for the identity, a public verdict (ARC's points are
/// decoded or computed elements, never the identity).
pub(super) fn mul(p: &ProjectivePoint, k: &Scalar) -> Result<Jacobian> {
    let mut table = jacobian::ct_mul::Table::new(&affine_of(&p.to_affine()).ok_or(Error::InvalidElement)?);
    let mut bytes = k.to_repr();
    let mut digits = jacobian::ct_mul::recode::<DIGITS>(&bytes);
    let product = jacobian::ct_mul::mul(&table, &digits);
    bytes.zeroize();
    digits.zeroize();
    table.zeroize();
    Ok(product)
}

/// `acc + q` for a public affine point (a fixed-base table's entry), every
/// case included; the identity adds nothing. Variable time.
pub(super) fn add_vartime(acc: &mut Jacobian, q: &AffinePoint) {
    if let Some(q) = affine_of(q) {
        *acc = jacobian::msm::add_vartime(acc, &q);
    }
}

/// `Σ s_i·P_i` for at most [`MAX_VAR`] public terms, as a Jacobian sum the
/// caller may add fixed-base rows to. Identity bases contribute nothing.
pub(super) fn lincomb_vartime(pairs: &[(ProjectivePoint, Scalar)]) -> Result<Jacobian> {
    if pairs.len() > MAX_VAR {
        return Err(Error::InvalidLength(ErrorField::Message));
    }
    let mut points = [ProjectivePoint::GENERATOR; MAX_VAR];
    for (b, (p, _)) in points.iter_mut().zip(pairs) {
        *b = *p;
    }
    let affine: [AffinePoint; MAX_VAR] = <ProjectivePoint as BatchNormalize<_>>::batch_normalize(&points);
    let mut bases = [None; MAX_VAR];
    let mut nafs = [[0i8; NAF_DIGITS]; MAX_VAR];
    for ((base, naf), (a, (_, s))) in bases.iter_mut().zip(nafs.iter_mut()).zip(affine.iter().zip(pairs)) {
        if let Some(p) = affine_of(a) {
            *base = Some(p);
            *naf = crate::crypto::naf::naf_vartime::<5, NAF_DIGITS>(&s.to_repr(), NAF_W);
        }
    }
    jacobian::msm::lincomb_vartime::<_, MAX_VAR, { MAX_VAR * ODD }, NAF_DIGITS>(&bases, &nafs)
}

#[cfg(test)]
mod tests {
    use p256::elliptic_curve::group::Group;
    use p256::elliptic_curve::ops::LinearCombination;

    use super::*;

    fn point(k: u64) -> ProjectivePoint {
        ProjectivePoint::GENERATOR * Scalar::from(k)
    }

    /// Edge scalars (0, 1, n − 1, n − 2: the last digit's doubling case,
    /// 15, 2^64 − 1) and two large ones.
    fn scalars() -> [Scalar; 8] {
        [
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            -Scalar::from(2u64),
            Scalar::from(15u64),
            Scalar::from(u64::MAX),
            Scalar::from(0x1234_5678_9abc_def0u64) * Scalar::from(u64::MAX) * Scalar::from(977u64),
            -Scalar::from(0xfeed_f00du64) * Scalar::from(u64::MAX),
        ]
    }

    #[test]
    fn constant_time_products_match_primeorder() {
        for p in [point(1), point(3), point(0xdead_beef)] {
            for k in scalars() {
                assert_eq!(to_projective(&mul(&p, &k).unwrap()), p * k);
            }
        }
        assert_eq!(mul(&ProjectivePoint::IDENTITY, &Scalar::ONE).unwrap_err(), Error::InvalidElement);
    }

    #[test]
    fn the_last_digits_doubling_case_is_n_minus_2() {
        // k = n − 2 ≡ −2: its last digit is −1 and the accumulator before
        // it is (n − 1)·P = −P ... i.e. acc = d_0·P, the case the last step
        // doubles for.
        let digits = jacobian::ct_mul::recode::<DIGITS>(&(-Scalar::from(2u64)).to_repr());
        assert_eq!(digits[0], -1);
        let p = point(7);
        assert_eq!(to_projective(&mul(&p, &-Scalar::from(2u64)).unwrap()), -p.double());
    }

    #[test]
    fn lincomb_matches_primeorder() {
        let points = [point(3), point(70), point(71), -point(3)];
        for a in scalars() {
            for b in scalars() {
                let pairs = [(points[0], a), (points[1], b), (points[2], a + b), (points[3], b)];
                for n in 0..=MAX_VAR {
                    let want = pairs[..n].iter().fold(ProjectivePoint::IDENTITY, |acc, (p, s)| acc + p * s);
                    assert_eq!(to_projective(&lincomb_vartime(&pairs[..n]).unwrap()), want, "n={n}");
                }
                let two = [(points[1], a), (points[2], b)];
                assert_eq!(to_projective(&lincomb_vartime(&two).unwrap()), ProjectivePoint::lincomb(&two));
            }
        }
    }

    /// The variable-time additions' exceptional cases: sums through the
    /// identity and through `acc = q`.
    #[test]
    fn exceptional_sums() {
        let p = point(5);
        let one = Scalar::ONE;
        assert_eq!(to_projective(&lincomb_vartime(&[(p, one), (p, one)]).unwrap()), p.double());
        assert_eq!(to_projective(&lincomb_vartime(&[(p, one), (-p, one)]).unwrap()), ProjectivePoint::IDENTITY);
        assert_eq!(to_projective(&lincomb_vartime(&[(p, one), (ProjectivePoint::IDENTITY, one)]).unwrap()), p);
        let mut acc = lincomb_vartime(&[(p, one)]).unwrap();
        add_vartime(&mut acc, &p.to_affine());
        assert_eq!(to_projective(&acc), p.double());
        add_vartime(&mut acc, &(-p.double()).to_affine());
        assert_eq!(to_projective(&acc), ProjectivePoint::IDENTITY);
        add_vartime(&mut acc, &p.to_affine());
        add_vartime(&mut acc, &AffinePoint::IDENTITY);
        assert_eq!(to_projective(&acc), p);
        assert!(lincomb_vartime(&[(p, one); MAX_VAR + 1]).is_err());
    }
}
