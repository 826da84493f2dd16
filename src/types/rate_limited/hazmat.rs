//! # Hazardous: deterministic type-0x0003 requests
//!
//! [`request_with`] takes every value the client's request draws at random
//! (token nonce, PSS salt, RSA blind, `request_blind`, HPKE ephemeral seed)
//! as arguments, so that pat-go's known answers can be reproduced; only the
//! ECDSA signature keeps its hedge from `rng`. It exists for tests only.
//!
//! **Never use it to request real tokens.** A reused or predictable RSA blind
//! lets the issuer link the redeemed token to its request; a reused
//! `request_blind` gives two requests the same request key, so the issuer,
//! which sees the requests for every origin but must not learn which client
//! sent them, links them to each other; a reused HPKE seed repeats the
//! encryption key of the inner request, which exposes the origin name the
//! attester must not learn; a reused nonce makes the second token a replay.
//! [`Client::request`] draws all of them from a cryptographic generator.
//!
//! This module exists only with the `hazmat` feature.

use core::fmt;

use rand_core::TryCryptoRng;

use super::{Client, ClientState};
use crate::blind_rsa::{self, MODULUS_LEN};
use crate::challenge::TokenChallenge;
use crate::error::Result;
use crate::key_blinding::ecdsa_p384::{self as ecdsa, BlindKey};
use crate::rate_limited::origin_encryption::ENC_LEN;
use crate::token_type::NONCE_LEN;

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
        blind_rsa::hazmat::blind_with(&client.token_key, input.as_bytes(), fixed.salt, fixed.blind)?;
    let request_blind = BlindKey::with_encoding(fixed.request_blind, client.config.blind_encoding);
    client.assemble(input, &blinded, blinding, request_blind, origin_name, fixed.ikm_e, out, rng)
}
