//! `pat origin serve`: an origin that asks for a token (RFC 9577) and
//! redeems each one once.
//!
//! Every `GET` path is protected. Without a valid token the answer is 401
//! with `WWW-Authenticate: PrivateToken challenge=..., token-key=...,
//! max-age=...`; with one, 200; a token spent before, 401 and the challenge
//! again.
//!
//! The challenge names the issuer, carries the origin's `origin_info` (empty
//! by default) and a redemption context that changes every `max-age`
//! seconds: SHA-256 over a label, the issuer name, the origin_info and the
//! number of the time window. A token is accepted for the challenge of the
//! current window and of the one before, so it lives at most two windows, and
//! its spent entry in the replay store expires when the token could no longer
//! be redeemed anyway: the store never fills with entries that cannot expire.
//! Every replica of an origin computes the same challenges, so origins that
//! share one replay store (Redis) ask for, and accept, the same tokens.
//!
//! Type 0xDA7A (public metadata): the client sends the token with its
//! Extensions, `Authorization: PrivateToken token="…", extensions="…"`
//! (draft-ietf-privacypass-auth-scheme-extensions §3; an absent `extensions`
//! is the empty list), and the token verifies only with the extensions it
//! was issued for. Which extensions an origin accepts is [`OriginConfig::extensions`].
//!
//! Keys: for types 0x0002 and 0xDA7A the origin reads the issuer directory
//! (`--issuer-url`) and refreshes it; for the privately verifiable types it
//! runs joined with the issuer and reads the issuer's state folder (RFC 9576
//! §4.1 allows that deployment), re-reading it when it changes.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use pat::auth;
use pat::challenge::TokenChallenge;
use pat::codec::{Decode, Encode};
use pat::directory::IssuerDirectory;
use pat::extensions::Extensions;
use pat::keyset::{KeyEntry, KeySet, Validity};
use pat::replay::Spend;
use pat::token::TokenRef;
use pat::token_type::{PrivateP384, PrivateRistretto255, PublicMetadataRsa2048, TokenType as _};
use pat::types::{metadata, private, public};

use sha2::{Digest as _, Sha256};

use crate::client::MAX_DIRECTORY_KEYS;
use crate::keys::{self, IssuerKey};
use crate::replay::Replay;
use crate::{BoxError, unix_now};

/// Keys an origin holds at once.
pub const MAX_KEYS: usize = 32;
/// The longest `Authorization` value read (a type-2 token is 354 bytes, 472 in base64).
pub const MAX_AUTHORIZATION: usize = 2048;
/// Token type 0xDA7A.
const METADATA: u16 = PublicMetadataRsa2048::CODE;
/// The label of the redemption context derivation.
const CONTEXT_LABEL: &[u8] = b"pat-http redemption context v1";

/// What `pat origin serve` was told.
#[derive(Clone, Debug)]
pub struct OriginConfig {
    /// The issuer name written into challenges.
    pub issuer_name: String,
    /// Where the issuer directory is (`https://NAME` by default).
    pub issuer_url: String,
    /// The token type asked for: 1, 2, 5 or 0xDA7A.
    pub token_type: u16,
    /// Type 0xDA7A: the extension types a redeemed token's extensions may
    /// have (`None`: any well-formed list).
    pub extensions: Option<Vec<u16>>,
    /// The challenge's origin_info (empty: any origin).
    pub origin_info: String,
    /// `max-age` of the challenge, in seconds: also the length of the time
    /// window its redemption context belongs to (at least 1).
    pub max_age: u32,
    /// The issuer's state folder, for types 1 and 5.
    pub issuer_state: Option<PathBuf>,
    /// Whether the challenge carries `token-key` (RFC 9577 §2.1 lets it be left out).
    pub send_token_key: bool,
    /// How often keys are re-read.
    pub refresh: Duration,
    /// Extra root certificate (PEM) for fetching the directory over TLS.
    pub ca_cert: Option<PathBuf>,
}

/// A key tokens can be verified with.
enum Verifier {
    P384(private::Issuer<PrivateP384>),
    R255(private::Issuer<PrivateRistretto255>),
    Rsa(Box<public::Origin>, [u8; 32], Vec<u8>),
    Metadata(Box<metadata::Origin>, [u8; 32], Vec<u8>),
}

impl KeyEntry for Verifier {
    fn token_type(&self) -> u16 {
        match self {
            Self::P384(_) => 1,
            Self::Rsa(..) => 2,
            Self::R255(_) => 5,
            Self::Metadata(..) => METADATA,
        }
    }

    fn key_id(&self) -> &[u8; 32] {
        match self {
            Self::P384(k) => k.key_id(),
            Self::R255(k) => k.key_id(),
            Self::Rsa(_, id, _) | Self::Metadata(_, id, _) => id,
        }
    }
}

impl Verifier {
    fn token_key(&self) -> Vec<u8> {
        match self {
            Self::P384(k) => k.token_key().as_ref().to_vec(),
            Self::R255(k) => k.token_key().as_ref().to_vec(),
            Self::Rsa(_, _, spki) | Self::Metadata(_, _, spki) => spki.clone(),
        }
    }

    fn verify(&self, token: &[u8], challenge: &TokenChallenge<'_>, extensions: &Extensions<'_>) -> bool {
        match self {
            Self::P384(k) => <PrivateP384 as private::PrivateTokenType>::Token::decode(token)
                .is_ok_and(|t| k.verify(&t, challenge).is_ok()),
            Self::R255(k) => <PrivateRistretto255 as private::PrivateTokenType>::Token::decode(token)
                .is_ok_and(|t| k.verify(&t, challenge).is_ok()),
            Self::Rsa(origin, ..) => {
                public::PublicToken::decode(token).is_ok_and(|t| origin.verify(&t, challenge).is_ok())
            }
            Self::Metadata(origin, ..) => {
                metadata::MetadataToken::decode(token).is_ok_and(|t| origin.verify(&t, challenge, extensions).is_ok())
            }
        }
    }
}

struct Keys {
    set: KeySet<Verifier, MAX_KEYS>,
    mtime: Option<std::time::SystemTime>,
}

/// The origin service shared by its handlers.
pub struct OriginService {
    config: OriginConfig,
    keys: RwLock<Arc<Keys>>,
    replay: Replay,
    http: reqwest::Client,
}

impl OriginService {
    /// Loads the keys and builds the challenge.
    pub async fn new(config: OriginConfig, replay: Replay) -> Result<Arc<Self>, BoxError> {
        if !matches!(config.token_type, 1 | 2 | 5 | METADATA) {
            return Err(format!("token type {} is not served (supported: 1, 2, 5, 0xDA7A)", config.token_type).into());
        }
        if !matches!(config.token_type, 2 | METADATA) && config.issuer_state.is_none() {
            return Err(
                "types 1 and 5 are privately verifiable: give the issuer's state folder (--issuer-state)".into()
            );
        }
        // Checks the names once: every window's challenge has the same ones.
        TokenChallenge::new(config.token_type, config.issuer_name.as_bytes(), &[], config.origin_info.as_bytes())?;
        let http = crate::client::http_client(config.ca_cert.as_deref())?;
        let service =
            Self { config, keys: RwLock::new(Arc::new(Keys { set: KeySet::new(), mtime: None })), replay, http };
        service.refresh().await?;
        Ok(Arc::new(service))
    }

    fn window_len(&self) -> u64 {
        u64::from(self.config.max_age.max(1))
    }

    /// The encoded challenge of time window `window`.
    fn challenge(&self, window: u64) -> Result<Vec<u8>, BoxError> {
        let (issuer, origins) = (self.config.issuer_name.as_bytes(), self.config.origin_info.as_bytes());
        let mut h = Sha256::new();
        h.update(CONTEXT_LABEL);
        h.update(u64::try_from(issuer.len()).unwrap_or(u64::MAX).to_be_bytes());
        h.update(issuer);
        h.update(u64::try_from(origins.len()).unwrap_or(u64::MAX).to_be_bytes());
        h.update(origins);
        h.update(window.to_be_bytes());
        let context: [u8; 32] = h.finalize().into();
        let challenge = TokenChallenge::new(self.config.token_type, issuer, &context, origins)?;
        let mut bytes = vec![0u8; challenge.encoded_len()];
        challenge.encode(&mut bytes)?;
        Ok(bytes)
    }

    fn current(&self) -> Arc<Keys> {
        match self.keys.read() {
            Ok(k) => Arc::clone(&k),
            Err(poisoned) => Arc::clone(&poisoned.into_inner()),
        }
    }

    fn install(&self, keys: Keys) {
        match self.keys.write() {
            Ok(mut k) => *k = Arc::new(keys),
            Err(poisoned) => *poisoned.into_inner() = Arc::new(keys),
        }
    }

    /// Re-reads the keys (the state folder if it changed, or the directory).
    pub async fn refresh(&self) -> Result<(), BoxError> {
        let mut set = KeySet::new();
        let mut mtime = None;
        if let Some(dir) = &self.config.issuer_state {
            mtime = keys::manifest_mtime(dir);
            if mtime.is_some() && mtime == self.current().mtime {
                return Ok(());
            }
            for loaded in keys::load(dir, unix_now())?.keys {
                let verifier = match loaded.key {
                    IssuerKey::P384(k) => Verifier::P384(k),
                    IssuerKey::R255(k) => Verifier::R255(k),
                    IssuerKey::Rsa(k) => {
                        let spki = k.token_key().to_vec();
                        Verifier::Rsa(Box::new(public::Origin::new(k.public_key().clone())), *k.key_id(), spki)
                    }
                    IssuerKey::Metadata(k) => {
                        let spki = k.token_key().to_vec();
                        let origin = metadata::Origin::new(k.public_key().clone());
                        Verifier::Metadata(Box::new(origin), *k.key_id(), spki)
                    }
                };
                if verifier.token_type() == self.config.token_type {
                    set.insert(verifier, loaded.validity)?;
                }
            }
        } else {
            let url = format!("{}{}", self.config.issuer_url.trim_end_matches('/'), pat::directory::WELL_KNOWN_PATH);
            let json = crate::client::get_directory(&self.http, &url).await?;
            let mut scratch = vec![0u8; json.len()];
            let directory = IssuerDirectory::<MAX_DIRECTORY_KEYS>::parse(&json, &mut scratch)?;
            let mut buf = [0u8; pat::directory::MAX_TOKEN_KEY_LEN];
            let wanted = if self.config.token_type == METADATA { METADATA } else { 2 };
            for key in directory.keys().iter().filter(|k| k.token_type() == wanted) {
                // One bad key does not take the others down.
                let parsed = key.decode_token_key(&mut buf).and_then(|spki| {
                    pat::blind_rsa::PublicKey::from_spki(spki).map(|public_key| (spki.to_vec(), public_key))
                });
                let (spki, public_key) = match parsed {
                    Ok(k) => k,
                    Err(e) => {
                        eprintln!("origin: skipping a type-{wanted} key of the directory at {url}: {e}");
                        continue;
                    }
                };
                let key_id = *public_key.key_id();
                // A key the directory lists is valid from its not-before for as long as it is listed.
                let validity = Validity { not_before: key.not_before().unwrap_or(0), not_after: u64::MAX };
                let verifier = if wanted == METADATA {
                    Verifier::Metadata(Box::new(metadata::Origin::new(public_key)), key_id, spki)
                } else {
                    Verifier::Rsa(Box::new(public::Origin::new(public_key)), key_id, spki)
                };
                set.insert(verifier, validity)?;
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
                    eprintln!("origin: refreshing keys failed (keeping the old ones): {e}");
                }
            }
        });
    }

    /// The `WWW-Authenticate` value for now.
    fn www_authenticate(&self) -> Option<HeaderValue> {
        let now = unix_now();
        let challenge = self.challenge(now / self.window_len()).ok()?;
        let keys = self.current();
        let token_key = keys.set.current(self.config.token_type, now).map(Verifier::token_key);
        let mut out = vec![0u8; 256 + challenge.len() * 2 + token_key.as_ref().map_or(0, |k| k.len() * 2)];
        let max_age = Some(self.config.max_age);
        let value = match token_key {
            Some(key) if self.config.send_token_key => {
                auth::write_www_authenticate(&challenge, &key, max_age, &mut out).ok()?
            }
            _ => auth::write_www_authenticate_without_key(&challenge, max_age, &mut out).ok()?,
        };
        HeaderValue::from_str(value).ok()
    }

    /// Redeems the token of an `Authorization` value. The token must be for
    /// the challenge of this window or the one before; it is spent until the
    /// end of the window after its own, or its key's end if sooner.
    async fn redeem(&self, authorization: &str) -> Result<Outcome, Failure> {
        let mut buf = [0u8; MAX_AUTHORIZATION];
        let mut ext_buf = Vec::new();
        let (token, extensions) = if self.config.token_type == METADATA {
            let Ok(params) = auth::parse_authorization_with_extensions(authorization) else {
                return Ok(Outcome::Invalid);
            };
            let Ok(token) = params.token.decode_base64url(&mut buf) else { return Ok(Outcome::Invalid) };
            ext_buf.resize(params.extensions.map_or(0, |e| e.decoded_len_bound()), 0);
            let Ok(extensions) = params.decode_extensions(&mut ext_buf) else { return Ok(Outcome::Invalid) };
            if !self.config.extensions.as_ref().is_none_or(|t| extensions.iter().all(|e| t.contains(&e.extension_type)))
            {
                return Ok(Outcome::Invalid);
            }
            (token, extensions)
        } else {
            let Ok(param) = auth::parse_authorization(authorization) else { return Ok(Outcome::Invalid) };
            let Ok(token) = param.decode_base64url(&mut buf) else { return Ok(Outcome::Invalid) };
            (token, Extensions::EMPTY)
        };
        let Ok(parsed) = TokenRef::decode(token) else { return Ok(Outcome::Invalid) };
        if parsed.kind().code() != self.config.token_type {
            return Ok(Outcome::Invalid);
        }
        let now = unix_now();
        let len = self.window_len();
        let input = *parsed.input();
        let mut matched = None;
        for window in [now / len, (now / len).saturating_sub(1)] {
            let bytes = self.challenge(window).map_err(Internal)?;
            // The challenge digest is SHA-256 of the encoded challenge (RFC 9577 §2.2).
            if <[u8; 32]>::from(Sha256::digest(&bytes)) == *input.challenge_digest() {
                matched = Some((window, bytes));
                break;
            }
        }
        let Some((window, challenge_bytes)) = matched else { return Ok(Outcome::Invalid) };
        let challenge = TokenChallenge::decode(&challenge_bytes).map_err(|e| Internal(e.into()))?;
        let keys = self.current();
        let Some((verifier, validity)) = keys.set.by_key_id(self.config.token_type, input.token_key_id(), now) else {
            return Ok(Outcome::Invalid);
        };
        if !verifier.verify(token, &challenge, &extensions) {
            return Ok(Outcome::Invalid);
        }
        // Accepted until the end of the next window: spent until then.
        let expires_at = window.saturating_add(2).saturating_mul(len).min(validity.not_after);
        Ok(match self.replay.spend(input.token_key_id(), input.nonce(), expires_at, now).await.map_err(Store)? {
            Spend::Fresh => Outcome::Fresh,
            Spend::Replayed => Outcome::Replayed,
            Spend::Full => Outcome::Full,
        })
    }
}

/// A failure of the origin itself, not of the token.
struct Internal(BoxError);
/// A failure of the replay store.
struct Store(BoxError);

impl From<Internal> for Failure {
    fn from(e: Internal) -> Self {
        Self::Internal(e.0)
    }
}

impl From<Store> for Failure {
    fn from(e: Store) -> Self {
        Self::Store(e.0)
    }
}

enum Failure {
    Internal(BoxError),
    Store(BoxError),
}

enum Outcome {
    Fresh,
    Replayed,
    Invalid,
    Full,
}

/// The routes of the origin: every path is protected.
pub fn router(service: Arc<OriginService>) -> Router {
    Router::new().fallback(protected).with_state(service)
}

async fn protected(State(service): State<Arc<OriginService>>, headers: HeaderMap) -> Response {
    let outcome = match headers.get(header::AUTHORIZATION).map(HeaderValue::to_str) {
        None => None,
        Some(Err(_)) => Some(Outcome::Invalid),
        Some(Ok(value)) => match service.redeem(value).await {
            Ok(o) => Some(o),
            Err(Failure::Store(e)) => {
                eprintln!("origin: replay store failed: {e}");
                return (StatusCode::SERVICE_UNAVAILABLE, "replay store unavailable\n").into_response();
            }
            Err(Failure::Internal(e)) => {
                eprintln!("origin: internal error: {e}");
                return (StatusCode::INTERNAL_SERVER_ERROR, "internal error\n").into_response();
            }
        },
    };
    match outcome {
        Some(Outcome::Fresh) => (StatusCode::OK, "token accepted\n").into_response(),
        Some(Outcome::Full) => (StatusCode::SERVICE_UNAVAILABLE, "replay store full\n").into_response(),
        other => {
            let text = match other {
                Some(Outcome::Replayed) => "token already spent\n",
                Some(Outcome::Invalid) => "token not valid\n",
                _ => "token required\n",
            };
            let mut response = (StatusCode::UNAUTHORIZED, text).into_response();
            if let Some(value) = service.www_authenticate() {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, value);
            }
            response
        }
    }
}
