//! # Hazardous: deterministic amortized batch requests
//!
//! [`request_batch_with`] takes one token nonce and one VOPRF blind per token
//! as arguments, so that pat-go's known answers can be reproduced. It exists
//! for tests only.
//!
//! **Never use it to request real tokens.** The issuer sees every
//! `blind_i·HashToGroup(token_input_i)`; with blinds it can predict or that
//! are reused, it links each redeemed token to the batch it came from, which
//! removes the unlinkability Privacy Pass exists for. A reused nonce makes
//! two tokens for the same challenge identical. [`Client::request_batch`]
//! draws them from a cryptographic generator.
//!
//! This module exists only with the `hazmat` feature.

use super::{BatchState, Client};
use crate::challenge::TokenChallenge;
use crate::error::{Error, Field, Result};
use crate::token_type::NONCE_LEN;
use crate::types::private::PrivateTokenType;
use crate::voprf::{self, Suite};

/// [`Client::request_batch`] with explicit nonces and blinds, one of each per
/// token ([`Error::InvalidLength`]`(`[`Field::Batch`]`)` if the counts differ).
pub fn request_batch_with<T: PrivateTokenType, const N: usize>(
    client: &Client<T>,
    challenge: &TokenChallenge<'_>,
    nonces: &[[u8; NONCE_LEN]],
    blinds: &[<T::Suite as Suite>::ScalarBytes],
) -> Result<BatchState<T, N>> {
    if nonces.len() != blinds.len() {
        return Err(Error::InvalidLength(Field::Batch));
    }
    let mut state = client.batch_state::<N>(nonces.len())?;
    for (nonce, blind) in nonces.iter().zip(blinds) {
        let input = client.input(challenge, nonce)?;
        Client::push(&mut state, input, voprf::hazmat::blind_with(input.as_bytes(), blind)?)?;
    }
    Ok(state)
}
