//! RFC 9474 blind RSA: known-answer tests (RFC 9474 Appendix A, RFC 9578
//! Appendix A.2, pat-go type 2 vectors) and negative tests.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::vec::Vec;

use crypto_bigint::{Odd, U4096};
use pat::crypto::blind_rsa::{
    self, MODULUS_LEN, PreparedMessage, PublicKey, PublicKey4096, SecretKey, SecretKey4096, Variant,
};
use pat::{Error, Field, RngCode};
use serde_json::Value;

mod common;
use common::{field, hex, hex_of, load};
use pat_testkit::{FailingRng, TestRng};

const RFC9474: &str = "rfc/rfc9474-blind-rsa.json";
const RFC9578: &str = "rfc/rfc9578-issuance.json";
const PATGO_TYPE2: &str = "pat-go/tokens/type2/type2-issuance-test-vectors.json";
const PATGO_TYPE2_RUST: &str = "pat-go/tokens/type2/type2-issuance-test-vectors.rust.json";

/// Big-endian integer hex as printed in RFC 9474 (possibly an odd number of
/// digits), left-padded to `len` bytes.
fn hex_int(s: &str, len: usize) -> Vec<u8> {
    let s = if !s.len().is_multiple_of(2) { format!("0{s}") } else { s.to_owned() };
    let raw = hex(&s);
    let raw = &raw[raw.iter().take_while(|b| **b == 0).count()..];
    assert!(raw.len() <= len);
    let mut out = vec![0u8; len - raw.len()];
    out.extend_from_slice(raw);
    out
}

fn array<const N: usize>(bytes: &[u8]) -> [u8; N] {
    bytes.try_into().expect("length")
}

/// r = inv⁻¹ mod n (test code: variable time is fine).
fn r_from_inv(inv: &[u8], n: &[u8]) -> [u8; 512] {
    let n = Odd::new(U4096::from_be_slice(n)).unwrap();
    let inv = U4096::from_be_slice(inv);
    let r = inv.invert_odd_mod(&n).unwrap();
    array(r.to_be_bytes().as_slice())
}

fn variant_of(v: &Value) -> Variant {
    let randomized = v["prepare"] == "randomize";
    match (v["salt_len"].as_u64().unwrap(), randomized) {
        (48, true) => Variant::Sha384PssRandomized,
        (0, true) => Variant::Sha384PssZeroRandomized,
        (48, false) => Variant::Sha384PssDeterministic,
        (0, false) => Variant::Sha384PssZeroDeterministic,
        other => panic!("unknown variant {other:?}"),
    }
}

/// Runs one RFC 9474 (blinded, blind_sig, sig) triple for the given inverse.
fn rfc9474_triple(
    sk: &SecretKey4096,
    variant: Variant,
    input: &PreparedMessage<'_>,
    salt: &[u8],
    inv: &[u8],
    expected: (&[u8], &[u8], &[u8]),
) {
    let pk = sk.public_key();
    let r = r_from_inv(inv, pk.modulus());
    let (blinded, state) = pat::hazmat::crypto::blind_rsa::blind_variant_with(variant, pk, input, salt, &r).unwrap();
    assert_eq!(&blinded[..], expected.0, "blinded_msg");
    let blind_sig = blind_rsa::blind_sign(sk, &blinded).unwrap();
    assert_eq!(&blind_sig[..], expected.1, "blind_sig");
    let sig = variant.finalize(pk, input, &state, &blind_sig).unwrap();
    assert_eq!(&sig[..], expected.2, "sig");
    variant.verify(pk, input, &sig).unwrap();
}

#[test]
fn rfc9474_appendix_a() {
    let doc = load(RFC9474);
    let mut cases = 0;
    let mut alternatives = 0;
    for v in doc["vectors"].as_array().unwrap() {
        assert_eq!(v["modulus_bits"], 4096);
        let n = hex_int(v["n"].as_str().unwrap(), 512);
        let sk = SecretKey4096::from_components(
            &n,
            &field(v, "e"),
            &hex_int(v["d"].as_str().unwrap(), 512),
            &hex_int(v["p"].as_str().unwrap(), 256),
            &hex_int(v["q"].as_str().unwrap(), 256),
        )
        .unwrap();
        assert_eq!(sk.public_key(), &PublicKey4096::from_modulus(&n).unwrap());

        let variant = variant_of(v);
        let msg = field(v, "msg");
        let prefix = field(v, "msg_prefix");
        let input = if variant.is_randomized() {
            PreparedMessage::with_prefix(array(&prefix), &msg)
        } else {
            assert!(prefix.is_empty());
            PreparedMessage::identity(&msg)
        };
        let mut prepared = prefix.clone();
        prepared.extend_from_slice(&msg);
        assert_eq!(prepared, field(v, "prepared_msg"));
        let salt = field(v, "salt");
        assert_eq!(salt.len(), variant.salt_len());

        let inv = hex_int(v["inv"].as_str().unwrap(), 512);
        rfc9474_triple(
            &sk,
            variant,
            &input,
            &salt,
            &inv,
            (&field(v, "blinded_msg"), &field(v, "blind_sig"), &field(v, "sig")),
        );
        // The wrong salt length for the variant is refused.
        let wrong_salt = [0u8; 47];
        assert_eq!(
            pat::hazmat::crypto::blind_rsa::blind_variant_with(
                variant,
                sk.public_key(),
                &input,
                &wrong_salt,
                &[1u8; 512]
            )
            .err(),
            Some(Error::InvalidLength(Field::Message))
        );
        cases += 1;

        if let Some(alt) = v.get("draft14_alternative") {
            rfc9474_triple(
                &sk,
                variant,
                &input,
                &salt,
                &hex_int(alt["inv"].as_str().unwrap(), 512),
                (&field(alt, "blinded_msg"), &field(alt, "blind_sig"), &field(v, "sig")),
            );
            alternatives += 1;
        }
    }
    assert_eq!((cases, alternatives), (4, 1));
}

/// The token type 0x0002 flow on a vector with pat-go's field names.
fn type2_case(v: &Value) {
    let pem = String::from_utf8(field(v, "skS")).unwrap();
    let sk = SecretKey::from_pkcs8_pem(&pem).unwrap();
    let spki = field(v, "pkS");
    assert_eq!(spki.len(), 342);
    let pk = PublicKey::from_spki(&spki).unwrap();
    assert_eq!(pk.to_spki_array().as_slice(), spki.as_slice());
    assert_eq!(sk.public_key(), &pk);

    let token = field(v, "token");
    assert_eq!(token.len(), 98 + MODULUS_LEN);
    let (token_input, authenticator) = token.split_at(98);
    assert_eq!(&token_input[..2], &[0, 2]);
    assert_eq!(&token_input[66..], pk.key_id());

    let request = field(v, "token_request");
    assert_eq!(&request[..3], &[0, 2, pk.key_id()[31]]);
    let salt = field(v, "salt");
    let r = field(v, "blind");
    let (blinded, state) =
        pat::hazmat::crypto::blind_rsa::blind_with(&pk, token_input, &array(&salt), &array(&r)).unwrap();
    assert_eq!(&blinded[..], &request[3..]);
    let blind_sig = blind_rsa::blind_sign(&sk, &blinded).unwrap();
    assert_eq!(&blind_sig[..], field(v, "token_response").as_slice());
    let sig = blind_rsa::finalize(&pk, token_input, &state, &blind_sig).unwrap();
    assert_eq!(&sig[..], authenticator);
    blind_rsa::verify(&pk, token_input, authenticator).unwrap();
}

#[test]
fn pat_go_type2() {
    let mut cases = 0;
    for path in [PATGO_TYPE2, PATGO_TYPE2_RUST] {
        for v in load(path).as_array().unwrap() {
            type2_case(v);
            cases += 1;
        }
    }
    assert_eq!(cases, 10);
}

#[test]
fn rfc9578_type2() {
    let doc = load(RFC9578);
    let mut cases = 0;
    for v in doc["type_0002_blind_rsa_2048"].as_array().unwrap() {
        type2_case(v);
        let derived = &v["derived_not_in_rfc"];
        assert_eq!(field(derived, "token_key_id"), PublicKey::from_spki(&field(v, "pkS")).unwrap().key_id().as_slice());
        cases += 1;
    }
    assert_eq!(cases, 5);
}

// ---- helpers for the negative tests ---------------------------------------

fn patgo(index: usize, path: &str) -> (SecretKey, PublicKey, Vec<u8>, Value) {
    let v = load(path).as_array().unwrap()[index].clone();
    let pem = String::from_utf8(field(&v, "skS")).unwrap();
    let sk = SecretKey::from_pkcs8_pem(&pem).unwrap();
    let spki = field(&v, "pkS");
    let pk = PublicKey::from_spki(&spki).unwrap();
    (sk, pk, spki, v)
}

fn pkcs8_der(v: &Value) -> Vec<u8> {
    use base64ct::{Base64, Encoding};
    let pem = String::from_utf8(field(v, "skS")).unwrap();
    let b64: String = pem.lines().filter(|l| !l.starts_with("-----")).collect::<Vec<_>>().concat();
    Base64::decode_vec(&b64).unwrap()
}

/// A token input and its valid authenticator.
fn token_parts(v: &Value) -> (Vec<u8>, Vec<u8>) {
    let token = field(v, "token");
    (token[..98].to_vec(), token[98..].to_vec())
}

#[test]
fn shared_key_id() {
    let (_, pk, _, _) = patgo(0, PATGO_TYPE2);
    assert_eq!(pk.key_id().as_slice(), hex("ca572f8982a9ca248a3056186322d93ca147266121ddeb5632c07f1f71cd2708"));
}

#[test]
fn tampered_signature_and_message() {
    let (_, pk, _, v) = patgo(0, PATGO_TYPE2);
    let (msg, sig) = token_parts(&v);
    blind_rsa::verify(&pk, &msg, &sig).unwrap();
    let mut checked = 0;
    for i in [0, 1, 100, 254, 255] {
        let mut bad = sig.clone();
        bad[i] ^= 0x01;
        assert_eq!(blind_rsa::verify(&pk, &msg, &bad), Err(Error::Verification));
        checked += 1;
    }
    let mut bad_msg = msg.clone();
    bad_msg[97] ^= 0x80;
    assert_eq!(blind_rsa::verify(&pk, &bad_msg, &sig), Err(Error::Verification));
    // Other variants do not accept it either.
    assert_eq!(
        Variant::Sha384PssZeroDeterministic.verify(&pk, &PreparedMessage::identity(&msg), &sig),
        Err(Error::Verification)
    );
    assert_eq!(checked, 5);
}

#[test]
fn wrong_key() {
    let (_, pk0, _, v0) = patgo(0, PATGO_TYPE2_RUST);
    let (sk1, pk1, _, _) = patgo(1, PATGO_TYPE2_RUST);
    assert_ne!(pk0, pk1);
    let (msg, sig) = token_parts(&v0);
    blind_rsa::verify(&pk0, &msg, &sig).unwrap();
    assert!(matches!(blind_rsa::verify(&pk1, &msg, &sig), Err(Error::Verification)));
    // A blind signature from the wrong issuer key does not finalize.
    let salt = field(&v0, "salt");
    let r = field(&v0, "blind");
    let (blinded, state) = pat::hazmat::crypto::blind_rsa::blind_with(&pk0, &msg, &array(&salt), &array(&r)).unwrap();
    match blind_rsa::blind_sign(&sk1, &blinded) {
        Ok(blind_sig) => assert_eq!(blind_rsa::finalize(&pk0, &msg, &state, &blind_sig), Err(Error::Verification)),
        // The blinded message may be ≥ n₁.
        Err(e) => assert_eq!(e, Error::InvalidValue(Field::Message)),
    }
}

#[test]
fn out_of_range_and_wrong_lengths() {
    let (sk, pk, _, v) = patgo(0, PATGO_TYPE2);
    let (msg, sig) = token_parts(&v);
    let n = *pk.modulus();
    let mut n_minus_1 = n;
    n_minus_1[255] -= 1; // n is odd
    let big = [0xffu8; 256];

    // Blinded message ≥ n.
    for bad in [&n, &big] {
        assert_eq!(blind_rsa::blind_sign(&sk, bad), Err(Error::InvalidValue(Field::Message)));
    }
    assert!(blind_rsa::blind_sign(&sk, &n_minus_1).is_ok());
    // Signature ≥ n.
    for bad in [&n, &big] {
        assert_eq!(blind_rsa::verify(&pk, &msg, bad), Err(Error::Verification));
    }
    // Blind signature ≥ n.
    let salt = array(&field(&v, "salt"));
    let r = array(&field(&v, "blind"));
    let (_, state) = pat::hazmat::crypto::blind_rsa::blind_with(&pk, &msg, &salt, &r).unwrap();
    assert_eq!(blind_rsa::finalize(&pk, &msg, &state, &n), Err(Error::Verification));
    // Blind r = 0, r = n, r ≥ n.
    for bad in [[0u8; 256], n, big] {
        assert_eq!(
            pat::hazmat::crypto::blind_rsa::blind_with(&pk, &msg, &salt, &bad).err(),
            Some(Error::InvalidValue(Field::Message))
        );
    }

    // Wrong lengths.
    for len in [0, 255, 257, 512] {
        let buf = vec![1u8; len];
        assert_eq!(blind_rsa::blind_sign(&sk, &buf), Err(Error::InvalidLength(Field::Message)));
        assert_eq!(blind_rsa::verify(&pk, &msg, &buf), Err(Error::Verification));
        let (_, state) = pat::hazmat::crypto::blind_rsa::blind_with(&pk, &msg, &salt, &r).unwrap();
        assert_eq!(blind_rsa::finalize(&pk, &msg, &state, &buf), Err(Error::InvalidLength(Field::Message)));
    }
    let mut long_sig = sig.clone();
    long_sig.push(0);
    assert_eq!(blind_rsa::verify(&pk, &msg, &long_sig), Err(Error::Verification));
    assert_eq!(blind_rsa::verify(&pk, &msg, &sig[1..]), Err(Error::Verification));
}

#[test]
fn wrong_blinding_state_fails() {
    let (sk, pk, _, v) = patgo(0, PATGO_TYPE2);
    let (msg, _) = token_parts(&v);
    let salt = array(&field(&v, "salt"));
    let r = array(&field(&v, "blind"));
    let (blinded, _) = pat::hazmat::crypto::blind_rsa::blind_with(&pk, &msg, &salt, &r).unwrap();
    let blind_sig = blind_rsa::blind_sign(&sk, &blinded).unwrap();
    let mut other_r = [0u8; 256];
    other_r[255] = 3;
    let (_, wrong_state) = pat::hazmat::crypto::blind_rsa::blind_with(&pk, &msg, &salt, &other_r).unwrap();
    assert_eq!(blind_rsa::finalize(&pk, &msg, &wrong_state, &blind_sig), Err(Error::Verification));
    // Finalizing for another message fails too.
    let (_, state) = pat::hazmat::crypto::blind_rsa::blind_with(&pk, &msg, &salt, &r).unwrap();
    assert_eq!(blind_rsa::finalize(&pk, b"another message", &state, &blind_sig), Err(Error::Verification));
    // The state is only borrowed: after a corrupted blind signature fails, the
    // genuine one still finalizes with it.
    let mut corrupted = blind_sig;
    corrupted[100] ^= 1;
    assert_eq!(blind_rsa::finalize(&pk, &msg, &state, &corrupted), Err(Error::Verification));
    let sig = blind_rsa::finalize(&pk, &msg, &state, &blind_sig).unwrap();
    blind_rsa::verify(&pk, &msg, &sig).unwrap();
}

#[test]
fn randomized_round_trips_every_variant() {
    let (sk, pk, _, _) = patgo(0, PATGO_TYPE2_RUST);
    let mut rng = getrandom::SysRng;
    let mut cases = 0;
    for variant in [
        Variant::Sha384PssRandomized,
        Variant::Sha384PssZeroRandomized,
        Variant::Sha384PssDeterministic,
        Variant::Sha384PssZeroDeterministic,
    ] {
        for msg in [&b""[..], b"hello world", &[0xa5; 1000]] {
            let input = variant.prepare(msg, &mut rng).unwrap();
            assert_eq!(input.msg_prefix().is_some(), variant.is_randomized());
            let (blinded, state) = variant.blind(&pk, &input, &mut rng).unwrap();
            let blind_sig = blind_rsa::blind_sign(&sk, &blinded).unwrap();
            let sig = variant.finalize(&pk, &input, &state, &blind_sig).unwrap();
            variant.verify(&pk, &input, &sig).unwrap();
            // The prefix is part of the signed message.
            if let Some(prefix) = input.msg_prefix() {
                let mut other = *prefix;
                other[0] ^= 1;
                let forged = PreparedMessage::with_prefix(other, msg);
                assert_eq!(variant.verify(&pk, &forged, &sig), Err(Error::Verification));
                // An identity input does not match a randomized variant.
                assert_eq!(
                    variant.verify(&pk, &PreparedMessage::identity(msg), &sig),
                    Err(Error::InvalidValue(Field::Message))
                );
            }
            cases += 1;
        }
    }
    // The Privacy Pass entry points.
    let (blinded, state) = blind_rsa::blind(&pk, b"token input", &mut rng).unwrap();
    let blind_sig = blind_rsa::blind_sign(&sk, &blinded).unwrap();
    let sig = blind_rsa::finalize(&pk, b"token input", &state, &blind_sig).unwrap();
    blind_rsa::verify(&pk, b"token input", &sig).unwrap();
    assert_eq!(cases, 12);
}

/// Always returns 0xff bytes: every candidate blind is ≥ n.
struct StuckRng;

impl rand_core::TryRng for StuckRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(u32::MAX)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        Ok(u64::MAX)
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        dst.fill(0xff);
        Ok(())
    }
}

impl rand_core::TryCryptoRng for StuckRng {}

#[test]
fn rng_failures() {
    let (_, pk, _, _) = patgo(0, PATGO_TYPE2);
    assert_eq!(blind_rsa::blind(&pk, b"m", &mut FailingRng).err(), Some(Error::Rng(RngCode::UNKNOWN)));
    assert_eq!(blind_rsa::blind(&pk, b"m", &mut StuckRng).err(), Some(Error::Rng(RngCode::EXHAUSTED)));
    assert_eq!(Variant::Sha384PssRandomized.prepare(b"m", &mut FailingRng).err(), Some(Error::Rng(RngCode::UNKNOWN)));
}

#[test]
fn secrets_do_not_print() {
    let (sk, pk, _, v) = patgo(0, PATGO_TYPE2);
    assert_eq!(format!("{sk:?}"), "RsaSecretKey");
    let (msg, _) = token_parts(&v);
    let (_, state) = blind_rsa::blind(&pk, &msg, &mut getrandom::SysRng).unwrap();
    assert_eq!(format!("{state:?}"), "RsaBlindingState");
    assert!(format!("{pk:?}").contains("ca572f89"));
}

// ---- SPKI --------------------------------------------------------------------

#[test]
fn spki_corruptions() {
    let (_, pk, spki, _) = patgo(0, PATGO_TYPE2);
    assert_eq!(PublicKey::SPKI_LEN, 342);
    let mut rejected = 0;
    let mut reject = |bytes: &[u8], expected: Option<Error>| {
        let got = PublicKey::from_spki(bytes);
        assert!(got.is_err(), "accepted a corrupted SPKI: {bytes:02x?}");
        if let Some(e) = expected {
            assert_eq!(got.err(), Some(e));
        }
        rejected += 1;
    };

    // Every single-byte change in the 81-byte prefix (AlgorithmIdentifier,
    // lengths, tags, the modulus sign byte) is rejected.
    for i in 0..81 {
        let mut bad = spki.clone();
        bad[i] ^= 0x01;
        reject(&bad, None);
    }
    // Wrong OID: rsaEncryption (…1.1.1) instead of id-RSASSA-PSS (…1.1.10).
    let mut bad = spki.clone();
    assert_eq!(bad[16], 0x0a);
    bad[16] = 0x01;
    reject(&bad, Some(Error::InvalidKey));
    // Wrong params: saltLength 32, SHA-256 as the hash, SHA-256 in MGF1.
    for (at, value) in [(66, 0x20), (33, 0x01), (61, 0x01)] {
        let mut bad = spki.clone();
        assert!(bad[at] != value);
        bad[at] = value;
        reject(&bad, Some(Error::InvalidKey));
    }
    // Trailing byte (outside and inside the outer SEQUENCE).
    let mut bad = spki.clone();
    bad.push(0);
    reject(&bad, Some(Error::TrailingBytes));
    // Truncated at every length.
    for len in 0..spki.len() {
        reject(&spki[..len], None);
    }
    // e = 3.
    let mut bad = spki.clone();
    let e_at = spki.len() - 5;
    bad[e_at..].copy_from_slice(&[0x02, 0x03, 0x00, 0x00, 0x03]);
    reject(&bad, None);
    // Even modulus.
    let mut bad = spki.clone();
    bad[e_at - 1] ^= 1;
    reject(&bad, Some(Error::InvalidKey));
    assert_eq!(rejected, 81 + 1 + 3 + 1 + 342 + 2);

    // The re-encoding is exact and the key id is SHA-256 of it.
    let mut out = [0u8; 400];
    assert_eq!(pk.to_spki(&mut out), Ok(342));
    assert_eq!(&out[..342], spki.as_slice());
    assert_eq!(pk.to_spki(&mut [0u8; 341]), Err(Error::BufferTooSmall));
}

#[test]
fn rsa_encryption_spki_only_through_its_own_function() {
    let (_, pk, spki, _) = patgo(0, PATGO_TYPE2);
    // 294-byte rsaEncryption SPKI with the same modulus.
    let mut legacy = hex("30820122300d06092a864886f70d01010105000382010f00");
    legacy.extend_from_slice(&spki[342 - 270..]);
    assert_eq!(legacy.len(), 294);
    assert_eq!(PublicKey::from_spki(&legacy).err(), Some(Error::InvalidKey));
    let legacy_pk = PublicKey::from_rsa_encryption_spki(&legacy).unwrap();
    assert_eq!(legacy_pk, pk);
    assert_eq!(legacy_pk.key_id(), pk.key_id());
    assert!(PublicKey::from_rsa_encryption_spki(&spki).is_err());
}

#[test]
fn public_key_from_modulus() {
    let (_, pk, _, _) = patgo(0, PATGO_TYPE2);
    assert_eq!(PublicKey::from_modulus(pk.modulus()), Ok(pk.clone()));
    assert_eq!(PublicKey::from_modulus(&pk.modulus()[1..]).err(), Some(Error::InvalidLength(Field::Key)));
    let mut small = *pk.modulus();
    small[0] = 0x7f;
    assert_eq!(PublicKey::from_modulus(&small).err(), Some(Error::InvalidLength(Field::Key)));
}

// ---- PKCS#8 ------------------------------------------------------------------

/// Finds the offset of the `index`-th INTEGER inside the RSAPrivateKey
/// (0 = version, 1 = n, 2 = e, 3 = d, 4 = p, 5 = q, 6 = dP, 7 = dQ, 8 = qInv)
/// and returns (offset of its first content byte, content length).
fn rsa_private_key_integer(der: &[u8], index: usize) -> (usize, usize) {
    // PrivateKeyInfo header (4) + version (3) + AlgorithmIdentifier (15) +
    // OCTET STRING header (4) + RSAPrivateKey SEQUENCE header (4).
    let mut at = 4 + 3 + 15 + 4 + 4;
    for i in 0.. {
        assert_eq!(der[at], 0x02);
        let (len, hdr) = match der[at + 1] {
            l if l < 0x80 => (usize::from(l), 2),
            0x81 => (usize::from(der[at + 2]), 3),
            0x82 => (usize::from(der[at + 2]) << 8 | usize::from(der[at + 3]), 4),
            _ => panic!("length"),
        };
        if i == index {
            return (at + hdr, len);
        }
        at += hdr + len;
    }
    unreachable!()
}

/// The issuer's CRT private operation (`blind_sign`) equals m^d mod n computed
/// with the full private exponent d (crypto-bigint, 4-bit-window `pow`), for
/// edge-case and pseudo-random m, including multiples of p and q.
#[test]
fn crt_matches_full_exponent() {
    use crypto_bigint::U2048;
    use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};

    let (sk, _, _, v) = patgo(0, PATGO_TYPE2);
    let der = pkcs8_der(&v);
    let int = |i| {
        let (at, len) = rsa_private_key_integer(&der, i);
        U2048::from_be_slice(&hex_int(&hex_of(&der[at..at + len]), 256))
    };
    let (n, d, p, q) = (int(1), int(3), int(4), int(5));
    let params = FixedMontyParams::new(Odd::new(n).unwrap());
    let n_minus_1 = n.wrapping_sub(&U2048::ONE);
    let mut messages =
        vec![U2048::ZERO, U2048::ONE, U2048::from_u8(2), n_minus_1, p, q, p.wrapping_mul(&U2048::from_u8(3))];
    let mut rng = TestRng::new(0x243f_6a88_85a3_08d3);
    for _ in 0..8 {
        let bytes: [u8; 256] = rng.bytes();
        messages.push(U2048::from_be_slice(&bytes).rem(params.modulus().as_nz_ref()));
    }
    for m in messages {
        let expected = FixedMontyForm::new(&m, &params).pow(&d).retrieve();
        let sig = blind_rsa::blind_sign(&sk, m.to_be_bytes().as_slice()).unwrap();
        assert_eq!(U2048::from_be_slice(&sig), expected);
    }
}

#[test]
fn pkcs8_corruptions() {
    let (sk, _, _, v) = patgo(0, PATGO_TYPE2);
    let der = pkcs8_der(&v);
    let sk2 = SecretKey::from_pkcs8_der(&der).unwrap();
    assert_eq!(sk2.public_key(), sk.public_key());
    let mut rejected = 0;
    let mut reject = |bytes: &[u8]| {
        assert!(SecretKey::from_pkcs8_der(bytes).is_err(), "accepted a corrupted key");
        rejected += 1;
    };

    // Truncated at every length, and a trailing byte.
    for len in 0..der.len() {
        reject(&der[..len]);
    }
    let mut bad = der.clone();
    bad.push(0);
    reject(&bad);
    // p·q ≠ n, a wrong qInv, dP, dQ, d, n, e: flip the lowest bit of the
    // second-to-last content byte (keeps the DER valid and the primes odd).
    for index in 1..=8 {
        let (at, len) = rsa_private_key_integer(&der, index);
        let mut bad = der.clone();
        bad[at + len - 2] ^= 0x01;
        reject(&bad);
    }
    // Swapped p and q (then qInv is wrong).
    let (p_at, p_len) = rsa_private_key_integer(&der, 4);
    let (q_at, q_len) = rsa_private_key_integer(&der, 5);
    assert_eq!(p_len, q_len);
    let mut bad = der.clone();
    let p = der[p_at..p_at + p_len].to_vec();
    let q = der[q_at..q_at + q_len].to_vec();
    bad[p_at..p_at + p_len].copy_from_slice(&q);
    bad[q_at..q_at + q_len].copy_from_slice(&p);
    reject(&bad);
    // Version 1 of PrivateKeyInfo, version 1 (multi-prime) of RSAPrivateKey.
    let mut bad = der.clone();
    bad[6] = 1;
    reject(&bad);
    let mut bad = der.clone();
    bad[4 + 3 + 15 + 4 + 4 + 2] = 1;
    reject(&bad);
    // Wrong algorithm OID.
    let mut bad = der.clone();
    bad[4 + 3 + 14] = 0x0a;
    reject(&bad);
    assert_eq!(rejected, der.len() + 1 + 8 + 1 + 3);

    // PEM armor problems.
    let pem = String::from_utf8(field(&v, "skS")).unwrap();
    assert!(SecretKey::from_pkcs8_pem(&pem.replace("PRIVATE KEY", "RSA PRIVATE KEY")).is_err());
    assert!(SecretKey::from_pkcs8_pem(&pem.replacen('M', "!", 1)).is_err());
    assert!(SecretKey::from_pkcs8_pem("").is_err());
    // A 4096-bit key is not an RSA-2048 key.
    let doc = load(RFC9474);
    let v = &doc["vectors"][0];
    assert!(
        SecretKey::from_components(
            &hex_int(v["n"].as_str().unwrap(), 512),
            &field(v, "e"),
            &hex_int(v["d"].as_str().unwrap(), 512),
            &hex_int(v["p"].as_str().unwrap(), 256),
            &hex_int(v["q"].as_str().unwrap(), 256),
        )
        .is_err()
    );
}

#[test]
fn from_components_matches_pkcs8() {
    let (sk, _, _, v) = patgo(2, PATGO_TYPE2_RUST);
    let der = pkcs8_der(&v);
    let int = |i: usize| {
        let (at, len) = rsa_private_key_integer(&der, i);
        der[at..at + len].to_vec()
    };
    let sk2 = SecretKey::from_components(&int(1), &int(2), &int(3), &int(4), &int(5)).unwrap();
    assert_eq!(sk2.public_key(), sk.public_key());
    let blinded = [0x42u8; 256];
    assert_eq!(blind_rsa::blind_sign(&sk, &blinded), blind_rsa::blind_sign(&sk2, &blinded));
    // e must be 65537.
    assert_eq!(SecretKey::from_components(&int(1), &[3], &int(3), &int(4), &int(5)).err(), Some(Error::InvalidKey));
    // p·q ≠ n.
    let mut p = int(4);
    let last = p.len() - 1;
    p[last] ^= 2;
    assert!(SecretKey::from_components(&int(1), &int(2), &int(3), &p, &int(5)).is_err());
}

// ---- instruction counts of key parsing --------------------------------------

/// A PEM `PRIVATE KEY` block with 64-column lines (RFC 7468 §2).
fn pem_of(der: &[u8]) -> String {
    use base64ct::{Base64, Encoding};
    let b64 = Base64::encode_string(der);
    let mut out = String::from("-----BEGIN PRIVATE KEY-----\n");
    for line in b64.as_bytes().chunks(64) {
        out.push_str(core::str::from_utf8(line).unwrap());
        out.push('\n');
    }
    out.push_str("-----END PRIVATE KEY-----\n");
    out
}

/// The measurement harness behind the parse figures in `src/crypto/blind_rsa/der.rs`.
/// `PAT_PARSE_OP` picks the call, `PAT_PERF_ITERS` (default 1) how often it
/// runs; under callgrind, the difference between 21 and 1 calls divided by
/// 20 is the count per call. The `*_der` inputs carry e = 65539, so the call
/// walks the whole encoding and stops at the exponent check, before any
/// arithmetic on the key: they count the encoding layer alone.
///
/// ```sh
/// cargo test --release -p pat-privacypass --test blind_rsa --no-run
/// PAT_PARSE_OP=spki PAT_PERF_ITERS=21 valgrind --tool=callgrind --callgrind-out-file=/dev/null \
///     target/release/deps/blind_rsa-<hash> --ignored --exact key_parsing_instruction_counts
/// ```
#[test]
#[ignore = "measurement harness: run in release under callgrind"]
fn key_parsing_instruction_counts() {
    let v = load(PATGO_TYPE2).as_array().unwrap()[0].clone();
    let spki = field(&v, "pkS");
    let mut legacy = hex("30820122300d06092a864886f70d01010105000382010f00");
    legacy.extend_from_slice(&spki[342 - 270..]);
    let pem = String::from_utf8(field(&v, "skS")).unwrap();
    let der = pkcs8_der(&v);
    // e = 65537 -> 65539 in each encoding.
    let mut spki_e = spki.clone();
    *spki_e.last_mut().unwrap() = 0x03;
    let mut der_e = der.clone();
    let (at, len) = rsa_private_key_integer(&der, 2);
    assert_eq!(&der[at..at + len], &[1, 0, 1]);
    der_e[at + 2] = 0x03;
    let pem_e = pem_of(&der_e);
    assert_eq!(pem_of(&der), pem);

    let iters: usize = std::env::var("PAT_PERF_ITERS").ok().and_then(|s| s.parse().ok()).unwrap_or(1);
    let op = std::env::var("PAT_PARSE_OP").unwrap_or_else(|_| "spki".into());
    use core::hint::black_box as bb;
    for _ in 0..iters {
        match op.as_str() {
            "spki" => assert!(PublicKey::from_spki(bb(&spki)).is_ok()),
            "spki_der" => assert_eq!(PublicKey::from_spki(bb(&spki_e)).err(), Some(Error::InvalidKey)),
            "legacy_spki" => assert!(PublicKey::from_rsa_encryption_spki(bb(&legacy)).is_ok()),
            "pkcs8" => assert!(SecretKey::from_pkcs8_der(bb(&der)).is_ok()),
            "pkcs8_der" => assert_eq!(SecretKey::from_pkcs8_der(bb(&der_e)).err(), Some(Error::InvalidKey)),
            "pem" => assert!(SecretKey::from_pkcs8_pem(bb(&pem)).is_ok()),
            "pem_der" => assert_eq!(SecretKey::from_pkcs8_pem(bb(&pem_e)).err(), Some(Error::InvalidKey)),
            other => panic!("unknown PAT_PARSE_OP {other}"),
        }
    }
}

// ---- typed errors of the key encodings (der, spki, pkcs1, pkcs8, pem-rfc7468) ----

/// A DER TLV with the shortest length form.
fn tlv(tag: u8, content: &[u8]) -> Vec<u8> {
    tlv_padded(tag, content, 0)
}

/// A DER TLV whose length form is `extra` bytes longer than the shortest
/// (`extra` = 0: DER; anything else is not DER).
fn tlv_padded(tag: u8, content: &[u8], extra: usize) -> Vec<u8> {
    let len = content.len();
    let digits: Vec<u8> = len.to_be_bytes().iter().copied().skip_while(|b| *b == 0).collect();
    let mut out = vec![tag];
    if len < 0x80 && extra == 0 {
        out.push(u8::try_from(len).unwrap());
    } else {
        let mut long = vec![0u8; extra.saturating_sub(usize::from(len < 0x80))];
        long.extend_from_slice(&digits);
        if long.is_empty() {
            long.push(0);
        }
        out.push(0x80 | u8::try_from(long.len()).unwrap());
        out.extend_from_slice(&long);
    }
    out.extend_from_slice(content);
    out
}

fn seq(parts: &[&[u8]]) -> Vec<u8> {
    tlv(0x30, &parts.concat())
}

/// A non-negative DER INTEGER from big-endian magnitude bytes.
fn int(magnitude: &[u8]) -> Vec<u8> {
    let digits = &magnitude[magnitude.iter().take_while(|b| **b == 0).count().min(magnitude.len() - 1)..];
    let mut content = if digits[0] >= 0x80 { vec![0] } else { vec![] };
    content.extend_from_slice(digits);
    tlv(0x02, &content)
}

const OID_RSA_ENCRYPTION: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01];
const OID_RSASSA_PSS: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x0a];
const OID_MGF1: [u8; 9] = [0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x08];
const OID_SHA384: [u8; 9] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x02];
const OID_SHA256: [u8; 9] = [0x60, 0x86, 0x48, 0x01, 0x65, 0x03, 0x04, 0x02, 0x01];

/// RSASSA-PSS-params; `hash_tail` follows the hash OID inside its
/// AlgorithmIdentifier (RFC 9578: nothing; Go's x509: NULL).
fn pss_params(hash: &[u8], hash_tail: &[u8], salt: &[u8], trailer: Option<u8>) -> Vec<u8> {
    let hash_id = seq(&[&tlv(0x06, hash), hash_tail]);
    let mgf = seq(&[&tlv(0x06, &OID_MGF1), &hash_id]);
    let mut fields = [tlv(0xa0, &hash_id), tlv(0xa1, &mgf), tlv(0xa2, &tlv(0x02, salt))].concat();
    if let Some(t) = trailer {
        fields.extend_from_slice(&tlv(0xa3, &tlv(0x02, &[t])));
    }
    tlv(0x30, &fields)
}

fn spki_with(algorithm: &[u8], n: &[u8], e: &[u8]) -> Vec<u8> {
    let key = seq(&[&int(n), &int(e)]);
    seq(&[algorithm, &tlv(0x03, &[&[0][..], &key].concat())])
}

#[test]
fn spki_typed_errors() {
    let (_, pk, spki, _) = patgo(0, PATGO_TYPE2);
    let n = pk.modulus();
    let e = [1, 0, 1];
    let pss = seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA384, &[], &[0x30], None)]);
    let rsa = seq(&[&tlv(0x06, &OID_RSA_ENCRYPTION), &[0x05, 0x00]]);
    assert_eq!(spki_with(&pss, n, &e), spki, "the builder reproduces the vector");
    let legacy = spki_with(&rsa, n, &e);
    assert_eq!(PublicKey::from_rsa_encryption_spki(&legacy).as_ref(), Ok(&pk));

    let key = seq(&[&int(n), &int(&e)]);
    let bits = tlv(0x03, &[&[0][..], &key].concat());
    let with_alg = |alg: &[u8]| seq(&[alg, &bits]);
    let cases: Vec<(&str, Vec<u8>, Error)> = vec![
        // Truncation anywhere, trailing bytes at every level.
        ("truncated inside the modulus", spki[..200].to_vec(), Error::Truncated),
        ("empty input", vec![], Error::Truncated),
        ("byte after the SPKI", [&spki[..], &[0]].concat(), Error::TrailingBytes),
        ("element after the BIT STRING", seq(&[&pss, &bits, &[0x05, 0x00]]), Error::TrailingBytes),
        ("element after the parameters", with_alg(&seq(&[&pss[2..], &[0x05, 0x00]])), Error::TrailingBytes),
        (
            "element after e",
            seq(&[&pss, &tlv(0x03, &[&[0][..], &seq(&[&int(n), &int(&e), &int(&[0])])].concat())]),
            Error::TrailingBytes,
        ),
        (
            "byte after RSAPublicKey in the BIT STRING",
            seq(&[&pss, &tlv(0x03, &[&[0][..], &key, &[0]].concat())]),
            Error::TrailingBytes,
        ),
        // Wrong OIDs and parameters: well-formed, not this key type.
        ("rsaEncryption through from_spki", legacy.clone(), Error::InvalidKey),
        ("id-RSASSA-PSS without parameters", with_alg(&seq(&[&tlv(0x06, &OID_RSASSA_PSS)])), Error::InvalidKey),
        (
            "SHA-256 as the hash",
            with_alg(&seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA256, &[], &[0x30], None)])),
            Error::InvalidKey,
        ),
        (
            "saltLength 32",
            with_alg(&seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA384, &[], &[0x20], None)])),
            Error::InvalidKey,
        ),
        (
            "saltLength 48 with a leading zero",
            with_alg(&seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA384, &[], &[0, 0x30], None)])),
            Error::InvalidKey,
        ),
        (
            "trailerField 1 written out (DER omits defaults)",
            with_alg(&seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA384, &[], &[0x30], Some(1))])),
            Error::InvalidKey,
        ),
        ("e = 3", spki_with(&pss, n, &[3]), Error::InvalidKey),
        // Not DER.
        (
            "SPKI length in 3 bytes",
            [&[0x30, 0x83, 0x00, 0x01, 0x52][..], &spki[4..]].concat(),
            Error::InvalidValue(Field::Key),
        ),
        (
            "AlgorithmIdentifier length 0x81 0x3d",
            seq(&[&tlv_padded(0x30, &pss[2..], 1), &bits]),
            Error::InvalidValue(Field::Key),
        ),
        (
            "indefinite-length AlgorithmIdentifier",
            seq(&[&[0x30, 0x80], &pss[2..], &[0, 0], &bits]),
            Error::InvalidValue(Field::Key),
        ),
        (
            "modulus with two leading zeros",
            seq(&[&pss, &tlv(0x03, &[&[0][..], &seq(&[&tlv(0x02, &[&[0, 0][..], n].concat()), &int(&e)])].concat())]),
            Error::InvalidValue(Field::Key),
        ),
        (
            "negative e",
            seq(&[&pss, &tlv(0x03, &[&[0][..], &seq(&[&int(n), &tlv(0x02, &[0x81, 0, 1])])].concat())]),
            Error::InvalidValue(Field::Key),
        ),
        (
            "BIT STRING with unused bits",
            seq(&[&pss, &tlv(0x03, &[&[1][..], &key].concat())]),
            Error::InvalidValue(Field::Key),
        ),
        (
            "OCTET STRING for the BIT STRING",
            seq(&[&pss, &tlv(0x04, &[&[0][..], &key].concat())]),
            Error::InvalidValue(Field::Key),
        ),
        // A four-byte length announcing more than the input holds.
        ("length beyond the input", [&[0x30, 0x83, 0x01, 0x00, 0x00][..], &spki[4..]].concat(), Error::Truncated),
    ];
    for (what, bytes, expected) in &cases {
        assert_eq!(PublicKey::from_spki(bytes).err(), Some(*expected), "{what}");
    }
    // NULL hash parameters (OpenSSL's and Go's x509 form, RFC 5754 §2) are
    // accepted since issue 33; tests/spki_null_params.rs covers them.
    let null_params =
        with_alg(&seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA384, &[0x05, 0x00], &[0x30], None)]));
    assert_eq!(PublicKey::from_spki(&null_params).map(|k| *k.modulus()), Ok(*n));
    // The legacy form has the same structure checks, and refuses the PSS form.
    assert_eq!(PublicKey::from_rsa_encryption_spki(&spki).err(), Some(Error::InvalidKey));
    assert_eq!(PublicKey::from_rsa_encryption_spki(&[&legacy[..], &[0]].concat()).err(), Some(Error::TrailingBytes));
    assert_eq!(PublicKey::from_rsa_encryption_spki(&legacy[..100]).err(), Some(Error::Truncated));
    let no_null = spki_with(&seq(&[&tlv(0x06, &OID_RSA_ENCRYPTION)]), n, &e);
    assert_eq!(PublicKey::from_rsa_encryption_spki(&no_null).err(), Some(Error::InvalidKey));
    // Truncation at every length is `Truncated`.
    for len in 0..spki.len() {
        assert_eq!(PublicKey::from_spki(&spki[..len]).err(), Some(Error::Truncated), "{len}");
    }
}

/// The RSAPrivateKey integers of a vector key (version, n, e, d, p, q, dP, dQ, qInv).
fn private_key_integers(der: &[u8]) -> Vec<Vec<u8>> {
    (0..9)
        .map(|i| {
            let (at, len) = rsa_private_key_integer(der, i);
            der[at..at + len].to_vec()
        })
        .collect()
}

fn pkcs8_with(version: &[u8], algorithm: &[u8], ints: &[Vec<u8>], tail: &[u8]) -> Vec<u8> {
    let body: Vec<u8> = ints.iter().map(|i| tlv(0x02, i)).collect::<Vec<_>>().concat();
    let rsa = tlv(0x30, &body);
    seq(&[&tlv(0x02, version), algorithm, &tlv(0x04, &rsa), tail])
}

#[test]
fn pkcs8_typed_errors() {
    let (sk, _, _, v) = patgo(0, PATGO_TYPE2);
    let der = pkcs8_der(&v);
    let ints = private_key_integers(&der);
    let rsa = seq(&[&tlv(0x06, &OID_RSA_ENCRYPTION), &[0x05, 0x00]]);
    assert_eq!(pkcs8_with(&[0], &rsa, &ints, &[]), der, "the builder reproduces the vector");
    assert_eq!(SecretKey::from_pkcs8_der(&der).unwrap().public_key(), sk.public_key());

    let with_ints = |f: &dyn Fn(&mut Vec<Vec<u8>>)| {
        let mut ints = ints.clone();
        f(&mut ints);
        pkcs8_with(&[0], &rsa, &ints, &[])
    };
    let cases: Vec<(&str, Vec<u8>, Error)> = vec![
        ("byte after the PrivateKeyInfo", [&der[..], &[0]].concat(), Error::TrailingBytes),
        ("attributes [0] (pkcs8 would skip them)", pkcs8_with(&[0], &rsa, &ints, &[0xa0, 0x00]), Error::TrailingBytes),
        (
            "an unknown [2] field after attributes (pkcs8 would skip it)",
            pkcs8_with(&[0], &rsa, &ints, &[0xa0, 0x00, 0xa2, 0x02, 0x05, 0x00]),
            Error::TrailingBytes,
        ),
        ("NULL after the private key", pkcs8_with(&[0], &rsa, &ints, &[0x05, 0x00]), Error::InvalidValue(Field::Key)),
        ("INTEGER after the RSAPrivateKey fields", with_ints(&|i| i.push(vec![0])), Error::TrailingBytes),
        (
            "version 1 with a public key [1] (RFC 5958)",
            pkcs8_with(&[1], &rsa, &ints, &tlv(0x81, &[0])),
            Error::InvalidKey,
        ),
        ("version 1 without a public key", pkcs8_with(&[1], &rsa, &ints, &[]), Error::InvalidValue(Field::Key)),
        ("version 2", pkcs8_with(&[2], &rsa, &ints, &[]), Error::InvalidValue(Field::Key)),
        (
            "RSAPrivateKey version 1 (multi-prime) without otherPrimeInfos",
            with_ints(&|i| i[0] = vec![1]),
            Error::InvalidValue(Field::Key),
        ),
        (
            "id-RSASSA-PSS as the algorithm",
            pkcs8_with(
                &[0],
                &seq(&[&tlv(0x06, &OID_RSASSA_PSS), &pss_params(&OID_SHA384, &[], &[0x30], None)]),
                &ints,
                &[],
            ),
            Error::InvalidKey,
        ),
        (
            "rsaEncryption without NULL",
            pkcs8_with(&[0], &seq(&[&tlv(0x06, &OID_RSA_ENCRYPTION)]), &ints, &[]),
            Error::InvalidKey,
        ),
        ("e = 3", with_ints(&|i| i[2] = vec![3]), Error::InvalidKey),
        ("d with a superfluous leading zero", with_ints(&|i| i[3].insert(0, 0)), Error::InvalidValue(Field::Key)),
        ("negative qInv", with_ints(&|i| i[8][0] = 0x80), Error::InvalidValue(Field::Key)),
        ("empty dP", with_ints(&|i| i[6].clear()), Error::InvalidValue(Field::Key)),
        (
            "OCTET STRING length in a longer form",
            seq(&[&tlv(0x02, &[0]), &rsa, &tlv_padded(0x04, &der[26..], 1)]),
            Error::InvalidValue(Field::Key),
        ),
        ("inconsistent key: qInv + 2", with_ints(&|i| *i[8].last_mut().unwrap() ^= 2), Error::InvalidKey),
    ];
    for (what, bytes, expected) in &cases {
        assert_eq!(SecretKey::from_pkcs8_der(bytes).err(), Some(*expected), "{what}");
    }
    // Multi-prime with otherPrimeInfos: `pkcs1` refuses it without `alloc`
    // (InvalidValue); where another crate turns `pkcs1/alloc` on it decodes,
    // and the two-prime check refuses it (InvalidKey).
    let mut multi = ints.clone();
    multi[0] = vec![1];
    let mut body: Vec<u8> = multi.iter().map(|i| tlv(0x02, i)).collect::<Vec<_>>().concat();
    let prime_info = seq(&[&int(&[7]), &int(&[3]), &int(&[5])]);
    body.extend_from_slice(&seq(&[&prime_info]));
    let multi = seq(&[&tlv(0x02, &[0]), &rsa, &tlv(0x04, &tlv(0x30, &body))]);
    let got = SecretKey::from_pkcs8_der(&multi).err();
    assert!(matches!(got, Some(Error::InvalidValue(Field::Key) | Error::InvalidKey)), "{got:?}");
    for len in 0..der.len() {
        assert_eq!(SecretKey::from_pkcs8_der(&der[..len]).err(), Some(Error::Truncated), "{len}");
    }
}

#[test]
fn pem_grammar() {
    let (_, pk, _, v) = patgo(0, PATGO_TYPE2);
    let pem = String::from_utf8(field(&v, "skS")).unwrap();
    let der = pkcs8_der(&v);
    assert_eq!(pem_of(&der), pem);
    let lines: Vec<&str> = pem.lines().collect();
    let rewrap = |width: usize| {
        use base64ct::{Base64, Encoding};
        let b64 = Base64::encode_string(&der);
        let body: Vec<&str> = b64.as_bytes().chunks(width).map(|c| core::str::from_utf8(c).unwrap()).collect();
        format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", body.join("\n"))
    };

    // Accepted: RFC 7468 §2 line ends, surrounding whitespace, explanatory text before the block.
    for (what, text) in [
        ("as written", pem.clone()),
        ("CRLF", pem.replace('\n', "\r\n")),
        ("CR", pem.replace('\n', "\r")),
        ("no final line end", pem.trim_end().to_owned()),
        ("surrounding whitespace", format!("\n  {pem}\n\n")),
        ("text before the block", format!("a key:\n{pem}")),
        // Any consistent line width: 76 columns as MIME tools write, others.
        ("76-column lines", rewrap(76)),
        ("48-column lines", rewrap(48)),
        ("one line", rewrap(4096)),
    ] {
        let sk = SecretKey::from_pkcs8_pem(&text).unwrap_or_else(|e| panic!("{what}: {e:?}"));
        assert_eq!(sk.public_key(), &pk, "{what}");
    }

    // Refused: lines of different widths, blank lines and spaces inside the
    // body (the old reader took any whitespace), other labels, headers, bad
    // base64.
    let field_err = Error::InvalidValue(Field::Key);
    let mut blank = lines.clone();
    blank.insert(1, "");
    let mut spaced = lines.clone();
    let space = format!("{} {}", &lines[2][..10], &lines[2][10..]);
    spaced[2] = &space;
    let mut ragged = lines.clone();
    let (a, b) = lines[3].split_at(32);
    let joined = format!("{}{a}", lines[2]);
    ragged[2] = &joined;
    ragged[3] = b;
    let mut header = lines.clone();
    header.splice(1..1, ["Proc-Type: 4,ENCRYPTED", ""]);
    for (what, text, expected) in [
        ("lines of two widths", ragged.join("\n"), field_err),
        ("a blank line", blank.join("\n"), field_err),
        ("a space inside a line", spaced.join("\n"), field_err),
        ("a trailing tab on a line", pem.replacen('\n', "\t\n", 2).replacen("\t\n", "\n", 1), field_err),
        ("encapsulated header", header.join("\n"), field_err),
        ("RSA PRIVATE KEY label", pem.replace("PRIVATE KEY", "RSA PRIVATE KEY"), field_err),
        ("PUBLIC KEY label", pem.replace("PRIVATE KEY", "PUBLIC KEY"), field_err),
        ("mismatched END label", pem.replace("END PRIVATE", "END RSA PRIVATE"), field_err),
        ("text after the block", format!("{pem}x\n"), field_err),
        ("not base64", pem.replacen('M', "!", 1), field_err),
        ("no armor", lines[1..lines.len() - 1].join("\n"), field_err),
        ("empty", String::new(), field_err),
        ("armor around nothing", "-----BEGIN PRIVATE KEY-----\n-----END PRIVATE KEY-----\n".into(), field_err),
        ("3073 bytes of DER", pem_of(&[0u8; 3073]), Error::InvalidLength(Field::Key)),
        ("DER truncated by one byte", pem_of(&der[..der.len() - 1]), Error::Truncated),
        ("one byte after the DER", pem_of(&[&der[..], &[0]].concat()), Error::TrailingBytes),
    ] {
        assert_eq!(SecretKey::from_pkcs8_pem(&text).err(), Some(expected), "{what}");
    }
}

/// `to_pkcs8_der` (the `pkcs1`/`pkcs8` encoders) and `to_pkcs8_pem`
/// (`pem-rfc7468`) write back pat-go's and the Rust implementation's PKCS#8
/// keys byte for byte: DER has one encoding, and both wrote the same fields.
#[test]
fn pkcs8_reencodes_byte_for_byte() {
    let mut keys = 0;
    for path in [PATGO_TYPE2, PATGO_TYPE2_RUST] {
        for v in load(path).as_array().unwrap() {
            let der = pkcs8_der(v);
            let sk = SecretKey::from_pkcs8_der(&der).unwrap();
            let mut out = vec![0u8; blind_rsa::PKCS8_MAX_LEN];
            let n = sk.to_pkcs8_der(&mut out).unwrap();
            assert_eq!(hex_of(&out[..n]), hex_of(&der), "{path}");
            assert_eq!(sk.to_pkcs8_der(&mut out[..n - 1]), Err(Error::BufferTooSmall));
            // The PEM form is the vector's own text (Go's encoder: 64 columns, LF).
            let mut pem = vec![0u8; blind_rsa::PKCS8_PEM_MAX_LEN];
            let text = sk.to_pkcs8_pem(&mut pem).unwrap().to_owned();
            assert_eq!(text.as_bytes(), field(v, "skS"), "{path}");
            assert_eq!(sk.to_pkcs8_pem(&mut pem[..text.len() - 1]).err(), Some(Error::BufferTooSmall));
            keys += 1;
        }
    }
    assert_eq!(keys, 10);
}
