//! `tokens/amortized/type{1,5}-issuance-test-vectors{,.rust}.json`: amortized
//! batches (draft-ietf-privacypass-batched-tokens). The request is compared
//! byte for byte; the file's response (random proof) must verify and finalize
//! to the file's tokens, a fresh batch evaluation must give the same tokens,
//! and the issuer verifies every token.

use std::format;
use std::string::String;
use std::vec::Vec;

use serde_json::{Value, json};

use super::private::{challenge_for, random_blind};
use super::type2::encode;
use super::{Case, VectorError, encode_hex, expect_eq};
use pat::crypto::voprf::{ByteArray, KeyPair, SecretKey, Suite};
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::private::{Issuer, PrivateTokenType};
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;

/// The largest batch the harness handles (the files have 3 or 5).
const CAPACITY: usize = 64;
/// Tokens per generated case, as in pat-go's Go files.
const GENERATED_BATCH: usize = 3;

pub(crate) fn verify<T: PrivateTokenType>(case: &Case<'_>) -> Result<Result<(), String>, VectorError> {
    let sk = case.hex(&["skS", "sk_s"])?;
    let pk = case.hex(&["pkS", "pk_s"])?;
    let challenge_bytes = case.hex(&["token_challenge"])?;
    let nonces = case.hex_list(&["nonces"])?;
    let blinds = case.hex_list(&["blinds"])?;
    let request = case.hex(&["token_request"])?;
    let response = case.hex(&["token_response"])?;
    let tokens = case.hex_list(&["tokens"])?;
    let sk = <<T::Suite as Suite>::ScalarBytes>::from_slice(&sk).ok_or_else(|| case.error("skS", "wrong length"))?;
    let nonces = nonces
        .iter()
        .map(|n| <[u8; 32]>::try_from(n.as_slice()).map_err(|_| case.error("nonces", "an item is not 32 bytes")))
        .collect::<Result<Vec<_>, _>>()?;
    let blinds = blinds
        .iter()
        .map(|b| {
            <<T::Suite as Suite>::ScalarBytes>::from_slice(b)
                .ok_or_else(|| case.error("blinds", "an item has the wrong length"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if nonces.len() != blinds.len() || nonces.len() != tokens.len() {
        return Err(case.error("tokens", "nonces, blinds and tokens differ in length"));
    }

    Ok((|| {
        let key = SecretKey::<T::Suite>::from_bytes(&sk).map_err(|e| format!("skS: {e}"))?;
        let issuer = Issuer::<T>::new(KeyPair::from_secret_key(key).map_err(|e| format!("skS: {e}"))?);
        expect_eq("pkS", issuer.token_key().as_ref(), &pk)?;
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(|e| format!("token_challenge: {e}"))?;
        let client = issuer.client();

        let mut state =
            pat::hazmat::tokens::amortized::request_batch_with::<_, CAPACITY>(&client, &challenge, &nonces, &blinds)
                .map_err(|e| format!("request: {e}"))?;
        expect_eq("token_request", &encode(&state.request())?, &request)?;
        let parsed = AmortizedTokenResponse::<T>::decode(&response).map_err(|e| format!("token_response: {e}"))?;
        let got = client.finalize_batch(&mut state, &parsed).map_err(|e| format!("finalize: {e}"))?;
        for (i, (tok, want)) in got.iter().zip(&tokens).enumerate() {
            expect_eq(&format!("tokens[{i}]"), &encode(tok)?, want)?;
            issuer.verify(tok, &challenge).map_err(|e| format!("issuer verify tokens[{i}]: {e}"))?;
        }

        // A fresh batch evaluation of the parsed request gives the same tokens.
        let parsed = AmortizedTokenRequest::<T>::decode(&request).map_err(|e| format!("token_request: {e}"))?;
        let mut out = std::vec![0u8; response.len()];
        let mut rng = rand_core::UnwrapErr(pat::OsRng);
        let n =
            issuer.evaluate_batch::<CAPACITY, _>(&parsed, &mut out, &mut rng).map_err(|e| format!("evaluate: {e}"))?;
        let fresh = AmortizedTokenResponse::<T>::decode(out.get(..n).unwrap_or_default())
            .map_err(|e| format!("fresh response: {e}"))?;
        let mut state =
            pat::hazmat::tokens::amortized::request_batch_with::<_, CAPACITY>(&client, &challenge, &nonces, &blinds)
                .map_err(|e| format!("request: {e}"))?;
        let again = client.finalize_batch(&mut state, &fresh).map_err(|e| format!("finalize: {e}"))?;
        for (i, (tok, want)) in again.iter().zip(&tokens).enumerate() {
            expect_eq(&format!("tokens[{i}] (fresh evaluation)"), &encode(tok)?, want)?;
        }
        Ok(())
    })())
}

pub(crate) fn generate<T: PrivateTokenType>(count: usize) -> Result<Vec<Value>, VectorError> {
    let fail = |e: pat::Error| VectorError::Format(format!("generation failed: {e}"));
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let mut cases = Vec::new();
    for i in 0..count {
        let mut random = [0u8; 64];
        rand_core::Rng::fill_bytes(&mut rng, &mut random);
        let (ctx, seed) = random.split_at(32);
        let challenge_bytes = challenge_for::<T>(i, ctx.try_into().unwrap_or(&[0; 32]))?;
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(fail)?;
        let issuer = Issuer::<T>::derive(seed, &challenge_bytes).map_err(fail)?;
        let client = issuer.client();
        let mut nonces = [[0u8; 32]; GENERATED_BATCH];
        nonces.iter_mut().for_each(|n| rand_core::Rng::fill_bytes(&mut rng, n));
        let blinds: Vec<_> = (0..GENERATED_BATCH).map(|_| random_blind::<T>(&mut rng)).collect();
        let mut state = pat::hazmat::tokens::amortized::request_batch_with::<_, GENERATED_BATCH>(
            &client, &challenge, &nonces, &blinds,
        )
        .map_err(fail)?;
        let request = encode(&state.request()).map_err(VectorError::Format)?;
        let parsed = AmortizedTokenRequest::<T>::decode(&request).map_err(fail)?;
        let mut out = [0u8; 512];
        let n = issuer.evaluate_batch::<GENERATED_BATCH, _>(&parsed, &mut out, &mut rng).map_err(fail)?;
        let response = out.get(..n).unwrap_or_default();
        let tokens = client
            .finalize_batch(&mut state, &AmortizedTokenResponse::decode(response).map_err(fail)?)
            .map_err(fail)?;
        let tokens = tokens.iter().map(|t| encode(t).map(|b| encode_hex(&b))).collect::<Result<Vec<_>, _>>();
        cases.push(json!({
            "skS": encode_hex(issuer.key_pair().secret_key().to_bytes().as_ref()),
            "pkS": encode_hex(issuer.token_key().as_ref()),
            "token_challenge": encode_hex(&challenge_bytes),
            "nonces": nonces.iter().map(|n| encode_hex(n)).collect::<Vec<_>>(),
            "blinds": blinds.iter().map(|b| encode_hex(b.as_ref())).collect::<Vec<_>>(),
            "token_request": encode_hex(&request),
            "token_response": encode_hex(response),
            "tokens": tokens.map_err(VectorError::Format)?,
        }));
    }
    Ok(cases)
}
