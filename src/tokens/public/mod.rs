//! Token type 0x0002, publicly verifiable tokens with blind RSA (RFC 9578 §6).
//!
//! ```text
//! TokenRequest  = token_type (0x0002) ‖ truncated_token_key_id ‖ blinded_msg[256]
//! TokenResponse = blind_sig[256]
//! Token         = token_input[98] ‖ authenticator[256]
//! ```
//!
//! The token key is the issuer's RSA-2048 public key in the RSASSA-PSS SPKI
//! encoding; token_key_id is its SHA-256. The issuer signs with CRT in constant
//! time and checks the signature before releasing it; the client unblinds and
//! verifies before it returns a token; any origin verifies with the public key.

use crate::crypto::blind_rsa::MODULUS_LEN;
use crate::wire::token::Token as WireToken;

mod client;
mod issuer;
mod origin;
mod wire;

pub use client::{Client, RequestState};
pub use issuer::Issuer;
pub use origin::Origin;
pub(crate) use origin::{check_token_input, verify_token};
pub use wire::{TokenRequest, TokenResponse};

// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;

/// A type 0x0002 token.
pub type PublicToken = WireToken<MODULUS_LEN>;

/// A type 0x0002 token, under the name every family uses (the same type as
/// [`PublicToken`]).
pub type Token = PublicToken;
