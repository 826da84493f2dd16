//! `pat origin serve`: an origin that asks for a token (RFC 9577) and
//! redeems each one once.
//!
//! Every path but the operator's ([`crate::admin`]: `/healthz`, `/readyz`,
//! `/metrics`) is protected. Without a valid token the answer is 401 with
//! `WWW-Authenticate: PrivateToken challenge=..., token-key=...,
//! max-age=...`; with one, 200; a token spent before, 401 and the challenge
//! again.
//!
//! # Challenges
//!
//! The challenge names the issuer, carries the origin's `origin_info` (empty
//! by default) and a redemption context that changes every `max-age`
//! seconds: SHA-256 over a label, the issuer name, the origin_info, the
//! replay store's epoch ([`crate::replay`]) and the number of the time
//! window. A token is accepted for the challenge of the current window and
//! of the one before, so it lives at most two windows, and its spent entry
//! expires then (plus a clock skew margin,
//! [`pat::deploy::replay::windowed_expiry`]): the store never fills with entries
//! that cannot expire, whatever the keys' lifetime. Every replica of an
//! origin that shares one replay store (Redis) shares its epoch, so they ask
//! for, and accept, the same tokens; when the store loses its memory the
//! epoch changes, and tokens issued before are refused rather than accepted
//! twice.
//!
//! # Failing closed, and bounded
//!
//! A token is accepted only after it verified and the store recorded it.
//! The `Authorization` value is bounded ([`MAX_AUTHORIZATION`], the server's
//! header cap for 0xDA7A's extensions, the longest ARC token for 0xE5AC) and checked cheaply first (its
//! challenge digest and key id); the verification runs on the bounded
//! [`crate::pool`], so a flood of well-formed forgeries is shed with 503
//! instead of starving real clients. A store that is down, slow or full is
//! 503 with `Retry-After`, never an acceptance.
//!
//! Type 0xDA7A (public metadata): the client sends the token with its
//! Extensions, `Authorization: PrivateToken token="…", extensions="…"`
//! (draft-ietf-privacypass-auth-scheme-extensions §3; an absent `extensions`
//! is the empty list), and the token verifies only with the extensions it
//! was issued for. Which extensions an origin accepts is [`OriginConfig::extensions`].
//!
//! # Extension negotiation
//!
//! An origin can ask for extensions (draft-ietf-privacypass-auth-scheme-extensions-03
//! §4): [`OriginConfig::extension_set`] lists the extension types its
//! challenges announce in `extension-set="…"`, each required or optional,
//! and [`OriginConfig::suggested_extensions`] a list it offers clients in
//! `extensions="…"`. A token whose extensions lack a required type is
//! refused before any cryptography, with 401 and a fresh challenge (metrics
//! reason `missing_extension`). Only types whose tokens carry extensions
//! (0xDA7A, 0xDA7B) can announce them; the service refuses to start
//! otherwise, or when a required type is not among the allowed ones
//! ([`crate::negotiation`]).
//!
//! # Type 0xE5AC (ARC)
//!
//! An origin of type 0xE5AC (draft-ietf-privacypass-arc-protocol-01) is
//! joined with its issuer (`--issuer-state`: ARC is privately verifiable,
//! §4) and announces its presentation limit, [`OriginConfig::rate_limit`],
//! in the challenge's `rate-limit` parameter (§6). Its challenge carries an
//! empty `credential_context`, so one credential serves every window; the
//! redemption context is the one above, so a client may present up to the
//! limit per challenge window and replay store epoch (the presentation
//! context of §8.1 includes it). A token verifies under the limit and is
//! spent under its presentation tag in the same store, with the same
//! expiry and the same refusals as every other type: a replayed
//! presentation is 401, a store that is down or slow is 503, never an
//! acceptance, on every origin sharing the store. Its tokens carry no
//! extensions: it does not start with [`OriginConfig::extensions`].
//!
//! The limit is per credential, not per client: the issuer gives
//! credentials to anyone who asks and `pat fetch` obtains a new one after
//! N, so it limits clients only where issuance is gated (attestation or
//! authentication in front of the issuer, which this crate does not
//! provide). And since a window accepts the previous window's challenge
//! too, one credential can spend up to 2N tokens within one window of
//! `max_age` seconds (N under each challenge; a client that keeps an old
//! challenge can reach 3N in `max_age` seconds straddling two boundaries).
//!
//! # Keys
//!
//! For types 0x0002 and 0xDA7A the origin reads the issuer directory
//! (`--issuer-url`) and refreshes it; for the privately verifiable types it
//! runs joined with the issuer and reads the issuer's state folder (RFC 9576
//! §4.1 allows that deployment), re-reading it when it changes. A key it
//! cannot use (malformed, a truncated key id another key of the set has,
//! beyond [`MAX_KEYS`]) is skipped with a log line; the others stay.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pat::deploy::directory::IssuerDirectory;
use pat::deploy::keyset::{KeyEntry, KeySet, Validity};
use pat::deploy::replay::Spend;
use pat::wire::auth;
use pat::wire::extension_set::ExtensionEntry;
use sha2::{Digest as _, Sha256};

use crate::client::MAX_DIRECTORY_KEYS;
use crate::keys;
use crate::metrics::{Metrics, type_label};
use crate::negotiation::Announcement;
use crate::pool::{Busy, Pool};
pub use crate::registry::MAX_AUTHORIZATION;
use crate::registry::{self, Check, Family, Verifier};
use crate::replay::{Epoch, Outcome as StoreOutcome, Replay, StoreError};
use crate::{BoxError, unix_now};

/// Keys an origin holds at once: more than any issuer of this crate keeps
/// (at most 256 per type can be told apart by a request's truncated key id).
pub const MAX_KEYS: usize = 1024;
/// `, rate-limit=` and the longest decimal `u64`.
const RATE_LIMIT_PARAM_LEN: usize = 13 + 20;
/// The label of the redemption context derivation (v2: with the store's epoch).
const CONTEXT_LABEL: &[u8] = b"pat-http redemption context v2";

/// What `pat origin serve` was told.
#[derive(Clone, Debug)]
pub struct OriginConfig {
    /// The issuer name written into challenges.
    pub issuer_name: String,
    /// Where the issuer directory is (`https://NAME` by default).
    pub issuer_url: String,
    /// The token type asked for: a served type (1, 2, 5, 0xDA7A, 0xDA7B, 0xE5AC).
    pub token_type: u16,
    /// Type 0xE5AC: the presentation limit sent in the challenge's
    /// `rate-limit` parameter (2 to 2^32); required for that type,
    /// refused for the others.
    pub rate_limit: Option<u64>,
    /// Type 0xDA7A: the extension types a redeemed token's extensions may
    /// have (`None`: any well-formed list).
    pub extensions: Option<Vec<u16>>,
    /// The extension types the challenge asks for, in its `extension-set`
    /// parameter (draft-ietf-privacypass-auth-scheme-extensions-03 §4), in
    /// this order; a token lacking a required one is refused. Empty: no
    /// `extension-set`. Types 0xDA7A and 0xDA7B only.
    pub extension_set: Vec<ExtensionEntry>,
    /// An encoded Extensions list offered to clients in the challenge's
    /// `extensions` parameter (same section); `None`: no parameter.
    pub suggested_extensions: Option<Vec<u8>>,
    /// The challenge's origin_info (empty: any origin).
    pub origin_info: String,
    /// `max-age` of the challenge, in seconds: also the length of the time
    /// window its redemption context belongs to (at least 1).
    pub max_age: u32,
    /// The largest clock difference between the origins sharing a replay
    /// store (and the store): spent entries outlive their window by this.
    pub clock_skew: u64,
    /// The issuer's state folder, for types 1 and 5.
    pub issuer_state: Option<PathBuf>,
    /// Whether the challenge carries `token-key` (RFC 9577 §2.1 lets it be left out).
    pub send_token_key: bool,
    /// How often keys are re-read.
    pub refresh: Duration,
    /// Extra root certificate (PEM) for fetching the directory over TLS.
    pub ca_cert: Option<PathBuf>,
}

struct Keys {
    set: Box<KeySet<Verifier, MAX_KEYS>>,
    mtime: Option<std::time::SystemTime>,
}

impl Keys {
    fn empty() -> Self {
        Self { set: Box::new(KeySet::new()), mtime: None }
    }
}

/// The origin service shared by its handlers.
pub struct OriginService {
    config: OriginConfig,
    /// The family of `config.token_type`.
    family: &'static dyn Family,
    /// The challenge's extension negotiation, checked at start.
    announcement: Announcement,
    keys: RwLock<Arc<Keys>>,
    replay: Arc<Replay>,
    http: reqwest::Client,
    pool: Pool,
    metrics: Arc<Metrics>,
    draining: AtomicBool,
}

impl std::fmt::Debug for OriginService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OriginService").field("config", &self.config).finish_non_exhaustive()
    }
}

impl OriginService {
    /// Loads the keys, with the default pool and a registry of its own.
    pub async fn new(config: OriginConfig, replay: Replay) -> Result<Arc<Self>, BoxError> {
        let metrics = Arc::new(Metrics::new());
        let pool = Pool::new(crate::pool::PoolConfig::default(), Arc::clone(&metrics));
        Self::with(config, Arc::new(replay), pool, metrics).await
    }

    /// Loads the keys; verifications run on `pool`, counts go to `metrics`
    /// (the replay store's too, if built with the same).
    pub async fn with(
        config: OriginConfig,
        replay: Arc<Replay>,
        pool: Pool,
        metrics: Arc<Metrics>,
    ) -> Result<Arc<Self>, BoxError> {
        let family = registry::family(config.token_type).ok_or_else(|| {
            format!("token type {} is not served (supported: {})", config.token_type, registry::supported())
        })?;
        if !family.publicly_verifiable() && config.issuer_state.is_none() {
            return Err(format!(
                "types {} are privately verifiable: give the issuer's state folder (--issuer-state)",
                registry::privately_verifiable()
            )
            .into());
        }
        match (family.rate_limited(), config.rate_limit) {
            (true, None) => {
                return Err(format!(
                    "type {}: give the presentation limit (--rate-limit)",
                    registry::name(family.code())
                )
                .into());
            }
            (true, Some(limit)) if !family.usable_limit(limit) => {
                return Err(format!("--rate-limit {limit}: the presentation limit is 2 to 2^32").into());
            }
            (false, Some(_)) => {
                return Err(format!(
                    "--rate-limit applies to type 0xE5AC, not to type {}",
                    registry::name(family.code())
                )
                .into());
            }
            _ => {}
        }
        if family.rate_limited() && config.extensions.is_some() {
            // Its tokens carry no extensions: the list would be ignored.
            return Err(format!(
                "tokens of type {} carry no extensions: --allowed-extensions needs a type that does (0xDA7A, 0xDA7B)",
                registry::name(family.code())
            )
            .into());
        }
        // Checks the names once: every window's challenge has the same ones.
        family.challenge(config.issuer_name.as_bytes(), &[], config.origin_info.as_bytes(), &[])?;
        let announcement = Announcement::new(
            family,
            &config.extension_set,
            config.suggested_extensions.as_deref(),
            config.extensions.as_deref(),
        )?;
        let http = crate::client::http_client(config.ca_cert.as_deref())?;
        let service = Self {
            config,
            family,
            announcement,
            keys: RwLock::new(Arc::new(Keys::empty())),
            replay,
            http,
            pool,
            metrics,
            draining: AtomicBool::new(false),
        };
        service.refresh().await?;
        if service.replay.check().await.is_err() {
            tracing::warn!("the replay store is not reachable yet: redemptions are refused (503) until it is");
        }
        service.replay.spawn_monitor();
        Ok(Arc::new(service))
    }

    /// The service's metrics.
    pub fn metrics(&self) -> &Arc<Metrics> {
        &self.metrics
    }

    /// Readiness: keys for the token type and a reachable replay store.
    pub fn ready(&self) -> Result<(), &'static str> {
        if self.draining.load(Ordering::Acquire) {
            return Err("shutting down");
        }
        if self.current().set.current(self.config.token_type, unix_now()).is_none() {
            return Err("no key of the token type is valid now");
        }
        if !self.replay.is_up() {
            return Err("the replay store is unreachable");
        }
        Ok(())
    }

    /// Marks the service as shutting down (`/readyz` then answers 503).
    pub fn drain(&self) {
        self.draining.store(true, Ordering::Release);
    }

    fn window_len(&self) -> u64 {
        u64::from(self.config.max_age.max(1))
    }

    /// The encoded challenge of time window `window` under `epoch`.
    fn challenge(&self, epoch: &Epoch, window: u64) -> Result<Vec<u8>, BoxError> {
        let (issuer, origins) = (self.config.issuer_name.as_bytes(), self.config.origin_info.as_bytes());
        let mut h = Sha256::new();
        h.update(CONTEXT_LABEL);
        h.update(u64::try_from(issuer.len()).unwrap_or(u64::MAX).to_be_bytes());
        h.update(issuer);
        h.update(u64::try_from(origins.len()).unwrap_or(u64::MAX).to_be_bytes());
        h.update(origins);
        h.update(epoch);
        h.update(window.to_be_bytes());
        let context: [u8; 32] = h.finalize().into();
        self.family.challenge(issuer, &context, origins, &[])
    }

    fn current(&self) -> Arc<Keys> {
        match self.keys.read() {
            Ok(k) => Arc::clone(&k),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    fn install(&self, keys: Keys) {
        for t in registry::codes() {
            let n = keys.set.iter().filter(|(k, _)| k.token_type() == t).count();
            if n > 0 || t == self.config.token_type {
                self.metrics
                    .keys_loaded
                    .get_or_create(&[("token_type", type_label(t))])
                    .set(i64::try_from(n).unwrap_or(i64::MAX));
            }
        }
        match self.keys.write() {
            Ok(mut k) => *k = Arc::new(keys),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(keys),
        }
    }

    /// Adds a key to `set`, or logs why it cannot be used.
    fn add(&self, set: &mut KeySet<Verifier, MAX_KEYS>, verifier: Verifier, validity: Validity, source: &str) {
        let id = keys::short_id(verifier.key_id());
        let token_type = verifier.token_type();
        if let Err(e) = set.insert(verifier, validity) {
            self.metrics.keys_skipped.inc();
            tracing::warn!(key = %id, token_type, source, error = %e, "origin: skipping a key it cannot use");
        }
    }

    /// Re-reads the keys (the state folder if it changed, or the directory).
    pub async fn refresh(&self) -> Result<(), BoxError> {
        let mut set: Box<KeySet<Verifier, MAX_KEYS>> = Box::new(KeySet::new());
        let mut mtime = None;
        if let Some(dir) = &self.config.issuer_state {
            mtime = keys::manifest_mtime(dir);
            if mtime.is_some() && mtime == self.current().mtime {
                return Ok(());
            }
            let source = dir.display().to_string();
            let state = keys::load(dir, unix_now())?;
            self.metrics.keys_skipped.inc_by(u64::try_from(state.skipped).unwrap_or(u64::MAX));
            for loaded in state.keys.into_iter().filter(|k| k.key.token_type() == self.config.token_type) {
                let key_id = *loaded.key.key_id();
                let Some(verifier) = loaded.key.into_verifier() else {
                    // Its family makes a verifier of each of its keys: not reached.
                    self.metrics.keys_skipped.inc();
                    let (id, token_type) = (keys::short_id(&key_id), self.config.token_type);
                    tracing::warn!(key = %id, token_type, source, error = "no verifier", "origin: skipping a key it cannot use");
                    continue;
                };
                self.add(&mut set, verifier, loaded.validity, &source);
            }
        } else {
            let url =
                format!("{}{}", self.config.issuer_url.trim_end_matches('/'), pat::deploy::directory::WELL_KNOWN_PATH);
            let json = crate::client::get_directory(&self.http, &url).await?;
            let mut scratch = vec![0u8; json.len()];
            let directory = Box::new(IssuerDirectory::<MAX_DIRECTORY_KEYS>::parse(&json, &mut scratch)?);
            let mut buf = [0u8; pat::deploy::directory::MAX_TOKEN_KEY_LEN];
            // Publicly verifiable (`with` refused the others without a state folder).
            let wanted = self.config.token_type;
            for key in directory.keys().iter().filter(|k| k.token_type() == wanted) {
                // One bad key does not take the others down.
                let parsed = match key.decode_token_key(&mut buf) {
                    Ok(token_key) => self.family.directory_verifier(token_key),
                    Err(e) => Err(e.into()),
                };
                let verifier = match parsed {
                    Ok(k) => k,
                    Err(e) => {
                        self.metrics.keys_skipped.inc();
                        tracing::warn!(token_type = wanted, source = %url, error = %e, "origin: skipping a directory key it cannot parse");
                        continue;
                    }
                };
                // A key the directory lists is valid from its not-before for as long as it is listed.
                let validity = Validity { not_before: key.not_before().unwrap_or(0), not_after: u64::MAX };
                self.add(&mut set, verifier, validity, &url);
            }
        }
        self.install(Keys { set, mtime });
        Ok(())
    }

    /// Re-reads the keys every `config.refresh` until the process ends.
    pub fn spawn_refresh(self: &Arc<Self>) {
        let service = Arc::clone(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(service.config.refresh);
            tick.tick().await;
            loop {
                tick.tick().await;
                if let Err(e) = service.refresh().await {
                    service.metrics.key_reloads_failed.inc();
                    tracing::warn!(error = %e, "origin: refreshing keys failed (keeping the old ones)");
                }
            }
        });
    }

    /// The `WWW-Authenticate` value for now; `None` while the replay store's
    /// epoch is unknown (no challenge can be redeemed then).
    fn www_authenticate(&self) -> Option<HeaderValue> {
        let now = unix_now();
        let epoch = self.replay.epoch()?;
        let challenge = self.challenge(&epoch, now / self.window_len()).ok()?;
        let keys = self.current();
        let token_key = keys.set.current(self.config.token_type, now).map(Verifier::token_key);
        let token_key = token_key.filter(|_| self.config.send_token_key);
        let max_age = Some(self.config.max_age);
        let (set, suggested) = (self.announcement.set(), self.announcement.suggested());
        if let Some(limit) = self.config.rate_limit {
            // Type 0xE5AC: no extension negotiation (checked at start).
            let len = auth::www_authenticate_with_extensions_len(
                challenge.len(),
                token_key.map(<[u8]>::len),
                max_age,
                None,
                None,
            ) + RATE_LIMIT_PARAM_LEN;
            let mut out = vec![0u8; len];
            let value =
                auth::write_www_authenticate_with_rate_limit(&challenge, token_key, max_age, limit, &mut out).ok()?;
            return HeaderValue::from_str(value).ok();
        }
        let len = auth::www_authenticate_with_extensions_len(
            challenge.len(),
            token_key.map(<[u8]>::len),
            max_age,
            set.map(|s| s.as_bytes().len()),
            suggested.map(|e| e.as_bytes().len()),
        );
        let mut out = vec![0u8; len];
        let value = auth::write_www_authenticate_with_extensions(
            &challenge,
            token_key,
            max_age,
            set.as_ref(),
            suggested.as_ref(),
            &mut out,
        )
        .ok()?;
        HeaderValue::from_str(value).ok()
    }

    /// Redeems the token of an `Authorization` value. The token must be for
    /// the challenge of this window or the one before, under the store's
    /// current epoch; it is spent until [`pat::deploy::replay::windowed_expiry`].
    async fn redeem(&self, authorization: &str) -> Result<Outcome, Failure> {
        let (token, extensions) =
            match self.family.presented(authorization, self.config.extensions.as_deref(), self.config.rate_limit) {
                Ok(presented) => (presented.token, presented.extensions),
                Err(reason) => return Ok(Outcome::Invalid(reason)),
            };
        // A required extension type missing: refused before any cryptography.
        if self.announcement.first_missing(&extensions).is_some() {
            return Ok(Outcome::Invalid(MISSING_EXTENSION));
        }
        let limit = self.config.rate_limit;
        let header = match self.family.token_header(&token, limit) {
            Ok(header) => header,
            Err(reason) => return Ok(Outcome::Invalid(reason)),
        };
        let Some(epoch) = self.replay.epoch() else { return Err(Failure::Store(StoreError::Down)) };
        let now = unix_now();
        let len = self.window_len();
        let mut matched = None;
        for window in [now / len, (now / len).saturating_sub(1)] {
            let bytes = self.challenge(&epoch, window).map_err(Failure::Internal)?;
            // The challenge digest is SHA-256 of the encoded challenge (RFC 9577 §2.2).
            if <[u8; 32]>::from(Sha256::digest(&bytes)) == header.challenge_digest {
                matched = Some(bytes);
                break;
            }
        }
        let Some(challenge_bytes) = matched else { return Ok(Outcome::Invalid("unknown_challenge")) };
        let keys = self.current();
        let token_type = self.config.token_type;
        let key_id = header.key_id;
        if keys.set.by_key_id(token_type, &key_id, now).is_none() {
            return Ok(Outcome::Invalid("unknown_key"));
        }
        // The cryptography, on the bounded pool: the id the token is spent
        // under (its nonce; an ARC presentation's tag) if it verifies.
        let verified = self
            .pool
            .run(move || {
                let (verifier, _) = keys.set.by_key_id(token_type, &key_id, now)?;
                let check = Check { challenge: &challenge_bytes, extensions: &extensions, limit };
                verifier.verify(&token, &check)
            })
            .await
            .map_err(|Busy| Failure::Busy)?;
        let Some(spend_id) = verified else {
            return Ok(Outcome::Invalid("verification"));
        };
        let expires_at = pat::deploy::replay::windowed_expiry(now, len, self.config.clock_skew);
        match self.replay.spend(&epoch, &key_id, &spend_id, expires_at, now).await {
            Ok(StoreOutcome::Spend(Spend::Fresh)) => Ok(Outcome::Fresh),
            Ok(StoreOutcome::Spend(Spend::Replayed)) => Ok(Outcome::Invalid("replayed")),
            Ok(StoreOutcome::Spend(Spend::Expired)) => Ok(Outcome::Invalid("window_expired")),
            Ok(StoreOutcome::Spend(Spend::Full)) => Ok(Outcome::Full),
            Ok(StoreOutcome::EpochChanged) => Ok(Outcome::Invalid("epoch_changed")),
            Err(e) => Err(Failure::Store(e)),
        }
    }
}

/// The refusal reason of a token without an extension type the challenge requires.
const MISSING_EXTENSION: &str = "missing_extension";

enum Failure {
    Internal(BoxError),
    Store(StoreError),
    Busy,
}

enum Outcome {
    Fresh,
    /// Refused with 401 and a challenge; the reason is a metric label.
    Invalid(&'static str),
    Full,
}

/// The routes of the origin: every path is protected but the operator's
/// (`/healthz`, `/readyz`, `/metrics`), which `admin` says whether to add.
pub fn router(service: Arc<OriginService>) -> Router {
    let metrics = Arc::clone(&service.metrics);
    let ready = Arc::clone(&service);
    crate::admin::routes(metrics, move || ready.ready()).merge(protected_router(service))
}

/// The protected routes alone (the operator's routes served elsewhere).
pub fn protected_router(service: Arc<OriginService>) -> Router {
    Router::new().fallback(protected).with_state(service)
}

/// The `route` label of a request path.
pub fn route_of(path: &str) -> &'static str {
    crate::admin::route_of(path).unwrap_or("protected")
}

fn unavailable(text: &'static str) -> Response {
    (StatusCode::SERVICE_UNAVAILABLE, [(header::RETRY_AFTER, "1")], text).into_response()
}

async fn protected(State(service): State<Arc<OriginService>>, headers: HeaderMap) -> Response {
    let metrics = &service.metrics;
    let outcome = match headers.get(header::AUTHORIZATION).map(HeaderValue::to_str) {
        None => None,
        Some(Err(_)) => Some(Outcome::Invalid("malformed")),
        Some(Ok(value)) => match service.redeem(value).await {
            Ok(o) => Some(o),
            Err(Failure::Store(e)) => {
                metrics.store_error(e.label());
                metrics.refuse_redemption("store_unavailable");
                tracing::debug!(error = %e, "origin: replay store failed");
                return unavailable("replay store unavailable\n");
            }
            Err(Failure::Busy) => {
                metrics.refuse_redemption("busy");
                return unavailable("busy\n");
            }
            Err(Failure::Internal(e)) => {
                metrics.refuse_redemption("internal");
                tracing::error!(error = %e, "origin: internal error");
                return (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response();
            }
        },
    };
    match outcome {
        Some(Outcome::Fresh) => {
            metrics.redeemed.get_or_create(&[("token_type", type_label(service.config.token_type))]).inc();
            (StatusCode::OK, "token accepted\n").into_response()
        }
        Some(Outcome::Full) => {
            metrics.refuse_redemption("store_full");
            unavailable("replay store full\n")
        }
        other => {
            let text = match other {
                Some(Outcome::Invalid(reason)) => {
                    metrics.refuse_redemption(reason);
                    match reason {
                        "replayed" => "token already spent\n",
                        MISSING_EXTENSION => "token lacks an extension the challenge requires\n",
                        _ => "token not valid\n",
                    }
                }
                _ => "token required\n",
            };
            // No challenge can be given while the store's epoch is unknown.
            let Some(value) = service.www_authenticate() else {
                return unavailable("replay store unavailable\n");
            };
            let mut response = (StatusCode::UNAUTHORIZED, text).into_response();
            response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            response
        }
    }
}
