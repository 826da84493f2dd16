//! Token type 0xE5AD, ACT(ristretto255): credit tokens spent a cost at a
//! time, with the change refunded into a fresh, unlinkable credential
//! (draft-schlesinger-privacypass-act-01, on the ACT of
//! [`crate::crypto::act`], draft-schlesinger-cfrg-act-01).
//!
//! ```text
//! TokenChallenge = token_type (0xE5AD) ‖ issuer_name<1..2^16-1>
//!                  ‖ redemption_context<0..32> ‖ origin_info<0..2^16-1>
//!                  ‖ credential_context<0..32>
//! TokenRequest   = token_type ‖ truncated_issuer_key_id ‖ encoded_request[141]
//! TokenResponse  = encoded_response[211]
//! Token          = token_type ‖ challenge_digest[32] ‖ issuer_key_id[32]
//!                  ‖ encoded_spend_proof[spend_proof_len(L)]
//! Refund         = refund[176]
//! ```
//!
//! The encoded messages are the CBOR of cfrg-act-01 §4 at fixed lengths (no
//! length prefix: the -01 binding). `L`, the bit length of balances, is a
//! const generic of [`Client`], [`Issuer`] and [`Token`]; the deployment
//! fixes it with its [`Params`](crate::crypto::act::Params).
//!
//! Two points the -01 binding leaves open, and how pat settles them:
//!
//! - **The request context ctx.** -01 defines the request context as the
//!   bytes issuer_name ‖ origin_info ‖ credential_context ‖ issuer_key_id
//!   but leaves their mapping to the scalar ctx undefined. pat follows the
//!   rule of the -02 text: `ctx = HashToScalar(concat(issuer_name,
//!   origin_info, credential_context, issuer_key_id))`, each item with a
//!   2-byte big-endian length, HashToScalar being 64 bytes of SHAKE128 read
//!   little endian mod q ([`ActChallenge::request_context`]). The issuer
//!   signs it into the credential; the spend proof reveals it, and the
//!   issuer compares it with the challenge's. `redemption_context` is bound
//!   only by the challenge digest, which no proof covers.
//! - **The key id.** `issuer_key_id = SHA-256(pkI)` of the raw 32-byte
//!   public key (the encoded element), not of its CBOR byte string.
//!
//! ACT is privately verifiable: the issuer and the origin are one party
//! ([`Issuer`] does both). A spend reveals its nullifier, which the issuer
//! records to refuse a second spend of the same credential
//! (`Issuer::redeem` in [`crate::deploy::replay`]); the refund carries the
//! credits it gives back (0 ≤ t ≤ cost), and the client turns it into its
//! next credential ([`Client::refund`]). The refund's transport is not
//! specified by -01.
//!
//! # Example
//!
//! ```rust
//! use pat::crypto::act::{Params, PrivateKey, Refund};
//! use pat::deploy::replay::MemoryReplayStore;
//! use pat::tokens::act::{ActChallenge, Client, Issuer, Token, TokenRequest, TokenResponse};
//! use pat::wire::codec::{Decode, Encode};
//! use pat::{Error, OsRng};
//!
//! # fn main() -> pat::Result<()> {
//! const L: usize = 16;
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let params = Params::new("example", "api", "production", "2026-01-01")?;
//! let issuer = Issuer::<L>::new(params.clone(), PrivateKey::generate(&mut rng)?);
//! let challenge = ActChallenge::new(b"issuer.example", &[], b"origin.example", &[])?;
//!
//! // Issuance, once: 100 credits.
//! let client = Client::<L>::from_token_key(params, &issuer.token_key())?;
//! let (state, request) = client.request(&challenge, &mut rng)?;
//! let mut wire = [0u8; pat::tokens::act::REQUEST_LEN];
//! request.encode(&mut wire)?;
//! let response = issuer.issue(&TokenRequest::decode(&wire)?, 100, &challenge, &mut rng)?;
//! let credential = client.finalize(&state, &response)?;
//!
//! // A spend of 30, of which the origin gives 5 back.
//! let (token, pre_refund) = client.spend(&credential, &challenge, 30, &mut rng)?;
//! let mut bytes = [0u8; Token::<L>::LEN];
//! token.encode(&mut bytes)?;
//! let mut seen = MemoryReplayStore::<64>::new([0x42; 32]); // use a secret random key
//! let (now, expires_at) = (1_000, 1_000 + 3_600);
//! let refund = issuer.redeem(&Token::decode(&bytes)?, &challenge, 30, 5, &mut seen, expires_at, now, &mut rng)?;
//! let credential = client.refund(&pre_refund, &token, &Refund::from_cbor(&refund.to_cbor())?)?;
//! assert_eq!(credential.credits::<L>()?, 75);
//! assert_eq!(
//!     issuer.redeem(&token, &challenge, 30, 5, &mut seen, expires_at, now, &mut rng),
//!     Err(Error::Replayed)
//! );
//! # Ok(())
//! # }
//! ```

use crate::crypto::act::{IssuanceRequest, IssuanceResponse, Refund, SPEND_PROOF_MAX_LEN, spend_proof_len};
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN};

mod client;
mod issuer;
mod wire;

pub use client::{Client, RequestState};
pub use issuer::{Issuer, Verified};
pub use wire::{ActChallenge, Token, TokenRequest, TokenResponse};

/// The token type code point.
pub const TOKEN_TYPE: u16 = 0xE5AD;
pub use crate::wire::credential_challenge::CREDENTIAL_CONTEXT_LEN;
/// Length of the token key: the raw ristretto255 public key.
pub const TOKEN_KEY_LEN: usize = 32;
/// Length of a `TokenRequest`: type ‖ truncated key id ‖ request.
pub const REQUEST_LEN: usize = 2 + 1 + IssuanceRequest::LEN;
/// Length of a `TokenResponse`.
pub const RESPONSE_LEN: usize = IssuanceResponse::LEN;
/// Length of a refund.
pub const REFUND_LEN: usize = Refund::LEN;
/// Length of a token without its spend proof.
pub const TOKEN_HEADER_LEN: usize = 2 + CHALLENGE_DIGEST_LEN + KEY_ID_LEN;
/// The longest token (L = 128).
pub const TOKEN_MAX_LEN: usize = TOKEN_HEADER_LEN + SPEND_PROOF_MAX_LEN;

/// Length of a token for the bit length `l` (1 ≤ l ≤ 128).
pub const fn token_len(l: usize) -> usize {
    TOKEN_HEADER_LEN + spend_proof_len(l)
}

/// ACT's origin is its issuer: spends are checked with the issuer's secret
/// key ([`Issuer::verify`], and `redeem` with a replay store).
pub type Origin<const L: usize> = Issuer<L>;
