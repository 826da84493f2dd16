//! The origin's Redis replay store under faults, against a real
//! `redis-server` each test starts on a free loopback port: restarted
//! empty, rewound to an older state, killed, stalled. These tests need
//! `redis-server` on the PATH, so they are `#[ignore]`d in the README's test
//! command and run by CI once it has installed Redis:
//! `cargo test -p pat-http --test redis -- --ignored`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::std_instead_of_core,
    clippy::panic
)]

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pat_http::metrics::Metrics;
use pat_http::origin::OriginService;
use pat_http::pool::{Pool, PoolConfig};
use pat_http::replay::{RedisConfig, Replay};
use pat_http::{origin, unix_now};
use reqwest::StatusCode;

mod common;
use common::*;

/// A `redis-server` without persistence on `port`, killed on drop.
struct Redis {
    child: Child,
    port: u16,
    _dir: tempfile::TempDir,
}

impl Redis {
    fn start_on(port: u16) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .current_dir(dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on the PATH (these tests are run by CI after installing it)");
        let redis = Self { child, port, _dir: dir };
        let started = Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < Duration::from_secs(10), "redis-server did not start");
            std::thread::sleep(Duration::from_millis(20));
        }
        redis
    }

    fn start() -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        Self::start_on(port)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    fn signal(&self, signal: &str) {
        let ok = Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap().success();
        assert!(ok, "kill {signal}");
    }

    /// Kills the server (its memory is gone) and starts an empty one on the same port.
    fn restart_empty(mut self) -> Self {
        let port = self.port;
        self.child.kill().unwrap();
        self.child.wait().unwrap();
        drop(self);
        Self::start_on(port)
    }

    async fn connection(&self) -> redis::aio::MultiplexedConnection {
        redis::Client::open(self.url()).unwrap().get_multiplexed_async_connection().await.unwrap()
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An origin of `token_type` on `redis`, checking the store every 50 ms.
async fn origin_on(d: &Deployment, token_type: u16, redis: &Redis) -> (Arc<OriginService>, String) {
    let metrics = Arc::new(Metrics::new());
    let config = RedisConfig { probe_interval: Duration::from_millis(50), ..RedisConfig::new(&redis.url()) };
    let replay = Arc::new(Replay::redis(config, Arc::clone(&metrics)).unwrap());
    let mut origin_config = d.origin_config(token_type);
    origin_config.max_age = 300;
    let pool = Pool::new(PoolConfig::default(), Arc::clone(&metrics));
    let service = OriginService::with(origin_config, replay, pool, metrics).await.unwrap();
    let addr = spawn(origin::router(Arc::clone(&service))).await;
    (service, format!("http://{addr}/resource"))
}

async fn wait_ready(service: &OriginService) {
    let started = Instant::now();
    while service.ready().is_err() {
        assert!(started.elapsed() < Duration::from_secs(10), "not ready: {:?}", service.ready());
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Item 7: tokens spent before Redis restarted without persistence are not
/// accepted again, at either of two origins sharing it (both accepted them:
/// the challenges were the same and the store had forgotten).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server; CI runs it"]
async fn a_redis_restarted_empty_accepts_no_token_twice() {
    let d = deployment().await;
    let redis = Redis::start();
    let (a, url_a) = origin_on(&d, 5, &redis).await;
    let (b, url_b) = origin_on(&d, 5, &redis).await;
    wait_ready(&a).await;
    wait_ready(&b).await;
    let mut spent = Vec::new();
    for i in 0..6 {
        let url = if i % 2 == 0 { &url_a } else { &url_b };
        let authorization = d.authorization(url).await;
        assert_eq!(d.get_with(url, &authorization).await.status(), StatusCode::OK);
        spent.push(authorization);
    }
    // The origins share the store: a token spent at one is spent at the other.
    assert_eq!(d.get_with(&url_b, &spent[0]).await.status(), StatusCode::UNAUTHORIZED);
    let unspent = d.authorization(&url_a).await;
    let redis = redis.restart_empty();
    // Until the origins see the empty store, they refuse with 503 or 401;
    // after, with 401: never 200.
    let started = Instant::now();
    while started.elapsed() < Duration::from_millis(500) {
        for url in [&url_a, &url_b] {
            for authorization in &spent {
                let status = d.get_with(url, authorization).await.status();
                assert_ne!(status, StatusCode::OK, "a spent token accepted twice after the restart");
            }
        }
    }
    wait_ready(&a).await;
    wait_ready(&b).await;
    // They agree on one new epoch: each saw one change, and no more while
    // they keep checking the store (an origin that knew a higher spend
    // counter than the other overwrote the other's new epoch before).
    tokio::time::sleep(Duration::from_secs(1)).await;
    for service in [&a, &b] {
        assert_eq!(service.metrics().epoch_changes.get(), 1, "one epoch change per origin");
    }
    for url in [&url_a, &url_b] {
        for authorization in &spent {
            assert_eq!(d.get_with(url, authorization).await.status(), StatusCode::UNAUTHORIZED);
        }
    }
    // A token issued before the loss but never spent is refused too (its
    // epoch is gone); the client gets a new challenge and a new token.
    assert_eq!(d.get_with(&url_a, &unspent).await.status(), StatusCode::UNAUTHORIZED);
    let fresh = d.authorization(&url_b).await;
    assert_eq!(d.get_with(&url_a, &fresh).await.status(), StatusCode::OK, "the origins agree on the new epoch");
    assert_eq!(d.get_with(&url_b, &fresh).await.status(), StatusCode::UNAUTHORIZED);
    drop(redis);
}

/// Item 7: a Redis that went back in time (restored from a snapshot taken
/// before some spends, or failed over to a replica that had not seen them:
/// the spent keys gone, the spend counter lower) is detected at the next
/// spend, and the tokens it forgot are refused.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server; CI runs it"]
async fn a_redis_that_went_back_in_time_accepts_no_token_twice() {
    let d = deployment().await;
    let redis = Redis::start();
    let (a, url_a) = origin_on(&d, 5, &redis).await;
    let (b, url_b) = origin_on(&d, 5, &redis).await;
    wait_ready(&a).await;
    wait_ready(&b).await;
    let mut conn = redis.connection().await;
    let before: u64 = redis::cmd("HGET")
        .arg("pat:epoch")
        .arg("seq")
        .query_async::<Option<u64>>(&mut conn)
        .await
        .unwrap()
        .unwrap_or(0);
    let mut spent = Vec::new();
    for _ in 0..3 {
        let authorization = d.authorization(&url_a).await;
        assert_eq!(d.get_with(&url_a, &authorization).await.status(), StatusCode::OK);
        spent.push(authorization);
    }
    // The "snapshot": the spent keys and the counter as they were before.
    let spent_keys: Vec<String> = redis::cmd("KEYS").arg("pat:spent:*").query_async(&mut conn).await.unwrap();
    assert_eq!(spent_keys.len(), 3);
    let _: () = redis::cmd("DEL").arg(&spent_keys).query_async(&mut conn).await.unwrap();
    let _: () = redis::cmd("HSET").arg("pat:epoch").arg("seq").arg(before).query_async(&mut conn).await.unwrap();
    for url in [&url_a, &url_b, &url_a] {
        for authorization in &spent {
            assert_ne!(d.get_with(url, authorization).await.status(), StatusCode::OK, "accepted twice");
        }
    }
    let fresh = d.authorization(&url_b).await;
    wait_ready(&a).await;
    assert_eq!(d.get_with(&url_a, &fresh).await.status(), StatusCode::OK);
}

/// Item 8: with Redis killed, a redemption is 503 within 100 ms (it waited
/// for the reconnect cycle, up to 9 s); once Redis is back and the origin
/// ready, the first redemption succeeds (it could get a false 503).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server; CI runs it"]
async fn a_killed_redis_is_refused_fast_and_recovered_from() {
    let d = deployment().await;
    let redis = Redis::start();
    let (a, url) = origin_on(&d, 5, &redis).await;
    wait_ready(&a).await;
    let authorization = d.authorization(&url).await;
    let port = redis.port;
    drop(redis);
    let mut slowest = Duration::ZERO;
    for _ in 0..20 {
        let started = Instant::now();
        let r = d.get_with(&url, &authorization).await;
        slowest = slowest.max(started.elapsed());
        assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(r.headers()["retry-after"], "1");
    }
    assert!(slowest < Duration::from_millis(100), "a 503 took {slowest:?}");
    assert!(a.ready().is_err());
    let _redis = Redis::start_on(port);
    wait_ready(&a).await;
    // The store came back empty: the old token's epoch is gone. A new one
    // redeems at the first try.
    let fresh = d.authorization(&url).await;
    assert_eq!(d.get_with(&url, &fresh).await.status(), StatusCode::OK);
}

/// Item 8: a stalled Redis gets the redemption a fast 503, and the spend,
/// run by Redis only once it resumes, finds its deadline passed and records
/// nothing: the client's token is still good (it was spent without the
/// client being served).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server; CI runs it"]
async fn a_stalled_redis_does_not_burn_the_token() {
    let d = deployment().await;
    let redis = Redis::start();
    let (a, url) = origin_on(&d, 5, &redis).await;
    wait_ready(&a).await;
    let authorization = d.authorization(&url).await;
    redis.signal("-STOP");
    let started = Instant::now();
    let r = d.get_with(&url, &authorization).await;
    let took = started.elapsed();
    assert_eq!(r.status(), StatusCode::SERVICE_UNAVAILABLE);
    assert!(took < Duration::from_millis(500), "{took:?}");
    tokio::time::sleep(Duration::from_millis(300)).await;
    redis.signal("-CONT");
    wait_ready(&a).await;
    let r = d.get_with(&url, &authorization).await;
    assert_eq!(r.status(), StatusCode::OK, "the stalled spend recorded the token");
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::UNAUTHORIZED);
    let m = a.metrics().render();
    assert!(m.contains("pat_replay_store_errors_total{kind=\"timeout\"} 1"), "{m}");
}

/// Item 9: a spent entry lives until the end of the window after the
/// current one plus the clock skew margin, counted by Redis from when it
/// records it, and is not cut short by the key's end of validity.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server; CI runs it"]
async fn spent_entries_outlive_their_window_by_the_skew_margin() {
    let d = deployment().await;
    // The type-5 key ends in 100 s, before the token's window does.
    let path = d.state.join(pat_http::keys::MANIFEST);
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let key_end = unix_now() + 100;
    for k in manifest["keys"].as_array_mut().unwrap().iter_mut().filter(|k| k["token_type"] == 5) {
        k["not_after"] = key_end.into();
    }
    std::fs::write(&path, serde_json::to_vec(&manifest).unwrap()).unwrap();
    let redis = Redis::start();
    let (a, url) = origin_on(&d, 5, &redis).await;
    wait_ready(&a).await;
    let authorization = d.authorization(&url).await;
    let now = unix_now();
    assert_eq!(d.get_with(&url, &authorization).await.status(), StatusCode::OK);
    let mut conn = redis.connection().await;
    let keys: Vec<String> = redis::cmd("KEYS").arg("pat:spent:*").query_async(&mut conn).await.unwrap();
    assert_eq!(keys.len(), 1);
    let ttl: i64 = redis::cmd("TTL").arg(&keys[0]).query_async(&mut conn).await.unwrap();
    let want =
        i64::try_from(pat::deploy::replay::windowed_expiry(now, 300, pat::deploy::replay::CLOCK_SKEW_MARGIN) - now)
            .unwrap();
    assert!((want - 3..=want).contains(&ttl), "TTL {ttl}, expected about {want}");
    // Not cut at the key's end (it was: a window lengthened by hand then
    // let a spent token redeem again).
    assert!(now + u64::try_from(ttl).unwrap() > key_end + 200, "TTL {ttl}");
}

/// A Redis that may evict keys (`volatile-lru`, the default of several
/// managed services, evicts exactly the spent entries, which have a TTL)
/// is refused: the origin is not ready and answers 503, until the policy
/// is `noeviction` again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs redis-server; CI runs it"]
async fn a_redis_that_may_evict_is_refused() {
    let d = deployment().await;
    let redis = Redis::start();
    let (a, url_a) = origin_on(&d, 5, &redis).await;
    wait_ready(&a).await;
    let authorization = d.authorization(&url_a).await;
    let mut conn = redis.connection().await;
    let _: () = redis::cmd("CONFIG")
        .arg("SET")
        .arg("maxmemory-policy")
        .arg("volatile-lru")
        .query_async(&mut conn)
        .await
        .unwrap();
    let started = Instant::now();
    while a.ready().is_ok() {
        assert!(started.elapsed() < Duration::from_secs(5), "still ready with volatile-lru");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(d.get_with(&url_a, &authorization).await.status(), StatusCode::SERVICE_UNAVAILABLE);
    let _: () =
        redis::cmd("CONFIG").arg("SET").arg("maxmemory-policy").arg("noeviction").query_async(&mut conn).await.unwrap();
    wait_ready(&a).await;
    assert_eq!(d.get_with(&url_a, &authorization).await.status(), StatusCode::OK);
}
