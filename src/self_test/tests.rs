//! The self-tests pass, their constants are the vector files' case 3, and a
//! corrupted byte in any field of a known answer fails the half it belongs to.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

extern crate std;

use std::vec::Vec;

use super::known_answers::{PrivateAnswer, PublicAnswer, TYPE1, TYPE2, TYPE5};
use super::{SelfTestKind, all, check_private, check_public, type1, type2, type5};
use crate::error::Error;
use crate::tokens::private::PrivateTokenType;
use crate::wire::token_type::{PrivateP384, PrivateRistretto255};

#[test]
fn each_self_test_passes() {
    assert_eq!(type1(), Ok(()));
    assert_eq!(type2(), Ok(()));
    assert_eq!(type5(), Ok(()));
    assert_eq!(all(), Ok(()));
}

/// Case 3 of a vector file under `tests/vectors/pat-go/tokens/`.
fn case(file: &str) -> serde_json::Value {
    let path = std::format!("{}/tests/vectors/pat-go/tokens/{file}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let cases: serde_json::Value = serde_json::from_str(&text).unwrap();
    cases[3].clone()
}

/// The hex string field `key` of a case, as bytes.
fn field(case: &serde_json::Value, key: &str) -> Vec<u8> {
    let hex = case[key].as_str().unwrap();
    (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
}

fn private_matches(answer: &PrivateAnswer<'_>, file: &str) {
    let case = case(file);
    assert_eq!(answer.token_key, field(&case, "pkS"));
    assert_eq!(answer.challenge, field(&case, "token_challenge"));
    assert_eq!(answer.nonce[..], field(&case, "nonce"));
    assert_eq!(answer.blind, field(&case, "blind"));
    assert_eq!(answer.request, field(&case, "token_request"));
    assert_eq!(answer.response, field(&case, "token_response"));
    assert_eq!(answer.token, field(&case, "token"));
}

#[test]
fn constants_are_case_3_of_the_vector_files() {
    private_matches(&TYPE1, "private/type1-issuance-test-vectors.json");
    private_matches(&TYPE5, "private/type5-issuance-test-vectors.json");
    let case = case("type2/type2-issuance-test-vectors.json");
    assert_eq!(TYPE2.token_key, field(&case, "pkS"));
    assert_eq!(TYPE2.challenge, field(&case, "token_challenge"));
    assert_eq!(TYPE2.nonce[..], field(&case, "nonce"));
    assert_eq!(TYPE2.salt[..], field(&case, "salt"));
    assert_eq!(TYPE2.blind[..], field(&case, "blind"));
    assert_eq!(TYPE2.request, field(&case, "token_request"));
    assert_eq!(TYPE2.response, field(&case, "token_response"));
    assert_eq!(TYPE2.token, field(&case, "token"));
}

/// `bytes` with bit 0 of byte `at` flipped.
fn flipped<const N: usize>(bytes: &[u8], at: usize) -> [u8; N] {
    let mut out: [u8; N] = bytes.try_into().unwrap();
    out[at] ^= 1;
    out
}

/// The first and the last byte of a field.
fn ends(len: usize) -> [usize; 2] {
    [0, len - 1]
}

/// Flips the first and the last byte of each field of a private answer in
/// turn: the inputs of the request and the expected request fail the
/// request half, the response and the expected token the token half.
fn private_corruptions<
    T: PrivateTokenType,
    const K: usize,
    const S: usize,
    const Q: usize,
    const R: usize,
    const O: usize,
>(
    answer: &PrivateAnswer<'_>,
    request: SelfTestKind,
    token: SelfTestKind,
) {
    let check = |a: &PrivateAnswer<'_>| check_private::<T>(a, request, token);
    assert_eq!(check(answer), Ok(()));
    let request = Err(Error::SelfTest(request));
    let token = Err(Error::SelfTest(token));
    for at in ends(K) {
        let v = flipped::<K>(answer.token_key, at);
        assert_eq!(check(&PrivateAnswer { token_key: &v, ..*answer }), request, "token key, byte {at}");
    }
    for at in ends(answer.challenge.len()) {
        let v = flipped::<21>(answer.challenge, at);
        assert_eq!(check(&PrivateAnswer { challenge: &v, ..*answer }), request, "challenge, byte {at}");
    }
    for at in ends(answer.nonce.len()) {
        let v = flipped::<32>(answer.nonce, at);
        assert_eq!(check(&PrivateAnswer { nonce: &v, ..*answer }), request, "nonce, byte {at}");
    }
    for at in ends(S) {
        let v = flipped::<S>(answer.blind, at);
        assert_eq!(check(&PrivateAnswer { blind: &v, ..*answer }), request, "blind, byte {at}");
    }
    for at in ends(Q) {
        let v = flipped::<Q>(answer.request, at);
        assert_eq!(check(&PrivateAnswer { request: &v, ..*answer }), request, "request, byte {at}");
    }
    for at in ends(R) {
        let v = flipped::<R>(answer.response, at);
        assert_eq!(check(&PrivateAnswer { response: &v, ..*answer }), token, "response, byte {at}");
    }
    for at in ends(O) {
        let v = flipped::<O>(answer.token, at);
        assert_eq!(check(&PrivateAnswer { token: &v, ..*answer }), token, "token, byte {at}");
    }
}

#[test]
fn a_corrupted_type5_answer_fails() {
    private_corruptions::<PrivateRistretto255, 32, 32, 35, 96, 162>(
        &TYPE5,
        SelfTestKind::PrivateRistretto255Request,
        SelfTestKind::PrivateRistretto255Token,
    );
}

#[test]
fn a_corrupted_type1_answer_fails() {
    private_corruptions::<PrivateP384, 49, 48, 52, 145, 146>(
        &TYPE1,
        SelfTestKind::PrivateP384Request,
        SelfTestKind::PrivateP384Token,
    );
}

#[test]
fn a_corrupted_type2_answer_fails() {
    let answer = &TYPE2;
    assert_eq!(check_public(answer), Ok(()));
    let request = Err(Error::SelfTest(SelfTestKind::PublicRsa2048Request));
    let token = Err(Error::SelfTest(SelfTestKind::PublicRsa2048Token));
    for at in ends(342) {
        let v = flipped::<342>(answer.token_key, at);
        assert_eq!(check_public(&PublicAnswer { token_key: &v, ..*answer }), request, "token key, byte {at}");
    }
    for at in ends(21) {
        let v = flipped::<21>(answer.challenge, at);
        assert_eq!(check_public(&PublicAnswer { challenge: &v, ..*answer }), request, "challenge, byte {at}");
    }
    for at in ends(32) {
        let v = flipped::<32>(answer.nonce, at);
        assert_eq!(check_public(&PublicAnswer { nonce: &v, ..*answer }), request, "nonce, byte {at}");
    }
    for at in ends(48) {
        let v = flipped::<48>(answer.salt, at);
        assert_eq!(check_public(&PublicAnswer { salt: &v, ..*answer }), request, "salt, byte {at}");
    }
    for at in ends(256) {
        let v = flipped::<256>(answer.blind, at);
        assert_eq!(check_public(&PublicAnswer { blind: &v, ..*answer }), request, "blind, byte {at}");
    }
    for at in ends(259) {
        let v = flipped::<259>(answer.request, at);
        assert_eq!(check_public(&PublicAnswer { request: &v, ..*answer }), request, "request, byte {at}");
    }
    for at in ends(256) {
        let v = flipped::<256>(answer.response, at);
        assert_eq!(check_public(&PublicAnswer { response: &v, ..*answer }), token, "response, byte {at}");
    }
    for at in ends(354) {
        let v = flipped::<354>(answer.token, at);
        assert_eq!(check_public(&PublicAnswer { token: &v, ..*answer }), token, "token, byte {at}");
    }
}

#[test]
fn a_failure_names_its_type_and_half() {
    let e = Error::SelfTest(SelfTestKind::PrivateRistretto255Token);
    assert_eq!(std::format!("{e}"), "self-test failed: type 0x0005 token");
}
