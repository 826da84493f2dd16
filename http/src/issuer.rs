//! `pat issuer serve`: the issuer directory and token issuance over HTTP
//! (RFC 9578 §4, §5, §6; draft-ietf-privacypass-batched-tokens).
//!
//! Routes:
//! - `GET /.well-known/private-token-issuer-directory`: the directory, with
//!   `Cache-Control` and a strong `ETag` (`If-None-Match` answers 304);
//! - `POST` at the directory's `issuer-request-uri` ([`REQUEST_PATH`]): a
//!   single TokenRequest, an amortized batch, a generic batch or an ARC
//!   CredentialRequest (type 0xE5AC), told apart by `Content-Type`.
//!
//! Status codes (RFC 9578 §5.2, §6.2; the batched-tokens draft): 415 for
//! another media type, 413 for a body over [`MAX_BODY`] (refused on its
//! `Content-Length` and never kept; one of up to four times the limit is
//! read and dropped first, so that the client reads the answer), 400 for a body that is not the media
//! type's message at all (shorter than a token type, a generic batch whose
//! framing does not parse; a credential request is 422 instead, below), 422 for a request the issuer cannot process: a
//! token type it does not serve (in a generic batch, an entry of a type other
//! than 0x0001, 0x0002 and 0x0005: draft §6.2), a blinded message of the
//! wrong size or not a group element, a truncated key id no key has, a batch
//! over [`MAX_BATCH`]; 206 for a generic batch with some entries absent, 400
//! when none could be issued. Section numbers are those of
//! draft-ietf-privacypass-batched-tokens-07 and -08; the table in
//! `pat::tokens::batched` says what each section asks and what is served.
//!
//! Type 0xDA7A (public metadata, draft-ietf-privacypass-public-metadata-issuance
//! §5): an ExtendedTokenRequest on `application/private-token-request`. The
//! draft answers 400 to every refusal of one: a malformed request or
//! Extensions list, a truncated key id no key has, extensions the policy
//! ([`ExtensionsPolicy`]) does not permit. The signing key pair is derived
//! for each request's extensions. Error bodies are fixed texts: they never carry key material.
//!
//! Type 0xE5AC (ARC, draft-ietf-privacypass-arc-protocol-01 §7): a
//! CredentialRequest on `application/private-credential-request`, answered
//! with a CredentialResponse on `application/private-credential-response`.
//! The draft answers 422 to every request that does not deserialize (a
//! body of the wrong size, even one shorter than a token type), names a
//! truncated key id no key has, or whose proof fails (§7.2); a
//! CredentialRequest of another type is 422 too (not served as a
//! credential), and so is a 0xE5AC body on the token request media type.
//! 413 (a body over [`MAX_BODY`]) and 415 (another media type) come before
//! the body is read, as for every media type.
//!
//! Bounded: a request takes a place in the [`crate::pool`] before its body is
//! read (503 with `Retry-After` when every place is taken), and its
//! evaluation runs on the pool's workers. Keys: every key of the state
//! folder whose window has not ended is loaded (up to [`MAX_KEYS`]: all
//! that 256 truncated key ids per type can tell apart); a key that cannot be served
//! (a truncated key id another key of its type has) is skipped with a log
//! line, and the rest are served.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use pat::deploy::directory::{DirectoryEntry, write_directory};
use pat::deploy::keyset::{KeyEntry as _, KeySet, Validity};
use pat::tokens::batched::GenericBatchTokenRequest;
use pat::wire::codec::Decode;
use sha2::{Digest as _, Sha256};

use crate::keys::{self, KeyRef, KeyState};
use crate::metrics::{Metrics, type_label};
use crate::pool::{Busy, Pool, PoolConfig};
pub use crate::registry::MAX_BATCH;
use crate::registry::{
    self, INTERNAL, Issue, IssuerTables, MALFORMED, NO_KEY, Refusal, TOO_MANY, UNPROCESSABLE, UNSERVED,
};
use crate::{BoxError, media, rng, unix_now};

/// Where requests are posted.
pub const REQUEST_PATH: &str = "/token-request";
/// The largest request body accepted (413 above): the longest type-0xDA7A
/// ExtendedTokenRequest (259 bytes and a full 65,537-byte Extensions list)
/// fits.
pub const MAX_BODY: usize = 3 + 256 + pat::wire::extensions::EXTENSIONS_MAX_LEN;
/// Keys held at once: 256 per type (a request names its key by one byte)
/// for each type served.
pub const MAX_KEYS: usize = registry::SERVED.len() * 256;
/// `Cache-Control: max-age` of the directory, in seconds.
pub const DIRECTORY_MAX_AGE: u32 = 60;

/// What `pat issuer serve` was told.
#[derive(Clone, Debug)]
pub struct IssuerConfig {
    /// The issuer name clients see in challenges (host, with `:port` if not 443).
    pub name: String,
    /// The absolute `issuer-request-uri` written into the directory.
    pub request_uri: String,
    /// The state folder.
    pub state_dir: PathBuf,
    /// Token types to have keys for.
    pub token_types: Vec<u16>,
    /// Lifetime of keys made on first start.
    pub lifetime: u64,
    /// Which type-0xDA7A extensions are issued.
    pub extensions: ExtensionsPolicy,
}

/// Which public metadata (Extensions of a type-0xDA7A request) the issuer
/// signs. Every list that reaches the policy is well formed (sorted, lengths
/// consistent): the decoder refused the others.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum ExtensionsPolicy {
    /// Any well-formed list, the empty one included.
    #[default]
    Any,
    /// Only lists whose every extension has one of these types (the empty
    /// list included).
    Only(Vec<u16>),
}

impl ExtensionsPolicy {
    /// Whether `extensions` may be issued.
    pub fn permits(&self, extensions: &pat::wire::extensions::Extensions<'_>) -> bool {
        match self {
            Self::Any => true,
            Self::Only(types) => extensions.iter().all(|e| types.contains(&e.extension_type)),
        }
    }
}

/// The keys in use, by type, with the directory they publish.
struct Loaded {
    tables: IssuerTables,
    index: Box<KeySet<KeyRef, MAX_KEYS>>,
    directory: Bytes,
    etag: HeaderValue,
    mtime: Option<std::time::SystemTime>,
    /// The earliest end of a window: the set is rebuilt then.
    next_expiry: u64,
}

impl Loaded {
    fn build(
        state: KeyState,
        request_uri: &str,
        now: u64,
        mtime: Option<std::time::SystemTime>,
        metrics: &Metrics,
    ) -> Result<Self, BoxError> {
        let mut tables = IssuerTables::new();
        let mut index: Box<KeySet<KeyRef, MAX_KEYS>> = Box::new(KeySet::new());
        let mut entries = Vec::new();
        let mut next_expiry = u64::MAX;
        for loaded in state.keys {
            let Validity { not_before, not_after } = loaded.validity;
            if not_after <= now {
                continue;
            }
            let token_type = loaded.key.token_type();
            let key_id = *loaded.key.key_id();
            // The slot the key will take in its type's list.
            let Some(slot) = tables.slot_for(&loaded.key) else {
                metrics.keys_skipped.inc();
                tracing::warn!(key = %keys::short_id(&key_id), token_type, error = "not a key of a served type", "issuer: skipping a key it cannot serve");
                continue;
            };
            if let Err(e) = index.insert(KeyRef { token_type, key_id, index: slot }, loaded.validity) {
                // Not served, not published: the others are.
                metrics.keys_skipped.inc();
                tracing::warn!(key = %keys::short_id(&key_id), token_type, error = %e, "issuer: skipping a key it cannot serve");
                continue;
            }
            next_expiry = next_expiry.min(not_after);
            entries.push((token_type, loaded.key.token_key().to_vec(), not_before));
            // `slot_for` found its list: this cannot fail.
            if tables.add(loaded.key).is_err() {
                return Err("issuer: a key's list refused it".into());
            }
        }
        let listed: Vec<DirectoryEntry<'_>> = entries
            .iter()
            .map(|(token_type, key, not_before)| DirectoryEntry {
                token_type: *token_type,
                token_key: key,
                not_before: Some(*not_before),
            })
            .collect();
        // JSON escapes write at most 6 bytes per byte of the URI.
        let room = 1024 + request_uri.len() * 6 + entries.iter().map(|(_, k, _)| k.len() * 2 + 64).sum::<usize>();
        let mut out = vec![0u8; room];
        let json = write_directory(request_uri, &listed, &mut out)?;
        let digest = Sha256::digest(json.as_bytes());
        let etag = format!("\"{}\"", crate::hex(digest.get(..12).unwrap_or_default()));
        Ok(Self {
            directory: Bytes::copy_from_slice(json.as_bytes()),
            etag: HeaderValue::from_str(&etag)?,
            tables,
            index,
            mtime,
            next_expiry,
        })
    }

    /// The position in its type's list of the key `truncated` names, valid at `now`.
    fn slot(&self, token_type: u16, truncated: u8, now: u64) -> Result<usize, Refusal> {
        self.index.by_truncated_id(token_type, truncated, now).map(|(k, _)| k.index).ok_or(NO_KEY)
    }
}

/// The issuer service shared by its handlers.
pub struct IssuerService {
    config: IssuerConfig,
    loaded: RwLock<Arc<Loaded>>,
    pool: Pool,
    metrics: Arc<Metrics>,
    draining: AtomicBool,
}

impl std::fmt::Debug for IssuerService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuerService").field("config", &self.config).finish_non_exhaustive()
    }
}

impl IssuerService {
    /// Opens the state folder (making keys on first start, removing files
    /// a crashed rotation left) and loads it, with the default pool and a
    /// registry of its own.
    pub fn open(config: IssuerConfig) -> Result<Arc<Self>, BoxError> {
        let metrics = Arc::new(Metrics::new());
        let pool = Pool::new(PoolConfig::default(), Arc::clone(&metrics));
        Self::open_with(config, pool, metrics)
    }

    /// [`open`](Self::open) with evaluations on `pool` and counts in `metrics`.
    pub fn open_with(config: IssuerConfig, pool: Pool, metrics: Arc<Metrics>) -> Result<Arc<Self>, BoxError> {
        let now = unix_now();
        let state = keys::open_or_init(&config.state_dir, &config.token_types, now, config.lifetime)?;
        metrics.keys_skipped.inc_by(u64::try_from(state.skipped).unwrap_or(u64::MAX));
        let mtime = keys::manifest_mtime(&config.state_dir);
        let loaded = Loaded::build(state, &config.request_uri, now, mtime, &metrics)?;
        let service =
            Self { config, loaded: RwLock::new(Arc::new(loaded)), pool, metrics, draining: AtomicBool::new(false) };
        service.count_keys();
        Ok(Arc::new(service))
    }

    fn current(&self) -> Arc<Loaded> {
        match self.loaded.read() {
            Ok(l) => Arc::clone(&l),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    fn count_keys(&self) {
        let loaded = self.current();
        for t in registry::codes() {
            let n = loaded.index.iter().filter(|(k, _)| k.token_type() == t).count();
            if n > 0 || self.config.token_types.contains(&t) {
                let n = i64::try_from(n).unwrap_or(i64::MAX);
                self.metrics.keys_loaded.get_or_create(&[("token_type", type_label(t))]).set(n);
            }
        }
    }

    /// The service's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Readiness: a key valid now for every type served.
    pub fn ready(&self) -> Result<(), &'static str> {
        if self.draining.load(Ordering::Acquire) {
            return Err("shutting down");
        }
        let loaded = self.current();
        let now = unix_now();
        if self.config.token_types.iter().all(|&t| loaded.index.current(t, now).is_some()) {
            Ok(())
        } else {
            Err("a token type has no key valid now")
        }
    }

    /// Marks the service as shutting down (`/readyz` then answers 503).
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Release);
    }

    /// Re-reads the state folder if `pat issuer rotate` changed it or a key's
    /// window ended. Returns whether the set changed.
    pub fn refresh(&self) -> Result<bool, BoxError> {
        let now = unix_now();
        let mtime = keys::manifest_mtime(&self.config.state_dir);
        let old = self.current();
        if mtime == old.mtime && now < old.next_expiry {
            return Ok(false);
        }
        let state = keys::load(&self.config.state_dir, now)?;
        self.metrics.keys_skipped.inc_by(u64::try_from(state.skipped).unwrap_or(u64::MAX));
        let loaded = Loaded::build(state, &self.config.request_uri, now, mtime, &self.metrics)?;
        match self.loaded.write() {
            Ok(mut l) => *l = Arc::new(loaded),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(loaded),
        }
        self.count_keys();
        Ok(true)
    }

    /// The directory currently published.
    pub fn directory(&self) -> Bytes {
        self.current().directory.clone()
    }

    /// Re-reads the state folder every `interval` until the process ends.
    pub fn spawn_refresh(self: &Arc<Self>, interval: Duration) {
        let service = Arc::clone(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            let mut failing = false;
            loop {
                tick.tick().await;
                match service.refresh() {
                    Ok(true) => {
                        failing = false;
                        tracing::info!("issuer: key set reloaded");
                    }
                    Ok(false) => failing = false,
                    Err(e) => {
                        service.metrics.key_reloads_failed.inc();
                        // Once per failure, not once a second.
                        if !failing {
                            tracing::error!(error = %e, "issuer: reloading the key set failed (keeping the old one)");
                        }
                        failing = true;
                    }
                }
            }
        });
    }
}

/// The routes of the issuer, with the operator's (`/healthz`, `/readyz`,
/// `/metrics`).
pub fn router(service: Arc<IssuerService>) -> Router {
    let metrics = Arc::clone(&service.metrics);
    let ready = Arc::clone(&service);
    crate::admin::routes(metrics, move || ready.ready()).merge(service_router(service))
}

/// The issuer's own routes alone (the operator's routes served elsewhere).
pub fn service_router(service: Arc<IssuerService>) -> Router {
    Router::new()
        .route(pat::deploy::directory::WELL_KNOWN_PATH, get(directory))
        .route(REQUEST_PATH, post(token_request))
        .layer(DefaultBodyLimit::disable())
        .with_state(service)
}

/// The `route` label of a request path.
pub fn route_of(path: &str) -> &'static str {
    match path {
        pat::deploy::directory::WELL_KNOWN_PATH => "directory",
        REQUEST_PATH => "token_request",
        other => crate::admin::route_of(other).unwrap_or("other"),
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let mut response =
            (self.0, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], format!("{}\n", self.1)).into_response();
        if self.0 == StatusCode::SERVICE_UNAVAILABLE {
            response.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        response
    }
}

async fn directory(State(service): State<Arc<IssuerService>>, headers: HeaderMap) -> Response {
    let loaded = service.current();
    let cache = HeaderValue::from_str(&format!("public, max-age={DIRECTORY_MAX_AGE}"));
    let mut response = if headers.get(header::IF_NONE_MATCH).is_some_and(|v| etag_matches(v, &loaded.etag)) {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        ([(header::CONTENT_TYPE, HeaderValue::from_static(media::DIRECTORY))], loaded.directory.clone()).into_response()
    };
    let h = response.headers_mut();
    h.insert(header::ETAG, loaded.etag.clone());
    if let Ok(cache) = cache {
        h.insert(header::CACHE_CONTROL, cache);
    }
    response
}

fn etag_matches(if_none_match: &HeaderValue, etag: &HeaderValue) -> bool {
    let Ok(list) = if_none_match.to_str() else { return false };
    let Ok(etag) = etag.to_str() else { return false };
    list.split(',').map(str::trim).any(|t| t == "*" || t == etag || t.strip_prefix("W/") == Some(etag))
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Single,
    Amortized,
    Generic,
    Credential,
}

impl Kind {
    const fn label(self) -> &'static str {
        match self {
            Self::Single => "single",
            Self::Amortized => "amortized",
            Self::Generic => "generic",
            Self::Credential => "credential",
        }
    }
}

/// What an evaluation gave: the response, and what it counts as.
struct Issued {
    status: StatusCode,
    media_type: &'static str,
    body: Vec<u8>,
    token_type: &'static str,
    tokens: u64,
}

const BUSY: Refusal = Refusal(StatusCode::SERVICE_UNAVAILABLE, "busy");

/// Whether a body error comes from the body timeout.
fn caused_by_timeout(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if c.is::<tower_http::timeout::TimeoutError>() {
            return true;
        }
        cause = c.source();
    }
    false
}

async fn token_request(State(service): State<Arc<IssuerService>>, headers: HeaderMap, body: Body) -> Response {
    match token_request_inner(&service, &headers, body).await {
        Ok(issued) => {
            let labels = [("token_type", issued.token_type), ("kind", kind_label(&headers))];
            service.metrics.issued.get_or_create(&labels).inc_by(issued.tokens);
            (issued.status, [(header::CONTENT_TYPE, HeaderValue::from_static(issued.media_type))], issued.body)
                .into_response()
        }
        Err(failure) => {
            service.metrics.refuse_issuance(reason_label(&failure));
            failure.into_response()
        }
    }
}

fn kind_label(headers: &HeaderMap) -> &'static str {
    request_kind(headers).map_or("other", Kind::label)
}

fn request_kind(headers: &HeaderMap) -> Option<Kind> {
    match headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).map(media::essence).as_deref() {
        Some(media::TOKEN_REQUEST) => Some(Kind::Single),
        Some(media::AMORTIZED_REQUEST) => Some(Kind::Amortized),
        Some(media::GENERIC_REQUEST) => Some(Kind::Generic),
        Some(media::CREDENTIAL_REQUEST) => Some(Kind::Credential),
        _ => None,
    }
}

fn reason_label(failure: &Refusal) -> &'static str {
    match failure.0 {
        StatusCode::UNSUPPORTED_MEDIA_TYPE => "media_type",
        StatusCode::PAYLOAD_TOO_LARGE => "too_large",
        StatusCode::SERVICE_UNAVAILABLE => "busy",
        StatusCode::BAD_REQUEST => "bad_request",
        StatusCode::UNPROCESSABLE_ENTITY => "unprocessable",
        StatusCode::REQUEST_TIMEOUT => "timeout",
        _ => "internal",
    }
}

async fn token_request_inner(service: &IssuerService, headers: &HeaderMap, body: Body) -> Result<Issued, Refusal> {
    let kind = request_kind(headers).ok_or(Refusal(StatusCode::UNSUPPORTED_MEDIA_TYPE, "unsupported media type"))?;
    let declared =
        headers.get(header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok());
    if let Some(n) = declared.filter(|&n| n > MAX_BODY as u64) {
        if n <= DRAIN_LIMIT {
            drain(body).await;
        }
        return Err(TOO_LARGE);
    }
    // A place first: bodies in memory are bounded by the pool's places.
    let place = service.pool.admit().map_err(|Busy| BUSY)?;
    let body = axum::body::to_bytes(body, MAX_BODY).await.map_err(|e| {
        // A body that stalled past the body timeout, or one over the limit.
        if caused_by_timeout(&e) { Refusal(StatusCode::REQUEST_TIMEOUT, "request body too slow") } else { TOO_LARGE }
    })?;
    let loaded = service.current();
    let now = unix_now();
    let policy = service.config.extensions.clone();
    place.run(move || evaluate(&loaded, &policy, kind, &body, now)).await.map_err(|Busy| BUSY)?
}

/// A body declared over [`MAX_BODY`] but at most this long is read and
/// dropped before the 413, so that a client still sending it reads the
/// answer instead of a reset connection; a longer one is answered at once.
const DRAIN_LIMIT: u64 = 4 * MAX_BODY as u64;

/// Reads `body` to its end (or an error, or the body timeout), keeping
/// nothing: the frames are dropped as they come.
async fn drain(mut body: Body) {
    use http_body_util::BodyExt as _;
    while let Some(Ok(_)) = body.frame().await {}
}

const TOO_LARGE: Refusal = Refusal(StatusCode::PAYLOAD_TOO_LARGE, "request body too large");

/// Evaluates a request of `kind`: a single request and an amortized batch
/// go to the key list of their token type (the registry's family of it), a
/// generic batch to the generic batch issuer over the lists it takes.
fn evaluate(loaded: &Loaded, policy: &ExtensionsPolicy, kind: Kind, body: &[u8], now: u64) -> Result<Issued, Refusal> {
    let token_type = body.first_chunk::<2>().map(|b| u16::from_be_bytes(*b));
    let slot = |token_type: u16, truncated: u8| loaded.slot(token_type, truncated, now);
    let permits = |extensions: &pat::wire::extensions::Extensions<'_>| policy.permits(extensions);
    let request = Issue { body, slot: &slot, permits: &permits };
    match kind {
        Kind::Single => {
            let token_type = token_type.ok_or(MALFORMED)?;
            let bytes = loaded.tables.get(token_type).ok_or(UNSERVED)?.issue(&request)?;
            let token_type = type_label(token_type);
            Ok(Issued { status: StatusCode::OK, media_type: media::TOKEN_RESPONSE, body: bytes, token_type, tokens: 1 })
        }
        Kind::Credential => {
            // §7.2: a request that does not deserialize is 422, however short.
            let token_type = token_type.ok_or(UNPROCESSABLE)?;
            let bytes = loaded.tables.get(token_type).ok_or(UNSERVED)?.issue_credential(&request)?;
            Ok(Issued {
                status: StatusCode::OK,
                media_type: media::CREDENTIAL_RESPONSE,
                body: bytes,
                token_type: type_label(token_type),
                tokens: 1,
            })
        }
        Kind::Amortized => {
            let token_type = token_type.ok_or(MALFORMED)?;
            let (bytes, n) = loaded.tables.get(token_type).ok_or(UNSERVED)?.issue_amortized(&request)?;
            Ok(Issued {
                status: StatusCode::OK,
                media_type: media::AMORTIZED_RESPONSE,
                body: bytes,
                token_type: type_label(token_type),
                tokens: u64::try_from(n).unwrap_or(u64::MAX),
            })
        }
        Kind::Generic => {
            // Draft §6.2: an entry whose token type the issuer cannot take is
            // 422, like a single request of such a type. The entries have no
            // length of their own, so nothing after it can be read either.
            let request = GenericBatchTokenRequest::decode(body).map_err(|e| match e {
                pat::Error::UnknownTokenType(_) => UNSERVED,
                _ => MALFORMED,
            })?;
            if request.len() > MAX_BATCH {
                return Err(TOO_MANY);
            }
            let issuer = loaded.tables.generic_batch().map_err(|_| INTERNAL)?;
            let mut out = vec![0u8; request.max_response_len()];
            // The generator failing is ours (500); anything else the entries
            // caused (an entry that does not parse).
            let done = issuer.evaluate::<MAX_BATCH, _>(&request, &mut out, &mut rng()).map_err(|e| match e {
                pat::Error::Rng(_) => INTERNAL,
                _ => MALFORMED,
            })?;
            if done.issued == 0 {
                return Err(Refusal(StatusCode::BAD_REQUEST, "no entry of the batch could be issued"));
            }
            out.truncate(done.len);
            let status = if done.absent > 0 { StatusCode::PARTIAL_CONTENT } else { StatusCode::OK };
            Ok(Issued {
                status,
                media_type: media::GENERIC_RESPONSE,
                body: out,
                token_type: "mixed",
                tokens: u64::try_from(done.issued).unwrap_or(u64::MAX),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use pat::wire::codec::Decode as _;
    use pat::wire::extensions::Extensions;

    use super::ExtensionsPolicy;

    #[test]
    fn the_extensions_policy_permits_listed_types_only() {
        // [(1, 01), (2, -)] and the empty list.
        let both = [0, 9, 0, 1, 0, 1, 1, 0, 2, 0, 0];
        let both = Extensions::decode(&both[..]).unwrap();
        let two = [0, 4, 0, 2, 0, 0];
        let two = Extensions::decode(&two[..]).unwrap();
        assert!(ExtensionsPolicy::Any.permits(&both));
        assert!(ExtensionsPolicy::Any.permits(&Extensions::EMPTY));
        let only2 = ExtensionsPolicy::Only(vec![2]);
        assert!(only2.permits(&two));
        assert!(only2.permits(&Extensions::EMPTY));
        assert!(!only2.permits(&both));
        assert!(ExtensionsPolicy::Only(vec![1, 2]).permits(&both));
        assert!(!ExtensionsPolicy::Only(Vec::new()).permits(&two));
    }
}
