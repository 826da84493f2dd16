//! `tokens/type3/*`: the rate-limited (type 0x0003) building blocks.
//!
//! - `type3-ecdsa-blinding`: ECDSA P-384 key blinding (draft-irtf-cfrg-signature-key-blinding
//!   §6). `Curve`/`Hash` are plain strings; the signature is hedged, so it is
//!   verified, not reproduced. The draft's own vectors (field `ctx`, no
//!   `Curve`/`Hash`) pass through the same checks.
//! - `type3-ed25519-blinding`: Ed25519 key blinding (draft §5). The signature is
//!   deterministic and must be reproduced byte for byte; pat-go's `pkB` is
//!   always `""` and is not read.
//! - `type3-origin-encryption`: HPKE encryption of the `InnerTokenRequest`
//!   (draft "Client to Issuer Encapsulation"). `kem_id`, `kdf_id`, `aead_id`,
//!   `token_type` and `token_key_id` are JSON numbers. The ciphertext has a
//!   random ephemeral key, so it is decrypted and its plaintext and export
//!   compared.
//! - `type3-anon-origin-id`: request key, blinded request key (`index_key`) and
//!   issuer-origin alias, with an **empty** blinding context as in pat-go's and
//!   the draft's vector (protocol-reference §7.9).

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value, json};

use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::key_blinding::{ecdsa_p384 as ecdsa, ed25519};
use pat::crypto::rate_limited::alias;
use pat::crypto::rate_limited::encap::{self, EncapKey, EncapSecretKey};
use pat::crypto::rate_limited::inner_request::{BLINDED_MSG_LEN, InnerTokenRequest};
use pat::crypto::rate_limited::origin_encryption::{self, ENC_LEN, REQUEST_KEY_LEN};
use pat::crypto::rate_limited::{Labels, TOKEN_TYPE};
use pat::wire::codec::{Decode, Encode};

/// The message every pat-go blinding vector signs.
const MESSAGE: &[u8] = b"hello world";
/// The origin name of pat-go's origin-encryption vector.
const ORIGIN_NAME: &[u8] = b"test.example";

fn err(what: &str) -> impl Fn(pat::Error) -> String + '_ {
    move |e| format!("{what}: {e}")
}

fn gen_err(e: pat::Error) -> VectorError {
    VectorError::Format(format!("generation failed: {e}"))
}

fn random<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    rand_core::Rng::fill_bytes(&mut rand_core::UnwrapErr(pat::OsRng), &mut out);
    out
}

/// A plain string field that must have `expected`, when present.
fn optional_str(case: &Case<'_>, field: &str, expected: &str) -> Result<Result<(), String>, VectorError> {
    match case.fields.get(field) {
        None => Ok(Ok(())),
        Some(v) => {
            let s = v.as_str().ok_or_else(|| case.error(field, "not a string"))?;
            Ok(if s == expected { Ok(()) } else { Err(format!("{field}: {s:?}, expected {expected:?}")) })
        }
    }
}

pub(crate) fn verify_ecdsa(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    if let Err(e) = optional_str(case, "Curve", "P-384")?.and(optional_str(case, "Hash", "SHA-384")?) {
        return Ok(Err(e));
    }
    let sk_bytes = case.hex_array::<48>(&["skS"])?;
    let pk_bytes = case.hex_array::<49>(&["pkS"])?;
    let bk_bytes = case.hex_array::<48>(&["bk"])?;
    let pk_r_bytes = case.hex_array::<49>(&["pkR"])?;
    let message = case.hex(&["message"])?;
    let ctx = case.hex(&["context", "ctx"])?;
    let sig = ecdsa::Signature::from_bytes(&case.hex_array::<96>(&["signature"])?);

    Ok((|| {
        let sk = ecdsa::SecretKey::from_bytes(&sk_bytes).map_err(err("skS"))?;
        let pk_s = ecdsa::PublicKey::from_bytes(&pk_bytes).map_err(err("pkS"))?;
        expect_eq("pkS", &sk.public_key().to_bytes(), &pk_bytes)?;
        let bk = ecdsa::BlindKey::from_bytes(&bk_bytes);
        let pk_r = ecdsa::blind_public_key(&pk_s, &bk, &ctx).map_err(err("BlindPublicKey"))?;
        expect_eq("pkR", &pk_r.to_bytes(), &pk_r_bytes)?;
        let back = ecdsa::unblind_public_key(&pk_r, &bk, &ctx).map_err(err("UnblindPublicKey"))?;
        expect_eq("UnblindPublicKey(pkR)", &back.to_bytes(), &pk_bytes)?;
        // The fixed 48-byte encoding agrees unless the blind has a leading zero.
        if bk_bytes.first() != Some(&0) {
            let fixed = ecdsa::BlindKey::with_encoding(&bk_bytes, ecdsa::BlindKeyEncoding::Fixed);
            let pk_fixed = ecdsa::blind_public_key(&pk_s, &fixed, &ctx).map_err(err("BlindPublicKey"))?;
            expect_eq("pkR (fixed blind encoding)", &pk_fixed.to_bytes(), &pk_r_bytes)?;
        }
        let sk_r = ecdsa::blind_secret_key(&sk, &bk, &ctx).map_err(err("blinded secret key"))?;
        expect_eq("public key of skS·u", &sk_r.public_key().to_bytes(), &pk_r_bytes)?;
        ecdsa::verify(&pk_r, &message, &sig).map_err(err("signature under pkR"))?;
        if ecdsa::verify(&pk_s, &message, &sig).is_ok() {
            return Err("signature also verifies under pkS".into());
        }
        let mut rng = rand_core::UnwrapErr(pat::OsRng);
        let fresh = ecdsa::blind_key_sign_message(&sk, &bk, &ctx, &message, &mut rng).map_err(err("BlindKeySign"))?;
        ecdsa::verify(&pk_r, &message, &fresh).map_err(err("fresh signature under pkR"))
    })())
}

pub(crate) fn generate_ecdsa(count: usize) -> Result<Vec<Value>, VectorError> {
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    (0..count)
        .map(|i| {
            let sk = ecdsa::SecretKey::random(&mut rng).map_err(gen_err)?;
            let bk_bytes = random::<48>();
            let bk = ecdsa::BlindKey::from_bytes(&bk_bytes);
            let ctx: Vec<u8> = if i.is_multiple_of(2) { Vec::new() } else { random::<32>().to_vec() };
            let pk_r = ecdsa::blind_public_key(&sk.public_key(), &bk, &ctx).map_err(gen_err)?;
            let sig = ecdsa::blind_key_sign_message(&sk, &bk, &ctx, MESSAGE, &mut rng).map_err(gen_err)?;
            Ok(json!({
                "Curve": "P-384",
                "Hash": "SHA-384",
                "skS": encode_hex(sk.to_bytes().as_ref()),
                "pkS": encode_hex(&sk.public_key().to_bytes()),
                "bk": encode_hex(&bk_bytes),
                "pkR": encode_hex(&pk_r.to_bytes()),
                "message": encode_hex(MESSAGE),
                "context": encode_hex(&ctx),
                "signature": encode_hex(&sig.to_bytes()),
            }))
        })
        .collect()
}

pub(crate) fn verify_ed25519(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let seed = case.hex_array::<32>(&["skS"])?;
    let pk_bytes = case.hex_array::<32>(&["pkS"])?;
    let bk_bytes = case.hex_array::<32>(&["bk"])?;
    let pk_r_bytes = case.hex_array::<32>(&["pkR"])?;
    let message = case.hex(&["message"])?;
    let ctx = case.hex(&["context", "ctx"])?;
    let expected_sig = case.hex_array::<64>(&["signature"])?;

    Ok((|| {
        let sk = ed25519::SecretKey::from_bytes(&seed);
        let pk_s = sk.public_key();
        expect_eq("pkS", &pk_s.to_bytes(), &pk_bytes)?;
        let parsed = ed25519::PublicKey::from_bytes(&pk_bytes).map_err(err("pkS"))?;
        expect_eq("pkS (decoded)", &parsed.to_bytes(), &pk_bytes)?;
        let bk = ed25519::BlindKey::from_bytes(&bk_bytes);
        let pk_r = ed25519::blind_public_key(&pk_s, &bk, &ctx).map_err(err("BlindPublicKey"))?;
        expect_eq("pkR", &pk_r.to_bytes(), &pk_r_bytes)?;
        let back = ed25519::unblind_public_key(&pk_r, &bk, &ctx).map_err(err("UnblindPublicKey"))?;
        expect_eq("UnblindPublicKey(pkR)", &back.to_bytes(), &pk_bytes)?;
        let sig = ed25519::blind_key_sign(&sk, &bk, &ctx, &message).map_err(err("BlindKeySign"))?;
        expect_eq("signature", &sig.to_bytes(), &expected_sig)?;
        ed25519::verify(&pk_r, &message, &sig).map_err(err("signature under pkR"))?;
        if ed25519::verify(&pk_s, &message, &sig).is_ok() {
            return Err("signature also verifies under pkS".into());
        }
        Ok(())
    })())
}

pub(crate) fn generate_ed25519(count: usize) -> Result<Vec<Value>, VectorError> {
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    (0..count)
        .map(|i| {
            let sk = ed25519::SecretKey::random(&mut rng).map_err(gen_err)?;
            // pat-go's order: random blind, zero blind; without, then with a context.
            let bk_bytes = if i.is_multiple_of(2) { random::<32>() } else { [0u8; 32] };
            let ctx: Vec<u8> = if i % 4 < 2 { Vec::new() } else { random::<32>().to_vec() };
            let bk = ed25519::BlindKey::from_bytes(&bk_bytes);
            let pk_r = ed25519::blind_public_key(&sk.public_key(), &bk, &ctx).map_err(gen_err)?;
            let sig = ed25519::blind_key_sign(&sk, &bk, &ctx, MESSAGE).map_err(gen_err)?;
            Ok(json!({
                "skS": encode_hex(sk.to_bytes().as_ref()),
                "pkS": encode_hex(&sk.public_key().to_bytes()),
                "bk": encode_hex(&bk_bytes),
                "pkB": "",
                "pkR": encode_hex(&pk_r.to_bytes()),
                "message": encode_hex(MESSAGE),
                "context": encode_hex(&ctx),
                "signature": encode_hex(&sig.to_bytes()),
            }))
        })
        .collect()
}

/// A JSON number field that must equal `expected`.
fn expect_num(case: &Case<'_>, field: &str, expected: u64) -> Result<Result<(), String>, VectorError> {
    let n = case.num(field)?;
    Ok(if n == expected { Ok(()) } else { Err(format!("{field}: {n}, expected {expected}")) })
}

pub(crate) fn verify_origin_encryption(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    for (field, value) in
        [("kem_id", encap::KEM_ID), ("kdf_id", encap::KDF_ID), ("aead_id", encap::AEAD_ID), ("token_type", TOKEN_TYPE)]
    {
        if let Err(e) = expect_num(case, field, u64::from(value))? {
            return Ok(Err(e));
        }
    }
    let token_key_id =
        u8::try_from(case.num("token_key_id")?).map_err(|_| case.error("token_key_id", "not a byte (0..=255)"))?;
    let seed = case.hex_array::<32>(&["issuer_encap_key_seed"])?;
    let encap_key = case.hex_array::<{ encap::ENCAP_KEY_LEN }>(&["issuer_encap_key"])?;
    let encap_key_id = case.hex_array::<32>(&["issuer_encap_key_id"])?;
    let request_key = case.hex_array::<REQUEST_KEY_LEN>(&["request_key"])?;
    let blinded_msg = case.hex_array::<BLINDED_MSG_LEN>(&["blinded_msg"])?;
    let origin_name = case.hex(&["origin_name"])?;
    let encap_secret = case.hex_array::<16>(&["encap_secret"])?;
    let encrypted = case.hex(&["encrypted_token_request"])?;

    Ok((|| {
        let parsed = EncapKey::decode(&encap_key).map_err(err("issuer_encap_key"))?;
        let sk = EncapSecretKey::derive(parsed.key_id(), &seed);
        expect_eq("issuer_encap_key (from the seed)", &sk.encap_key().to_bytes(), &encap_key)?;
        expect_eq("issuer_encap_key_id", &sk.encap_key().id(), &encap_key_id)?;
        let mut plaintext = std::vec![0u8; encrypted.len()];
        let (inner, state) =
            origin_encryption::decrypt_origin_request(&sk, &request_key, &encrypted, &Labels::PAT_GO, &mut plaintext)
                .map_err(err("decrypt encrypted_token_request"))?;
        if inner.token_key_id != token_key_id {
            return Err(format!("token_key_id: decrypted {}, the file has {token_key_id}", inner.token_key_id));
        }
        expect_eq("blinded_msg", inner.blinded_msg, &blinded_msg)?;
        expect_eq("origin_name", inner.origin_name, &origin_name)?;
        expect_eq("encap_secret", state.secret(), &encap_secret)?;
        expect_eq("enc", state.enc(), encrypted.get(..ENC_LEN).unwrap_or_default())?;
        // The whole plaintext is the strict, minimally padded encoding.
        let expected = InnerTokenRequest::new(token_key_id, &blinded_msg, &origin_name).map_err(err("origin_name"))?;
        let mut encoded = std::vec![0u8; expected.encoded_len()];
        expected.encode(&mut encoded).map_err(err("encode InnerTokenRequest"))?;
        expect_eq("plaintext", plaintext.get(..encoded.len()).unwrap_or_default(), &encoded)?;
        let expected_len = origin_encryption::encrypted_request_len(&expected);
        if encrypted.len() != expected_len {
            return Err(format!("encrypted_token_request: {} bytes, expected {expected_len}", encrypted.len()));
        }
        Ok(())
    })())
}

pub(crate) fn generate_origin_encryption(count: usize) -> Result<Vec<Value>, VectorError> {
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    (0..count)
        .map(|_| {
            let seed = random::<32>();
            // pat-go's `CreatePrivateEncapKeyFromSeed` uses key_id 0x01.
            let sk = EncapSecretKey::derive(0x01, &seed);
            // Random bytes, as pat-go writes (not necessarily a point).
            let request_key = random::<REQUEST_KEY_LEN>();
            let [token_key_id] = random::<1>();
            let blinded_msg = random::<BLINDED_MSG_LEN>();
            let inner = InnerTokenRequest::new(token_key_id, &blinded_msg, ORIGIN_NAME).map_err(gen_err)?;
            let mut encrypted = std::vec![0u8; origin_encryption::encrypted_request_len(&inner)];
            let (n, state) = origin_encryption::encrypt_origin_request(
                sk.encap_key(),
                &request_key,
                &inner,
                &Labels::PAT_GO,
                &mut encrypted,
                &mut rng,
            )
            .map_err(gen_err)?;
            encrypted.truncate(n);
            Ok(json!({
                "kem_id": encap::KEM_ID,
                "kdf_id": encap::KDF_ID,
                "aead_id": encap::AEAD_ID,
                "issuer_encap_key_seed": encode_hex(&seed),
                "issuer_encap_key": encode_hex(&sk.encap_key().to_bytes()),
                "token_type": TOKEN_TYPE,
                "issuer_encap_key_id": encode_hex(&sk.encap_key().id()),
                "request_key": encode_hex(&request_key),
                "token_key_id": token_key_id,
                "blinded_msg": encode_hex(&blinded_msg),
                "origin_name": encode_hex(ORIGIN_NAME),
                "encap_secret": encode_hex(state.secret()),
                "encrypted_token_request": encode_hex(&encrypted),
            }))
        })
        .collect()
}

pub(crate) fn verify_anon_origin_id(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let sk_sign = case.hex_array::<48>(&["sk_sign"])?;
    let pk_sign = case.hex_array::<49>(&["pk_sign"])?;
    let sk_origin = case.hex_array::<48>(&["sk_origin"])?;
    let request_blind = case.hex_array::<48>(&["request_blind"])?;
    let request_key = case.hex_array::<49>(&["request_key"])?;
    let index_key = case.hex_array::<49>(&["index_key"])?;
    let expected_alias = case.hex_array::<48>(&["issuer_origin_alias"])?;
    // The vectors were made with an empty context (protocol-reference §7.9).
    let ctx: &[u8] = b"";
    let encoding = ecdsa::BlindKeyEncoding::Minimal;

    Ok((|| {
        let sk = ecdsa::SecretKey::from_bytes(&sk_sign).map_err(err("sk_sign"))?;
        let pk = ecdsa::PublicKey::from_bytes(&pk_sign).map_err(err("pk_sign"))?;
        expect_eq("pk_sign", &sk.public_key().to_bytes(), &pk_sign)?;
        let origin = ecdsa::SecretKey::from_bytes(&sk_origin).map_err(err("sk_origin"))?;
        let blind = ecdsa::BlindKey::with_encoding(&request_blind, encoding);
        let rk = alias::request_key(&pk, &blind, ctx).map_err(err("request_key"))?;
        expect_eq("request_key", &rk.to_bytes(), &request_key)?;
        alias::verify_request_key(&pk, &blind, ctx, &request_key).map_err(err("attester request_key check"))?;
        let blinded = alias::blinded_request_key(&rk, &origin, ctx, encoding).map_err(err("blinded request key"))?;
        expect_eq("index_key (blinded request key)", &blinded.to_bytes(), &index_key)?;
        let unblinded = alias::index_key(&blinded, &blind, ctx).map_err(err("index key"))?;
        let direct = alias::blinded_request_key(&pk, &origin, ctx, encoding).map_err(err("index key"))?;
        expect_eq("index key = BlindPublicKey(pk_sign, sk_origin)", &unblinded.to_bytes(), &direct.to_bytes())?;
        expect_eq("issuer_origin_alias", &alias::issuer_origin_alias(&pk, &unblinded), &expected_alias)
    })())
}

pub(crate) fn generate_anon_origin_id(count: usize) -> Result<Vec<Value>, VectorError> {
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let ctx: &[u8] = b"";
    (0..count)
        .map(|_| {
            let sk = ecdsa::SecretKey::random(&mut rng).map_err(gen_err)?;
            let pk = sk.public_key();
            let origin = ecdsa::SecretKey::random(&mut rng).map_err(gen_err)?;
            let blind_bytes = random::<48>();
            let blind = ecdsa::BlindKey::from_bytes(&blind_bytes);
            let rk = alias::request_key(&pk, &blind, ctx).map_err(gen_err)?;
            let blinded =
                alias::blinded_request_key(&rk, &origin, ctx, ecdsa::BlindKeyEncoding::Minimal).map_err(gen_err)?;
            let index_key = alias::index_key(&blinded, &blind, ctx).map_err(gen_err)?;
            Ok(json!({
                "sk_sign": encode_hex(sk.to_bytes().as_ref()),
                "pk_sign": encode_hex(&pk.to_bytes()),
                "sk_origin": encode_hex(origin.to_bytes().as_ref()),
                "request_blind": encode_hex(&blind_bytes),
                "request_key": encode_hex(&rk.to_bytes()),
                "index_key": encode_hex(&blinded.to_bytes()),
                "issuer_origin_alias": encode_hex(&alias::issuer_origin_alias(&pk, &index_key)),
            }))
        })
        .collect()
}
