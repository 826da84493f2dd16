//! pat and Google's ATHM reference issue, finalize and redeem each other's
//! messages, for every hidden value of 4 and 16 buckets:
//!
//! - a pat issuer's key and proof load in the reference client, whose
//!   request pat answers, whose token pat redeems, and the reference reads
//!   the same value from it with pat's private key;
//! - a reference issuer's key and proof load in pat's client, whose request
//!   the reference answers, whose token the reference redeems, and pat reads
//!   the same value with the reference's private key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use athm::{Decodable, Encodable};

fn pat_rng() -> pat::rand_core::UnwrapErr<pat::OsRng> {
    pat::rand_core::UnwrapErr(pat::OsRng)
}

fn bytes(v: &impl Encodable) -> Vec<u8> {
    let mut out = Vec::new();
    v.encode(&mut out);
    out
}

const ID: &[u8] = b"interop deployment";

fn pat_issuer_reference_client<const N: usize>() {
    let params = pat::crypto::athm::Params::<N>::new(ID).unwrap();
    let reference = athm::Params::new(u8::try_from(N).unwrap(), ID.to_vec()).unwrap();
    assert_eq!(bytes(&reference.big_h), params.generator_h());
    let (sk, pk, proof) = pat::crypto::athm::PrivateKey::generate(&params, &mut pat_rng()).unwrap();
    let ref_pk = athm::PublicKey::decode(&pk.to_bytes()).unwrap();
    let ref_proof = athm::PublicKeyProof::decode(&proof.to_bytes()).unwrap();
    assert!(athm::verify_public_key_proof(&ref_pk, &ref_proof, &reference));
    let ref_sk = athm::PrivateKey::decode(&sk.to_bytes()[..]).unwrap();
    for m in 0..u8::try_from(N).unwrap() {
        let (ref_context, ref_request) =
            athm::token_request(&ref_pk, &ref_proof, &reference, &mut rand::thread_rng()).unwrap();
        let request = pat::crypto::athm::TokenRequest::from_bytes(&bytes(&ref_request)).unwrap();
        let response = pat::crypto::athm::token_response(&params, &sk, &pk, &request, m, &mut pat_rng()).unwrap();
        let mut wire = vec![0u8; pat::crypto::athm::TokenResponse::<N>::LEN];
        response.encode(&mut wire).unwrap();
        let ref_response = athm::TokenResponse::decode(&wire, &reference).unwrap();
        let ref_token = athm::finalize_token(
            &ref_context,
            &ref_pk,
            &ref_request,
            &ref_response,
            &reference,
            &mut rand::thread_rng(),
        )
        .unwrap();
        let token = pat::crypto::athm::Token::from_bytes(&bytes(&ref_token)).unwrap();
        assert_eq!(pat::crypto::athm::verify_token(&params, &sk, &token), Ok(m), "N = {N}, m = {m}");
        let read: Option<u8> = athm::verify_token(&ref_sk, &ref_token, &reference).into();
        assert_eq!(read, Some(m));
    }
}

fn reference_issuer_pat_client<const N: usize>() {
    let params = pat::crypto::athm::Params::<N>::new(ID).unwrap();
    let reference = athm::Params::new(u8::try_from(N).unwrap(), ID.to_vec()).unwrap();
    let (ref_sk, ref_pk, ref_proof) = athm::key_gen(&reference, &mut rand::thread_rng());
    let pk = pat::crypto::athm::PublicKey::from_bytes(&bytes(&ref_pk)).unwrap();
    let proof = pat::crypto::athm::PublicKeyProof::from_bytes(&bytes(&ref_proof)).unwrap();
    let key = pk.verify(&params, &proof).unwrap();
    let sk = pat::crypto::athm::PrivateKey::from_bytes(&bytes(&ref_sk)).unwrap();
    // The Privacy Pass layer loads the reference's key and proof as published.
    let token_key = [bytes(&ref_pk), bytes(&ref_proof)].concat();
    let client = pat::tokens::athm::Client::from_token_key(params, &token_key).unwrap();
    assert_eq!(client.key_id(), &pk.key_id());
    for m in 0..u8::try_from(N).unwrap() {
        let (context, request) = pat::crypto::athm::token_request(&key, &mut pat_rng()).unwrap();
        let ref_request = athm::TokenRequest::decode(&request.to_bytes()).unwrap();
        let ref_response =
            athm::token_response(&ref_sk, &ref_pk, &ref_request, m, &reference, &mut rand::thread_rng()).unwrap();
        let response = pat::crypto::athm::TokenResponse::<N>::from_bytes(&bytes(&ref_response)).unwrap();
        let token =
            pat::crypto::athm::finalize_token(&params, &key, &context, &request, &response, &mut pat_rng()).unwrap();
        let ref_token = athm::Token::decode(&token.to_bytes()).unwrap();
        let read: Option<u8> = athm::verify_token(&ref_sk, &ref_token, &reference).into();
        assert_eq!(read, Some(m), "N = {N}, m = {m}");
        assert_eq!(pat::crypto::athm::verify_token(&params, &sk, &token), Ok(m));
    }
}

#[test]
fn pat_issues_the_reference_redeems_and_back() {
    pat_issuer_reference_client::<4>();
    pat_issuer_reference_client::<16>();
}

#[test]
fn the_reference_issues_pat_finalizes_and_back() {
    reference_issuer_pat_client::<4>();
    reference_issuer_pat_client::<16>();
}

/// A response the reference made for one request does not finalize at pat
/// for another, and a token the reference finalized under another
/// deployment id does not redeem at pat.
#[test]
fn mismatches_fail_on_both_sides() {
    let params = pat::crypto::athm::Params::<4>::new(ID).unwrap();
    let reference = athm::Params::new(4, ID.to_vec()).unwrap();
    let (ref_sk, ref_pk, ref_proof) = athm::key_gen(&reference, &mut rand::thread_rng());
    let pk = pat::crypto::athm::PublicKey::from_bytes(&bytes(&ref_pk)).unwrap();
    let key = pk.verify(&params, &pat::crypto::athm::PublicKeyProof::from_bytes(&bytes(&ref_proof)).unwrap()).unwrap();
    let (context, request) = pat::crypto::athm::token_request(&key, &mut pat_rng()).unwrap();
    let (_, other) = pat::crypto::athm::token_request(&key, &mut pat_rng()).unwrap();
    let ref_other = athm::TokenRequest::decode(&other.to_bytes()).unwrap();
    let ref_response =
        athm::token_response(&ref_sk, &ref_pk, &ref_other, 1, &reference, &mut rand::thread_rng()).unwrap();
    let response = pat::crypto::athm::TokenResponse::<4>::from_bytes(&bytes(&ref_response)).unwrap();
    assert_eq!(
        pat::crypto::athm::finalize_token(&params, &key, &context, &request, &response, &mut pat_rng()).err(),
        Some(pat::Error::Verification)
    );
    let elsewhere = pat::crypto::athm::Params::<4>::new(b"another deployment").unwrap();
    assert_eq!(
        pk.verify(&elsewhere, &pat::crypto::athm::PublicKeyProof::from_bytes(&bytes(&ref_proof)).unwrap()).err(),
        Some(pat::Error::Verification)
    );
}
