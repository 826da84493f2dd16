//! Token type 0xE5AC, ARC(P-256): rate-limited tokens from one anonymous
//! credential (draft-ietf-privacypass-arc-protocol-01, on the ARC of
//! [`crate::crypto::arc`]).
//!
//! ```text
//! TokenChallenge     = token_type (0xE5AC) ‖ issuer_name<1..2^16-1>
//!                      ‖ redemption_context<0..32> ‖ origin_info<0..2^16-1>
//!                      ‖ credential_context<0..32>
//! CredentialRequest  = token_type ‖ truncated_issuer_key_id ‖ encoded_request[226]
//! CredentialResponse = encoded_response[454]
//! Token              = token_type ‖ presentation_nonce (u32) ‖ challenge_digest[32]
//!                      ‖ issuer_key_id[32] ‖ presentation[Npresentation]
//! ```
//!
//! One issuance gives a [`Credential`](crate::crypto::arc::Credential) bound to the challenge's issuer,
//! origin_info and credential_context (the request context, arc-protocol-01 §7.1); each
//! token is a presentation bound to its issuer, origin_info and
//! redemption_context (the presentation context, §8.1), under the
//! presentation limit the origin announces (the `rate-limit` attribute of
//! its HTTP challenge). ARC is privately verifiable: the issuer and the
//! origin are one party ([`Issuer`] does both), and the tag of each
//! presentation is what it keeps to refuse a replay ([`Issuer::redeem`]).
//!
//! Not in [`TokenKind`](crate::TokenKind): an ARC token is not
//! `token_input ‖ authenticator` and its length depends on the limit, so the
//! registry's generic paths (token parsing, batches, key sets) do not apply.
//!
//! The token's `presentation_nonce` is carried as the draft says, but
//! nothing verifies it: the presentation proves its hidden nonce is below
//! the limit, and the field is the client's claim. A client that fills it
//! in truthfully tells the origin how many presentations it has made, which
//! the crypto layer otherwise hides; see docs/security.md.
//!
//! # Example
//!
//! An ARC credential is issued once and then presented up to a limit the origin
//! announces; each token is unlinkable, and its tag lets the issuer-origin
//! refuse a replay.
//!
//! ```rust
//! use pat::crypto::arc::{CredentialResponse, ServerPrivateKey};
//! use pat::wire::codec::{Decode, Encode};
//! use pat::deploy::replay::MemoryReplayStore;
//! use pat::tokens::arc::{ArcChallenge, ArcToken, Client, Issuer, TokenRequest, token_len};
//! use pat::{Error, OsRng};
//!
//! # fn main() -> pat::Result<()> {
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let issuer = Issuer::new(ServerPrivateKey::generate(&mut rng)?);
//! let challenge = ArcChallenge::new(b"issuer.example", &[], b"origin.example", &[])?;
//!
//! // Issuance, once: request, response, finalize.
//! let client = Client::from_token_key(&issuer.token_key())?;
//! let (request_state, request) = client.request(&challenge, &mut rng)?;
//! let mut wire = [0u8; pat::tokens::arc::REQUEST_LEN];
//! request.encode(&mut wire)?;
//! let response = issuer.issue(&TokenRequest::decode(&wire)?, &mut rng)?;
//! let credential = client.finalize(&request_state, &CredentialResponse::decode(&response.to_bytes())?)?;
//!
//! // Redemption, up to the limit: three tokens, then no more.
//! const LIMIT: u64 = 3;
//! let mut state = client.presentation_state(&credential, &challenge, LIMIT)?;
//! let mut seen = MemoryReplayStore::<64>::new([0x42; 32]); // use a secret random key
//! let mut token = [0u8; 1024];
//! for _ in 0..LIMIT {
//!     let len = client.token(&mut state, &challenge, &mut rng, &mut token)?;
//!     let parsed = ArcToken::decode(&token[..len], LIMIT)?;
//!     // Spent tags are kept two windows of the challenge's max-age and a margin.
//!     let now = 1_000; // the caller's clock, in seconds
//!     let expires_at = pat::deploy::replay::windowed_expiry(now, 60, pat::deploy::replay::CLOCK_SKEW_MARGIN);
//!     issuer.redeem(&parsed, &challenge, LIMIT, &mut seen, expires_at, now)?;
//! }
//! assert_eq!(client.token(&mut state, &challenge, &mut rng, &mut token), Err(Error::PresentationLimitReached));
//! # let _ = token_len(LIMIT)?;
//! # Ok(())
//! # }
//! ```

use crate::crypto::arc::messages as arc_messages;
use crate::error::Result;
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN};

mod client;
mod issuer;
mod wire;

pub use client::Client;
pub use issuer::{Issuer, tag_id};
pub use wire::{ArcChallenge, ArcToken, Context, TokenRequest};

/// The token type code point.
pub const TOKEN_TYPE: u16 = 0xE5AC;
pub use crate::wire::credential_challenge::CREDENTIAL_CONTEXT_LEN;
/// Length of a `CredentialRequest`: type ‖ truncated key id ‖ request.
pub const REQUEST_LEN: usize = 2 + 1 + arc_messages::REQUEST_LEN;
/// Length of a `CredentialResponse`.
pub const RESPONSE_LEN: usize = arc_messages::RESPONSE_LEN;
/// Length of a token without its presentation.
pub const TOKEN_HEADER_LEN: usize = 2 + 4 + CHALLENGE_DIGEST_LEN + KEY_ID_LEN;
/// The longest token (a limit of 2^32).
pub const TOKEN_MAX_LEN: usize = TOKEN_HEADER_LEN + arc_messages::PRESENTATION_MAX_LEN;

/// Length of a token under `limit`.
pub fn token_len(limit: u64) -> Result<usize> {
    Ok(TOKEN_HEADER_LEN + arc_messages::presentation_len(limit)?)
}

/// Whether `len` is the length of an ARC token under some presentation
/// limit from 2 to 2^32: one length for each k = ⌈log2(limit)⌉ from 1 to 32.
/// For a holder of a token that does not know its limit (a header writer, a
/// binding) to refuse any other length; the origin, which knows the limit,
/// checks the exact one.
pub fn is_token_len(len: usize) -> bool {
    (1..=32u32).any(|k| token_len(1u64 << k).is_ok_and(|n| n == len))
}

/// An ARC token, under the name every family uses (the same type as
/// [`ArcToken`]).
pub type Token<'a> = ArcToken<'a>;

/// ARC's origin is its issuer: presentations are checked with the server's
/// secret key ([`Issuer::verify`], and `redeem` with a replay store).
pub type Origin = Issuer;
