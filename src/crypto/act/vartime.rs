//! Variable-time multiplications, for public values only (verification of
//! the proofs a party receives). curve25519-dalek's multiscalar
//! multiplication needs its `alloc` feature, which this crate does not
//! enable, so these are built from its allocation-free
//! `vartime_double_scalar_mul_basepoint` (a·P + b·G, Straus with NAFs,
//! dalek's AVX2 back end where the CPU has it).
//!
//! A two-term Straus over public `RistrettoPoint` operations (the VOPRF
//! suite's `straus::lincomb_vartime`) does not pay here: it runs dalek's
//! serial formulas, and for a·P + b·Q it took 44 µs against 42 µs for two
//! single products on the bench machine (x86_64, AVX2). Products by H1..H4
//! go through [`Params::mul_vartime`](super::params::Params) instead, which
//! uses the fixed-base tables when they exist.

use curve25519_dalek::Scalar;
use curve25519_dalek::ristretto::RistrettoPoint;

/// a·P + b·G.
pub(crate) fn mul_add_base_vartime(a: &Scalar, p: &RistrettoPoint, b: &Scalar) -> RistrettoPoint {
    RistrettoPoint::vartime_double_scalar_mul_basepoint(a, p, b)
}

/// a·P.
pub(crate) fn mul_vartime(a: &Scalar, p: &RistrettoPoint) -> RistrettoPoint {
    mul_add_base_vartime(a, p, &Scalar::ZERO)
}

/// P + b·G: with `precomputed-tables`, dalek's static table for G (8 µs
/// against 23 µs for the double-base product on the bench machine).
pub(crate) fn add_mul_base_vartime(p: &RistrettoPoint, b: &Scalar) -> RistrettoPoint {
    if cfg!(feature = "precomputed-tables") {
        RistrettoPoint::mul_base(b) + p
    } else {
        mul_add_base_vartime(&Scalar::ONE, p, b)
    }
}

/// Σ 2^j·Pⱼ, by doubling from the last point (the commitments' sum K′ of
/// §3.4.3).
pub(crate) fn pow2_sum_vartime(points: &[RistrettoPoint]) -> RistrettoPoint {
    points.iter().rev().fold(RistrettoPoint::default(), |acc, p| acc + acc + p)
}
