//! Deterministic variants of the primitives of [`crate::crypto`].

pub mod arc;
pub mod blind_rsa;
pub mod rate_limited;
pub mod voprf;
