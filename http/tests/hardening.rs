//! The services under abuse and faults, on loopback in one process: keys
//! beyond the old ceiling of 32, slow and silent connections, oversized
//! headers, the connection cap, a flood of forged tokens against the
//! bounded pool, a restarted origin, orphan files, two rotations at once,
//! the operator's routes, CORS, a graceful stop, TLS at the origin, and
//! the client's caps on what an issuer or origin sends it.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::std_instead_of_core,
    clippy::panic
)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::Arc;
use std::time::{Duration, Instant};

use base64ct::{Base64UrlUnpadded, Encoding as _};
use pat_http::issuer::{IssuerConfig, IssuerService};
use pat_http::metrics::Metrics;
use pat_http::origin::OriginService;
use pat_http::pool::{Pool, PoolConfig};
use pat_http::replay::{RedisConfig, Replay};
use pat_http::server::Limits;
use pat_http::{client, issuer, keys, origin, server, unix_now};
use reqwest::StatusCode;
use sha2::{Digest as _, Sha256};

mod common;
use common::*;

/// Short bounds, so that the tests see them act.
fn short_limits() -> Limits {
    Limits {
        header_timeout: Duration::from_secs(1),
        request_timeout: Duration::from_secs(1),
        max_connections: 8,
        shutdown_grace: Duration::from_secs(5),
        ..Limits::default()
    }
}

/// Serves `router` with `limits` (and the layers every service gets) until `stop` fires.
async fn spawn_with(
    router: axum::Router,
    limits: Limits,
    metrics: Arc<Metrics>,
    route_of: server::RouteOf,
) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>, tokio::task::JoinHandle<()>) {
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let router = server::layered(router, &limits, Arc::clone(&metrics), route_of).unwrap();
    let (tx, rx) = tokio::sync::oneshot::channel::<()>();
    let handle = tokio::spawn(async move {
        pat_http::serve_with(router, listener, None, &limits, metrics, async {
            let _ = rx.await;
        })
        .await
        .unwrap();
    });
    (addr, tx, handle)
}

/// An origin of `token_type` (memory store) with `limits` and `pool`.
async fn origin_with(
    d: &Deployment,
    token_type: u16,
    limits: Limits,
    pool: PoolConfig,
) -> (Arc<OriginService>, String, tokio::sync::oneshot::Sender<()>) {
    let metrics = Arc::new(Metrics::new());
    let replay = Arc::new(Replay::memory(Arc::clone(&metrics)).unwrap());
    let pool = Pool::new(pool, Arc::clone(&metrics));
    let mut config = d.origin_config(token_type);
    config.max_age = 300;
    let service = OriginService::with(config, replay, pool, Arc::clone(&metrics)).await.unwrap();
    let (addr, stop, _) = spawn_with(origin::router(Arc::clone(&service)), limits, metrics, origin::route_of).await;
    (service, format!("http://{addr}"), stop)
}

/// Waits until the server closes `stream` (or answers and closes); returns
/// what it sent and how long it took. Panics after `max`.
fn wait_closed(mut stream: TcpStream, max: Duration) -> (String, Duration) {
    let started = Instant::now();
    stream.set_read_timeout(Some(max)).unwrap();
    let mut got = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        match stream.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => got.extend_from_slice(&buf[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::ConnectionReset => break,
            Err(e) => panic!("still open after {:?}: {e}", started.elapsed()),
        }
    }
    (String::from_utf8_lossy(&got).into_owned(), started.elapsed())
}

/// Item 5: silent connections, partial headers, idle keep-alives and
/// stalled bodies are closed within the timeouts (they were kept for good).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_and_silent_connections_are_closed_within_the_timeouts() {
    let d = deployment().await;
    let (_, url, _stop) = origin_with(&d, 5, short_limits(), PoolConfig::default()).await;
    let addr = url.trim_start_matches("http://").to_owned();
    let issuer_metrics = Arc::new(Metrics::new());
    let (issuer_addr, _istop, _) =
        spawn_with(issuer::service_router(Arc::clone(&d.issuer)), short_limits(), issuer_metrics, issuer::route_of)
            .await;
    let max = Duration::from_secs(4);
    tokio::task::spawn_blocking(move || {
        // Silent.
        let (got, took) = wait_closed(TcpStream::connect(&addr).unwrap(), max);
        assert!(took >= Duration::from_millis(900), "silent closed too soon: {took:?} {got:?}");
        // A header that never ends, a byte at a time.
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ").unwrap();
        let trickle = s.try_clone().unwrap();
        let writer = std::thread::spawn(move || {
            let mut t = trickle;
            for _ in 0..40 {
                if t.write_all(b"a").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let (_, took) = wait_closed(s, max);
        assert!(took < Duration::from_secs(3), "a trickled header kept the connection {took:?}");
        writer.join().unwrap();
        // Idle after one complete request.
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        let (got, took) = wait_closed(s, max);
        assert!(got.starts_with("HTTP/1.1 200"), "{got}");
        assert!(took < Duration::from_secs(3), "an idle keep-alive was kept {took:?}");
        // A body that stalls: 408, or the connection closed, within the request timeout.
        let mut s = TcpStream::connect(issuer_addr).unwrap();
        s.write_all(
            b"POST /token-request HTTP/1.1\r\nHost: x\r\nContent-Type: application/private-token-request\r\nContent-Length: 100\r\n\r\n0123456789",
        )
        .unwrap();
        let (got, took) = wait_closed(s, max);
        assert!(got.is_empty() || got.starts_with("HTTP/1.1 408"), "{got}");
        assert!(took < Duration::from_secs(3), "a stalled body kept the connection {took:?}");
        // An endless chunked body to the origin, which reads no body.
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(b"GET / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n").unwrap();
        let feeder = s.try_clone().unwrap();
        let feed = std::thread::spawn(move || {
            let mut f = feeder;
            for _ in 0..60 {
                if f.write_all(b"1\r\na\r\n").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        let (_, took) = wait_closed(s, max);
        assert!(took < Duration::from_secs(4), "an endless body kept the connection {took:?}");
        feed.join().unwrap();
    })
    .await
    .unwrap();
}

/// Item 5: a request head over the cap is 431 and the connection closes at
/// once; an `Authorization` value over the origin's bound is refused
/// without being parsed; a connection over the cap is closed at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_heads_and_extra_connections_are_refused_at_once() {
    let d = deployment().await;
    let (_, url, _stop) = origin_with(&d, 1, short_limits(), PoolConfig::default()).await;
    let addr = url.trim_start_matches("http://").to_owned();
    tokio::task::spawn_blocking(move || {
        for size in [20_000, 100_000, 400_000] {
            let mut s = TcpStream::connect(&addr).unwrap();
            let head = format!(
                "GET / HTTP/1.1\r\nHost: x\r\nAuthorization: PrivateToken token=\"{}\"\r\n\r\n",
                "A".repeat(size)
            );
            // The server may close before all of it is written.
            let _ = s.write_all(head.as_bytes());
            let (got, took) = wait_closed(s, Duration::from_secs(4));
            assert!(got.is_empty() || got.starts_with("HTTP/1.1 431"), "{size}: {got}");
            assert!(took < Duration::from_millis(900), "{size}: {took:?}");
        }
        // Under the head cap but over the Authorization bound: 401, unparsed.
        let got = raw_request(
            &addr,
            &format!("GET / HTTP/1.1\r\nHost: x\r\nAuthorization: PrivateToken token=\"{}\"\r\n\r\n", "A".repeat(4000)),
        );
        assert!(got.starts_with("HTTP/1.1 401"), "{got}");
        // Eight connections held (silent), the ninth is closed at once.
        let held: Vec<TcpStream> = (0..8).map(|_| TcpStream::connect(&addr).unwrap()).collect();
        std::thread::sleep(Duration::from_millis(200));
        let (got, took) = wait_closed(TcpStream::connect(&addr).unwrap(), Duration::from_secs(4));
        assert!(got.is_empty() && took < Duration::from_millis(500), "{got:?} after {took:?}");
        drop(held);
        std::thread::sleep(Duration::from_millis(300));
        let got = raw_request(&addr, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
        assert!(got.starts_with("HTTP/1.1 200"), "places come back: {got}");
    })
    .await
    .unwrap();
}

/// A well-formed type-1 token with the right challenge digest and key id
/// (both public) and a random authenticator: it reaches the verification.
fn forged_type1(www_authenticate: &str) -> String {
    let c = pat::wire::auth::parse_www_authenticate(www_authenticate).next().unwrap().unwrap();
    let mut buf = [0u8; 512];
    let challenge = c.decode_challenge(&mut buf).unwrap().to_vec();
    let mut kbuf = [0u8; 512];
    let key = c.token_key.unwrap().decode_base64url(&mut kbuf).unwrap().to_vec();
    let mut token = vec![0, 1];
    let mut nonce = [0u8; 32];
    rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, &mut nonce).unwrap();
    token.extend_from_slice(&nonce);
    token.extend_from_slice(&Sha256::digest(&challenge));
    token.extend_from_slice(&Sha256::digest(&key));
    token.extend_from_slice(&[7u8; 48]);
    format!("PrivateToken token=\"{}\"", Base64UrlUnpadded::encode_string(&token))
}

/// Item 6: forged tokens that reach the verification are shed (503 with
/// `Retry-After`) once the pool's places are taken, at once, instead of
/// queueing without end; a real token still redeems after the flood.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_forged_tokens_is_shed_by_the_bounded_pool() {
    let d = deployment().await;
    let pool = PoolConfig { workers: 1, queue: 1, queue_wait: Duration::from_millis(50) };
    let (service, url, _stop) = origin_with(&d, 1, Limits::default(), pool).await;
    let first = d.http.get(&url).send().await.unwrap();
    let www = first.headers()["www-authenticate"].to_str().unwrap().to_owned();
    let started = Instant::now();
    let requests: Vec<_> = (0..48)
        .map(|_| {
            let (http, url, auth) = (d.http.clone(), url.clone(), forged_type1(&www));
            tokio::spawn(async move {
                let r = http.get(&url).header("authorization", auth).send().await.unwrap();
                (r.status(), r.headers().get("retry-after").cloned())
            })
        })
        .collect();
    let (mut shed, mut refused) = (0, 0);
    for r in requests {
        match r.await.unwrap() {
            (StatusCode::SERVICE_UNAVAILABLE, Some(retry)) => {
                assert_eq!(retry, "1");
                shed += 1;
            }
            (StatusCode::UNAUTHORIZED, _) => refused += 1,
            other => panic!("{other:?}"),
        }
    }
    assert!(shed > 0 && refused > 0, "shed {shed}, refused {refused}");
    assert!(started.elapsed() < Duration::from_secs(20));
    let metrics = service.metrics().render();
    assert!(metrics.contains("pat_pool_shed_total{stage="), "{metrics}");
    assert!(metrics.contains(&format!("pat_redemptions_refused_total{{reason=\"busy\"}} {shed}")), "{metrics}");
    assert!(metrics.contains(&format!("pat_redemptions_refused_total{{reason=\"verification\"}} {refused}")));
    // A real token after the flood.
    let authorization = d.authorization(&url).await;
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);
}

/// Item 6: the issuer takes a place before it reads a body: with every
/// place held by a slow upload, another request is refused at once (503,
/// `Retry-After`), not queued.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_issuer_reads_bodies_only_with_a_place() {
    let d = deployment().await;
    let metrics = Arc::new(Metrics::new());
    let pool =
        Pool::new(PoolConfig { workers: 1, queue: 0, queue_wait: Duration::from_millis(50) }, Arc::clone(&metrics));
    let service = IssuerService::open_with(
        IssuerConfig {
            name: d.issuer_name.clone(),
            request_uri: format!("{}{}", d.issuer_url, issuer::REQUEST_PATH),
            state_dir: d.state.clone(),
            token_types: vec![1, 2, 5, keys::METADATA],
            lifetime: 3600,
            extensions: issuer::ExtensionsPolicy::Any,
        },
        pool,
        Arc::clone(&metrics),
    )
    .unwrap();
    let limits = Limits { request_timeout: Duration::from_secs(3), ..Limits::default() };
    let (addr, _stop, _) = spawn_with(issuer::router(service), limits, Arc::clone(&metrics), issuer::route_of).await;
    tokio::task::spawn_blocking(move || {
        let mut slow = TcpStream::connect(addr).unwrap();
        slow.write_all(
            b"POST /token-request HTTP/1.1\r\nHost: x\r\nContent-Type: application/private-token-request\r\nContent-Length: 40\r\n\r\n0123",
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(300));
        let started = Instant::now();
        let got = raw_request(
            &addr.to_string(),
            "POST /token-request HTTP/1.1\r\nHost: x\r\nContent-Type: application/private-token-request\r\nContent-Length: 4\r\n\r\n0123",
        );
        assert!(got.starts_with("HTTP/1.1 503"), "{got}");
        assert!(got.to_ascii_lowercase().contains("retry-after: 1"), "{got}");
        assert!(started.elapsed() < Duration::from_millis(500));
        drop(slow);
    })
    .await
    .unwrap();
    assert!(metrics.render().contains("pat_issuance_refused_total{reason=\"busy\"} 1"));
}

/// Item 7: an origin restarted with the memory store has a new epoch, so a
/// token spent before the restart is refused after it (it was accepted a
/// second time: the challenge was the same and the store empty).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_spent_before_a_restart_is_refused_after_it() {
    let d = deployment().await;
    for token_type in [1, 2] {
        let (_, before) = d.origin(d.origin_config(token_type)).await;
        let authorization = d.authorization(&before).await;
        assert_eq!(d.get_with(&before, &authorization).await.status(), StatusCode::OK);
        // The same configuration, a new process: what a restart is.
        let (_, after) = d.origin(d.origin_config(token_type)).await;
        let replayed = d.get_with(&after, &authorization).await;
        assert_eq!(replayed.status(), StatusCode::UNAUTHORIZED, "type {token_type}");
        // A new token from the restarted origin's challenge redeems once.
        let fresh = d.authorization(&after).await;
        assert_eq!(d.get_with(&after, &fresh).await.status(), StatusCode::OK);
        assert_eq!(d.get_with(&after, &fresh).await.status(), StatusCode::UNAUTHORIZED);
    }
}

/// Item 8: with its Redis store unreachable, the origin answers a
/// redemption with 503 at once (it waited for the reconnect cycle, up to
/// seconds), never with 200; it is not ready, and it gives no challenge it
/// could not redeem.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_redis_is_refused_fast_and_not_ready() {
    let d = deployment().await;
    let metrics = Arc::new(Metrics::new());
    // Nothing listens on port 1.
    let replay = Arc::new(Replay::redis(RedisConfig::new("redis://127.0.0.1:1/"), Arc::clone(&metrics)).unwrap());
    let pool = Pool::new(PoolConfig::default(), Arc::clone(&metrics));
    let service = OriginService::with(d.origin_config(5), replay, pool, Arc::clone(&metrics)).await.unwrap();
    let (addr, _stop, _) =
        spawn_with(origin::router(Arc::clone(&service)), Limits::default(), metrics, origin::route_of).await;
    let url = format!("http://{addr}/resource");
    for _ in 0..5 {
        let started = Instant::now();
        let r = d.get_with(&url, "PrivateToken token=\"AAAA\"").await;
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()["retry-after"], "1");
        assert!(started.elapsed() < Duration::from_millis(100), "{:?}", started.elapsed());
    }
    let r = d.http.get(&url).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE, "no challenge without the store's epoch");
    let r = d.http.get(format!("http://{addr}/readyz")).send().await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(r.text().await.unwrap().contains("replay store"));
    let m = d.http.get(format!("http://{addr}/metrics")).send().await.unwrap().text().await.unwrap();
    assert!(m.contains("pat_replay_store_up 0"), "{m}");
}

/// Item 4: an issuer whose state lists far more than 32 keys starts, serves
/// and publishes all of them (it failed with "capacity exceeded" once a
/// daily rotation reached ten days), and so does an origin joined to it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_issuer_with_many_keys_starts_and_publishes_them_all() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let now = unix_now();
    keys::open_or_init(&state, &[1, 5], now, 30 * 86_400).unwrap();
    // Eighteen rotations with the defaults' shape (`--in` a day, 30-day
    // keys): 19 keys of each type, 38 in all.
    for i in 0..18 {
        keys::rotate(&state, None, now, now + 86_400 * (i + 1), 30 * 86_400).unwrap();
    }
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let service = IssuerService::open(IssuerConfig {
        name: addr.to_string(),
        request_uri: format!("http://{addr}{}", issuer::REQUEST_PATH),
        state_dir: state.clone(),
        token_types: vec![1, 5],
        lifetime: 30 * 86_400,
        extensions: issuer::ExtensionsPolicy::Any,
    })
    .unwrap();
    tokio::spawn(pat_http::serve(issuer::router(Arc::clone(&service)), listener, None));
    let json: serde_json::Value = serde_json::from_slice(&service.directory()).unwrap();
    assert_eq!(json["token-keys"].as_array().unwrap().len(), 38);
    assert!(service.ready().is_ok());
    // A token under the current key, through an origin reading the same folder.
    let config = origin::OriginConfig {
        issuer_name: addr.to_string(),
        issuer_url: format!("http://{addr}"),
        token_type: 5,
        rate_limit: None,
        extensions: None,
        extension_set: Vec::new(),
        suggested_extensions: None,
        origin_info: String::new(),
        max_age: 60,
        clock_skew: 60,
        issuer_state: Some(state.clone()),
        send_token_key: true,
        refresh: Duration::from_secs(3600),
        ca_cert: None,
    };
    let origin = OriginService::new(config, Replay::memory(Arc::new(Metrics::new())).unwrap()).await.unwrap();
    assert!(origin.ready().is_ok());
    let oaddr = spawn(origin::router(origin)).await;
    let status = client::fetch(
        &client::FetchConfig {
            url: format!("http://{oaddr}/"),
            issuer_url: Some(format!("http://{addr}")),
            ca_cert: None,
            extensions: None,
            use_origin_extensions: false,
            credential_store: None,
        },
        &mut |_| {},
    )
    .await
    .unwrap();
    assert_eq!(status, 200);
}

/// Item 4: `rotate` refuses, with the reason, to go beyond the live keys a
/// state folder may hold, and leaves the folder as it was.
#[test]
fn rotate_refuses_beyond_the_live_key_limit() {
    let dir = tempfile::tempdir().unwrap();
    let now = unix_now();
    keys::open_or_init(dir.path(), &[5], now, 1 << 30).unwrap();
    let path = dir.path().join(keys::MANIFEST);
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let first = manifest["keys"][0].clone();
    for _ in 1..keys::MAX_LIVE_KEYS {
        manifest["keys"].as_array_mut().unwrap().push(first.clone());
    }
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let before = std::fs::read(&path).unwrap();
    let err = keys::rotate(dir.path(), None, now, now + 10, 1 << 30).unwrap_err().to_string();
    assert!(err.contains("128 keys are live already"), "{err}");
    assert_eq!(std::fs::read(&path).unwrap(), before);
}

/// Item 4: a key the issuer cannot serve (its truncated key id is another
/// key's) is skipped with a log line; the issuer starts with the rest.
#[test]
fn an_issuer_skips_a_key_with_a_colliding_truncated_id() {
    let dir = tempfile::tempdir().unwrap();
    let now = unix_now();
    keys::open_or_init(dir.path(), &[5], now, 3600).unwrap();
    let path = dir.path().join(keys::MANIFEST);
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let first = keys::load(dir.path(), now).unwrap().keys[0].key.key_id()[31];
    // A seed whose key id ends in the same byte.
    let seed = (0u32..)
        .map(|i| {
            let mut seed = [0u8; 32];
            seed[..4].copy_from_slice(&i.to_le_bytes());
            seed
        })
        .find(|seed| {
            let issuer = pat::tokens::private::Issuer::<pat::wire::token_type::PrivateRistretto255>::derive(
                seed,
                b"pat-http issuer key",
            )
            .unwrap();
            issuer.key_id()[31] == first
        })
        .unwrap();
    let hex: String = seed.iter().map(|b| format!("{b:02x}")).collect();
    std::fs::write(dir.path().join("type5-collides.seed"), hex).unwrap();
    let mut record = manifest["keys"][0].clone();
    record["file"] = "type5-collides.seed".into();
    manifest["keys"].as_array_mut().unwrap().push(record);
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let service = IssuerService::open(IssuerConfig {
        name: "issuer.example".into(),
        request_uri: "https://issuer.example/token-request".into(),
        state_dir: dir.path().to_owned(),
        token_types: vec![5],
        lifetime: 3600,
        extensions: issuer::ExtensionsPolicy::Any,
    })
    .unwrap();
    let json: serde_json::Value = serde_json::from_slice(&service.directory()).unwrap();
    assert_eq!(json["token-keys"].as_array().unwrap().len(), 1);
    assert!(service.metrics().render().contains("pat_keys_skipped_total 1"));
}

/// Item 10: files a crashed or failed writer left (temporary manifests, key
/// files no manifest lists) are removed by the next rotate, and by the next
/// start; other files stay.
#[test]
fn orphan_files_are_removed_by_the_next_rotate_or_start() {
    let dir = tempfile::tempdir().unwrap();
    let now = unix_now();
    keys::open_or_init(dir.path(), &[1, 5], now, 3600).unwrap();
    let orphans = ["type1-deadbeef.seed", "type2-0badc0de.pem", ".keys.json.4242.17.tmp"];
    let keep = ["notes.txt", "type2-vector.pem", "type5-DEADBEEF.seed"];
    let plant = || {
        for f in orphans.iter().chain(&keep) {
            std::fs::write(dir.path().join(f), "x").unwrap();
        }
    };
    plant();
    keys::rotate(dir.path(), None, now, now + 60, 3600).unwrap();
    for f in orphans {
        assert!(!dir.path().join(f).exists(), "{f} left by rotate");
    }
    for f in keep {
        assert!(dir.path().join(f).exists(), "{f} removed");
    }
    plant();
    keys::open_or_init(dir.path(), &[1, 5], now, 3600).unwrap();
    for f in orphans {
        assert!(!dir.path().join(f).exists(), "{f} left by a start");
    }
    // Every key file the manifest lists is still there and loads.
    assert_eq!(keys::load(dir.path(), now + 120).unwrap().keys.len(), 4);
}

/// A key the state lists but cannot load (its file removed, as a rotation
/// does to an expired key while a reader's clock is a moment behind) is
/// skipped and counted; the rest load and an issuer starts with them.
#[test]
fn a_key_that_cannot_be_loaded_is_skipped_not_a_failed_load() {
    let dir = tempfile::tempdir().unwrap();
    let now = unix_now();
    let state = keys::open_or_init(dir.path(), &[1, 5], now, 3600).unwrap();
    assert_eq!((state.keys.len(), state.skipped), (2, 0));
    keys::rotate(dir.path(), Some(&[5]), now, now + 60, 3600).unwrap();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join(keys::MANIFEST)).unwrap()).unwrap();
    let type1 = manifest["keys"].as_array().unwrap().iter().find(|k| k["token_type"] == 1).unwrap();
    std::fs::remove_file(dir.path().join(type1["file"].as_str().unwrap())).unwrap();
    let state = keys::load(dir.path(), now).unwrap();
    assert_eq!((state.keys.len(), state.skipped), (2, 1));
    assert!(state.keys.iter().all(|k| k.key.token_type() == 5));
    let service = IssuerService::open(IssuerConfig {
        name: "issuer.example".into(),
        request_uri: "https://issuer.example/token-request".into(),
        state_dir: dir.path().to_owned(),
        token_types: vec![5],
        lifetime: 3600,
        extensions: issuer::ExtensionsPolicy::Any,
    })
    .unwrap();
    assert!(service.metrics().render().contains("pat_keys_skipped_total 1"));
}

/// Two rotations at once run one after the other (the folder's lock): both
/// keys are in the manifest, and nothing else is.
#[test]
fn two_rotations_at_once_both_land() {
    let dir = tempfile::tempdir().unwrap();
    let now = unix_now();
    keys::open_or_init(dir.path(), &[1, 5], now, 3600).unwrap();
    let path = dir.path().to_owned();
    let barrier = Arc::new(std::sync::Barrier::new(2));
    let runs: Vec<_> = (0..2)
        .map(|i| {
            let (path, barrier) = (path.clone(), Arc::clone(&barrier));
            std::thread::spawn(move || {
                barrier.wait();
                keys::rotate(&path, None, now, now + 60 + i, 3600).unwrap()
            })
        })
        .collect();
    let added: Vec<_> = runs.into_iter().flat_map(|r| r.join().unwrap()).collect();
    assert_eq!(added.len(), 4);
    let state = keys::load(&path, now).unwrap();
    assert_eq!(state.keys.len(), 6);
    for a in &added {
        assert!(state.keys.iter().any(|k| k.key.key_id() == &a.key_id));
    }
    let stray: Vec<_> = std::fs::read_dir(&path)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
}

/// Item 11: `/healthz`, `/readyz` (503 once draining) and `/metrics` with
/// the counts of a redemption, a replay and a refusal.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_readiness_and_metrics() {
    let d = deployment().await;
    let (service, url, _stop) = origin_with(&d, 5, Limits::default(), PoolConfig::default()).await;
    let get = |path: &str| d.http.get(format!("{url}{path}")).send();
    let r = get("/healthz").await.unwrap();
    assert_eq!((r.status(), r.text().await.unwrap()), (StatusCode::OK, "ok\n".to_owned()));
    assert_eq!(get("/readyz").await.unwrap().status(), StatusCode::OK);
    let authorization = d.authorization(&format!("{url}/x")).await;
    assert_eq!(d.get_with(&format!("{url}/x"), &authorization).await.status(), StatusCode::OK);
    assert_eq!(d.get_with(&format!("{url}/x"), &authorization).await.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(d.get_with(&format!("{url}/x"), "PrivateToken token=\"AAAA\"").await.status(), StatusCode::UNAUTHORIZED);
    let r = get("/metrics").await.unwrap();
    assert!(r.headers()["content-type"].to_str().unwrap().starts_with("application/openmetrics-text"));
    let text = r.text().await.unwrap();
    for line in [
        "pat_tokens_redeemed_total{token_type=\"5\"} 1",
        "pat_redemptions_refused_total{reason=\"replayed\"} 1",
        "pat_redemptions_refused_total{reason=\"malformed\"} 1",
        "pat_replay_store_up 1",
        "pat_keys_loaded{token_type=\"5\"} 1",
        "pat_request_duration_seconds_count{route=\"protected\"} 4",
    ] {
        assert!(text.contains(line), "{line} in\n{text}");
    }
    assert!(text.ends_with("# EOF\n"));
    service.drain();
    let r = get("/readyz").await.unwrap();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert_eq!(get("/healthz").await.unwrap().status(), StatusCode::OK);
}

/// Item 11: `--cors-origin`: a browser page of an allowed origin can
/// preflight the issuer's POST and read the origin's `WWW-Authenticate`;
/// another origin gets no CORS headers.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cors_for_allowed_browser_origins() {
    let d = deployment().await;
    let limits = Limits { cors_origins: vec!["https://app.example".into()], ..Limits::default() };
    let (_, url, _stop) = origin_with(&d, 2, limits.clone(), PoolConfig::default()).await;
    let (iaddr, _istop, _) =
        spawn_with(issuer::router(Arc::clone(&d.issuer)), limits, Arc::new(Metrics::new()), issuer::route_of).await;
    let r = d.http.get(format!("{url}/x")).header("origin", "https://app.example").send().await.unwrap();
    assert_eq!(r.status(), StatusCode::UNAUTHORIZED);
    assert_eq!(r.headers()["access-control-allow-origin"], "https://app.example");
    let exposed = r.headers()["access-control-expose-headers"].to_str().unwrap().to_ascii_lowercase();
    assert!(exposed.contains("www-authenticate"), "{exposed}");
    let preflight = d
        .http
        .request(reqwest::Method::OPTIONS, format!("http://{iaddr}{}", issuer::REQUEST_PATH))
        .header("origin", "https://app.example")
        .header("access-control-request-method", "POST")
        .header("access-control-request-headers", "content-type")
        .send()
        .await
        .unwrap();
    assert!(preflight.status().is_success(), "{}", preflight.status());
    assert_eq!(preflight.headers()["access-control-allow-origin"], "https://app.example");
    let methods = preflight.headers()["access-control-allow-methods"].to_str().unwrap();
    assert!(methods.contains("POST"), "{methods}");
    let allowed = preflight.headers()["access-control-allow-headers"].to_str().unwrap().to_ascii_lowercase();
    assert!(allowed.contains("content-type") && allowed.contains("authorization"), "{allowed}");
    let other = d.http.get(format!("{url}/x")).header("origin", "https://evil.example").send().await.unwrap();
    assert!(other.headers().get("access-control-allow-origin").is_none());
}

/// Item 11: a graceful stop: the listener closes, a request in flight
/// finishes, then `serve_with` returns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_drains_requests_in_flight() {
    let d = deployment().await;
    let metrics = Arc::new(Metrics::new());
    let (addr, stop, served) =
        spawn_with(issuer::router(Arc::clone(&d.issuer)), Limits::default(), metrics, issuer::route_of).await;
    let mut slow = TcpStream::connect(addr).unwrap();
    slow.write_all(
        b"POST /token-request HTTP/1.1\r\nHost: x\r\nContent-Type: application/private-token-request\r\nContent-Length: 8\r\n\r\n0123",
    )
    .unwrap();
    tokio::time::sleep(Duration::from_millis(200)).await;
    stop.send(()).unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(TcpStream::connect(addr).is_err(), "the listener is closed");
    assert!(!served.is_finished(), "a request is still in flight");
    slow.write_all(b"4567").unwrap();
    let (got, _) = tokio::task::spawn_blocking(move || wait_closed(slow, Duration::from_secs(5))).await.unwrap();
    assert!(got.starts_with("HTTP/1.1 422"), "the request in flight got its answer: {got}");
    tokio::time::timeout(Duration::from_secs(5), served).await.unwrap().unwrap();
}

/// Item 10: the origin serves HTTPS (`--tls-cert`, `--tls-key`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_origin_serves_tls() {
    let d = deployment().await;
    let certs = concat!(env!("CARGO_MANIFEST_DIR"), "/../interop/certs");
    let tls = pat_http::tls::server_config(
        std::path::Path::new(&format!("{certs}/localhost.pem")),
        std::path::Path::new(&format!("{certs}/localhost-key.pem")),
    )
    .unwrap();
    let service =
        OriginService::new(d.origin_config(5), Replay::memory(Arc::new(Metrics::new())).unwrap()).await.unwrap();
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    tokio::spawn(pat_http::serve(origin::router(service), listener, Some(tls)));
    let https = client::http_client(Some(std::path::Path::new(&format!("{certs}/ca.pem")))).unwrap();
    let url = format!("https://localhost:{}/x", addr.port());
    let first = https.get(&url).send().await.unwrap();
    assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
    let authorization = client::authorize(&https, first.headers(), Some(&d.issuer_url), &mut |_| {}).await.unwrap();
    let ok = https.get(&url).header("authorization", &authorization).send().await.unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    // Plain HTTP on the TLS port gets nothing.
    assert!(d.http.get(format!("http://127.0.0.1:{}/x", addr.port())).send().await.is_err());
}

/// Item 10: the client keeps at most a small prefix of an issuer's error
/// body (it read all of it), and refuses an issuer name that is not a host
/// (it turned any name into a URL).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_caps_error_bodies_and_checks_issuer_names() {
    let d = deployment().await;
    let (_, url) = d.origin(d.origin_config(5)).await;
    let first = d.http.get(&url).send().await.unwrap();
    // An "issuer" whose directory is the real one but whose request URI
    // answers 400 with 8 MiB.
    let directory =
        d.http.get(format!("{}{}", d.issuer_url, pat::deploy::directory::WELL_KNOWN_PATH)).send().await.unwrap();
    let json = directory.text().await.unwrap();
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let evil_json = json.replace(&format!("{}{}", d.issuer_url, issuer::REQUEST_PATH), &format!("http://{addr}/huge"));
    let evil = axum::Router::new()
        .route(pat::deploy::directory::WELL_KNOWN_PATH, axum::routing::get(move || async move { evil_json }))
        .route("/huge", axum::routing::post(|| async { (StatusCode::BAD_REQUEST, "x".repeat(8 << 20)) }));
    tokio::spawn(pat_http::serve(evil, listener, None));
    let err = client::authorize(&d.http, first.headers(), Some(&format!("http://{addr}")), &mut |_| {})
        .await
        .unwrap_err()
        .to_string();
    assert!(err.starts_with("the issuer answered 400 Bad Request"), "{err}");
    assert!(err.len() < client::MAX_ERROR_TEXT + 100, "{} bytes", err.len());
    // A challenge naming an issuer that is not a host: refused before any request.
    let challenge = pat::TokenChallenge::new(5, b"user@evil.example", &[0; 32], b"").unwrap();
    let mut bytes = vec![0u8; pat::wire::codec::Encode::encoded_len(&challenge)];
    pat::wire::codec::Encode::encode(&challenge, &mut bytes).unwrap();
    let mut out = vec![0u8; 1024];
    let value = pat::wire::auth::write_www_authenticate_without_key(&bytes, Some(60), &mut out).unwrap();
    let mut headers = reqwest::header::HeaderMap::new();
    headers.insert("www-authenticate", value.parse().unwrap());
    let err = client::authorize(&d.http, &headers, None, &mut |_| {}).await.unwrap_err().to_string();
    assert!(err.contains("is not a host name"), "{err}");
}

/// Item 4 (origin): a third-party directory with more than 32 keys and a
/// key listed twice (a colliding truncated id) loads: the usable keys are
/// kept and the others skipped with a log line (the whole refresh failed).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_origin_reads_a_large_directory_with_colliding_keys() {
    let d = deployment().await;
    let keys_now: serde_json::Value = serde_json::from_slice(&d.issuer.directory()).unwrap();
    let type2 = keys_now["token-keys"].as_array().unwrap().iter().find(|k| k["token-type"] == 2).unwrap().clone();
    let type1 = keys_now["token-keys"].as_array().unwrap().iter().find(|k| k["token-type"] == 1).unwrap().clone();
    let mut list = vec![type2.clone(), type2];
    list.extend(std::iter::repeat_n(type1, 40));
    let json = serde_json::json!({
        "issuer-request-uri": format!("{}{}", d.issuer_url, issuer::REQUEST_PATH),
        "token-keys": list,
    })
    .to_string();
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let directory = axum::Router::new()
        .route(pat::deploy::directory::WELL_KNOWN_PATH, axum::routing::get(move || async move { json }));
    tokio::spawn(pat_http::serve(directory, listener, None));
    let mut config = d.origin_config(2);
    config.issuer_url = format!("http://{addr}");
    let metrics = Arc::new(Metrics::new());
    let origin = OriginService::with(
        config,
        Arc::new(Replay::memory(Arc::clone(&metrics)).unwrap()),
        Pool::new(PoolConfig::default(), Arc::clone(&metrics)),
        metrics,
    )
    .await
    .unwrap();
    assert!(origin.ready().is_ok());
    let text = origin.metrics().render();
    assert!(text.contains("pat_keys_loaded{token_type=\"2\"} 1"), "{text}");
    assert!(text.contains("pat_keys_skipped_total 1"), "{text}");
}
