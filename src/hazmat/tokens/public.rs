//! # Hazardous: deterministic requests for type 0x0002
//!
//! [`request_with`] takes the token nonce, the PSS salt and the RSA blind as
//! arguments, so that pat-go's and RFC 9578's known answers can be
//! reproduced. It exists for tests only.
//!
//! **Never use it to request real tokens.** The issuer sees the blinded
//! message `m·r^e`; with a blind `r` it can predict or that is reused, it
//! recomputes that value from the redeemed token and links redemption to
//! issuance, which removes the unlinkability Privacy Pass exists for. A
//! reused nonce makes two tokens for the same challenge share their input,
//! so the second is a replay. [`Client::request`](crate::tokens::public::Client::request) draws all three from a
//! cryptographic generator.

pub use crate::tokens::public::deterministic::request_with;
