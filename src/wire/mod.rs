//! The wire layer: how every message looks on the wire, and nothing else.
//!
//! Encodings only, no cryptography: the codec every message uses
//! ([`codec`]), the token challenge (RFC 9577 §2.1, [`challenge`]), the token
//! and its input (RFC 9577 §2.2, [`token`]), the registry of token types with
//! their sizes ([`token_type`]), the extensions of the auth-scheme-extensions
//! draft ([`extensions`]) and the set of extension types an origin asks for
//! ([`extension_set`]), and the `PrivateToken` HTTP authentication headers
//! ([`auth`]). A module here may use the crate-wide modules (`error`, `rng`,
//! `secret`) and other wire modules; never [`crypto`](crate::crypto),
//! [`tokens`](crate::tokens) or [`deploy`](crate::deploy) (`tests/layers.rs`
//! checks it).

pub mod auth;
pub mod challenge;
pub mod codec;
pub mod credential_challenge;
pub mod extension_set;
pub mod extensions;
pub(crate) mod json;
pub mod token;
pub mod token_type;
