//! Amortized batches of types 0x0001 and 0x0005 through the C API, called
//! as C calls it: pat-go's four amortized vector files byte for byte
//! (`pat_typeN_request_batch_with`, `pat_typeN_finalize_batch`), random
//! batches of every size against the library's issuer, and the ways a call
//! can be wrong (counts out of range, short buffers, a response of another
//! size, a forged proof, truncated and trailing responses, another type's
//! state).
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

use pat::TokenChallenge;
use pat::tokens::amortized::AmortizedTokenRequest;
use pat::tokens::private::{self, PrivateTokenType};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field};
use pat_capi::amortized::*;
use pat_capi::hazmat::{pat_type1_request_batch_with, pat_type5_request_batch_with};
use pat_capi::sizes::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

fn load(file: &str) -> Vec<Value> {
    let path = format!("{}/../tests/vectors/pat-go/tokens/amortized/{file}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap().as_array().unwrap().clone()
}

fn field(v: &Value, key: &str) -> Vec<u8> {
    hex(v[key].as_str().unwrap())
}

fn list(v: &Value, key: &str) -> Vec<Vec<u8>> {
    v[key].as_array().unwrap().iter().map(|x| hex(x.as_str().unwrap())).collect()
}

type WithFn = unsafe extern "C" fn(
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
    *const u8,
    usize,
    *mut u8,
    usize,
    *mut u8,
    usize,
) -> i32;
type RequestFn = unsafe extern "C" fn(
    *const u8,
    usize,
    *const u8,
    usize,
    usize,
    pat_capi::rng::pat_rng_fn,
    *mut c_void,
    *mut u8,
    usize,
    *mut u8,
    usize,
) -> i32;
type FinalizeFn = unsafe extern "C" fn(*const u8, usize, *mut u8, usize, *const u8, usize, *mut u8, usize) -> i32;

/// One type's calls and sizes.
struct Kind {
    code: u16,
    request_with: WithFn,
    request: RequestFn,
    finalize: FinalizeFn,
    request_len: extern "C" fn(usize) -> i32,
    response_len: extern "C" fn(usize) -> i32,
    state_len: usize,
    token_len: usize,
}

const TYPE1: Kind = Kind {
    code: 1,
    request_with: pat_type1_request_batch_with,
    request: pat_type1_request_batch,
    finalize: pat_type1_finalize_batch,
    request_len: pat_type1_batch_request_len,
    response_len: pat_type1_batch_response_len,
    state_len: PAT_TYPE1_BATCH_STATE_LEN,
    token_len: PAT_TYPE1_TOKEN_LEN,
};

const TYPE5: Kind = Kind {
    code: 5,
    request_with: pat_type5_request_batch_with,
    request: pat_type5_request_batch,
    finalize: pat_type5_finalize_batch,
    request_len: pat_type5_batch_request_len,
    response_len: pat_type5_batch_response_len,
    state_len: PAT_TYPE5_BATCH_STATE_LEN,
    token_len: PAT_TYPE5_TOKEN_LEN,
};

fn request_with(
    k: &Kind,
    key: &[u8],
    challenge: &[u8],
    nonces: &[u8],
    blinds: &[u8],
    req: &mut [u8],
    state: &mut [u8],
) -> i32 {
    unsafe {
        (k.request_with)(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            nonces.as_ptr(),
            nonces.len(),
            blinds.as_ptr(),
            blinds.len(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn request(
    k: &Kind,
    key: &[u8],
    challenge: &[u8],
    count: usize,
    rng: &mut pat_testkit::TestRng,
    req: &mut [u8],
    state: &mut [u8],
) -> i32 {
    unsafe {
        (k.request)(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            count,
            Some(test_rng),
            (rng as *mut pat_testkit::TestRng).cast(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    }
}

fn finalize(k: &Kind, key: &[u8], state: &mut [u8], response: &[u8], tokens: &mut [u8]) -> i32 {
    unsafe {
        (k.finalize)(
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            response.as_ptr(),
            response.len(),
            tokens.as_mut_ptr(),
            tokens.len(),
        )
    }
}

fn issuer<T: PrivateTokenType>(sk: &[u8]) -> private::Issuer<T> {
    use pat::crypto::voprf::{ByteArray, KeyPair, SecretKey, Suite};
    let sk = <<T::Suite as Suite>::ScalarBytes>::from_slice(sk).unwrap();
    private::Issuer::<T>::new(KeyPair::from_secret_key(SecretKey::from_bytes(&sk).unwrap()).unwrap())
}

fn run_file<T: PrivateTokenType>(k: &Kind, file: &str) -> usize {
    let cases = load(file);
    for (i, case) in cases.iter().enumerate() {
        let (key, challenge) = (field(case, "pkS"), field(case, "token_challenge"));
        let nonces: Vec<u8> = list(case, "nonces").concat();
        let blinds: Vec<u8> = list(case, "blinds").concat();
        let expected_tokens = list(case, "tokens");
        let count = expected_tokens.len();
        let len = (k.request_len)(count);
        assert_eq!(len as usize, field(case, "token_request").len(), "{file} case {i}");
        let mut req = vec![0xAAu8; len as usize];
        let mut state = vec![0xAAu8; k.state_len];
        assert_eq!(request_with(k, &key, &challenge, &nonces, &blinds, &mut req, &mut state), len, "{file} case {i}");
        assert_eq!(req, field(case, "token_request"), "{file} case {i}");
        let response = field(case, "token_response");
        assert_eq!((k.response_len)(count) as usize, response.len(), "{file} case {i}");
        let mut tokens = vec![0xAAu8; count * k.token_len + 7];
        let rc = finalize(k, &key, &mut state, &response, &mut tokens);
        assert_eq!(rc as usize, count * k.token_len, "{file} case {i}");
        assert_eq!(tokens[..rc as usize], expected_tokens.concat(), "{file} case {i}");
        // Outputs start zeroed: the spare capacity holds no stale bytes.
        assert!(tokens[rc as usize..].iter().all(|&b| b == 0), "{file} case {i}: the spare capacity is zeroed");
        assert!(state.iter().all(|&b| b == 0), "{file} case {i}: the state is wiped");
        // The library's issuer accepts every token.
        let issuer = issuer::<T>(&field(case, "skS"));
        let challenge = TokenChallenge::decode(&challenge).unwrap();
        for token in tokens[..rc as usize].chunks_exact(k.token_len) {
            issuer.verify(&T::Token::decode(token).unwrap(), &challenge).unwrap();
        }
    }
    cases.len()
}

#[test]
fn pat_go_vectors_byte_for_byte() {
    assert_eq!(run_file::<PrivateP384>(&TYPE1, "type1-issuance-test-vectors.json"), 5);
    assert_eq!(run_file::<PrivateP384>(&TYPE1, "type1-issuance-test-vectors.rust.json"), 5);
    assert_eq!(run_file::<PrivateRistretto255>(&TYPE5, "type5-issuance-test-vectors.json"), 5);
    assert_eq!(run_file::<PrivateRistretto255>(&TYPE5, "type5-issuance-test-vectors.rust.json"), 5);
}

fn challenge_bytes(token_type: u16) -> Vec<u8> {
    let c = TokenChallenge::new(token_type, b"issuer.example", &[9; 32], b"origin.example").unwrap();
    let mut out = vec![0u8; c.encoded_len()];
    c.encode(&mut out).unwrap();
    out
}

fn round_trips<T: PrivateTokenType>(k: &Kind) {
    let issuer = private::Issuer::<T>::derive(b"amortized batches through the C API", b"").unwrap();
    let key = issuer.token_key().as_ref().to_vec();
    let challenge = challenge_bytes(k.code);
    let parsed_challenge = TokenChallenge::decode(&challenge).unwrap();
    let mut rng = pat_testkit::TestRng::new(u64::from(k.code));
    for count in 1..=PAT_BATCH_MAX {
        let len = (k.request_len)(count) as usize;
        let mut req = vec![0xAAu8; len];
        let mut state = vec![0xAAu8; k.state_len];
        assert_eq!(request(k, &key, &challenge, count, &mut rng, &mut req, &mut state) as usize, len);
        let parsed = AmortizedTokenRequest::<T>::decode(&req).unwrap();
        assert_eq!(parsed.len(), count);
        let mut response = vec![0u8; (k.response_len)(count) as usize];
        let n = issuer.evaluate_batch::<8, _>(&parsed, &mut response, &mut rng).unwrap();
        assert_eq!(n, response.len());
        let mut tokens = vec![0u8; count * k.token_len];
        assert_eq!(finalize(k, &key, &mut state, &response, &mut tokens) as usize, count * k.token_len);
        for token in tokens.chunks_exact(k.token_len) {
            issuer.verify(&T::Token::decode(token).unwrap(), &parsed_challenge).unwrap();
        }
    }
}

#[test]
fn random_batches_of_every_size_verify() {
    round_trips::<PrivateP384>(&TYPE1);
    round_trips::<PrivateRistretto255>(&TYPE5);
}

fn refusals<T: PrivateTokenType>(k: &Kind, other: &Kind) {
    let issuer = private::Issuer::<T>::derive(b"refusals", b"").unwrap();
    let key = issuer.token_key().as_ref().to_vec();
    let challenge = challenge_bytes(k.code);
    let mut rng = pat_testkit::TestRng::new(99);
    let zeroed = |a: &[u8]| a.iter().all(|&b| b == 0);

    // Counts out of range, in the length helpers and in the request.
    for count in [0, PAT_BATCH_MAX + 1, usize::MAX] {
        let code = if count == 0 { Error::InvalidLength(Field::Batch).code() } else { Error::CapacityExceeded.code() };
        assert_eq!((k.request_len)(count), code, "{count}");
        assert_eq!((k.response_len)(count), code, "{count}");
        let mut req = vec![0xAAu8; 1024];
        let mut state = vec![0xAAu8; k.state_len];
        assert_eq!(request(k, &key, &challenge, count, &mut rng, &mut req, &mut state), code, "{count}");
        assert!(zeroed(&req) && zeroed(&state));
    }
    // Short request and state buffers; a challenge of another type.
    let len = (k.request_len)(3) as usize;
    let mut req = vec![0u8; len];
    let mut state = vec![0u8; k.state_len];
    assert_eq!(
        request(k, &key, &challenge, 3, &mut rng, &mut req[..len - 1], &mut state),
        Error::BufferTooSmall.code()
    );
    assert_eq!(
        request(k, &key, &challenge, 3, &mut rng, &mut req, &mut state[..k.state_len - 1]),
        Error::BufferTooSmall.code()
    );
    assert_eq!(
        request(k, &key, &challenge_bytes(2), 3, &mut rng, &mut req, &mut state),
        Error::WrongTokenType { expected: k.code, found: 2 }.code()
    );
    // Nonces and blinds that do not pair up.
    assert_eq!(
        request_with(k, &key, &challenge, &[0; 33], &[], &mut req, &mut state),
        Error::InvalidLength(Field::Batch).code()
    );

    // A genuine batch of 3, then refused responses that keep the state.
    assert_eq!(request(k, &key, &challenge, 3, &mut rng, &mut req, &mut state) as usize, len);
    let parsed = AmortizedTokenRequest::<T>::decode(&req).unwrap();
    let mut response = vec![0u8; (k.response_len)(3) as usize];
    issuer.evaluate_batch::<8, _>(&parsed, &mut response, &mut rng).unwrap();
    let kept = state.clone();
    let mut tokens = vec![0xAAu8; 3 * k.token_len];
    let mut forged = response.clone();
    *forged.last_mut().unwrap() ^= 1;
    assert_eq!(finalize(k, &key, &mut state, &forged, &mut tokens), Error::Verification.code());
    assert!(zeroed(&tokens), "the token buffer is zeroed on failure");
    assert_eq!(finalize(k, &key, &mut state, &response[..response.len() - 1], &mut tokens), Error::Truncated.code());
    let mut long = response.clone();
    long.push(0);
    assert_eq!(finalize(k, &key, &mut state, &long, &mut tokens), Error::TrailingBytes.code());
    // A response for two of the three requests.
    let mut req2 = vec![0u8; (k.request_len)(2) as usize];
    let mut state2 = vec![0u8; k.state_len];
    request(k, &key, &challenge, 2, &mut rng, &mut req2, &mut state2);
    let mut response2 = vec![0u8; (k.response_len)(2) as usize];
    issuer
        .evaluate_batch::<8, _>(&AmortizedTokenRequest::<T>::decode(&req2).unwrap(), &mut response2, &mut rng)
        .unwrap();
    assert_eq!(finalize(k, &key, &mut state, &response2, &mut tokens), Error::InvalidLength(Field::Batch).code());
    // A tokens buffer one byte short; the other type's finalize.
    assert_eq!(
        finalize(k, &key, &mut state, &response, &mut tokens[..3 * k.token_len - 1]),
        Error::BufferTooSmall.code()
    );
    assert_eq!(finalize(other, &key, &mut state, &response, &mut tokens), Error::InvalidLength(Field::Key).code());
    assert_eq!(state, kept, "every refusal keeps the state");
    assert_eq!(finalize(k, &key, &mut state, &response, &mut tokens) as usize, 3 * k.token_len);
    // Spent: the wiped state is refused.
    let mut again = vec![0u8; 3 * k.token_len];
    assert_eq!(finalize(k, &key, &mut state, &response, &mut again), Error::UnknownStateVersion(0).code());
}

#[test]
fn bad_calls_are_refused_with_typed_errors() {
    refusals::<PrivateP384>(&TYPE1, &TYPE5);
    refusals::<PrivateRistretto255>(&TYPE5, &TYPE1);
}
