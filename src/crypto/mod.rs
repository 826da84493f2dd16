//! The cryptographic layer: the primitives the token families are built on.
//!
//! | module | primitive | specification |
//! |---|---|---|
//! | [`voprf`] | verifiable OPRF over P-384 and ristretto255, batched DLEQ proofs | RFC 9497 |
//! | [`blind_rsa`] | RSA blind signatures (RSABSSA-SHA384-PSS) and the partially blind variant | RFC 9474, draft-amjad-cfrg-partially-blind-rsa |
//! | [`key_blinding`] | blinded ECDSA P-384 and Ed25519 keys | draft-irtf-cfrg-signature-key-blinding |
//! | [`rate_limited`] | the HPKE encapsulation, origin encryption and alias of type 0x0003 | draft-ietf-privacypass-rate-limit-tokens |
//! | [`arc`] | anonymous rate-limited credentials: MAC, presentation and proofs | draft-ietf-privacypass-arc-crypto |
//!
//! A module here may use the crate-wide modules and [`wire`](crate::wire)
//! (for the codec and the registry's sizes), never
//! [`tokens`](crate::tokens) or [`deploy`](crate::deploy) (`tests/layers.rs`
//! checks it).

pub mod act;
pub mod arc;
pub mod athm;
pub mod blind_rsa;
pub(crate) mod jacobian;
pub mod key_blinding;
#[cfg(feature = "precomputed-tables")]
mod naf;
pub mod rate_limited;
pub mod voprf;
