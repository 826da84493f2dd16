//! Extension negotiation over HTTP (draft-ietf-privacypass-auth-scheme-extensions-03
//! §4): an origin that requires an extension type announces it in its
//! challenge's `extension-set`, refuses a token without it (401 and a fresh
//! challenge) and accepts one with it; `pat fetch` reads the set and sends
//! what it asks for, or stops with a clear error.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::sync::Arc;

use pat::wire::auth;
use pat::wire::codec::Decode;
use pat::wire::extension_set::ExtensionEntry;
use pat::wire::extensions::{Extensions, ExtensionsWriter};
use pat_http::origin::{OriginConfig, OriginService};
use pat_http::replay::Replay;
use pat_http::{client, keys};
use reqwest::StatusCode;
use reqwest::header::{HeaderMap, HeaderValue, WWW_AUTHENTICATE};

mod common;
use common::*;

/// An Extensions list of `(type, data)` entries.
fn extensions_of(entries: &[(u16, &[u8])]) -> Vec<u8> {
    let mut buf = vec![0u8; 2 + entries.iter().map(|(_, d)| 4 + d.len()).sum::<usize>()];
    let mut w = ExtensionsWriter::new(&mut buf);
    for (t, d) in entries {
        w.push(*t, d).unwrap();
    }
    w.finish().unwrap();
    buf
}

/// The origin's config: type 0xDA7A, type 2 required, type 1 optional, and
/// a suggested value for type 2.
fn negotiating(d: &Deployment) -> OriginConfig {
    let mut config = d.origin_config(keys::METADATA);
    config.extension_set = vec![ExtensionEntry::required(2), ExtensionEntry::optional(1)];
    config.suggested_extensions = Some(extensions_of(&[(2, b"\x00\x02CH")]));
    config
}

/// The `WWW-Authenticate` value of a 401.
async fn challenge_of(d: &Deployment, url: &str) -> String {
    let r = d.http.get(url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    r.headers()[WWW_AUTHENTICATE].to_str().unwrap().to_owned()
}

/// The same challenge without its extension parameters, as headers: what
/// a client that does not read them sees.
fn without_negotiation(www: &str) -> HeaderMap {
    let c = auth::parse_www_authenticate(www).next().unwrap().unwrap();
    let (mut cb, mut kb) = ([0u8; 512], [0u8; 512]);
    let mut out = [0u8; 2048];
    let value = auth::write_www_authenticate(
        c.decode_challenge(&mut cb).unwrap(),
        c.decode_token_key(&mut kb).unwrap(),
        c.max_age,
        &mut out,
    )
    .unwrap();
    let mut headers = HeaderMap::new();
    headers.insert(WWW_AUTHENTICATE, HeaderValue::from_str(value).unwrap());
    headers
}

/// A type-0xDA7A token for `www`'s challenge (its extension parameters
/// ignored) with `extensions`, as an Authorization value.
async fn token_for(d: &Deployment, www: &str, extensions: &[u8]) -> String {
    let ext = Extensions::decode(extensions).unwrap();
    let headers = without_negotiation(www);
    client::authorize_with_extensions(&d.http, &headers, Some(&d.issuer_url), &ext, &mut |_| {}).await.unwrap()
}

fn fetch_config(d: &Deployment, url: &str, extensions: Option<Vec<u8>>, use_origin: bool) -> client::FetchConfig {
    client::FetchConfig {
        url: url.to_owned(),
        issuer_url: Some(d.issuer_url.clone()),
        ca_cert: None,
        extensions,
        use_origin_extensions: use_origin,
        credential_store: None,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_origin_that_requires_an_extension_refuses_a_token_without_it() {
    let d = deployment().await;
    let (_, url) = d.origin(negotiating(&d)).await;

    // The challenge announces the set and the suggestion, and round-trips.
    let www = challenge_of(&d, &url).await;
    let c = auth::parse_www_authenticate(&www).next().unwrap().unwrap();
    let (mut sb, mut eb) = ([0u8; 64], [0u8; 64]);
    let set = c.decode_extension_set(&mut sb).unwrap().unwrap();
    assert_eq!(set.iter().collect::<Vec<_>>(), [ExtensionEntry::required(2), ExtensionEntry::optional(1)]);
    let suggested = c.decode_extensions(&mut eb).unwrap().unwrap();
    assert_eq!(suggested.as_bytes(), extensions_of(&[(2, b"\x00\x02CH")]));
    let (mut cb, mut kb) = ([0u8; 512], [0u8; 512]);
    let mut out = [0u8; 2048];
    let rewritten = auth::write_www_authenticate_with_extensions(
        c.decode_challenge(&mut cb).unwrap(),
        Some(c.decode_token_key(&mut kb).unwrap()),
        c.max_age,
        Some(&set),
        Some(&suggested),
        &mut out,
    )
    .unwrap();
    assert_eq!(rewritten, www);

    // Tokens without the required type: none at all, or only the optional
    // type 1. Each is refused with 401 and a fresh challenge that announces
    // the set again, and is not spent.
    let without = token_for(&d, &www, &[0, 0]).await;
    let only_optional = token_for(&d, &www, &extensions_of(&[(1, b"x")])).await;
    for authorization in [&without, &only_optional] {
        let r = d.get_with(&url, authorization).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{authorization}");
        let again = r.headers()[WWW_AUTHENTICATE].to_str().unwrap().to_owned();
        let c = auth::parse_www_authenticate(&again).next().unwrap().unwrap();
        assert!(c.decode_extension_set(&mut [0u8; 64]).unwrap().is_some_and(|s| s.is_required(2)));
        assert_eq!(r.text().await.unwrap(), "token lacks an extension the challenge requires\n");
    }
    let metrics = d.http.get(url.replace("/resource", "/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(metrics.contains("reason=\"missing_extension\"} 2"), "{metrics}");

    // With the required type (and the optional one): accepted once.
    let with = token_for(&d, &www, &extensions_of(&[(1, b"x"), (2, b"\x00\x02US")])).await;
    assert_eq!(d.get_with(&url, &with).await.status(), StatusCode::OK);
    assert_eq!(d.get_with(&url, &with).await.status(), StatusCode::UNAUTHORIZED, "replay");
    let just_required = token_for(&d, &www, &extensions_of(&[(2, b"\x00\x02US")])).await;
    assert_eq!(d.get_with(&url, &just_required).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pat_fetch_answers_the_extension_set() {
    let d = deployment().await;
    let (_, url) = d.origin(negotiating(&d)).await;
    let log = std::sync::Mutex::new(Vec::<String>::new());
    let mut log_line = |l: &str| log.lock().unwrap().push(l.to_owned());

    // Its own value of the required type: 200. A type the set does not list
    // (3) is left out, so an origin that refuses type 3 still accepts.
    let own = extensions_of(&[(2, b"\x00\x02US"), (3, b"zz")]);
    assert_eq!(client::fetch(&fetch_config(&d, &url, Some(own.clone()), false), &mut log_line).await.unwrap(), 200);
    assert!(log.lock().unwrap().iter().any(|l| l.contains("extension types 3 are not in")), "{log:?}");
    let mut strict = negotiating(&d);
    strict.extensions = Some(vec![1, 2]);
    let (_, strict_url) = d.origin(strict).await;
    assert_eq!(client::fetch(&fetch_config(&d, &strict_url, Some(own), false), &mut |_| {}).await.unwrap(), 200);

    // No value of the required type: an error naming it and the way out,
    // before the issuer is asked.
    for own in [None, Some(extensions_of(&[(1, b"x")]))] {
        let e = client::fetch(&fetch_config(&d, &url, own, false), &mut |_| {}).await.unwrap_err().to_string();
        assert!(e.contains("the origin requires extension types 2"), "{e}");
        assert!(e.contains("--use-origin-extensions"), "{e}");
    }
    // With --use-origin-extensions, the origin's suggested value: 200.
    assert_eq!(client::fetch(&fetch_config(&d, &url, None, true), &mut |_| {}).await.unwrap(), 200);

    // Without a suggestion, the error names --extension only.
    let mut bare = negotiating(&d);
    bare.suggested_extensions = None;
    let (_, bare_url) = d.origin(bare).await;
    let e = client::fetch(&fetch_config(&d, &bare_url, None, true), &mut |_| {}).await.unwrap_err().to_string();
    assert!(e.contains("requires extension types 2") && !e.contains("--use-origin-extensions"), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_origin_refuses_a_requirement_it_cannot_enforce() {
    let d = deployment().await;
    let replay = || Replay::memory(Arc::new(pat_http::metrics::Metrics::new())).unwrap();
    // Type 2 tokens carry no extensions.
    let mut config = d.origin_config(2);
    config.extension_set = vec![ExtensionEntry::required(2)];
    let e = OriginService::new(config, replay()).await.unwrap_err().to_string();
    assert!(e.contains("tokens of type 2 carry no extensions"), "{e}");
    // A required type the allowed list refuses.
    let mut config = negotiating(&d);
    config.extensions = Some(vec![1]);
    let e = OriginService::new(config, replay()).await.unwrap_err().to_string();
    assert!(e.contains("required but not among --allowed-extensions"), "{e}");
    // Without negotiation the challenge has no extension parameters.
    let (_, url) = d.origin(d.origin_config(keys::METADATA)).await;
    let www = challenge_of(&d, &url).await;
    let c = auth::parse_www_authenticate(&www).next().unwrap().unwrap();
    assert_eq!((c.extension_set, c.extensions), (None, None));
    assert!(!www.contains("extension"), "{www}");
}
