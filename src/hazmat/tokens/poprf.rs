//! # Hazardous: deterministic request and evaluation for type 0xDA7B
//!
//! [`request_with`] takes the token nonce and the POPRF blind as arguments,
//! and [`evaluate_with_nonce`] the issuer's proof nonce, so that the type's
//! vectors (`pat vectors generate --kind type-da7b`) can be reproduced. They exist
//! for tests only.
//!
//! **Never use them to request or issue real tokens.** With a blind it can
//! predict or that is reused, the issuer recognises the token at redemption
//! and links it to its request. A proof nonce used twice, or predictable,
//! gives away the issuer's tweaked secret key and with it the key itself.
//! [`Client::request`](crate::tokens::poprf::Client::request) and
//! [`Issuer::evaluate`](crate::tokens::poprf::Issuer::evaluate) draw them
//! from a cryptographic generator.

pub use crate::tokens::poprf::deterministic::{evaluate_with_nonce, request_with};
