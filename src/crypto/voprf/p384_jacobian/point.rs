//! P-384 points in Jacobian coordinates on the own field arithmetic
//! ([`Fe`], `field.rs`): `crypto::jacobian`'s formulas (the doubling
//! `dbl-2001-b`, the mixed addition `madd-2007-bl`, the addition
//! `add-2007-bl`, batch normalization) instantiated on [`Fe`], and the
//! conversions from and to `p384`'s points. Both multiplications, the
//! constant-time and the variable-time one, are built on these.

use p384::elliptic_curve::point::AffineCoordinates;
use p384::{AffinePoint, ProjectivePoint};
use subtle::ConditionallySelectable;

pub(super) use super::field::Fe;
pub(super) use crate::crypto::jacobian::to_affine;
use crate::error::{Error, Result};

/// A P-384 point in Jacobian coordinates.
pub(super) type Jacobian = crate::crypto::jacobian::Jacobian<Fe>;
/// A P-384 affine point that is not the identity.
pub(super) type Affine = crate::crypto::jacobian::Affine<Fe>;

impl Affine {
    /// The coordinates of a non-identity affine point; `InvalidElement` for
    /// the identity (whose encoding `p384` gives as zeros).
    pub(super) fn from_affine(p: &AffinePoint) -> Result<Self> {
        if bool::from(p.is_identity()) {
            return Err(Error::InvalidElement);
        }
        let x = Option::<Fe>::from(Fe::from_bytes(&p.x().into())).ok_or(Error::InvalidElement)?;
        let y = Option::<Fe>::from(Fe::from_bytes(&p.y().into())).ok_or(Error::InvalidElement)?;
        Ok(Self { x, y })
    }
}

/// Normalizes a batch of results to affine form with one inversion and
/// writes them as `ProjectivePoint`s (the identity stays the identity).
pub(super) fn to_projective<const N: usize>(points: &[Jacobian; N], out: &mut [ProjectivePoint; N]) {
    let mut affine = [Affine::default(); N];
    to_affine(points, &mut affine);
    for ((o, a), p) in out.iter_mut().zip(&affine).zip(points) {
        let point = AffinePoint::from_coordinates(&a.x.to_bytes().into(), &a.y.to_bytes().into());
        let projective = ProjectivePoint::from(point.unwrap_or(AffinePoint::IDENTITY));
        *o = ProjectivePoint::conditional_select(&projective, &ProjectivePoint::IDENTITY, p.is_identity());
    }
}

/// A stand-in for unused batch slots (`Z = 1`, so it inverts; never output).
pub(super) const PAD: Jacobian = Jacobian::PAD;
