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
