//! Helpers shared by the integration tests (each test file is its own crate
//! and uses a subset, hence the `dead_code` allowance).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use pat::OsRng;
use pat::wire::codec::Encode;
use rand_core::UnwrapErr;
use serde_json::Value;

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

/// Lowercase or uppercase hex to bytes; panics on an odd length or a bad digit.
pub fn hex(s: &str) -> Vec<u8> {
    assert!(s.len().is_multiple_of(2), "odd-length hex: {s}");
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex digit")).collect()
}

/// Bytes to lowercase hex.
pub fn hex_of(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The path of a file under `tests/vectors/`.
pub fn vector_path(path: &str) -> String {
    format!("{}/tests/vectors/{path}", env!("CARGO_MANIFEST_DIR"))
}

/// A JSON file under `tests/vectors/`.
pub fn load(path: &str) -> Value {
    let full = vector_path(path);
    let text = std::fs::read_to_string(&full).unwrap_or_else(|e| panic!("{full}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{full}: {e}"))
}

/// The hex string field `key` of a JSON object, as bytes.
pub fn field(v: &Value, key: &str) -> Vec<u8> {
    hex(v[key].as_str().unwrap_or_else(|| panic!("missing {key}")))
}
