//! Type 0xC07E (ATHM) through the C API, called as C calls it: the ATHM
//! reference's vectors byte for byte (`pat_athm_request_with` and
//! `pat_athm_finalize_with` replay its ChaCha20 generator), the random path
//! against the library's issuer (the hidden value read back), the
//! `Authorization` value, and the ways a call can be wrong (another
//! deployment, a forged or malformed response, another key's state, short
//! buffers, lengths out of range).
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

use core::ffi::c_void;

use pat::crypto::athm::{Params, PrivateKey};
use pat::tokens::athm::{Issuer, Token, TokenRequest};
use pat::wire::codec::Decode;
use pat::{Error, Field};
use pat_capi::athm::{pat_athm_finalize, pat_athm_request};
use pat_capi::hazmat::{pat_athm_finalize_with, pat_athm_request_with};
use pat_capi::http::{pat_authorization, pat_authorization_with_extensions};
use pat_capi::sizes::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

const DEPLOYMENT: &[u8] = b"test_vector_deployment_id";

/// The vector file's procedure `name`.
fn procedure(name: &str) -> Value {
    let path = format!("{}/../tests/vectors/athm/test_vectors.json", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_array().unwrap().iter().find(|c| c["procedure"] == name).unwrap().clone()
}

fn field(v: &Value, group: &str, key: &str) -> Vec<u8> {
    hex(v[group][key].as_str().unwrap())
}

fn request(deployment: &[u8], key: &[u8], rng: &mut pat_testkit::TestRng, req: &mut [u8], state: &mut [u8]) -> i32 {
    unsafe {
        pat_athm_request(
            deployment.as_ptr(),
            deployment.len(),
            key.as_ptr(),
            key.len(),
            Some(test_rng),
            (rng as *mut pat_testkit::TestRng).cast(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn finalize(
    deployment: &[u8],
    key: &[u8],
    state: &mut [u8],
    response: &[u8],
    rng: &mut pat_testkit::TestRng,
    token: &mut [u8],
) -> i32 {
    unsafe {
        pat_athm_finalize(
            deployment.as_ptr(),
            deployment.len(),
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            response.as_ptr(),
            response.len(),
            Some(test_rng),
            (rng as *mut pat_testkit::TestRng).cast(),
            token.as_mut_ptr(),
            token.len(),
        )
    }
}

/// The vectors' issuer: the key_gen procedure's key with its proof.
fn vector_issuer(params: Params<'_, PAT_ATHM_BUCKETS>) -> (Issuer<'_, PAT_ATHM_BUCKETS>, Vec<u8>) {
    let key_gen = procedure("key_gen");
    let sk = PrivateKey::from_bytes(&field(&key_gen, "output", "private_key")).unwrap();
    let proof = pat::crypto::athm::PublicKeyProof::from_bytes(&field(&key_gen, "output", "public_key_proof")).unwrap();
    let issuer = Issuer::with_proof(params, sk, proof).unwrap();
    let mut token_key = field(&key_gen, "output", "public_key");
    token_key.extend(field(&key_gen, "output", "public_key_proof"));
    assert_eq!(issuer.token_key().as_slice(), token_key.as_slice());
    assert_eq!(issuer.key_id().as_slice(), field(&key_gen, "output", "key_id").as_slice());
    (issuer, token_key)
}

#[test]
fn the_reference_vectors_byte_for_byte() {
    let params = Params::<PAT_ATHM_BUCKETS>::new(DEPLOYMENT).unwrap();
    let (issuer, token_key) = vector_issuer(params);
    let key_id = *issuer.key_id();

    // token_request: the context and T from the reference's generator.
    let v = procedure("token_request");
    let mut key = field(&v, "args", "public_key");
    key.extend(field(&v, "args", "public_key_proof"));
    assert_eq!(key, token_key);
    let seed = field(&v, "args", "rng_seed");
    let mut req = vec![0xAAu8; PAT_ATHM_REQUEST_LEN];
    let mut state = vec![0xAAu8; PAT_ATHM_STATE_LEN];
    let rc = unsafe {
        pat_athm_request_with(
            DEPLOYMENT.as_ptr(),
            DEPLOYMENT.len(),
            key.as_ptr(),
            key.len(),
            seed.as_ptr(),
            seed.len(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, PAT_ATHM_REQUEST_LEN as i32);
    assert_eq!(req[..3], [0xC0, 0x7E, key_id[31]]);
    assert_eq!(req[3..], field(&v, "output", "token_request"));
    // pat's state format: version 1, shape 4, the type, r ‖ tc, T, key id.
    let context = field(&v, "output", "token_context");
    assert_eq!(state[..4], [1, 4, 0xC0, 0x7E]);
    assert_eq!(state[4..4 + context.len()], context);
    assert_eq!(state[4 + context.len()..4 + context.len() + 33], field(&v, "output", "token_request"));
    assert_eq!(state[4 + context.len() + 33..], key_id);

    // finalize_token: from the file's context, request and response.
    let v = procedure("finalize_token");
    let mut state = vec![1, 4, 0xC0, 0x7E];
    state.extend(field(&v, "args", "token_context"));
    state.extend(field(&v, "args", "token_request"));
    state.extend(key_id);
    assert_eq!(state.len(), PAT_ATHM_STATE_LEN);
    let response = field(&v, "args", "token_response");
    assert_eq!(response.len(), PAT_ATHM_RESPONSE_LEN);
    let seed = field(&v, "args", "rng_seed");
    let mut token = vec![0xAAu8; PAT_ATHM_TOKEN_LEN];
    let rc = unsafe {
        pat_athm_finalize_with(
            DEPLOYMENT.as_ptr(),
            DEPLOYMENT.len(),
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            response.as_ptr(),
            response.len(),
            seed.as_ptr(),
            seed.len(),
            token.as_mut_ptr(),
            token.len(),
        )
    };
    assert_eq!(rc, PAT_ATHM_TOKEN_LEN as i32);
    assert_eq!(token[..2], [0xC0, 0x7E]);
    assert_eq!(token[2..34], key_id);
    assert_eq!(token[34..], field(&v, "output", "token"));
    assert!(state.iter().all(|&b| b == 0), "the state is wiped after success");
    // verify_token: the issuer reads the hidden value back.
    let hidden = procedure("verify_token")["output"]["hidden_metadata"].as_str().unwrap().parse::<u8>().unwrap();
    assert_eq!(issuer.verify(&Token::decode(&token).unwrap()).unwrap(), hidden);
    // A seed of another length: refused.
    let rc = unsafe {
        pat_athm_request_with(
            DEPLOYMENT.as_ptr(),
            DEPLOYMENT.len(),
            key.as_ptr(),
            key.len(),
            seed.as_ptr(),
            31,
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, Error::InvalidLength(Field::Message).code());
}

#[test]
fn random_requests_are_issued_by_the_library_and_read_back() {
    let params = Params::<PAT_ATHM_BUCKETS>::new(b"pat C API test").unwrap();
    let mut rng = pat_testkit::TestRng::new(11);
    let (sk, _, proof) = PrivateKey::generate(&params, &mut rng).unwrap();
    let issuer = Issuer::with_proof(params, sk, proof).unwrap();
    let key = issuer.token_key();
    for hidden in 0..PAT_ATHM_BUCKETS as u8 {
        let mut req = vec![0xAAu8; PAT_ATHM_REQUEST_LEN];
        let mut state = vec![0xAAu8; PAT_ATHM_STATE_LEN];
        assert_eq!(request(b"pat C API test", &key, &mut rng, &mut req, &mut state), PAT_ATHM_REQUEST_LEN as i32);
        let response = issuer.issue(&TokenRequest::decode(&req).unwrap(), hidden, &mut rng).unwrap();
        let mut response_bytes = vec![0u8; PAT_ATHM_RESPONSE_LEN];
        assert_eq!(response.encode(&mut response_bytes).unwrap(), PAT_ATHM_RESPONSE_LEN);
        let mut token = vec![0xAAu8; PAT_ATHM_TOKEN_LEN];
        assert_eq!(
            finalize(b"pat C API test", &key, &mut state, &response_bytes, &mut rng, &mut token),
            PAT_ATHM_TOKEN_LEN as i32
        );
        assert_eq!(issuer.verify(&Token::decode(&token).unwrap()).unwrap(), hidden);

        // The Authorization value: RFC 9577's, with the token alone.
        let mut auth = vec![0xAAu8; PAT_ATHM_AUTHORIZATION_SIZE];
        let rc = unsafe { pat_authorization(token.as_ptr(), token.len(), auth.as_mut_ptr().cast(), auth.len()) };
        assert_eq!(rc, PAT_ATHM_AUTHORIZATION_SIZE as i32 - 1);
        let value = std::str::from_utf8(&auth[..rc as usize]).unwrap();
        let mut buf = [0u8; 256];
        let parsed = pat::wire::auth::parse_authorization(value).unwrap();
        assert_eq!(parsed.decode_base64url(&mut buf).unwrap(), &token[..]);
        // One byte short; and ATHM tokens take no extensions.
        let rc = unsafe { pat_authorization(token.as_ptr(), token.len(), auth.as_mut_ptr().cast(), auth.len() - 1) };
        assert_eq!(rc, Error::BufferTooSmall.code());
        let ext = [0u8, 0];
        let rc = unsafe {
            pat_authorization_with_extensions(
                token.as_ptr(),
                token.len(),
                ext.as_ptr(),
                ext.len(),
                auth.as_mut_ptr().cast(),
                auth.len(),
            )
        };
        assert_eq!(rc, Error::InvalidValue(Field::Extensions).code());
    }
}

#[test]
fn bad_inputs_are_refused_with_typed_errors() {
    let deployment = b"refusals";
    let params = Params::<PAT_ATHM_BUCKETS>::new(deployment).unwrap();
    let mut rng = pat_testkit::TestRng::new(12);
    let (sk, _, proof) = PrivateKey::generate(&params, &mut rng).unwrap();
    let issuer = Issuer::with_proof(params, sk, proof).unwrap();
    let key = issuer.token_key();
    let mut req = vec![0xAAu8; PAT_ATHM_REQUEST_LEN];
    let mut state = vec![0xAAu8; PAT_ATHM_STATE_LEN];
    let zeroed = |a: &[u8], b: &[u8]| a.iter().all(|&x| x == 0) && b.iter().all(|&x| x == 0);

    // The key's proof does not verify under another deployment.
    assert_eq!(request(b"another deployment", &key, &mut rng, &mut req, &mut state), Error::Verification.code());
    assert!(zeroed(&req, &state));
    // A randomness callback that fails: its code, both outputs zeroed.
    unsafe extern "C" fn failing_rng(_ctx: *mut c_void, _buf: *mut u8, _len: usize) -> i32 {
        9
    }
    req.fill(0xAA);
    state.fill(0xAA);
    let rc = unsafe {
        pat_athm_request(
            deployment.as_ptr(),
            deployment.len(),
            key.as_ptr(),
            key.len(),
            Some(failing_rng),
            core::ptr::null_mut(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, Error::Rng(pat::RngCode::new(9)).code());
    assert!(zeroed(&req, &state));
    // A key whose first point is not one (a bad SEC1 tag).
    let mut not_a_point = key.to_vec();
    not_a_point[0] = 5;
    assert_eq!(request(deployment, &not_a_point, &mut rng, &mut req, &mut state), Error::InvalidElement.code());
    assert!(zeroed(&req, &state));
    // A key one byte short or long; a deployment id past 255 bytes.
    assert_eq!(
        request(deployment, &key[..162], &mut rng, &mut req, &mut state),
        Error::InvalidLength(Field::TokenKey).code()
    );
    let mut long_key = key.to_vec();
    long_key.push(0);
    assert_eq!(
        request(deployment, &long_key, &mut rng, &mut req, &mut state),
        Error::InvalidLength(Field::TokenKey).code()
    );
    assert_eq!(
        request(&[b'x'; 256], &key, &mut rng, &mut req, &mut state),
        Error::InvalidLength(Field::DeploymentId).code()
    );
    // Short request and state buffers.
    let mut short = vec![0u8; PAT_ATHM_REQUEST_LEN - 1];
    assert_eq!(request(deployment, &key, &mut rng, &mut short, &mut state), Error::BufferTooSmall.code());
    let mut short_state = vec![0u8; PAT_ATHM_STATE_LEN - 1];
    assert_eq!(request(deployment, &key, &mut rng, &mut req, &mut short_state), Error::BufferTooSmall.code());

    // A genuine request and response, then finalize refusals that keep the state.
    assert_eq!(request(deployment, &key, &mut rng, &mut req, &mut state), PAT_ATHM_REQUEST_LEN as i32);
    let response = issuer.issue(&TokenRequest::decode(&req).unwrap(), 1, &mut rng).unwrap();
    let mut response_bytes = vec![0u8; PAT_ATHM_RESPONSE_LEN];
    response.encode(&mut response_bytes).unwrap();
    let kept = state.clone();
    let mut token = vec![0xAAu8; PAT_ATHM_TOKEN_LEN];
    let mut forged = response_bytes.clone();
    *forged.last_mut().unwrap() ^= 1;
    assert_eq!(finalize(deployment, &key, &mut state, &forged, &mut rng, &mut token), Error::Verification.code());
    assert!(token.iter().all(|&b| b == 0), "the token buffer is zeroed on failure");
    assert_eq!(
        finalize(deployment, &key, &mut state, &response_bytes[..PAT_ATHM_RESPONSE_LEN - 1], &mut rng, &mut token),
        Error::Truncated.code()
    );
    let mut long = response_bytes.clone();
    long.push(0);
    assert_eq!(finalize(deployment, &key, &mut state, &long, &mut rng, &mut token), Error::TrailingBytes.code());
    let (other_sk, _, other_proof) = PrivateKey::generate(&params, &mut rng).unwrap();
    let other = Issuer::with_proof(params, other_sk, other_proof).unwrap().token_key();
    assert_eq!(
        finalize(deployment, &other, &mut state, &response_bytes, &mut rng, &mut token),
        Error::KeyIdMismatch.code()
    );
    let mut short_token = vec![0u8; PAT_ATHM_TOKEN_LEN - 1];
    assert_eq!(
        finalize(deployment, &key, &mut state, &response_bytes, &mut rng, &mut short_token),
        Error::BufferTooSmall.code()
    );
    assert_eq!(
        finalize(deployment, &key, &mut state[..PAT_ATHM_STATE_LEN - 1], &response_bytes, &mut rng, &mut token),
        Error::InvalidLength(Field::State).code()
    );
    let mut long_state = state.clone();
    long_state.push(0);
    assert_eq!(
        finalize(deployment, &key, &mut long_state, &response_bytes, &mut rng, &mut token),
        Error::InvalidLength(Field::State).code()
    );
    assert_eq!(state, kept, "every refusal keeps the state");
    assert_eq!(
        finalize(deployment, &key, &mut state, &response_bytes, &mut rng, &mut token),
        PAT_ATHM_TOKEN_LEN as i32
    );
    assert_eq!(issuer.verify(&Token::decode(&token).unwrap()).unwrap(), 1);
    // The wiped state is refused.
    let mut again = vec![0u8; PAT_ATHM_TOKEN_LEN];
    assert_eq!(
        finalize(deployment, &key, &mut state, &response_bytes, &mut rng, &mut again),
        Error::UnknownStateVersion(0).code()
    );
    // A token that does not parse: no Authorization value.
    let mut bad = token.clone();
    bad.truncate(PAT_ATHM_TOKEN_LEN - 1);
    let mut auth = vec![0u8; PAT_ATHM_AUTHORIZATION_SIZE];
    let rc = unsafe { pat_authorization(bad.as_ptr(), bad.len(), auth.as_mut_ptr().cast(), auth.len()) };
    assert_eq!(rc, Error::Truncated.code());
    let mut long_token = token.clone();
    long_token.push(0);
    let rc = unsafe { pat_authorization(long_token.as_ptr(), long_token.len(), auth.as_mut_ptr().cast(), auth.len()) };
    assert_eq!(rc, Error::TrailingBytes.code());
}

#[test]
fn deployment_ids_of_every_allowed_length_work() {
    let longest = [b'd'; 255];
    for deployment in [&b""[..], &b"x"[..], &longest[..]] {
        let params = Params::<PAT_ATHM_BUCKETS>::new(deployment).unwrap();
        let mut rng = pat_testkit::TestRng::new(13 + deployment.len() as u64);
        let (sk, _, proof) = PrivateKey::generate(&params, &mut rng).unwrap();
        let issuer = Issuer::with_proof(params, sk, proof).unwrap();
        let key = issuer.token_key();
        let mut req = vec![0u8; PAT_ATHM_REQUEST_LEN];
        let mut state = vec![0u8; PAT_ATHM_STATE_LEN];
        assert_eq!(request(deployment, &key, &mut rng, &mut req, &mut state), PAT_ATHM_REQUEST_LEN as i32);
        let response = issuer.issue(&TokenRequest::decode(&req).unwrap(), 2, &mut rng).unwrap();
        let mut response_bytes = vec![0u8; PAT_ATHM_RESPONSE_LEN];
        response.encode(&mut response_bytes).unwrap();
        let mut token = vec![0u8; PAT_ATHM_TOKEN_LEN];
        assert_eq!(
            finalize(deployment, &key, &mut state, &response_bytes, &mut rng, &mut token),
            PAT_ATHM_TOKEN_LEN as i32,
            "deployment id of {} bytes",
            deployment.len()
        );
        assert_eq!(issuer.verify(&Token::decode(&token).unwrap()).unwrap(), 2);
    }
}
