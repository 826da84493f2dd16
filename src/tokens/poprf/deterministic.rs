//! The deterministic 0xDA7B entry points behind `pat::hazmat::tokens::poprf`
//! (see its warning), used by the vector generator and the tests.

use super::{Client, Issuer, RequestState, TokenRequest, TokenResponse};
use crate::crypto::voprf::poprf;
use crate::crypto::voprf::{Blind, ByteArray, Element, P384Sha384, Suite};
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::NONCE_LEN;

type S = P384Sha384;

/// [`Client::request`] with an explicit nonce and blind (the blind's
/// canonical encoding, non-zero).
pub fn request_with<'e>(
    client: &Client,
    challenge: &TokenChallenge<'_>,
    extensions: Extensions<'e>,
    nonce: &[u8; NONCE_LEN],
    blind: &<S as Suite>::ScalarBytes,
) -> Result<(TokenRequest<'e>, RequestState)> {
    let input = client.input(challenge, nonce)?;
    poprf::TweakedKey::new(client.public_key(), extensions.as_bytes())?;
    let blinded = poprf::blind_input(input.as_bytes(), Blind::from_bytes(blind)?)?;
    Ok(client.request_for(input, extensions, blinded))
}

/// [`Issuer::evaluate`] with an explicit proof nonce (canonical, non-zero).
pub fn evaluate_with_nonce(
    issuer: &Issuer,
    request: &TokenRequest<'_>,
    nonce: &<S as Suite>::ScalarBytes,
) -> Result<TokenResponse> {
    issuer.check_request(request)?;
    let blinded = Element::from_bytes(&request.blinded_msg)?;
    let mut evaluated = [<S as Suite>::ElementBytes::ZERO];
    let proof = crate::crypto::voprf::deterministic::poprf_blind_evaluate_with_nonce(
        issuer.key_pair().secret_key(),
        &[blinded],
        request.extensions.as_bytes(),
        &mut evaluated,
        nonce,
    )?;
    let [evaluate_msg] = evaluated;
    Ok(TokenResponse { evaluate_msg, evaluate_proof: proof.to_bytes() })
}
