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
//! [`Client::request`](crate::tokens::rate_limited::Client::request) draws all of them from a cryptographic generator.

pub use crate::tokens::rate_limited::deterministic::{RequestRandomness, request_with};
