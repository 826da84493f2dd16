//! `tokens/type2/type2-issuance-test-vectors{,.rust}.json`: blind RSA issuance
//! (RFC 9578 §6). Everything is deterministic given `blind` and `salt`, so the
//! request, the response and the token are all compared byte for byte, and the
//! token is verified as an origin would.
//!
//! `skS` is the hex of a PEM PKCS#8 text; `blind` is r, which pat-go writes in
//! minimal length, so shorter values are left-padded to 256 bytes.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value, json};

use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::blind_rsa::{MODULUS_LEN, PKCS8_PEM_MAX_LEN, PublicKey, SecretKey};
use pat::tokens::public::{Client, Issuer, Origin};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};

pub(crate) fn left_pad(bytes: &[u8]) -> Option<[u8; MODULUS_LEN]> {
    let mut out = [0u8; MODULUS_LEN];
    let start = MODULUS_LEN.checked_sub(bytes.len())?;
    out.get_mut(start..)?.copy_from_slice(bytes);
    Some(out)
}

pub(crate) fn verify(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let sk_pem = case.hex(&["skS", "sk_s"])?;
    let pk_spki = case.hex(&["pkS", "pk_s"])?;
    let challenge_bytes = case.hex(&["token_challenge"])?;
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
        expect_eq("pkS (re-encoded)", &pk.to_spki_array(), &pk_spki)?;
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(|e| format!("token_challenge: {e}"))?;

        let client = Client::new(pk.clone());
        let (req, mut state) = pat::hazmat::tokens::public::request_with(&client, &challenge, &nonce, &salt, &blind)
            .map_err(|e| format!("request: {e}"))?;
        expect_eq("token_request", &encode(&req)?, &request)?;

        let issuer = Issuer::new(sk);
        let parsed = pat::tokens::public::TokenRequest::decode(&request).map_err(|e| format!("token_request: {e}"))?;
        let resp = issuer.evaluate(&parsed).map_err(|e| format!("evaluate: {e}"))?;
        expect_eq("token_response", &encode(&resp)?, &response)?;

        let parsed =
            pat::tokens::public::TokenResponse::decode(&response).map_err(|e| format!("token_response: {e}"))?;
        let tok = client.finalize(&mut state, &parsed).map_err(|e| format!("finalize: {e}"))?;
        expect_eq("token", &encode(&tok)?, &token)?;
        Origin::new(pk).verify(&tok, &challenge).map_err(|e| format!("origin verify: {e}"))
    })())
}

pub(crate) fn encode(msg: &impl Encode) -> Result<Vec<u8>, String> {
    let mut out = std::vec![0u8; msg.encoded_len()];
    msg.encode(&mut out).map_err(|e| format!("encode: {e}"))?;
    Ok(out)
}

pub(crate) fn generate(count: usize) -> Result<Vec<Value>, VectorError> {
    let rng_err = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let sk = SecretKey::generate(&mut rng).map_err(rng_err)?;
    let mut pem = zeroize::Zeroizing::new([0u8; PKCS8_PEM_MAX_LEN]);
    let sk_pem = sk.to_pkcs8_pem(pem.as_mut_slice()).map_err(rng_err)?.to_owned();
    let issuer = Issuer::new(sk);
    let pk = issuer.public_key().clone();
    let client = Client::new(pk.clone());
    let mut cases = Vec::new();
    for i in 0..count {
        let mut random = [0u8; 32 + 32 + 48];
        rand_core::Rng::fill_bytes(&mut rng, &mut random);
        let (ctx, rest) = random.split_at(32);
        let (nonce, salt) = rest.split_at(32);
        let ctx: &[u8] = if i.is_multiple_of(2) { ctx } else { &[] };
        let origin: &[u8] = if i % 3 == 2 { b"" } else { b"origin.example" };
        let challenge = TokenChallenge::new(2, b"issuer.example", ctx, origin).map_err(rng_err)?;
        let challenge_bytes = encode(&challenge).map_err(VectorError::Format)?;
        let nonce: [u8; 32] = nonce.try_into().unwrap_or_default();
        let salt: [u8; 48] = salt.try_into().unwrap_or([0; 48]);
        // A fresh r, uniform below n: draw until the library accepts it.
        let (req, mut state, blind) = loop {
            let mut r = [0u8; MODULUS_LEN];
            rand_core::Rng::fill_bytes(&mut rng, &mut r);
            if let Ok((req, state)) = pat::hazmat::tokens::public::request_with(&client, &challenge, &nonce, &salt, &r)
            {
                break (req, state, r);
            }
        };
        let resp = issuer.evaluate(&req).map_err(rng_err)?;
        let token = client.finalize(&mut state, &resp).map_err(rng_err)?;
        Origin::new(pk.clone()).verify(&token, &challenge).map_err(rng_err)?;
        let enc = |m: &dyn Fn() -> Result<Vec<u8>, String>| m().map_err(VectorError::Format);
        cases.push(json!({
            "skS": encode_hex(sk_pem.as_bytes()),
            "pkS": encode_hex(&pk.to_spki_array()),
            "token_challenge": encode_hex(&challenge_bytes),
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
