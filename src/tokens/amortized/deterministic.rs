//! The deterministic amortized entry points behind `pat::hazmat::tokens::amortized`
//! (see its warning), and used by the power-on self-test and the tests.

use super::{BatchState, Client};
use crate::crypto::voprf::{self, Suite};
use crate::error::{Error, Field, Result};
use crate::tokens::private::PrivateTokenType;
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::NONCE_LEN;

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
        Client::push(&mut state, input, voprf::deterministic::blind_with(input.as_bytes(), blind)?)?;
    }
    Ok(state)
}
