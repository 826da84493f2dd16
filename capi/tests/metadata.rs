//! Type 0xDA7A through the C API, called as C calls it: privacypass-ts's
//! published vector byte for byte (`pat_typeda7a_request_with`), the random
//! path against the library's issuer, the `Authorization` value with the
//! extensions, and the ways a call can be wrong (other extensions at
//! finalize, malformed extensions, short buffers, lengths out of range).
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation,
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

use pat::crypto::blind_rsa::SecretKey;
use pat::tokens::metadata::{Issuer, Origin, TokenRequest};
use pat::tokens::public::PublicToken;
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::Extensions;
use pat::{Error, Field, TokenChallenge};
use pat_capi::hazmat::pat_typeda7a_request_with;
use pat_capi::http::pat_authorization_with_extensions;
use pat_capi::metadata::{
    pat_typeda7a_authorization_size, pat_typeda7a_finalize, pat_typeda7a_request, pat_typeda7a_request_len,
};
use pat_capi::sizes::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

fn vector() -> Value {
    let path =
        format!("{}/../tests/vectors/privacypass-ts/pub_verif_with_metadata_v3.json", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v[0].clone()
}

fn field(v: &Value, key: &str) -> Vec<u8> {
    hex(v[key].as_str().unwrap())
}

fn finalize(key: &[u8], state: &mut [u8], extensions: &[u8], response: &[u8], token: &mut [u8]) -> i32 {
    unsafe {
        pat_typeda7a_finalize(
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

#[test]
fn the_privacypass_ts_vector_byte_for_byte() {
    let v = vector();
    let (key, challenge, extensions) = (field(&v, "pkS"), field(&v, "token_challenge"), field(&v, "extensions"));
    let (nonce, salt) = (field(&v, "nonce"), field(&v, "salt"));
    let mut blind = vec![0u8; 256];
    let b = field(&v, "blind");
    blind[256 - b.len()..].copy_from_slice(&b);
    let len = pat_typeda7a_request_len(extensions.len());
    assert_eq!(len as usize, PAT_TYPEDA7A_REQUEST_FIXED_LEN + extensions.len());
    let mut request = vec![0xAAu8; len as usize];
    let mut state = vec![0xAAu8; PAT_TYPEDA7A_STATE_LEN];
    let rc = unsafe {
        pat_typeda7a_request_with(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            extensions.as_ptr(),
            extensions.len(),
            nonce.as_ptr(),
            nonce.len(),
            salt.as_ptr(),
            salt.len(),
            blind.as_ptr(),
            blind.len(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, len);
    assert_eq!(request, field(&v, "token_request"));
    let response = field(&v, "token_response");
    let mut token = vec![0xAAu8; PAT_TYPEDA7A_TOKEN_LEN];
    // Other extensions at finalize: refused, the state kept.
    let other = [0, 4, 0, 1, 0, 0];
    let kept = state.clone();
    assert_eq!(finalize(&key, &mut state, &other, &response, &mut token), Error::ExtensionsMismatch.code());
    assert_eq!(state, kept);
    assert!(token.iter().all(|&b| b == 0), "the token buffer is zeroed on failure");
    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut token), PAT_TYPEDA7A_TOKEN_LEN as i32);
    assert_eq!(token, field(&v, "token"));
    assert!(state.iter().all(|&b| b == 0), "the state is wiped after success");

    // The Authorization value carries both, and the library reads them back.
    let size = pat_typeda7a_authorization_size(extensions.len());
    let (rc, value) = authorization(&token, &extensions, size as usize);
    assert_eq!(rc as usize, size as usize - 1);
    let params = pat::wire::auth::parse_authorization_with_extensions(&value).unwrap();
    let mut buf = [0u8; 512];
    assert_eq!(params.token.decode_base64url(&mut buf).unwrap(), &token[..]);
    assert_eq!(params.extensions.unwrap().decode_base64url(&mut buf).unwrap(), &extensions[..]);
    // One byte short: refused.
    assert_eq!(authorization(&token, &extensions, size as usize - 1).0, Error::BufferTooSmall.code());
    // Malformed extensions: refused.
    assert_eq!(authorization(&token, &[0, 9, 0], 1024).0, Error::Truncated.code());
}

#[test]
fn random_requests_are_signed_by_the_library_and_verify() {
    let v = vector();
    let pem = String::from_utf8(field(&v, "skS")).unwrap();
    let issuer = Issuer::try_new(SecretKey::from_pkcs8_pem(&pem).unwrap()).unwrap();
    let key = issuer.token_key();
    let challenge = {
        let c = TokenChallenge::new(0xDA7A, b"issuer.example", &[7; 32], b"origin.example").unwrap();
        let mut out = vec![0u8; c.encoded_len()];
        c.encode(&mut out).unwrap();
        out
    };
    let extensions = [0, 10, 0, 1, 0, 2, 9, 9, 0, 7, 0, 0];
    let mut rng = pat_testkit::TestRng::new(7);
    let len = pat_typeda7a_request_len(extensions.len()) as usize;
    let mut request = vec![0xAAu8; len];
    let mut state = vec![0xAAu8; PAT_TYPEDA7A_STATE_LEN];
    let call = |request: &mut [u8], state: &mut [u8], rng: &mut pat_testkit::TestRng, ext: &[u8]| unsafe {
        pat_typeda7a_request(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            ext.as_ptr(),
            ext.len(),
            Some(test_rng),
            (rng as *mut pat_testkit::TestRng).cast(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(call(&mut request, &mut state, &mut rng, &extensions) as usize, len);
    let parsed = TokenRequest::decode(&request).unwrap();
    assert_eq!(parsed.extensions.as_bytes(), extensions);
    let mut response = vec![0u8; PAT_TYPEDA7A_RESPONSE_LEN];
    issuer.evaluate(&parsed).unwrap().encode(&mut response).unwrap();
    let mut token = vec![0u8; PAT_TYPEDA7A_TOKEN_LEN];
    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut token), PAT_TYPEDA7A_TOKEN_LEN as i32);
    let origin = Origin::new(pat::crypto::blind_rsa::PublicKey::from_spki(&key).unwrap());
    origin
        .verify(
            &PublicToken::decode(&token).unwrap(),
            &TokenChallenge::decode(&challenge).unwrap(),
            &Extensions::decode(&extensions).unwrap(),
        )
        .unwrap();
    // Finalizing the wiped state again is refused.
    assert_eq!(finalize(&key, &mut state, &extensions, &response, &mut token), Error::UnknownStateVersion(0).code());

    // A request buffer one byte short, unsorted and truncated extensions.
    let mut short = vec![0u8; len - 1];
    assert_eq!(call(&mut short, &mut state, &mut rng, &extensions), Error::BufferTooSmall.code());
    assert_eq!(
        call(&mut request, &mut state, &mut rng, &[0, 8, 0, 7, 0, 0, 0, 1, 0, 0]),
        Error::UnsortedExtensions.code()
    );
    assert_eq!(call(&mut request, &mut state, &mut rng, &[0, 5, 0]), Error::Truncated.code());
    assert!(request.iter().all(|&b| b == 0) && state.iter().all(|&b| b == 0), "outputs zeroed on failure");
}

#[test]
fn lengths_out_of_range_are_refused() {
    let invalid = Error::InvalidLength(Field::Extensions).code();
    for bad in [0, 1, 2 + 0x10000, usize::MAX] {
        assert_eq!(pat_typeda7a_request_len(bad), invalid, "{bad}");
        assert_eq!(pat_typeda7a_authorization_size(bad), invalid, "{bad}");
    }
    assert_eq!(pat_typeda7a_request_len(2), PAT_TYPEDA7A_REQUEST_FIXED_LEN as i32 + 2);
    assert_eq!(pat_typeda7a_request_len(2 + 0xffff), (PAT_TYPEDA7A_REQUEST_FIXED_LEN + 2 + 0xffff) as i32);
    assert!(pat_typeda7a_authorization_size(2) > 0);
}
