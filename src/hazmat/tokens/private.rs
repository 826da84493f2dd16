//! # Hazardous: deterministic requests for types 0x0001 and 0x0005
//!
//! [`request_with`] takes the token nonce and the VOPRF blind as arguments,
//! so that pat-go's and RFC 9578's known answers can be reproduced. It exists
//! for tests only.
//!
//! **Never use it to request real tokens.** The issuer sees
//! `blind·HashToGroup(token_input)`; with a blind it can predict or that is
//! reused, it recognises the token when it is redeemed and links the two,
//! which removes the unlinkability Privacy Pass exists for. A reused nonce
//! makes two tokens for the same challenge identical, so the second is a
//! replay. [`Client::request`](crate::tokens::private::Client::request) draws both from a cryptographic generator.

pub use crate::tokens::private::deterministic::request_with;
