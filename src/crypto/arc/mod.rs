//! Anonymous Rate-Limited Credentials over P-256 (ARC(P-256)).
//!
//! Pinned revision: **draft-ietf-privacypass-arc-crypto-01** (March 2026),
//! whose proofs are built with draft-irtf-cfrg-sigma-protocols-01 and
//! draft-irtf-cfrg-fiat-shamir-01 (`NISchnorrProofShake128P256`). Its test
//! vectors (`poc/vectors/allVectors.json` of the draft's repository at the
//! -01 tag) pass byte for byte, proofs included; see `tests/vectors/arc/`.
//!
//! A server issues a credential once; the client then makes up to a fixed
//! number of unlinkable presentations per presentation context, each with a
//! tag the server keeps to refuse a second use of the same nonce.
//!
//! | step | client | server |
//! |---|---|---|
//! | keys | | [`ServerPrivateKey::generate`] (§4.1) |
//! | request | [`CredentialRequestState::new`] → [`CredentialRequest`] (§4.2.1) | |
//! | response | | [`ServerPrivateKey::respond`] → [`CredentialResponse`] (§4.2.2) |
//! | finalize | [`CredentialRequestState::finalize`] → [`Credential`] (§4.2.3) | |
//! | present | [`PresentationState::present`] (§4.3.2) | |
//! | verify | | [`ServerPrivateKey::verify_presentation`] (§4.3.3) |
//!
//! The three proofs are statements of one sigma-protocol compiler (the
//! private module `sigma`); the presentation proof carries the range proof
//! of §5.4, which shows the hidden nonce lies below the limit.
//!
//! No allocation: messages are fixed arrays or borrow their input, the
//! presentation is written into a caller buffer
//! ([`messages::presentation_len`], at most
//! [`messages::PRESENTATION_MAX_LEN`] bytes), and every state a client keeps
//! exports to a fixed-size byte string.
//!
//! Secrets (server scalars, m1, r1, r2, the presentation blinds and the
//! nonce) are used only in constant-time arithmetic, wiped when their
//! holders drop (exports come back as `Zeroizing` arrays; `p256::Scalar` is
//! `Copy`, so register and stack copies the compiler makes are out of
//! reach), and never printed by `Debug`.
//!
//! Using a credential: one [`PresentationState`] per presentation context,
//! kept for the credential's life. The tag depends on the context and the
//! nonce, not on the limit (an open issue of the draft), so a second state
//! for the same context repeats the first one's tags. A credential is bound
//! to the request context it was issued for (for type 0xE5AC, the
//! challenge's `credential_context`), which the credential does not record:
//! presentations for a challenge with another credential context fail at
//! the origin.
//!
//! The Privacy Pass token type built on this (0xE5AC,
//! draft-ietf-privacypass-arc-protocol-01) is [`crate::tokens::arc`].

mod client;
mod fixed_base;
pub(crate) mod group;
#[cfg(feature = "precomputed-tables")]
mod p256_jacobian;
// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;
pub mod messages;
mod proofs;
mod random;
mod server;
mod sigma;

pub use client::{Credential, CredentialRequestState, Presentation, PresentationState};
pub use group::{CONTEXT_STRING, NE, NS};
pub use messages::{CredentialRequest, CredentialResponse, PresentationRef};
pub use server::{ServerPrivateKey, ServerPublicKey};
