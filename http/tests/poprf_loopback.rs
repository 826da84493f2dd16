//! Type 0xDA7B (POPRF(P-384) with public metadata) through the HTTP
//! services on loopback, in one process: a key made on first start and
//! published in the directory, `pat fetch`'s flow with and without
//! extensions, redemption bound to the extensions, replay refusal, the
//! issuer's extensions policy and the 400s of bad requests.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::sync::Arc;
use std::time::Duration;

use pat::TokenChallenge;
use pat::tokens::poprf;
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::{Extensions, ExtensionsWriter};
use pat_http::issuer::{ExtensionsPolicy, IssuerConfig, IssuerService};
use pat_http::origin::{self, OriginConfig, OriginService};
use pat_http::replay::Replay;
use pat_http::{client, issuer, keys, media, unix_now};
use reqwest::StatusCode;

struct Deployment {
    _dir: tempfile::TempDir,
    state: std::path::PathBuf,
    issuer_url: String,
    issuer_name: String,
    http: reqwest::Client,
}

async fn spawn(router: axum::Router) -> std::net::SocketAddr {
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    tokio::spawn(pat_http::serve(router, listener, None));
    addr
}

/// An issuer of type 0xDA7B alone, whose key it makes on first start.
async fn deployment(extensions: ExtensionsPolicy) -> Deployment {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    std::fs::create_dir_all(&state).unwrap();
    keys::open_or_init(&state, &[keys::POPRF], unix_now() - 10, 3600).unwrap();
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let issuer_name = addr.to_string();
    let issuer_url = format!("http://{issuer_name}");
    let service = IssuerService::open(IssuerConfig {
        name: issuer_name.clone(),
        request_uri: format!("{issuer_url}{}", issuer::REQUEST_PATH),
        state_dir: state.clone(),
        token_types: vec![keys::POPRF],
        lifetime: 3600,
        extensions,
    })
    .unwrap();
    tokio::spawn(pat_http::serve(issuer::router(Arc::clone(&service)), listener, None));
    let http = client::http_client(None).unwrap();
    Deployment { _dir: dir, state, issuer_url, issuer_name, http }
}

impl Deployment {
    async fn origin(&self, allowed: Option<Vec<u16>>) -> String {
        let config = OriginConfig {
            issuer_name: self.issuer_name.clone(),
            issuer_url: self.issuer_url.clone(),
            token_type: keys::POPRF,
            rate_limit: None,
            extensions: allowed,
            extension_set: Vec::new(),
            suggested_extensions: None,
            origin_info: String::new(),
            max_age: 60,
            clock_skew: pat::deploy::replay::CLOCK_SKEW_MARGIN,
            issuer_state: Some(self.state.clone()),
            send_token_key: true,
            refresh: Duration::from_secs(3600),
            ca_cert: None,
        };
        let service = OriginService::new(config, Replay::memory(Arc::new(pat_http::metrics::Metrics::new())).unwrap())
            .await
            .unwrap();
        let addr = spawn(origin::router(service)).await;
        format!("http://{addr}/resource")
    }

    /// A 401's challenge answered with a type-0xDA7B token for `extensions`.
    async fn authorization_with(&self, url: &str, extensions: &[u8]) -> String {
        let first = self.http.get(url).send().await.unwrap();
        assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
        let ext = Extensions::decode(extensions).unwrap();
        client::authorize_with_extensions(&self.http, first.headers(), Some(&self.issuer_url), &ext, &mut |_| {})
            .await
            .unwrap()
    }

    async fn get_with(&self, url: &str, authorization: &str) -> reqwest::Response {
        self.http.get(url).header("authorization", authorization).send().await.unwrap()
    }

    async fn post(&self, body: Vec<u8>) -> reqwest::Response {
        let url = format!("{}{}", self.issuer_url, issuer::REQUEST_PATH);
        self.http.post(url).header("content-type", media::TOKEN_REQUEST).body(body).send().await.unwrap()
    }

    /// The 0xDA7B token key of the directory.
    async fn token_key(&self) -> Vec<u8> {
        let url = format!("{}{}", self.issuer_url, pat::deploy::directory::WELL_KNOWN_PATH);
        let json = self.http.get(&url).send().await.unwrap().bytes().await.unwrap();
        let mut scratch = vec![0u8; json.len()];
        let dir = pat::deploy::directory::IssuerDirectory::<8>::parse(&json, &mut scratch).unwrap();
        let entry = dir.keys().iter().find(|k| k.token_type() == keys::POPRF).expect("a 0xDA7B key in the directory");
        let mut buf = [0u8; 1024];
        entry.decode_token_key(&mut buf).unwrap().to_vec()
    }
}

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

fn encoded(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poprf_tokens_are_issued_and_redeemed_with_their_extensions() {
    let d = deployment(ExtensionsPolicy::Any).await;
    let url = d.origin(None).await;
    let first = d.http.get(&url).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
    let www = first.headers()["www-authenticate"].to_str().unwrap().to_owned();
    let c = pat::wire::auth::parse_www_authenticate(&www).next().unwrap().unwrap();
    let mut buf = [0u8; 512];
    assert_eq!(TokenChallenge::decode(c.decode_challenge(&mut buf).unwrap()).unwrap().token_type(), 0xDA7B);

    // pat fetch's flow, with extensions and without: status 200.
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
    // Without its extensions, or with others, the token is refused (and not spent).
    let (token_part, _) = authorization.split_once(", extensions=").unwrap();
    assert_eq!(d.get_with(&url, token_part).await.status(), StatusCode::UNAUTHORIZED, "no extensions");
    let swapped = {
        let p = pat::wire::auth::parse_authorization_with_extensions(&authorization).unwrap();
        let mut tb = [0u8; 512];
        let token = p.token.decode_base64url(&mut tb).unwrap().to_vec();
        let other = extensions_of(&[(2, b"\x00\x02FR")]);
        let other = Extensions::decode(&other).unwrap();
        let mut out = vec![0u8; 2048];
        pat::wire::auth::write_authorization_with_extensions(&token, &other, &mut out).unwrap().to_owned()
    };
    assert_eq!(d.get_with(&url, &swapped).await.status(), StatusCode::UNAUTHORIZED, "other extensions");
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK, "first redemption");
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::UNAUTHORIZED, "replay");
    assert_eq!(d.get_with(&url, "PrivateToken token=\"AAAA\"").await.status(), StatusCode::UNAUTHORIZED);

    // An origin that accepts only extension type 2 refuses a token carrying type 1.
    let strict = d.origin(Some(vec![2])).await;
    let refused = d.authorization_with(&strict, &ext).await;
    assert_eq!(d.get_with(&strict, &refused).await.status(), StatusCode::UNAUTHORIZED);
    let only2 = extensions_of(&[(2, b"\x00\x02US")]);
    let accepted = d.authorization_with(&strict, &only2).await;
    assert_eq!(d.get_with(&strict, &accepted).await.status(), StatusCode::OK);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn poprf_requests_refused_by_the_policy_or_malformed_get_400() {
    let d = deployment(ExtensionsPolicy::Only(vec![2])).await;
    let key = d.token_key().await;
    assert_eq!(key.len(), 49);
    let c = poprf::Client::from_token_key(&key).unwrap();
    let ch = TokenChallenge::new(keys::POPRF, d.issuer_name.as_bytes(), &[], b"").unwrap();
    let permitted = extensions_of(&[(2, b"\x00\x02US")]);
    let ext = Extensions::decode(&permitted).unwrap();
    let (request, mut state) = c.request(&ch, ext, &mut rng()).unwrap();
    let good = encoded(&request);
    let r = d.post(good.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::TOKEN_RESPONSE);
    let body = r.bytes().await.unwrap();
    assert_eq!(body.len(), 145);
    let response = poprf::TokenResponse::decode(&body).unwrap();
    c.finalize(&mut state, &ext, &response).unwrap();

    // Extension type 1 is not permitted: 400.
    let refused = extensions_of(&[(1, b"x"), (2, b"\x00\x02US")]);
    let (request, _) = c.request(&ch, Extensions::decode(&refused).unwrap(), &mut rng()).unwrap();
    let r = d.post(encoded(&request)).await;
    assert_eq!(r.status(), StatusCode::BAD_REQUEST);
    assert_eq!(r.text().await.unwrap(), "extensions not permitted\n");
    // Malformed: truncated, trailing bytes, unsorted list, unknown key id,
    // an element off the curve: 400.
    let bad = StatusCode::BAD_REQUEST;
    assert_eq!(d.post(good[..good.len() - 1].to_vec()).await.status(), bad);
    let mut long = good.clone();
    long.push(0);
    assert_eq!(d.post(long).await.status(), bad);
    let mut unsorted = good[..52].to_vec();
    unsorted.extend_from_slice(&[0, 8, 0, 2, 0, 0, 0, 1, 0, 0]);
    assert_eq!(d.post(unsorted).await.status(), bad);
    let mut unknown = good.clone();
    unknown[2] ^= 0xff;
    assert_eq!(d.post(unknown).await.status(), bad);
    let mut off_curve = good.clone();
    off_curve[3] = 0x07;
    assert_eq!(d.post(off_curve).await.status(), bad);
}

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}
