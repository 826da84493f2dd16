//! # Hazardous: deterministic requests for type 0xDA7A
//!
//! [`request_with`] takes the token nonce, the PSS salt and the RSA blind as
//! arguments, so that the known answers of privacypass-ts and of the
//! public-metadata draft can be reproduced. It exists for tests only.
//!
//! **Never use it to request real tokens**: a blind the issuer can predict
//! links the token to its request, as for type 0x0002
//! ([`hazmat::tokens::public`](crate::hazmat::tokens::public)). [`Client::request`](crate::tokens::metadata::Client::request) draws all three
//! from a cryptographic generator.

pub use crate::tokens::metadata::deterministic::request_with;
