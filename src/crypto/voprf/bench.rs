//! Group operations of a [`Suite`] for the peer benchmarks in `bench-peers/`,
//! which compare them with other implementations' curve arithmetic.
//!
//! This module exists only when the crate is built with `--cfg pat_bench`
//! (`bench-peers/.cargo/config.toml` sets it); no feature turns it on, and
//! nothing else should use it: these are the unchecked building blocks that
//! the protocol functions of [`voprf`](super) wrap.

use rand_core::TryCryptoRng;

use super::suite::{ByteArray, Suite, serialize_element as serialize};
use crate::error::Result;

/// `HashToGroup(msg)` with the given DST (RFC 9497 §4).
pub fn hash_to_group<S: Suite>(msg: &[&[u8]], dst: &[&[u8]]) -> Result<S::Point> {
    S::hash_to_group(msg, dst)
}

/// `RandomScalar()` (RFC 9497 §4.7).
pub fn random_scalar<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<S::Scalar> {
    S::random_scalar(rng)
}

/// `ScalarMultGen(s)`, constant time.
pub fn mul_base<S: Suite>(s: &S::Scalar) -> S::Point {
    S::mul_base(s)
}

/// `a·G + b·P`, variable time.
pub fn mul_base_add_vartime<S: Suite>(a: &S::Scalar, b: &S::Scalar, p: &S::Point) -> S::Point {
    S::mul_base_add_vartime(a, b, p)
}

/// `SerializeElement(p)`; `InvalidElement` for the identity.
pub fn serialize_element<S: Suite>(p: &S::Point) -> Result<S::ElementBytes> {
    serialize::<S>(p)
}

/// `SerializeScalar(s)`.
pub fn serialize_scalar<S: Suite>(s: &S::Scalar) -> S::ScalarBytes {
    S::serialize_scalar(s)
}

/// `SerializeElement(k·P)`, constant time in `k`: the variable-base
/// multiplication the issuer's `BlindEvaluate` runs (for P-384 the own
/// Jacobian path of `p384_jacobian`, table and encoding included).
pub fn mul_serialize<S: Suite>(k: &S::Scalar, p: &S::Point) -> Result<S::ElementBytes> {
    let mut out = [S::ElementBytes::ZERO];
    S::mul_serialize(k, core::slice::from_ref(p), &mut out)?;
    let [out] = out;
    Ok(out)
}
