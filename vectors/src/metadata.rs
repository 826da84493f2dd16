//! Public metadata: the partially blind RSA known answers of
//! draft-irtf-cfrg-partially-blind-rsa (kind `pbrsa`) and privacypass-ts's
//! type 0xDA7A issuance file `pub_verif_with_metadata_v3.json` (kind
//! `type-da7a`).
//!
//! `pbrsa`: the key is given as n, e, d, p and q; `eprime` is compared with
//! `DerivePublicKey(n, info)`, `blind_msg` with the blinding of `msg` under
//! the given salt and blind `r`, `blind_sig` with the derived key's
//! signature, `sig` with the finalized signature, which is also verified.
//! Only the deterministic variants are in the draft; a non-empty
//! `msg_prefix` selects the randomized one of the same salt length.
//!
//! `type-da7a`: as type 0x0002 (`type2`), with the request's extensions
//! (`extensions`) bound into the signature; every message is compared byte
//! for byte and the token is verified as an origin would, with the
//! extensions as they came.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value, json};

use super::type2::{encode, left_pad};
use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::blind_rsa::partial::{DerivedPublicKey, DerivedSecretKey};
use pat::crypto::blind_rsa::{MODULUS_LEN, PKCS8_PEM_MAX_LEN, PreparedMessage, PublicKey, SecretKey, Variant};
use pat::tokens::metadata::{Client, Issuer, Origin, TokenRequest, TokenResponse};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extensions::{Extensions, ExtensionsWriter};

/// The draft's variant for a salt length and a prefix.
fn variant(salt_len: usize, randomized: bool) -> Option<Variant> {
    match (salt_len, randomized) {
        (48, false) => Some(Variant::Sha384PssDeterministic),
        (0, false) => Some(Variant::Sha384PssZeroDeterministic),
        (48, true) => Some(Variant::Sha384PssRandomized),
        (0, true) => Some(Variant::Sha384PssZeroRandomized),
        _ => None,
    }
}

pub(crate) fn verify_pbrsa(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let [n, e, d, p, q] = ["n", "e", "d", "p", "q"].map(|f| case.hex(&[f]));
    let (n, e, d, p, q) = (n?, e?, d?, p?, q?);
    let msg = case.hex(&["msg"])?;
    let info = case.hex(&["info", "metadata"])?;
    let eprime = case.hex(&["eprime"])?;
    let salt = case.hex(&["salt"])?;
    let r = case.hex(&["r"])?;
    let r = left_pad(&r).ok_or_else(|| case.error("r", "longer than 256 bytes"))?;
    let prefix = if case.has("msg_prefix") { case.hex(&["msg_prefix"])? } else { Vec::new() };
    let blind_msg = case.hex(&["blind_msg", "blinded_msg"])?;
    let blind_sig = case.hex(&["blind_sig", "blinded_sig"])?;
    let sig = case.hex(&["sig"])?;
    let variant = variant(salt.len(), !prefix.is_empty())
        .ok_or_else(|| case.error("salt", format!("no variant has a {}-byte salt", salt.len())))?;
    let prefix: Option<[u8; 32]> = match prefix.len() {
        0 => None,
        _ => Some(prefix.as_slice().try_into().map_err(|_| case.error("msg_prefix", "not 32 bytes"))?),
    };

    Ok((|| {
        let sk = SecretKey::from_components(&n, &e, &d, &p, &q).map_err(|e| format!("key: {e}"))?;
        let input = match prefix {
            Some(prefix) => PreparedMessage::with_prefix(prefix, &msg),
            None => PreparedMessage::identity(&msg),
        };
        let pk: DerivedPublicKey<'_, '_> =
            DerivedPublicKey::new(sk.public_key(), &info).map_err(|e| format!("DerivePublicKey: {e}"))?;
        let mut e_prime = [0u8; MODULUS_LEN / 2];
        pk.exponent_to_be(&mut e_prime).map_err(|e| format!("eprime: {e}"))?;
        expect_eq("eprime", &e_prime, &eprime)?;
        let (blinded, state) = pat::hazmat::crypto::blind_rsa::partial_blind_with(&pk, variant, &input, &salt, &r)
            .map_err(|e| format!("Blind: {e}"))?;
        expect_eq("blind_msg", &blinded, &blind_msg)?;
        let derived = DerivedSecretKey::new(&sk, &info).map_err(|e| format!("DeriveKeyPair: {e}"))?;
        let signed = derived.blind_sign(&blind_msg).map_err(|e| format!("BlindSign: {e}"))?;
        expect_eq("blind_sig", &signed, &blind_sig)?;
        let finalized = pk.finalize(variant, &input, &state, &blind_sig).map_err(|e| format!("Finalize: {e}"))?;
        expect_eq("sig", &finalized, &sig)?;
        pk.verify(variant, &input, &sig).map_err(|e| format!("Verify: {e}"))?;
        // The signature is bound to the metadata: other info fails.
        let mut other = info.clone();
        other.push(0);
        let wrong: DerivedPublicKey<'_, '_> =
            DerivedPublicKey::new(sk.public_key(), &other).map_err(|e| format!("DerivePublicKey: {e}"))?;
        if wrong.verify(variant, &input, &sig).is_ok() {
            return Err("sig also verifies with other info".into());
        }
        Ok(())
    })())
}

pub(crate) fn verify_type_da7a(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let sk_pem = case.hex(&["skS", "sk_s"])?;
    let pk_spki = case.hex(&["pkS", "pk_s"])?;
    let challenge_bytes = case.hex(&["token_challenge"])?;
    let extensions_bytes = case.hex(&["extensions"])?;
    let nonce = case.hex_array::<32>(&["nonce"])?;
    let blind = case.hex(&["blind"])?;
    let blind = left_pad(&blind).ok_or_else(|| case.error("blind", "longer than 256 bytes"))?;
    let salt = case.hex_array::<48>(&["salt"])?;
    let request = case.hex(&["token_request"])?;
    let response = case.hex(&["token_response"])?;
    let token = case.hex(&["token"])?;

    Ok((|| {
        let pem = core::str::from_utf8(&sk_pem).map_err(|_| String::from("skS: not a PEM text"))?;
        let sk = SecretKey::from_pkcs8_pem(pem).map_err(|e| format!("skS: {e}"))?;
        let pk = PublicKey::from_spki(&pk_spki).map_err(|e| format!("pkS: {e}"))?;
        if sk.public_key() != &pk {
            return Err("pkS is not the public key of skS".into());
        }
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(|e| format!("token_challenge: {e}"))?;
        let extensions = Extensions::decode(&extensions_bytes).map_err(|e| format!("extensions: {e}"))?;

        let client = Client::new(pk.clone());
        let (req, mut state) =
            pat::hazmat::tokens::metadata::request_with(&client, &challenge, extensions, &nonce, &salt, &blind)
                .map_err(|e| format!("request: {e}"))?;
        expect_eq("token_request", &encode(&req)?, &request)?;

        let issuer = Issuer::new(sk);
        let parsed = TokenRequest::decode(&request).map_err(|e| format!("token_request: {e}"))?;
        expect_eq("token_request extensions", parsed.extensions.as_bytes(), &extensions_bytes)?;
        let resp = issuer.evaluate(&parsed).map_err(|e| format!("evaluate: {e}"))?;
        expect_eq("token_response", &encode(&resp)?, &response)?;

        let parsed = TokenResponse::decode(&response).map_err(|e| format!("token_response: {e}"))?;
        let tok = client.finalize(&mut state, &extensions, &parsed).map_err(|e| format!("finalize: {e}"))?;
        expect_eq("token", &encode(&tok)?, &token)?;
        let origin = Origin::new(pk);
        origin.verify(&tok, &challenge, &extensions).map_err(|e| format!("origin verify: {e}"))?;
        if !extensions.is_empty() && origin.verify(&tok, &challenge, &Extensions::EMPTY).is_ok() {
            return Err("the token also verifies without its extensions".into());
        }
        Ok(())
    })())
}

pub(crate) fn generate_type_da7a(count: usize) -> Result<Vec<Value>, VectorError> {
    let err = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    // Safe primes (the draft's requirement): this takes seconds to minutes.
    let sk = SecretKey::generate_safe(&mut rng).map_err(err)?;
    let mut pem = zeroize::Zeroizing::new([0u8; PKCS8_PEM_MAX_LEN]);
    let sk_pem = sk.to_pkcs8_pem(pem.as_mut_slice()).map_err(err)?.to_owned();
    let issuer = Issuer::new(sk);
    let pk = issuer.public_key().clone();
    let client = Client::new(pk.clone());
    let mut cases = Vec::new();
    for i in 0..count {
        let mut random = [0u8; 32 + 32 + 48 + 8];
        rand_core::Rng::fill_bytes(&mut rng, &mut random);
        let (ctx, rest) = random.split_at(32);
        let (nonce, rest) = rest.split_at(32);
        let (salt, data) = rest.split_at(48);
        let ctx: &[u8] = if i.is_multiple_of(2) { ctx } else { &[] };
        let challenge = TokenChallenge::new(0xDA7A, b"issuer.example", ctx, b"origin.example").map_err(err)?;
        let challenge_bytes = encode(&challenge).map_err(VectorError::Format)?;
        let mut ext_buf = [0u8; 64];
        let mut w = ExtensionsWriter::new(&mut ext_buf);
        // Case i carries i % 3 extensions of types 1 and 2.
        for (k, ty) in [1u16, 2].into_iter().enumerate().take(i % 3) {
            w.push(ty, data.get(..4 * (k + 1)).unwrap_or_default()).map_err(err)?;
        }
        let extensions = w.finish().map_err(err)?;
        let nonce: [u8; 32] = nonce.try_into().unwrap_or_default();
        let salt: [u8; 48] = salt.try_into().unwrap_or([0; 48]);
        let (req, mut state, blind) = loop {
            let mut r = [0u8; MODULUS_LEN];
            rand_core::Rng::fill_bytes(&mut rng, &mut r);
            if let Ok((req, state)) =
                pat::hazmat::tokens::metadata::request_with(&client, &challenge, extensions, &nonce, &salt, &r)
            {
                break (req, state, r);
            }
        };
        let resp = issuer.evaluate(&req).map_err(err)?;
        let token = client.finalize(&mut state, &extensions, &resp).map_err(err)?;
        Origin::new(pk.clone()).verify(&token, &challenge, &extensions).map_err(err)?;
        let enc = |m: &dyn Fn() -> Result<Vec<u8>, String>| m().map_err(VectorError::Format);
        cases.push(json!({
            "skS": encode_hex(sk_pem.as_bytes()),
            "pkS": encode_hex(&pk.to_spki_array()),
            "token_challenge": encode_hex(&challenge_bytes),
            "extensions": encode_hex(extensions.as_bytes()),
            "nonce": encode_hex(&nonce),
            "blind": encode_hex(&blind),
            "salt": encode_hex(&salt),
            "token_request": encode_hex(&enc(&|| encode(&req))?),
            "token_response": encode_hex(&enc(&|| encode(&resp))?),
            "token": encode_hex(&enc(&|| encode(&token))?),
        }));
    }
    Ok(cases)
}

pub(crate) fn generate_pbrsa(count: usize) -> Result<Vec<Value>, VectorError> {
    let err = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let sk = SecretKey::generate_safe(&mut rng).map_err(err)?;
    // n, d, p and q from the key's own PKCS#8 encoding.
    let mut der = zeroize::Zeroizing::new([0u8; pat::crypto::blind_rsa::PKCS8_MAX_LEN]);
    let len = sk.to_pkcs8_der(der.as_mut_slice()).map_err(err)?;
    let der_err = |e: &dyn core::fmt::Display| VectorError::Format(format!("generated key: {e}"));
    let info = pkcs8::PrivateKeyInfoRef::try_from(der.get(..len).unwrap_or_default()).map_err(|e| der_err(&e))?;
    let key = pkcs1::RsaPrivateKeyRef::try_from(info.private_key.as_bytes()).map_err(|e| der_err(&e))?;
    let (n, d, p, q) =
        (key.modulus.as_bytes(), key.private_exponent.as_bytes(), key.prime1.as_bytes(), key.prime2.as_bytes());
    let mut cases = Vec::new();
    for i in 0..count {
        let mut random = [0u8; 48 + 16];
        rand_core::Rng::fill_bytes(&mut rng, &mut random);
        let (salt, rest) = random.split_at(48);
        let msg: &[u8] = if i.is_multiple_of(2) { b"hello world" } else { b"" };
        let info: &[u8] = if i % 3 < 2 { rest } else { b"" };
        let variant = Variant::Sha384PssDeterministic;
        let input = PreparedMessage::identity(msg);
        let pk: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(sk.public_key(), info).map_err(err)?;
        let (blinded, state, r) = loop {
            let mut r = [0u8; MODULUS_LEN];
            rand_core::Rng::fill_bytes(&mut rng, &mut r);
            if let Ok((blinded, state)) =
                pat::hazmat::crypto::blind_rsa::partial_blind_with(&pk, variant, &input, salt, &r)
            {
                break (blinded, state, r);
            }
        };
        let derived = DerivedSecretKey::new(&sk, info).map_err(err)?;
        let blind_sig = derived.blind_sign(&blinded).map_err(err)?;
        let sig = pk.finalize(variant, &input, &state, &blind_sig).map_err(err)?;
        let mut eprime = [0u8; MODULUS_LEN / 2];
        pk.exponent_to_be(&mut eprime).map_err(err)?;
        cases.push(json!({
            "name": "RSAPBSSA-SHA384-PSS-Deterministic",
            "msg": encode_hex(msg),
            "msg_prefix": "",
            "info": encode_hex(info),
            "p": encode_hex(p),
            "q": encode_hex(q),
            "d": encode_hex(d),
            "e": "010001",
            "n": encode_hex(n),
            "eprime": encode_hex(&eprime),
            "salt": encode_hex(salt),
            "blind_msg": encode_hex(&blinded),
            "blind_sig": encode_hex(&blind_sig),
            "sig": encode_hex(&sig),
            "r": encode_hex(&r),
        }));
    }
    Ok(cases)
}
