//! # Hazardous: deterministic VOPRF and OPRF entry points
//!
//! These functions take the values the protocol draws at random (the client's
//! blind, the issuer's proof nonce) as arguments, so that the known answers of
//! RFC 9497 Appendix A can be reproduced. They exist for tests only.
//!
//! **Never use them to issue or redeem real tokens.** A blind that is reused,
//! predictable or chosen by someone else links the token to its request (the
//! issuer sees `blind·H(input)` and can recompute it), which removes the
//! unlinkability Privacy Pass exists for. A proof nonce that repeats across
//! two proofs, or that an attacker can predict, reveals the issuer's secret
//! key `skS` from the two responses (RFC 9497 §2.2.1). The randomized
//! functions in [`voprf`](crate::crypto::voprf) draw both from a cryptographic generator.

pub use crate::crypto::voprf::deterministic::{
    blind_evaluate_with_nonce, blind_with, oprf_blind_with, poprf_blind_evaluate_with_nonce, poprf_blind_with,
};
