//! Short Weierstrass points with `a = −3` in Jacobian coordinates, over any
//! prime field given as a [`Coord`]: the doubling `dbl-2001-b`, the mixed
//! addition `madd-2007-bl` and the addition `add-2007-bl` (the names of the
//! Explicit-Formulas Database), batch normalization with one inversion, the
//! constant-time fixed-window multiplication ([`ct_mul`]) and, with
//! `precomputed-tables`, the variable-time multi-scalar multiplication
//! ([`msm`]). Two curves use them: P-384 for the VOPRF
//! (`crypto::voprf::p384_jacobian`, on its own field arithmetic) and P-256
//! for ARC (`crypto::arc::p256_jacobian`, on fiat-crypto's P-256 field).
//!
//! Why not the curve crates' `ProjectivePoint`: primeorder's complete
//! Renes–Costello–Batina formulas cost a doubling 8M + 3S and an addition
//! 12M (plus products by b), against 3M + 5S and 7M + 4S here. The price is
//! the incomplete formulas' exceptional cases (the identity, `P = ±Q`),
//! argued where each multiplication is and tested adversarially.

pub(crate) mod ct_mul;
#[cfg(feature = "precomputed-tables")]
pub(crate) mod msm;

use core::ops::{Add, Mul, Neg, Sub};

use subtle::{Choice, ConditionallySelectable};
use zeroize::Zeroize;

/// A prime-field element as the formulas need it. Constant time throughout.
pub(crate) trait Coord:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Neg<Output = Self>
    + ConditionallySelectable
    + Zeroize
{
    const ZERO: Self;
    const ONE: Self;
    fn square(&self) -> Self;
    fn double(&self) -> Self;
    fn is_zero(&self) -> Choice;
    /// `1/self`, zero for zero.
    fn invert(&self) -> Self;

    /// Inverts every element in place with one inversion (Montgomery's
    /// trick), in constant time; zeros stay zero and do not spoil the others
    /// (they are replaced by one in the running product, selected).
    fn batch_invert<const N: usize>(xs: &mut [Self; N]) {
        let mut prefix = [Self::ZERO; N];
        let mut acc = Self::ONE;
        for (x, pre) in xs.iter().zip(prefix.iter_mut()) {
            *pre = acc;
            acc = Self::conditional_select(&(acc * *x), &acc, x.is_zero());
        }
        // acc = the product of the nonzero elements, inverted once.
        let mut inv = acc.invert();
        for (x, pre) in xs.iter_mut().zip(&prefix).rev() {
            let zero = x.is_zero();
            let x_inv = inv * *pre;
            inv = Self::conditional_select(&(inv * *x), &inv, zero);
            *x = Self::conditional_select(&x_inv, &Self::ZERO, zero);
        }
    }
}

/// `(X : Y : Z)` with `x = X/Z²`, `y = Y/Z³`; `Z = 0` is the identity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Jacobian<F> {
    pub(crate) x: F,
    pub(crate) y: F,
    pub(crate) z: F,
}

/// An affine point `(x, y)` that is not the identity.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Affine<F> {
    pub(crate) x: F,
    pub(crate) y: F,
}

impl<F: Coord> Default for Affine<F> {
    fn default() -> Self {
        Self { x: F::ZERO, y: F::ZERO }
    }
}

impl<F: Coord> Zeroize for Affine<F> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
    }
}

impl<F: Coord> Zeroize for Jacobian<F> {
    fn zeroize(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
    }
}

impl<F: Coord> ConditionallySelectable for Affine<F> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self { x: F::conditional_select(&a.x, &b.x, choice), y: F::conditional_select(&a.y, &b.y, choice) }
    }
}

impl<F: Coord> ConditionallySelectable for Jacobian<F> {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self {
            x: F::conditional_select(&a.x, &b.x, choice),
            y: F::conditional_select(&a.y, &b.y, choice),
            z: F::conditional_select(&a.z, &b.z, choice),
        }
    }
}

impl<F: Coord> Jacobian<F> {
    pub(crate) const IDENTITY: Self = Self { x: F::ONE, y: F::ONE, z: F::ZERO };

    /// A stand-in for unused batch slots (`Z = 1`, so it inverts; never
    /// output).
    pub(crate) const PAD: Self = Self { x: F::ONE, y: F::ONE, z: F::ONE };

    #[inline]
    pub(crate) fn from_affine(p: &Affine<F>) -> Self {
        Self { x: p.x, y: p.y, z: F::ONE }
    }

    #[inline]
    pub(crate) fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    /// `2·self`, `dbl-2001-b` for `a = −3` (3M + 5S). Complete on a curve of
    /// odd order: the identity (`Z = 0`) gives `Z3 = (Y + 0)² − Y² − 0 = 0`.
    #[inline]
    pub(crate) fn double(&self) -> Self {
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
    #[inline]
    pub(crate) fn add_affine(&self, q: &Affine<F>) -> (Self, Choice) {
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

    /// `self + q` for Jacobian `q`, `add-2007-bl` (11M + 5S), and whether the
    /// formula hit the doubling case (`H = 0` and `r = 0`, i.e. `self = q`).
    /// Correct when `self ≠ ±q` and neither is the identity; for `self = −q`
    /// it gives `Z3 = 0`, the identity, which is also right.
    #[inline]
    pub(crate) fn add(&self, q: &Self) -> (Self, Choice) {
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
    pub(crate) fn from_fraction(x: F, y: F, z: F) -> Self {
        Self { x: x * z, y: y * z.square(), z }
    }
}

/// Normalizes Jacobian points with one batch inversion. Identities come out
/// as `(0, 0)` (their `Z` inverts to zero); callers never pass one, or check
/// `Z` themselves.
pub(crate) fn to_affine<F: Coord, const N: usize>(points: &[Jacobian<F>; N], out: &mut [Affine<F>; N]) {
    let mut zs = points.map(|p| p.z);
    F::batch_invert(&mut zs);
    for ((o, p), zinv) in out.iter_mut().zip(points).zip(zs) {
        let zinv2 = zinv.square();
        o.x = p.x * zinv2;
        o.y = p.y * zinv2 * zinv;
    }
}
