//! How long RSA-2048 issuer key generation takes: ordinary primes (type
//! 0x0002) and safe primes (type 0xDA7A, partially blind RSA). Safe primes
//! are rare, so the time varies a lot from key to key: the example prints
//! every run, the median and the range.
//!
//! ```text
//! cargo run --release --features keygen --example keygen_time [RUNS]
//! ```
#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use std::time::Instant;

use pat::crypto::blind_rsa::SecretKey;

fn runs(name: &str, n: usize, generate: impl Fn() -> SecretKey) {
    let mut times: Vec<f64> = (0..n)
        .map(|_| {
            let start = Instant::now();
            let key = generate();
            let t = start.elapsed().as_secs_f64();
            // The key must sign (blind_sign checks its own signature).
            pat::crypto::blind_rsa::blind_sign(&key, &[1u8; 256]).unwrap();
            t
        })
        .collect();
    let list: Vec<String> = times.iter().map(|t| format!("{t:.2}")).collect();
    times.sort_by(f64::total_cmp);
    println!(
        "{name}: median {:.2} s, min {:.2} s, max {:.2} s over {n} keys ({} s)",
        times[n / 2],
        times[0],
        times[n - 1],
        list.join(", ")
    );
}

fn main() {
    let n = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(10usize).max(1);
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    runs("ordinary primes", n, || SecretKey::generate(&mut rand_core::UnwrapErr(pat::OsRng)).unwrap());
    runs("safe primes", n, || SecretKey::generate_safe(&mut rand_core::UnwrapErr(pat::OsRng)).unwrap());
    // A safe-prime key derives a key pair for every metadata string.
    let key = SecretKey::generate_safe(&mut rng).unwrap();
    for i in 0u8..8 {
        key.derive(&[i]).unwrap();
    }
}
