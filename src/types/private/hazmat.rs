//! # Hazardous: deterministic requests for types 0x0001 and 0x0005
//!
//! [`request_with`] takes the token nonce and the VOPRF blind as arguments,
//! so that pat-go's and RFC 9578's known answers can be reproduced. It exists
//! for tests only.
//!
//! **Never use it to request real tokens.** The issuer sees
//! `blind·HashToGroup(token_input)`; with a blind it can predict or that is
//! reused, it recognises the token when it is redeemed and links the two,
//! which removes the unlinkability Privacy Pass exists for. A reused nonce
//! makes two tokens for the same challenge identical, so the second is a
//! replay. [`Client::request`] draws both from a cryptographic generator.
//!
//! This module is public only with the `hazmat` feature. Without it, the
//! module stays inside the crate, where only the power-on self-test
//! ([`self_test`](crate::self_test)) reaches it, with the public inputs of a
//! vector case.

use super::{Client, PrivateTokenType, RequestState, TokenRequest};
use crate::challenge::TokenChallenge;
use crate::error::Result;
use crate::token_type::NONCE_LEN;
use crate::voprf::{self, Suite};

/// [`Client::request`] with an explicit nonce and blind (the blind's
/// canonical encoding, non-zero).
pub fn request_with<T: PrivateTokenType>(
    client: &Client<T>,
    challenge: &TokenChallenge<'_>,
    nonce: &[u8; NONCE_LEN],
    blind: &<T::Suite as Suite>::ScalarBytes,
) -> Result<(TokenRequest<T>, RequestState<T>)> {
    let input = client.input(challenge, nonce)?;
    Ok(client.request_for(input, voprf::hazmat::blind_with(input.as_bytes(), blind)?))
}
