//! The issuer's answers to generic and amortized batches it cannot process,
//! as draft-ietf-privacypass-batched-tokens-07/-08 asks: 422 for an entry of
//! a token type the issuer does not take (§6.2), 400 for framing that does
//! not parse, 415 for the media type names of earlier revisions.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use pat::TokenChallenge;
use pat::tokens::private;
use pat::wire::codec::Encode;
use pat::wire::token_type::PrivateP384;
use pat_http::media;
use reqwest::StatusCode;

mod common;
use common::*;

fn encoded(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

/// `varint(len) ‖ body`, with the 2-byte varint form (lengths 64..16384).
fn framed(body: &[u8]) -> Vec<u8> {
    let len = u16::try_from(body.len()).unwrap();
    assert!((64..16384).contains(&len));
    let mut out = (0x4000 | len).to_be_bytes().to_vec();
    out.extend_from_slice(body);
    out
}

/// A type-1 TokenRequest for the deployment's type-1 key.
async fn type1_request(d: &Deployment) -> Vec<u8> {
    let url = format!("{}{}", d.issuer_url, pat::deploy::directory::WELL_KNOWN_PATH);
    let json = d.http.get(&url).send().await.unwrap().bytes().await.unwrap();
    let mut scratch = vec![0u8; json.len()];
    let dir = pat::deploy::directory::IssuerDirectory::<8>::parse(&json, &mut scratch).unwrap();
    let mut buf = [0u8; 1024];
    let key = dir.keys().iter().find(|k| k.token_type() == 1).unwrap().decode_token_key(&mut buf).unwrap().to_vec();
    let client = private::Client::<PrivateP384>::from_token_key(&key).unwrap();
    let challenge = TokenChallenge::new(1, d.issuer_name.as_bytes(), &[], b"").unwrap();
    let (request, _state) = client.request(&challenge, &mut rand_core::UnwrapErr(pat::OsRng)).unwrap();
    encoded(&request)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generic_batch_entries_of_other_types_are_422_and_broken_framing_400() {
    let d = deployment().await;
    let good = type1_request(&d).await;
    assert_eq!(good.len(), 52);

    // The well-formed batch of one entry is issued.
    let mut one = vec![0x34];
    one.extend_from_slice(&good);
    assert_eq!(d.post(media::GENERIC_REQUEST, one).await.status(), StatusCode::OK);

    // A type-1 entry followed by one of a type the batch does not carry:
    // 0x0003 (rate-limited), 0xDA7A (its extensions have no place in a
    // batch), 0x0009 (not registered). §6.2: 422.
    for other in [[0x00, 0x03], [0xDA, 0x7A], [0x00, 0x09]] {
        let mut body = good.clone();
        body.extend_from_slice(&other);
        body.extend_from_slice(&[0xAA; 40]);
        let r = d.post(media::GENERIC_REQUEST, framed(&body)).await;
        assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY, "type {other:02x?}");
        assert_eq!(r.text().await.unwrap(), "token type not served\n");
    }
    // The same as the first entry.
    let mut body = vec![0x00, 0x03];
    body.extend_from_slice(&[0xAA; 62]);
    let r = d.post(media::GENERIC_REQUEST, framed(&body)).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);

    // Framing that does not parse stays 400: a length claiming more than
    // the body, an entry cut short, bytes after the batch, a non-minimal
    // varint.
    let mut short = vec![0x35];
    short.extend_from_slice(&good);
    assert_eq!(d.post(media::GENERIC_REQUEST, short).await.status(), StatusCode::BAD_REQUEST);
    let mut cut = good.clone();
    cut.extend_from_slice(&good[..20]);
    assert_eq!(d.post(media::GENERIC_REQUEST, framed(&cut)).await.status(), StatusCode::BAD_REQUEST);
    let mut trailing = vec![0x34];
    trailing.extend_from_slice(&good);
    trailing.push(0);
    assert_eq!(d.post(media::GENERIC_REQUEST, trailing).await.status(), StatusCode::BAD_REQUEST);
    let mut long_varint = vec![0x40, 0x34];
    long_varint.extend_from_slice(&good);
    assert_eq!(d.post(media::GENERIC_REQUEST, long_varint).await.status(), StatusCode::BAD_REQUEST);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batch_media_types_of_earlier_revisions_are_415() {
    let d = deployment().await;
    let good = type1_request(&d).await;
    let mut one = vec![0x34];
    one.extend_from_slice(&good);
    for old in [
        "application/private-token-arbitrary-batch-request",
        "application/private-token-privately-verifiable-batch-request",
        "application/private-token-batch-request",
    ] {
        assert_eq!(d.post(old, one.clone()).await.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE, "{old}");
    }
    // The current names, with a parameter, are the batches.
    let with_param = format!("{}; charset=binary", media::GENERIC_REQUEST);
    let r = d.post(&with_param, one).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::GENERIC_RESPONSE);
}
