//! Type 0xE5AC (ARC) through the C API, called as C calls it, against the
//! library's issuer: the challenge with its `credential_context` and
//! `rate-limit` read from `WWW-Authenticate`, the credential request and
//! its finalize, a presentation state, every token of the limit with the
//! state written back (each verified by the issuer, tags distinct), the
//! `Authorization` value, and the ways a call can be wrong (a state for
//! another context, a used-up state left as it was, short buffers, limits
//! out of range, a forged response).
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

use pat::crypto::arc::ServerPrivateKey;
use pat::tokens::arc::{ArcChallenge, ArcToken, Issuer, TokenRequest};
use pat::wire::codec::{Decode, Encode};
use pat::{Error, Field};
use pat_capi::arc::{
    pat_arc_authorization_size, pat_arc_finalize, pat_arc_presentation_state, pat_arc_request, pat_arc_token,
    pat_arc_token_len,
};
use pat_capi::http::{
    pat_authorization, pat_authorization_with_extensions, pat_challenge, pat_token_challenge_parse,
    pat_www_authenticate_challenge,
};
use pat_capi::sizes::*;
use pat_testkit::TestRng;

mod common;
use common::test_rng;

fn encode(c: &ArcChallenge<'_>) -> Vec<u8> {
    let mut out = vec![0u8; c.encoded_len()];
    c.encode(&mut out).unwrap();
    out
}

fn request(key: &[u8], challenge: &[u8], rng: &mut TestRng, request: &mut [u8], state: &mut [u8]) -> i32 {
    unsafe {
        pat_arc_request(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            Some(test_rng),
            (rng as *mut TestRng).cast(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn finalize(key: &[u8], state: &mut [u8], response: &[u8], credential: &mut [u8]) -> i32 {
    unsafe {
        pat_arc_finalize(
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            response.as_ptr(),
            response.len(),
            credential.as_mut_ptr(),
            credential.len(),
        )
    }
}

fn presentation_state(key: &[u8], credential: &[u8], challenge: &[u8], limit: u64, state: &mut [u8]) -> i32 {
    unsafe {
        pat_arc_presentation_state(
            key.as_ptr(),
            key.len(),
            credential.as_ptr(),
            credential.len(),
            challenge.as_ptr(),
            challenge.len(),
            limit,
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn token(key: &[u8], state: &mut [u8], challenge: &[u8], rng: &mut TestRng, token: &mut [u8]) -> i32 {
    unsafe {
        pat_arc_token(
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            challenge.as_ptr(),
            challenge.len(),
            Some(test_rng),
            (rng as *mut TestRng).cast(),
            token.as_mut_ptr(),
            token.len(),
        )
    }
}

#[test]
fn a_credential_and_every_token_of_the_limit() {
    const LIMIT: u64 = 3;
    let mut rng = TestRng::new(0xE5AC);
    let issuer = Issuer::new(ServerPrivateKey::generate(&mut rng).unwrap());
    let key = issuer.token_key();
    assert_eq!(key.len(), PAT_ARC_TOKEN_KEY_LEN);
    let cc = [7u8; PAT_ARC_CREDENTIAL_CONTEXT_LEN];
    let arc_challenge = ArcChallenge::new(b"issuer.example", &[3; 32], b"origin.example", &cc).unwrap();
    let challenge = encode(&arc_challenge);

    // The challenge as an origin sends it: WWW-Authenticate with rate-limit.
    let mut header = vec![0u8; 1024];
    let value =
        pat::wire::auth::write_www_authenticate_with_rate_limit(&challenge, Some(&key), Some(60), LIMIT, &mut header)
            .unwrap()
            .to_owned();
    let mut buf = vec![0u8; PAT_CHALLENGE_BUFFER_SIZE];
    let mut parsed = core::mem::MaybeUninit::<pat_challenge>::zeroed();
    let rc = unsafe {
        pat_www_authenticate_challenge(
            value.as_ptr().cast(),
            value.len(),
            0,
            buf.as_mut_ptr(),
            buf.len(),
            parsed.as_mut_ptr(),
        )
    };
    assert_eq!(rc as usize, challenge.len());
    let parsed = unsafe { parsed.assume_init() };
    assert_eq!(parsed.token_type, 0xE5AC);
    assert!(parsed.has_rate_limit);
    assert_eq!(parsed.rate_limit, LIMIT);
    assert_eq!(unsafe { std::slice::from_raw_parts(parsed.credential_context, parsed.credential_context_len) }, cc);
    assert_eq!(unsafe { std::slice::from_raw_parts(parsed.challenge, parsed.challenge_len) }, &challenge[..]);
    assert_eq!(unsafe { std::slice::from_raw_parts(parsed.token_key, parsed.token_key_len) }, &key[..]);
    // The same from the encoded challenge alone.
    let mut alone = core::mem::MaybeUninit::<pat_challenge>::zeroed();
    assert_eq!(unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len(), alone.as_mut_ptr()) }, 0);
    let alone = unsafe { alone.assume_init() };
    assert_eq!(alone.credential_context_len, PAT_ARC_CREDENTIAL_CONTEXT_LEN);
    assert!(!alone.has_rate_limit);

    // Issuance.
    let mut req = vec![0xAAu8; PAT_ARC_REQUEST_LEN];
    let mut state = vec![0xAAu8; PAT_ARC_REQUEST_STATE_LEN];
    assert_eq!(request(&key, &challenge, &mut rng, &mut req, &mut state[..10]), Error::BufferTooSmall.code());
    assert!(req.iter().all(|&b| b == 0), "outputs zeroed on failure");
    assert_eq!(request(&key, &challenge, &mut rng, &mut req, &mut state), PAT_ARC_REQUEST_LEN as i32);
    let response = issuer.issue(&TokenRequest::decode(&req).unwrap(), &mut rng).unwrap().to_bytes();
    assert_eq!(response.len(), PAT_ARC_RESPONSE_LEN);
    let mut credential = vec![0xAAu8; PAT_ARC_CREDENTIAL_LEN];
    let mut forged = response;
    forged[300] ^= 1;
    let kept = state.clone();
    assert_eq!(finalize(&key, &mut state, &forged, &mut credential), Error::Verification.code());
    assert_eq!(state, kept, "a failed finalize keeps the state");
    assert!(credential.iter().all(|&b| b == 0));
    assert_eq!(finalize(&key, &mut state, &response, &mut credential), PAT_ARC_CREDENTIAL_LEN as i32);
    assert!(state.iter().all(|&b| b == 0), "the request state is wiped after success");

    // Presentation: every token of the limit, the state written back each time.
    let mut pstate = vec![0xAAu8; PAT_ARC_PRESENTATION_STATE_LEN];
    assert_eq!(
        presentation_state(&key, &credential, &challenge, 1, &mut pstate),
        Error::InvalidValue(Field::PresentationLimit).code()
    );
    assert_eq!(
        presentation_state(&key, &credential, &challenge, LIMIT, &mut pstate),
        PAT_ARC_PRESENTATION_STATE_LEN as i32
    );
    let len = pat_arc_token_len(LIMIT);
    assert!(len > 0 && len as usize <= PAT_ARC_TOKEN_MAX_LEN);
    let mut tags = Vec::new();
    for _ in 0..LIMIT {
        let mut out = vec![0xAAu8; PAT_ARC_TOKEN_MAX_LEN];
        let before = pstate.clone();
        assert_eq!(
            token(&key, &mut pstate, &challenge, &mut rng, &mut out[..len as usize - 1]),
            Error::BufferTooSmall.code()
        );
        assert_eq!(pstate, before, "a failed token leaves the state");
        assert_eq!(token(&key, &mut pstate, &challenge, &mut rng, &mut out), len);
        assert_ne!(pstate, before, "the state advances");
        let t = &out[..len as usize];
        let tag = issuer.verify(&ArcToken::decode(t, LIMIT).unwrap(), &arc_challenge, LIMIT).unwrap();
        assert!(!tags.contains(&tag));
        tags.push(tag);

        // Its Authorization value.
        let size = pat_arc_authorization_size(LIMIT) as usize;
        let mut text = vec![0xAAu8; size];
        let rc = unsafe { pat_authorization(t.as_ptr(), t.len(), text.as_mut_ptr().cast(), text.len()) };
        assert_eq!(rc as usize, size - 1);
        let value = std::str::from_utf8(&text[..size - 1]).unwrap();
        let mut back = [0u8; PAT_ARC_TOKEN_MAX_LEN];
        assert_eq!(pat::wire::auth::parse_authorization(value).unwrap().decode_base64url(&mut back).unwrap(), t);
        // ARC tokens carry no extensions.
        let empty = [0u8, 0];
        let rc = unsafe {
            pat_authorization_with_extensions(
                t.as_ptr(),
                t.len(),
                empty.as_ptr(),
                2,
                text.as_mut_ptr().cast(),
                text.len(),
            )
        };
        assert_eq!(rc, Error::InvalidValue(Field::Extensions).code());
        // A token one byte short is no ARC token.
        let rc = unsafe { pat_authorization(t.as_ptr(), t.len() - 1, text.as_mut_ptr().cast(), text.len()) };
        assert_eq!(rc, Error::InvalidLength(Field::Token).code());
    }
    let mut out = vec![0u8; PAT_ARC_TOKEN_MAX_LEN];
    let used = pstate.clone();
    assert_eq!(token(&key, &mut pstate, &challenge, &mut rng, &mut out), Error::PresentationLimitReached.code());
    assert_eq!(pstate, used);

    // A state for another presentation context.
    let other = encode(&ArcChallenge::new(b"issuer.example", &[4; 32], b"origin.example", &cc).unwrap());
    let mut fresh = vec![0u8; PAT_ARC_PRESENTATION_STATE_LEN];
    assert_eq!(
        presentation_state(&key, &credential, &challenge, LIMIT, &mut fresh),
        PAT_ARC_PRESENTATION_STATE_LEN as i32
    );
    assert_eq!(token(&key, &mut fresh, &other, &mut rng, &mut out), Error::ChallengeMismatch.code());
    // A type-2 challenge is no ARC challenge.
    let plain = pat::TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let mut plain_bytes = vec![0u8; plain.encoded_len()];
    plain.encode(&mut plain_bytes).unwrap();
    assert_eq!(
        request(&key, &plain_bytes, &mut rng, &mut req, &mut state),
        Error::WrongTokenType { expected: 0xE5AC, found: 2 }.code()
    );
}

#[test]
fn token_lengths_and_limits() {
    // 70 bytes of header, then 5 + k elements (33 bytes) and 6 + 3k scalars
    // (32 bytes) for k = ⌈log2(limit)⌉ (arc-crypto-01 §4.3.2): 556 for k = 1.
    assert_eq!(pat_arc_token_len(2), 556);
    assert_eq!(pat_arc_token_len(100), 70 + 12 * 33 + 27 * 32);
    assert_eq!(pat_arc_token_len(1 << 32), PAT_ARC_TOKEN_MAX_LEN as i32);
    for bad in [0u64, 1, (1 << 32) + 1, u64::MAX] {
        assert_eq!(pat_arc_token_len(bad), Error::InvalidValue(Field::PresentationLimit).code(), "{bad}");
        assert_eq!(pat_arc_authorization_size(bad), Error::InvalidValue(Field::PresentationLimit).code(), "{bad}");
    }
    // `PrivateToken token="` (20), the padded base64url of 1330 bytes
    // (1776), `"` and the NUL.
    assert_eq!(pat_arc_authorization_size(100), 20 + 1776 + 1 + 1);
}
