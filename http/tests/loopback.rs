//! The issuer, the origin and the client as HTTP services on loopback, in one
//! process: issuance and redemption of types 1, 2, 5 and 0xDA7A (with
//! extensions), replay refusal, batches, rotation and the status codes of
//! bad input.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::time::Duration;

use pat::TokenChallenge;
use pat::tokens::batched::{BatchState, GenericBatchTokenResponse};
use pat::tokens::{private, public};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat_http::issuer::ExtensionsPolicy;
use pat_http::{client, issuer, keys, media, unix_now};
use reqwest::StatusCode;

mod common;
use common::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_type_is_issued_redeemed_once_and_refused_when_replayed() {
    let d = deployment().await;
    for token_type in [1u16, 2, 5] {
        let (_, url) = d.origin(d.origin_config(token_type)).await;
        let status = client::fetch(
            &client::FetchConfig {
                url: url.clone(),
                issuer_url: Some(d.issuer_url.clone()),
                ca_cert: None,
                extensions: None,
                use_origin_extensions: false,
                credential_store: None,
            },
            &mut |_| {},
        )
        .await
        .unwrap();
        assert_eq!(status, 200, "type {token_type}: pat fetch's flow");
        let authorization = d.authorization(&url).await;
        let ok = d.get_with(&url, &authorization).await;
        assert_eq!(ok.status(), StatusCode::OK, "type {token_type}: first redemption");
        let again = d.get_with(&url, &authorization).await;
        assert_eq!(again.status(), StatusCode::UNAUTHORIZED, "type {token_type}: replay");
        let challenge = again.headers().get("www-authenticate").unwrap().to_str().unwrap();
        assert!(challenge.starts_with("PrivateToken challenge=\""), "a fresh challenge comes with the refusal");
        let bad = d.get_with(&url, "PrivateToken token=\"AAAA\"").await;
        assert_eq!(bad.status(), StatusCode::UNAUTHORIZED, "type {token_type}: garbage token");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_of_one_type_is_refused_by_an_origin_of_another() {
    let d = deployment().await;
    let (_, url1) = d.origin(d.origin_config(1)).await;
    let (_, url5) = d.origin(d.origin_config(5)).await;
    let authorization = d.authorization(&url1).await;
    assert_eq!(d.get_with(&url5, &authorization).await.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(d.get_with(&url1, &authorization).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn directory_has_media_type_cache_control_and_etag() {
    let d = deployment().await;
    let url = format!("{}{}", d.issuer_url, pat::deploy::directory::WELL_KNOWN_PATH);
    let r = d.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::DIRECTORY);
    assert!(r.headers()["cache-control"].to_str().unwrap().contains("max-age="));
    let etag = r.headers()["etag"].to_str().unwrap().to_owned();
    let body = r.bytes().await.unwrap();
    let json: serde_json::Value = serde_json::from_slice(&body).unwrap();
    assert_eq!(json["issuer-request-uri"], format!("{}{}", d.issuer_url, issuer::REQUEST_PATH));
    let types: Vec<u64> =
        json["token-keys"].as_array().unwrap().iter().map(|k| k["token-type"].as_u64().unwrap()).collect();
    assert_eq!(types.len(), 4);
    for t in [1, 2, 5, 0xDA7A] {
        assert!(types.contains(&t));
    }
    for key in json["token-keys"].as_array().unwrap() {
        let text = key["token-key"].as_str().unwrap();
        assert_eq!(text.len() % 4, 0, "token-key is padded base64url: {text}");
        assert!(!text.contains('+') && !text.contains('/'));
        assert!(key["not-before"].as_u64().is_some());
    }
    let cached = d.http.get(&url).header("if-none-match", &etag).send().await.unwrap();
    assert_eq!(cached.status(), StatusCode::NOT_MODIFIED);
    let other = d.http.get(&url).header("if-none-match", "\"other\"").send().await.unwrap();
    assert_eq!(other.status(), StatusCode::OK);
}

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

fn encoded(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

/// The issuer's keys as a client sees them in the directory.
async fn directory_keys(d: &Deployment) -> Vec<(u16, Vec<u8>)> {
    let url = format!("{}{}", d.issuer_url, pat::deploy::directory::WELL_KNOWN_PATH);
    let json = d.http.get(&url).send().await.unwrap().bytes().await.unwrap();
    let mut scratch = vec![0u8; json.len()];
    let dir = pat::deploy::directory::IssuerDirectory::<8>::parse(&json, &mut scratch).unwrap();
    let mut buf = [0u8; 1024];
    dir.keys().iter().map(|k| (k.token_type(), k.decode_token_key(&mut buf).unwrap().to_vec())).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn generic_and_amortized_batches_are_issued() {
    let d = deployment().await;
    let keys = directory_keys(&d).await;
    let key = |t: u16| keys.iter().find(|(tt, _)| *tt == t).unwrap().1.clone();
    let c1 = private::Client::<PrivateP384>::from_token_key(&key(1)).unwrap();
    let c2 = public::Client::from_token_key(&key(2)).unwrap();
    let c5 = private::Client::<PrivateRistretto255>::from_token_key(&key(5)).unwrap();
    let name = d.issuer_name.as_bytes();
    let ch1 = TokenChallenge::new(1, name, &[], b"").unwrap();
    let ch2 = TokenChallenge::new(2, name, &[], b"").unwrap();
    let ch5 = TokenChallenge::new(5, name, &[], b"").unwrap();

    let mut batch = BatchState::<4>::new();
    batch.push(&c1, c1.request(&ch1, &mut rng()).unwrap()).unwrap();
    batch.push(&c2, c2.request(&ch2, &mut rng()).unwrap()).unwrap();
    batch.push(&c5, c5.request(&ch5, &mut rng()).unwrap()).unwrap();
    let r = d.post(media::GENERIC_REQUEST, encoded(&batch.request())).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::GENERIC_RESPONSE);
    let body = r.bytes().await.unwrap();
    let tokens = batch.finalize(&GenericBatchTokenResponse::decode(&body).unwrap()).unwrap();
    assert_eq!(tokens.iter().filter(|t| t.is_some()).count(), 3);

    // One entry for a key the issuer does not have: 206, that entry absent.
    let other = private::Issuer::<PrivateP384>::generate(&mut rng()).unwrap();
    let stranger = other.client();
    let mut batch = BatchState::<4>::new();
    batch.push(&c5, c5.request(&ch5, &mut rng()).unwrap()).unwrap();
    batch.push(&stranger, stranger.request(&ch1, &mut rng()).unwrap()).unwrap();
    let request = encoded(&batch.request());
    let r = d.post(media::GENERIC_REQUEST, request).await;
    if other.key_id()[31] == c1.key_id()[31] {
        // The stranger's truncated id is the issuer's: its entry fails the proof instead.
        assert!(r.status() == StatusCode::PARTIAL_CONTENT || r.status() == StatusCode::OK);
    } else {
        assert_eq!(r.status(), StatusCode::PARTIAL_CONTENT);
        let body = r.bytes().await.unwrap();
        let tokens = batch.finalize(&GenericBatchTokenResponse::decode(&body).unwrap()).unwrap();
        assert!(tokens[0].is_some() && tokens[1].is_none());
    }

    // Amortized: ten type-5 tokens with one proof.
    let mut state = c5.request_batch::<10, _>(&ch5, 10, &mut rng()).unwrap();
    let r = d.post(media::AMORTIZED_REQUEST, encoded(&state.request())).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::AMORTIZED_RESPONSE);
    let body = r.bytes().await.unwrap();
    let response = pat::tokens::amortized::AmortizedTokenResponse::<PrivateRistretto255>::decode(&body).unwrap();
    assert_eq!(c5.finalize_batch(&mut state, &response).unwrap().len(), 10);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_get_the_rfc_status_codes() {
    let d = deployment().await;
    let keys = directory_keys(&d).await;
    let k5 = keys.iter().find(|(t, _)| *t == 5).unwrap().1.clone();
    let c5 = private::Client::<PrivateRistretto255>::from_token_key(&k5).unwrap();
    let ch5 = TokenChallenge::new(5, d.issuer_name.as_bytes(), &[], b"").unwrap();
    let (request, _state) = c5.request(&ch5, &mut rng()).unwrap();
    let good = encoded(&request);

    assert_eq!(d.post(media::TOKEN_REQUEST, good.clone()).await.status(), StatusCode::OK);
    assert_eq!(d.post("application/json", good.clone()).await.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(d.post("text/plain", Vec::new()).await.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    let no_type = d.http.post(format!("{}{}", d.issuer_url, issuer::REQUEST_PATH)).body(good.clone()).send().await;
    assert_eq!(no_type.unwrap().status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    // Parameters on the media type are fine.
    let with_param = format!("{}; charset=binary", media::TOKEN_REQUEST);
    assert_eq!(d.post(&with_param, good.clone()).await.status(), StatusCode::OK);
    // Over the body limit: a fixed text; a declared length over it is
    // refused before the body is sent.
    let big = vec![0u8; issuer::MAX_BODY + 1];
    let r = d.post(media::TOKEN_REQUEST, big).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
    assert_eq!(r.text().await.unwrap(), "request body too large\n");
    assert_eq!(
        d.post(media::TOKEN_REQUEST, vec![0u8; issuer::MAX_BODY]).await.status(),
        StatusCode::UNPROCESSABLE_ENTITY
    );
    let declared = raw_request(
        &d.issuer_name,
        &format!(
            "POST {} HTTP/1.1\r\nhost: x\r\ncontent-type: {}\r\ncontent-length: 99999999999\r\n\r\n",
            issuer::REQUEST_PATH,
            media::TOKEN_REQUEST
        ),
    );
    assert!(declared.starts_with("HTTP/1.1 413"), "{declared}");
    // RFC 9578 §5.2, §6.2: a blinded message of the wrong size (truncated,
    // trailing bytes) is 422; a body that is not even a token type is 400.
    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    assert_eq!(d.post(media::TOKEN_REQUEST, good[..good.len() - 1].to_vec()).await.status(), unprocessable);
    let mut long = good.clone();
    long.push(0);
    assert_eq!(d.post(media::TOKEN_REQUEST, long).await.status(), unprocessable);
    assert_eq!(d.post(media::TOKEN_REQUEST, Vec::new()).await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(d.post(media::TOKEN_REQUEST, vec![0]).await.status(), StatusCode::BAD_REQUEST);
    // A token type not served; one that does not exist: 422.
    let mut t3 = good.clone();
    t3[1] = 3;
    assert_eq!(d.post(media::TOKEN_REQUEST, t3).await.status(), unprocessable);
    let mut t9 = good.clone();
    t9[1] = 9;
    assert_eq!(d.post(media::TOKEN_REQUEST, t9).await.status(), unprocessable);
    // An unknown truncated key id: 422.
    let mut unknown = good.clone();
    unknown[2] ^= 0xff;
    let r = d.post(media::TOKEN_REQUEST, unknown).await;
    assert_eq!(r.status(), StatusCode::UNPROCESSABLE_ENTITY);
    // A blinded element that is not a group element: 422, and the body says nothing of keys.
    let mut invalid = good.clone();
    for b in &mut invalid[3..] {
        *b = 0xff;
    }
    let r = d.post(media::TOKEN_REQUEST, invalid).await;
    assert_eq!(r.status(), unprocessable);
    let text = r.text().await.unwrap();
    assert_eq!(text, "token request cannot be processed\n");
    // A single request on the batch media types: the generic framing does
    // not parse (400); as an amortized request its elements have the wrong size (422).
    assert_eq!(d.post(media::GENERIC_REQUEST, good.clone()).await.status(), StatusCode::BAD_REQUEST);
    assert_eq!(d.post(media::AMORTIZED_REQUEST, good).await.status(), unprocessable);
    // An amortized batch over the limit: 422.
    let state = c5.request_batch::<128, _>(&ch5, issuer::MAX_BATCH + 1, &mut rng()).unwrap();
    assert_eq!(d.post(media::AMORTIZED_REQUEST, encoded(&state.request())).await.status(), unprocessable);
    // GET on the request URI.
    let get = d.http.get(format!("{}{}", d.issuer_url, issuer::REQUEST_PATH)).send().await.unwrap();
    assert_eq!(get.status(), StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_redemptions_of_one_token_give_one_success() {
    let d = deployment().await;
    let (_, url) = d.origin(d.origin_config(5)).await;
    let authorization = d.authorization(&url).await;
    let mut tasks = Vec::new();
    for _ in 0..64 {
        let (http, url, authorization) = (d.http.clone(), url.clone(), authorization.clone());
        tasks.push(tokio::spawn(async move {
            http.get(url).header("authorization", authorization).send().await.unwrap().status()
        }));
    }
    let mut ok = 0;
    for t in tasks {
        let status = t.await.unwrap();
        assert!(status == StatusCode::OK || status == StatusCode::UNAUTHORIZED, "{status}");
        ok += usize::from(status == StatusCode::OK);
    }
    assert_eq!(ok, 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotation_keeps_old_tokens_and_the_old_key_until_the_new_not_before() {
    let d = deployment().await;
    let mut config = d.origin_config(1);
    config.send_token_key = false; // the client picks the key from the directory
    let (origin, url) = d.origin(config).await;
    let before = d.authorization(&url).await;
    let old_keys = directory_keys(&d).await;
    assert_eq!(old_keys.iter().filter(|(t, _)| *t == 1).count(), 1);

    // The next key, valid from 100 s from now.
    let now = unix_now();
    let added = keys::rotate(&d.state, Some(&[1]), now, now + 100, 3600).unwrap();
    assert_eq!(added.len(), 1);
    assert!(d.issuer.refresh().unwrap());
    origin.refresh().await.unwrap();
    let listed = directory_keys(&d).await;
    assert_eq!(listed.iter().filter(|(t, _)| *t == 1).count(), 2, "the directory lists the next key");
    // Before its not-before the client still uses the old key.
    let during = d.authorization(&url).await;
    let token_key_id = |authorization: &str| {
        let value = pat::wire::auth::parse_authorization(authorization).unwrap();
        let mut buf = [0u8; 512];
        let token = value.decode_base64url(&mut buf).unwrap();
        *pat::TokenRef::decode(token).unwrap().input().token_key_id()
    };
    assert_eq!(token_key_id(&during), token_key_id(&before));
    assert_eq!(d.get_with(&url, &during).await.status(), StatusCode::OK);

    // A second rotation whose key is valid already: new tokens use it, and a
    // token made under the first key still redeems inside its window.
    let added = keys::rotate(&d.state, Some(&[1]), now, now - 5, 3600).unwrap();
    // On a file system with coarse timestamps the manifest's mtime may not
    // have moved: set it, so the reload below is certain.
    filetime_touch(&d.state.join(keys::MANIFEST));
    d.issuer.refresh().unwrap();
    origin.refresh().await.unwrap();
    let after = d.authorization(&url).await;
    assert_eq!(token_key_id(&after), added[0].key_id, "the newest key valid now is chosen");
    assert_ne!(token_key_id(&after), token_key_id(&before));
    assert_eq!(d.get_with(&url, &after).await.status(), StatusCode::OK);
    assert_eq!(d.get_with(&url, &before).await.status(), StatusCode::OK, "old token inside its window");
    assert_eq!(d.get_with(&url, &before).await.status(), StatusCode::UNAUTHORIZED, "and only once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_token_stays_spent_across_a_rotation() {
    let d = deployment().await;
    let (origin, url) = d.origin(d.origin_config(5)).await;
    let authorization = d.authorization(&url).await;
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);
    // Rotation never lengthens a published key's window (which would outlive
    // the spent entry); it refuses to leave a gap instead.
    let manifest_before = std::fs::read_to_string(d.state.join(keys::MANIFEST)).unwrap();
    let now = unix_now();
    assert!(keys::rotate(&d.state, Some(&[5]), now, now + 7200, 3600).is_err(), "a gap after the old key ends");
    assert_eq!(std::fs::read_to_string(d.state.join(keys::MANIFEST)).unwrap(), manifest_before);
    keys::rotate(&d.state, Some(&[5]), now, now + 60, 3600).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.state.join(keys::MANIFEST)).unwrap()).unwrap();
    let before: serde_json::Value = serde_json::from_str(&manifest_before).unwrap();
    for old in before["keys"].as_array().unwrap() {
        assert!(manifest["keys"].as_array().unwrap().contains(old), "old windows unchanged: {old}");
    }
    filetime_touch(&d.state.join(keys::MANIFEST));
    origin.refresh().await.unwrap();
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::UNAUTHORIZED);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rotations_never_reuse_a_truncated_key_id() {
    let dir = tempfile::tempdir().unwrap();
    let now = unix_now();
    keys::open_or_init(dir.path(), &[5], now, 1 << 30).unwrap();
    // 40 keys of one type: without the check, two would share a truncated id
    // with probability above 95%.
    for _ in 0..39 {
        keys::rotate(dir.path(), Some(&[5]), now, now + 10, 1 << 30).unwrap();
    }
    let state = keys::load(dir.path(), now + 20).unwrap();
    let mut ids: Vec<u8> = state.keys.iter().map(|k| k.key.key_id()[31]).collect();
    assert_eq!(ids.len(), 40);
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 40);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_challenge_changes_with_the_window_and_binds_the_token() {
    let d = deployment().await;
    let mut config = d.origin_config(5);
    config.max_age = 1;
    let (_, url) = d.origin(config).await;
    let challenge_of = |r: &reqwest::Response| {
        let value = r.headers()["www-authenticate"].to_str().unwrap().to_owned();
        let c = pat::wire::auth::parse_www_authenticate(&value).next().unwrap().unwrap();
        let mut buf = [0u8; 512];
        c.decode_challenge(&mut buf).unwrap().to_vec()
    };
    let first = challenge_of(&d.http.get(&url).send().await.unwrap());
    let parsed = TokenChallenge::decode(&first).unwrap();
    assert_eq!(parsed.redemption_context().len(), 32);
    let authorization = d.authorization(&url).await;
    // Three windows of one second later the token's challenge is too old.
    tokio::time::sleep(Duration::from_millis(3100)).await;
    let later = d.http.get(&url).send().await.unwrap();
    assert_ne!(challenge_of(&later), first, "a new window, a new context");
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::UNAUTHORIZED);
}

/// An Extensions list of `(type, data)` entries.
fn extensions_of(entries: &[(u16, &[u8])]) -> Vec<u8> {
    let mut buf = vec![0u8; 2 + entries.iter().map(|(_, d)| 4 + d.len()).sum::<usize>()];
    let mut w = pat::wire::extensions::ExtensionsWriter::new(&mut buf);
    for (t, d) in entries {
        w.push(*t, d).unwrap();
    }
    w.finish().unwrap();
    buf
}

impl Deployment {
    /// A 401's challenge answered with a type-0xDA7A token for `extensions`.
    async fn authorization_with(&self, url: &str, extensions: &[u8]) -> String {
        let first = self.http.get(url).send().await.unwrap();
        assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
        let ext = pat::wire::extensions::Extensions::decode(extensions).unwrap();
        client::authorize_with_extensions(&self.http, first.headers(), Some(&self.issuer_url), &ext, &mut |_| {})
            .await
            .unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_tokens_are_issued_and_redeemed_with_their_extensions() {
    let d = deployment().await;
    let (_, url) = d.origin(d.origin_config(keys::METADATA)).await;
    let first = d.http.get(&url).send().await.unwrap();
    let www = first.headers()["www-authenticate"].to_str().unwrap().to_owned();
    let c = pat::wire::auth::parse_www_authenticate(&www).next().unwrap().unwrap();
    let mut buf = [0u8; 512];
    assert_eq!(TokenChallenge::decode(c.decode_challenge(&mut buf).unwrap()).unwrap().token_type(), 0xDA7A);

    // pat fetch's flow, with extensions and without.
    let ext =
        extensions_of(&[(1, &[0, 0, 0, 0, 0, 0, 0x0e, 0x10, 0, 0, 0, 0, 0x64, 0xa5, 0xbd, 0xb0]), (2, b"\x00\x02US")]);
    for extensions in [None, Some(ext.clone())] {
        let config = client::FetchConfig {
            url: url.clone(),
            issuer_url: Some(d.issuer_url.clone()),
            extensions,
            ..Default::default()
        };
        assert_eq!(client::fetch(&config, &mut |_| {}).await.unwrap(), 200);
    }

    let authorization = d.authorization_with(&url, &ext).await;
    assert!(authorization.contains(", extensions=\""), "{authorization}");
    // The token verifies only with the extensions it was issued for: other
    // extensions, or none, are refused (and do not spend it).
    let (token_part, _) = authorization.split_once(", extensions=").unwrap();
    assert_eq!(d.get_with(&url, token_part).await.status(), StatusCode::UNAUTHORIZED, "no extensions");
    let other = extensions_of(&[(2, b"\x00\x02FR")]);
    let mut out = vec![0u8; 2048];
    let swapped = {
        let p = pat::wire::auth::parse_authorization_with_extensions(&authorization).unwrap();
        let mut tb = [0u8; 512];
        let token = p.token.decode_base64url(&mut tb).unwrap().to_vec();
        let other = pat::wire::extensions::Extensions::decode(&other).unwrap();
        pat::wire::auth::write_authorization_with_extensions(&token, &other, &mut out).unwrap().to_owned()
    };
    assert_eq!(d.get_with(&url, &swapped).await.status(), StatusCode::UNAUTHORIZED, "other extensions");
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::UNAUTHORIZED, "replay");
    // A malformed extensions parameter.
    let garbage = format!("{token_part}, extensions=\"AAEC\"");
    assert_eq!(d.get_with(&url, &garbage).await.status(), StatusCode::UNAUTHORIZED);

    // An origin that accepts only extension type 2 refuses a token carrying type 1.
    let mut config = d.origin_config(keys::METADATA);
    config.extensions = Some(vec![2]);
    let (_, strict) = d.origin(config).await;
    let refused = d.authorization_with(&strict, &ext).await;
    assert_eq!(d.get_with(&strict, &refused).await.status(), StatusCode::UNAUTHORIZED);
    let only2 = extensions_of(&[(2, b"\x00\x02US")]);
    let accepted = d.authorization_with(&strict, &only2).await;
    assert_eq!(d.get_with(&strict, &accepted).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_requests_refused_by_the_policy_or_malformed_get_400() {
    let d = deployment_with(ExtensionsPolicy::Only(vec![2])).await;
    let keys = directory_keys(&d).await;
    let key = keys.iter().find(|(t, _)| *t == keys::METADATA).unwrap().1.clone();
    let c = pat::tokens::metadata::Client::from_token_key(&key).unwrap();
    let ch = TokenChallenge::new(keys::METADATA, d.issuer_name.as_bytes(), &[], b"").unwrap();
    let permitted = extensions_of(&[(2, b"\x00\x02US")]);
    let ext = pat::wire::extensions::Extensions::decode(&permitted).unwrap();
    let (request, mut state) = c.request(&ch, ext, &mut rng()).unwrap();
    let good = encoded(&request);
    let r = d.post(media::TOKEN_REQUEST, good.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::TOKEN_RESPONSE);
    let body = r.bytes().await.unwrap();
    let response = pat::tokens::metadata::TokenResponse::decode(&body).unwrap();
    c.finalize(&mut state, &ext, &response).unwrap();

    // Type 1 is not permitted: 400.
    let refused = extensions_of(&[(1, b"x"), (2, b"\x00\x02US")]);
    let ext = pat::wire::extensions::Extensions::decode(&refused).unwrap();
    let (request, _) = c.request(&ch, ext, &mut rng()).unwrap();
    let r = d.post(media::TOKEN_REQUEST, encoded(&request)).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(r.text().await.unwrap(), "extensions not permitted\n");
    // The empty list is permitted.
    let (request, _) = c.request(&ch, pat::wire::extensions::Extensions::EMPTY, &mut rng()).unwrap();
    assert_eq!(d.post(media::TOKEN_REQUEST, encoded(&request)).await.status(), StatusCode::OK);
    // Malformed: truncated list, trailing bytes, unsorted list, an unknown key id: 400.
    let bad = StatusCode::BAD_REQUEST;
    assert_eq!(d.post(media::TOKEN_REQUEST, good[..good.len() - 1].to_vec()).await.status(), bad);
    let mut long = good.clone();
    long.push(0);
    assert_eq!(d.post(media::TOKEN_REQUEST, long).await.status(), bad);
    let mut unsorted = good[..259].to_vec();
    unsorted.extend_from_slice(&[0, 8, 0, 2, 0, 0, 0, 1, 0, 0]);
    assert_eq!(d.post(media::TOKEN_REQUEST, unsorted).await.status(), bad);
    let mut unknown = good.clone();
    unknown[2] ^= 0xff;
    assert_eq!(d.post(media::TOKEN_REQUEST, unknown).await.status(), bad);
    assert_eq!(d.post(media::TOKEN_REQUEST, good[..200].to_vec()).await.status(), bad);
    // The longest request the format allows fits under the body limit (it
    // is refused by the policy, not by its size).
    let big = vec![0u8; pat::wire::extensions::EXTENSION_DATA_MAX_LEN];
    let all = extensions_of(&[(1, &big)]);
    let ext = pat::wire::extensions::Extensions::decode(&all).unwrap();
    let (request, _) = c.request(&ch, ext, &mut rng()).unwrap();
    let body = encoded(&request);
    assert_eq!(body.len(), issuer::MAX_BODY);
    let r = d.post(media::TOKEN_REQUEST, body).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(r.text().await.unwrap(), "extensions not permitted\n");
}
