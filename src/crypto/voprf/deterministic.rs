//! The deterministic voprf entry points behind `pat::hazmat::crypto::voprf`
//! (see its warning), and used by the power-on self-test and the tests.

use super::poprf::TweakedKey;
use super::protocol::{blind_in, check_batch, evaluate_and_prove};
use super::suite::{Mode, Suite};
use super::{Blind, Element, KeyPair, Proof, PublicKey, SecretKey};
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

/// [`voprf::poprf::blind`](super::poprf::blind) (RFC 9497 §3.3.3) with an
/// explicit blind, for the RFC's POPRF vectors and the 0xDA7B token vectors.
pub fn poprf_blind_with<S: Suite>(
    input: &[u8],
    info: &[u8],
    pk: &PublicKey<S>,
    blind: &S::ScalarBytes,
) -> Result<(Blind<S>, Element<S>, TweakedKey<S>)> {
    super::poprf::blind_in_poprf(input, info, pk, Blind::from_bytes(blind)?)
}

/// [`voprf::poprf::blind_evaluate`](super::poprf::blind_evaluate) with an
/// explicit proof nonce. [`Error::InvalidScalar`] if `nonce` is not canonical
/// or is zero.
pub fn poprf_blind_evaluate_with_nonce<S: Suite>(
    key: &SecretKey<S>,
    blinded: &[Element<S>],
    info: &[u8],
    evaluated: &mut [S::ElementBytes],
    nonce: &S::ScalarBytes,
) -> Result<Proof<S>> {
    check_batch(blinded.len(), &[evaluated.len()])?;
    let nonce = zeroize::Zeroizing::new(S::deserialize_scalar(nonce)?);
    if bool::from(S::scalar_is_zero(&nonce)) {
        return Err(Error::InvalidScalar);
    }
    super::poprf::evaluate_and_prove(key, blinded, info, evaluated, &nonce)
}
