//! `tokens/private/type{1,5}-issuance-test-vectors{,.rust}.json`: VOPRF
//! issuance (RFC 9578 §5). The request is deterministic given `nonce` and
//! `blind` and is compared byte for byte; the response carries a random proof,
//! so the file's response must verify and finalize to the file's token, and a
//! fresh evaluation by the issuer must give the same token (the PRF output is
//! deterministic). The issuer then verifies the token.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value, json};

use super::type2::encode;
use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::voprf::{ByteArray, SecretKey, Suite};
use pat::tokens::private::{Issuer, PrivateTokenType, TokenRequest, TokenResponse};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;

pub(crate) fn verify<T: PrivateTokenType>(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let sk = case.hex(&["skS", "sk_s"])?;
    let pk = case.hex(&["pkS", "pk_s"])?;
    let challenge_bytes = case.hex(&["token_challenge"])?;
    let nonce = case.hex_array::<32>(&["nonce"])?;
    let blind = case.hex(&["blind"])?;
    let request = case.hex(&["token_request"])?;
    let response = case.hex(&["token_response"])?;
    let token = case.hex(&["token"])?;
    let scalar = |bytes: &[u8], field: &str| {
        <<T::Suite as Suite>::ScalarBytes>::from_slice(bytes)
            .ok_or_else(|| case.error(field, format!("expected {} bytes", T::Suite::NS)))
    };
    let sk = scalar(&sk, "skS")?;
    let blind = scalar(&blind, "blind")?;

    Ok((|| {
        let key = SecretKey::<T::Suite>::from_bytes(&sk).map_err(|e| format!("skS: {e}"))?;
        let issuer =
            Issuer::<T>::new(pat::crypto::voprf::KeyPair::from_secret_key(key).map_err(|e| format!("skS: {e}"))?);
        expect_eq("pkS", issuer.token_key().as_ref(), &pk)?;
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(|e| format!("token_challenge: {e}"))?;
        let client = issuer.client();

        // The file's response: its proof must verify and give the file's token.
        let (req, mut state) = pat::hazmat::tokens::private::request_with(&client, &challenge, &nonce, &blind)
            .map_err(|e| format!("request: {e}"))?;
        expect_eq("token_request", &encode(&req)?, &request)?;
        let parsed = TokenResponse::<T>::decode(&response).map_err(|e| format!("token_response: {e}"))?;
        let tok =
            client.finalize(&mut state, &parsed).map_err(|e| format!("finalize with the file's response: {e}"))?;
        expect_eq("token", &encode(&tok)?, &token)?;

        // A fresh evaluation of the parsed request gives the same token.
        let (_, mut state) = pat::hazmat::tokens::private::request_with(&client, &challenge, &nonce, &blind)
            .map_err(|e| format!("request: {e}"))?;
        let parsed = TokenRequest::<T>::decode(&request).map_err(|e| format!("token_request: {e}"))?;
        let mut rng = rand_core::UnwrapErr(pat::OsRng);
        let resp = issuer.evaluate(&parsed, &mut rng).map_err(|e| format!("evaluate: {e}"))?;
        let again = client.finalize(&mut state, &resp).map_err(|e| format!("finalize: {e}"))?;
        expect_eq("token (fresh evaluation)", &encode(&again)?, &token)?;

        issuer.verify(&tok, &challenge).map_err(|e| format!("issuer verify: {e}"))
    })())
}

/// A random blind the library accepts (canonical and non-zero).
pub(crate) fn random_blind<T: PrivateTokenType>(rng: &mut impl rand_core::Rng) -> <T::Suite as Suite>::ScalarBytes {
    loop {
        let mut b = <<T::Suite as Suite>::ScalarBytes>::ZERO;
        rng.fill_bytes(b.as_mut());
        if pat::hazmat::crypto::voprf::blind_with::<T::Suite>(b"probe", &b).is_ok() {
            return b;
        }
    }
}

pub(crate) fn challenge_for<T: PrivateTokenType>(i: usize, ctx: &[u8; 32]) -> Result<Vec<u8>, VectorError> {
    let ctx: &[u8] = if i.is_multiple_of(2) { ctx } else { &[] };
    let origin: &[u8] = if i % 3 == 2 { b"" } else { b"origin.example" };
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", ctx, origin)
        .map_err(|e| VectorError::Format(format!("generation failed: {e}")))?;
    encode(&challenge).map_err(VectorError::Format)
}

pub(crate) fn generate<T: PrivateTokenType>(count: usize) -> Result<Vec<Value>, VectorError> {
    let fail = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let mut cases = Vec::new();
    for i in 0..count {
        let mut random = [0u8; 32 + 32 + 32];
        rand_core::Rng::fill_bytes(&mut rng, &mut random);
        let (ctx, rest) = random.split_at(32);
        let (nonce, seed) = rest.split_at(32);
        let challenge_bytes = challenge_for::<T>(i, ctx.try_into().unwrap_or(&[0; 32]))?;
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(fail)?;
        // As pat-go's generators do: the key is derived from a seed and the challenge.
        let issuer = Issuer::<T>::derive(seed, &challenge_bytes).map_err(fail)?;
        let client = issuer.client();
        let nonce: [u8; 32] = nonce.try_into().unwrap_or_default();
        let blind = random_blind::<T>(&mut rng);
        let (req, mut state) =
            pat::hazmat::tokens::private::request_with(&client, &challenge, &nonce, &blind).map_err(fail)?;
        let resp = issuer.evaluate(&req, &mut rng).map_err(fail)?;
        let token = client.finalize(&mut state, &resp).map_err(fail)?;
        issuer.verify(&token, &challenge).map_err(fail)?;
        let enc = |r: Result<Vec<u8>, String>| r.map_err(VectorError::Format);
        cases.push(json!({
            "skS": encode_hex(issuer.key_pair().secret_key().to_bytes().as_ref()),
            "pkS": encode_hex(issuer.token_key().as_ref()),
            "token_challenge": encode_hex(&challenge_bytes),
            "nonce": encode_hex(&nonce),
            "blind": encode_hex(blind.as_ref()),
            "token_request": encode_hex(&enc(encode(&req))?),
            "token_response": encode_hex(&enc(encode(&resp))?),
            "token": encode_hex(&enc(encode(&token))?),
        }));
    }
    Ok(cases)
}
