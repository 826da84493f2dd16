//! The size consts and `const fn`s (token types, `Authorization` and
//! `WWW-Authenticate` values, TokenChallenge, amortized and generic batches)
//! against the lengths of real encoded messages: the pat-go vectors, and
//! messages made here with the library's own builders.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::blind_rsa::SecretKey;
use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
use pat::crypto::rate_limited::encap::EncapSecretKey;
use pat::tokens::batched::{self, BatchState, GenericBatchTokenRequest};
use pat::tokens::{amortized, private, public, rate_limited as t3};
use pat::wire::auth::{self, MAX_TOKEN_KEY_LEN, PRACTICAL_WWW_AUTHENTICATE_LEN};
use pat::wire::challenge::{self, MAX_CHALLENGE_LEN, PRACTICAL_CHALLENGE_LEN, PRACTICAL_NAME_LEN};
use pat::wire::codec::Decode;
use pat::wire::token_type::{
    PrivateP384, PrivateRistretto255, PublicRsa2048, RateLimitedRsa2048, TokenKind, TokenType,
};
use pat::{Error, TokenChallenge};
use pat_testkit::TestRng;

mod common;
use common::{encode, field, load};

const TYPE1: &str = "pat-go/tokens/private/type1-issuance-test-vectors.json";
const TYPE2: &str = "pat-go/tokens/type2/type2-issuance-test-vectors.json";
const TYPE5: &str = "pat-go/tokens/private/type5-issuance-test-vectors.json";
const AMORTIZED1: &str = "pat-go/tokens/amortized/type1-issuance-test-vectors.json";
const AMORTIZED5: &str = "pat-go/tokens/amortized/type5-issuance-test-vectors.json";

/// The consts size arrays (this is what they are for) and have the values the
/// docs give.
#[test]
fn consts_size_arrays() {
    let t1 = ([0u8; PrivateP384::REQUEST_MAX_LEN], [0u8; PrivateP384::RESPONSE_MAX_LEN]);
    let t2 = ([0u8; PublicRsa2048::REQUEST_MAX_LEN], [0u8; PublicRsa2048::RESPONSE_MAX_LEN]);
    let t5 = ([0u8; PrivateRistretto255::REQUEST_MAX_LEN], [0u8; PrivateRistretto255::RESPONSE_MAX_LEN]);
    assert_eq!((t1.0.len(), t1.1.len(), t2.0.len(), t2.1.len(), t5.0.len(), t5.1.len()), (52, 145, 259, 256, 35, 96));
    let t3 = [0u8; RateLimitedRsa2048::request_len_for_origin(14)];
    assert_eq!((t3.len(), RateLimitedRsa2048::RESPONSE_MAX_LEN), (520, 288));
    let auth = [0u8; PrivateRistretto255::AUTHORIZATION_LEN];
    assert_eq!(auth.len(), 237);
    let headers =
        [PrivateP384::AUTHORIZATION_LEN, PublicRsa2048::AUTHORIZATION_LEN, RateLimitedRsa2048::AUTHORIZATION_LEN];
    assert_eq!(headers, [217, 493, 493]);
    let amortized = [0u8; amortized::request_len::<PrivateP384>(10)];
    assert_eq!(amortized.len(), 3 + 2 + 490);
    let batch = [0u8; batched::request_max_len(4)];
    assert_eq!(batch.len(), 2 + 4 * 259);
    let www = [0u8; PRACTICAL_WWW_AUTHENTICATE_LEN];
    assert_eq!((www.len(), PRACTICAL_CHALLENGE_LEN, MAX_CHALLENGE_LEN), (1269, 557, 131_109));
    // The runtime view reads the same consts.
    assert_eq!(TokenKind::ALL.len(), 6);
    for (kind, auth) in TokenKind::ALL.into_iter().zip([217, 493, 493, 237, 493, 217]) {
        assert_eq!(kind.authorization_len(), auth);
        assert_eq!(kind.request_max_len(), kind.request_len().max());
        assert_eq!(kind.response_max_len(), kind.response_len().max());
    }
    assert_eq!(RateLimitedRsa2048::REQUEST_MAX_LEN, 65_704);
}

/// `write_authorization` of `token` fills exactly `len` bytes: a buffer of
/// `len` works, one byte less is too small.
fn check_authorization(token: &[u8], len: usize) {
    let mut out = vec![0u8; len + 16];
    let value = auth::write_authorization(token, &mut out).unwrap();
    assert_eq!(value.len(), len);
    assert_eq!(auth::authorization_len(token.len()), len);
    let mut exact = vec![0u8; len];
    assert_eq!(auth::write_authorization(token, &mut exact).unwrap().len(), len);
    let mut short = vec![0u8; len - 1];
    assert_eq!(auth::write_authorization(token, &mut short).err(), Some(Error::BufferTooSmall));
    // And it parses back to the token.
    let param = auth::parse_authorization(core::str::from_utf8(&exact).unwrap()).unwrap();
    let mut decoded = vec![0u8; token.len()];
    assert_eq!(param.decode_base64url(&mut decoded).unwrap(), token);
}

/// Every case of a pat-go issuance vector file has the type's request,
/// response and token lengths, and its token the type's header length.
fn check_vectors<T: TokenType>(path: &str) -> usize {
    let cases = load(path);
    let cases = cases.as_array().unwrap();
    for v in cases {
        assert_eq!(field(v, "token_request").len(), T::REQUEST_MAX_LEN, "{path}");
        assert_eq!(field(v, "token_response").len(), T::RESPONSE_MAX_LEN, "{path}");
        let token = field(v, "token");
        assert_eq!(token.len(), T::TOKEN_LEN, "{path}");
        check_authorization(&token, T::AUTHORIZATION_LEN);
    }
    cases.len()
}

#[test]
fn fixed_types_match_the_vectors() {
    assert_eq!(check_vectors::<PrivateP384>(TYPE1), 5);
    assert_eq!(check_vectors::<PublicRsa2048>(TYPE2), 5);
    assert_eq!(check_vectors::<PrivateRistretto255>(TYPE5), 5);
}

fn rsa_secret_key() -> SecretKey {
    let v = &load(TYPE2)[0];
    SecretKey::from_pkcs8_pem(&String::from_utf8(field(v, "skS")).unwrap()).unwrap()
}

fn rsa_token_key() -> t3::TokenKey {
    let v = &load(TYPE2)[0];
    t3::TokenKey::from_pkcs8_pem(&String::from_utf8(field(v, "skS")).unwrap()).unwrap()
}

/// Fresh messages of types 1, 2 and 5 (a type-2 issuer from the vector key).
#[test]
fn fixed_types_match_fresh_messages() {
    let mut rng = TestRng::new(1);
    let c1 = TokenChallenge::new(1, b"issuer.example", &[], b"origin.example").unwrap();
    let issuer = private::Issuer::<PrivateP384>::generate(&mut rng).unwrap();
    let (req, mut state) = issuer.client().request(&c1, &mut rng).unwrap();
    let resp = issuer.evaluate(&req, &mut rng).unwrap();
    assert_eq!(encode(&req).len(), PrivateP384::REQUEST_MAX_LEN);
    assert_eq!(encode(&resp).len(), PrivateP384::RESPONSE_MAX_LEN);
    let token = encode(&issuer.client().finalize(&mut state, &resp).unwrap());
    assert_eq!(token.len(), PrivateP384::TOKEN_LEN);
    check_authorization(&token, PrivateP384::AUTHORIZATION_LEN);

    let c5 = TokenChallenge::new(5, b"issuer.example", &[], b"origin.example").unwrap();
    let issuer = private::Issuer::<PrivateRistretto255>::generate(&mut rng).unwrap();
    let (req, mut state) = issuer.client().request(&c5, &mut rng).unwrap();
    let resp = issuer.evaluate(&req, &mut rng).unwrap();
    assert_eq!(encode(&req).len(), PrivateRistretto255::REQUEST_MAX_LEN);
    assert_eq!(encode(&resp).len(), PrivateRistretto255::RESPONSE_MAX_LEN);
    let token = encode(&issuer.client().finalize(&mut state, &resp).unwrap());
    assert_eq!(token.len(), PrivateRistretto255::TOKEN_LEN);
    check_authorization(&token, PrivateRistretto255::AUTHORIZATION_LEN);

    let c2 = TokenChallenge::new(2, b"issuer.example", &[], b"origin.example").unwrap();
    let issuer = public::Issuer::new(rsa_secret_key());
    let client = public::Client::from_token_key(&issuer.token_key()).unwrap();
    let (req, mut state) = client.request(&c2, &mut rng).unwrap();
    let resp = issuer.evaluate(&req).unwrap();
    assert_eq!(encode(&req).len(), PublicRsa2048::REQUEST_MAX_LEN);
    assert_eq!(encode(&resp).len(), PublicRsa2048::RESPONSE_MAX_LEN);
    let token = encode(&client.finalize(&mut state, &resp).unwrap());
    assert_eq!(token.len(), PublicRsa2048::TOKEN_LEN);
    check_authorization(&token, PublicRsa2048::AUTHORIZATION_LEN);
    // pat writes RFC 9578's 342 bytes; the bound also holds OpenSSL's
    // spelling with two NULL hash parameters.
    assert_eq!(issuer.token_key().len() + 4, MAX_TOKEN_KEY_LEN);
}

/// Type 0x0003: the request length for origin names of many lengths, from
/// the client's own output; the response, token and header of a full flow.
#[test]
fn rate_limited_sizes_match_fresh_messages() {
    let mut rng = TestRng::new(3);
    let long = [b'o'; 300];
    let names: [&[u8]; 8] =
        [b"o", b"origin.example", &long[..31], &long[..32], &long[..33], &long[..64], &long[..65], &long];
    let origins = names.map(|name| t3::OriginKey::new(name, ecdsa::SecretKey::random(&mut rng).unwrap()));
    let issuer = t3::Issuer::new(EncapSecretKey::derive(1, &[7; 32]), rsa_token_key(), origins);
    let client =
        t3::Client::new(ecdsa::SecretKey::random(&mut rng).unwrap(), *issuer.encap_key(), issuer.public_key().clone());
    let challenge = TokenChallenge::new(3, b"issuer.example", &[], b"origin.example").unwrap();
    let mut lens = Vec::new();
    for name in names {
        let expected = RateLimitedRsa2048::request_len_for_origin(name.len());
        assert_eq!(t3::request_len(name.len()), Ok(expected));
        assert!(RateLimitedRsa2048::REQUEST_LEN.admits(expected));
        // A buffer of exactly that length takes the request; one byte less does not.
        let mut out = vec![0u8; expected];
        let (len, mut state) = client.request(&challenge, name, &mut rng, &mut out).unwrap();
        assert_eq!(len, expected);
        let mut short = vec![0u8; expected - 1];
        assert_eq!(client.request(&challenge, name, &mut rng, &mut short).err(), Some(Error::BufferTooSmall));
        lens.push(len);

        let request = t3::TokenRequest::decode(&out).unwrap();
        let mut scratch = vec![0u8; t3::scratch_len(&request)];
        let response = issuer.evaluate(&request, &mut scratch, &mut rng).unwrap();
        assert_eq!(response.encrypted_token_response.len(), RateLimitedRsa2048::RESPONSE_MAX_LEN);
        let token = encode(&client.finalize(&mut state, &response.encrypted_token_response).unwrap());
        assert_eq!(token.len(), RateLimitedRsa2048::TOKEN_LEN);
        check_authorization(&token, RateLimitedRsa2048::AUTHORIZATION_LEN);
    }
    assert_eq!(lens, [520, 520, 520, 520, 552, 552, 584, 808]);
    // The largest name a request carries gives the largest request; longer
    // names saturate there.
    let max = t3::MAX_ORIGIN_NAME_LEN;
    assert_eq!(RateLimitedRsa2048::request_len_for_origin(max), RateLimitedRsa2048::REQUEST_MAX_LEN);
    assert_eq!(t3::request_len(max), Ok(RateLimitedRsa2048::REQUEST_MAX_LEN));
    assert_eq!(RateLimitedRsa2048::request_len_for_origin(max + 1), RateLimitedRsa2048::REQUEST_MAX_LEN);
    assert_eq!(RateLimitedRsa2048::request_len_for_origin(usize::MAX), RateLimitedRsa2048::REQUEST_MAX_LEN);
    let name = vec![b'n'; max];
    let mut out = vec![0u8; RateLimitedRsa2048::REQUEST_MAX_LEN];
    let (len, _) = client.request(&challenge, &name, &mut rng, &mut out).unwrap();
    assert_eq!(len, RateLimitedRsa2048::REQUEST_MAX_LEN);
}

/// Amortized batches: the pat-go vectors and fresh batches of several sizes.
#[test]
fn amortized_sizes() {
    let mut cases = 0;
    for (path, ne) in [(AMORTIZED1, 49), (AMORTIZED5, 32)] {
        for v in load(path).as_array().unwrap() {
            let n = v["nonces"].as_array().unwrap().len();
            let (request, response) = (field(v, "token_request").len(), field(v, "token_response").len());
            if ne == 49 {
                assert_eq!(request, amortized::request_len::<PrivateP384>(n));
                assert_eq!(response, amortized::response_len::<PrivateP384>(n));
            } else {
                assert_eq!(request, amortized::request_len::<PrivateRistretto255>(n));
                assert_eq!(response, amortized::response_len::<PrivateRistretto255>(n));
            }
            cases += 1;
        }
    }
    assert_eq!(cases, 10);

    let mut rng = TestRng::new(4);
    let challenge = TokenChallenge::new(5, b"issuer.example", &[], &[]).unwrap();
    let issuer = private::Issuer::<PrivateRistretto255>::generate(&mut rng).unwrap();
    // 1 and 2 elements have a 1-byte varint, 3 a 2-byte one (96 > 63).
    for n in [1, 2, 3, 40] {
        let state = issuer.client().request_batch::<40, _>(&challenge, n, &mut rng).unwrap();
        let request = encode(&state.request());
        assert_eq!(request.len(), amortized::request_len::<PrivateRistretto255>(n));
        let parsed = amortized::AmortizedTokenRequest::<PrivateRistretto255>::decode(&request).unwrap();
        let mut out = vec![0u8; amortized::response_len::<PrivateRistretto255>(n)];
        let len = issuer.evaluate_batch::<40, _>(&parsed, &mut out, &mut rng).unwrap();
        assert_eq!(len, out.len());
        let mut short = vec![0u8; out.len() - 1];
        assert_eq!(issuer.evaluate_batch::<40, _>(&parsed, &mut short, &mut rng).err(), Some(Error::BufferTooSmall));
    }
    // No overflow for absurd counts.
    assert_eq!(amortized::request_len::<PrivateP384>(usize::MAX), usize::MAX);
}

/// Generic batches: every entry of type 0x0002 is the longest batch.
#[test]
fn generic_batch_sizes() {
    let mut rng = TestRng::new(5);
    let rsa = [public::Issuer::new(rsa_secret_key())];
    let p384 = [private::Issuer::<PrivateP384>::generate(&mut rng).unwrap()];
    let issuer = batched::Issuer::new(&p384, &rsa, &[]).unwrap();
    let client = public::Client::from_token_key(&rsa[0].token_key()).unwrap();
    let small = p384[0].client();
    let c2 = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let c1 = TokenChallenge::new(1, b"issuer.example", &[], &[]).unwrap();
    for n in [0, 1, 2, 5] {
        let mut batch = BatchState::<5>::new();
        for _ in 0..n {
            batch.push(&client, client.request(&c2, &mut rng).unwrap()).unwrap();
        }
        let request = encode(&batch.request());
        assert_eq!(request.len(), batched::request_max_len(n));
        let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
        assert_eq!(parsed.max_response_len(), batched::response_max_len(n));
        let mut out = vec![0u8; batched::response_max_len(n)];
        let outcome = issuer.evaluate::<5, _>(&parsed, &mut out, &mut rng).unwrap();
        assert_eq!(outcome.len, batched::response_max_len(n));
    }
    // A mixed batch stays below the bound.
    let mut batch = BatchState::<2>::new();
    batch.push(&client, client.request(&c2, &mut rng).unwrap()).unwrap();
    batch.push(&small, small.request(&c1, &mut rng).unwrap()).unwrap();
    let request = encode(&batch.request());
    assert!(request.len() < batched::request_max_len(2));
    let parsed = GenericBatchTokenRequest::decode(&request).unwrap();
    assert!(parsed.max_response_len() < batched::response_max_len(2));
    assert_eq!(batched::response_max_len(usize::MAX), usize::MAX);
}

/// TokenChallenge lengths, and the `WWW-Authenticate` bound built for real.
#[test]
fn challenge_and_www_authenticate_sizes() {
    let issuer_name = [b'i'; PRACTICAL_NAME_LEN];
    let origin = [b'o'; PRACTICAL_NAME_LEN];
    let challenge = TokenChallenge::new(2, &issuer_name, &[9; 32], &origin).unwrap();
    let bytes = encode(&challenge);
    assert_eq!(bytes.len(), PRACTICAL_CHALLENGE_LEN);
    assert_eq!(challenge::challenge_len(PRACTICAL_NAME_LEN, 32, PRACTICAL_NAME_LEN), bytes.len());
    let short = TokenChallenge::new(5, b"issuer.example", &[], &[]).unwrap();
    assert_eq!(encode(&short).len(), challenge::challenge_len(14, 0, 0));
    let max = [b'm'; challenge::MAX_NAME_LEN];
    let largest = TokenChallenge::new_opaque(7, &max, &[1; 32], &max).unwrap();
    assert_eq!(encode(&largest).len(), MAX_CHALLENGE_LEN);

    // The practical bound: the largest names, a 342-byte key, the longest max-age.
    let key = [0x30; MAX_TOKEN_KEY_LEN];
    let mut out = [0u8; PRACTICAL_WWW_AUTHENTICATE_LEN];
    let value = auth::write_www_authenticate(&bytes, &key, Some(u32::MAX), &mut out).unwrap();
    assert_eq!(value.len(), PRACTICAL_WWW_AUTHENTICATE_LEN);
    let parsed = auth::parse_www_authenticate(value).next().unwrap().unwrap();
    let mut decoded = [0u8; PRACTICAL_CHALLENGE_LEN];
    assert_eq!(TokenChallenge::decode(parsed.decode_challenge(&mut decoded).unwrap()).unwrap(), challenge);
    let mut short_out = [0u8; PRACTICAL_WWW_AUTHENTICATE_LEN - 1];
    assert_eq!(
        auth::write_www_authenticate(&bytes, &key, Some(u32::MAX), &mut short_out).err(),
        Some(Error::BufferTooSmall)
    );

    // The exact length for other shapes, against the builders.
    let short_bytes = encode(&short);
    for challenge in [&bytes[..], &short_bytes[..]] {
        for key_len in [32, 49, 342] {
            for age in [None, Some(0), Some(9), Some(10), Some(3600), Some(u32::MAX)] {
                let mut out = vec![0u8; 2048];
                let with_key = auth::write_www_authenticate(challenge, &key[..key_len], age, &mut out).unwrap().len();
                assert_eq!(with_key, auth::www_authenticate_len(challenge.len(), Some(key_len), age));
                let without = auth::write_www_authenticate_without_key(challenge, age, &mut out).unwrap().len();
                assert_eq!(without, auth::www_authenticate_len(challenge.len(), None, age));
            }
        }
    }
    for n in 0..10 {
        let mut out = vec![0u8; 64];
        let data = vec![0xa5; n];
        let written = auth::write_authorization(&data, &mut out).unwrap().len();
        assert_eq!(written, auth::authorization_len(n));
        assert_eq!(auth::base64url_len(n), written - auth::authorization_len(0));
    }
}
