//! P-384 points in Jacobian coordinates on the own field arithmetic
//! ([`Fe`], `field.rs`):
//! the doubling `dbl-2001-b` and the mixed addition `madd-2007-bl` for
//! `a = −3` (the names of the Explicit-Formulas Database), and the batch
//! normalization to affine form with one inversion. Both multiplications,
//! the constant-time and the variable-time one, are built on these.

use p384::elliptic_curve::point::AffineCoordinates;
use p384::{AffinePoint, ProjectivePoint};
use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

pub(super) use super::field::Fe;
use super::field::batch_invert;
use crate::error::{Error, Result};

/// `(X : Y : Z)` with `x = X/Z²`, `y = Y/Z³`; `Z = 0` is the identity.
#[derive(Clone, Copy, Debug)]
pub(super) struct Jacobian {
    x: Fe,
    y: Fe,
    z: Fe,
}

/// An affine point `(x, y)` that is not the identity.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Affine {
    pub(super) x: Fe,
    pub(super) y: Fe,
}

impl Zeroize for Affine {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
    }
}

impl Zeroize for Jacobian {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

impl ConditionallySelectable for Affine {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self { x: Fe::conditional_select(&a.x, &b.x, choice), y: Fe::conditional_select(&a.y, &b.y, choice) }
    }
}

impl ConditionallySelectable for Jacobian {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self {
            x: Fe::conditional_select(&a.x, &b.x, choice),
            y: Fe::conditional_select(&a.y, &b.y, choice),
            z: Fe::conditional_select(&a.z, &b.z, choice),
        }
    }
}

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

impl Jacobian {
    pub(super) const IDENTITY: Self = Self { x: Fe::ONE, y: Fe::ONE, z: Fe::ZERO };

    pub(super) fn from_affine(p: &Affine) -> Self {
        Self { x: p.x, y: p.y, z: Fe::ONE }
    }

    pub(super) fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    /// `2·self`, `dbl-2001-b` for `a = −3` (3M + 5S). Complete on a curve of
    /// odd order: the identity (`Z = 0`) gives `Z3 = (Y + 0)² − Y² − 0 = 0`.
    pub(super) fn double(&self) -> Self {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x * gamma;
        let alpha = (self.x - delta) * (self.x + delta);
        let alpha = alpha.double() + alpha;
        let beta4 = beta.double().double();
        let x = alpha.square() - beta4.double();
        let z = (self.y + self.z).square() - gamma - delta;
        let y = alpha * (beta4 - x) - gamma.square().double().double().double();
        Self { x, y, z }
    }

    /// `self + q` for an affine `q`, `madd-2007-bl` (7M + 4S), and whether
    /// the formula hit the doubling case (`H = 0` and `r = 0`, i.e.
    /// `self = q`). Correct when `self ≠ ±q` and `self` is not the identity;
    /// for `self = −q` it gives `Z3 = 0`, the identity, which is also right.
    pub(super) fn add_affine(&self, q: &Affine) -> (Self, Choice) {
        let z1z1 = self.z.square();
        let u2 = q.x * z1z1;
        let s2 = q.y * self.z * z1z1;
        let h = u2 - self.x;
        let hh = h.square();
        let i = hh.double().double();
        let j = h * i;
        let r = (s2 - self.y).double();
        let v = self.x * i;
        let x = r.square() - j - v.double();
        let y = r * (v - x) - (self.y * j).double();
        let z = (self.z + h).square() - z1z1 - hh;
        (Self { x, y, z }, h.is_zero() & r.is_zero())
    }
}

impl Jacobian {
    /// `self + q` for Jacobian `q`, `add-2007-bl` (11M + 5S), and whether the
    /// formula hit the doubling case (`H = 0` and `r = 0`, i.e. `self = q`).
    /// Correct when `self ≠ ±q` and neither is the identity; for `self = −q`
    /// it gives `Z3 = 0`, the identity, which is also right.
    pub(super) fn add(&self, q: &Self) -> (Self, Choice) {
        let z1z1 = self.z.square();
        let z2z2 = q.z.square();
        let u1 = self.x * z2z2;
        let u2 = q.x * z1z1;
        let s1 = self.y * q.z * z2z2;
        let s2 = q.y * self.z * z1z1;
        let h = u2 - u1;
        let i = h.double().square();
        let j = h * i;
        let r = (s2 - s1).double();
        let v = u1 * i;
        let x = r.square() - j - v.double();
        let y = r * (v - x) - (s1 * j).double();
        let z = ((self.z + q.z).square() - z1z1 - z2z2) * h;
        (Self { x, y, z }, h.is_zero() & r.is_zero())
    }

    /// `(X·Z, Y·Z², Z)` for the point `(x, y) = (X/Z, Y/Z)` given as a
    /// fraction with a common denominator (a homogeneous projective point);
    /// `Z = 0` gives the identity.
    pub(super) fn from_fraction(x: Fe, y: Fe, z: Fe) -> Self {
        Self { x: x * z, y: y * z.square(), z }
    }
}

/// Normalizes Jacobian points with one batch inversion. Identities come out
/// as `(0, 0)` (their `Z` inverts to zero); callers never pass one, or check
/// `Z` themselves.
pub(super) fn to_affine<const N: usize>(points: &[Jacobian; N], out: &mut [Affine; N]) {
    let mut zs = points.map(|p| p.z);
    batch_invert(&mut zs);
    for ((o, p), zinv) in out.iter_mut().zip(points).zip(zs) {
        let zinv2 = zinv.square();
        o.x = p.x * zinv2;
        o.y = p.y * zinv2 * zinv;
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
pub(super) const PAD: Jacobian = Jacobian { x: Fe::ONE, y: Fe::ONE, z: Fe::ONE };
