//! Wycheproof-style edge cases for partially blind RSA
//! (`pat::crypto::blind_rsa::partial`, token type 0xDA7A), on the draft's safe-prime
//! RSA-2048 key: boundary signatures and blinded messages, wrong lengths,
//! extreme `info` lengths and metadata one byte away. Each case pins the
//! exact answer the library gives.
//!
//! Semantics worth knowing (pinned here, not changed): `blind_sign` is
//! RSASP1 over any integer in [0, n), as RFC 9474 §4.3 and the draft's
//! `BlindSign` specify, so it signs 0, 1 and n − 1 and answers 0, 1 and
//! n − 1 (the fixed points of x ↦ x^d′). A blind signer cannot tell these
//! from real requests without breaking blindness; they yield no valid
//! signature, since no PSS encoding is 0, 1 or n − 1 (the encoded message
//! ends in 0xbc).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::partial::{DerivedPublicKey, DerivedSecretKey};
use pat::crypto::blind_rsa::{PreparedMessage, SecretKey, Variant};
use pat::{Error, Field};

mod common;
use common::{field, load, rng};

const VARIANT: Variant = Variant::Sha384PssDeterministic;

fn key() -> &'static SecretKey {
    static KEY: OnceLock<SecretKey> = OnceLock::new();
    KEY.get_or_init(|| {
        let v = &load("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json")[0];
        let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| field(v, f));
        SecretKey::from_components(&n, &e, &d, &p, &q).unwrap()
    })
}

/// n, big-endian, 256 bytes.
fn modulus() -> Vec<u8> {
    let n = field(&load("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json")[0], "n");
    assert_eq!(n.len(), 256);
    n
}

/// A 256-byte big-endian integer from a small value.
fn small(x: u8) -> Vec<u8> {
    let mut v = vec![0u8; 256];
    v[255] = x;
    v
}

/// n − 1 (n is odd, so only the last byte changes).
fn n_minus_one() -> Vec<u8> {
    let mut v = modulus();
    assert_eq!(v[255] & 1, 1);
    v[255] -= 1;
    v
}

/// The boundary integers of a 2048-bit modulus, with their names.
fn boundaries() -> Vec<(&'static str, Vec<u8>)> {
    vec![("0", small(0)), ("1", small(1)), ("n - 1", n_minus_one()), ("n", modulus()), ("2^2048 - 1", vec![0xff; 256])]
}

/// One signature made through the whole protocol for `msg` under `info`.
fn sign(info: &[u8], msg: &[u8]) -> [u8; 256] {
    let pk = DerivedPublicKey::new(key().public_key(), info).unwrap();
    let input = PreparedMessage::identity(msg);
    let (blinded, state) = pk.blind(VARIANT, &input, &mut rng()).unwrap();
    let blind_sig = DerivedSecretKey::new(key(), info).unwrap().blind_sign(&blinded).unwrap();
    pk.finalize(VARIANT, &input, &state, &blind_sig).unwrap()
}

#[test]
fn verify_refuses_boundary_signatures() {
    let pk = DerivedPublicKey::new(key().public_key(), b"metadata").unwrap();
    let input = PreparedMessage::identity(b"hello world");
    let mut seen = 0;
    for (name, sig) in boundaries() {
        assert_eq!(pk.verify(VARIANT, &input, &sig), Err(Error::Verification), "signature {name}");
        seen += 1;
    }
    assert_eq!(seen, 5);
    // The draft's own signature passes, so the refusals above are not a key mismatch.
    let v = &load("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json")[0];
    let info = field(v, "info");
    let msg = field(v, "msg");
    let pk = DerivedPublicKey::new(key().public_key(), &info).unwrap();
    assert_eq!(pk.verify(VARIANT, &PreparedMessage::identity(&msg), &field(v, "sig")), Ok(()));
}

#[test]
fn verify_refuses_wrong_lengths() {
    let sig = sign(b"metadata", b"msg");
    let pk = DerivedPublicKey::new(key().public_key(), b"metadata").unwrap();
    let input = PreparedMessage::identity(b"msg");
    assert_eq!(pk.verify(VARIANT, &input, &sig), Ok(()));
    let mut padded = vec![0u8];
    padded.extend_from_slice(&sig);
    let mut doubled = sig.to_vec();
    doubled.extend_from_slice(&sig);
    for (name, bad) in [
        ("empty", Vec::new()),
        ("1 byte", vec![1]),
        ("255 bytes (first byte dropped)", sig[1..].to_vec()),
        ("255 bytes (last byte dropped)", sig[..255].to_vec()),
        ("257 bytes (leading zero)", padded),
        ("257 bytes (trailing zero)", [sig.as_slice(), &[0]].concat()),
        ("512 bytes", doubled),
    ] {
        assert_eq!(pk.verify(VARIANT, &input, &bad), Err(Error::Verification), "{name}");
    }
}

#[test]
fn blind_sign_boundary_messages() {
    let sk = DerivedSecretKey::new(key(), b"metadata").unwrap();
    // RSASP1 accepts every integer below n; 0, 1 and n − 1 are fixed points.
    assert_eq!(sk.blind_sign(&small(0)).unwrap().to_vec(), small(0));
    assert_eq!(sk.blind_sign(&small(1)).unwrap().to_vec(), small(1));
    assert_eq!(sk.blind_sign(&n_minus_one()).unwrap().to_vec(), n_minus_one());
    // n and above are not integers modulo n.
    assert_eq!(sk.blind_sign(&modulus()), Err(Error::InvalidValue(Field::Message)));
    assert_eq!(sk.blind_sign(&[0xff; 256]), Err(Error::InvalidValue(Field::Message)));
    // Wrong lengths.
    for len in [0, 1, 255, 257, 512] {
        assert_eq!(sk.blind_sign(&vec![0u8; len]), Err(Error::InvalidLength(Field::Message)), "{len} bytes");
    }
    // 2 is no fixed point: its signature is a real power.
    let s2 = sk.blind_sign(&small(2)).unwrap();
    assert_ne!(s2.to_vec(), small(2));
}

#[test]
fn finalize_of_boundary_blind_signatures() {
    // A client that receives 0, 1, n − 1, n or 2^2048 − 1 as its blind
    // signature gets a verification failure, never a token.
    let pk = DerivedPublicKey::new(key().public_key(), b"metadata").unwrap();
    let input = PreparedMessage::identity(b"msg");
    let (_, state) = pk.blind(VARIANT, &input, &mut rng()).unwrap();
    for (name, z) in boundaries() {
        assert_eq!(pk.finalize(VARIANT, &input, &state, &z), Err(Error::Verification), "blind_sig {name}");
    }
    assert_eq!(pk.finalize(VARIANT, &input, &state, &[0u8; 255]), Err(Error::InvalidLength(Field::Message)));
    assert_eq!(pk.finalize(VARIANT, &input, &state, &[0u8; 257]), Err(Error::InvalidLength(Field::Message)));
}

#[test]
fn info_of_length_zero_and_65537() {
    let long: Vec<u8> = (0..65_537u32).map(|i| u8::try_from(i % 251).unwrap()).collect();
    let mut exponents = Vec::new();
    for info in [&b""[..], &long] {
        let sig = sign(info, b"msg");
        let pk = DerivedPublicKey::new(key().public_key(), info).unwrap();
        assert_eq!(pk.verify(VARIANT, &PreparedMessage::identity(b"msg"), &sig), Ok(()), "info of {}", info.len());
        let mut e = [0u8; 128];
        pk.exponent_to_be(&mut e).unwrap();
        // e′ is odd and below 2^1022.
        assert_eq!(e[127] & 1, 1);
        assert_eq!(e[0] & 0xc0, 0);
        exponents.push(e);
    }
    assert_ne!(exponents[0], exponents[1]);
    // Neither signature verifies under the other info.
    let sig_empty = sign(b"", b"msg");
    let pk_long = DerivedPublicKey::new(key().public_key(), &long).unwrap();
    assert_eq!(pk_long.verify(VARIANT, &PreparedMessage::identity(b"msg"), &sig_empty), Err(Error::Verification));
}

#[test]
fn metadata_one_byte_away() {
    let info = b"\x00\x07\x00\x01\x00\x03\x01\x02\x03".to_vec();
    let sig = sign(&info, b"msg");
    let input = PreparedMessage::identity(b"msg");
    let mut variants: Vec<(String, Vec<u8>)> = Vec::new();
    for i in 0..info.len() {
        let mut other = info.clone();
        other[i] ^= 0x01;
        variants.push((format!("byte {i} flipped"), other));
    }
    variants.push(("one byte appended".into(), [info.as_slice(), &[0]].concat()));
    variants.push(("last byte dropped".into(), info[..info.len() - 1].to_vec()));
    variants.push(("one byte prepended".into(), [&[0u8][..], &info].concat()));
    for (name, other) in &variants {
        let pk = DerivedPublicKey::new(key().public_key(), other).unwrap();
        assert_eq!(pk.verify(VARIANT, &input, &sig), Err(Error::Verification), "{name}");
    }
    assert_eq!(variants.len(), 12);
    // A blind signature made under one info does not finalize under the
    // other: the client's finalize refuses it.
    let pk = DerivedPublicKey::new(key().public_key(), &info).unwrap();
    let (blinded, state) = pk.blind(VARIANT, &input, &mut rng()).unwrap();
    let mut other = info.clone();
    other[8] ^= 0x01;
    let wrong = DerivedSecretKey::new(key(), &other).unwrap().blind_sign(&blinded).unwrap();
    assert_eq!(pk.finalize(VARIANT, &input, &state, &wrong), Err(Error::Verification));
    let right = DerivedSecretKey::new(key(), &info).unwrap().blind_sign(&blinded).unwrap();
    assert!(pk.finalize(VARIANT, &input, &state, &right).is_ok());
}
