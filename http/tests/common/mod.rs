//! The deployment the loopback tests share: an issuer on loopback with keys
//! of types 1 and 5 and the vector RSA keys of types 2 and 0xDA7A, origins on
//! demand, and a few raw-socket helpers.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use pat_http::issuer::{ExtensionsPolicy, IssuerConfig, IssuerService};
use pat_http::origin::{OriginConfig, OriginService};
use pat_http::replay::Replay;
use pat_http::{client, issuer, keys, origin, unix_now};
use reqwest::StatusCode;

/// The pat-go type-2 vector key (a PKCS#8 PEM, hex in the file): RSA key
/// generation at opt-level 0 would dominate the test's time.
pub fn vector_rsa_pem() -> String {
    vector_pem(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/vectors/pat-go/tokens/type2/type2-issuance-test-vectors.json"
    ))
}

/// The privacypass-ts type-0xDA7A vector key (safe primes; safe-prime key
/// generation would take far longer than the test).
pub fn vector_metadata_pem() -> String {
    vector_pem(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/vectors/privacypass-ts/pub_verif_with_metadata_v3.json"))
}

pub fn vector_pem(path: &str) -> String {
    let cases: serde_json::Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let hex = cases[0]["skS"].as_str().unwrap();
    let bytes: Vec<u8> = (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect();
    String::from_utf8(bytes).unwrap()
}

/// A state folder with a type-1 and a type-5 key made by the issuer and the
/// vector RSA keys for types 2 and 0xDA7A.
pub fn state_dir(dir: &Path, now: u64) {
    keys::open_or_init(dir, &[1, 5], now, 3600).unwrap();
    let manifest_path = dir.join(keys::MANIFEST);
    let mut manifest: serde_json::Value = serde_json::from_slice(&std::fs::read(&manifest_path).unwrap()).unwrap();
    std::fs::write(dir.join("type2-vector.pem"), vector_rsa_pem()).unwrap();
    std::fs::write(dir.join("type55930-vector.pem"), vector_metadata_pem()).unwrap();
    manifest["keys"].as_array_mut().unwrap().push(serde_json::json!({
        "token_type": 2, "file": "type2-vector.pem", "not_before": now, "not_after": now + 3600
    }));
    manifest["keys"].as_array_mut().unwrap().push(serde_json::json!({
        "token_type": keys::METADATA, "file": "type55930-vector.pem", "not_before": now, "not_after": now + 3600
    }));
    std::fs::write(&manifest_path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

pub struct Deployment {
    pub _dir: tempfile::TempDir,
    pub state: std::path::PathBuf,
    pub issuer: Arc<IssuerService>,
    pub issuer_url: String,
    pub issuer_name: String,
    pub http: reqwest::Client,
}

pub async fn spawn(router: axum::Router) -> std::net::SocketAddr {
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    tokio::spawn(pat_http::serve(router, listener, None));
    addr
}

pub async fn deployment() -> Deployment {
    deployment_with(ExtensionsPolicy::Any).await
}

pub async fn deployment_with(extensions: ExtensionsPolicy) -> Deployment {
    let dir = tempfile::tempdir().unwrap();
    let state = dir.path().join("issuer");
    std::fs::create_dir_all(&state).unwrap();
    state_dir(&state, unix_now() - 10);
    // Bind first: the issuer's name carries its port.
    let (listener, addr) = pat_http::bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let issuer_name = addr.to_string();
    let issuer_url = format!("http://{issuer_name}");
    let issuer = IssuerService::open(IssuerConfig {
        name: issuer_name.clone(),
        request_uri: format!("{issuer_url}{}", issuer::REQUEST_PATH),
        state_dir: state.clone(),
        token_types: vec![1, 2, 5, keys::METADATA],
        lifetime: 3600,
        extensions,
    })
    .unwrap();
    tokio::spawn(pat_http::serve(issuer::router(Arc::clone(&issuer)), listener, None));
    let http = client::http_client(None).unwrap();
    Deployment { _dir: dir, state, issuer, issuer_url, issuer_name, http }
}

impl Deployment {
    pub fn origin_config(&self, token_type: u16) -> OriginConfig {
        OriginConfig {
            issuer_name: self.issuer_name.clone(),
            issuer_url: self.issuer_url.clone(),
            token_type,
            rate_limit: None,
            extensions: None,
            extension_set: Vec::new(),
            suggested_extensions: None,
            origin_info: String::new(),
            max_age: 60,
            clock_skew: pat::deploy::replay::CLOCK_SKEW_MARGIN,
            issuer_state: (token_type != 2 && token_type != keys::METADATA).then(|| self.state.clone()),
            send_token_key: true,
            refresh: Duration::from_secs(3600),
            ca_cert: None,
        }
    }

    pub async fn origin(&self, config: OriginConfig) -> (Arc<OriginService>, String) {
        let service = OriginService::new(config, Replay::memory(Arc::new(pat_http::metrics::Metrics::new())).unwrap())
            .await
            .unwrap();
        let addr = spawn(origin::router(Arc::clone(&service))).await;
        (service, format!("http://{addr}/resource"))
    }

    /// A 401's challenge answered: the Authorization value.
    pub async fn authorization(&self, url: &str) -> String {
        let first = self.http.get(url).send().await.unwrap();
        assert_eq!(first.status(), StatusCode::UNAUTHORIZED);
        client::authorize(&self.http, first.headers(), Some(&self.issuer_url), &mut |_| {}).await.unwrap()
    }

    pub async fn get_with(&self, url: &str, authorization: &str) -> reqwest::Response {
        self.http.get(url).header("authorization", authorization).send().await.unwrap()
    }

    pub async fn post(&self, media_type: &str, body: Vec<u8>) -> reqwest::Response {
        let url = format!("{}{}", self.issuer_url, issuer::REQUEST_PATH);
        self.http.post(url).header("content-type", media_type).body(body).send().await.unwrap()
    }
}

/// Sends raw bytes to `addr` and returns what came back first.
pub fn raw_request(addr: &str, request: &str) -> String {
    use std::io::{Read as _, Write as _};
    let mut stream = std::net::TcpStream::connect(addr).unwrap();
    stream.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut buf = [0u8; 512];
    let n = stream.read(&mut buf).unwrap();
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

/// Sets a file's modification time to now.
pub fn filetime_touch(path: &Path) {
    let f = std::fs::File::options().append(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now()).unwrap();
}
