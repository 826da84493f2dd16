//! Token type 0xDA7B, privately verifiable tokens with public metadata on
//! the partially oblivious PRF POPRF(P-384, SHA-384)
//! (draft-ietf-privacypass-public-metadata-issuance-03 §5, on
//! [`crate::crypto::voprf::poprf`]).
//!
//! ```text
//! ExtendedTokenRequest = token_type (0xDA7B) ‖ truncated_token_key_id
//!                        ‖ blinded_msg[49] ‖ Extensions
//! TokenResponse        = evaluate_msg[49] ‖ evaluate_proof[48 + 48]
//! Token                = token_input[98] ‖ authenticator[48]
//! ```
//!
//! The metadata is an [`Extensions`]
//! list, and its encoding (length prefix included) is the POPRF `info`, as
//! the RSA `info` of type 0xDA7A ([`crate::tokens::metadata`]) is: the issuer
//! evaluates with the key tweaked by it, and the token verifies only
//! together with the same extensions, which the client sends next to the
//! token (`Authorization: PrivateToken token=…, extensions=…`). The token
//! has the type 0x0001 layout with the type code 0xDA7B.
//!
//! The token key is the serialized P-384 public key (49 bytes, compressed),
//! token_key_id its SHA-256, as for type 0x0001. Keys are RFC 9497 key pairs;
//! the draft's recommended derivation is [`Issuer::derive`] (`DeriveKeyPair`
//! in the POPRF mode with the info `"PrivacyPass-TypeDA7B"`).
//!
//! Like type 0x0001, only the issuer can verify a token: the origin is the
//! issuer ([`Origin`] is an alias), checking with [`Issuer::verify`].
//!
//! No peer implements this type (November 2026); its vectors are pat's own
//! (`pat vectors generate --kind type-da7b`), checked against an independent
//! computation in `tools/`.

use sha2::{Digest, Sha256};

use crate::wire::extensions::Extensions;
use crate::wire::token::Token as WireToken;
use crate::wire::token_type::KEY_ID_LEN;

mod client;
mod issuer;
mod wire;

pub use client::{Client, RequestState};
pub use issuer::Issuer;
pub use wire::{TokenRequest, TokenResponse};

// Deterministic variants (explicit blinds, nonces): public only as
// `crate::hazmat`, used inside the crate by the tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

/// The POPRF `info` of [`Issuer::derive`]'s key derivation (the draft's
/// recommended `DeriveKeyPair(seed, "PrivacyPass-TypeDA7B")`).
pub const DERIVE_INFO: &[u8] = b"PrivacyPass-TypeDA7B";

/// A type 0xDA7B token: the type 0x0001 layout, 48-byte authenticator.
pub type Token = WireToken<48>;

/// The origin of a type 0xDA7B token is its issuer: only the holder of the
/// POPRF key can check a token ([`Issuer::verify`]).
pub type Origin = Issuer;

/// The length of an extensions digest kept in a [`RequestState`].
const EXTENSIONS_DIGEST_LEN: usize = 32;

/// token_key_id = SHA-256(SerializeElement(pkI)) (draft §5.5).
fn key_id_of(pk: &[u8]) -> [u8; KEY_ID_LEN] {
    Sha256::digest(pk).into()
}

/// SHA-256 of an extensions encoding: what a [`RequestState`] keeps of the
/// extensions, so that finalize can check that it gets the same ones.
fn extensions_digest(extensions: &Extensions<'_>) -> [u8; EXTENSIONS_DIGEST_LEN] {
    Sha256::digest(extensions.as_bytes()).into()
}
