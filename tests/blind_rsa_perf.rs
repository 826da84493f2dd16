//! Measurement harness for the issuer's RSA-2048 private operation
//! (`blind_rsa::blind_sign`). Ignored by default; run it in release:
//!
//! ```sh
//! # wall time: median of PAT_PERF_ITERS (default 2000) single calls
//! cargo test --release --all-features --test blind_rsa_perf -- --ignored --nocapture
//! # instruction count of one blind_sign (deterministic)
//! PAT_PERF_ITERS=1 valgrind --tool=callgrind --dump-instr=no \
//!     --toggle-collect='pat::blind_rsa::blind_sign*' \
//!     target/release/deps/blind_rsa_perf-<hash> --ignored
//! ```
#![cfg(feature = "vectors")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use core::hint::black_box;
use std::time::Instant;
use std::vec::Vec;

use pat::blind_rsa::{self, PublicKey, SecretKey};
use serde_json::Value;

const PATGO_TYPE2: &str = "tests/vectors/pat-go/tokens/type2/type2-issuance-test-vectors.json";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

#[test]
#[ignore = "measurement harness; run in release with --ignored"]
fn blind_sign_timing() {
    let text = std::fs::read_to_string(PATGO_TYPE2).unwrap();
    let v: Value = serde_json::from_str(&text).unwrap();
    let v = &v.as_array().unwrap()[0];
    let pem = String::from_utf8(hex(v["skS"].as_str().unwrap())).unwrap();
    let sk = SecretKey::from_pkcs8_pem(&pem).unwrap();
    let pk = PublicKey::from_spki(&hex(v["pkS"].as_str().unwrap())).unwrap();
    let request = hex(v["token_request"].as_str().unwrap());
    let blinded = &request[3..];
    let expected = hex(v["token_response"].as_str().unwrap());
    assert_eq!(sk.public_key(), &pk);

    let iters: usize = std::env::var("PAT_PERF_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let start = Instant::now();
        let sig = blind_rsa::blind_sign(black_box(&sk), black_box(blinded)).unwrap();
        times.push(start.elapsed());
        assert_eq!(&sig[..], expected.as_slice());
    }
    times.sort();
    let median = times[times.len() / 2];
    let p10 = times[times.len() / 10];
    println!("blind_sign RSA-2048: {iters} calls, median {median:?}, p10 {p10:?}, min {:?}", times[0]);
}
