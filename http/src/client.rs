//! `pat fetch`: the client side of RFC 9577/9578 over HTTP.
//!
//! It requests a resource; on a 401 with a `PrivateToken` challenge of a
//! served type (0x0001, 0x0002, 0x0005, 0xDA7A, 0xDA7B; 0xE5AC below) it reads the issuer directory (at
//! `https://ISSUER_NAME` unless told otherwise; the name comes from the
//! origin, so it must be a plain `host` or `host:port`, [`issuer_base_url`]),
//! takes the key the challenge
//! names (which must be listed there: a key the directory does not publish
//! could single this client out) or, when the challenge carries no
//! `token-key`, the newest key whose `not-before` has passed; it obtains a
//! token from the directory's `issuer-request-uri`, and retries with
//! `Authorization: PrivateToken token=...`.
//!
//! For type 0xDA7A (public metadata) the token request carries the
//! client's Extensions ([`FetchConfig::extensions`], the empty list by
//! default) and the retry sends them beside the token:
//! `Authorization: PrivateToken token="...", extensions="..."`.
//!
//! When the challenge negotiates extensions
//! (draft-ietf-privacypass-auth-scheme-extensions-03 §4: an
//! `extension-set`, perhaps with the origin's suggested `extensions`), the
//! client sends the extension types the set lists, and must have a value for
//! every required one: its own, or the origin's with
//! [`FetchConfig::use_origin_extensions`]; else it stops before asking the
//! issuer ([`crate::negotiation::choose`]).
//!
//! The request and its finalization are the type's family's (the crate's
//! registry of served types); this module does the HTTP around them.
//!
//! # Type 0xE5AC (ARC)
//!
//! An ARC challenge (draft-ietf-privacypass-arc-protocol-01) carries the
//! presentation limit in its `rate-limit` parameter. The client presents a
//! credential it holds for the challenge's issuer, origin_info,
//! `credential_context` and key ([`crate::credentials`]), with the
//! presentation state of the challenge's presentation context (made on
//! first use, then kept); when it has none, or that state has made its
//! limit of tokens, it obtains a new credential: the directory's key, a
//! CredentialRequest posted as `application/private-credential-request`,
//! the CredentialResponse finalized (§7), and presents that. It does the
//! same when any stored state of the credential does not load: that state
//! may be this context's, and one made again would repeat its tags. A run
//! waits at most [`credentials::LOCK_WAIT`] for another run's lock on the
//! store, and says so. So with a
//! store file ([`FetchConfig::credential_store`]) N runs under a limit of N
//! give N tokens from one credential and run N + 1 gets a new credential;
//! without one, each run obtains a credential and presents it once. The
//! advanced state is written to the store before the token is sent.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::http::header;
use pat::deploy::directory::IssuerDirectory;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode;
use pat::wire::extension_set::ExtensionSet;
use pat::wire::extensions::Extensions;
use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject as _;
use sha2::{Digest as _, Sha256};

use pat::crypto::arc::{Credential, CredentialResponse, PresentationState};
use pat::tokens::arc::{self, ArcChallenge};
use zeroize::Zeroizing;

use crate::credentials::{self, CredentialKey, CredentialStore, Stored};
use crate::{BoxError, media, registry, unix_now};

/// The most keys read from a directory (more than any issuer of this crate
/// publishes; a directory with more is refused).
pub const MAX_DIRECTORY_KEYS: usize = 1024;
/// The largest directory or token response read (bytes).
pub const MAX_RESPONSE: usize = 256 * 1024;
/// The most bytes of an error response's body kept for a message.
pub const MAX_ERROR_TEXT: usize = 512;
/// How long one HTTP exchange may take.
pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// What `pat fetch` was told.
#[derive(Clone, Debug, Default)]
pub struct FetchConfig {
    /// The resource.
    pub url: String,
    /// Where the issuer is, instead of `https://ISSUER_NAME`.
    pub issuer_url: Option<String>,
    /// An extra root certificate (PEM), beside the system's.
    pub ca_cert: Option<PathBuf>,
    /// The encoded Extensions list (length prefix included) a type-0xDA7A
    /// token is requested with; `None` is the empty list.
    pub extensions: Option<Vec<u8>>,
    /// Whether a required extension type the client has no value for may
    /// take the value the origin suggests in its challenge's `extensions`
    /// parameter (draft-ietf-privacypass-auth-scheme-extensions-03 §4). Off
    /// by default: a value the origin chooses can tell clients apart.
    pub use_origin_extensions: bool,
    /// Type 0xE5AC: the file keeping ARC credentials and presentation
    /// states between runs ([`crate::credentials`]); `None`: a credential
    /// for this run only.
    pub credential_store: Option<PathBuf>,
}

/// An HTTP client with rustls (ring), the system's roots and `ca_cert`.
pub fn http_client(ca_cert: Option<&Path>) -> Result<reqwest::Client, BoxError> {
    let mut roots = rustls::RootCertStore::empty();
    for cert in rustls_native_certs::load_native_certs().certs {
        let _ = roots.add(cert);
    }
    if let Some(path) = ca_cert {
        for cert in CertificateDer::pem_file_iter(path).map_err(|e| format!("{}: {e}", path.display()))? {
            roots.add(cert.map_err(|e| format!("{}: {e}", path.display()))?)?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_root_certificates(roots)
        .with_no_client_auth();
    // No redirects: a redirect could move a request off TLS or to another host.
    Ok(reqwest::Client::builder()
        .tls_backend_preconfigured(config)
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .build()?)
}

/// Reads a response body of at most [`MAX_RESPONSE`] bytes.
async fn read_capped(mut response: reqwest::Response, what: &str) -> Result<Vec<u8>, BoxError> {
    if response.content_length().is_some_and(|n| n > MAX_RESPONSE as u64) {
        return Err(format!("{what}: larger than {MAX_RESPONSE} bytes").into());
    }
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await? {
        if body.len() + chunk.len() > MAX_RESPONSE {
            return Err(format!("{what}: larger than {MAX_RESPONSE} bytes").into());
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

/// The start of an error response's body as text: at most
/// [`MAX_ERROR_TEXT`] bytes are read, control characters are dropped.
async fn error_text(mut response: reqwest::Response) -> String {
    let mut body = Vec::new();
    while body.len() < MAX_ERROR_TEXT {
        match response.chunk().await {
            Ok(Some(chunk)) => body.extend_from_slice(&chunk),
            _ => break,
        }
    }
    body.truncate(MAX_ERROR_TEXT);
    String::from_utf8_lossy(&body)
        .chars()
        .filter(|c| !c.is_control() || *c == ' ')
        .collect::<String>()
        .trim()
        .to_owned()
}

/// `https://NAME` for an issuer name a challenge carries, if the name is a
/// plain authority: a DNS name or IPv4 address, or an IPv6 address in
/// brackets, with an optional port; nothing else (no user, path, query,
/// fragment, space or percent sign), since the name comes from the origin
/// and becomes the URL the client sends requests to.
pub fn issuer_base_url(name: &str) -> Result<String, BoxError> {
    let bad = || -> BoxError { format!("the challenge's issuer name {name:?} is not a host name").into() };
    // Split off the port: after the last ':' outside brackets.
    let (host, port) = match name.strip_prefix('[') {
        Some(rest) => {
            let (inside, after) = rest.split_once(']').ok_or_else(bad)?;
            if inside.is_empty() || !inside.bytes().all(|b| b.is_ascii_hexdigit() || b == b':' || b == b'.') {
                return Err(bad());
            }
            let port = if after.is_empty() { None } else { Some(after.strip_prefix(':').ok_or_else(bad)?) };
            (None, port)
        }
        None => match name.rsplit_once(':') {
            Some((host, port)) => (Some(host), Some(port)),
            None => (Some(name), None),
        },
    };
    let label_ok = |label: &str| {
        !label.is_empty()
            && label.len() <= 63
            && label.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
            && !label.starts_with('-')
            && !label.ends_with('-')
    };
    let host_ok = host.is_none_or(|h| h.len() <= 253 && h.split('.').all(label_ok));
    let port_ok = port.is_none_or(|p| !p.is_empty() && p.len() <= 5 && p.parse::<u16>().is_ok_and(|p| p > 0));
    if !host_ok || !port_ok {
        return Err(bad());
    }
    let url = format!("https://{name}");
    // The URL parser agrees (an IPv6 literal is checked here): a host, and
    // no user, password or path.
    let parsed = reqwest::Url::parse(&url).map_err(|_| bad())?;
    if parsed.host_str().is_none()
        || !parsed.username().is_empty()
        || parsed.password().is_some()
        || parsed.path() != "/"
    {
        return Err(bad());
    }
    Ok(url)
}

/// GETs an issuer directory: its bytes, at most [`MAX_RESPONSE`] of them.
pub async fn get_directory(http: &reqwest::Client, url: &str) -> Result<Vec<u8>, BoxError> {
    let response = http.get(url).header(header::ACCEPT, media::DIRECTORY).send().await?;
    if !response.status().is_success() {
        return Err(format!("{url}: status {}", response.status()).into());
    }
    read_capped(response, url).await
}

/// Fetches `config.url`, paying with a token if asked; returns the final
/// status. `log` receives one line per step.
pub async fn fetch(config: &FetchConfig, log: &mut dyn FnMut(&str)) -> Result<u16, BoxError> {
    let http = http_client(config.ca_cert.as_deref())?;
    let first = http.get(&config.url).send().await?;
    log(&format!("GET {}: {}", config.url, first.status().as_u16()));
    if first.status() != reqwest::StatusCode::UNAUTHORIZED {
        return Ok(first.status().as_u16());
    }
    let extensions = match &config.extensions {
        Some(bytes) => Extensions::decode(bytes).map_err(|e| format!("the extensions: {e}"))?,
        None => Extensions::EMPTY,
    };
    let issuer_url = config.issuer_url.as_deref();
    let options = Options {
        extensions: &extensions,
        use_origin_extensions: config.use_origin_extensions,
        credential_store: config.credential_store.as_deref(),
    };
    let authorization = authorize_with(&http, first.headers(), issuer_url, &options, log).await?;
    let last = http.get(&config.url).header(header::AUTHORIZATION, authorization).send().await?;
    log(&format!("GET {} with a token: {}", config.url, last.status().as_u16()));
    Ok(last.status().as_u16())
}

/// Answers the `WWW-Authenticate` challenges of a 401 response's `headers`:
/// obtains a token from the issuer (at `issuer_url`, or `https://ISSUER_NAME`)
/// and returns the `Authorization` value that spends it.
pub async fn authorize(
    http: &reqwest::Client,
    headers: &header::HeaderMap,
    issuer_url: Option<&str>,
    log: &mut dyn FnMut(&str),
) -> Result<String, BoxError> {
    authorize_with_extensions(http, headers, issuer_url, &Extensions::EMPTY, log).await
}

/// [`authorize`], with the Extensions a type-0xDA7A token is requested with
/// (ignored for the other types); the `Authorization` value then carries
/// them (`extensions="..."`). A challenge that negotiates extensions is
/// answered as [`authorize_negotiated`] does, without the origin's
/// suggested values.
pub async fn authorize_with_extensions(
    http: &reqwest::Client,
    headers: &header::HeaderMap,
    issuer_url: Option<&str>,
    extensions: &Extensions<'_>,
    log: &mut dyn FnMut(&str),
) -> Result<String, BoxError> {
    authorize_negotiated(http, headers, issuer_url, extensions, false, log).await
}

/// [`authorize_with_extensions`], answering the challenge's extension
/// negotiation (draft-ietf-privacypass-auth-scheme-extensions-03 §4): with
/// an `extension-set`, the token carries the types of `extensions` the set
/// lists, and a required type `extensions` lacks takes the origin's
/// suggested value if `use_origin_extensions`, else it is an error before
/// the issuer is asked ([`crate::negotiation::choose`]). So is a required
/// type on a token type that carries no extensions.
pub async fn authorize_negotiated(
    http: &reqwest::Client,
    headers: &header::HeaderMap,
    issuer_url: Option<&str>,
    extensions: &Extensions<'_>,
    use_origin_extensions: bool,
    log: &mut dyn FnMut(&str),
) -> Result<String, BoxError> {
    let options = Options { extensions, use_origin_extensions, credential_store: None };
    authorize_with(http, headers, issuer_url, &options, log).await
}

/// [`authorize`], keeping type-0xE5AC credentials in the store file
/// `credential_store` (`None`: a credential for this call only).
pub async fn authorize_with_credentials(
    http: &reqwest::Client,
    headers: &header::HeaderMap,
    issuer_url: Option<&str>,
    credential_store: Option<&Path>,
    log: &mut dyn FnMut(&str),
) -> Result<String, BoxError> {
    let options = Options { extensions: &Extensions::EMPTY, use_origin_extensions: false, credential_store };
    authorize_with(http, headers, issuer_url, &options, log).await
}

/// What the client brings to a challenge.
struct Options<'a> {
    extensions: &'a Extensions<'a>,
    use_origin_extensions: bool,
    credential_store: Option<&'a Path>,
}

async fn authorize_with(
    http: &reqwest::Client,
    headers: &header::HeaderMap,
    issuer_url: Option<&str>,
    options: &Options<'_>,
    log: &mut dyn FnMut(&str),
) -> Result<String, BoxError> {
    let values: Vec<String> =
        headers.get_all(header::WWW_AUTHENTICATE).iter().filter_map(|v| v.to_str().ok().map(str::to_owned)).collect();
    let picked = pick_challenge(&values)?;
    if picked.token_type == registry::arc::CODE {
        return authorize_arc(http, &picked, issuer_url, options.credential_store, log).await;
    }
    let (extensions, use_origin_extensions) = (options.extensions, options.use_origin_extensions);
    let challenge = TokenChallenge::decode(&picked.challenge)?;
    let token_type = challenge.token_type();
    let issuer_name = core::str::from_utf8(challenge.issuer_name()).map_err(|_| "the issuer name is not UTF-8")?;
    log(&format!("challenge: token type {token_type}, issuer {issuer_name:?}"));
    let family = registry::family(token_type).ok_or_else(|| format!("token type {token_type} is not supported"))?;
    let set = picked.extension_set.as_deref().map(ExtensionSet::decode).transpose()?;
    let suggested = picked.extensions.as_deref().map(Extensions::decode).transpose()?;
    if let Some(set) = &set {
        let required: Vec<String> = set.required().map(|t| t.to_string()).collect();
        log(&format!("extension-set: {} entries, required types [{}]", set.len(), required.join(", ")));
        if !required.is_empty() && !crate::negotiation::carries_extensions(family) {
            return Err(format!(
                "the origin requires extension types [{}], which tokens of type {token_type} do not carry",
                required.join(", ")
            )
            .into());
        }
    }
    let chosen = crate::negotiation::choose(extensions, set.as_ref(), suggested.as_ref(), use_origin_extensions, log)?;
    let extensions = Extensions::decode(&chosen)?;
    let issuer = issuer_key(http, issuer_name, issuer_url, token_type, picked.token_key.as_deref()).await?;
    log(&format!(
        "key {} from the directory; requesting a token at {}",
        hex8(&Sha256::digest(&issuer.token_key)),
        issuer.request_uri
    ));
    let (request, pending) = family.request(&issuer.token_key, &challenge, &extensions, log)?;
    let response = post(http, &issuer.request_uri, request, media::TOKEN_REQUEST, media::TOKEN_RESPONSE).await?;
    pending.finalize(&response)
}

/// An issuer key of the directory and where requests for it go.
struct IssuerKey {
    token_key: Vec<u8>,
    request_uri: String,
}

/// Reads the issuer directory (at `issuer_url`, or `https://ISSUER_NAME`)
/// and takes the key of `token_type` the challenge named (`named_key`,
/// which must be listed) or, without one, the newest valid now.
async fn issuer_key(
    http: &reqwest::Client,
    issuer_name: &str,
    issuer_url: Option<&str>,
    token_type: u16,
    named_key: Option<&[u8]>,
) -> Result<IssuerKey, BoxError> {
    let base = match issuer_url {
        Some(url) => url.to_owned(),
        None => issuer_base_url(issuer_name)?,
    };
    let base = base.trim_end_matches('/');
    let url = format!("{base}{}", pat::deploy::directory::WELL_KNOWN_PATH);
    let json = get_directory(http, &url).await?;
    let mut scratch = vec![0u8; json.len()];
    let directory = Box::new(IssuerDirectory::<MAX_DIRECTORY_KEYS>::parse(&json, &mut scratch)?);
    let key = match named_key {
        // The key the origin named, whatever its not-before (the origin
        // asked for it): it only has to be published.
        Some(k) => {
            let id = <[u8; 32]>::from(Sha256::digest(k));
            directory
                .keys()
                .iter()
                .find(|d| d.token_type() == token_type && d.key_id().is_ok_and(|d| d == id))
                .ok_or_else(|| format!("the challenge's token key is not in the issuer directory at {url}"))?
        }
        None => directory
            .select(token_type, None, unix_now())
            .map_err(|e| format!("the issuer directory at {url} has no key of type {token_type} valid now ({e})"))?,
    };
    let mut key_buf = [0u8; pat::deploy::directory::MAX_TOKEN_KEY_LEN];
    let token_key = key.decode_token_key(&mut key_buf)?;
    let request_uri = directory.issuer_request_uri();
    let request_uri = if request_uri.starts_with("https://") || request_uri.starts_with("http://") {
        request_uri.to_owned()
    } else {
        format!("{base}/{}", request_uri.trim_start_matches('/'))
    };
    if base.starts_with("https://") && !request_uri.starts_with("https://") {
        return Err(format!("the directory at {url} came over TLS but names a plain request URI {request_uri}").into());
    }
    Ok(IssuerKey { token_key: token_key.to_vec(), request_uri })
}

/// A type-0xE5AC challenge answered (the module's header says how).
async fn authorize_arc(
    http: &reqwest::Client,
    picked: &Picked,
    issuer_url: Option<&str>,
    credential_store: Option<&Path>,
    log: &mut dyn FnMut(&str),
) -> Result<String, BoxError> {
    let challenge = ArcChallenge::decode(&picked.challenge)?;
    let limit = picked.rate_limit.ok_or("the type-0xE5AC challenge has no rate-limit parameter")?;
    arc::token_len(limit).map_err(|_| format!("the challenge's rate-limit {limit} is not 2 to 2^32"))?;
    let issuer_name =
        core::str::from_utf8(challenge.challenge().issuer_name()).map_err(|_| "the issuer name is not UTF-8")?;
    log(&format!("challenge: token type {}, issuer {issuer_name:?}, rate-limit {limit}", arc::TOKEN_TYPE));
    let issuer = issuer_key(http, issuer_name, issuer_url, arc::TOKEN_TYPE, picked.token_key.as_deref()).await?;
    let client = arc::Client::from_token_key(&issuer.token_key)?;
    log(&format!("key {} from the directory", hex8(client.key_id())));
    let mut store = match credential_store {
        Some(path) => CredentialStore::open_waiting(path, credentials::LOCK_WAIT, log).await?,
        None => CredentialStore::in_memory(),
    };
    for note in store.take_notes() {
        log(&note);
    }
    let key = CredentialKey::new(
        challenge.challenge().issuer_name(),
        challenge.challenge().origin_info(),
        challenge.credential_context(),
        client.key_id(),
    )?;
    let mut rng = crate::rng();
    let kept = match store.get(&key) {
        Some(stored) => from_store(&client, stored, &challenge, limit, log)?,
        None => None,
    };
    let (credential, mut state, mut states) = match kept {
        Some(kept) => kept,
        None => {
            log(&format!("requesting a credential at {}", issuer.request_uri));
            let (request_state, request) = client.request(&challenge, &mut rng)?;
            let body = crate::encoded(&request)?;
            let response =
                post(http, &issuer.request_uri, body, media::CREDENTIAL_REQUEST, media::CREDENTIAL_RESPONSE).await?;
            let credential = client.finalize(&request_state, &CredentialResponse::decode(&response)?)?;
            let state = client.presentation_state(&credential, &challenge, limit)?;
            log("credential: new from the issuer");
            (credential, state, Vec::new())
        }
    };
    let mut token = vec![0u8; arc::token_len(limit)?];
    let len = client.token(&mut state, &challenge, &mut rng, &mut token)?;
    token.truncate(len);
    log(&format!("presentation: {} of {limit} left for this challenge", state.remaining()));
    // The spent nonce reaches the store before the token leaves.
    states.push(Zeroizing::new(state.export().to_vec()));
    store.put(key, Stored { credential: Zeroizing::new(credential.export().to_vec()), states });
    store.save()?;
    if let Some(path) = store.path() {
        log(&format!("credential store: {}", path.display()));
    }
    let mut out = vec![0u8; pat::wire::auth::base64url_len(token.len()) + 64];
    Ok(pat::wire::auth::write_authorization(&token, &mut out)?.to_owned())
}

/// What a stored credential gives for `challenge`: the credential, the
/// state of the challenge's presentation context (the kept one, or a new
/// one for a context not seen yet) and the other contexts' states; `None`
/// when a new credential is needed: the context's state has made its
/// tokens or is for another limit (a second state for one context would
/// repeat its tags), the credential holds [`credentials::MAX_STATES`]
/// contexts already, or what is stored (the credential or any of its
/// states) does not load.
type Kept = (Credential, PresentationState, Vec<Zeroizing<Vec<u8>>>);

fn from_store(
    client: &arc::Client,
    stored: &Stored,
    challenge: &ArcChallenge<'_>,
    limit: u64,
    log: &mut dyn FnMut(&str),
) -> Result<Option<Kept>, BoxError> {
    let Ok(credential) = Credential::import(&stored.credential) else {
        log("credential: the stored one does not load; a new one");
        return Ok(None);
    };
    let context = challenge.presentation_context(client.key_id());
    let mut found = None;
    let mut others = Vec::new();
    for bytes in &stored.states {
        // A state that does not load may be this context's: making one
        // again would start at nonce 0 and repeat its tags (linked, and
        // refused as replays). So the credential goes whole.
        let Ok(state) = PresentationState::import(bytes) else {
            log("credential: a stored presentation state does not load (a state made again would repeat its tags); \
                 a new one");
            return Ok(None);
        };
        if found.is_none() && state.is_for(&context.parts())? {
            found = Some(state);
        } else {
            others.push(bytes.clone());
        }
    }
    match found {
        Some(state) if state.limit() == limit && state.remaining() > 0 => {
            log("credential: stored");
            Ok(Some((credential, state, others)))
        }
        Some(state) if state.limit() != limit => {
            log(&format!(
                "credential: its state for this challenge has limit {}, not {limit}; a new one",
                state.limit()
            ));
            Ok(None)
        }
        Some(_) => {
            log(&format!("credential: its {limit} presentations for this challenge are made; a new one"));
            Ok(None)
        }
        None if others.len() >= credentials::MAX_STATES => {
            log("credential: it serves the most presentation contexts kept; a new one");
            Ok(None)
        }
        None => {
            log("credential: stored; a presentation state for a new context");
            let state = client.presentation_state(&credential, challenge, limit)?;
            Ok(Some((credential, state, others)))
        }
    }
}

fn hex8(bytes: &[u8]) -> String {
    crate::hex(bytes.get(..4).unwrap_or_default())
}

/// A challenge [`pick_challenge`] chose, its parameters decoded.
struct Picked {
    /// Its token type.
    token_type: u16,
    /// The encoded TokenChallenge.
    challenge: Vec<u8>,
    /// The `rate-limit` parameter of a type-0xE5AC challenge (ignored for the others).
    rate_limit: Option<u64>,
    /// The `token-key`, if present.
    token_key: Option<Vec<u8>>,
    /// The encoded ExtensionSet of `extension-set`, if present.
    extension_set: Option<Vec<u8>>,
    /// The encoded Extensions list of the challenge's `extensions`, if present.
    extensions: Option<Vec<u8>>,
}

/// A base64url parameter's bytes; `what` names it in the error.
fn decode_param(value: &pat::wire::auth::ParamValue<'_>, what: &str) -> Result<Vec<u8>, BoxError> {
    let mut buf = vec![0u8; value.decoded_len_bound()];
    Ok(value.decode_base64url(&mut buf).map_err(|e| format!("the challenge's {what}: {e}"))?.to_vec())
}

/// The first challenge of a supported type, with its token key and
/// extension parameters if present (a malformed one is an error).
fn pick_challenge(values: &[String]) -> Result<Picked, BoxError> {
    for value in values {
        for challenge in pat::wire::auth::parse_www_authenticate(value).flatten() {
            let mut bytes = vec![0u8; challenge.challenge.decoded_len_bound()];
            let Ok(decoded) = challenge.decode_challenge(&mut bytes) else { continue };
            let Some(token_type) = decoded.first_chunk::<2>().map(|b| u16::from_be_bytes(*b)) else { continue };
            if registry::family(token_type).is_none() {
                continue;
            }
            let decoded = decoded.to_vec();
            let token_key = challenge.token_key.map(|k| decode_param(&k, "token-key")).transpose()?;
            let mut set_buf = vec![0u8; challenge.extension_set.map_or(0, |v| v.decoded_len_bound())];
            let extension_set = challenge
                .decode_extension_set(&mut set_buf)
                .map_err(|e| format!("the challenge's extension-set: {e}"))?
                .map(|s| s.as_bytes().to_vec());
            let mut ext_buf = vec![0u8; challenge.extensions.map_or(0, |v| v.decoded_len_bound())];
            let extensions = challenge
                .decode_extensions(&mut ext_buf)
                .map_err(|e| format!("the challenge's extensions: {e}"))?
                .map(|e| e.as_bytes().to_vec());
            let rate_limit = if token_type == registry::arc::CODE {
                challenge.decode_rate_limit().map_err(|e| format!("the challenge's rate-limit: {e}"))?
            } else {
                None
            };
            return Ok(Picked { token_type, challenge: decoded, rate_limit, token_key, extension_set, extensions });
        }
    }
    Err(format!("no PrivateToken challenge of a supported type ({}) in the 401 response", registry::supported()).into())
}

/// POSTs `body` as `content_type` and reads a 200 answer of media type `accept`.
async fn post(
    http: &reqwest::Client,
    url: &str,
    body: Vec<u8>,
    content_type: &'static str,
    accept: &'static str,
) -> Result<Vec<u8>, BoxError> {
    let response = http
        .post(url)
        .header(header::CONTENT_TYPE, content_type)
        .header(header::ACCEPT, accept)
        .body(body)
        .send()
        .await?;
    let status = response.status();
    let answered = response.headers().get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(media::essence);
    if status != reqwest::StatusCode::OK {
        let text = error_text(response).await;
        return Err(format!("the issuer answered {status}: {text}").into());
    }
    if answered.as_deref() != Some(accept) {
        return Err(format!("the issuer answered with media type {answered:?}").into());
    }
    read_capped(response, url).await
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::issuer_base_url;

    #[test]
    fn issuer_names_are_plain_authorities() {
        for ok in ["issuer.example", "issuer.example:8443", "127.0.0.1:8080", "[::1]:443", "[2001:db8::1]", "a-b.c"] {
            assert_eq!(issuer_base_url(ok).unwrap(), format!("https://{ok}"), "{ok}");
        }
        for bad in [
            "",
            "user@evil.example",
            "evil.example/path",
            "evil.example?q",
            "evil.example#f",
            "evil.example:",
            "evil.example:0",
            "evil.example:65536",
            "evil.example:80:80",
            "evil example",
            "evil%2eexample",
            "-lead.example",
            "trail-.example",
            "a..b",
            "[::1",
            "[zz::1]",
            "[::1]x",
            "evil.example\\x",
            "ex\u{e9}mple.org",
        ] {
            assert!(issuer_base_url(bad).is_err(), "{bad:?}");
        }
    }
}
