//! # Hazardous: deterministic requests for type 0x0002
//!
//! [`request_with`] takes the token nonce, the PSS salt and the RSA blind as
//! arguments, so that pat-go's and RFC 9578's known answers can be
//! reproduced. It exists for tests only.
//!
//! **Never use it to request real tokens.** The issuer sees the blinded
//! message `m·r^e`; with a blind `r` it can predict or that is reused, it
//! recomputes that value from the redeemed token and links redemption to
//! issuance, which removes the unlinkability Privacy Pass exists for. A
//! reused nonce makes two tokens for the same challenge share their input,
//! so the second is a replay. [`Client::request`] draws all three from a
//! cryptographic generator.
//!
//! This module is public only with the `hazmat` feature. Without it, the
//! module stays inside the crate, where only the power-on self-test
//! ([`self_test`](crate::self_test)) reaches it, with the public inputs of a
//! vector case.

use super::{Client, RequestState, TokenRequest};
use crate::blind_rsa::{self, MODULUS_LEN};
use crate::challenge::TokenChallenge;
use crate::error::Result;
use crate::token_type::NONCE_LEN;

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
    let (blinded, blinding) = blind_rsa::hazmat::blind_with(&client.key, input.as_bytes(), salt, blind)?;
    Ok(client.request_for(input, blinded, blinding))
}

/// [`request_with`] through [`blind_with_vartime`](blind_rsa::hazmat::blind_with_vartime):
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
    let (blinded, blinding) = blind_rsa::hazmat::blind_with_vartime(&client.key, input.as_bytes(), salt, blind)?;
    Ok(client.request_for(input, blinded, blinding))
}
