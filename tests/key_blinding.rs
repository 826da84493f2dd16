//! Key blinding (draft-irtf-cfrg-signature-key-blinding) against pat-go's
//! type-3 blinding vectors and the draft's own vectors, plus negative tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::Error;
use pat::crypto::key_blinding::{ecdsa_p384 as ecdsa, ed25519};

mod common;
use common::hex;

/// The P-384 group order n, big-endian.
const P384_ORDER: &str =
    "ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973";

#[test]
fn ecdsa_secret_key_range() {
    assert_eq!(ecdsa::SecretKey::from_bytes(&[0u8; 48]).unwrap_err(), Error::InvalidScalar);
    let n: [u8; 48] = hex(P384_ORDER).try_into().unwrap();
    assert_eq!(ecdsa::SecretKey::from_bytes(&n).unwrap_err(), Error::InvalidScalar);
    assert_eq!(ecdsa::SecretKey::from_bytes(&[0xff; 48]).unwrap_err(), Error::InvalidScalar);
    let mut n_minus_1 = n;
    n_minus_1[47] -= 1;
    let sk = ecdsa::SecretKey::from_bytes(&n_minus_1).unwrap();
    assert_eq!(*sk.to_bytes(), n_minus_1);
    let mut one = [0u8; 48];
    one[47] = 1;
    assert!(ecdsa::SecretKey::from_bytes(&one).is_ok());
    assert_eq!(format!("{sk:?}"), "SecretKey");
    assert_eq!(format!("{:?}", ecdsa::BlindKey::from_bytes(&one)), "BlindKey");
    let u = ecdsa::blind_scalar(&ecdsa::BlindKey::from_bytes(&one), b"").unwrap();
    assert_eq!(format!("{u:?}"), "BlindScalar");
}

#[test]
fn ecdsa_public_key_decoding() {
    assert_eq!(ecdsa::PublicKey::from_bytes(&[0u8; 49]).unwrap_err(), Error::InvalidElement);
    let mut bad = [0u8; 49];
    bad[0] = 0x04;
    assert_eq!(ecdsa::PublicKey::from_bytes(&bad).unwrap_err(), Error::InvalidElement);
    // x = 0 is not the x-coordinate of a P-384 point... try x = p: not canonical.
    let mut p = [0xffu8; 49];
    p[0] = 0x02;
    assert_eq!(ecdsa::PublicKey::from_bytes(&p).unwrap_err(), Error::InvalidElement);
}

#[test]
fn ecdsa_round_trips_and_wrong_blind() {
    let mut rng = pat::OsRng;
    for encoding in [ecdsa::BlindKeyEncoding::Minimal, ecdsa::BlindKeyEncoding::Fixed] {
        let sk = ecdsa::SecretKey::random(&mut rng).unwrap();
        let pk = sk.public_key();
        let bk = ecdsa::BlindKey::random(&mut rng, encoding).unwrap();
        let other = ecdsa::BlindKey::random(&mut rng, encoding).unwrap();
        let ctx = b"\x00\x03ClientBlind";
        let pk_r = ecdsa::blind_public_key(&pk, &bk, ctx).unwrap();
        assert_ne!(pk_r, pk);
        assert_eq!(ecdsa::unblind_public_key(&pk_r, &bk, ctx).unwrap(), pk);
        assert_eq!(ecdsa::blind_public_key(&ecdsa::unblind_public_key(&pk, &bk, ctx).unwrap(), &bk, ctx).unwrap(), pk);
        // Another context gives another key.
        assert_ne!(ecdsa::blind_public_key(&pk, &bk, b"").unwrap(), pk_r);

        let digest: [u8; 48] = {
            use sha2::Digest;
            sha2::Sha384::digest(b"request").into()
        };
        let sig = ecdsa::blind_key_sign(&sk, &bk, ctx, &digest, &mut rng).unwrap();
        ecdsa::verify_prehash(&pk_r, &digest, &sig).unwrap();
        // Hedged signing: two signatures differ.
        assert_ne!(ecdsa::blind_key_sign(&sk, &bk, ctx, &digest, &mut rng).unwrap(), sig);
        // Signed under the wrong blind: does not verify under pkR.
        let wrong = ecdsa::blind_key_sign(&sk, &other, ctx, &digest, &mut rng).unwrap();
        assert_eq!(ecdsa::verify_prehash(&pk_r, &digest, &wrong), Err(Error::Verification));
        // Wrong context.
        let wrong_ctx = ecdsa::blind_key_sign(&sk, &bk, b"", &digest, &mut rng).unwrap();
        assert_eq!(ecdsa::verify_prehash(&pk_r, &digest, &wrong_ctx), Err(Error::Verification));
        // Flipped signature bytes, zero r or s.
        let mut flipped = sig.to_bytes();
        flipped[95] ^= 1;
        let flipped = ecdsa::Signature::from_bytes(&flipped);
        assert_eq!(ecdsa::verify_prehash(&pk_r, &digest, &flipped), Err(Error::Verification));
        let zero = ecdsa::Signature::from_bytes(&[0u8; 96]);
        assert_eq!(ecdsa::verify_prehash(&pk_r, &digest, &zero), Err(Error::Verification));
    }
}

#[test]
fn ecdsa_blind_encodings_differ_on_leading_zero() {
    let sk = ecdsa::SecretKey::random(&mut pat::OsRng).unwrap();
    let pk = sk.public_key();
    let mut raw = [0x5au8; 48];
    raw[0] = 0;
    let minimal = ecdsa::BlindKey::with_encoding(&raw, ecdsa::BlindKeyEncoding::Minimal);
    let fixed = ecdsa::BlindKey::with_encoding(&raw, ecdsa::BlindKeyEncoding::Fixed);
    assert_eq!(minimal.encoding(), ecdsa::BlindKeyEncoding::default());
    let a = ecdsa::blind_public_key(&pk, &minimal, b"").unwrap();
    let b = ecdsa::blind_public_key(&pk, &fixed, b"").unwrap();
    assert_ne!(a, b);
    // Minimal hashes raw[1..] ‖ 0x00 ‖ ctx; Fixed hashes all 48 bytes.
    let expect = |msg: &[u8]| -> [u8; 48] {
        use p384::elliptic_curve::ff::PrimeField;
        let u = p384::hash2curve::hash_to_scalar::<
            p384::NistP384,
            p384::hash2curve::ExpandMsgXmd<sha2::Sha384>,
            p384::elliptic_curve::array::typenum::U72,
        >(&[msg, &[0x00], b"ctx"], &[b"ECDSA Key Blind"])
        .unwrap();
        u.to_repr().into()
    };
    assert_eq!(*ecdsa::blind_scalar(&minimal, b"ctx").unwrap().to_bytes(), expect(&raw[1..]));
    assert_eq!(*ecdsa::blind_scalar(&fixed, b"ctx").unwrap().to_bytes(), expect(&raw));
    // The all-zero blind's minimal encoding is the empty string.
    assert_eq!(*ecdsa::blind_scalar(&ecdsa::BlindKey::from_bytes(&[0u8; 48]), b"ctx").unwrap().to_bytes(), expect(b""));
    let zero_min = ecdsa::BlindKey::from_bytes(&[0u8; 48]);
    let zero_fixed = ecdsa::BlindKey::with_encoding(&[0u8; 48], ecdsa::BlindKeyEncoding::Fixed);
    assert_ne!(
        ecdsa::blind_public_key(&pk, &zero_min, b"").unwrap(),
        ecdsa::blind_public_key(&pk, &zero_fixed, b"").unwrap()
    );
    // Both still round-trip.
    assert_eq!(ecdsa::unblind_public_key(&a, &minimal, b"").unwrap(), pk);
    assert_eq!(ecdsa::unblind_public_key(&b, &fixed, b"").unwrap(), pk);
}

#[test]
fn ed25519_round_trips_and_wrong_blind() {
    let mut rng = pat::OsRng;
    let sk = ed25519::SecretKey::random(&mut rng).unwrap();
    let pk = sk.public_key();
    let bk = ed25519::BlindKey::random(&mut rng).unwrap();
    let other = ed25519::BlindKey::random(&mut rng).unwrap();
    let ctx = b"context";
    let pk_r = ed25519::blind_public_key(&pk, &bk, ctx).unwrap();
    assert_eq!(ed25519::unblind_public_key(&pk_r, &bk, ctx).unwrap(), pk);
    let sig = ed25519::blind_key_sign(&sk, &bk, ctx, b"msg").unwrap();
    ed25519::verify(&pk_r, b"msg", &sig).unwrap();
    assert_eq!(ed25519::blind_key_sign(&sk, &bk, ctx, b"msg").unwrap(), sig);
    let wrong = ed25519::blind_key_sign(&sk, &other, ctx, b"msg").unwrap();
    assert_eq!(ed25519::verify(&pk_r, b"msg", &wrong), Err(Error::Verification));
    let mut flipped = sig.to_bytes();
    flipped[10] ^= 1;
    assert_eq!(ed25519::verify(&pk_r, b"msg", &ed25519::Signature::from_bytes(&flipped)), Err(Error::Verification));
    assert_eq!(ed25519::verify(&pk_r, b"msh", &sig), Err(Error::Verification));
    assert_eq!(format!("{sk:?}"), "SecretKey");
    assert_eq!(format!("{bk:?}"), "BlindKey");
    assert_eq!(format!("{:?}", ed25519::blind_scalar(&bk, ctx).unwrap()), "BlindScalar");
    // y = 2 does not decompress to a point on edwards25519.
    let mut not_point = [0u8; 32];
    not_point[0] = 2;
    assert_eq!(ed25519::PublicKey::from_bytes(&not_point).unwrap_err(), Error::InvalidElement);
}
