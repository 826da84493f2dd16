//! Type 0xDA7B through the C API, called as C calls it: every case of pat's
//! vector file (checked by tools/poprf_da7b.py) byte for byte
//! (`pat_typeda7b_request_with`, `pat_typeda7b_finalize`), the random path
//! against the library's issuer, the `Authorization` value with the
//! extensions, and the ways a call can be wrong (other extensions at
//! finalize, a forged proof, a challenge of another type, malformed inputs,
//! short buffers, lengths out of range).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

use pat::tokens::poprf::{Issuer, Token, TokenRequest};
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::Extensions;
use pat::{Error, Field, TokenChallenge};
use pat_capi::hazmat::pat_typeda7b_request_with;
use pat_capi::http::pat_authorization_with_extensions;
use pat_capi::poprf::{
    pat_typeda7b_authorization_size, pat_typeda7b_finalize, pat_typeda7b_request, pat_typeda7b_request_len,
};
use pat_capi::sizes::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

fn vectors() -> Vec<Value> {
    let path = format!("{}/../tests/vectors/pat/type-da7b-issuance-test-vectors.json", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn field(v: &Value, key: &str) -> Vec<u8> {
    hex(v[key].as_str().unwrap())
}

fn request_with(
    key: &[u8],
    challenge: &[u8],
    extensions: &[u8],
    nonce: &[u8],
    blind: &[u8],
    request: &mut [u8],
    state: &mut [u8],
) -> i32 {
    unsafe {
        pat_typeda7b_request_with(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            extensions.as_ptr(),
            extensions.len(),
            nonce.as_ptr(),
            nonce.len(),
            blind.as_ptr(),
            blind.len(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn request(
    key: &[u8],
    challenge: &[u8],
    extensions: &[u8],
    rng: &mut pat_testkit::TestRng,
    request: &mut [u8],
    state: &mut [u8],
) -> i32 {
    unsafe {
        pat_typeda7b_request(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            extensions.as_ptr(),
            extensions.len(),
            Some(test_rng),
            (rng as *mut pat_testkit::TestRng).cast(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn finalize(key: &[u8], state: &mut [u8], extensions: &[u8], response: &[u8], token: &mut [u8]) -> i32 {
    unsafe {
        pat_typeda7b_finalize(
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            extensions.as_ptr(),
            extensions.len(),
            response.as_ptr(),
            response.len(),
            token.as_mut_ptr(),
            token.len(),
        )
    }
}

fn authorization(token: &[u8], extensions: &[u8], cap: usize) -> (i32, String) {
    let mut out = vec![0xAAu8; cap];
    let rc = unsafe {
        pat_authorization_with_extensions(
            token.as_ptr(),
            token.len(),
            extensions.as_ptr(),
            extensions.len(),
            out.as_mut_ptr().cast(),
            out.len(),
        )
    };
    let text = if rc > 0 { String::from_utf8(out[..rc as usize].to_vec()).unwrap() } else { String::new() };
    if rc > 0 {
        assert_eq!(out[rc as usize], 0, "NUL-terminated");
    }
    (rc, text)
}

fn encoded_challenge(token_type: u16) -> Vec<u8> {
    let c = TokenChallenge::new(token_type, b"issuer.example", &[7; 32], b"origin.example").unwrap();
    let mut out = vec![0u8; c.encoded_len()];
    c.encode(&mut out).unwrap();
    out
}

#[test]
fn every_vector_byte_for_byte() {
    let cases = vectors();
    assert_eq!(cases.len(), 5, "the file's five cases");
    for (i, v) in cases.iter().enumerate() {
        let (key, challenge, extensions) = (field(v, "pkS"), field(v, "token_challenge"), field(v, "extensions"));
        let len = pat_typeda7b_request_len(extensions.len());
        assert_eq!(len as usize, PAT_TYPEDA7B_REQUEST_FIXED_LEN + extensions.len(), "case {i}");
        let mut req = vec![0xAAu8; len as usize];
        let mut state = vec![0xAAu8; PAT_TYPEDA7B_STATE_LEN];
        let rc =
            request_with(&key, &challenge, &extensions, &field(v, "nonce"), &field(v, "blind"), &mut req, &mut state);
        assert_eq!(rc, len, "case {i}");
        assert_eq!(req, field(v, "token_request"), "case {i}");
        let response = field(v, "token_response");
        let mut token = vec![0xAAu8; PAT_TYPEDA7B_TOKEN_LEN];
        // Other extensions at finalize: refused, the state kept.
        let other = [0, 4, 0, 1, 0, 0];
        let other = if extensions == other { vec![0, 0] } else { other.to_vec() };
        let kept = state.clone();
        assert_eq!(finalize(&key, &mut state, &other, &response, &mut token), Error::ExtensionsMismatch.code());
        assert_eq!(state, kept, "case {i}: the state is kept");
        assert!(token.iter().all(|&b| b == 0), "case {i}: the token buffer is zeroed on failure");
        assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut token), PAT_TYPEDA7B_TOKEN_LEN as i32);
        assert_eq!(token, field(v, "token"), "case {i}");
        assert!(state.iter().all(|&b| b == 0), "case {i}: the state is wiped after success");
        // The library's issuer, derived from the case's seed, accepts it.
        let issuer = Issuer::derive(&field(v, "seed")).unwrap();
        assert_eq!(issuer.token_key().as_ref(), &key[..]);
        issuer
            .verify(
                &Token::decode(&token).unwrap(),
                &TokenChallenge::decode(&challenge).unwrap(),
                &Extensions::decode(&extensions).unwrap(),
            )
            .unwrap();
    }
}

#[test]
fn random_requests_are_evaluated_by_the_library_and_verify() {
    let issuer = Issuer::derive(b"a seed for the C API's 0xDA7B test").unwrap();
    let key = issuer.token_key().as_ref().to_vec();
    assert_eq!(key.len(), PAT_TYPEDA7B_TOKEN_KEY_LEN);
    let challenge = encoded_challenge(0xDA7B);
    let extensions = [0, 10, 0, 1, 0, 2, 9, 9, 0, 7, 0, 0];
    let mut rng = pat_testkit::TestRng::new(7);
    let len = pat_typeda7b_request_len(extensions.len()) as usize;
    let mut req = vec![0xAAu8; len];
    let mut state = vec![0xAAu8; PAT_TYPEDA7B_STATE_LEN];
    assert_eq!(request(&key, &challenge, &extensions, &mut rng, &mut req, &mut state) as usize, len);
    let parsed = TokenRequest::decode(&req).unwrap();
    assert_eq!(parsed.extensions.as_bytes(), extensions);
    let mut response = vec![0u8; PAT_TYPEDA7B_RESPONSE_LEN];
    issuer.evaluate(&parsed, &mut rng).unwrap().encode(&mut response).unwrap();
    let mut token = vec![0u8; PAT_TYPEDA7B_TOKEN_LEN];

    // A forged proof, a truncated response and one with a trailing byte:
    // refused, the state kept for the genuine response.
    let kept = state.clone();
    let mut forged = response.clone();
    *forged.last_mut().unwrap() ^= 1;
    assert_eq!(finalize(&key, &mut state, &extensions, &forged, &mut token), Error::Verification.code());
    let mut forged_element = response.clone();
    forged_element[5] ^= 1;
    assert_eq!(finalize(&key, &mut state, &extensions, &forged_element, &mut token), Error::InvalidElement.code());
    assert_eq!(finalize(&key, &mut state, &extensions, &response[..144], &mut token), Error::Truncated.code());
    let mut long = response.clone();
    long.push(0);
    assert_eq!(finalize(&key, &mut state, &extensions, &long, &mut token), Error::TrailingBytes.code());
    assert_eq!(state, kept);
    // Another issuer's key: refused.
    let other_key = Issuer::derive(b"another seed").unwrap().token_key().as_ref().to_vec();
    assert_eq!(finalize(&other_key, &mut state, &extensions, &response, &mut token), Error::KeyIdMismatch.code());
    // A token buffer one byte short.
    let mut short_token = vec![0u8; PAT_TYPEDA7B_TOKEN_LEN - 1];
    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut short_token), Error::BufferTooSmall.code());
    assert_eq!(state, kept);

    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut token), PAT_TYPEDA7B_TOKEN_LEN as i32);
    issuer
        .verify(
            &Token::decode(&token).unwrap(),
            &TokenChallenge::decode(&challenge).unwrap(),
            &Extensions::decode(&extensions).unwrap(),
        )
        .unwrap();
    // Under other extensions the issuer refuses the token.
    assert!(
        issuer
            .verify(
                &Token::decode(&token).unwrap(),
                &TokenChallenge::decode(&challenge).unwrap(),
                &Extensions::decode(&[0, 0]).unwrap(),
            )
            .is_err()
    );
    // Finalizing the wiped state again is refused (into another buffer:
    // a failed call zeroes its token output).
    let mut again = vec![0u8; PAT_TYPEDA7B_TOKEN_LEN];
    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut again), Error::UnknownStateVersion(0).code());

    // The Authorization value carries both, and the library reads them back.
    let size = pat_typeda7b_authorization_size(extensions.len());
    let (rc, value) = authorization(&token, &extensions, size as usize);
    assert_eq!(rc as usize, size as usize - 1);
    let params = pat::wire::auth::parse_authorization_with_extensions(&value).unwrap();
    let mut buf = [0u8; 512];
    assert_eq!(params.token.decode_base64url(&mut buf).unwrap(), &token[..]);
    assert_eq!(params.extensions.unwrap().decode_base64url(&mut buf).unwrap(), &extensions[..]);
    assert_eq!(authorization(&token, &extensions, size as usize - 1).0, Error::BufferTooSmall.code());
}

#[test]
fn bad_requests_are_refused_with_typed_errors_and_zeroed_outputs() {
    let issuer = Issuer::derive(b"bad requests").unwrap();
    let key = issuer.token_key().as_ref().to_vec();
    let challenge = encoded_challenge(0xDA7B);
    let extensions = [0, 6, 0, 1, 0, 2, 4, 2];
    let mut rng = pat_testkit::TestRng::new(9);
    let len = pat_typeda7b_request_len(extensions.len()) as usize;
    let mut req = vec![0xAAu8; len];
    let mut state = vec![0xAAu8; PAT_TYPEDA7B_STATE_LEN];
    let zeroed = |req: &[u8], state: &[u8]| req.iter().all(|&b| b == 0) && state.iter().all(|&b| b == 0);

    // A challenge of type 0x0001.
    assert_eq!(
        request(&key, &encoded_challenge(1), &extensions, &mut rng, &mut req, &mut state),
        Error::WrongTokenType { expected: 0xDA7B, found: 1 }.code()
    );
    assert!(zeroed(&req, &state));
    // A key one byte short, a key that is not a point.
    assert_eq!(
        request(&key[..48], &challenge, &extensions, &mut rng, &mut req, &mut state),
        Error::InvalidLength(Field::Key).code()
    );
    let mut not_a_point = key.clone();
    not_a_point[0] = 5;
    assert_eq!(
        request(&not_a_point, &challenge, &extensions, &mut rng, &mut req, &mut state),
        Error::InvalidElement.code()
    );
    // Unsorted, truncated and trailing extensions.
    assert_eq!(
        request(&key, &challenge, &[0, 8, 0, 7, 0, 0, 0, 1, 0, 0], &mut rng, &mut req, &mut state),
        Error::UnsortedExtensions.code()
    );
    assert_eq!(request(&key, &challenge, &[0, 5, 0], &mut rng, &mut req, &mut state), Error::Truncated.code());
    assert_eq!(request(&key, &challenge, &[0, 0, 0], &mut rng, &mut req, &mut state), Error::TrailingBytes.code());
    // A request buffer one byte short; a state buffer one byte short.
    let mut short = vec![0xAAu8; len - 1];
    assert_eq!(request(&key, &challenge, &extensions, &mut rng, &mut short, &mut state), Error::BufferTooSmall.code());
    let mut short_state = vec![0xAAu8; PAT_TYPEDA7B_STATE_LEN - 1];
    assert_eq!(
        request(&key, &challenge, &extensions, &mut rng, &mut req, &mut short_state),
        Error::BufferTooSmall.code()
    );
    assert!(zeroed(&req, &short_state));
    // Extensions the format allows but the POPRF does not: 65,536 bytes and
    // more of `info` (one extension of 65,530 bytes of data).
    let mut big = vec![0u8; 2 + 0xffff];
    big[..2].copy_from_slice(&0xffffu16.to_be_bytes());
    big[2..4].copy_from_slice(&1u16.to_be_bytes());
    big[4..6].copy_from_slice(&(0xffff - 4u16).to_be_bytes());
    Extensions::decode(&big).unwrap();
    let mut big_req = vec![0u8; pat_typeda7b_request_len(big.len()) as usize];
    assert_eq!(
        request(&key, &challenge, &big, &mut rng, &mut big_req, &mut state),
        Error::InvalidLength(Field::Info).code()
    );
    // Exactly 65,536 bytes: one over.
    let mut over = vec![0u8; 0x10000];
    over[..2].copy_from_slice(&0xfffeu16.to_be_bytes());
    over[2..4].copy_from_slice(&1u16.to_be_bytes());
    over[4..6].copy_from_slice(&(0xfffe - 4u16).to_be_bytes());
    Extensions::decode(&over).unwrap();
    let mut over_req = vec![0u8; pat_typeda7b_request_len(over.len()) as usize];
    assert_eq!(
        request(&key, &challenge, &over, &mut rng, &mut over_req, &mut state),
        Error::InvalidLength(Field::Info).code()
    );
    // The largest the POPRF takes: a 65,535-byte encoding (65,529 bytes of data).
    let mut largest = vec![0u8; 0xffff];
    largest[..2].copy_from_slice(&(0xffff - 2u16).to_be_bytes());
    largest[2..4].copy_from_slice(&1u16.to_be_bytes());
    largest[4..6].copy_from_slice(&(0xffff - 6u16).to_be_bytes());
    let mut largest_req = vec![0u8; pat_typeda7b_request_len(largest.len()) as usize];
    assert_eq!(request(&key, &challenge, &largest, &mut rng, &mut largest_req, &mut state), largest_req.len() as i32);
    let parsed = TokenRequest::decode(&largest_req).unwrap();
    let response = issuer.evaluate(&parsed, &mut rng).unwrap();
    let mut response_bytes = vec![0u8; PAT_TYPEDA7B_RESPONSE_LEN];
    response.encode(&mut response_bytes).unwrap();
    let mut token = vec![0u8; PAT_TYPEDA7B_TOKEN_LEN];
    assert_eq!(finalize(&key, &mut state, &largest, &response_bytes, &mut token), PAT_TYPEDA7B_TOKEN_LEN as i32);
}

#[test]
fn lengths_out_of_range_are_refused() {
    let invalid = Error::InvalidLength(Field::Extensions).code();
    for bad in [0, 1, 2 + 0x10000, usize::MAX] {
        assert_eq!(pat_typeda7b_request_len(bad), invalid, "{bad}");
        assert_eq!(pat_typeda7b_authorization_size(bad), invalid, "{bad}");
    }
    assert_eq!(pat_typeda7b_request_len(2), PAT_TYPEDA7B_REQUEST_FIXED_LEN as i32 + 2);
    assert_eq!(pat_typeda7b_request_len(2 + 0xffff), (PAT_TYPEDA7B_REQUEST_FIXED_LEN + 2 + 0xffff) as i32);
    // The smallest Authorization value: the token and the empty list.
    // `PrivateToken token="` (20) + 196 base64url characters of the
    // 146-byte token + `", extensions="` (15) + `AAA=` (4) + `"` + NUL.
    assert_eq!(pat_typeda7b_authorization_size(2), 237);
}

#[test]
fn altered_states_are_refused_with_typed_errors() {
    let issuer = Issuer::derive(b"altered states").unwrap();
    let key = issuer.token_key().as_ref().to_vec();
    let challenge = encoded_challenge(0xDA7B);
    let extensions = [0, 4, 0, 1, 0, 0];
    let mut rng = pat_testkit::TestRng::new(11);
    let mut req = vec![0u8; pat_typeda7b_request_len(extensions.len()) as usize];
    let mut state = vec![0u8; PAT_TYPEDA7B_STATE_LEN];
    assert_eq!(request(&key, &challenge, &extensions, &mut rng, &mut req, &mut state), req.len() as i32);
    let mut response = vec![0u8; PAT_TYPEDA7B_RESPONSE_LEN];
    issuer.evaluate(&TokenRequest::decode(&req).unwrap(), &mut rng).unwrap().encode(&mut response).unwrap();
    let mut token = vec![0u8; PAT_TYPEDA7B_TOKEN_LEN];
    let refused = |altered: &mut Vec<u8>, token: &mut Vec<u8>| finalize(&key, altered, &extensions, &response, token);

    // One byte short and one byte long.
    let mut short = state[..PAT_TYPEDA7B_STATE_LEN - 1].to_vec();
    assert_eq!(refused(&mut short, &mut token), Error::InvalidLength(Field::State).code());
    let mut long = state.clone();
    long.push(0);
    assert_eq!(refused(&mut long, &mut token), Error::InvalidLength(Field::State).code());
    // Another version (the first byte), another shape (the second).
    let mut version = state.clone();
    version[0] = 2;
    assert_eq!(refused(&mut version, &mut token), Error::UnknownStateVersion(2).code());
    let mut shape = state.clone();
    shape[1] = 2;
    assert_eq!(refused(&mut shape, &mut token), Error::InvalidValue(Field::State).code());
    // Another token type (the token input's first two bytes).
    let mut other_type = state.clone();
    other_type[2..4].copy_from_slice(&[0, 1]);
    assert_eq!(refused(&mut other_type, &mut token), Error::WrongTokenType { expected: 0xDA7B, found: 1 }.code());
    assert!(token.iter().all(|&b| b == 0), "a refused finalize zeroes its token output");
    // The genuine state still finalizes.
    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut token), PAT_TYPEDA7B_TOKEN_LEN as i32);
}
