//! Test-only crate: see `tests/interop.rs`.
