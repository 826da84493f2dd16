//! Measurement harness for the issuer's RSA-2048 private operation
//! (`blind_rsa::blind_sign`), for profiling: wall time and instruction counts.
//!
//! ```sh
//! # wall time: median of PAT_PERF_ITERS (default 2000) single calls
//! cargo bench --bench rsa_sign
//! # instructions per blind_sign (deterministic): run under callgrind with
//! # PAT_PERF_ITERS=21 and =1 and divide the difference by 20
//! PAT_PERF_ITERS=21 valgrind --tool=callgrind --dump-instr=no target/release/deps/rsa_sign-<hash>
//! ```
#![allow(
    missing_docs,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use core::hint::black_box;
use std::time::Instant;
use std::vec::Vec;

use pat::blind_rsa::{self, PublicKey, SecretKey};
use serde_json::Value;

const PATGO_TYPE2: &str = "tests/vectors/pat-go/tokens/type2/type2-issuance-test-vectors.json";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn main() {
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
