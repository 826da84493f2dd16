//! The origin's side through the C API, called as C calls it: the tokens of
//! pat-go's two type-2 files and privacypass-ts's 0xDA7A case verify
//! (`pat_type2_verify`, `pat_typeda7a_verify`) and every altered one is
//! refused with its code; a whole type-2 exchange in which C writes the
//! challenge and `WWW-Authenticate`, a C client answers it, and C reads the
//! `Authorization` back; and the refusals of the writers and readers.
//! (Type 0x0003's `pat_type3_verify` runs in `api.rs`, after the C client
//! made its token through the library's attester and issuer.)
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::cast_sign_loss,
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

use std::ptr;

use pat::crypto::blind_rsa::SecretKey;
use pat::tokens::public;
use pat::wire::codec::{Decode, Encode};
use pat::{Error, Field, TokenChallenge};
use pat_capi::http::{
    pat_authorization, pat_authorization_with_extensions, pat_challenge, pat_www_authenticate_challenge,
};
use pat_capi::origin::*;
use pat_capi::public::{pat_type2_finalize, pat_type2_request};
use pat_capi::sizes::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

fn load(path: &str) -> Vec<Value> {
    let path = format!("{}/../tests/vectors/{path}", env!("CARGO_MANIFEST_DIR"));
    serde_json::from_str::<Value>(&std::fs::read_to_string(path).unwrap()).unwrap().as_array().unwrap().clone()
}

fn field(v: &Value, key: &str) -> Vec<u8> {
    hex(v[key].as_str().unwrap())
}

fn verify2(key: &[u8], challenge: &[u8], token: &[u8]) -> i32 {
    unsafe {
        pat_type2_verify(key.as_ptr(), key.len(), challenge.as_ptr(), challenge.len(), token.as_ptr(), token.len())
    }
}

fn verify_da7a(key: &[u8], challenge: &[u8], token: &[u8], extensions: &[u8]) -> i32 {
    unsafe {
        pat_typeda7a_verify(
            key.as_ptr(),
            key.len(),
            challenge.as_ptr(),
            challenge.len(),
            token.as_ptr(),
            token.len(),
            extensions.as_ptr(),
            extensions.len(),
        )
    }
}

#[test]
fn type2_vector_tokens_verify_and_altered_ones_do_not() {
    let mut verified = 0;
    for file in ["type2-issuance-test-vectors.json", "type2-issuance-test-vectors.rust.json"] {
        for case in load(&format!("pat-go/tokens/type2/{file}")) {
            let (key, challenge, token) = (field(&case, "pkS"), field(&case, "token_challenge"), field(&case, "token"));
            assert_eq!(verify2(&key, &challenge, &token), 0, "{file}");
            verified += 1;
            let mut forged = token.clone();
            forged[PAT_TYPE2_TOKEN_LEN - 1] ^= 1;
            assert_eq!(verify2(&key, &challenge, &forged), Error::Verification.code());
            // The nonce is signed too.
            let mut renonced = token.clone();
            renonced[2] ^= 1;
            assert_eq!(verify2(&key, &challenge, &renonced), Error::Verification.code());
            let mut longer = token.clone();
            longer.push(0);
            assert_eq!(verify2(&key, &challenge, &longer), Error::TrailingBytes.code());
            assert_eq!(verify2(&key, &challenge, &token[..token.len() - 1]), Error::Truncated.code());
            // Another challenge (another redemption context), another issuer.
            let parsed = TokenChallenge::decode(&challenge).unwrap();
            let other = TokenChallenge::new(2, parsed.issuer_name(), &[9; 32], parsed.origin_info()).unwrap();
            let mut other_bytes = vec![0u8; other.encoded_len()];
            other.encode(&mut other_bytes).unwrap();
            assert_eq!(verify2(&key, &other_bytes, &token), Error::ChallengeMismatch.code());
            let stranger = field(&load("pat-go/tokens/type2/type2-issuance-test-vectors.rust.json")[0], "pkS");
            if stranger != key {
                assert_eq!(verify2(&stranger, &challenge, &token), Error::KeyIdMismatch.code());
            }
            assert_eq!(verify2(&key[..key.len() - 1], &challenge, &token), Error::Truncated.code());
            let mut other_key = key.clone();
            other_key[key.len() - 40] ^= 1;
            assert_eq!(verify2(&other_key, &challenge, &token), Error::KeyIdMismatch.code());
        }
    }
    assert_eq!(verified, 10);
}

#[test]
fn da7a_vector_token_verifies_with_its_extensions_only() {
    let cases = load("privacypass-ts/pub_verif_with_metadata_v3.json");
    assert_eq!(cases.len(), 1);
    let case = &cases[0];
    let (key, challenge, token, extensions) =
        (field(case, "pkS"), field(case, "token_challenge"), field(case, "token"), field(case, "extensions"));
    assert_eq!(verify_da7a(&key, &challenge, &token, &extensions), 0);
    let mut forged = token.clone();
    forged[PAT_TYPEDA7A_TOKEN_LEN - 1] ^= 1;
    assert_eq!(verify_da7a(&key, &challenge, &forged, &extensions), Error::Verification.code());
    // The empty list, and the list with its last value byte changed, are other extensions.
    assert_eq!(verify_da7a(&key, &challenge, &token, &[0, 0]), Error::Verification.code());
    let mut altered = extensions.clone();
    *altered.last_mut().unwrap() ^= 1;
    assert_eq!(verify_da7a(&key, &challenge, &token, &altered), Error::Verification.code());
    // Extensions that are not one list.
    assert_eq!(verify_da7a(&key, &challenge, &token, &extensions[..extensions.len() - 1]), Error::Truncated.code());
    // The 0xDA7A token to type 0x0002's check.
    assert_eq!(verify2(&key, &challenge, &token), Error::WrongTokenType { expected: 2, found: 0xDA7A }.code());

    // The Authorization value a C client writes carries both back.
    let mut auth = vec![0u8; 2048];
    let n = unsafe {
        pat_authorization_with_extensions(
            token.as_ptr(),
            token.len(),
            extensions.as_ptr(),
            extensions.len(),
            auth.as_mut_ptr().cast(),
            auth.len(),
        )
    };
    assert!(n > 0);
    let (t, e) = read_authorization(&auth[..n as usize]);
    assert_eq!((t, e), (Ok(token), Ok(extensions)));
}

/// The token and extensions of an `Authorization` value, through C.
fn read_authorization(value: &[u8]) -> (Result<Vec<u8>, i32>, Result<Vec<u8>, i32>) {
    let mut token = vec![0xA5u8; 1024];
    let mut ext = vec![0xA5u8; 1024];
    let rt = unsafe { pat_authorization_token(value.as_ptr().cast(), value.len(), token.as_mut_ptr(), token.len()) };
    let re = unsafe { pat_authorization_extensions(value.as_ptr().cast(), value.len(), ext.as_mut_ptr(), ext.len()) };
    let take = |rc: i32, buf: Vec<u8>| {
        if rc < 0 {
            assert!(buf.iter().all(|&b| b == 0), "a refusal zeroes the output");
            Err(rc)
        } else {
            Ok(buf[..rc as usize].to_vec())
        }
    };
    (take(rt, token), take(re, ext))
}

fn write_challenge(token_type: u16, issuer: &[u8], context: &[u8], origin: &[u8], cap: usize) -> (i32, Vec<u8>) {
    let mut out = vec![0xA5u8; cap];
    let rc = unsafe {
        pat_token_challenge_write(
            token_type,
            issuer.as_ptr(),
            issuer.len(),
            context.as_ptr(),
            context.len(),
            origin.as_ptr(),
            origin.len(),
            out.as_mut_ptr(),
            out.len(),
        )
    };
    (rc, out)
}

fn www_authenticate(challenge: &[u8], key: &[u8], max_age: Option<u32>, cap: usize) -> (i32, Vec<u8>) {
    let mut out = vec![0xA5u8; cap];
    let rc = unsafe {
        pat_www_authenticate(
            challenge.as_ptr(),
            challenge.len(),
            key.as_ptr(),
            key.len(),
            max_age.is_some(),
            max_age.unwrap_or(0),
            out.as_mut_ptr().cast(),
            out.len(),
        )
    };
    (rc, out)
}

#[test]
fn challenge_writer_encodes_rfc9577_and_refuses_bad_fields() {
    // Written by hand: type, issuer_name with its length, the context with
    // its one-byte length, origin_info with its length.
    let context = [0x5Cu8; 32];
    let mut expected = vec![0x00, 0x02, 0x00, 14];
    expected.extend_from_slice(b"issuer.example");
    expected.push(32);
    expected.extend_from_slice(&context);
    expected.extend_from_slice(&[0x00, 14]);
    expected.extend_from_slice(b"origin.example");
    let (rc, out) = write_challenge(2, b"issuer.example", &context, b"origin.example", 200);
    assert_eq!(rc, expected.len() as i32);
    assert_eq!(&out[..expected.len()], expected);
    assert!(out[expected.len()..].iter().all(|&b| b == 0), "the rest of the buffer is zeroed");
    // No context, no origin_info: 2 + 2 + 14 + 1 + 2 bytes.
    let (rc, out) = write_challenge(0xDA7A, b"issuer.example", &[], &[], 21);
    assert_eq!(rc, 21);
    assert_eq!(&out[..2], &[0xDA, 0x7A]);
    assert_eq!(&out[18..21], &[0, 0, 0]);

    for (token_type, issuer, context, origin, code) in [
        (2u16, &b""[..], &context[..], &b"o"[..], Error::InvalidLength(Field::IssuerName).code()),
        (2, b"issuer.example", &context[..31], b"o", Error::InvalidLength(Field::RedemptionContext).code()),
        (2, b"issuer\x01example", &[][..], b"o", Error::InvalidValue(Field::IssuerName).code()),
        (2, b"issuer.example", &[][..], b"a,,b", Error::InvalidValue(Field::OriginInfo).code()),
        (0xE5AC, b"issuer.example", &[][..], b"o", Error::InvalidValue(Field::TokenType).code()),
        (0xE5AD, b"issuer.example", &[][..], b"o", Error::InvalidValue(Field::TokenType).code()),
    ] {
        let (rc, out) = write_challenge(token_type, issuer, context, origin, 200);
        assert_eq!(rc, code, "{token_type:04x} {issuer:?} {origin:?}");
        assert!(out.iter().all(|&b| b == 0));
    }
    let (rc, out) = write_challenge(2, b"issuer.example", &context, b"origin.example", expected.len() - 1);
    assert_eq!(rc, Error::BufferTooSmall.code());
    assert!(out.iter().all(|&b| b == 0));
    // NULL with a length.
    let rc =
        unsafe { pat_token_challenge_write(2, ptr::null(), 3, ptr::null(), 0, ptr::null(), 0, ptr::null_mut(), 0) };
    assert_eq!(rc, -pat_capi::status::PAT_E_NULL_POINTER);
}

#[test]
fn www_authenticate_round_trips_through_the_client_reader() {
    let case = &load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0];
    let (key, challenge) = (field(case, "pkS"), field(case, "token_challenge"));
    for max_age in [None, Some(0), Some(300), Some(u32::MAX)] {
        let size = pat_www_authenticate_size(challenge.len(), key.len(), max_age.is_some(), max_age.unwrap_or(0));
        let (rc, out) = www_authenticate(&challenge, &key, max_age, size as usize);
        assert_eq!(rc, size - 1, "{max_age:?}");
        assert_eq!(out[rc as usize], 0);
        let text = std::str::from_utf8(&out[..rc as usize]).unwrap();
        assert!(text.starts_with("PrivateToken challenge=\""), "{text}");
        assert_eq!(text.contains("max-age="), max_age.is_some());

        // The client's reader finds the same challenge, key and max-age.
        let mut buf = vec![0u8; PAT_CHALLENGE_BUFFER_SIZE];
        let mut parsed = core::mem::MaybeUninit::<pat_challenge>::uninit();
        let n = unsafe {
            pat_www_authenticate_challenge(
                out.as_ptr().cast(),
                rc as usize,
                0,
                buf.as_mut_ptr(),
                buf.len(),
                parsed.as_mut_ptr(),
            )
        };
        assert_eq!(n, challenge.len() as i32);
        let parsed = unsafe { parsed.assume_init() };
        let got = |p: *const u8, n: usize| unsafe { std::slice::from_raw_parts(p, n) }.to_vec();
        assert_eq!(got(parsed.challenge, parsed.challenge_len), challenge);
        assert_eq!(got(parsed.token_key, parsed.token_key_len), key);
        assert_eq!((parsed.has_max_age, parsed.max_age), (max_age.is_some(), max_age.unwrap_or(0)));

        // One byte short of the NUL.
        let (rc, out) = www_authenticate(&challenge, &key, max_age, size as usize - 1);
        assert_eq!(rc, Error::BufferTooSmall.code());
        assert!(out.iter().all(|&b| b == 0));
    }
    let (rc, out) = www_authenticate(&challenge, &[], None, 2048);
    assert_eq!(rc, Error::InvalidLength(Field::TokenKey).code());
    assert!(out.iter().all(|&b| b == 0));
    let (rc, out) = www_authenticate(&challenge[..challenge.len() - 1], &key, None, 2048);
    assert_eq!(rc, Error::Truncated.code());
    assert!(out.iter().all(|&b| b == 0));
    // One value written out here: a short challenge and key, padded base64url.
    let short = [0x00, 0x02, 0x00, 0x01, b'i', 0x00, 0x00, 0x00];
    let (rc, out) = www_authenticate(&short, &[1, 2, 3], Some(7), 128);
    let expected = "PrivateToken challenge=\"AAIAAWkAAAA=\", token-key=\"AQID\", max-age=\"7\"";
    assert_eq!(rc, expected.len() as i32);
    assert_eq!(&out[..rc as usize], expected.as_bytes());
    assert_eq!(pat_www_authenticate_size(short.len(), 3, true, 7), expected.len() as i32 + 1);
    assert_eq!(pat_www_authenticate_size(usize::MAX / 2, 1, false, 0), Error::ValueTooLarge.code());
}

#[test]
fn authorization_reader_refusals() {
    let cases: [(&[u8], i32); 8] = [
        (b"Bearer abc", Error::MalformedHeader.code()),
        (b"PrivateToken", Error::MalformedHeader.code()),
        (b"PrivateToken extensions=\"AAA=\"", Error::MissingParameter(Field::Token).code()),
        (b"PrivateToken token=\"AAEC\", token=\"AAEC\"", Error::DuplicateParameter(Field::Token).code()),
        (
            b"PrivateToken token=\"AAEC\", extensions=\"AAA=\", extensions=\"AAA=\"",
            Error::DuplicateParameter(Field::Extensions).code(),
        ),
        (b"PrivateToken token=\"AA!C\"", Error::InvalidBase64.code()),
        (b"PrivateToken token=\"AAEC\", PrivateToken token=\"AAEC\"", Error::MalformedHeader.code()),
        (b"PrivateToken token=\"\xff\"", Error::MalformedHeader.code()),
    ];
    for (value, code) in cases {
        let (t, _) = read_authorization(value);
        assert_eq!(t, Err(code), "{}", String::from_utf8_lossy(value));
    }
    // Extensions that are not one Extensions list; absent extensions are 0 bytes.
    let (t, e) = read_authorization(b"PrivateToken token=\"AAEC\", extensions=\"AAEC\"");
    assert_eq!(t, Ok(vec![0, 1, 2]));
    // 00 01 02: a list one byte long, too short for an extension's header.
    assert_eq!(e, Err(Error::InvalidLength(Field::Extension).code()));
    let (_, e) = read_authorization(b"PrivateToken token=\"AAEC\"");
    assert_eq!(e, Ok(vec![]));
    // A token buffer one byte short.
    let value = b"PrivateToken token=\"AAECAw==\"";
    let mut small = [0xA5u8; 3];
    let rc = unsafe { pat_authorization_token(value.as_ptr().cast(), value.len(), small.as_mut_ptr(), 3) };
    assert_eq!(rc, Error::BufferTooSmall.code());
    assert_eq!(small, [0; 3]);
}

/// The whole exchange: C writes the challenge and its header, a C client
/// answers with the library's issuer behind it, C reads the token back and
/// verifies it; a replayed token verifies again, which is why the origin
/// keeps the nonces (here a list).
#[test]
fn type2_exchange_in_c() {
    let case = &load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0];
    let pem = field(case, "skS");
    let issuer = public::Issuer::new(SecretKey::from_pkcs8_pem(std::str::from_utf8(&pem).unwrap()).unwrap());
    let key = issuer.token_key();
    let (n, mut challenge) = write_challenge(2, b"issuer.example", &[0x42; 32], b"origin.example", 200);
    challenge.truncate(n as usize);
    let (n, header) = www_authenticate(&challenge, &key, Some(60), 2048);
    assert!(n > 0);

    let mut buf = vec![0u8; PAT_CHALLENGE_BUFFER_SIZE];
    let mut parsed = core::mem::MaybeUninit::<pat_challenge>::uninit();
    let rc = unsafe {
        pat_www_authenticate_challenge(
            header.as_ptr().cast(),
            n as usize,
            0,
            buf.as_mut_ptr(),
            buf.len(),
            parsed.as_mut_ptr(),
        )
    };
    assert!(rc > 0);
    let parsed = unsafe { parsed.assume_init() };
    let mut rng = pat_testkit::TestRng::new(3);
    let mut request = [0u8; PAT_TYPE2_REQUEST_LEN];
    let mut state = [0u8; PAT_TYPE2_STATE_LEN];
    let rc = unsafe {
        pat_type2_request(
            parsed.token_key,
            parsed.token_key_len,
            parsed.challenge,
            parsed.challenge_len,
            Some(test_rng),
            (&raw mut rng).cast(),
            request.as_mut_ptr(),
            request.len(),
            state.as_mut_ptr(),
            state.len(),
        )
    };
    assert_eq!(rc, PAT_TYPE2_REQUEST_LEN as i32);
    let response = issuer.evaluate(&public::TokenRequest::decode(&request).unwrap()).unwrap();
    let mut response_bytes = vec![0u8; PAT_TYPE2_RESPONSE_LEN];
    response.encode(&mut response_bytes).unwrap();
    let mut token = [0u8; PAT_TYPE2_TOKEN_LEN];
    let rc = unsafe {
        pat_type2_finalize(
            key.as_ptr(),
            key.len(),
            state.as_mut_ptr(),
            state.len(),
            response_bytes.as_ptr(),
            response_bytes.len(),
            token.as_mut_ptr(),
            token.len(),
        )
    };
    assert_eq!(rc, PAT_TYPE2_TOKEN_LEN as i32);
    let mut auth = [0u8; PAT_TYPE2_AUTHORIZATION_SIZE];
    let n = unsafe { pat_authorization(token.as_ptr(), token.len(), auth.as_mut_ptr().cast(), auth.len()) };
    assert!(n > 0);

    // The origin: read, verify against the challenge it sent, check the nonce.
    let mut seen: Vec<[u8; 32]> = Vec::new();
    let mut redeem = |value: &[u8]| -> i32 {
        let token = match read_authorization(value).0 {
            Ok(token) => token,
            Err(rc) => return rc,
        };
        let rc = verify2(&key, &challenge, &token);
        if rc != 0 {
            return rc;
        }
        let nonce: [u8; 32] = token[2..34].try_into().unwrap();
        if seen.contains(&nonce) {
            return -1;
        }
        seen.push(nonce);
        0
    };
    assert_eq!(redeem(&auth[..n as usize]), 0);
    assert_eq!(redeem(&auth[..n as usize]), -1, "a replay is the origin's to refuse");
}
