//! The C API called as C calls it (raw pointers, lengths, a callback), from
//! Rust: pat-go's vectors of types 0x0001, 0x0002 and 0x0005 byte for byte,
//! the random path against the library's issuers, and every way a call can
//! be wrong (NULL, overlap, misalignment, short buffers, bad messages, a
//! failing callback), each with the code the library's error maps to.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation,
    clippy::too_many_arguments,
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

use core::ffi::c_void;
use std::ptr;

use pat::tokens::{private, public};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field, RngCode, TokenChallenge};
use pat_capi::directory::{pat_directory_select, pat_token_key_id};
use pat_capi::hazmat::{pat_type1_request_with, pat_type2_request_with, pat_type5_request_with};
use pat_capi::http::{pat_authorization, pat_challenge, pat_token_challenge_parse, pat_www_authenticate_challenge};
use pat_capi::misc::{pat_self_test_type1, pat_self_test_type2, pat_self_test_type5, pat_wipe};
use pat_capi::private::{pat_type1_finalize, pat_type1_request, pat_type5_finalize, pat_type5_request};
use pat_capi::public::{pat_type2_finalize, pat_type2_request};
use pat_capi::sizes::*;
use pat_capi::status::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

fn load(path: &str) -> Vec<Value> {
    let full = format!("{}/../tests/vectors/pat-go/tokens/{path}", env!("CARGO_MANIFEST_DIR"));
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&full).unwrap()).unwrap();
    v.as_array().unwrap().clone()
}

fn field(v: &Value, key: &str) -> Vec<u8> {
    hex(v[key].as_str().unwrap())
}

// ---- the randomness callbacks (test_rng: tests/common) --------------------

/// Fails with the code `ctx` points to.
unsafe extern "C" fn failing_rng(ctx: *mut c_void, _buf: *mut u8, _len: usize) -> i32 {
    unsafe { *ctx.cast::<i32>() }
}

// ---- one C-shaped client per type -----------------------------------------

type RequestFn = unsafe extern "C" fn(
    *const u8,
    usize,
    *const u8,
    usize,
    pat_capi::rng::pat_rng_fn,
    *mut c_void,
    *mut u8,
    usize,
    *mut u8,
    usize,
) -> i32;
type FinalizeFn = unsafe extern "C" fn(*const u8, usize, *mut u8, usize, *const u8, usize, *mut u8, usize) -> i32;
type RequestWithFn = unsafe extern "C" fn(
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

struct Kind {
    code: u16,
    request: RequestFn,
    finalize: FinalizeFn,
    request_len: usize,
    response_len: usize,
    token_len: usize,
    state_len: usize,
}

const TYPE1: Kind = Kind {
    code: 1,
    request: pat_type1_request,
    finalize: pat_type1_finalize,
    request_len: PAT_TYPE1_REQUEST_LEN,
    response_len: PAT_TYPE1_RESPONSE_LEN,
    token_len: PAT_TYPE1_TOKEN_LEN,
    state_len: PAT_TYPE1_STATE_LEN,
};
const TYPE2: Kind = Kind {
    code: 2,
    request: pat_type2_request,
    finalize: pat_type2_finalize,
    request_len: PAT_TYPE2_REQUEST_LEN,
    response_len: PAT_TYPE2_RESPONSE_LEN,
    token_len: PAT_TYPE2_TOKEN_LEN,
    state_len: PAT_TYPE2_STATE_LEN,
};
const TYPE5: Kind = Kind {
    code: 5,
    request: pat_type5_request,
    finalize: pat_type5_finalize,
    request_len: PAT_TYPE5_REQUEST_LEN,
    response_len: PAT_TYPE5_RESPONSE_LEN,
    token_len: PAT_TYPE5_TOKEN_LEN,
    state_len: PAT_TYPE5_STATE_LEN,
};

/// `request` with the test generator; returns (status, request, state).
fn request(kind: &Kind, key: &[u8], challenge: &[u8], seed: u64) -> (i32, Vec<u8>, Vec<u8>) {
    let mut rng = pat_testkit::TestRng::new(seed);
    let mut req = vec![0xAAu8; kind.request_len];
    let mut state = vec![0xAAu8; kind.state_len];
    let rc = unsafe {
        (kind.request)(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            Some(test_rng),
            (&raw mut rng).cast(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    (rc, req, state)
}

/// `finalize`; returns (status, token).
fn finalize(kind: &Kind, key: &[u8], state: &mut [u8], response: &[u8]) -> (i32, Vec<u8>) {
    let mut token = vec![0xAAu8; kind.token_len];
    let rc = unsafe {
        (kind.finalize)(
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            response.as_ptr(),
            response.len(),
            token.as_mut_ptr(),
            token.len(),
        )
    };
    (rc, token)
}

fn request_with(
    f: RequestWithFn,
    kind: &Kind,
    key: &[u8],
    challenge: &[u8],
    nonce: &[u8],
    blind: &[u8],
) -> (i32, Vec<u8>, Vec<u8>) {
    let mut req = vec![0u8; kind.request_len];
    let mut state = vec![0u8; kind.state_len];
    let rc = unsafe {
        f(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            nonce.as_ptr(),
            nonce.len(),
            blind.as_ptr(),
            blind.len(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    (rc, req, state)
}

fn type2_request_with(case: &Value) -> (i32, Vec<u8>, Vec<u8>) {
    let (key, challenge, nonce, salt) =
        (field(case, "pkS"), field(case, "token_challenge"), field(case, "nonce"), field(case, "salt"));
    let mut blind = vec![0u8; 256];
    let b = field(case, "blind");
    blind[256 - b.len()..].copy_from_slice(&b);
    let mut req = vec![0u8; PAT_TYPE2_REQUEST_LEN];
    let mut state = vec![0u8; PAT_TYPE2_STATE_LEN];
    let rc = unsafe {
        pat_type2_request_with(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            nonce.as_ptr(),
            nonce.len(),
            salt.as_ptr(),
            salt.len(),
            blind.as_ptr(),
            blind.len(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    (rc, req, state)
}

// ---- pat-go's vectors ------------------------------------------------------

/// Every case of a type-1 or type-5 file: the request and the token byte for
/// byte, the state wiped by finalize, and a second finalize refused.
fn private_file(kind: &Kind, f: RequestWithFn, file: &str) -> usize {
    let cases = load(file);
    for (i, case) in cases.iter().enumerate() {
        let key = field(case, "pkS");
        let (rc, req, mut state) =
            request_with(f, kind, &key, &field(case, "token_challenge"), &field(case, "nonce"), &field(case, "blind"));
        assert_eq!(rc, kind.request_len as i32, "{file} case {i}");
        assert_eq!(req, field(case, "token_request"), "{file} case {i}: request");
        let (rc, token) = finalize(kind, &key, &mut state, &field(case, "token_response"));
        assert_eq!(rc, kind.token_len as i32, "{file} case {i}");
        assert_eq!(token, field(case, "token"), "{file} case {i}: token");
        assert!(state.iter().all(|&b| b == 0), "the state is wiped after finalize");
        let (rc, token) = finalize(kind, &key, &mut state, &field(case, "token_response"));
        assert_eq!(rc, Error::UnknownStateVersion(0).code(), "a wiped state does not finalize again");
        assert!(token.iter().all(|&b| b == 0));
    }
    cases.len()
}

#[test]
fn pat_go_type1_and_type5_vectors() {
    let mut n = 0;
    for file in ["private/type1-issuance-test-vectors.json", "private/type1-issuance-test-vectors.rust.json"] {
        n += private_file(&TYPE1, pat_type1_request_with, file);
    }
    for file in ["private/type5-issuance-test-vectors.json", "private/type5-issuance-test-vectors.rust.json"] {
        n += private_file(&TYPE5, pat_type5_request_with, file);
    }
    assert_eq!(n, 20, "every case of the four files ran");
}

#[test]
fn pat_go_type2_vectors() {
    let mut n = 0;
    for file in ["type2/type2-issuance-test-vectors.json", "type2/type2-issuance-test-vectors.rust.json"] {
        for (i, case) in load(file).iter().enumerate() {
            let key = field(case, "pkS");
            let (rc, req, mut state) = type2_request_with(case);
            assert_eq!(rc, PAT_TYPE2_REQUEST_LEN as i32, "{file} case {i}");
            assert_eq!(req, field(case, "token_request"), "{file} case {i}: request");
            let (rc, token) = finalize(&TYPE2, &key, &mut state, &field(case, "token_response"));
            assert_eq!(rc, PAT_TYPE2_TOKEN_LEN as i32, "{file} case {i}");
            assert_eq!(token, field(case, "token"), "{file} case {i}: token");
            assert!(state.iter().all(|&b| b == 0));
            n += 1;
        }
    }
    assert_eq!(n, 10);
}

// ---- the random path against the library's issuers ------------------------

fn challenge_bytes(code: u16) -> Vec<u8> {
    let c = TokenChallenge::new(code, b"issuer.example", &[7; 32], b"origin.example").unwrap();
    let mut out = vec![0u8; c.encoded_len()];
    c.encode(&mut out).unwrap();
    out
}

fn private_round_trip<T: private::PrivateTokenType>(kind: &Kind) {
    let issuer = private::Issuer::<T>::derive(b"seed of the c api test, 32 bytes", b"info").unwrap();
    let key = issuer.token_key().as_ref().to_vec();
    let challenge = challenge_bytes(kind.code);
    let (rc, req, mut state) = request(kind, &key, &challenge, 1);
    assert_eq!(rc, kind.request_len as i32);
    let response =
        issuer.evaluate(&private::TokenRequest::<T>::decode(&req).unwrap(), &mut pat_testkit::TestRng::new(2)).unwrap();
    let mut resp = vec![0u8; kind.response_len];
    response.encode(&mut resp).unwrap();

    // A corrupted response fails and leaves the state for the genuine one.
    let kept = state.clone();
    let mut bad = resp.clone();
    bad[kind.response_len - 1] ^= 1;
    let (rc, token) = finalize(kind, &key, &mut state, &bad);
    assert!(rc == Error::Verification.code() || rc == Error::InvalidScalar.code(), "{rc}");
    assert!(token.iter().all(|&b| b == 0), "a failed finalize zeroes the token buffer");
    assert_eq!(state, kept, "a failed finalize keeps the state");

    let (rc, token) = finalize(kind, &key, &mut state, &resp);
    assert_eq!(rc, kind.token_len as i32);
    let token = <T::Token as Decode>::decode(&token).unwrap();
    issuer.verify(&token, &TokenChallenge::decode(&challenge).unwrap()).unwrap();
}

#[test]
fn random_requests_give_tokens_the_issuers_accept() {
    private_round_trip::<PrivateP384>(&TYPE1);
    private_round_trip::<PrivateRistretto255>(&TYPE5);

    let case = &load("type2/type2-issuance-test-vectors.json")[0];
    let sk =
        pat::crypto::blind_rsa::SecretKey::from_pkcs8_pem(core::str::from_utf8(&field(case, "skS")).unwrap()).unwrap();
    let issuer = public::Issuer::new(sk);
    let key = issuer.token_key().to_vec();
    let challenge = challenge_bytes(2);
    let (rc, req, mut state) = request(&TYPE2, &key, &challenge, 3);
    assert_eq!(rc, PAT_TYPE2_REQUEST_LEN as i32);
    let response = issuer.evaluate(&public::TokenRequest::decode(&req).unwrap()).unwrap();
    let mut resp = vec![0u8; PAT_TYPE2_RESPONSE_LEN];
    response.encode(&mut resp).unwrap();
    let (rc, token) = finalize(&TYPE2, &key, &mut state, &resp);
    assert_eq!(rc, PAT_TYPE2_TOKEN_LEN as i32);
    let origin = public::Origin::new(pat::crypto::blind_rsa::PublicKey::from_spki(&key).unwrap());
    origin.verify(&public::PublicToken::decode(&token).unwrap(), &TokenChallenge::decode(&challenge).unwrap()).unwrap();
}

// ---- what a call can get wrong ---------------------------------------------

fn type1_case() -> (Vec<u8>, Vec<u8>) {
    let case = &load("private/type1-issuance-test-vectors.json")[0];
    (field(case, "pkS"), field(case, "token_challenge"))
}

#[test]
fn a_failing_callback_is_a_typed_error_and_leaves_nothing() {
    let (key, challenge) = type1_case();
    for (code, expected) in [
        (7, RngCode::new(7)),
        (0x7F_FFFC, RngCode::new(0x7F_FFFC)),
        (0x7F_FFFD, RngCode::UNKNOWN),
        (-1, RngCode::UNKNOWN),
    ] {
        let mut ctx = code;
        let mut req = vec![0xAAu8; PAT_TYPE1_REQUEST_LEN];
        let mut state = vec![0xAAu8; PAT_TYPE1_STATE_LEN];
        let rc = unsafe {
            pat_type1_request(
                key.as_ptr(),
                key.len(),
                challenge.as_ptr(),
                challenge.len(),
                Some(failing_rng),
                (&raw mut ctx).cast(),
                req.as_mut_ptr(),
                req.len(),
                state.as_mut_ptr(),
                state.len(),
            )
        };
        assert_eq!(rc, Error::Rng(expected).code(), "callback code {code}");
        assert_eq!(pat_error_kind(rc), PAT_E_RNG);
        assert_eq!(pat_error_detail(rc), expected.get().min(PAT_RNG_UNKNOWN));
        assert!(req.iter().chain(&state).all(|&b| b == 0), "outputs are zeroed on error");
    }
    // No callback at all.
    let mut req = [0u8; PAT_TYPE1_REQUEST_LEN];
    let mut state = [0u8; PAT_TYPE1_STATE_LEN];
    let rc = unsafe {
        pat_type1_request(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            None,
            ptr::null_mut(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, -PAT_E_NULL_POINTER);
}

#[test]
fn null_overlap_and_short_buffers_are_refused_before_any_work() {
    let (key, challenge) = type1_case();
    let mut rng = pat_testkit::TestRng::new(9);
    let rngp: *mut c_void = (&raw mut rng).cast();
    let mut buf = vec![0u8; 1024];
    let base = buf.as_mut_ptr();
    let call = |k: *const u8, kl: usize, rq: *mut u8, rql: usize, st: *mut u8, stl: usize| unsafe {
        pat_type1_request(k, kl, challenge.as_ptr(), challenge.len(), Some(test_rng), rngp, rq, rql, st, stl)
    };
    // NULL with a length.
    assert_eq!(call(ptr::null(), 49, base, 52, unsafe { base.add(100) }, 197), -PAT_E_NULL_POINTER);
    assert_eq!(call(key.as_ptr(), 49, ptr::null_mut(), 52, unsafe { base.add(100) }, 197), -PAT_E_NULL_POINTER);
    // NULL with length 0 is an empty buffer: too small for the request.
    assert_eq!(call(key.as_ptr(), 49, ptr::null_mut(), 0, unsafe { base.add(100) }, 197), Error::BufferTooSmall.code());
    // Request and state overlap; an output overlaps an input.
    assert_eq!(call(key.as_ptr(), 49, base, 52, unsafe { base.add(51) }, 197), -PAT_E_OVERLAP);
    let key_in_buf = unsafe { base.add(400) };
    unsafe { ptr::copy_nonoverlapping(key.as_ptr(), key_in_buf, 49) };
    assert_eq!(call(key_in_buf, 49, unsafe { base.add(420) }, 52, base, 197), -PAT_E_OVERLAP);
    // Touching buffers do not overlap.
    assert_eq!(call(key.as_ptr(), 49, base, 52, unsafe { base.add(52) }, 197), 52);
    // Short request or state buffer.
    assert_eq!(call(key.as_ptr(), 49, base, 51, unsafe { base.add(100) }, 197), Error::BufferTooSmall.code());
    assert_eq!(call(key.as_ptr(), 49, base, 52, unsafe { base.add(100) }, 196), Error::BufferTooSmall.code());
    // A region that wraps around the address space.
    assert_eq!(call(key.as_ptr(), usize::MAX, base, 52, unsafe { base.add(100) }, 197), -PAT_E_ADDRESS_RANGE);
}

#[test]
fn bad_keys_challenges_responses_and_states_map_to_the_library_errors() {
    let (key, challenge) = type1_case();
    // A key of the wrong length or off the curve.
    assert_eq!(request(&TYPE1, &key[..48], &challenge, 1).0, Error::InvalidLength(Field::Key).code());
    let mut off = key.clone();
    off[0] = 0x05;
    assert_eq!(request(&TYPE1, &off, &challenge, 1).0, Error::InvalidElement.code());
    // A challenge of another type, truncated, with trailing bytes.
    let (rc, ..) = request(&TYPE1, &key, &challenge_bytes(2), 1);
    assert_eq!(rc, Error::WrongTokenType { expected: 1, found: 2 }.code());
    assert_eq!(pat_error_kind(rc), PAT_E_WRONG_TOKEN_TYPE);
    assert_eq!(pat_error_detail(rc), 2 + 0x10000);
    assert_eq!(request(&TYPE1, &key, &challenge[..challenge.len() - 1], 1).0, Error::Truncated.code());
    let mut long = challenge.clone();
    long.push(0);
    assert_eq!(request(&TYPE1, &key, &long, 1).0, Error::TrailingBytes.code());

    // Responses: truncated, trailing bytes; states: wrong length, version, key.
    let case = &load("private/type1-issuance-test-vectors.json")[0];
    let (_, _, state) =
        request_with(pat_type1_request_with, &TYPE1, &key, &challenge, &field(case, "nonce"), &field(case, "blind"));
    let resp = field(case, "token_response");
    let mut s = state.clone();
    assert_eq!(finalize(&TYPE1, &key, &mut s, &resp[..144]).0, Error::Truncated.code());
    let mut longer = resp.clone();
    longer.push(0);
    assert_eq!(finalize(&TYPE1, &key, &mut s, &longer).0, Error::TrailingBytes.code());
    assert_eq!(s, state, "refused responses leave the state");
    assert_eq!(finalize(&TYPE1, &key, &mut s[..196], &resp).0, Error::InvalidLength(Field::State).code());
    s[0] = 9;
    assert_eq!(finalize(&TYPE1, &key, &mut s, &resp).0, Error::UnknownStateVersion(9).code());
    let other = private::Issuer::<PrivateP384>::derive(b"another key", b"").unwrap();
    let mut s = state.clone();
    assert_eq!(finalize(&TYPE1, other.token_key().as_ref(), &mut s, &resp).0, Error::KeyIdMismatch.code());
    // A type-5 state is not a type-1 state.
    assert_eq!(finalize(&TYPE5, &key[..32], &mut s[..164], &resp).0, Error::InvalidElement.code());
    // A token buffer one byte short: refused before anything is spent.
    let mut s = state.clone();
    let mut small = [0u8; PAT_TYPE1_TOKEN_LEN - 1];
    let rc = unsafe {
        pat_type1_finalize(
            key.as_ptr(),
            key.len(),
            s.as_mut_ptr(),
            s.len(),
            resp.as_ptr(),
            resp.len(),
            small.as_mut_ptr(),
            small.len(),
        )
    };
    assert_eq!(rc, Error::BufferTooSmall.code());
    assert_eq!(s, state, "the state is kept");
    // The genuine response still finalizes.
    let (rc, token) = finalize(&TYPE1, &key, &mut s, &resp);
    assert_eq!(rc, PAT_TYPE1_TOKEN_LEN as i32);
    assert_eq!(token, field(case, "token"));
}

// ---- WWW-Authenticate, Authorization, TokenChallenge -----------------------

fn www(value: &str, index: usize, buf: &mut [u8]) -> (i32, pat_challenge) {
    let mut out = core::mem::MaybeUninit::<pat_challenge>::uninit();
    let rc = unsafe {
        pat_www_authenticate_challenge(
            value.as_ptr().cast(),
            value.len(),
            index,
            buf.as_mut_ptr(),
            buf.len(),
            out.as_mut_ptr(),
        )
    };
    (rc, unsafe { out.assume_init() })
}

fn bytes_of(p: *const u8, len: usize) -> Vec<u8> {
    if p.is_null() { Vec::new() } else { unsafe { std::slice::from_raw_parts(p, len) }.to_vec() }
}

#[test]
fn www_authenticate_challenges_are_found_decoded_and_counted() {
    let challenge = challenge_bytes(2);
    let key = field(&load("type2/type2-issuance-test-vectors.json")[0], "pkS");
    let mut header = [0u8; 2048];
    let first = pat::wire::auth::write_www_authenticate(&challenge, &key, Some(60), &mut header).unwrap().to_owned();
    let c5 = challenge_bytes(5);
    let value = format!("Basic realm=\"x\", {first}, privatetoken Challenge={}", {
        let mut b = [0u8; 512];
        let s = pat::wire::auth::write_www_authenticate_without_key(&c5, None, &mut b).unwrap();
        s.split_once("challenge=").unwrap().1.trim_matches('"').to_owned()
    });
    let mut buf = [0u8; PAT_CHALLENGE_BUFFER_SIZE];
    let (rc, c) = www(&value, 0, &mut buf);
    // The result is the decoded TokenChallenge's length.
    assert_eq!(usize::try_from(rc).unwrap(), challenge.len());
    assert_eq!(c.token_type, 2);
    assert!(c.has_max_age && c.max_age == 60);
    assert_eq!(bytes_of(c.challenge, c.challenge_len), challenge);
    assert_eq!(bytes_of(c.token_key, c.token_key_len), key);
    assert_eq!(bytes_of(c.issuer_name, c.issuer_name_len), b"issuer.example");
    assert_eq!(bytes_of(c.redemption_context, c.redemption_context_len), [7; 32]);
    assert_eq!(bytes_of(c.origin_info, c.origin_info_len), b"origin.example");
    let (rc, c) = www(&value, 1, &mut buf);
    assert_eq!(
        usize::try_from(rc).unwrap(),
        c5.len(),
        "a lower-case scheme and parameter name, unquoted unpadded value"
    );
    assert_eq!(c.token_type, 5);
    assert!(c.token_key.is_null() && c.token_key_len == 0 && !c.has_max_age);
    assert_eq!(bytes_of(c.challenge, c.challenge_len), c5);
    let (rc, c) = www(&value, 2, &mut buf);
    assert_eq!(rc, 0);
    assert!(c.challenge.is_null() && c.token_type == 0);

    // Malformed: a missing challenge, a repeated key, bad base64, a broken list, too small a buffer.
    assert_eq!(www("PrivateToken token-key=\"AAAA\"", 0, &mut buf).0, Error::MissingParameter(Field::Challenge).code());
    assert_eq!(
        www(&format!("{first}, token-key=\"AAAA\""), 0, &mut buf).0,
        Error::DuplicateParameter(Field::TokenKey).code()
    );
    assert_eq!(www("PrivateToken challenge=\"A$==\"", 0, &mut buf).0, Error::InvalidBase64.code());
    assert_eq!(www("PrivateToken challenge=\"AAAA", 0, &mut buf).0, Error::MalformedHeader.code());
    assert_eq!(www(&first, 0, &mut buf[..challenge.len() + 10]).0, Error::BufferTooSmall.code());
    assert_eq!(www("PrivateToken challenge=\"AAEA\"", 0, &mut buf).0, Error::Truncated.code());
    assert_eq!(www("\u{0001}", 0, &mut buf).0, Error::MalformedHeader.code());
    // A misaligned output struct.
    let mut raw = [0u64; 16];
    let misaligned = unsafe { raw.as_mut_ptr().cast::<u8>().add(1) }.cast::<pat_challenge>();
    let rc = unsafe {
        pat_www_authenticate_challenge(first.as_ptr().cast(), first.len(), 0, buf.as_mut_ptr(), buf.len(), misaligned)
    };
    assert_eq!(rc, -PAT_E_MISALIGNED);
    let rc = unsafe {
        pat_www_authenticate_challenge(
            first.as_ptr().cast(),
            first.len(),
            0,
            buf.as_mut_ptr(),
            buf.len(),
            ptr::null_mut(),
        )
    };
    assert_eq!(rc, -PAT_E_NULL_POINTER);

    // pat_token_challenge_parse: the same fields from the bytes alone.
    let mut out = core::mem::MaybeUninit::<pat_challenge>::uninit();
    assert_eq!(unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len(), out.as_mut_ptr()) }, 0);
    let c = unsafe { out.assume_init() };
    assert_eq!(c.token_type, 2);
    assert_eq!(c.challenge, challenge.as_ptr());
    assert_eq!(bytes_of(c.origin_info, c.origin_info_len), b"origin.example");
    let rc = unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len() - 1, out.as_mut_ptr()) };
    assert_eq!(rc, Error::Truncated.code());
}

#[test]
fn authorization_values_are_the_librarys_and_nul_terminated() {
    for (file, size) in [
        ("private/type1-issuance-test-vectors.json", PAT_TYPE1_AUTHORIZATION_SIZE),
        ("type2/type2-issuance-test-vectors.json", PAT_TYPE2_AUTHORIZATION_SIZE),
        ("private/type5-issuance-test-vectors.json", PAT_TYPE5_AUTHORIZATION_SIZE),
    ] {
        let token = field(&load(file)[0], "token");
        let mut expected = [0u8; 600];
        let expected = pat::wire::auth::write_authorization(&token, &mut expected).unwrap().to_owned();
        let mut out = vec![0xAAu8; size];
        let rc = unsafe { pat_authorization(token.as_ptr(), token.len(), out.as_mut_ptr().cast(), out.len()) };
        assert_eq!(rc as usize, size - 1, "{file}");
        assert_eq!(&out[..size - 1], expected.as_bytes());
        assert_eq!(out[size - 1], 0);
        let rc = unsafe { pat_authorization(token.as_ptr(), token.len(), out.as_mut_ptr().cast(), size - 1) };
        assert_eq!(rc, Error::BufferTooSmall.code(), "no room for the NUL");
        assert!(out[..size - 1].iter().all(|&b| b == 0));
        let rc = unsafe { pat_authorization(token.as_ptr(), token.len() - 1, out.as_mut_ptr().cast(), size) };
        assert_eq!(rc, Error::Truncated.code());
        let mut unknown = token.clone();
        unknown[1] = 9;
        let rc = unsafe { pat_authorization(unknown.as_ptr(), unknown.len(), out.as_mut_ptr().cast(), size) };
        assert_eq!(rc, Error::UnknownTokenType(9).code());
    }
}

// ---- the issuer directory --------------------------------------------------

fn directory(keys: &[(u16, &[u8], Option<u64>)]) -> Vec<u8> {
    let entries: Vec<_> = keys
        .iter()
        .map(|&(token_type, token_key, not_before)| pat::deploy::directory::DirectoryEntry {
            token_type,
            token_key,
            not_before,
        })
        .collect();
    let mut out = vec![0u8; 8192];
    let n = pat::deploy::directory::write_directory("https://issuer.example/token-request", &entries, &mut out)
        .unwrap()
        .len();
    out.truncate(n);
    out
}

fn select(json: &[u8], token_type: u16, key_id: Option<&[u8; 32]>, now: u64) -> (i32, Vec<u8>, Vec<u8>) {
    let mut key = vec![0u8; 512];
    let mut uri = vec![0u8; 64];
    let rc = unsafe {
        pat_directory_select(
            json.as_ptr(),
            json.len(),
            token_type,
            key_id.map_or(ptr::null(), |k| k.as_ptr()),
            now,
            ptr::null_mut(),
            0,
            key.as_mut_ptr(),
            key.len(),
            uri.as_mut_ptr().cast(),
            uri.len(),
        )
    };
    if rc >= 0 {
        key.truncate(rc as usize);
    }
    (rc, key, uri)
}

#[test]
fn the_directory_gives_the_newest_valid_key_or_the_pinned_one() {
    let (a, b, c) = ([1u8; 49], [2u8; 49], [3u8; 32]);
    let json = directory(&[(1, &a, Some(100)), (1, &b, Some(200)), (5, &c, None)]);
    let (rc, key, uri) = select(&json, 1, None, 150);
    assert_eq!(rc, 49);
    assert_eq!(key, a);
    assert_eq!(&uri[..37], b"https://issuer.example/token-request\0");
    assert_eq!(select(&json, 1, None, 250).1, b);
    assert_eq!(select(&json, 5, None, 0).1, c);
    assert_eq!(select(&json, 1, None, 50).0, Error::KeyNotYetValid.code());
    assert_eq!(select(&json, 2, None, 500).0, Error::NoMatchingKey.code());
    // Pinned by key id (pat_token_key_id of the key as published).
    let mut id = [0u8; 32];
    assert_eq!(unsafe { pat_token_key_id(a.as_ptr(), a.len(), id.as_mut_ptr(), id.len()) }, 32);
    assert_eq!(select(&json, 1, Some(&id), 250).1, a, "the pinned key, though a newer one exists");
    assert_eq!(select(&json, 5, Some(&id), 250).0, Error::NoMatchingKey.code());
    // More keys than PAT_DIRECTORY_MAX_KEYS, broken JSON, a key too long for the buffer.
    let many: Vec<(u16, &[u8], Option<u64>)> = (0..=PAT_DIRECTORY_MAX_KEYS).map(|_| (1, &a[..], None)).collect();
    assert_eq!(select(&directory(&many), 1, None, 0).0, Error::CapacityExceeded.code());
    assert_eq!(select(&json[..json.len() - 1], 1, None, 150).0, Error::Truncated.code());
    let big = [9u8; 600];
    assert_eq!(select(&directory(&[(1, &big, None)]), 1, None, 0).0, Error::BufferTooSmall.code());
}

// ---- status codes, self-tests, wiping --------------------------------------

#[test]
fn status_codes_read_back() {
    let code = Error::InvalidLength(Field::Key).code();
    assert_eq!(pat_error_kind(code), PAT_E_INVALID_LENGTH);
    assert_eq!(pat_error_detail(code), PAT_FIELD_KEY);
    assert_eq!(pat_error_kind(42), PAT_OK);
    assert_eq!(pat_error_kind(-PAT_E_OVERLAP), PAT_E_OVERLAP);
    assert_eq!(pat_error_kind(-99), -1);
    assert_eq!(pat_error_detail(-PAT_E_OVERLAP), 0);
    let mut buf = [0u8; 128];
    for (code, text) in [
        (code, "length of key is out of range"),
        (Error::Verification.code(), "verification failed"),
        (-PAT_E_NULL_POINTER, "a required pointer is NULL"),
        (0, "success"),
        (-99, "not a pat status code"),
    ] {
        let n = unsafe { pat_error_message(code, buf.as_mut_ptr().cast(), buf.len()) };
        assert_eq!(&buf[..n as usize], text.as_bytes());
        assert_eq!(buf[n as usize], 0);
    }
    let rc = unsafe { pat_error_message(Error::Verification.code(), buf.as_mut_ptr().cast(), 19) };
    assert_eq!(rc, Error::BufferTooSmall.code(), "19 bytes hold the text, not the NUL");
    assert_eq!(unsafe { pat_error_message(0, ptr::null_mut(), 0) }, -PAT_E_NULL_POINTER);
}

#[test]
fn self_tests_pass_and_wipe_wipes() {
    assert_eq!(pat_self_test_type1(), 0);
    assert_eq!(pat_self_test_type2(), 0);
    assert_eq!(pat_self_test_type5(), 0);
    let mut secret = [0x5Au8; 40];
    unsafe { pat_wipe(secret.as_mut_ptr(), secret.len()) };
    assert_eq!(secret, [0; 40]);
    unsafe { pat_wipe(ptr::null_mut(), 0) };
}

// ---- type 0x0003 through the library's attester and issuer -----------------

#[test]
fn type3_client_through_attester_and_issuer() {
    use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
    use pat::crypto::rate_limited::EncapSecretKey;
    use pat::tokens::rate_limited::{self as t3, Attester, Issuer, Origin, OriginKey, Policy, TokenKey};
    use pat_capi::rate_limited::{pat_type3_client_key, pat_type3_finalize, pat_type3_request, pat_type3_request_len};

    let pem = String::from_utf8(field(&load("type2/type2-issuance-test-vectors.json")[0], "skS")).unwrap();
    let origin_secret = ecdsa::SecretKey::from_bytes(&[0x30; 48]).unwrap();
    let issuer = Issuer::new(
        EncapSecretKey::derive(1, &[7; 32]),
        TokenKey::from_pkcs8_pem(&pem).unwrap(),
        [OriginKey::new(b"origin.example", origin_secret)],
    );
    let encap = issuer.encap_key().to_bytes();
    let token_key = issuer.token_key();
    let secret = [0x11u8; PAT_TYPE3_CLIENT_SECRET_LEN];
    let challenge = challenge_bytes(3);
    let origin = b"origin.example";

    let mut client_key = [0u8; PAT_TYPE3_CLIENT_KEY_LEN];
    assert_eq!(unsafe { pat_type3_client_key(secret.as_ptr(), 48, client_key.as_mut_ptr(), 49) }, 49);
    assert_eq!(client_key, ecdsa::SecretKey::from_bytes(&secret).unwrap().public_key().to_bytes());
    assert_eq!(pat_type3_request_len(origin.len()), PAT_TYPE3_REQUEST_LEN_SHORT_NAME as i32);
    assert_eq!(pat_type3_request_len(33), 552);
    assert_eq!(pat_type3_request_len(usize::MAX), Error::InvalidLength(Field::OriginName).code());

    let run = |origin: &[u8], seed: u64| {
        let mut rng = pat_testkit::TestRng::new(seed);
        let mut req = vec![0xAAu8; 600];
        let mut blind = [0xAAu8; PAT_TYPE3_REQUEST_BLIND_LEN];
        let mut state = vec![0xAAu8; PAT_TYPE3_STATE_LEN];
        let rc = unsafe {
            pat_type3_request(
                secret.as_ptr(),
                secret.len(),
                encap.as_ptr(),
                encap.len(),
                token_key.as_ptr(),
                token_key.len(),
                challenge.as_ptr(),
                challenge.len(),
                origin.as_ptr(),
                origin.len(),
                Some(test_rng),
                (&raw mut rng).cast(),
                req.as_mut_ptr(),
                req.len(),
                blind.as_mut_ptr(),
                blind.len(),
                state.as_mut_ptr(),
                state.len(),
            )
        };
        (rc, req, blind, state)
    };
    let (rc, mut req, blind, mut state) = run(origin, 5);
    assert_eq!(rc, PAT_TYPE3_REQUEST_LEN_SHORT_NAME as i32);
    req.truncate(rc as usize);

    // The attester checks the request against the client key and request_blind.
    let request = t3::TokenRequest::decode(&req).unwrap();
    request.verify_signature().unwrap();
    let client_key = ecdsa::PublicKey::from_bytes(&client_key).unwrap();
    let request_blind = ecdsa::BlindKey::with_encoding(&blind, t3::Config::PAT_GO.blind_encoding);
    let attester = Attester::<4>::new(Policy { max_tokens: 2, window: 60 });
    attester.process(&request, &client_key, &request_blind, &[1; 32], 10).unwrap();
    let mut scratch = vec![0u8; t3::scratch_len(&request)];
    let response = issuer.evaluate(&request, &mut scratch, &mut pat_testkit::TestRng::new(6)).unwrap();

    let finalize_with = |key: &[u8], state: &mut [u8], response: &[u8]| {
        let mut token = vec![0xAAu8; PAT_TYPE3_TOKEN_LEN];
        let rc = unsafe {
            pat_type3_finalize(
                key.as_ptr(),
                key.len(),
                state.as_mut_ptr(),
                state.len(),
                response.as_ptr(),
                response.len(),
                token.as_mut_ptr(),
                token.len(),
            )
        };
        (rc, token)
    };
    let finalize = |state: &mut [u8], response: &[u8]| finalize_with(&token_key, state, response);
    // A tampered response does not decrypt, and the state stays.
    let mut bad = response.encrypted_token_response.to_vec();
    bad[100] ^= 1;
    let kept = state.clone();
    assert_eq!(finalize(&mut state, &bad).0, Error::Verification.code());
    assert_eq!(finalize(&mut state, &bad[..287]).0, Error::InvalidLength(Field::Message).code());
    // Another issuer's token key: the state names the key it was made for.
    let other_key = field(&load("type2/type2-issuance-test-vectors.rust.json")[0], "pkS");
    assert_eq!(
        finalize_with(&other_key, &mut state, &response.encrypted_token_response).0,
        Error::KeyIdMismatch.code()
    );
    assert_eq!(state, kept);
    let (rc, token) = finalize(&mut state, &response.encrypted_token_response);
    assert_eq!(rc, PAT_TYPE3_TOKEN_LEN as i32);
    assert!(state.iter().all(|&b| b == 0));
    let token = t3::RateLimitedToken::decode(&token).unwrap();
    Origin::new(pat::crypto::blind_rsa::PublicKey::from_spki(&token_key).unwrap())
        .verify(&token, &TokenChallenge::decode(&challenge).unwrap())
        .unwrap();
    let mut auth = [0u8; PAT_TYPE3_AUTHORIZATION_SIZE];
    let mut encoded = [0u8; PAT_TYPE3_TOKEN_LEN];
    token.encode(&mut encoded).unwrap();
    let n = unsafe { pat_authorization(encoded.as_ptr(), encoded.len(), auth.as_mut_ptr().cast(), auth.len()) };
    assert_eq!(n as usize, PAT_TYPE3_AUTHORIZATION_SIZE - 1);

    // The origin's side through C: the token verifies with the issuer's key
    // and the challenge, and nothing else does.
    let verify = |f: unsafe extern "C" fn(*const u8, usize, *const u8, usize, *const u8, usize) -> i32,
                  key: &[u8],
                  challenge: &[u8],
                  token: &[u8]| unsafe {
        f(key.as_ptr(), key.len(), challenge.as_ptr(), challenge.len(), token.as_ptr(), token.len())
    };
    use pat_capi::origin::{pat_type2_verify, pat_type3_verify};
    assert_eq!(verify(pat_type3_verify, &token_key, &challenge, &encoded), 0);
    let mut forged = encoded;
    forged[PAT_TYPE3_TOKEN_LEN - 1] ^= 1;
    assert_eq!(verify(pat_type3_verify, &token_key, &challenge, &forged), Error::Verification.code());
    assert_eq!(verify(pat_type3_verify, &token_key, &challenge_bytes(2), &encoded), Error::ChallengeMismatch.code());
    assert_eq!(verify(pat_type3_verify, &other_key, &challenge, &encoded), Error::KeyIdMismatch.code());
    assert_eq!(
        verify(pat_type2_verify, &token_key, &challenge, &encoded),
        Error::WrongTokenType { expected: 2, found: 3 }.code()
    );
    assert_eq!(
        verify(pat_type3_verify, &token_key, &challenge, &encoded[..PAT_TYPE3_TOKEN_LEN - 1]),
        Error::Truncated.code()
    );

    // Refusals: a name ending in a zero byte, a bad secret, a short blind buffer, a type-1 challenge.
    assert_eq!(run(b"origin\0", 7).0, Error::InvalidValue(Field::OriginName).code());
    let mut rng = pat_testkit::TestRng::new(8);
    let (mut req, mut blind, mut state) = (vec![0u8; 600], [0u8; 47], vec![0u8; PAT_TYPE3_STATE_LEN]);
    let type1_challenge = challenge_bytes(1);
    for (challenge, blind_cap, expected) in [
        (&challenge, 47, Error::BufferTooSmall.code()),
        (&type1_challenge, 48, Error::WrongTokenType { expected: 3, found: 1 }.code()),
    ] {
        let mut blind48 = [0u8; 48];
        let blind_ptr = if blind_cap == 47 { blind.as_mut_ptr() } else { blind48.as_mut_ptr() };
        let rc = unsafe {
            pat_type3_request(
                secret.as_ptr(),
                secret.len(),
                encap.as_ptr(),
                encap.len(),
                token_key.as_ptr(),
                token_key.len(),
                challenge.as_ptr(),
                challenge.len(),
                origin.as_ptr(),
                origin.len(),
                Some(test_rng),
                (&raw mut rng).cast(),
                req.as_mut_ptr(),
                req.len(),
                blind_ptr,
                blind_cap,
                state.as_mut_ptr(),
                state.len(),
            )
        };
        assert_eq!(rc, expected);
    }
    req.fill(1);
    blind.fill(1);
    state.fill(1);
    let (rc, req, blind, state) = run(&[b'a'; 65_217], 7);
    assert_eq!(rc, Error::InvalidLength(Field::OriginName).code());
    assert!(req.iter().chain(&blind).chain(&state).all(|&b| b == 0));
    let zero = [0u8; 48];
    let mut out = [0u8; 49];
    assert_eq!(unsafe { pat_type3_client_key(zero.as_ptr(), 48, out.as_mut_ptr(), 49) }, Error::InvalidScalar.code());
    assert_eq!(
        unsafe { pat_type3_client_key(zero.as_ptr(), 47, out.as_mut_ptr(), 49) },
        Error::InvalidLength(Field::Key).code()
    );
}

// ---- refused calls: outputs zeroed, the callback never called -------------

/// Counts its calls in the `usize` `ctx` points to, and fills with 7s.
unsafe extern "C" fn counting_rng(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32 {
    unsafe { *ctx.cast::<usize>() += 1 };
    unsafe { ptr::write_bytes(buf, 7, len) };
    0
}

#[test]
fn refused_calls_zero_their_outputs_and_draw_nothing() {
    let (key, challenge) = type1_case();
    let mut calls = 0usize;
    let ctx: *mut c_void = (&raw mut calls).cast();
    let mut buf = vec![0xAAu8; 512];
    let base = buf.as_mut_ptr();
    let run = |k: *const u8, kl: usize, rq: *mut u8, rql: usize, st: *mut u8, stl: usize| unsafe {
        pat_type1_request(k, kl, challenge.as_ptr(), challenge.len(), Some(counting_rng), ctx, rq, rql, st, stl)
    };
    // A NULL key: both outputs zeroed, although the call never started.
    assert_eq!(run(ptr::null(), 49, base, 52, unsafe { base.add(100) }, 197), -PAT_E_NULL_POINTER);
    assert!(buf[..52].iter().chain(&buf[100..297]).all(|&b| b == 0));
    assert!(buf[52..100].iter().chain(&buf[297..]).all(|&b| b == 0xAA), "nothing outside the outputs");
    // Overlapping outputs: both left as they were (either may hold the
    // caller's other data).
    buf.fill(0xAA);
    let base = buf.as_mut_ptr();
    assert_eq!(run(key.as_ptr(), 49, base, 52, unsafe { base.add(40) }, 197), -PAT_E_OVERLAP);
    assert!(buf.iter().all(|&b| b == 0xAA), "overlapping outputs are not written");
    // A range past the end of memory: that output is skipped, the other zeroed.
    buf.fill(0xAA);
    let base = buf.as_mut_ptr();
    assert_eq!(run(key.as_ptr(), 49, base, 52, unsafe { base.add(100) }, usize::MAX), -PAT_E_ADDRESS_RANGE);
    assert!(buf[..52].iter().all(|&b| b == 0));
    assert_eq!(calls, 0, "no randomness drawn for a refused call");
    // A short buffer: refused before the callback too.
    assert_eq!(run(key.as_ptr(), 49, base, 51, unsafe { base.add(100) }, 197), Error::BufferTooSmall.code());
    assert_eq!(calls, 0);
    assert!(run(key.as_ptr(), 49, base, 52, unsafe { base.add(100) }, 197) == 52 && calls > 0);

    // finalize keeps the state through a refused call (it is an input too).
    let case = &load("private/type1-issuance-test-vectors.json")[0];
    let (_, _, state) =
        request_with(pat_type1_request_with, &TYPE1, &key, &challenge, &field(case, "nonce"), &field(case, "blind"));
    let resp = field(case, "token_response");
    let mut s = state.clone();
    let mut token = vec![0xAAu8; PAT_TYPE1_TOKEN_LEN];
    let rc = unsafe {
        pat_type1_finalize(ptr::null(), 49, s.as_mut_ptr(), s.len(), resp.as_ptr(), resp.len(), token.as_mut_ptr(), 146)
    };
    assert_eq!(rc, -PAT_E_NULL_POINTER);
    assert_eq!(s, state);
    assert!(token.iter().all(|&b| b == 0));

    // pat_token_challenge_parse: NULL and misaligned outputs.
    let mut raw = [0u64; 16];
    let misaligned = unsafe { raw.as_mut_ptr().cast::<u8>().add(2) }.cast::<pat_challenge>();
    assert_eq!(
        unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len(), misaligned) },
        -PAT_E_MISALIGNED
    );
    assert_eq!(
        unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len(), ptr::null_mut()) },
        -PAT_E_NULL_POINTER
    );
    assert_eq!(unsafe { pat_token_challenge_parse(ptr::null(), 5, raw.as_mut_ptr().cast()) }, -PAT_E_NULL_POINTER);
}

// ---- refused calls: nothing written into another buffer of the call ------

/// A pattern no call writes: non-zero, and different at every offset.
fn pattern(len: usize) -> Vec<u8> {
    (0..len).map(|i| (i % 251) as u8 | 0x80).collect()
}

#[test]
fn a_refused_call_leaves_an_overlapped_input_as_it_was() {
    let (key, challenge) = type1_case();
    let mut calls = 0usize;
    let ctx: *mut c_void = (&raw mut calls).cast();
    // The key lives at the start of one buffer; the request output starts
    // inside it, the state output lies apart.
    let mut buf = pattern(600);
    buf[..49].copy_from_slice(&key);
    let before = buf.clone();
    let base = buf.as_mut_ptr();
    let rc = unsafe {
        pat_type1_request(
            base,
            49,
            challenge.as_ptr(),
            challenge.len(),
            Some(counting_rng),
            ctx,
            base.add(20),
            PAT_TYPE1_REQUEST_LEN,
            base.add(300),
            PAT_TYPE1_STATE_LEN,
        )
    };
    assert_eq!(rc, -PAT_E_OVERLAP);
    assert_eq!(calls, 0);
    assert_eq!(buf[..49], before[..49], "the key is intact");
    assert_eq!(buf[..300], before[..300], "the overlapping request buffer is not written");
    assert!(buf[300..300 + PAT_TYPE1_STATE_LEN].iter().all(|&b| b == 0), "the state buffer, apart, is zeroed");
    assert_eq!(buf[300 + PAT_TYPE1_STATE_LEN..], before[300 + PAT_TYPE1_STATE_LEN..]);

    // finalize: a token buffer over the state it was to be finalized with.
    let case = &load("private/type1-issuance-test-vectors.json")[0];
    let (_, _, state) =
        request_with(pat_type1_request_with, &TYPE1, &key, &challenge, &field(case, "nonce"), &field(case, "blind"));
    let resp = field(case, "token_response");
    let mut both = pattern(PAT_TYPE1_STATE_LEN + 100);
    both[..PAT_TYPE1_STATE_LEN].copy_from_slice(&state);
    let before = both.clone();
    let base = both.as_mut_ptr();
    let rc = unsafe {
        pat_type1_finalize(
            key.as_ptr(),
            key.len(),
            base,
            PAT_TYPE1_STATE_LEN,
            resp.as_ptr(),
            resp.len(),
            base.add(100),
            PAT_TYPE1_TOKEN_LEN,
        )
    };
    assert_eq!(rc, -PAT_E_OVERLAP);
    assert_eq!(both, before, "the state and the rest of the buffer are kept");

    // WWW-Authenticate: a decoding buffer that starts inside the value.
    let challenge5 = challenge_bytes(5);
    let mut header = [0u8; 512];
    let value = pat::wire::auth::write_www_authenticate_without_key(&challenge5, None, &mut header).unwrap().to_owned();
    let mut shared = value.clone().into_bytes();
    shared.extend_from_slice(&pattern(PAT_CHALLENGE_BUFFER_SIZE));
    let before = shared.clone();
    let base = shared.as_mut_ptr();
    let mut out = GARBAGE;
    let rc = unsafe {
        pat_www_authenticate_challenge(
            base.cast(),
            value.len(),
            0,
            base.add(value.len() / 2),
            PAT_CHALLENGE_BUFFER_SIZE,
            &raw mut out,
        )
    };
    assert_eq!(rc, -PAT_E_OVERLAP);
    assert_eq!(shared, before, "the value and the decoding buffer over it are not written");
    assert!(is_empty(&out), "`out`, apart from both, is emptied: {out:?}");
}

/// A `pat_challenge` as uninitialized C memory might hold it.
const GARBAGE: pat_challenge = pat_challenge {
    token_type: 0xBEEF,
    has_max_age: true,
    max_age: 77,
    challenge: GARBAGE_BYTES.as_ptr(),
    challenge_len: 3,
    token_key: GARBAGE_BYTES.as_ptr(),
    token_key_len: 2,
    issuer_name: GARBAGE_BYTES.as_ptr(),
    issuer_name_len: 1,
    redemption_context: GARBAGE_BYTES.as_ptr(),
    redemption_context_len: 3,
    origin_info: GARBAGE_BYTES.as_ptr(),
    origin_info_len: 1,
    credential_context: GARBAGE_BYTES.as_ptr(),
    credential_context_len: 2,
    has_rate_limit: true,
    rate_limit: 9,
};
static GARBAGE_BYTES: [u8; 3] = [1, 2, 3];

/// Whether `c` is the empty challenge: every field 0, false or NULL.
fn is_empty(c: &pat_challenge) -> bool {
    c.token_type == 0
        && !c.has_max_age
        && c.max_age == 0
        && !c.has_rate_limit
        && c.rate_limit == 0
        && [c.challenge, c.token_key, c.issuer_name, c.redemption_context, c.origin_info, c.credential_context]
            .iter()
            .all(|p| p.is_null())
        && [
            c.challenge_len,
            c.token_key_len,
            c.issuer_name_len,
            c.redemption_context_len,
            c.origin_info_len,
            c.credential_context_len,
        ]
        .iter()
        .all(|&n| n == 0)
}

#[test]
fn a_refused_call_empties_the_challenge_it_may_write() {
    let challenge = challenge_bytes(5);
    let mut header = [0u8; 512];
    let value = pat::wire::auth::write_www_authenticate_without_key(&challenge, None, &mut header).unwrap().to_owned();
    let mut buf = vec![0xAAu8; PAT_CHALLENGE_BUFFER_SIZE];
    let www_raw = |v: *const u8, vl: usize, b: *mut u8, bl: usize, out: *mut pat_challenge| unsafe {
        pat_www_authenticate_challenge(v.cast(), vl, 0, b, bl, out)
    };
    let (v, vl) = (value.as_ptr(), value.len());

    // Refused for another buffer, `out` apart: emptied.
    let mut out = GARBAGE;
    assert_eq!(www_raw(v, vl, ptr::null_mut(), 64, &raw mut out), -PAT_E_NULL_POINTER);
    assert!(is_empty(&out), "NULL buf with a capacity: {out:?}");
    let mut out = GARBAGE;
    assert_eq!(www_raw(ptr::null(), 5, buf.as_mut_ptr(), buf.len(), &raw mut out), -PAT_E_NULL_POINTER);
    assert!(is_empty(&out), "NULL value with a length: {out:?}");
    assert!(buf.iter().all(|&b| b == 0), "and `buf`, apart, zeroed");
    // A `buf` that runs past the end of memory claims everything above it:
    // `out` below it is emptied, `out` above it left as it was.
    let mut two = [GARBAGE; 2];
    let [low, high] = two.each_mut().map(ptr::from_mut);
    assert_eq!(www_raw(v, vl, high.cast::<u8>(), usize::MAX, low), -PAT_E_ADDRESS_RANGE);
    assert!(is_empty(&two[0]), "buf past the end of memory, `out` below it: {:?}", two[0]);
    let mut two = [GARBAGE; 2];
    let [low, high] = two.each_mut().map(ptr::from_mut);
    assert_eq!(www_raw(v, vl, low.cast::<u8>(), usize::MAX, high), -PAT_E_ADDRESS_RANGE);
    assert_eq!(two[1].token_type, GARBAGE.token_type, "`out` inside what buf claims");
    // A value whose challenge does not parse, and none at that index.
    let mut out = GARBAGE;
    let bad = "PrivateToken challenge=\"AAEA\"";
    assert_eq!(www_raw(bad.as_ptr(), bad.len(), buf.as_mut_ptr(), buf.len(), &raw mut out), Error::Truncated.code());
    assert!(is_empty(&out), "a parse error: {out:?}");
    let mut out = GARBAGE;
    let rc = unsafe { pat_www_authenticate_challenge(v.cast(), vl, 1, buf.as_mut_ptr(), buf.len(), &raw mut out) };
    assert_eq!(rc, 0);
    assert!(is_empty(&out), "no challenge at index 1: {out:?}");

    // `out` inside another buffer: neither is written. Over the value...
    let mut storage = [0u64; 32];
    storage.iter_mut().enumerate().for_each(|(i, w)| *w = 0x0101_0101_0101_0101 * (i as u64 + 1));
    let before = storage;
    let at = storage.as_mut_ptr();
    let size = size_of::<pat_challenge>();
    buf.fill(0xAA);
    assert_eq!(www_raw(at.cast::<u8>(), size, buf.as_mut_ptr(), buf.len(), at.cast()), -PAT_E_OVERLAP);
    assert_eq!(storage, before, "`out` over the value is left as it was");
    assert!(buf.iter().all(|&b| b == 0), "`buf`, apart, is zeroed");
    // ... or over the decoding buffer.
    assert_eq!(www_raw(v, vl, at.cast::<u8>(), size_of_val(&storage), at.cast()), -PAT_E_OVERLAP);
    assert_eq!(storage, before, "`out` over `buf`: both left as they were");
    // Misaligned: not written.
    let misaligned = unsafe { at.cast::<u8>().add(1) }.cast::<pat_challenge>();
    assert_eq!(www_raw(v, vl, buf.as_mut_ptr(), buf.len(), misaligned), -PAT_E_MISALIGNED);
    assert_eq!(storage, before);

    // pat_token_challenge_parse: the same rule.
    let mut out = GARBAGE;
    assert_eq!(unsafe { pat_token_challenge_parse(ptr::null(), 5, &raw mut out) }, -PAT_E_NULL_POINTER);
    assert!(is_empty(&out), "NULL challenge with a length: {out:?}");
    let mut two = [GARBAGE; 2];
    let [low, high] = two.each_mut().map(ptr::from_mut);
    assert_eq!(unsafe { pat_token_challenge_parse(high.cast::<u8>(), usize::MAX, low) }, -PAT_E_ADDRESS_RANGE);
    assert!(is_empty(&two[0]), "a challenge past the end of memory, `out` below it: {:?}", two[0]);
    let mut two = [GARBAGE; 2];
    let [low, high] = two.each_mut().map(ptr::from_mut);
    assert_eq!(unsafe { pat_token_challenge_parse(low.cast::<u8>(), usize::MAX, high) }, -PAT_E_ADDRESS_RANGE);
    assert_eq!(two[1].token_type, GARBAGE.token_type, "`out` inside what the challenge claims");
    let mut out = GARBAGE;
    let rc = unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len() - 1, &raw mut out) };
    assert_eq!(rc, Error::Truncated.code());
    assert!(is_empty(&out), "a parse error: {out:?}");
    assert_eq!(unsafe { pat_token_challenge_parse(at.cast::<u8>(), size, at.cast()) }, -PAT_E_OVERLAP);
    assert_eq!(storage, before, "`out` over the challenge is left as it was");
    assert_eq!(
        unsafe { pat_token_challenge_parse(challenge.as_ptr(), challenge.len(), misaligned) },
        -PAT_E_MISALIGNED
    );
    assert_eq!(storage, before);
}

#[test]
fn every_message_fits_its_size_and_a_short_buffer_is_left_empty() {
    let mut buf = [0u8; PAT_ERROR_MESSAGE_SIZE];
    let mut checked = 0;
    for kind in 1..=38 {
        for detail in [0u32, 1, 5, 27, 255, 0xFFFF, 0x6_FFFF, 0x7F_FFFF] {
            let code = -((kind + 256 * detail) as i32);
            if Error::from_code(code).is_none() {
                continue;
            }
            let n = unsafe { pat_error_message(code, buf.as_mut_ptr().cast(), buf.len()) };
            assert!(n > 0 && buf[n as usize] == 0, "{code}: {n}");
            checked += 1;
        }
    }
    for code in [-PAT_E_NULL_POINTER, -PAT_E_OVERLAP, -PAT_E_MISALIGNED, -PAT_E_ADDRESS_RANGE] {
        assert!(unsafe { pat_error_message(code, buf.as_mut_ptr().cast(), buf.len()) } > 0);
        assert_eq!(pat_error_kind(code), -code);
    }
    assert!(checked > 60, "{checked}");
    buf.fill(0xAA);
    let rc = unsafe { pat_error_message(Error::InvalidLength(Field::Key).code(), buf.as_mut_ptr().cast(), 20) };
    assert_eq!(rc, Error::BufferTooSmall.code());
    assert!(buf[..20].iter().all(|&b| b == 0), "no unterminated partial text");
    assert!(buf[20..].iter().all(|&b| b == 0xAA));
}

#[test]
fn directory_uri_edge_cases() {
    let key = [1u8; 49];
    let json = directory(&[(1, &key, None)]);
    let mut out = vec![0u8; 512];
    let mut uri = [0xAAu8; 8];
    let select_uri = |json: &[u8], uri: *mut u8, cap: usize, out: &mut [u8]| unsafe {
        pat_directory_select(
            json.as_ptr(),
            json.len(),
            1,
            ptr::null(),
            0,
            ptr::null_mut(),
            0,
            out.as_mut_ptr(),
            out.len(),
            uri.cast(),
            cap,
        )
    };
    // A URI buffer given, but with no room: an error, not silence.
    assert_eq!(select_uri(&json, uri.as_mut_ptr(), 0, &mut out), Error::BufferTooSmall.code());
    assert_eq!(select_uri(&json, uri.as_mut_ptr(), 8, &mut out), Error::BufferTooSmall.code());
    assert!(uri.iter().all(|&b| b == 0));
    assert_eq!(select_uri(&json, ptr::null_mut(), 0, &mut out), 49);
    // U+0000 inside the URI cannot be a C string.
    let nul =
        br#"{"issuer-request-uri":"https://i.example/r\u0000evil","token-keys":[{"token-type":1,"token-key":"AQID"}]}"#;
    let mut scratch = vec![0u8; nul.len()];
    let mut uri = [0u8; 64];
    let rc = unsafe {
        pat_directory_select(
            nul.as_ptr(),
            nul.len(),
            1,
            ptr::null(),
            0,
            scratch.as_mut_ptr(),
            scratch.len(),
            out.as_mut_ptr(),
            out.len(),
            uri.as_mut_ptr().cast(),
            uri.len(),
        )
    };
    assert_eq!(rc, Error::InvalidValue(Field::IssuerRequestUri).code());
    // Escapes need scratch room: without it, refused; with it, unescaped.
    let escaped =
        br#"{"issuer-request-uri":"https:\/\/i.example\/r","token-keys":[{"token-type":1,"token-key":"AQID"}]}"#;
    assert_eq!(select_uri(escaped, uri.as_mut_ptr(), uri.len(), &mut out), Error::BufferTooSmall.code());
    let rc = unsafe {
        pat_directory_select(
            escaped.as_ptr(),
            escaped.len(),
            1,
            ptr::null(),
            0,
            scratch.as_mut_ptr(),
            scratch.len(),
            out.as_mut_ptr(),
            out.len(),
            uri.as_mut_ptr().cast(),
            uri.len(),
        )
    };
    assert_eq!(rc, 3);
    assert_eq!(&uri[..20], b"https://i.example/r\0");
}

#[test]
fn other_schemes_may_carry_obs_text() {
    let challenge = challenge_bytes(5);
    let mut header = [0u8; 512];
    let ours = pat::wire::auth::write_www_authenticate_without_key(&challenge, None, &mut header).unwrap().to_owned();
    let mut value = b"Basic realm=\"caf\xe9\", ".to_vec();
    value.extend_from_slice(ours.as_bytes());
    let mut buf = [0u8; PAT_CHALLENGE_BUFFER_SIZE];
    let mut out = core::mem::MaybeUninit::<pat_challenge>::uninit();
    let rc = unsafe {
        pat_www_authenticate_challenge(
            value.as_ptr().cast(),
            value.len(),
            0,
            buf.as_mut_ptr(),
            buf.len(),
            out.as_mut_ptr(),
        )
    };
    let found = unsafe { out.assume_init() };
    assert!(
        rc > 0 && usize::try_from(rc).unwrap() == found.challenge_len,
        "a Latin-1 realm before the PrivateToken challenge"
    );
    assert_eq!(found.token_type, 5);
    // A control byte is still a syntax error.
    let bad = b"Basic realm=\"a\x01\", PrivateToken challenge=\"AAAA\"";
    let rc = unsafe {
        pat_www_authenticate_challenge(bad.as_ptr().cast(), bad.len(), 0, buf.as_mut_ptr(), buf.len(), out.as_mut_ptr())
    };
    assert_eq!(rc, Error::MalformedHeader.code());
}
