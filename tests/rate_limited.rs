//! Rate-limited issuance primitives (token type 0x0003) against pat-go's type-3
//! vectors and RFC 9180, plus round trips and negative tests.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation
)]

use pat::crypto::key_blinding::ecdsa_p384::{self as ecdsa, BlindKeyEncoding};
use pat::crypto::rate_limited::alias;
use pat::crypto::rate_limited::encap::{self, EncapKey, EncapSecretKey};
use pat::crypto::rate_limited::inner_request::{self, InnerTokenRequest};
use pat::crypto::rate_limited::origin_encryption::{self, EncapSecret};
use pat::crypto::rate_limited::{KeyIdByte, Labels, response};
use pat::{Decode, Encode, Error, Field};
use serde_json::Value;
use subtle::ConstantTimeEq;

mod common;
use common::{field, load};

fn arr<const N: usize>(v: &Value, key: &str) -> [u8; N] {
    field(v, key).try_into().unwrap_or_else(|_| panic!("{key} length"))
}

fn num(v: &Value, key: &str) -> u64 {
    v[key].as_u64().unwrap_or_else(|| panic!("missing {key}"))
}

/// pat-go's anonymous issuer origin id vector (ctx = empty, protocol
/// reference §7.9). The known answers (request_key, the blinded request key in
/// the file's `index_key`, the alias) are checked by the `pat-vectors`
/// harness through `vectors/tests/vectors.rs`; here, what must fail and the
/// protocol's contexts.
#[test]
fn pat_go_anon_origin_id() {
    let cases = load("pat-go/tokens/type3/type3-anon-origin-id-test-vectors.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 1);
    for case in cases {
        let pk_sign = ecdsa::PublicKey::from_bytes(&arr(case, "pk_sign")).unwrap();
        let sk_origin = ecdsa::SecretKey::from_bytes(&arr(case, "sk_origin")).unwrap();
        let request_blind = ecdsa::BlindKey::from_bytes(&arr(case, "request_blind"));
        let request_key = alias::request_key(&pk_sign, &request_blind, b"").unwrap();
        assert_eq!(
            alias::verify_request_key(&pk_sign, &request_blind, alias::CTX_CLIENT, &arr(case, "request_key")),
            Err(Error::Verification)
        );
        let wrong_blind = ecdsa::BlindKey::from_bytes(&arr(case, "sk_origin"));
        assert_eq!(
            alias::verify_request_key(&pk_sign, &wrong_blind, b"", &arr(case, "request_key")),
            Err(Error::Verification)
        );

        // The protocol's 13-byte contexts give other values, and the same
        // identities hold.
        let rk = alias::request_key(&pk_sign, &request_blind, alias::CTX_CLIENT).unwrap();
        assert_ne!(rk, request_key);
        let b = alias::blinded_request_key(&rk, &sk_origin, alias::CTX_ISSUER, BlindKeyEncoding::Minimal).unwrap();
        let ik = alias::index_key(&b, &request_blind, alias::CTX_CLIENT).unwrap();
        assert_eq!(
            ik,
            alias::blinded_request_key(&pk_sign, &sk_origin, alias::CTX_ISSUER, BlindKeyEncoding::Minimal).unwrap()
        );
        assert_ne!(alias::issuer_origin_alias(&pk_sign, &ik), arr::<48>(case, "issuer_origin_alias"));
    }
}

/// pat-go's origin encryption vector: the EncapKey encoding, the AAD built from
/// the file's fields, and every way decryption must fail.
#[test]
fn pat_go_origin_encryption() {
    let cases = load("pat-go/tokens/type3/type3-origin-encryption-test-vectors.json");
    let cases = cases.as_array().unwrap();
    assert_eq!(cases.len(), 1);
    for case in cases {
        assert_eq!(num(case, "kem_id"), u64::from(encap::KEM_ID));
        assert_eq!(num(case, "kdf_id"), u64::from(encap::KDF_ID));
        assert_eq!(num(case, "aead_id"), u64::from(encap::AEAD_ID));
        assert_eq!(num(case, "token_type"), u64::from(pat::crypto::rate_limited::TOKEN_TYPE));

        let encap_key_bytes = arr::<39>(case, "issuer_encap_key");
        let sk = EncapSecretKey::derive(encap_key_bytes[0], &arr(case, "issuer_encap_key_seed"));
        assert_eq!(sk.encap_key().to_bytes(), encap_key_bytes);
        assert_eq!(EncapKey::decode(&encap_key_bytes).unwrap(), *sk.encap_key());
        let mut re = [0u8; 39];
        assert_eq!(sk.encap_key().encode(&mut re).unwrap(), 39);
        assert_eq!(re, encap_key_bytes);
        assert_eq!(sk.encap_key().id(), arr::<32>(case, "issuer_encap_key_id"));

        // The AAD from the file's fields, in the AAD's own order.
        let request_key = arr::<49>(case, "request_key");
        let mut expected_aad = vec![encap_key_bytes[0]];
        for field in ["kem_id", "kdf_id", "aead_id", "token_type"] {
            expected_aad.extend_from_slice(&u16::try_from(num(case, field)).unwrap().to_be_bytes());
        }
        expected_aad.extend_from_slice(&request_key);
        expected_aad.extend_from_slice(&field(case, "issuer_encap_key_id"));
        assert_eq!(origin_encryption::aad(sk.encap_key(), &request_key).to_vec(), expected_aad);

        // Decryption, the plaintext fields, the padding and the export are
        // checked by the `pat-vectors` harness (vectors/tests/vectors.rs); here, the
        // failures.
        let encrypted = field(case, "encrypted_token_request");
        assert_eq!(encrypted.len(), origin_encryption::MIN_ENCRYPTED_REQUEST_LEN);

        // Other labels, another request key, another key: opaque failures.
        let mut out = vec![0u8; encrypted.len()];
        for (labels, rk) in [(Labels::DRAFT, request_key), (Labels::PAT_GO, [7u8; 49])] {
            assert_eq!(
                origin_encryption::decrypt_origin_request(&sk, &rk, &encrypted, &labels, &mut out).unwrap_err(),
                Error::Verification
            );
            assert!(out.iter().all(|&b| b == 0));
        }
        let other = EncapSecretKey::derive(encap_key_bytes[0], &[1u8; 32]);
        assert_eq!(
            origin_encryption::decrypt_origin_request(&other, &request_key, &encrypted, &Labels::PAT_GO, &mut out)
                .unwrap_err(),
            Error::Verification
        );
        // The same key under another key_id byte changes the AAD and the key id.
        let renumbered = EncapSecretKey::derive(0x00, &arr(case, "issuer_encap_key_seed"));
        assert_eq!(
            origin_encryption::decrypt_origin_request(&renumbered, &request_key, &encrypted, &Labels::PAT_GO, &mut out)
                .unwrap_err(),
            Error::Verification
        );
        // Every flipped byte (enc, ciphertext, tag) fails.
        for i in [0, 31, 32, 100, encrypted.len() - 17, encrypted.len() - 1] {
            let mut bad = encrypted.clone();
            bad[i] ^= 0x01;
            assert_eq!(
                origin_encryption::decrypt_origin_request(&sk, &request_key, &bad, &Labels::PAT_GO, &mut out)
                    .unwrap_err(),
                Error::Verification,
                "byte {i}"
            );
        }
        // Output buffer too small, input too short.
        let mut small = vec![0u8; encrypted.len() - 49];
        assert_eq!(
            origin_encryption::decrypt_origin_request(&sk, &request_key, &encrypted, &Labels::PAT_GO, &mut small)
                .unwrap_err(),
            Error::BufferTooSmall
        );
        assert_eq!(
            origin_encryption::decrypt_origin_request(&sk, &request_key, &encrypted[..40], &Labels::PAT_GO, &mut out)
                .unwrap_err(),
            Error::Truncated
        );
    }
}

fn blinded_msg() -> [u8; 256] {
    let mut m = [0u8; 256];
    for (i, b) in m.iter_mut().enumerate() {
        *b = (i as u8).wrapping_mul(31).wrapping_add(7);
    }
    m
}

#[test]
fn origin_encryption_round_trips() {
    let mut rng = pat::OsRng;
    let msg = blinded_msg();
    for labels in [Labels::PAT_GO, Labels::DRAFT] {
        for origin in [&b""[..], b"a", b"origin.example", &[b'x'; 32], &[b'y'; 33], &[b'z'; 100]] {
            let sk = EncapSecretKey::random(0x00, &mut rng).unwrap();
            let request_key = [0x42u8; 49];
            let token_key_id = [0xabu8; 32];
            let inner = InnerTokenRequest::new(KeyIdByte::Last.truncate(&token_key_id), &msg, origin).unwrap();
            let len = origin_encryption::encrypted_request_len(&inner);
            assert_eq!(len, 32 + 1 + 256 + 2 + inner_request::padded_len(origin.len()) + 16);
            let mut buf = vec![0u8; len + 5];
            let (n, client_state) = origin_encryption::encrypt_origin_request(
                sk.encap_key(),
                &request_key,
                &inner,
                &labels,
                &mut buf,
                &mut rng,
            )
            .unwrap();
            assert_eq!(n, len);
            let mut out = vec![0u8; n];
            let (got, issuer_state) =
                origin_encryption::decrypt_origin_request(&sk, &request_key, &buf[..n], &labels, &mut out).unwrap();
            assert_eq!(got, inner);
            assert!(bool::from(client_state.ct_eq(&issuer_state)));
            assert_eq!(client_state.enc()[..], buf[..32]);

            // The response path with these states.
            let mut sig = [0u8; 256];
            sig[0] = 0x80;
            sig[255] = 0x01;
            let encrypted = response::encrypt_response(&issuer_state, &sig, &mut rng).unwrap();
            assert_eq!(encrypted.len(), response::ENCRYPTED_RESPONSE_LEN);
            assert_eq!(response::decrypt_response(&client_state, &encrypted).unwrap(), sig);
            // Fresh response nonces.
            assert_ne!(response::encrypt_response(&issuer_state, &sig, &mut rng).unwrap(), encrypted);
        }
    }
    // Too small an output buffer.
    let sk = EncapSecretKey::random(0x00, &mut rng).unwrap();
    let inner = InnerTokenRequest::new(1, &msg, b"o").unwrap();
    let mut buf = [0u8; 338];
    assert_eq!(
        origin_encryption::encrypt_origin_request(
            sk.encap_key(),
            &[0; 49],
            &inner,
            &Labels::default(),
            &mut buf,
            &mut rng
        )
        .unwrap_err(),
        Error::BufferTooSmall
    );
}

#[test]
fn response_encryption_negative() {
    let mut rng = pat::OsRng;
    let state = EncapSecret::from_parts(&[3u8; 32], &[4u8; 16]);
    let sig = [9u8; 256];
    let encrypted = response::encrypt_response(&state, &sig, &mut rng).unwrap();
    assert_eq!(response::decrypt_response(&state, &encrypted).unwrap(), sig);
    for i in [0, 15, 16, 200, 271, 272, 287] {
        let mut bad = encrypted;
        bad[i] ^= 0x80;
        assert_eq!(response::decrypt_response(&state, &bad).unwrap_err(), Error::Verification, "byte {i}");
    }
    for other in [EncapSecret::from_parts(&[3u8; 32], &[5u8; 16]), EncapSecret::from_parts(&[2u8; 32], &[4u8; 16])] {
        assert_eq!(response::decrypt_response(&other, &encrypted).unwrap_err(), Error::Verification);
    }
    assert_eq!(format!("{state:?}"), "EncapSecret");
}

/// The response construction recomputed from its definition with the hkdf and
/// aes-gcm crates directly (a known answer for the wiring of salt, labels and
/// nonce).
#[test]
fn response_encryption_matches_definition() {
    use aes_gcm::{AeadInOut, Aes128Gcm, KeyInit};
    let enc = [0x11u8; 32];
    let secret = [0x22u8; 16];
    let state = EncapSecret::from_parts(&enc, &secret);
    let sig: [u8; 256] = core::array::from_fn(|i| i as u8);
    let encrypted = response::encrypt_response(&state, &sig, &mut pat::OsRng).unwrap();
    let nonce: [u8; 16] = encrypted[..16].try_into().unwrap();
    let salt = [&enc[..], &nonce[..]].concat();
    let hk = hkdf::Hkdf::<sha2::Sha256>::new(Some(&salt), &secret);
    let mut key = [0u8; 16];
    let mut aead_nonce = [0u8; 12];
    hk.expand(b"key", &mut key).unwrap();
    hk.expand(b"nonce", &mut aead_nonce).unwrap();
    let mut ct = sig;
    let tag =
        Aes128Gcm::new(&key.into()).encrypt_inout_detached(&aead_nonce.into(), b"", (&mut ct[..]).into()).unwrap();
    assert_eq!(encrypted[16..272], ct[..]);
    assert_eq!(encrypted[272..], tag[..]);
}

#[test]
fn encap_key_strict_decoding() {
    let sk = EncapSecretKey::derive(0x01, &[7u8; 32]);
    let good = sk.encap_key().to_bytes();
    assert_eq!(EncapKey::decode(&good).unwrap(), *sk.encap_key());
    assert_eq!(format!("{sk:?}"), "EncapSecretKey");
    // Wrong suite identifiers.
    for (offset, value) in [(1usize, 0x0010u16), (1, 0x0021), (35, 0x0002), (37, 0x0002), (37, 0x0003)] {
        let mut bad = good;
        bad[offset..offset + 2].copy_from_slice(&value.to_be_bytes());
        assert_eq!(EncapKey::decode(&bad).unwrap_err(), Error::InvalidKey, "offset {offset}");
    }
    // Truncated at every length, and a trailing byte.
    for n in 0..good.len() {
        assert_eq!(EncapKey::decode(&good[..n]).unwrap_err(), Error::Truncated, "length {n}");
    }
    let mut long = good.to_vec();
    long.push(0);
    assert_eq!(EncapKey::decode(&long).unwrap_err(), Error::TrailingBytes);
    // Encoding into a short buffer.
    assert_eq!(sk.encap_key().encode(&mut [0u8; 38]).unwrap_err(), Error::BufferTooSmall);
    // The key id is SHA-256 of the 39 bytes.
    use sha2::Digest;
    assert_eq!(sk.encap_key().id(), <[u8; 32]>::from(sha2::Sha256::digest(good)));
}

#[test]
fn inner_token_request_padding_and_strictness() {
    assert_eq!(inner_request::padded_len(0), 32);
    assert_eq!(inner_request::padded_len(1), 32);
    assert_eq!(inner_request::padded_len(12), 32);
    assert_eq!(inner_request::padded_len(32), 32);
    assert_eq!(inner_request::padded_len(33), 64);
    assert_eq!(inner_request::padded_len(64), 64);
    // N = 31 − ((L − 1) mod 32) for L > 0.
    for l in 1..200usize {
        assert_eq!(inner_request::padded_len(l), l + 31 - ((l - 1) % 32));
    }

    let msg = blinded_msg();
    let inner = InnerTokenRequest::new(9, &msg, b"origin.example").unwrap();
    let mut enc = vec![0u8; inner.encoded_len()];
    assert_eq!(inner.encode(&mut enc).unwrap(), 1 + 256 + 2 + 32);
    assert_eq!(InnerTokenRequest::decode(&enc).unwrap(), inner);

    let with_padded = |padded: &[u8]| {
        let mut v = vec![9u8];
        v.extend_from_slice(&msg);
        v.extend_from_slice(&u16::try_from(padded.len()).unwrap().to_be_bytes());
        v.extend_from_slice(padded);
        v
    };
    // Empty origin: 32 zero bytes.
    assert_eq!(InnerTokenRequest::decode(&with_padded(&[0u8; 32])).unwrap().origin_name, b"");
    // Bad padded lengths: 0, not a multiple of 32.
    for padded in [&[][..], &[b'a'; 31][..], &[b'a'; 33][..], &[0u8; 1][..]] {
        let e = InnerTokenRequest::decode(&with_padded(padded)).unwrap_err();
        assert_eq!(e, Error::InvalidLength(Field::OriginName), "{}", padded.len());
    }
    // Excess padding: a 12-byte origin padded to 64; 64 zero bytes.
    let mut excess = b"test.example".to_vec();
    excess.resize(64, 0);
    assert_eq!(InnerTokenRequest::decode(&with_padded(&excess)).unwrap_err(), Error::InvalidValue(Field::OriginName));
    assert_eq!(
        InnerTokenRequest::decode(&with_padded(&[0u8; 64])).unwrap_err(),
        Error::InvalidValue(Field::OriginName)
    );
    // Truncated anywhere, trailing byte.
    for n in [0, 1, 100, 257, 258, 259, enc.len() - 1] {
        assert_eq!(InnerTokenRequest::decode(&enc[..n]).unwrap_err(), Error::Truncated, "length {n}");
    }
    let mut long = enc.clone();
    long.push(0);
    assert_eq!(InnerTokenRequest::decode(&long).unwrap_err(), Error::TrailingBytes);
    // Origins that cannot be padded.
    assert_eq!(InnerTokenRequest::new(9, &msg, b"bad\0").unwrap_err(), Error::InvalidValue(Field::OriginName));
    let huge = vec![b'h'; inner_request::MAX_ORIGIN_NAME_LEN + 1];
    assert_eq!(InnerTokenRequest::new(9, &msg, &huge).unwrap_err(), Error::InvalidLength(Field::OriginName));
    let max = vec![b'h'; inner_request::MAX_ORIGIN_NAME_LEN];
    let inner = InnerTokenRequest::new(9, &msg, &max).unwrap();
    let mut enc = vec![0u8; inner.encoded_len()];
    inner.encode(&mut enc).unwrap();
    assert_eq!(InnerTokenRequest::decode(&enc).unwrap(), inner);
    // Public fields are re-checked when encoding.
    let forged = InnerTokenRequest { token_key_id: 0, blinded_msg: &msg, origin_name: b"x\0" };
    assert_eq!(forged.encode(&mut [0u8; 400]).unwrap_err(), Error::InvalidValue(Field::OriginName));
}

#[test]
fn key_id_byte_choice() {
    let id: [u8; 32] = core::array::from_fn(|i| i as u8 + 1);
    assert_eq!(KeyIdByte::default(), KeyIdByte::First);
    assert_eq!(KeyIdByte::First.truncate(&id), 1);
    assert_eq!(KeyIdByte::Last.truncate(&id), 32);
    assert_eq!(Labels::default(), Labels::PAT_GO);
    assert_eq!(Labels::PAT_GO.info, b"TokenRequest");
    assert_eq!(Labels::PAT_GO.exporter_context, b"TokenResponse");
}
