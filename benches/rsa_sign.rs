//! Measurement harness for the RSA-2048 operations of token type 0x0002, for
//! profiling: wall time and instruction counts. `PAT_PERF_OP` picks the
//! operation (default `sign`):
//!
//! - `sign`: the issuer's private operation `blind_rsa::blind_sign`;
//! - `blind`: the client request `blind_rsa::blind` (PSS encoding, blind
//!   sampling, rᵉ, r⁻¹), with a seeded generator so that runs repeat;
//! - `blind_with`: `pat::hazmat::crypto::blind_rsa::blind_with` (explicit salt and r, as in the vectors);
//! - `finalize`: `blind_rsa::finalize` (unblinding and PSS verification);
//!   each call needs a fresh state from `blind_with`, whose instructions are
//!   counted too (subtract a `blind_with` run);
//! - `verify`: `blind_rsa::verify` (the origin's check).
//!
//! `PAT_PERF_KERNEL` forces the RSA private operation's Montgomery kernel
//! (`portable`, `avx2` or `ifma`; default: the fastest this CPU has, see
//! `pat::hazmat::crypto::blind_rsa::force_kernel`).
//!
//! ```sh
//! # wall time: median of PAT_PERF_ITERS (default 2000) single calls
//! cargo bench --bench rsa_sign
//! PAT_PERF_OP=verify cargo bench --bench rsa_sign
//! # instructions per call (deterministic): run under callgrind with
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
use std::time::{Duration, Instant};
use std::vec::Vec;

use pat::crypto::blind_rsa::{self, PublicKey, SecretKey};
use pat_testkit::TestRng;
use serde_json::Value;

const PATGO_TYPE2: &str = "tests/vectors/pat-go/tokens/type2/type2-issuance-test-vectors.json";

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

fn time(iters: usize, mut f: impl FnMut()) -> Vec<Duration> {
    let mut times = Vec::with_capacity(iters);
    for _ in 0..iters {
        let start = Instant::now();
        f();
        times.push(start.elapsed());
    }
    times.sort();
    times
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
    let token = hex(v["token"].as_str().unwrap());
    let (input, authenticator) = token.split_at(98);
    let salt: [u8; blind_rsa::SALT_LEN] = hex(v["salt"].as_str().unwrap()).try_into().unwrap();
    let r: [u8; blind_rsa::MODULUS_LEN] = hex(v["blind"].as_str().unwrap()).try_into().unwrap();
    assert_eq!(sk.public_key(), &pk);

    let iters: usize = std::env::var("PAT_PERF_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(2000);
    let op = std::env::var("PAT_PERF_OP").unwrap_or_else(|_| "sign".into());
    {
        use pat::hazmat::crypto::blind_rsa::{Kernel, active_kernel, force_kernel};
        let kernel = match std::env::var("PAT_PERF_KERNEL").as_deref() {
            Ok("portable") => Some(Kernel::Portable),
            Ok("avx2") => Some(Kernel::Avx2),
            Ok("ifma") => Some(Kernel::Ifma),
            Ok("") | Err(_) => None,
            Ok(other) => panic!("unknown PAT_PERF_KERNEL {other} (portable, avx2, ifma)"),
        };
        assert!(force_kernel(kernel), "this CPU cannot run the {kernel:?} kernel");
        eprintln!("RSA kernel: {:?}", active_kernel());
    }
    // Seeded: reproducible blinds for instruction counts (never for real use).
    let mut rng = TestRng::new(0x0123_4567_89ab_cdef);
    let times = match op.as_str() {
        "sign" => time(iters, || {
            let sig = blind_rsa::blind_sign(black_box(&sk), black_box(blinded)).unwrap();
            assert_eq!(&sig[..], expected.as_slice());
        }),
        "blind" => time(iters, || {
            black_box(blind_rsa::blind(black_box(&pk), black_box(input), &mut rng).unwrap());
        }),
        "blind_with" => time(iters, || {
            black_box(pat::hazmat::crypto::blind_rsa::blind_with(black_box(&pk), black_box(input), &salt, &r).unwrap());
        }),
        // Each call also runs `blind_with` for a fresh state: its wall time is
        // left out, its instructions are not (subtract the `blind_with` count).
        "finalize" => {
            let mut times = Vec::with_capacity(iters);
            for _ in 0..iters {
                let (_, state) = pat::hazmat::crypto::blind_rsa::blind_with(&pk, input, &salt, &r).unwrap();
                let start = Instant::now();
                let sig = blind_rsa::finalize(black_box(&pk), black_box(input), &state, black_box(&expected)).unwrap();
                times.push(start.elapsed());
                assert_eq!(&sig[..], authenticator);
            }
            times.sort();
            times
        }
        "verify" => time(iters, || {
            blind_rsa::verify(black_box(&pk), black_box(input), black_box(authenticator)).unwrap();
        }),
        other => panic!("unknown PAT_PERF_OP {other} (sign, blind, blind_with, finalize, verify)"),
    };
    let median = times[times.len() / 2];
    let p10 = times[times.len() / 10];
    println!("{op} RSA-2048: {iters} calls, median {median:?}, p10 {p10:?}, min {:?}", times[0]);
}
