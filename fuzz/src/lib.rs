//! Fuzz-crate-only checks.
pub mod differential;
