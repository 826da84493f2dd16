//! # Hazardous: deterministic requests for type 0xDA7A
//!
//! [`request_with`] takes the token nonce, the PSS salt and the RSA blind as
//! arguments, so that the known answers of privacypass-ts and of the
//! public-metadata draft can be reproduced. It exists for tests only.
//!
//! **Never use it to request real tokens**: a blind the issuer can predict
//! links the token to its request, as for type 0x0002
//! ([`crate::types::public::hazmat`]). [`Client::request`] draws all three
//! from a cryptographic generator.

use super::{Client, RequestState, TokenRequest, VARIANT};
use crate::blind_rsa::partial::DerivedPublicKey;
use crate::blind_rsa::{self, MODULUS_LEN, PreparedMessage};
use crate::challenge::TokenChallenge;
use crate::error::Result;
use crate::extensions::Extensions;
use crate::token_type::NONCE_LEN;

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
