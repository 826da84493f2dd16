//! # Hazardous: deterministic HPKE and response encryption for type 0x0003
//!
//! These functions take the encryption randomness (the HPKE ephemeral key
//! seed `ikm_e`, the issuer's `response_nonce`) as arguments, so that the
//! known answers of RFC 9180 Appendix A and of pat-go's type-3 vectors can be
//! reproduced. They exist for tests only.
//!
//! **Never use them to protect real traffic.** The same `ikm_e` for two
//! requests gives the same ephemeral key and so the same HPKE key and nonce:
//! the two inner requests (the origin name the attester must not see) can be
//! recovered from each other, and forged. A repeated `response_nonce` with the
//! same request secret repeats the AES-GCM key and nonce of the response,
//! which reveals the XOR of the two blind signatures and the GHASH key. The
//! functions in [`origin_encryption`](crate::crypto::rate_limited::origin_encryption) and
//! [`response`](crate::crypto::rate_limited::response) draw them from a cryptographic generator.

pub use crate::crypto::rate_limited::deterministic::{
    encrypt_origin_request_with_ikm, encrypt_response_with_nonce, open_base, seal_base,
};
