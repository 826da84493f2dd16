//! # Hazardous: deterministic amortized batch requests
//!
//! [`request_batch_with`] takes one token nonce and one VOPRF blind per token
//! as arguments, so that pat-go's known answers can be reproduced. It exists
//! for tests only.
//!
//! **Never use it to request real tokens.** The issuer sees every
//! `blind_i·HashToGroup(token_input_i)`; with blinds it can predict or that
//! are reused, it links each redeemed token to the batch it came from, which
//! removes the unlinkability Privacy Pass exists for. A reused nonce makes
//! two tokens for the same challenge identical. [`Client::request_batch`](crate::tokens::private::Client::request_batch)
//! draws them from a cryptographic generator.

pub use crate::tokens::amortized::deterministic::request_batch_with;
