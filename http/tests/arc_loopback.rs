//! Type 0xE5AC (ARC(P-256), draft-ietf-privacypass-arc-protocol-01) through
//! the HTTP services on loopback, in one process: a key made on first start
//! and published in the directory, credentials issued on their own media
//! types, `pat fetch`'s flow with a credential store (N presentations of a
//! limit of N from one credential, then a new credential), replayed
//! presentations refused at the origin and at a second origin sharing its
//! store, each refusal's metrics reason, the draft's statuses for bad
//! credential requests, the bounds, a store outage and a store failing at
//! spend refused, and the credential store's failure cases.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::sync::Arc;
use std::time::Duration;

use pat::Error;
use pat::crypto::arc::CredentialResponse;
use pat::tokens::arc::{self, ArcChallenge};
use pat::wire::codec::Decode;
use pat_http::credentials::{CredentialKey, CredentialStore, Stored};
use pat_http::issuer::{ExtensionsPolicy, IssuerConfig, IssuerService};
use pat_http::metrics::Metrics;
use pat_http::origin::{self, OriginConfig, OriginService};
use pat_http::pool::{Pool, PoolConfig};
use pat_http::replay::{RedisConfig, Replay};
use pat_http::{client, issuer, keys, media};
use reqwest::StatusCode;

const LIMIT: u64 = 3;

struct Deployment {
    _dir: tempfile::TempDir,
    dir: std::path::PathBuf,
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

/// An issuer of type 0xE5AC (and type 1, to post its requests as
/// credentials), whose keys it makes on first start.
async fn deployment() -> Deployment {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let issuer_name = addr.to_string();
    let issuer_url = format!("http://{issuer_name}");
    let service = IssuerService::open(IssuerConfig {
        name: issuer_name.clone(),
        request_uri: format!("{issuer_url}{}", issuer::REQUEST_PATH),
        state_dir: state.clone(),
        token_types: vec![1, keys::ARC],
        lifetime: 3600,
        extensions: ExtensionsPolicy::Any,
    })
    .unwrap();
    tokio::spawn(pat_http::serve(issuer::router(Arc::clone(&service)), listener, None));
    let http = client::http_client(None).unwrap();
    Deployment { dir: dir.path().to_owned(), _dir: dir, state, issuer_url, issuer_name, http }
}

impl Deployment {
    fn config(&self, rate_limit: Option<u64>) -> OriginConfig {
        OriginConfig {
            issuer_name: self.issuer_name.clone(),
            issuer_url: self.issuer_url.clone(),
            token_type: keys::ARC,
            rate_limit,
            extensions: None,
            extension_set: Vec::new(),
            suggested_extensions: None,
            origin_info: String::new(),
            max_age: 3600,
            clock_skew: pat::deploy::replay::CLOCK_SKEW_MARGIN,
            issuer_state: Some(self.state.clone()),
            send_token_key: true,
            refresh: Duration::from_secs(3600),
            ca_cert: None,
        }
    }

    /// An origin of type 0xE5AC under `limit` with the replay store `replay`.
    async fn origin(&self, limit: u64, replay: Arc<Replay>) -> String {
        self.origin_counted(limit, replay, Arc::new(Metrics::new())).await
    }

    /// [`Self::origin`], counting into `metrics`.
    async fn origin_counted(&self, limit: u64, replay: Arc<Replay>, metrics: Arc<Metrics>) -> String {
        let pool = Pool::new(PoolConfig::default(), Arc::clone(&metrics));
        let service = OriginService::with(self.config(Some(limit)), replay, pool, metrics).await.unwrap();
        format!("http://{}/resource", spawn(origin::router(service)).await)
    }

    /// A 401's challenge answered from the credential store `store`.
    async fn authorization(&self, url: &str, store: &std::path::Path) -> String {
        self.authorization_logged(url, store).await.0
    }

    /// [`Self::authorization`], with the client's log lines.
    async fn authorization_logged(&self, url: &str, store: &std::path::Path) -> (String, Vec<String>) {
        let first = self.http.get(url).send().await.unwrap();
        assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
        let mut lines = Vec::new();
        let authorization = client::authorize_with_credentials(
            &self.http,
            first.headers(),
            Some(&self.issuer_url),
            Some(store),
            &mut |l| lines.push(l.to_owned()),
        )
        .await
        .unwrap();
        (authorization, lines)
    }

    async fn get_with(&self, url: &str, authorization: &str) -> reqwest::Response {
        self.http.get(url).header("authorization", authorization).send().await.unwrap()
    }

    async fn post(&self, media_type: &str, body: Vec<u8>) -> reqwest::Response {
        let url = format!("{}{}", self.issuer_url, issuer::REQUEST_PATH);
        self.http.post(url).header("content-type", media_type).body(body).send().await.unwrap()
    }

    /// The 0xE5AC token key of the directory.
    async fn token_key(&self) -> Vec<u8> {
        let url = format!("{}{}", self.issuer_url, pat::deploy::directory::WELL_KNOWN_PATH);
        let json = self.http.get(&url).send().await.unwrap().bytes().await.unwrap();
        let text = std::str::from_utf8(&json).unwrap();
        assert!(text.contains("\"token-type\":58796") || text.contains("\"token-type\": 58796"), "{text}");
        let mut scratch = vec![0u8; json.len()];
        let dir = pat::deploy::directory::IssuerDirectory::<8>::parse(&json, &mut scratch).unwrap();
        let entry = dir.keys().iter().find(|k| k.token_type() == keys::ARC).expect("a 0xE5AC key in the directory");
        let mut buf = [0u8; 512];
        entry.decode_token_key(&mut buf).unwrap().to_vec()
    }

    /// The credential bytes the store at `path` keeps for this issuer.
    fn stored_credential(&self, path: &std::path::Path, key_id: [u8; 32]) -> Vec<u8> {
        let store = CredentialStore::open(path).unwrap();
        let key = CredentialKey::new(self.issuer_name.as_bytes(), &[], &[], &key_id).unwrap();
        store.get(&key).unwrap().credential.to_vec()
    }
}

/// The origin's challenge window now (the tests' origins have a max-age of
/// 3600 s): a step that crosses into the next one gets a new challenge, and
/// so a fresh presentation state.
fn window() -> u64 {
    pat_http::unix_now() / 3600
}

/// The value of the counter `pat_redemptions_refused_total{reason}` (0 if
/// it was never counted).
fn refused(metrics: &Metrics, reason: &str) -> u64 {
    let text = metrics.render();
    let prefix = format!("pat_redemptions_refused_total{{reason=\"{reason}\"}} ");
    text.lines().find_map(|l| l.strip_prefix(&prefix)).map_or(0, |n| n.parse().unwrap())
}

fn memory() -> Arc<Replay> {
    Arc::new(Replay::memory(Arc::new(Metrics::new())).unwrap())
}

fn encoded(m: &impl pat::Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_credential_gives_its_limit_of_tokens_then_a_new_one_is_fetched() {
    let d = deployment().await;
    let key = d.token_key().await;
    assert_eq!(key.len(), 99);
    let key_id: [u8; 32] = <sha2::Sha256 as sha2::Digest>::digest(&key).into();
    // The key file: hex of the 128-byte secret, owner-only.
    let manifest = std::fs::read_to_string(d.state.join(keys::MANIFEST)).unwrap();
    assert!(manifest.contains("\"token_type\": 58796"), "{manifest}");
    let file = std::fs::read_dir(&d.state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "key"))
        .unwrap();
    assert_eq!(std::fs::read_to_string(&file).unwrap().trim().len(), 256);
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(std::fs::metadata(&file).unwrap().permissions().mode() & 0o777, 0o600);

    let replay = memory();
    let url = d.origin(LIMIT, Arc::clone(&replay)).await;
    let second = d.origin(LIMIT, Arc::clone(&replay)).await;
    let first = d.http.get(&url).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
    let www = first.headers()["www-authenticate"].to_str().unwrap().to_owned();
    assert!(www.ends_with(", rate-limit=3"), "{www}");
    let c = pat::wire::auth::parse_www_authenticate(&www).next().unwrap().unwrap();
    assert_eq!(c.decode_rate_limit(), Ok(Some(LIMIT)));
    let mut buf = [0u8; 512];
    let challenge = ArcChallenge::decode(c.decode_challenge(&mut buf).unwrap()).unwrap();
    assert!(challenge.credential_context().is_empty());

    // N presentations from one credential: 200 each.
    let store = d.dir.join("credentials.json");
    let mut spent = Vec::new();
    let start = window();
    for i in 0..LIMIT {
        let authorization = d.authorization(&url, &store).await;
        assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK, "presentation {i}");
        spent.push(authorization);
    }
    assert_eq!(std::fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
    let credential = d.stored_credential(&store, key_id);
    let after_limit = d.dir.join("after-limit.json");
    std::fs::copy(&store, &after_limit).unwrap();
    // The N+1th: the stored credential has made its tokens for this
    // challenge; the client gets a new one, and the token is accepted. (A
    // run in the next window has a new challenge, for which the stored
    // credential has a presentation left.)
    let authorization = d.authorization(&url, &store).await;
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK, "after a new credential");
    if window() == start {
        assert_ne!(d.stored_credential(&store, key_id), credential, "a new credential");
    }
    assert_eq!(d.stored_credential(&after_limit, key_id), credential);

    // Replays: each spent presentation again, here and at a second origin
    // sharing the store: 401.
    for authorization in &spent {
        let r = d.get_with(&url, authorization).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert!(r.headers().contains_key("www-authenticate"));
        assert_eq!(r.text().await.unwrap(), "token already spent\n");
        assert_eq!(d.get_with(&second, authorization).await.status(), StatusCode::UNAUTHORIZED);
    }
    // A presentation made again from a saved state (the same nonce, so the
    // same tag, with fresh randomness: other bytes) is a replay too, at
    // either origin.
    // Made in one window, or tried once more if the window changed between
    // the two (the second would then be for another challenge).
    for attempt in 0..2 {
        let saved = d.dir.join("saved.json");
        std::fs::copy(&store, &saved).unwrap();
        let start = window();
        let fresh = d.authorization(&url, &store).await;
        assert_eq!(d.get_with(&url, &fresh).await.status(), StatusCode::OK);
        let again = d.authorization(&second, &saved).await;
        assert_ne!(again, fresh);
        let r = d.get_with(&second, &again).await;
        if window() != start && attempt == 0 {
            continue;
        }
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
        assert_eq!(r.text().await.unwrap(), "token already spent\n");
        break;
    }

    // The client itself refuses a presentation past the limit.
    let client = arc::Client::from_token_key(&key).unwrap();
    let cred_challenge = ArcChallenge::new(d.issuer_name.as_bytes(), &[], b"", &[]).unwrap();
    let (state, request) = client.request(&cred_challenge, &mut rng()).unwrap();
    let r = d.post(media::CREDENTIAL_REQUEST, encoded(&request)).await;
    let response = CredentialResponse::decode(&r.bytes().await.unwrap()).unwrap();
    let credential = client.finalize(&state, &response).unwrap();
    let mut pstate = client.presentation_state(&credential, &challenge, LIMIT).unwrap();
    let mut out = vec![0u8; arc::token_len(LIMIT).unwrap()];
    for _ in 0..LIMIT {
        client.token(&mut pstate, &challenge, &mut rng(), &mut out).unwrap();
    }
    assert_eq!(client.token(&mut pstate, &challenge, &mut rng(), &mut out), Err(Error::PresentationLimitReached));

    // Without a store, each answer obtains a credential of its own.
    let first = d.http.get(&url).send().await.unwrap();
    let once = client::authorize_with_credentials(&d.http, first.headers(), Some(&d.issuer_url), None, &mut |_| {})
        .await
        .unwrap();
    assert_eq!(d.get_with(&url, &once).await.status(), StatusCode::OK);
    // And `pat fetch`'s whole flow.
    let config = client::FetchConfig {
        url: url.clone(),
        issuer_url: Some(d.issuer_url.clone()),
        credential_store: Some(store.clone()),
        ..Default::default()
    };
    assert_eq!(client::fetch(&config, &mut |_| {}).await.unwrap(), 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_for_another_limit_malformed_or_oversized_are_refused() {
    let d = deployment().await;
    let replay = memory();
    let (metrics, other_metrics) = (Arc::new(Metrics::new()), Arc::new(Metrics::new()));
    let url = d.origin_counted(LIMIT, Arc::clone(&replay), Arc::clone(&metrics)).await;
    let other_limit = d.origin_counted(LIMIT + 1, Arc::clone(&replay), Arc::clone(&other_metrics)).await;
    let store = d.dir.join("c.json");
    let authorization = d.authorization(&url, &store).await;
    // A token made under 3 is as long as one under 4 (685 bytes: the range
    // proof has two bits for both), so it is read, but it does not verify
    // under 4.
    assert_eq!(arc::token_len(LIMIT).unwrap(), arc::token_len(LIMIT + 1).unwrap());
    let r = d.get_with(&other_limit, &authorization).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(r.text().await.unwrap(), "token not valid\n");
    assert_eq!(refused(&other_metrics, "verification"), 1);
    // Each refusal below, with the reason the metrics count: truncated, a
    // bit flipped in the presentation, another type, not base64, over the
    // limit's length, another key id, another challenge.
    let p = pat::wire::auth::parse_authorization(&authorization).unwrap();
    let mut tb = vec![0u8; 8192];
    let token = p.decode_base64url(&mut tb).unwrap().to_vec();
    let write = |t: &[u8]| {
        let mut out = vec![0u8; 16384];
        pat::wire::auth::write_authorization(t, &mut out).unwrap().to_owned()
    };
    let mut flipped = token.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 1;
    let mut typed = token.clone();
    typed[1] = 0x01;
    // Token = type (2) ‖ presentation_nonce (4) ‖ challenge_digest (32) ‖
    // key id (32) ‖ presentation.
    let mut other_key = token.clone();
    other_key[38] ^= 1;
    let mut other_challenge = token.clone();
    other_challenge[6] ^= 1;
    for (bad, reason) in [
        (write(&token[..token.len() - 1]), "malformed"),
        (write(&flipped), "verification"),
        (write(&typed), "wrong_type"),
        ("PrivateToken token=\"!!!!\"".to_owned(), "malformed"),
        (format!("PrivateToken token=\"{}\"", "A".repeat(1200)), "malformed"),
        (write(&other_key), "unknown_key"),
        (write(&other_challenge), "unknown_challenge"),
    ] {
        let before = refused(&metrics, reason);
        let r = d.get_with(&url, &bad).await;
        assert_eq!(r.status(), StatusCode::UNAUTHORIZED, "{}", &bad[..40.min(bad.len())]);
        assert!(r.headers().contains_key("www-authenticate"));
        assert_eq!(refused(&metrics, reason), before + 1, "{reason}");
    }
    // The genuine token still redeems once.
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(refused(&metrics, "replayed"), 1);
    // The presentation_nonce is not verified (the tag is what is spent): a
    // spent token with another nonce verifies, and is a replay.
    let mut renonced = token.clone();
    renonced[5] ^= 1;
    let r = d.get_with(&url, &write(&renonced)).await;
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(r.text().await.unwrap(), "token already spent\n");
    assert_eq!(refused(&metrics, "replayed"), 2);
    let text = metrics.render();
    for line in [
        "pat_redemptions_refused_total{reason=\"malformed\"} 3",
        "pat_redemptions_refused_total{reason=\"verification\"} 1",
        "pat_tokens_redeemed_total{token_type=\"0xE5AC\"} 1",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
}

/// A fake Redis on loopback: it answers the origin's checks (one epoch,
/// `noeviction`) and fails every spend with an error reply, so a token is
/// refused after it verified.
fn redis_failing_spends() -> String {
    use std::io::{BufRead as _, BufReader, Write as _};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            std::thread::spawn(move || {
                let mut reader = BufReader::new(stream.try_clone().unwrap());
                let mut out = stream;
                let mut line = String::new();
                loop {
                    // A command: *N, then N bulk strings.
                    line.clear();
                    if reader.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let n: usize = line.trim_end().strip_prefix('*').unwrap().parse().unwrap();
                    let mut args = Vec::new();
                    for _ in 0..n {
                        line.clear();
                        reader.read_line(&mut line).unwrap();
                        let len: usize = line.trim_end().strip_prefix('$').unwrap().parse().unwrap();
                        let mut arg = vec![0u8; len + 2];
                        std::io::Read::read_exact(&mut reader, &mut arg).unwrap();
                        arg.truncate(len);
                        args.push(String::from_utf8_lossy(&arg).into_owned());
                    }
                    let command = args[0].to_ascii_uppercase();
                    let reply = match (command.as_str(), args.get(2).map(String::as_str)) {
                        // The sync script (one key): epoch, generation, counter, time.
                        ("EVALSHA" | "EVAL", Some("1")) => {
                            let now = pat_http::unix_now();
                            format!("*5\r\n$32\r\n{}\r\n$1\r\n1\r\n$1\r\n0\r\n:{now}\r\n:0\r\n", "ab".repeat(16))
                        }
                        // The spend script (two keys).
                        ("EVALSHA" | "EVAL", _) => "-ERR injected failure\r\n".to_owned(),
                        ("INFO", _) => {
                            let info = "# Memory\r\nmaxmemory_policy:noeviction\r\n";
                            format!("${}\r\n{info}\r\n", info.len())
                        }
                        _ => "+OK\r\n".to_owned(),
                    };
                    if out.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    format!("redis://127.0.0.1:{port}/")
}

/// A store that fails at the spend, after the token verified: 503 with
/// `Retry-After`, never an acceptance, and the token is not spent.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_store_failing_at_spend_refuses_with_503() {
    let d = deployment().await;
    let metrics = Arc::new(Metrics::new());
    let failing = Arc::new(Replay::redis(RedisConfig::new(&redis_failing_spends()), Arc::clone(&metrics)).unwrap());
    let url = d.origin_counted(LIMIT, failing, Arc::clone(&metrics)).await;
    let store = d.dir.join("c.json");
    let authorization = d.authorization(&url, &store).await;
    for n in 1..=2 {
        let r = d.get_with(&url, &authorization).await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()["retry-after"], "1");
        assert_eq!(refused(&metrics, "store_unavailable"), n);
    }
    let text = metrics.render();
    assert!(text.contains("pat_replay_store_errors_total{kind=\"error\"} 2"), "{text}");
    assert_eq!(refused(&metrics, "verification"), 0);
    assert!(!text.contains("pat_tokens_redeemed_total{token_type=\"0xE5AC\"} 1"), "{text}");
}

/// B1: a stored presentation state that does not load may be the
/// challenge's: the client does not make that state again (it would repeat
/// its tags, and the origin would refuse the token as a replay) but drops
/// the credential and obtains a new one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_state_that_does_not_load_gets_a_new_credential() {
    let d = deployment().await;
    let url = d.origin(LIMIT, memory()).await;
    let store = d.dir.join("c.json");
    let (first, lines) = d.authorization_logged(&url, &store).await;
    assert!(lines.iter().any(|l| l == "credential: new from the issuer"), "{lines:?}");
    assert_eq!(d.get_with(&url, &first).await.status(), StatusCode::OK);
    // Its state, one byte short.
    let mut json: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(&store).unwrap()).unwrap();
    let state = json["credentials"][0]["states"][0].as_str().unwrap().to_owned();
    json["credentials"][0]["states"][0] = serde_json::Value::String(state[2..].to_owned());
    std::fs::write(&store, serde_json::to_vec(&json).unwrap()).unwrap();
    let (second, lines) = d.authorization_logged(&url, &store).await;
    assert!(lines.iter().any(|l| l.starts_with("credential: a stored presentation state does not load")), "{lines:?}");
    assert!(lines.iter().any(|l| l == "credential: new from the issuer"), "{lines:?}");
    assert_eq!(d.get_with(&url, &second).await.status(), StatusCode::OK);
}

/// S1: origins with long origin_info (64 KB each, as a hostile origin may
/// send) do not grow the store: it is keyed by a digest, within its
/// limit, and fetches from it still work.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn long_origin_infos_do_not_grow_the_store() {
    let d = deployment().await;
    let url = d.origin(LIMIT, memory()).await;
    let store = d.dir.join("c.json");
    {
        let mut s = CredentialStore::open(&store).unwrap();
        for n in 0..200u8 {
            let key = CredentialKey::new(d.issuer_name.as_bytes(), &vec![n; 65_000], &[], &[n; 32]).unwrap();
            let states = (0..32).map(|_| zeroize::Zeroizing::new(vec![n; 180])).collect();
            s.put(key, Stored { credential: zeroize::Zeroizing::new(vec![n; 131]), states });
        }
        s.save().unwrap();
    }
    let size = std::fs::metadata(&store).unwrap().len();
    assert!(size < 1 << 20, "{size}");
    for _ in 0..2 {
        let authorization = d.authorization(&url, &store).await;
        assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);
    }
    assert!(std::fs::metadata(&store).unwrap().len() <= pat_http::credentials::MAX_FILE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn credential_requests_get_the_drafts_statuses() {
    let d = deployment().await;
    let key = d.token_key().await;
    let client = arc::Client::from_token_key(&key).unwrap();
    let challenge = ArcChallenge::new(d.issuer_name.as_bytes(), &[], b"", &[9; 32]).unwrap();
    let (state, request) = client.request(&challenge, &mut rng()).unwrap();
    let good = encoded(&request);
    assert_eq!(good.len(), arc::REQUEST_LEN);
    let r = d.post(media::CREDENTIAL_REQUEST, good.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);
    assert_eq!(r.headers()["content-type"], media::CREDENTIAL_RESPONSE);
    let body = r.bytes().await.unwrap();
    assert_eq!(body.len(), arc::RESPONSE_LEN);
    client.finalize(&state, &CredentialResponse::decode(&body).unwrap()).unwrap();
    // With parameters and in capitals, the media type is the same.
    let r = d.post("Application/Private-Credential-Request; charset=x", good.clone()).await;
    assert_eq!(r.status(), StatusCode::OK);

    let unprocessable = StatusCode::UNPROCESSABLE_ENTITY;
    // §7.2: the wrong size, a truncated key id no key has, a request that
    // does not deserialize: 422.
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, good[..good.len() - 1].to_vec()).await.status(), unprocessable);
    let mut long = good.clone();
    long.push(0);
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, long).await.status(), unprocessable);
    let mut unknown = good.clone();
    unknown[2] ^= 0xff;
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, unknown).await.status(), unprocessable);
    let mut off_curve = good.clone();
    off_curve[3] = 0x07;
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, off_curve).await.status(), unprocessable);
    let mut bad_proof = good.clone();
    let last = bad_proof.len() - 1;
    bad_proof[last] ^= 1;
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, bad_proof).await.status(), unprocessable);
    // A CredentialRequest as a TokenRequest, a type-1 request as a
    // credential request: neither is served so, 422.
    assert_eq!(d.post(media::TOKEN_REQUEST, good.clone()).await.status(), unprocessable);
    let mut type1 = vec![0u8; 52];
    type1[1] = 1;
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, type1).await.status(), unprocessable);
    // Shorter than a token type, or empty: it does not deserialize, 422 too.
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, vec![0xE5]).await.status(), unprocessable);
    assert_eq!(d.post(media::CREDENTIAL_REQUEST, Vec::new()).await.status(), unprocessable);
    // Another media type: 415. A body over the limit: 413.
    assert_eq!(d.post("application/octet-stream", good.clone()).await.status(), StatusCode::UNSUPPORTED_MEDIA_TYPE);
    assert_eq!(
        d.post("application/private-credential-response", good).await.status(),
        StatusCode::UNSUPPORTED_MEDIA_TYPE
    );
    let r = d.post(media::CREDENTIAL_REQUEST, vec![0; issuer::MAX_BODY + 1]).await;
    assert_eq!(r.status(), StatusCode::PAYLOAD_TOO_LARGE);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_store_refuses_and_bad_configurations_do_not_start() {
    let d = deployment().await;
    let url = d.origin(LIMIT, memory()).await;
    let store = d.dir.join("c.json");
    let authorization = d.authorization(&url, &store).await;
    // Nothing listens on port 1: the token is refused with 503, never accepted.
    let metrics = Arc::new(Metrics::new());
    let down = Arc::new(Replay::redis(RedisConfig::new("redis://127.0.0.1:1/"), Arc::clone(&metrics)).unwrap());
    let pool = Pool::new(PoolConfig::default(), Arc::clone(&metrics));
    let service = OriginService::with(d.config(Some(LIMIT)), down, pool, metrics).await.unwrap();
    let down_url = format!("http://{}/resource", spawn(origin::router(service)).await);
    for _ in 0..3 {
        let r = d.get_with(&down_url, &authorization).await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()["retry-after"], "1");
    }
    assert_eq!(d.http.get(&down_url).send().await.unwrap().status(), StatusCode::SERVICE_UNAVAILABLE);
    // The token was not spent anywhere: its own origin takes it once.
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);

    // No limit, an unusable one, a limit for another type, no issuer state.
    for (config, why) in [
        (d.config(None), "--rate-limit"),
        (d.config(Some(1)), "2 to 2^32"),
        (d.config(Some((1 << 32) + 1)), "2 to 2^32"),
        (OriginConfig { token_type: 1, ..d.config(Some(3)) }, "applies to type 0xE5AC"),
        (OriginConfig { issuer_state: None, ..d.config(Some(3)) }, "--issuer-state"),
        (OriginConfig { extensions: Some(vec![1]), ..d.config(Some(3)) }, "--allowed-extensions"),
    ] {
        let err = OriginService::new(config, Replay::memory(Arc::new(Metrics::new())).unwrap()).await.unwrap_err();
        assert!(err.to_string().contains(why), "{err}");
    }
    // The origin reads the limit's bound from the library: 2^32 starts.
    OriginService::new(d.config(Some(1 << 32)), Replay::memory(Arc::new(Metrics::new())).unwrap()).await.unwrap();
}
