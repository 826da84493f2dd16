//! `pat issuer serve`, `pat origin serve`, `pat issuer rotate` and `pat fetch`
//! as separate processes on loopback, as the README's three commands run.
#![cfg(feature = "serve")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

/// A service process, killed when dropped.
struct Service(Child);

impl Drop for Service {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts `pat ARGS` and returns it with the URL of its `listening on URL` line.
fn serve(args: &[&str]) -> (Service, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_pat"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    let url = line.trim().rsplit(' ').next().unwrap().to_owned();
    assert!(line.contains("listening on http://"), "{line:?}");
    (Service(child), url)
}

fn fetch(url: &str, issuer_url: &str) -> (i32, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_pat")).args(["fetch", url, "--issuer-url", issuer_url]).output().unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap())
}

/// A port free a moment ago: the issuer's name, and so its request URI, carries it.
fn free_port() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().to_string()
}

#[test]
fn issuer_origin_and_fetch_as_processes() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let state = state.to_str().unwrap();
    let addr = free_port();
    let (_issuer, issuer_url) = serve(&["issuer", "serve", "--listen", &addr, "--name", &addr, "--state", state]);
    // Keys of every default type were made on first start.
    let manifest = std::fs::read_to_string(dir.path().join("issuer/keys.json")).unwrap();
    for t in ["\"token_type\": 1", "\"token_type\": 2", "\"token_type\": 5"] {
        assert!(manifest.contains(t), "{manifest}");
    }
    for (token_type, joined) in [("1", true), ("2", false), ("5", true)] {
        let mut args = vec!["origin", "serve", "--listen", "127.0.0.1:0", "--issuer", &addr];
        args.extend(["--issuer-url", &issuer_url, "--token-type", token_type]);
        if joined {
            args.extend(["--issuer-state", state]);
        }
        let (_origin, origin_url) = serve(&args);
        let (code, out) = fetch(&format!("{origin_url}/page"), &issuer_url);
        assert_eq!((code, out.as_str()), (0, "status 200\n"), "type {token_type}");
    }
    // Rotation prints one line per type, and the issuer keeps issuing.
    let out =
        Command::new(env!("CARGO_BIN_EXE_pat")).args(["issuer", "rotate", "--state", state, "--in", "60"]).output();
    let out = String::from_utf8(out.unwrap().stdout).unwrap();
    assert_eq!(out.lines().count(), 3, "{out}");
    assert!(out.lines().all(|l| l.starts_with("type ") && l.contains(" valid from ")), "{out}");
    let (_origin, origin_url) = serve(&[
        "origin",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        "issuer.test",
        "--issuer-url",
        &issuer_url,
        "--token-type",
        "2",
    ]);
    let (code, out) = fetch(&format!("{origin_url}/"), &issuer_url);
    assert_eq!((code, out.as_str()), (0, "status 200\n"));
}

#[test]
fn type_da7b_issued_and_redeemed_as_processes() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let state = state.to_str().unwrap();
    let addr = free_port();
    let (_issuer, issuer_url) =
        serve(&["issuer", "serve", "--listen", &addr, "--name", &addr, "--state", state, "--token-types", "0xDA7B"]);
    let manifest = std::fs::read_to_string(dir.path().join("issuer/keys.json")).unwrap();
    assert!(manifest.contains("\"token_type\": 55931"), "{manifest}");
    let (_origin, origin_url) = serve(&[
        "origin",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        &addr,
        "--issuer-url",
        &issuer_url,
        "--token-type",
        "0xDA7B",
        "--issuer-state",
        state,
    ]);
    let url = format!("{origin_url}/page");
    let (code, out) = fetch(&url, &issuer_url);
    assert_eq!((code, out.as_str()), (0, "status 200\n"), "without extensions");
    let out = Command::new(env!("CARGO_BIN_EXE_pat"))
        .args(["fetch", &url, "--issuer-url", &issuer_url, "--extension", "2:0002555a"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "status 200\n", "with an extension");
}

/// `pat fetch --credential-store FILE`: exit code, stdout, stderr (its log).
fn fetch_arc(url: &str, issuer_url: &str, store: &std::path::Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_pat"))
        .args(["fetch", url, "--issuer-url", issuer_url, "--credential-store", store.to_str().unwrap()])
        .output()
        .unwrap();
    (out.status.code().unwrap_or(-1), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

/// `pat origin serve` of type 0xE5AC under a limit of 3, joined with the
/// issuer's state, with `extra` arguments (a Redis store).
fn arc_origin(addr: &str, issuer_url: &str, state: &str, extra: &[&str]) -> (Service, String) {
    let mut args = vec!["origin", "serve", "--listen", "127.0.0.1:0", "--issuer", addr, "--issuer-url", issuer_url];
    args.extend(["--token-type", "0xE5AC", "--rate-limit", "3", "--issuer-state", state, "--max-age", "3600"]);
    args.extend(extra);
    let (origin, url) = serve(&args);
    (origin, format!("{url}/page"))
}

/// The number of the origin's one-hour challenge window now: a run that
/// crosses into the next one gets a new challenge, and so a fresh state.
fn window() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() / 3600
}

/// Type 0xE5AC (ARC) as processes: `pat fetch` with a credential store gets
/// the origin's limit of 3 tokens from one credential (one credential
/// request, then the stored credential twice), and the 4th run obtains a
/// new credential, whose token is accepted too (200). A presentation made
/// again from a saved copy of the store (the same nonce, so the same tag)
/// is refused (401).
#[test]
fn type_e5ac_issued_and_redeemed_as_processes() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let state = state.to_str().unwrap();
    let addr = free_port();
    let (_issuer, issuer_url) =
        serve(&["issuer", "serve", "--listen", &addr, "--name", &addr, "--state", state, "--token-types", "0xE5AC"]);
    let manifest = std::fs::read_to_string(dir.path().join("issuer/keys.json")).unwrap();
    assert!(manifest.contains("\"token_type\": 58796"), "{manifest}");
    let (_origin, url) = arc_origin(&addr, &issuer_url, state, &[]);
    let store = dir.path().join("credentials.json");
    let saved = dir.path().join("saved.json");
    let start = window();
    for run in 0..3 {
        if run == 2 {
            std::fs::copy(&store, &saved).unwrap();
        }
        let (code, out, log) = fetch_arc(&url, &issuer_url, &store);
        assert_eq!((code, out.as_str()), (0, "status 200\n"), "run {run}: {log}");
        let new = log.contains("credential: new from the issuer");
        assert_eq!(new, run == 0 || window() != start, "run {run}: {log}");
    }
    // The 4th run: the credential's 3 presentations for this challenge are
    // made, so it gets a new credential (and a token from it: 200).
    let (code, out, log) = fetch_arc(&url, &issuer_url, &store);
    assert_eq!((code, out.as_str()), (0, "status 200\n"), "{log}");
    if window() == start {
        assert!(log.contains("presentations for this challenge are made; a new one"), "{log}");
        assert!(log.contains("credential: new from the issuer"), "{log}");
    }
    // The 3rd presentation again, from the copy saved before it: refused.
    let (code, out, log) = fetch_arc(&url, &issuer_url, &saved);
    if window() == start {
        assert_eq!((code, out.as_str()), (1, "status 401\n"), "{log}");
    }
    use std::os::unix::fs::PermissionsExt as _;
    assert_eq!(std::fs::metadata(&store).unwrap().permissions().mode() & 0o777, 0o600);
}

/// A `redis-server` without persistence on a free loopback port, killed on
/// drop (http/tests/redis.rs's convention: the tests that need it are
/// `#[ignore]`d, and fail when it is not on the PATH).
struct Redis(Child, u16);

impl Redis {
    fn start(dir: &std::path::Path) -> Self {
        let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("redis-server on the PATH (this test is run by CI after installing it)");
        let redis = Self(child, port);
        let started = std::time::Instant::now();
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(started.elapsed() < std::time::Duration::from_secs(10), "redis-server did not start");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        redis
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Two type-0xE5AC origin processes sharing one Redis replay store: a
/// presentation accepted at the first is refused at the second when made
/// again from a saved copy of the credential store (the same tag). Needs
/// `redis-server` on the PATH: `cargo test -p pat-cli --test serve --
/// --ignored` (CI runs it; scripts/interop runs the same case).
#[test]
#[ignore = "needs redis-server; CI runs it"]
fn type_e5ac_replay_refused_at_a_second_origin_sharing_redis() {
    let dir = tempfile::tempdir().unwrap();
    let redis = Redis::start(dir.path());
    let redis_url = format!("redis://127.0.0.1:{}/", redis.1);
    let state = dir.path().join("issuer");
    let state = state.to_str().unwrap();
    let addr = free_port();
    let (_issuer, issuer_url) =
        serve(&["issuer", "serve", "--listen", &addr, "--name", &addr, "--state", state, "--token-types", "0xE5AC"]);
    let (_a, url_a) = arc_origin(&addr, &issuer_url, state, &["--redis", &redis_url]);
    let (_b, url_b) = arc_origin(&addr, &issuer_url, state, &["--redis", &redis_url]);
    let store = dir.path().join("credentials.json");
    let saved = dir.path().join("saved.json");
    let start = window();
    // The origins reach Redis and agree on its epoch within a probe or two.
    let started = std::time::Instant::now();
    let (code, out, log) = loop {
        let (code, out, log) = fetch_arc(&url_a, &issuer_url, &store);
        if code == 0 || started.elapsed() > std::time::Duration::from_secs(10) {
            break (code, out, log);
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    assert_eq!((code, out.as_str()), (0, "status 200\n"), "{log}");
    std::fs::copy(&store, &saved).unwrap();
    let (code, out, log) = fetch_arc(&url_a, &issuer_url, &store);
    assert_eq!((code, out.as_str()), (0, "status 200\n"), "at A: {log}");
    let (code, out, log) = fetch_arc(&url_b, &issuer_url, &saved);
    if window() == start {
        assert_eq!((code, out.as_str()), (1, "status 401\n"), "replayed at B: {log}");
    }
    // B takes the credential's next presentation.
    let (code, out, log) = fetch_arc(&url_b, &issuer_url, &store);
    assert_eq!((code, out.as_str()), (0, "status 200\n"), "at B: {log}");
    drop(redis);
}

#[test]
fn an_origin_requiring_an_extension_and_pat_fetch_as_processes() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let state = state.to_str().unwrap();
    let addr = free_port();
    let (_issuer, issuer_url) =
        serve(&["issuer", "serve", "--listen", &addr, "--name", &addr, "--state", state, "--token-types", "0xDA7B"]);
    let (_origin, origin_url) = serve(&[
        "origin",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        &addr,
        "--issuer-url",
        &issuer_url,
        "--token-type",
        "0xDA7B",
        "--issuer-state",
        state,
        "--require-extension",
        "2",
        "--optional-extension",
        "1",
        "--suggest-extension",
        "2:0002434e",
    ]);
    let url = format!("{origin_url}/page");
    let run = |extra: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_pat"))
            .args(["fetch", &url, "--issuer-url", &issuer_url])
            .args(extra)
            .output()
            .unwrap();
        (out.status.code(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
    };
    // Without a value of the required type: a clear error, exit 1.
    let (code, out, err) = run(&[]);
    assert_eq!((code, out.as_str()), (Some(1), ""), "{err}");
    assert!(err.contains("the origin requires extension types 2"), "{err}");
    assert!(err.contains("--use-origin-extensions"), "{err}");
    // With one, or with the origin's suggestion: 200.
    let (code, out, err) = run(&["--extension", "2:0002555a", "--extension", "7:00"]);
    assert_eq!((code, out.as_str()), (Some(0), "status 200\n"), "{err}");
    assert!(err.contains("extension types 7 are not in the origin's extension-set"), "{err}");
    let (code, out, err) = run(&["--use-origin-extensions"]);
    assert_eq!((code, out.as_str()), (Some(0), "status 200\n"), "{err}");

    // An origin whose tokens carry no extensions cannot require one.
    let out = Command::new(env!("CARGO_BIN_EXE_pat"))
        .args(["origin", "serve", "--listen", "127.0.0.1:0", "--issuer", &addr, "--issuer-url", &issuer_url])
        .args(["--token-type", "2", "--require-extension", "2"])
        .output()
        .unwrap();
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("tokens of type 2 carry no extensions"), "{err}");
    // The flags are in the help.
    let help = Command::new(env!("CARGO_BIN_EXE_pat")).args(["origin", "serve", "--help"]).output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    for flag in ["--require-extension", "--optional-extension", "--suggest-extension"] {
        assert!(help.contains(flag), "{flag}: {help}");
    }
    let help = Command::new(env!("CARGO_BIN_EXE_pat")).args(["fetch", "--help"]).output().unwrap();
    assert!(String::from_utf8(help.stdout).unwrap().contains("--use-origin-extensions"));
}

#[test]
fn fetch_of_an_unprotected_or_unreachable_url() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let (_issuer, issuer_url) = serve(&[
        "issuer",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--name",
        "issuer.test",
        "--token-types",
        "5",
        "--state",
        state.to_str().unwrap(),
    ]);
    // The directory itself needs no token: 200 without any.
    let (code, out) = fetch(&format!("{issuer_url}/.well-known/private-token-issuer-directory"), &issuer_url);
    assert_eq!((code, out.as_str()), (0, "status 200\n"));
    // A 404 is reported and fails.
    let (code, out) = fetch(&format!("{issuer_url}/nothing"), &issuer_url);
    assert_eq!((code, out.as_str()), (1, "status 404\n"));
    // Nobody listening: an error on stderr, exit 1.
    let (code, out) = fetch("http://127.0.0.1:9/", &issuer_url);
    assert_eq!((code, out.as_str()), (1, ""));
}

/// SIGTERM: the issuer stops accepting, lets the request in flight finish
/// (a body still arriving), then exits 0; a JSON log line says so.
#[test]
fn sigterm_drains_then_exits_zero() {
    use std::io::{Read as _, Write as _};
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let addr = free_port();
    let mut child = Command::new(env!("CARGO_BIN_EXE_pat"))
        .args(["issuer", "serve", "--listen", &addr, "--name", &addr, "--token-types", "5"])
        .args(["--state", state.to_str().unwrap(), "--log-format", "json", "--shutdown-grace", "20"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("listening on http://"), "{line:?}");
    let mut slow = std::net::TcpStream::connect(&addr).unwrap();
    slow.write_all(
        b"POST /token-request HTTP/1.1\r\nHost: x\r\nContent-Type: application/private-token-request\r\nContent-Length: 8\r\n\r\n0123",
    )
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(300));
    let ok = Command::new("kill").args(["-TERM", &child.id().to_string()]).status().unwrap().success();
    assert!(ok);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(std::net::TcpStream::connect(&addr).is_err(), "the listener closed");
    assert!(child.try_wait().unwrap().is_none(), "still draining the request in flight");
    slow.write_all(b"4567").unwrap();
    let mut answer = String::new();
    slow.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 422"), "{answer}");
    let started = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "did not exit");
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    let mut logs = String::new();
    child.stderr.take().unwrap().read_to_string(&mut logs).unwrap();
    let events: Vec<serde_json::Value> = logs.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert!(events.iter().any(|e| e["fields"]["message"].as_str().is_some_and(|m| m.contains("shutting down"))));
}

/// Starts `pat ARGS` without waiting for it; [`listening`] waits.
fn spawn_service(args: &[&str]) -> Service {
    Service(
        Command::new(env!("CARGO_BIN_EXE_pat"))
            .args(args)
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    )
}

/// The URL of a started service's `listening on URL` line.
fn listening(service: &mut Service) -> String {
    let mut line = String::new();
    BufReader::new(service.0.stdout.take().unwrap()).read_line(&mut line).unwrap();
    assert!(line.contains("listening on http://"), "{line:?}");
    line.trim().rsplit(' ').next().unwrap().to_owned()
}

/// The body of `GET url` (plain HTTP/1.1 over loopback).
fn get_body(url: &str) -> String {
    use std::io::{Read as _, Write as _};
    let rest = url.strip_prefix("http://").unwrap();
    let (host, path) = rest.split_once('/').map_or((rest, String::from("/")), |(h, p)| (h, format!("/{p}")));
    let mut stream = std::net::TcpStream::connect(host).unwrap();
    write!(stream, "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n").unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    assert!(response.starts_with("HTTP/1.1 200"), "{response}");
    response.split_once("\r\n\r\n").unwrap().1.to_owned()
}

fn directory_of(issuer_url: &str) -> String {
    get_body(&format!("{issuer_url}/.well-known/private-token-issuer-directory"))
}

/// Issue 35 item 5: three `pat issuer serve` replicas on one state folder
/// (a shared volume), started together on an empty folder, make one key
/// per type between them and publish the same directory; each issues
/// tokens that origins accept. Two `pat issuer rotate` at once both land
/// (the folder's lock), and every replica publishes the new keys within
/// its reload interval (one second).
#[test]
fn three_issuer_replicas_share_one_folder_and_two_rotations_serialize() {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    let state = state.to_str().unwrap();
    // One name and a relative request URI: the directory is the same bytes
    // at every replica, and a client posts to the replica it read it from
    // (as behind a load balancer).
    let mut replicas: Vec<Service> = (0..3)
        .map(|_| {
            spawn_service(&[
                "issuer",
                "serve",
                "--listen",
                "127.0.0.1:0",
                "--name",
                "issuer.test",
                "--request-uri",
                "/token-request",
                "--state",
                state,
                "--token-types",
                "2,5",
            ])
        })
        .collect();
    let urls: Vec<String> = replicas.iter_mut().map(listening).collect();
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("issuer/keys.json")).unwrap()).unwrap();
    assert_eq!(manifest["keys"].as_array().unwrap().len(), 2, "one key per type between the three: {manifest}");
    let first = directory_of(&urls[0]);
    for url in &urls[1..] {
        assert_eq!(directory_of(url), first, "replicas publish different directories");
    }
    // Every replica issues: type 2 verified with the directory's key, type
    // 5 with the folder's (an origin joined with the issuers).
    let (_o2, origin2) = serve(&[
        "origin",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        "issuer.test",
        "--issuer-url",
        &urls[0],
        "--token-type",
        "2",
    ]);
    let (_o5, origin5) = serve(&[
        "origin",
        "serve",
        "--listen",
        "127.0.0.1:0",
        "--issuer",
        "issuer.test",
        "--issuer-url",
        &urls[0],
        "--token-type",
        "5",
        "--issuer-state",
        state,
    ]);
    for url in &urls {
        for origin in [&origin2, &origin5] {
            let (code, out) = fetch(&format!("{origin}/page"), url);
            assert_eq!((code, out.as_str()), (0, "status 200\n"), "issued by {url} for {origin}");
        }
    }
    // Two rotations at once: both land, one after the other.
    let rotate = || {
        Command::new(env!("CARGO_BIN_EXE_pat"))
            .args(["issuer", "rotate", "--state", state, "--in", "60"])
            .stdout(Stdio::piped())
            .spawn()
            .unwrap()
    };
    let (a, b) = (rotate(), rotate());
    let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
    let rotated = std::time::Instant::now();
    assert!(a.status.success() && b.status.success());
    for out in [&a.stdout, &b.stdout] {
        assert_eq!(String::from_utf8_lossy(out).lines().count(), 2, "one line per type");
    }
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(dir.path().join("issuer/keys.json")).unwrap()).unwrap();
    let files: std::collections::BTreeSet<&str> =
        manifest["keys"].as_array().unwrap().iter().map(|k| k["file"].as_str().unwrap()).collect();
    assert_eq!(files.len(), 6, "both rotations' keys, each in its own file: {manifest}");
    // Every replica publishes the four new keys within its reload interval.
    let expected_keys = |directory: &str| {
        let d: serde_json::Value = serde_json::from_str(directory).unwrap();
        d["token-keys"].as_array().unwrap().len()
    };
    for url in &urls {
        while expected_keys(&directory_of(url)) != 6 {
            assert!(rotated.elapsed() < std::time::Duration::from_millis(2500), "{url} did not reload");
            std::thread::sleep(std::time::Duration::from_millis(50));
        }
    }
    let after = directory_of(&urls[0]);
    for url in &urls[1..] {
        assert_eq!(directory_of(url), after);
    }
    for url in &urls {
        let (code, out) = fetch(&format!("{origin2}/page"), url);
        assert_eq!((code, out.as_str()), (0, "status 200\n"));
    }
}
