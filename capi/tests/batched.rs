//! Generic batches through the C API, called as C calls it: pat-go's two
//! batched vector files and the `privacypass` crate's generic file byte for
//! byte (`pat_generic_batch_request_with`, `pat_generic_batch_finalize`),
//! a mixed batch of every type against the library's issuer with an absent
//! entry, and the ways a call can be wrong (counts out of range, a bad
//! entries array, short buffers, another type, another key, entries in
//! another order, a forged or short response, randomness of another length,
//! an output over an entry's buffer).
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

use std::ptr;

use pat::crypto::blind_rsa::SecretKey;
use pat::tokens::batched::{GenericBatchTokenRequest, Issuer};
use pat::tokens::private;
use pat::tokens::public::{self, PublicToken};
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field, TokenChallenge};
use pat_capi::batched::{pat_batch_entry, pat_generic_batch_finalize, pat_generic_batch_request};
use pat_capi::hazmat::pat_generic_batch_request_with;
use pat_capi::sizes::*;
use pat_capi::status::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

fn load(path: &str) -> Vec<Value> {
    let path = format!("{}/../tests/vectors/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap().as_array().unwrap().clone()
}

/// A hex field, under either of the two spellings the files use.
fn field(v: &Value, keys: &[&str]) -> Vec<u8> {
    keys.iter().find_map(|k| v[*k].as_str()).map(hex).unwrap_or_else(|| panic!("no {keys:?} in {v}"))
}

fn entries(list: &[(Vec<u8>, Vec<u8>)]) -> Vec<pat_batch_entry> {
    list.iter()
        .map(|(c, k)| pat_batch_entry {
            challenge: c.as_ptr(),
            challenge_len: c.len(),
            token_key: k.as_ptr(),
            token_key_len: k.len(),
        })
        .collect()
}

/// What a request call gives: its return value, the request and the state.
struct Made {
    rc: i32,
    request: Vec<u8>,
    state: Vec<u8>,
}

fn request_with(list: &[pat_batch_entry], randomness: &[u8]) -> Made {
    let mut request = vec![0xA5u8; PAT_GENERIC_BATCH_REQUEST_MAX_LEN];
    let mut state = vec![0xA5u8; PAT_GENERIC_BATCH_STATE_LEN];
    let rc = unsafe {
        pat_generic_batch_request_with(
            list.as_ptr(),
            list.len(),
            randomness.as_ptr(),
            randomness.len(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    Made { rc, request, state }
}

fn request(list: &[pat_batch_entry], seed: u64) -> Made {
    let mut rng = pat_testkit::TestRng::new(seed);
    let mut request = vec![0xA5u8; PAT_GENERIC_BATCH_REQUEST_MAX_LEN];
    let mut state = vec![0xA5u8; PAT_GENERIC_BATCH_STATE_LEN];
    let rc = unsafe {
        pat_generic_batch_request(
            list.as_ptr(),
            list.len(),
            Some(test_rng),
            (&raw mut rng).cast(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    Made { rc, request, state }
}

/// What a finalize gives: its return value, the tokens and their lengths.
struct Finalized {
    rc: i32,
    tokens: Vec<u8>,
    lens: Vec<usize>,
}

fn finalize(list: &[pat_batch_entry], state: &mut [u8], response: &[u8], tokens_cap: usize) -> Finalized {
    let mut tokens = vec![0xA5u8; tokens_cap];
    let mut lens = vec![usize::MAX; list.len()];
    let rc = unsafe {
        pat_generic_batch_finalize(
            list.as_ptr(),
            list.len(),
            state.as_mut_ptr(),
            state.len(),
            response.as_ptr(),
            response.len(),
            tokens.as_mut_ptr(),
            tokens.len(),
            lens.as_mut_ptr(),
        )
    };
    Finalized { rc, tokens, lens }
}

/// Each vector file's cases through the C API: the request byte for byte
/// from the given randomness, then the tokens from the given response.
fn run_file(path: &str) -> usize {
    let cases = load(path);
    assert!(!cases.is_empty(), "{path}");
    for (n, case) in cases.iter().enumerate() {
        let issuance = case["issuance"].as_array().unwrap();
        let pairs: Vec<(Vec<u8>, Vec<u8>)> =
            issuance.iter().map(|e| (field(e, &["token_challenge"]), field(e, &["pkS", "pk_s"]))).collect();
        let mut randomness = Vec::new();
        for e in issuance {
            randomness.extend(field(e, &["nonce"]));
            if e["salt"].as_str().is_some() {
                randomness.extend(field(e, &["salt"]));
            }
            randomness.extend(field(e, &["blind"]));
        }
        let list = entries(&pairs);
        let mut made = request_with(&list, &randomness);
        let expected = field(case, &["token_request"]);
        assert_eq!(made.rc, expected.len() as i32, "{path} case {n}");
        assert_eq!(&made.request[..expected.len()], expected, "{path} case {n}");
        assert!(made.request[expected.len()..].iter().all(|&b| b == 0), "{path} case {n}: the rest is zeroed");

        let response = field(case, &["token_response"]);
        let out = finalize(&list, &mut made.state, &response, PAT_GENERIC_BATCH_TOKENS_MAX_LEN);
        let mut at = 0;
        for (i, e) in issuance.iter().enumerate() {
            let token = field(e, &["token"]);
            assert_eq!(out.lens[i], token.len(), "{path} case {n} entry {i}");
            assert_eq!(&out.tokens[at..at + token.len()], token, "{path} case {n} entry {i}");
            at += token.len();
        }
        assert_eq!(out.rc, at as i32, "{path} case {n}");
        assert!(made.state.iter().all(|&b| b == 0), "{path} case {n}: the state is wiped");
    }
    cases.len()
}

#[test]
fn published_vectors_byte_for_byte() {
    let counted = [
        run_file("pat-go/tokens/batched/batched-issuance-test-vectors.json"),
        run_file("pat-go/tokens/batched/batched-issuance-test-vectors.rust.json"),
        run_file("privacypass-rs/generic_rs.json"),
    ];
    assert_eq!(counted, [5, 2, 3]);
}

struct Keys {
    p384: [private::Issuer<PrivateP384>; 2],
    rsa: public::Issuer,
    r255: private::Issuer<PrivateRistretto255>,
}

fn keys() -> Keys {
    let case = &load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0];
    let pem = field(case, &["skS"]);
    Keys {
        p384: [
            private::Issuer::derive(b"capi batch key a", b"").unwrap(),
            private::Issuer::derive(b"capi batch key b", b"").unwrap(),
        ],
        rsa: public::Issuer::new(SecretKey::from_pkcs8_pem(std::str::from_utf8(&pem).unwrap()).unwrap()),
        r255: private::Issuer::derive(b"capi batch key c", b"").unwrap(),
    }
}

fn challenge(code: u16) -> Vec<u8> {
    let c = TokenChallenge::new(code, b"issuer.example", &[7; 32], b"origin.example").unwrap();
    let mut out = vec![0u8; 200];
    let n = pat::wire::codec::Encode::encode(&c, &mut out).unwrap();
    out.truncate(n);
    out
}

/// Types 1, 2, 5, 1 (the second P-384 key) and 1 again (the first key
/// repeated): the entries of the round-trip tests.
fn mixed(k: &Keys) -> Vec<(Vec<u8>, Vec<u8>)> {
    vec![
        (challenge(1), k.p384[0].token_key().as_ref().to_vec()),
        (challenge(2), k.rsa.token_key().to_vec()),
        (challenge(5), k.r255.token_key().as_ref().to_vec()),
        (challenge(1), k.p384[1].token_key().as_ref().to_vec()),
        (challenge(1), k.p384[0].token_key().as_ref().to_vec()),
    ]
}

fn evaluate(issuer: &Issuer<'_>, request: &[u8]) -> Vec<u8> {
    let parsed = GenericBatchTokenRequest::decode(request).unwrap();
    let mut out = vec![0u8; parsed.max_response_len()];
    let outcome = issuer.evaluate::<8, _>(&parsed, &mut out, &mut pat_testkit::TestRng::new(9)).unwrap();
    out.truncate(outcome.len);
    out
}

#[test]
fn mixed_batch_round_trip_with_an_absent_entry() {
    let k = keys();
    let pairs = mixed(&k);
    let list = entries(&pairs);
    let mut made = request(&list, 1);
    // 52 + 259 + 35 + 52 + 52 = 450 bytes behind a two-byte varint.
    assert_eq!(made.rc, 452);
    let request = made.request[..452].to_vec();

    // The issuer lacks the second P-384 key: entry 3 is absent.
    let issuer = Issuer::new(&k.p384[..1], core::slice::from_ref(&k.rsa), core::slice::from_ref(&k.r255)).unwrap();
    let response = evaluate(&issuer, &request);

    // A buffer one byte short of every entry's token is refused before any
    // work, the state kept.
    let all = 3 * PAT_TYPE1_TOKEN_LEN + PAT_TYPE2_TOKEN_LEN + PAT_TYPE5_TOKEN_LEN;
    let kept = made.state.clone();
    let short = finalize(&list, &mut made.state, &response, all - 1);
    assert_eq!(short.rc, Error::BufferTooSmall.code());
    assert!(short.tokens.iter().all(|&b| b == 0) && short.lens.iter().all(|&n| n == 0));
    assert_eq!(made.state, kept);

    let out = finalize(&list, &mut made.state, &response, all);
    let lens = [PAT_TYPE1_TOKEN_LEN, PAT_TYPE2_TOKEN_LEN, PAT_TYPE5_TOKEN_LEN, 0, PAT_TYPE1_TOKEN_LEN];
    assert_eq!(out.lens, lens);
    assert_eq!(out.rc, lens.iter().sum::<usize>() as i32);
    assert!(made.state.iter().all(|&b| b == 0));
    assert!(out.tokens[out.rc as usize..].iter().all(|&b| b == 0));

    // Each token verifies with its own issuer and challenge.
    let mut at = 0;
    let mut next = |n: usize| {
        let t = out.tokens[at..at + n].to_vec();
        at += n;
        t
    };
    let c1 = TokenChallenge::decode(&pairs[0].0).unwrap();
    let t = next(PAT_TYPE1_TOKEN_LEN);
    k.p384[0].verify(&private::Token::<PrivateP384>::decode(&t).unwrap(), &c1).unwrap();
    let t = next(PAT_TYPE2_TOKEN_LEN);
    public::Origin::new(k.rsa.public_key().clone())
        .verify(&PublicToken::decode(&t).unwrap(), &TokenChallenge::decode(&pairs[1].0).unwrap())
        .unwrap();
    let t = next(PAT_TYPE5_TOKEN_LEN);
    k.r255
        .verify(
            &private::Token::<PrivateRistretto255>::decode(&t).unwrap(),
            &TokenChallenge::decode(&pairs[2].0).unwrap(),
        )
        .unwrap();
    let t = next(PAT_TYPE1_TOKEN_LEN);
    k.p384[0].verify(&private::Token::<PrivateP384>::decode(&t).unwrap(), &c1).unwrap();

    // The wiped state finalizes nothing.
    let again = finalize(&list, &mut made.state, &response, all);
    assert_eq!(again.rc, Error::UnknownStateVersion(0).code());
}

#[test]
fn finalize_refusals_keep_the_state() {
    let k = keys();
    let pairs = mixed(&k);
    let list = entries(&pairs);
    let mut made = request(&list, 2);
    let request = made.request[..made.rc as usize].to_vec();
    let issuer = Issuer::new(&k.p384, core::slice::from_ref(&k.rsa), core::slice::from_ref(&k.r255)).unwrap();
    let response = evaluate(&issuer, &request);
    let kept = made.state.clone();
    let cap = PAT_GENERIC_BATCH_TOKENS_MAX_LEN;
    let refused = |list: &[pat_batch_entry], state: &mut Vec<u8>, response: &[u8], code: i32| {
        let out = finalize(list, state, response, cap);
        assert_eq!(out.rc, code);
        assert!(out.tokens.iter().all(|&b| b == 0) && out.lens.iter().all(|&n| n == 0));
        assert_eq!(*state, kept);
    };
    // Fewer entries than the batch.
    refused(&list[..4], &mut made.state, &response, Error::InvalidLength(Field::Batch).code());
    // Entries in another order: the second is of type 1 where the batch has 2.
    let swapped = [list[0], list[3], list[2], list[1], list[4]];
    refused(&swapped, &mut made.state, &response, Error::WrongTokenType { expected: 2, found: 1 }.code());
    let retyped_pairs = [&pairs[0], &pairs[2], &pairs[1], &pairs[3], &pairs[4]].map(Clone::clone);
    refused(
        &entries(&retyped_pairs),
        &mut made.state,
        &response,
        Error::WrongTokenType { expected: 2, found: 5 }.code(),
    );
    // A key that is not the entry's: the first P-384 key in place of the
    // second, whose entry's state then has no client.
    let mut rekeyed = pairs.clone();
    rekeyed[3].1 = pairs[0].1.clone();
    refused(&entries(&rekeyed), &mut made.state, &response, Error::KeyIdMismatch.code());
    // A response with one entry fewer: drop the last (type 1, 3 + 145 bytes).
    let body = &response[2..response.len() - 148];
    let mut short = vec![0x40 | (body.len() >> 8) as u8, body.len() as u8];
    short.extend_from_slice(body);
    refused(&list, &mut made.state, &short, Error::InvalidLength(Field::Batch).code());
    // A trailing byte, a truncated response.
    let mut trailing = response.clone();
    trailing.push(0);
    refused(&list, &mut made.state, &trailing, Error::TrailingBytes.code());
    refused(&list, &mut made.state, &response[..response.len() - 1], Error::Truncated.code());
    // A forged RSA signature (entry 1, after 2 + 3 + 145 bytes and its 3-byte header).
    let mut forged = response.clone();
    forged[2 + 148 + 3 + 10] ^= 1;
    refused(&list, &mut made.state, &forged, Error::Verification.code());
    // Two entries of one type with their keys swapped: each position's key
    // must be the request's.
    let rekeyed = [list[3], list[1], list[2], list[0], list[4]];
    refused(&rekeyed, &mut made.state, &response, Error::KeyIdMismatch.code());
    // A token-length array not aligned for size_t: refused, and not written.
    let mut lens_bytes = vec![0xA5u8; PAT_BATCH_MAX * size_of::<usize>() + 1];
    let mut tokens = vec![0xA5u8; cap];
    let rc = unsafe {
        pat_generic_batch_finalize(
            list.as_ptr(),
            list.len(),
            made.state.as_mut_ptr(),
            made.state.len(),
            response.as_ptr(),
            response.len(),
            tokens.as_mut_ptr(),
            tokens.len(),
            lens_bytes.as_mut_ptr().add(usize::from(lens_bytes.as_ptr().align_offset(8) == 0)).cast(),
        )
    };
    assert_eq!(rc, -PAT_E_MISALIGNED);
    assert!(lens_bytes.iter().all(|&b| b == 0xA5), "the misaligned array is not written");
    assert!(tokens.iter().all(|&b| b == 0), "the other outputs are zeroed");
    assert_eq!(made.state, kept);
    // A state one byte short.
    let mut short_state = kept[..kept.len() - 1].to_vec();
    let out = finalize(&list, &mut short_state, &response, cap);
    assert_eq!(out.rc, Error::InvalidLength(Field::State).code());
    // After all of these, the genuine response still finalizes.
    let out = finalize(&list, &mut made.state, &response, cap);
    assert_eq!(out.rc, (3 * PAT_TYPE1_TOKEN_LEN + PAT_TYPE2_TOKEN_LEN + PAT_TYPE5_TOKEN_LEN) as i32);
}

#[test]
fn request_refusals() {
    let k = keys();
    let pairs = mixed(&k);
    let list = entries(&pairs);
    let zeroed = |m: &Made| m.request.iter().all(|&b| b == 0) && m.state.iter().all(|&b| b == 0);
    let untouched = |m: &Made| m.request.iter().all(|&b| b == 0xA5) && m.state.iter().all(|&b| b == 0xA5);

    // No entry.
    let m = request(&list[..0], 1);
    assert_eq!(m.rc, Error::InvalidLength(Field::Batch).code());
    assert!(zeroed(&m));
    // More than PAT_BATCH_MAX: refused before anything is read or written.
    let nine: Vec<_> = (0..9).map(|i| list[i % 5]).collect();
    let m = request(&nine, 1);
    assert_eq!(m.rc, Error::CapacityExceeded.code());
    assert!(untouched(&m));
    // Exactly PAT_BATCH_MAX entries are fine.
    let eight: Vec<_> = (0..8).map(|i| list[i % 5]).collect();
    assert!(request(&eight, 1).rc > 0);
    // A type a generic batch does not carry.
    let mut other = pairs.clone();
    other[2].0 = challenge(3);
    let m = request(&entries(&other), 1);
    assert_eq!(m.rc, Error::UnknownTokenType(3).code());
    assert!(zeroed(&m));
    // A key of another type's length, a challenge with a trailing byte.
    let mut bad = pairs.clone();
    bad[0].1 = pairs[2].1.clone();
    assert_eq!(request(&entries(&bad), 1).rc, Error::InvalidLength(Field::Key).code());
    let mut bad = pairs.clone();
    bad[1].0.push(0);
    assert_eq!(request(&entries(&bad), 1).rc, Error::TrailingBytes.code());

    // A NULL or misaligned entries array.
    let mut rng = pat_testkit::TestRng::new(1);
    let mut req = vec![0xA5u8; PAT_GENERIC_BATCH_REQUEST_MAX_LEN];
    let mut state = vec![0xA5u8; PAT_GENERIC_BATCH_STATE_LEN];
    let call = |entries: *const pat_batch_entry,
                count: usize,
                req: &mut [u8],
                state: &mut [u8],
                rng: &mut pat_testkit::TestRng| unsafe {
        pat_generic_batch_request(
            entries,
            count,
            Some(test_rng),
            (rng as *mut pat_testkit::TestRng).cast(),
            req.as_mut_ptr(),
            req.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(call(ptr::null(), 1, &mut req, &mut state, &mut rng), -PAT_E_NULL_POINTER);
    let words = vec![0u64; size_of::<pat_batch_entry>()];
    let misaligned = unsafe { words.as_ptr().cast::<u8>().add(1) }.cast::<pat_batch_entry>();
    assert_eq!(call(misaligned, 1, &mut req, &mut state, &mut rng), -PAT_E_MISALIGNED);
    assert!(req.iter().all(|&b| b == 0xA5) && state.iter().all(|&b| b == 0xA5));

    // A request buffer one byte short, a state buffer one byte short.
    let mut small = vec![0xA5u8; 451];
    assert_eq!(call(list.as_ptr(), 5, &mut small, &mut state, &mut rng), Error::BufferTooSmall.code());
    assert!(small.iter().all(|&b| b == 0));
    assert_eq!(
        call(list.as_ptr(), 5, &mut req, &mut state[..PAT_GENERIC_BATCH_STATE_LEN - 1], &mut rng),
        Error::BufferTooSmall.code()
    );

    // An output over an entry's challenge: refused, and the challenge kept.
    let mut shared = pairs[0].0.clone();
    shared.resize(PAT_GENERIC_BATCH_REQUEST_MAX_LEN, 0);
    let mut over = list.clone();
    over[0].challenge = shared.as_ptr();
    let before = shared.clone();
    let rc = unsafe {
        pat_generic_batch_request(
            over.as_ptr(),
            5,
            Some(test_rng),
            (&raw mut rng).cast(),
            shared.as_mut_ptr(),
            shared.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, -PAT_E_OVERLAP);
    assert_eq!(shared, before);
}

#[test]
fn known_answer_randomness_must_fit_exactly() {
    let case = &load("pat-go/tokens/batched/batched-issuance-test-vectors.json")[4];
    let issuance = case["issuance"].as_array().unwrap();
    let pairs: Vec<_> = issuance.iter().map(|e| (field(e, &["token_challenge"]), field(e, &["pkS"]))).collect();
    let list = entries(&pairs);
    let mut randomness = Vec::new();
    for e in issuance {
        randomness.extend(field(e, &["nonce"]));
        if e.get("salt").is_some() {
            randomness.extend(field(e, &["salt"]));
        }
        randomness.extend(field(e, &["blind"]));
    }
    assert!(request_with(&list, &randomness).rc > 0);
    let m = request_with(&list, &randomness[..randomness.len() - 1]);
    assert_eq!(m.rc, Error::InvalidLength(Field::Message).code());
    assert!(m.request.iter().all(|&b| b == 0) && m.state.iter().all(|&b| b == 0));
    let mut longer = randomness.clone();
    longer.push(0);
    assert_eq!(request_with(&list, &longer).rc, Error::InvalidLength(Field::Message).code());
}

#[test]
fn a_full_batch_of_eight_finalizes() {
    let k = keys();
    let mut pairs = mixed(&k);
    pairs.extend(mixed(&k).into_iter().take(3));
    assert_eq!(pairs.len(), PAT_BATCH_MAX);
    let list = entries(&pairs);
    let mut made = request(&list, 4);
    assert!(made.rc > 0);
    let issuer = Issuer::new(&k.p384, core::slice::from_ref(&k.rsa), core::slice::from_ref(&k.r255)).unwrap();
    let response = evaluate(&issuer, &made.request[..made.rc as usize]);
    let out = finalize(&list, &mut made.state, &response, PAT_GENERIC_BATCH_TOKENS_MAX_LEN);
    let lens = [
        PAT_TYPE1_TOKEN_LEN,
        PAT_TYPE2_TOKEN_LEN,
        PAT_TYPE5_TOKEN_LEN,
        PAT_TYPE1_TOKEN_LEN,
        PAT_TYPE1_TOKEN_LEN,
        PAT_TYPE1_TOKEN_LEN,
        PAT_TYPE2_TOKEN_LEN,
        PAT_TYPE5_TOKEN_LEN,
    ];
    assert_eq!(out.lens, lens);
    assert_eq!(out.rc, lens.iter().sum::<usize>() as i32);
    assert!(made.state.iter().all(|&b| b == 0));
}
