//! The deterministic rate_limited entry points behind `pat::hazmat::tokens::rate_limited`
//! (see its warning), and used by the power-on self-test and the tests.

use core::fmt;

use rand_core::TryCryptoRng;

use super::{Client, ClientState};
use crate::crypto::blind_rsa::{self, MODULUS_LEN};
use crate::crypto::key_blinding::ecdsa_p384::{self as ecdsa, BlindKey};
use crate::crypto::rate_limited::origin_encryption::ENC_LEN;
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::NONCE_LEN;

/// Explicit values for everything [`Client::request`] draws at random except
/// the ECDSA signing hedge.
#[derive(Clone, Copy)]
pub struct RequestRandomness<'a> {
    /// The token nonce.
    pub nonce: &'a [u8; NONCE_LEN],
    /// The PSS salt.
    pub salt: &'a [u8; blind_rsa::SALT_LEN],
    /// The RSA blind r (big-endian, in [1, n) and invertible).
    pub blind: &'a [u8; MODULUS_LEN],
    /// `request_blind` (48 bytes).
    pub request_blind: &'a [u8; ecdsa::SCALAR_LEN],
    /// The HPKE ephemeral key seed: the ephemeral key is `DeriveKeyPair(ikm_e)`.
    pub ikm_e: &'a [u8; ENC_LEN],
}

impl fmt::Debug for RequestRandomness<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RequestRandomness")
    }
}

/// [`Client::request`] with the values of `fixed`; `rng` only hedges the
/// ECDSA signature. The same checks and errors as [`Client::request`].
pub fn request_with<R: TryCryptoRng<Error: 'static> + ?Sized>(
    client: &Client,
    challenge: &TokenChallenge<'_>,
    origin_name: &[u8],
    fixed: &RequestRandomness<'_>,
    rng: &mut R,
    out: &mut [u8],
) -> Result<(usize, ClientState)> {
    let out = Client::request_buffer(origin_name, out)?;
    let input = client.input(challenge, fixed.nonce)?;
    let (blinded, blinding) =
        blind_rsa::deterministic::blind_with(&client.token_key, input.as_bytes(), fixed.salt, fixed.blind)?;
    let request_blind = BlindKey::with_encoding(fixed.request_blind, client.config.blind_encoding);
    client.assemble(input, &blinded, blinding, request_blind, origin_name, fixed.ikm_e, out, rng)
}
