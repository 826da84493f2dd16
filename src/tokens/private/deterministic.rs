//! The deterministic private entry points behind `pat::hazmat::tokens::private`
//! (see its warning), and used by the power-on self-test and the tests.

use super::{Client, PrivateTokenType, RequestState, TokenRequest};
use crate::crypto::voprf::{self, Suite};
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::NONCE_LEN;

/// [`Client::request`] with an explicit nonce and blind (the blind's
/// canonical encoding, non-zero).
pub fn request_with<T: PrivateTokenType>(
    client: &Client<T>,
    challenge: &TokenChallenge<'_>,
    nonce: &[u8; NONCE_LEN],
    blind: &<T::Suite as Suite>::ScalarBytes,
) -> Result<(TokenRequest<T>, RequestState<T>)> {
    let input = client.input(challenge, nonce)?;
    Ok(client.request_for(input, voprf::deterministic::blind_with(input.as_bytes(), blind)?))
}
