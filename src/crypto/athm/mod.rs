//! Anonymous Tokens with Hidden Metadata, ATHM(P-256).
//!
//! Pinned revision: **draft-yun-cfrg-athm-00** (October 2025), the only one
//! published; its Privacy Pass binding (type 0xC07E,
//! draft-yun-privacypass-athm-00) is [`crate::tokens::athm`]. The vectors
//! are google/anonymous-tokens' `athm/test_vectors.json` (commit
//! `f2e1593a5a49dc7ae1c7ad7f8229ceefb47e4fe8`, the same JSON as the draft's
//! appendix), which pass byte for byte; see `tests/vectors/athm/`.
//!
//! The issuer hides a value m in 0..N (a fraud signal, a bucket) in each
//! token it issues; the client cannot see or remove it, and only the issuer
//! reads it back at redemption. A one-of-N proof shows the client the value
//! is one of the N allowed, so an issuer cannot tag clients individually.
//!
//! | step | client | issuer |
//! |---|---|---|
//! | keys | | [`PrivateKey::generate`] → [`PublicKey`], [`PublicKeyProof`] (§4.1) |
//! | check the key | [`PublicKey::verify`] → [`VerifiedPublicKey`] | |
//! | request | [`token_request`] → [`TokenContext`], [`TokenRequest`] (§4.2) | |
//! | response | | [`token_response`] → [`TokenResponse`] (§4.3) |
//! | finalize | [`finalize_token`] → [`Token`] (§4.4) | |
//! | redeem | | [`verify_token`] → the hidden value (§4.5) |
//!
//! `N` is a type parameter (1 to 255, checked by [`Params::new`]), so every
//! message has a fixed size and nothing allocates; it is part of the context
//! string with the deployment id, so a key belongs to one (N, id) pair.
//!
//! Where the reference code and the draft differ, this follows the draft
//! and is stricter: the identity is refused wherever a point is decoded, a
//! metadata value not below N is refused, and the key's proof is checked
//! once ([`PublicKey::verify`]) rather than at every request. A token
//! (t, P, Q) also verifies as (t, k·P, k·Q) for any k ≠ 0: spent tokens are
//! recognised by t ([`Token::nonce`]), never by their bytes.
//!
//! Secrets (the issuer's five scalars, the metadata value and the proof's
//! nonces; the client's r, tc and c) enter only constant-time arithmetic and
//! selections and are wiped after use; the issuance proof's verification
//! and the key proof's touch public values only.

mod client;
mod hash;
mod issuer;
mod keys;

pub use client::{Token, TokenContext, TokenRequest, finalize_token, token_request};
pub use hash::{MAX_DEPLOYMENT_ID_LEN, Params, generator_g_bytes};
pub use issuer::{IssuanceProof, TokenResponse, response_len, token_response, verify_token};
pub use keys::{PrivateKey, PublicKey, PublicKeyProof, VerifiedPublicKey};
