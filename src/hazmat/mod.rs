//! # Hazardous: deterministic and test-only entry points
//!
//! Everything here takes, as an argument, a value the protocols require to be
//! fresh and secret: a client's blind, a token nonce, a PSS salt, a VOPRF
//! proof nonce, an HPKE ephemeral seed, an AES-GCM response nonce, or (for
//! ARC) the whole random stream. That is what the known-answer tests need,
//! and nothing else does.
//!
//! **What goes wrong in production.** A blind the issuer can predict, or one
//! used twice, lets it recompute the blinded value from the redeemed token
//! and link redemption to issuance: the unlinkability Privacy Pass exists for
//! is gone. A repeated nonce makes the second token a replay of the first. A
//! repeated proof nonce reveals the issuer's secret key from two responses. A
//! repeated HPKE seed or response nonce exposes the encrypted origin name and
//! the blind signatures. Each module below says which of these applies.
//!
//! This tree exists only with the `hazmat` feature, and it is the only place
//! the library exposes such functions: the ordinary entry points draw every
//! one of these values from a cryptographic generator. The tree mirrors the
//! layers: [`crypto`] for the primitives, [`tokens`] for the families.

pub mod crypto;
pub mod tokens;
