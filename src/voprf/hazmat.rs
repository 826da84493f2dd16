//! # Hazardous: deterministic VOPRF and OPRF entry points
//!
//! These functions take the values the protocol draws at random (the client's
//! blind, the issuer's proof nonce) as arguments, so that the known answers of
//! RFC 9497 Appendix A can be reproduced. They exist for tests only.
//!
//! **Never use them to issue or redeem real tokens.** A blind that is reused,
//! predictable or chosen by someone else links the token to its request (the
//! issuer sees `blind·H(input)` and can recompute it), which removes the
//! unlinkability Privacy Pass exists for. A proof nonce that repeats across
//! two proofs, or that an attacker can predict, reveals the issuer's secret
//! key `skS` from the two responses (RFC 9497 §2.2.1). The randomized
//! functions in [`voprf`](super) draw both from a cryptographic generator.
//!
//! This module is public only with the `hazmat` feature. Without it, the
//! module stays inside the crate, where only the power-on self-test
//! ([`self_test`](crate::self_test)) reaches it, with the public inputs of a
//! vector case.

use super::protocol::{blind_in, check_batch, evaluate_and_prove};
use super::suite::{Mode, Suite};
use super::{Blind, Element, KeyPair, Proof};
use crate::error::{Error, Result};

/// [`voprf::blind`](super::blind) with an explicit blind (RFC 9497 §3.3.1,
/// Appendix A). [`Error::InvalidScalar`] if `blind` is not canonical or is
/// zero.
pub fn blind_with<S: Suite>(input: &[u8], blind: &S::ScalarBytes) -> Result<(Blind<S>, Element<S>)> {
    blind_in(Mode::Voprf, input, Blind::from_bytes(blind)?)
}

/// [`voprf::blind_evaluate`](super::blind_evaluate) with an explicit proof
/// nonce (the `r` of RFC 9497 §2.2.1 `GenerateProof`, "proof_random_scalar"
/// in Appendix A). [`Error::InvalidScalar`] if `nonce` is not canonical or is
/// zero.
pub fn blind_evaluate_with_nonce<S: Suite>(
    key: &KeyPair<S>,
    blinded: &[Element<S>],
    evaluated: &mut [S::ElementBytes],
    nonce: &S::ScalarBytes,
) -> Result<Proof<S>> {
    check_batch(blinded.len(), &[evaluated.len()])?;
    let nonce = zeroize::Zeroizing::new(S::deserialize_scalar(nonce)?);
    if bool::from(S::scalar_is_zero(&nonce)) {
        return Err(Error::InvalidScalar);
    }
    evaluate_and_prove(key, blinded, evaluated, &nonce)
}

/// [`voprf::oprf::blind`](super::oprf::blind) (the base mode, RFC 9497
/// §3.3.1) with an explicit blind, for the RFC's OPRF vectors.
pub fn oprf_blind_with<S: Suite>(input: &[u8], blind: &S::ScalarBytes) -> Result<(Blind<S>, Element<S>)> {
    blind_in(Mode::Oprf, input, Blind::from_bytes(blind)?)
}
