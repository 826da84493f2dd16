//! The base OPRF mode (modeOPRF = 0x00, RFC 9497 §3.3.1): the same messages as
//! the VOPRF without a proof. Privacy Pass does not use it; it is here for
//! completeness and to run the RFC's OPRF test vectors.
//!
//! The mode enters the context string, so keys and blinded elements differ
//! from those of the VOPRF functions in [`super`].

use rand_core::TryCryptoRng;

use super::protocol::{
    blind_in, check_batch, derive_key_pair_in, evaluate_elements, evaluate_in, random_blind, unblind_and_hash,
};
use super::suite::{Mode, Suite};
use super::{Blind, Element, KeyPair, SecretKey};
use crate::error::Result;

/// `DeriveKeyPair(seed, info)` (RFC 9497 §3.2.1) with the OPRF context string.
pub fn derive_key_pair<S: Suite>(seed: &[u8], info: &[u8]) -> Result<KeyPair<S>> {
    derive_key_pair_in(Mode::Oprf, seed, info)
}

/// `Blind(input)` (RFC 9497 §3.3.1) with the OPRF context string.
pub fn blind<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(
    input: &[u8],
    rng: &mut R,
) -> Result<(Blind<S>, Element<S>)> {
    blind_in(Mode::Oprf, input, random_blind(rng)?)
}

/// `BlindEvaluate` (RFC 9497 §3.3.1) for a batch: `evaluated[i] =
/// SerializeElement(skS·blinded[i])`, no proof.
pub fn blind_evaluate<S: Suite>(
    key: &SecretKey<S>,
    blinded: &[Element<S>],
    evaluated: &mut [S::ElementBytes],
) -> Result<()> {
    evaluate_elements(key, blinded, evaluated)
}

/// `Finalize` (RFC 9497 §3.3.1) for a batch, without a proof to verify.
pub fn finalize<S: Suite>(
    inputs: &[&[u8]],
    blinds: &[Blind<S>],
    evaluated: &[Element<S>],
    outputs: &mut [S::Output],
) -> Result<()> {
    check_batch(inputs.len(), &[blinds.len(), evaluated.len(), outputs.len()])?;
    unblind_and_hash(inputs, None, blinds, evaluated, outputs)
}

/// `Evaluate(skS, input)` (RFC 9497 §3.3.1) with the OPRF context string.
pub fn evaluate<S: Suite>(key: &SecretKey<S>, input: &[u8]) -> Result<S::Output> {
    evaluate_in(Mode::Oprf, key, input)
}
