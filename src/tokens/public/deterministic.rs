//! The deterministic public entry points behind `pat::hazmat::tokens::public`
//! (see its warning), and used by the power-on self-test and the tests.

use super::{Client, RequestState, TokenRequest};
use crate::crypto::blind_rsa::{self, MODULUS_LEN};
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::NONCE_LEN;

/// [`Client::request`] with an explicit nonce, PSS salt and blind r
/// (big-endian, in [1, n) and invertible).
pub fn request_with(
    client: &Client,
    challenge: &TokenChallenge<'_>,
    nonce: &[u8; NONCE_LEN],
    salt: &[u8; blind_rsa::SALT_LEN],
    blind: &[u8; MODULUS_LEN],
) -> Result<(TokenRequest, RequestState)> {
    let input = client.input(challenge, nonce)?;
    let (blinded, blinding) = blind_rsa::deterministic::blind_with(&client.key, input.as_bytes(), salt, blind)?;
    Ok(client.request_for(input, blinded, blinding))
}

/// [`request_with`] through [`blind_with_vartime`](blind_rsa::deterministic::blind_with_vartime):
/// the inversion every real request runs, for the public blind of a known
/// answer (the power-on self-test, [`crate::self_test`]). `#[inline]`, as the
/// self-test is: compiled only into a firmware that calls it.
#[inline]
pub(crate) fn request_with_vartime(
    client: &Client,
    challenge: &TokenChallenge<'_>,
    nonce: &[u8; NONCE_LEN],
    salt: &[u8; blind_rsa::SALT_LEN],
    blind: &[u8; MODULUS_LEN],
) -> Result<(TokenRequest, RequestState)> {
    let input = client.input(challenge, nonce)?;
    let (blinded, blinding) = blind_rsa::deterministic::blind_with_vartime(&client.key, input.as_bytes(), salt, blind)?;
    Ok(client.request_for(input, blinded, blinding))
}
