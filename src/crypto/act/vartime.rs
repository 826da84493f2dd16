//! Variable-time multiplications, for public values only (verification of
//! the proofs a party receives). curve25519-dalek's multiscalar
//! multiplication needs its `alloc` feature, which this crate does not
//! enable, so these are built from its allocation-free
//! `vartime_double_scalar_mul_basepoint` (a·P + b·G, Straus with NAFs).

use curve25519_dalek::Scalar;
use curve25519_dalek::ristretto::RistrettoPoint;

/// a·P + b·G.
pub(crate) fn mul_add_base_vartime(a: &Scalar, p: &RistrettoPoint, b: &Scalar) -> RistrettoPoint {
    RistrettoPoint::vartime_double_scalar_mul_basepoint(a, p, b)
}

/// Σ aᵢ·Pᵢ.
pub(crate) fn lincomb_vartime(terms: &[(&Scalar, &RistrettoPoint)]) -> RistrettoPoint {
    terms.iter().fold(RistrettoPoint::default(), |acc, (a, p)| acc + mul_add_base_vartime(a, p, &Scalar::ZERO))
}

/// Σ 2^j·Pⱼ, by doubling from the last point (the commitments' sum K′ of
/// §3.4.3).
pub(crate) fn pow2_sum_vartime(points: &[RistrettoPoint]) -> RistrettoPoint {
    points.iter().rev().fold(RistrettoPoint::default(), |acc, p| acc + acc + p)
}
