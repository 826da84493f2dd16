//! Challenges with opaque names (UTF-8, empty origin-list items, a one-byte
//! issuer, bytes that are not UTF-8) through the issuance flows the
//! single-type vector files do not cover: type 0x0003, amortized batches and
//! generic batches. The challenges come from
//! `tests/vectors/opaque-names/token-test-vectors.json`, whose expected
//! token inputs were computed outside pat (Python's hashlib): every token's
//! challenge digest must be the one that file implies, and every token must
//! verify.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
use pat::crypto::rate_limited::EncapSecretKey;
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::batched::{self, BatchState, GenericBatchTokenRequest, GenericBatchTokenResponse};
use pat::tokens::private::{self, PrivateTokenType};
use pat::tokens::public;
use pat::tokens::rate_limited as t3;
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{TokenChallenge, crypto::blind_rsa};
use serde_json::Value;

mod common;
use common::{encode, field, load, rng};

/// (encoded challenge, expected challenge digest) for every case of a type.
fn cases(token_type: u16) -> Vec<(Vec<u8>, [u8; 32])> {
    let file = load("opaque-names/token-test-vectors.json");
    let mut out = Vec::new();
    for case in file.as_array().unwrap().iter().filter(|c| c["token_type"] == format!("{token_type:04x}")) {
        let issuer = field(case, "issuer_name");
        let ctx = field(case, "redemption_context");
        let origin = field(case, "origin_info");
        let challenge = TokenChallenge::new_opaque(token_type, &issuer, &ctx, &origin).unwrap();
        // All but the one-byte issuer (the shortest name, printable) are
        // outside the syntax `TokenChallenge::new` writes.
        assert_eq!(challenge.validate_names().is_err(), issuer != b"i", "{case}");
        let expected = field(case, "token_authenticator_input");
        out.push((encode(&challenge), expected[34..66].try_into().unwrap()));
    }
    assert_eq!(out.len(), 5, "{token_type:04x}");
    out
}

fn decode(bytes: &[u8]) -> TokenChallenge<'_> {
    TokenChallenge::decode(bytes).unwrap()
}

fn rsa_key() -> blind_rsa::SecretKey {
    let case: Value = load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0].clone();
    blind_rsa::SecretKey::from_pkcs8_pem(core::str::from_utf8(&field(&case, "skS")).unwrap()).unwrap()
}

#[test]
fn rate_limited_tokens_for_opaque_challenges() {
    let case: Value = load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0].clone();
    let token_key = t3::TokenKey::from_pkcs8_pem(core::str::from_utf8(&field(&case, "skS")).unwrap()).unwrap();
    let origins = [t3::OriginKey::new(b"origin.example", ecdsa::SecretKey::from_bytes(&[0x30; 48]).unwrap())];
    let issuer = t3::Issuer::new(EncapSecretKey::derive(1, &[7; 32]), token_key, origins);
    let client = t3::Client::new(
        ecdsa::SecretKey::from_bytes(&[0x11; 48]).unwrap(),
        *issuer.encap_key(),
        issuer.public_key().clone(),
    );
    let origin = t3::Origin::new(issuer.public_key().clone());
    let mut attester = t3::Attester::<8>::new(t3::Policy { max_tokens: 10, window: 60 });
    for (bytes, digest) in cases(0x0003) {
        let challenge = decode(&bytes);
        let mut out = [0u8; 1024];
        let (n, mut state) = client.request(&challenge, b"origin.example", &mut rng(), &mut out).unwrap();
        let request = t3::TokenRequest::decode(&out[..n]).unwrap();
        attester.process(&request, client.client_key(), state.request_blind(), &[1; 32], 0).unwrap();
        let response = issuer.evaluate(&request, &mut [0u8; 512], &mut rng()).unwrap();
        let key = &response.blinded_request_key;
        attester.finalize_index(client.client_key(), state.request_blind(), key, &[1; 32], 0).unwrap();
        let token = client.finalize(&mut state, &response.encrypted_token_response).unwrap();
        assert_eq!(token.input().challenge_digest(), &digest);
        origin.verify(&token, &challenge).unwrap();
    }
}

fn amortized<T: PrivateTokenType>() {
    let issuer = private::Issuer::<T>::generate(&mut rng()).unwrap();
    let client = issuer.client();
    for (bytes, digest) in cases(T::CODE) {
        let challenge = decode(&bytes);
        let mut state = client.request_batch::<3, _>(&challenge, 3, &mut rng()).unwrap();
        let request = encode(&state.request());
        let parsed = AmortizedTokenRequest::<T>::decode(&request).unwrap();
        let mut out = [0u8; 512];
        let n = issuer.evaluate_batch::<3, _>(&parsed, &mut out, &mut rng()).unwrap();
        let tokens =
            client.finalize_batch(&mut state, &AmortizedTokenResponse::<T>::decode(&out[..n]).unwrap()).unwrap();
        assert_eq!(tokens.len(), 3);
        for token in &tokens {
            // token = token_type ‖ nonce ‖ challenge_digest ‖ token_key_id ‖ authenticator
            assert_eq!(encode(token)[34..66], digest);
            issuer.verify(token, &challenge).unwrap();
        }
    }
}

#[test]
fn amortized_tokens_for_opaque_challenges() {
    amortized::<PrivateP384>();
    amortized::<PrivateRistretto255>();
}

#[test]
fn generic_batches_for_opaque_challenges() {
    let p384 = [private::Issuer::<PrivateP384>::generate(&mut rng()).unwrap()];
    let rsa = [public::Issuer::new(rsa_key())];
    let r255 = [private::Issuer::<PrivateRistretto255>::generate(&mut rng()).unwrap()];
    let issuer = batched::Issuer::new(&p384, &rsa, &r255).unwrap();
    let (c1, c2, c5) = (p384[0].client(), public::Client::new(rsa[0].public_key().clone()), r255[0].client());
    let (t1, t2, t5) = (cases(0x0001), cases(0x0002), cases(0x0005));
    for i in 0..5 {
        let (ch1, ch2, ch5) = (decode(&t1[i].0), decode(&t2[i].0), decode(&t5[i].0));
        let mut batch = BatchState::<'_, 3>::new();
        batch.push(&c1, c1.request(&ch1, &mut rng()).unwrap()).unwrap();
        batch.push(&c2, c2.request(&ch2, &mut rng()).unwrap()).unwrap();
        batch.push(&c5, c5.request(&ch5, &mut rng()).unwrap()).unwrap();
        let bytes = encode(&batch.request());
        let request = GenericBatchTokenRequest::decode(&bytes).unwrap();
        let mut out = vec![0u8; request.max_response_len()];
        let outcome = issuer.evaluate::<3, _>(&request, &mut out, &mut rng()).unwrap();
        assert_eq!((outcome.issued, outcome.absent), (3, 0));
        let tokens = batch.finalize(&GenericBatchTokenResponse::decode(&out[..outcome.len]).unwrap()).unwrap();
        let digests = [t1[i].1, t2[i].1, t5[i].1];
        for (token, digest) in tokens.iter().zip(digests) {
            let token = token.as_ref().unwrap();
            assert_eq!(token.as_ref().input().challenge_digest(), &digest);
            let mut wire = vec![0u8; token.encoded_len()];
            token.encode(&mut wire).unwrap();
        }
        match &tokens[0] {
            Some(batched::GenericToken::PrivateP384(t)) => p384[0].verify(t, &ch1).unwrap(),
            other => panic!("{other:?}"),
        }
        match &tokens[1] {
            Some(batched::GenericToken::PublicRsa2048(t)) => {
                public::Origin::new(rsa[0].public_key().clone()).verify(t, &ch2).unwrap()
            }
            other => panic!("{other:?}"),
        }
        match &tokens[2] {
            Some(batched::GenericToken::PrivateRistretto255(t)) => r255[0].verify(t, &ch5).unwrap(),
            other => panic!("{other:?}"),
        }
    }
}
