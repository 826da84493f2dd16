//! dudect timing benches for pat's secret-dependent operations. Too noisy
//! for CI; run by hand, release build:
//!
//! ```sh
//! cargo run --release --locked --manifest-path secret-checks/Cargo.toml --bin dudect
//! cargo run --release --locked --manifest-path secret-checks/Cargo.toml --bin dudect -- --filter rsa_sign
//! cargo run --release --locked --manifest-path secret-checks/Cargo.toml --bin dudect -- --continuous token_ct_eq
//! ```
//!
//! Each bench times one operation on two classes of secret inputs, randomly
//! interleaved, and reports Welch's t over several cropped percentiles; |t| > 5
//! means the two classes are distinguishable, i.e. a timing leak. Public inputs
//! (messages, keys) are the same in both classes. `leaky_eq` is the control: an
//! early-exit comparison that must show |t| > 5, or the run could not detect
//! anything. `PAT_DUDECT_SCALE` multiplies every sample count (default 1).

use std::hint::black_box;

use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use crypto_bigint::{Odd, U2048};
use dudect_bencher::rand::{Rng, RngExt};
use dudect_bencher::{BenchRng, Class, CtRunner, ctbench_main};
use pat::crypto::blind_rsa::{self, SecretKey};
use pat::crypto::key_blinding::{ecdsa_p384 as ecdsa, ed25519};
use pat::crypto::voprf::{P384Sha384, Ristretto255Sha512};
use pat::{Token, TokenInput, TokenKind};
use subtle::ConstantTimeEq;

/// Samples per bench, times `PAT_DUDECT_SCALE`.
fn samples(base: usize) -> usize {
    let scale = std::env::var("PAT_DUDECT_SCALE").ok().and_then(|s| s.parse::<f64>().ok()).unwrap_or(1.0);
    ((base as f64) * scale).max(100.0) as usize
}

fn class(rng: &mut BenchRng) -> Class {
    if rng.random::<bool>() { Class::Left } else { Class::Right }
}

fn bytes<const N: usize>(rng: &mut BenchRng) -> [u8; N] {
    let mut out = [0u8; N];
    rng.fill_bytes(&mut out);
    out
}

/// Interleaves `n` inputs of the two classes: `fixed` (Left) or `random(rng)` (Right).
fn inputs<T: Clone>(n: usize, rng: &mut BenchRng, fixed: &T, random: impl Fn(&mut BenchRng) -> T) -> Vec<(Class, T)> {
    (0..n)
        .map(|_| match class(rng) {
            Class::Left => (Class::Left, fixed.clone()),
            Class::Right => (Class::Right, random(rng)),
        })
        .collect()
}

fn p384_scalar(rng: &mut BenchRng) -> [u8; 48] {
    let mut s = bytes::<48>(rng);
    s[0] &= 0x7f; // below the group order
    s[47] |= 1; // non-zero
    s
}

fn r255_scalar(rng: &mut BenchRng) -> [u8; 32] {
    let mut s = bytes::<32>(rng);
    s[31] &= 0x0f; // below ℓ
    s[0] |= 1;
    s
}

const MSG: &[u8] = b"token input: the same public message in both classes";

/// VOPRF `Blind` (RFC 9497 §3.3.1) for P-384: fixed blind vs random blinds.
fn voprf_blind_p384(runner: &mut CtRunner, rng: &mut BenchRng) {
    let fixed = p384_scalar(rng);
    for (class, b) in inputs(samples(20_000), rng, &fixed, p384_scalar) {
        runner.run_one(class, || pat::hazmat::crypto::voprf::blind_with::<P384Sha384>(MSG, &b).is_ok());
    }
}

/// VOPRF `Blind` for ristretto255: fixed blind vs random blinds.
fn voprf_blind_r255(runner: &mut CtRunner, rng: &mut BenchRng) {
    let fixed = r255_scalar(rng);
    for (class, b) in inputs(samples(50_000), rng, &fixed, r255_scalar) {
        runner.run_one(class, || pat::hazmat::crypto::voprf::blind_with::<Ristretto255Sha512>(MSG, &b).is_ok());
    }
}

/// A fixed RSA-2048 key for the RSA benches (generated once per bench).
fn rsa_key(rng: &mut BenchRng) -> SecretKey {
    SecretKey::generate(rng).unwrap_or_else(|e| panic!("RSA key generation: {e}"))
}

/// A uniformly random value below n (top byte cleared, n's top bit is set).
fn below_n(rng: &mut BenchRng) -> [u8; 256] {
    let mut r = bytes::<256>(rng);
    r[0] &= 0x7f;
    r[255] |= 1;
    r
}

/// RSA client `Blind` (RFC 9474 §4.2: PSS encoding, rᵉ, r⁻¹, m·rᵉ): fixed r vs random r.
fn rsa_blind(runner: &mut CtRunner, rng: &mut BenchRng) {
    let pk = rsa_key(rng).public_key().clone();
    let salt = bytes::<48>(rng);
    let fixed = below_n(rng);
    for (class, r) in inputs(samples(10_000), rng, &fixed, below_n) {
        runner.run_one(class, || pat::hazmat::crypto::blind_rsa::blind_with(&pk, MSG, &salt, &r).is_ok());
    }
}

/// The inversion r⁻¹ mod n that the client's blind uses (crypto-bigint's
/// constant-time `FixedMontyForm::invert`): fixed r vs random r.
fn rsa_invert(runner: &mut CtRunner, rng: &mut BenchRng) {
    let pk = rsa_key(rng).public_key().clone();
    let n = Odd::new(U2048::from_be_slice(pk.modulus())).into_option().unwrap_or_else(|| panic!("even modulus"));
    let params = FixedMontyParams::new_vartime(n);
    let to_mont = |r: &[u8; 256]| FixedMontyForm::new(&U2048::from_be_slice(r), &params);
    let fixed = to_mont(&below_n(rng));
    for (class, r) in inputs(samples(10_000), rng, &fixed, |rng| to_mont(&below_n(rng))) {
        runner.run_one(class, || r.invert().is_some());
    }
}

/// Issuer `BlindSign` (RFC 9474 §4.3; CRT, Garner, verify-after-sign): a fixed
/// blinded message vs random ones, same key.
fn rsa_sign(runner: &mut CtRunner, rng: &mut BenchRng) {
    let sk = rsa_key(rng);
    let fixed = below_n(rng);
    for (class, m) in inputs(samples(5_000), rng, &fixed, below_n) {
        runner.run_one(class, || blind_rsa::blind_sign(&sk, &m).is_ok());
    }
}

/// ECDSA P-384 `BlindPublicKey` (HashToScalar of the blind, then u·pkS) with
/// the constant-time fixed-length blind encoding: fixed blind vs random blinds.
fn key_blind_ecdsa(runner: &mut CtRunner, rng: &mut BenchRng) {
    let pk = ecdsa::SecretKey::from_bytes(&p384_scalar(rng)).map(|sk| sk.public_key()).unwrap_or_else(|_| panic!());
    let fixed = bytes::<48>(rng);
    for (class, b) in inputs(samples(10_000), rng, &fixed, bytes::<48>) {
        let bk = ecdsa::BlindKey::with_encoding(&b, ecdsa::BlindKeyEncoding::Fixed);
        runner.run_one(class, || ecdsa::blind_public_key(&pk, &bk, b"ctx").is_ok());
    }
}

/// Ed25519 `BlindPublicKey` (SHA-512 of the blind, then s·A): fixed blind vs random blinds.
fn key_blind_ed25519(runner: &mut CtRunner, rng: &mut BenchRng) {
    let pk = ed25519::SecretKey::from_bytes(&bytes::<32>(rng)).public_key();
    let fixed = bytes::<32>(rng);
    for (class, b) in inputs(samples(30_000), rng, &fixed, bytes::<32>) {
        let bk = ed25519::BlindKey::from_bytes(&b);
        runner.run_one(class, || ed25519::blind_public_key(&pk, &bk, b"ctx").is_ok());
    }
}

/// A random type-1 token.
fn token(rng: &mut BenchRng) -> Token<48> {
    let input = TokenInput::new(TokenKind::PrivateP384, &bytes(rng), &bytes(rng), &bytes(rng));
    Token::new(input, bytes(rng)).unwrap_or_else(|_| panic!())
}

/// Flips the first byte two valid tokens of one type can differ in: the first
/// nonce byte (token byte 2; bytes 0–1 are the token type).
fn differ_early(t: &Token<48>) -> Token<48> {
    let mut input = *t.input().as_bytes();
    input[2] ^= 1;
    Token::new(TokenInput::from_bytes(&input).unwrap_or_else(|_| panic!()), *t.authenticator())
        .unwrap_or_else(|_| panic!())
}

/// `Token` equality (`subtle::ConstantTimeEq`): equal pairs vs pairs that
/// differ in their first variable byte.
fn token_ct_eq(runner: &mut CtRunner, rng: &mut BenchRng) {
    let pairs: Vec<(Class, Token<48>, Token<48>)> = (0..samples(1_000_000))
        .map(|_| {
            let a = token(rng);
            match class(rng) {
                Class::Left => (Class::Left, a.clone(), a),
                Class::Right => (Class::Right, differ_early(&a), a),
            }
        })
        .collect();
    for (class, a, b) in &pairs {
        runner.run_one(*class, || black_box(a).ct_eq(black_box(b)));
    }
}

/// The control: an early-exit byte comparison (what `==` on byte slices does
/// in spirit), equal 146-byte pairs vs pairs differing in the first byte. It
/// must show |t| > 5.
fn leaky_eq(runner: &mut CtRunner, rng: &mut BenchRng) {
    fn early_exit_eq(a: &[u8], b: &[u8]) -> bool {
        if a.len() != b.len() {
            return false;
        }
        for (x, y) in a.iter().zip(b) {
            if x != y {
                return false;
            }
        }
        true
    }
    let pairs: Vec<(Class, Vec<u8>, Vec<u8>)> = (0..samples(1_000_000))
        .map(|_| {
            let a = bytes::<146>(rng).to_vec();
            match class(rng) {
                Class::Left => (Class::Left, a.clone(), a),
                Class::Right => {
                    let mut b = a.clone();
                    b[0] ^= 1;
                    (Class::Right, a, b)
                }
            }
        })
        .collect();
    for (class, a, b) in &pairs {
        runner.run_one(*class, || early_exit_eq(black_box(a), black_box(b)));
    }
}

ctbench_main!(
    voprf_blind_p384,
    voprf_blind_r255,
    rsa_blind,
    rsa_invert,
    rsa_sign,
    key_blind_ecdsa,
    key_blind_ed25519,
    token_ct_eq,
    leaky_eq
);
