//! Deterministic requests of the token families of [`crate::tokens`].

pub mod amortized;
pub mod metadata;
pub mod poprf;
pub mod private;
pub mod public;
pub mod rate_limited;
