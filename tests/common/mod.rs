//! Helpers shared by the integration tests (each test file is its own crate
//! and uses a subset, hence the `dead_code` allowance).
#![allow(dead_code, clippy::unwrap_used)]

use pat::OsRng;
use pat::codec::Encode;
use rand_core::UnwrapErr;

/// The OS generator as an infallible `CryptoRng` (tests only: it panics if the OS fails).
pub fn rng() -> UnwrapErr<OsRng> {
    UnwrapErr(OsRng)
}

/// Encodes a message into a fresh vector, checking the reported length.
pub fn encode(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    assert_eq!(m.encode(&mut out).unwrap(), out.len());
    out
}
