//! The deterministic metadata entry points behind `pat::hazmat::tokens::metadata`
//! (see its warning), and used by the power-on self-test and the tests.

use super::{Client, RequestState, TokenRequest, VARIANT};
use crate::crypto::blind_rsa::partial::DerivedPublicKey;
use crate::crypto::blind_rsa::{self, MODULUS_LEN, PreparedMessage};
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::NONCE_LEN;

/// [`Client::request`] with an explicit nonce, PSS salt and blind r
/// (big-endian, in [1, n) and invertible).
pub fn request_with<'e>(
    client: &Client,
    challenge: &TokenChallenge<'_>,
    extensions: Extensions<'e>,
    nonce: &[u8; NONCE_LEN],
    salt: &[u8; blind_rsa::SALT_LEN],
    blind: &[u8; MODULUS_LEN],
) -> Result<(TokenRequest<'e>, RequestState)> {
    let input = client.input(challenge, nonce)?;
    let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&client.key, extensions.as_bytes())?;
    let (blinded, blinding) = derived.blind_with(VARIANT, &PreparedMessage::identity(input.as_bytes()), salt, blind)?;
    Ok(client.request_for(input, extensions, blinded, blinding))
}
