//! The token types the services serve, in one table: [`SERVED`].
//!
//! Each served type is one [`Family`]: a value that knows, for its type,
//! everything the services do that depends on the type:
//! - the state folder ([`crate::keys`]): the key file's format, a new key
//!   ([`Family::generate`]) and the key of a file ([`Family::load`]);
//! - the issuer ([`crate::issuer`]): an empty list of its keys
//!   ([`Family::issuer_keys`]), which then evaluates the type's
//!   TokenRequests (and amortized batches, for the types that have them)
//!   with the key a request names;
//! - the origin ([`crate::origin`]): the verifier of a key of the state
//!   folder ([`Family::verifier`]) or of a token key from the directory
//!   ([`Family::directory_verifier`], publicly verifiable types only), and
//!   the token an `Authorization` value presents ([`Family::presented`]);
//! - the client ([`crate::client`], `pat fetch`): the TokenRequest for a
//!   challenge and the finalization of the issuer's response into an
//!   `Authorization` value ([`Family::request`], [`Pending`]).
//!
//! Type 0xE5AC (ARC, [`arc`]) fits the same table with three more
//! questions the origin asks of every family: the encoded challenge of a
//! window ([`Family::challenge`]: ARC's carries a `credential_context`),
//! the challenge digest and key id of a token before any cryptography
//! ([`Family::token_header`]: an ARC token is not `token_input ‖
//! authenticator`, and its length depends on the limit), and the id a
//! verified token is spent under ([`Verify::verify`]: the nonce, or an ARC
//! presentation's tag). Its issuance is a credential, on its own media
//! types ([`IssuerKeys::issue_credential`]); the client side of it, with
//! the credential kept between runs, is [`crate::client`]'s.
//!
//! The generic batch endpoint has no family of its own: it evaluates with
//! the per-type key lists of types 0x0001, 0x0002 and 0x0005, the types the
//! library's `batched::Issuer` takes ([`IssuerTables::generic_batch`]).
//!
//! Adding a type is one [`Family`] implementation and its entry in
//! [`SERVED`]; the rest of the crate reads the list. Everything here fails
//! closed: a key of the wrong kind, a message that does not decode, a key
//! that is not found, is a refusal, never an acceptance.

pub(crate) mod arc;
mod blind_rsa;
mod metadata;
mod poprf;
mod voprf;

use std::any::Any;
use std::path::Path;

use axum::http::StatusCode;
use pat::deploy::keyset::KeyEntry;
use pat::tokens::batched;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::Decode as _;
use pat::wire::extensions::Extensions;
use pat::wire::token::TokenRef;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use zeroize::Zeroizing;

use crate::BoxError;

/// The served token types, one entry each, in the order metrics and
/// messages list them (types 0x0001, 0x0002, 0x0005, 0xDA7A, 0xDA7B, 0xE5AC).
pub const SERVED: &[&dyn Family] = &[
    &voprf::Voprf::<PrivateP384>::FAMILY,
    &blind_rsa::BlindRsa,
    &voprf::Voprf::<PrivateRistretto255>::FAMILY,
    &metadata::Metadata,
    &poprf::Poprf,
    &arc::ArcP256,
];

/// The most tokens in one amortized or generic batch.
pub const MAX_BATCH: usize = 100;

/// The longest `Authorization` value read for types 0x0001, 0x0002 and
/// 0x0005 (a type-2 token is 354 bytes, 472 in base64); longer values are
/// refused unparsed. A 0xDA7A or 0xDA7B value carries its extensions too and
/// is bounded by the server's header cap; a 0xE5AC value by the longest
/// token of the origin's presentation limit (`arc::max_authorization`).
pub const MAX_AUTHORIZATION: usize = 2048;

/// The family of `token_type`, if it is served.
pub fn family(token_type: u16) -> Option<&'static dyn Family> {
    SERVED.iter().copied().find(|f| f.code() == token_type)
}

/// The codes of the served types, in [`SERVED`] order.
pub fn codes() -> impl Iterator<Item = u16> {
    SERVED.iter().map(|f| f.code())
}

/// A type as messages name it: decimal below 0x100, else `0x` hex (`0xDA7A`).
pub(crate) fn name(code: u16) -> String {
    if code < 0x100 { code.to_string() } else { format!("{code:#06X}") }
}

/// The label of a served type in metrics (its [`name`]: `1`, `0xDA7A`);
/// `None` for a type not served. Made once, for the few served types.
pub fn label(token_type: u16) -> Option<&'static str> {
    static LABELS: std::sync::OnceLock<Vec<(u16, &'static str)>> = std::sync::OnceLock::new();
    let labels = LABELS.get_or_init(|| codes().map(|c| (c, &*Box::leak(name(c).into_boxed_str()))).collect());
    labels.iter().find(|(c, _)| *c == token_type).map(|(_, l)| *l)
}

/// The served types as messages list them: `1, 2, 5, 0xDA7A`.
pub fn supported() -> String {
    codes().map(name).collect::<Vec<_>>().join(", ")
}

/// The privately verifiable served types as messages name them: `1 and 5`.
pub fn privately_verifiable() -> String {
    let names: Vec<String> = SERVED.iter().filter(|f| !f.publicly_verifiable()).map(|f| name(f.code())).collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
}

/// One served token type: how the state folder, the issuer, the origin and
/// the client handle it.
pub trait Family: Sync {
    /// The token type code.
    fn code(&self) -> u16;

    /// The extension of the type's key files in the state folder (`seed`, `pem`).
    fn key_file_ext(&self) -> &'static str;

    /// A new key, with the contents of its file.
    fn generate(&self) -> Result<(IssuerKey, Zeroizing<Vec<u8>>), BoxError>;

    /// The key of a key file's `contents` (read from `path`, named in errors).
    fn load(&self, path: &Path, contents: &[u8]) -> Result<IssuerKey, BoxError>;

    /// An empty list of the issuer's keys of this type.
    fn issuer_keys(&self) -> Box<dyn IssuerKeys>;

    /// The verifier of one of the type's issuer keys (an origin joined with
    /// the issuer); `None` for a key of another type.
    fn verifier(&self, key: IssuerKey) -> Option<Verifier>;

    /// Whether an origin can verify the type's tokens with the token keys of
    /// the issuer directory ([`Self::directory_verifier`]).
    fn publicly_verifiable(&self) -> bool {
        false
    }

    /// The verifier of a token key from the issuer directory (publicly
    /// verifiable types; an error for the others).
    fn directory_verifier(&self, token_key: &[u8]) -> Result<Verifier, BoxError> {
        let _ = token_key;
        Err(format!("type {}: privately verifiable", name(self.code())).into())
    }

    /// Whether the origin's challenge carries a presentation limit, the
    /// `rate-limit` parameter (type 0xE5AC, draft-ietf-privacypass-arc-protocol-01
    /// §6): an origin of such a type needs one, an origin of another type
    /// refuses one.
    fn rate_limited(&self) -> bool {
        false
    }

    /// Whether `limit` is a presentation limit the type can use (types
    /// that are not [`Self::rate_limited`] take none).
    fn usable_limit(&self, limit: u64) -> bool {
        let _ = limit;
        false
    }

    /// The encoded TokenChallenge an origin sends. By default RFC 9577's
    /// (an error for a non-empty `credential_context`, which only type
    /// 0xE5AC's challenge has); names are checked as
    /// [`TokenChallenge::new`] checks them.
    fn challenge(
        &self,
        issuer_name: &[u8],
        redemption_context: &[u8],
        origin_info: &[u8],
        credential_context: &[u8],
    ) -> Result<Vec<u8>, BoxError> {
        if !credential_context.is_empty() {
            return Err(format!("type {}: no credential_context in its challenge", name(self.code())).into());
        }
        let challenge = TokenChallenge::new(self.code(), issuer_name, redemption_context, origin_info)?;
        Ok(crate::encoded(&challenge)?)
    }

    /// What an origin reads of an encoded token before any cryptography:
    /// its challenge digest and key id; the refusal's metrics reason
    /// otherwise (`malformed`, `wrong_type`). `limit`: the origin's
    /// presentation limit (rate-limited types). By default RFC 9577's
    /// `token_input ‖ authenticator` of this type.
    fn token_header(&self, token: &[u8], limit: Option<u64>) -> Result<TokenHeader, &'static str> {
        let _ = limit;
        let parsed = TokenRef::decode(token).map_err(|_| "malformed")?;
        if parsed.kind().code() != self.code() {
            return Err("wrong_type");
        }
        let input = parsed.input();
        Ok(TokenHeader { challenge_digest: *input.challenge_digest(), key_id: *input.token_key_id() })
    }

    /// Whether the type's tokens carry Extensions (types 0xDA7A and 0xDA7B):
    /// its [`Self::presented`] reads the `extensions` parameter of an
    /// `Authorization` value instead of ignoring it, and its requests carry
    /// the client's list.
    fn carries_extensions(&self) -> bool {
        false
    }

    /// The token (and extensions) an `Authorization` value presents; the
    /// refusal's metrics reason otherwise (`malformed`, `extensions`).
    /// `allowed`: the extension types a token's extensions may have (`None`:
    /// any); `limit`: the origin's presentation limit (rate-limited types,
    /// whose tokens grow with it). By default `PrivateToken token="..."`, at
    /// most [`MAX_AUTHORIZATION`] bytes, with the empty Extensions list.
    fn presented(
        &self,
        authorization: &str,
        allowed: Option<&[u16]>,
        limit: Option<u64>,
    ) -> Result<Presented, &'static str> {
        let _ = (allowed, limit);
        if authorization.len() > MAX_AUTHORIZATION {
            return Err("malformed");
        }
        let mut buf = vec![0u8; MAX_AUTHORIZATION];
        let param = pat::wire::auth::parse_authorization(authorization).map_err(|_| "malformed")?;
        let token = param.decode_base64url(&mut buf).map_err(|_| "malformed")?;
        Ok(Presented { token: token.to_vec(), extensions: Extensions::EMPTY.as_bytes().to_vec() })
    }

    /// The client's TokenRequest for `challenge` under `token_key`, with what
    /// finalizes the issuer's response. `extensions`: what a type-0xDA7A
    /// token is requested with (ignored by the other types). `log` receives
    /// a line per step worth telling.
    fn request(
        &self,
        token_key: &[u8],
        challenge: &TokenChallenge<'_>,
        extensions: &Extensions<'_>,
        log: &mut dyn FnMut(&str),
    ) -> Result<(Vec<u8>, Box<dyn Pending>), BoxError>;
}

/// What an origin reads of a token before verifying it ([`Family::token_header`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenHeader {
    /// SHA-256 of the challenge the token answers (RFC 9577 §2.2).
    pub challenge_digest: [u8; 32],
    /// The issuer key id the token names.
    pub key_id: [u8; 32],
}

/// A client's request in flight: turns the issuer's TokenResponse into the
/// `Authorization` value that spends the token.
pub trait Pending: Send {
    /// The `Authorization` value of the token the `response` gives.
    fn finalize(self: Box<Self>, response: &[u8]) -> Result<String, BoxError>;
}

/// What `PrivateToken token="…", extensions="…"` presents (types 0xDA7A
/// and 0xDA7B), bounded by the server's header cap; extensions of a type
/// outside `allowed` are refused (`extensions`), anything that does not
/// parse is `malformed`. An absent `extensions` is the empty list.
fn presented_with_extensions(authorization: &str, allowed: Option<&[u16]>) -> Result<Presented, &'static str> {
    let mut buf = vec![0u8; MAX_AUTHORIZATION];
    let params = pat::wire::auth::parse_authorization_with_extensions(authorization).map_err(|_| "malformed")?;
    let token = params.token.decode_base64url(&mut buf).map_err(|_| "malformed")?;
    let mut ext_buf = vec![0u8; params.extensions.map_or(0, |e| e.decoded_len_bound())];
    let extensions = params.decode_extensions(&mut ext_buf).map_err(|_| "malformed")?;
    if !allowed.is_none_or(|t| extensions.iter().all(|e| t.contains(&e.extension_type))) {
        return Err("extensions");
    }
    Ok(Presented { token: token.to_vec(), extensions: extensions.as_bytes().to_vec() })
}

/// `PrivateToken token="..."` for an encoded token.
fn authorization(token: &[u8]) -> Result<String, BoxError> {
    let mut out = vec![0u8; token.len() * 2 + 64];
    Ok(pat::wire::auth::write_authorization(token, &mut out)?.to_owned())
}

/// `PrivateToken token="...", extensions="..."` for an encoded token and
/// the Extensions it was issued for (types 0xDA7A and 0xDA7B).
fn authorization_with_extensions(token: &[u8], extensions: &Extensions<'_>) -> Result<String, BoxError> {
    let mut out =
        vec![0u8; pat::wire::auth::authorization_with_extensions_len(token.len(), extensions.as_bytes().len())];
    Ok(pat::wire::auth::write_authorization_with_extensions(token, extensions, &mut out)?.to_owned())
}

/// What an `Authorization` value presents.
pub struct Presented {
    /// The encoded token.
    pub token: Vec<u8>,
    /// The encoded Extensions list (the empty list for most types).
    pub extensions: Vec<u8>,
}

/// One issuer key of a served type: its type, id and token key, and the
/// secret, which only its family reads.
pub struct IssuerKey {
    token_type: u16,
    key_id: [u8; 32],
    token_key: Vec<u8>,
    secret: Box<dyn Any + Send + Sync>,
}

impl IssuerKey {
    fn new<K: Any + Send + Sync>(token_type: u16, key_id: [u8; 32], token_key: Vec<u8>, secret: K) -> Self {
        Self { token_type, key_id, token_key, secret: Box::new(secret) }
    }

    /// The token type code.
    pub fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The key id (SHA-256 of the token key, RFC 9578).
    pub fn key_id(&self) -> &[u8; 32] {
        &self.key_id
    }

    /// The public token key as the directory and `WWW-Authenticate` carry it.
    pub fn token_key(&self) -> &[u8] {
        &self.token_key
    }

    /// The verifier of this key (an origin joined with the issuer); `None`
    /// if its family cannot make one.
    pub(crate) fn into_verifier(self) -> Option<Verifier> {
        family(self.token_type())?.verifier(self)
    }

    /// The secret, if it is a `K`; the key back otherwise.
    fn into_secret<K: Any>(self) -> Result<K, Self> {
        let Self { token_type, key_id, token_key, secret } = self;
        match secret.downcast::<K>() {
            Ok(k) => Ok(*k),
            Err(secret) => Err(Self { token_type, key_id, token_key, secret }),
        }
    }
}

impl std::fmt::Debug for IssuerKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuerKey")
            .field("token_type", &self.token_type)
            .field("key_id", &self.key_id)
            .finish_non_exhaustive()
    }
}

/// A refusal of a token request: status and a fixed text (never key material).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refusal(pub StatusCode, pub &'static str);

/// A body that is not the media type's message at all.
pub const MALFORMED: Refusal = Refusal(StatusCode::BAD_REQUEST, "malformed token request");
/// A request the issuer cannot process.
pub const UNPROCESSABLE: Refusal = Refusal(StatusCode::UNPROCESSABLE_ENTITY, "token request cannot be processed");
/// A token type (or a batch kind of it) the issuer does not serve.
pub const UNSERVED: Refusal = Refusal(StatusCode::UNPROCESSABLE_ENTITY, "token type not served");
/// A batch over [`MAX_BATCH`].
pub const TOO_MANY: Refusal = Refusal(StatusCode::UNPROCESSABLE_ENTITY, "batch too large");
/// No key answers the request's truncated key id now.
pub const NO_KEY: Refusal = Refusal(StatusCode::UNPROCESSABLE_ENTITY, "no key with the request's token key id");
/// Anything else.
pub const INTERNAL: Refusal = Refusal(StatusCode::INTERNAL_SERVER_ERROR, "internal error");

/// A message's encoding, or [`INTERNAL`].
fn encoded(m: &impl pat::Encode) -> Result<Vec<u8>, Refusal> {
    crate::encoded(m).map_err(|_| INTERNAL)
}

/// A token request, with what the issuer knows beside it.
pub struct Issue<'a> {
    /// The request body.
    pub body: &'a [u8],
    /// The position, in its type's list, of the key of `(token type,
    /// truncated key id)` valid now ([`NO_KEY`] if there is none).
    pub slot: &'a dyn Fn(u16, u8) -> Result<usize, Refusal>,
    /// Whether extensions may be issued (type 0xDA7A; the issuer's policy).
    pub permits: &'a dyn Fn(&Extensions<'_>) -> bool,
}

/// The issuer's keys of one type, in load order: the type's issuance.
pub trait IssuerKeys: Any + Send + Sync {
    /// How many keys the list holds.
    fn count(&self) -> usize;

    /// Whether `key` belongs in this list.
    fn accepts(&self, key: &IssuerKey) -> bool;

    /// Appends `key` (at position [`Self::count`]); the key back if it
    /// belongs to another list.
    fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey>;

    /// The TokenResponse to a single TokenRequest.
    fn issue(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal>;

    /// The response to an amortized batch, and its number of tokens
    /// ([`UNSERVED`] for a type without amortized batches).
    fn issue_amortized(&self, request: &Issue<'_>) -> Result<(Vec<u8>, usize), Refusal> {
        let _ = request;
        Err(UNSERVED)
    }

    /// The CredentialResponse to a CredentialRequest (type 0xE5AC,
    /// `application/private-credential-request`; [`UNSERVED`] for the
    /// types whose issuance is a token).
    fn issue_credential(&self, request: &Issue<'_>) -> Result<Vec<u8>, Refusal> {
        let _ = request;
        Err(UNSERVED)
    }
}

/// Whether `key` belongs in a list of `K`s (the families' [`IssuerKeys::accepts`]).
fn accepts<K: Any>(key: &IssuerKey) -> bool {
    key.secret.is::<K>()
}

/// Appends `key` to a list of `K`s (the families' [`IssuerKeys::add`]).
fn add<K: Any>(list: &mut Vec<K>, key: IssuerKey) -> Result<(), IssuerKey> {
    list.push(key.into_secret::<K>()?);
    Ok(())
}

/// The issuer's keys of every served type, one list per type.
pub struct IssuerTables {
    lists: Vec<(u16, Box<dyn IssuerKeys>)>,
}

impl Default for IssuerTables {
    fn default() -> Self {
        Self::new()
    }
}

impl IssuerTables {
    /// An empty list for every served type.
    pub fn new() -> Self {
        Self { lists: SERVED.iter().map(|f| (f.code(), f.issuer_keys())).collect() }
    }

    /// The keys of `token_type`, if it is served.
    pub fn get(&self, token_type: u16) -> Option<&dyn IssuerKeys> {
        self.lists.iter().find(|(t, _)| *t == token_type).map(|(_, list)| &**list)
    }

    /// The position `key` will take in its type's list; `None` if no list
    /// takes it.
    pub fn slot_for(&self, key: &IssuerKey) -> Option<usize> {
        self.get(key.token_type()).filter(|list| list.accepts(key)).map(|list| list.count())
    }

    /// Appends `key` to its type's list ([`Self::slot_for`] says where); the
    /// key back if no list takes it.
    pub fn add(&mut self, key: IssuerKey) -> Result<(), IssuerKey> {
        match self.lists.iter_mut().find(|(t, _)| *t == key.token_type()) {
            Some((_, list)) => list.add(key),
            None => Err(key),
        }
    }

    /// The generic batch issuer over the key lists of types 0x0001, 0x0002
    /// and 0x0005 (the lists the library's `batched::Issuer` takes, found by
    /// their element types; a type not served gives no key).
    pub fn generic_batch(&self) -> Result<batched::Issuer<'_>, pat::Error> {
        batched::Issuer::new(self.slice(), self.slice(), self.slice())
    }

    /// The list whose keys are `K`s (empty if there is none).
    fn slice<K: Any>(&self) -> &[K] {
        self.lists
            .iter()
            .find_map(|(_, list)| {
                let list: &dyn Any = &**list;
                list.downcast_ref::<Vec<K>>()
            })
            .map_or(&[], Vec::as_slice)
    }
}

/// What an origin checks a token against.
#[derive(Clone, Copy, Debug)]
pub struct Check<'a> {
    /// The encoded challenge of the window the token's digest matched.
    pub challenge: &'a [u8],
    /// The encoded Extensions list the token was presented with.
    pub extensions: &'a [u8],
    /// The origin's presentation limit (rate-limited types; `None` for the others).
    pub limit: Option<u64>,
}

/// How an origin checks tokens of one key.
trait Verify: Send + Sync {
    /// The id under which `token` (encoded) is spent in the replay store,
    /// if it verifies for `check`; `None` if it does not.
    fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]>;
}

/// An RFC 9577 token's nonce, the id it is spent under, if `verify`
/// accepts it for the decoded challenge and extensions of `check`.
fn verified_nonce(
    token: &[u8],
    check: &Check<'_>,
    verify: impl FnOnce(&TokenChallenge<'_>, &Extensions<'_>) -> bool,
) -> Option<[u8; 32]> {
    let challenge = TokenChallenge::decode(check.challenge).ok()?;
    let extensions = Extensions::decode(check.extensions).ok()?;
    let nonce = *TokenRef::decode(token).ok()?.input().nonce();
    verify(&challenge, &extensions).then_some(nonce)
}

/// A key tokens can be verified with.
pub struct Verifier {
    token_type: u16,
    key_id: [u8; 32],
    token_key: Vec<u8>,
    check: Box<dyn Verify>,
}

impl Verifier {
    fn new(token_type: u16, key_id: [u8; 32], token_key: Vec<u8>, check: impl Verify + 'static) -> Self {
        Self { token_type, key_id, token_key, check: Box::new(check) }
    }

    /// The token key, as `WWW-Authenticate` carries it.
    pub fn token_key(&self) -> &[u8] {
        &self.token_key
    }

    /// The id `token` (encoded) is spent under, if it verifies for `check`.
    pub fn verify(&self, token: &[u8], check: &Check<'_>) -> Option<[u8; 32]> {
        self.check.verify(token, check)
    }
}

impl KeyEntry for Verifier {
    fn token_type(&self) -> u16 {
        self.token_type
    }

    fn key_id(&self) -> &[u8; 32] {
        &self.key_id
    }
}

/// `path: what`, for a key file whose contents are refused.
fn bad(path: &Path, what: &str) -> BoxError {
    format!("{}: {what}", path.display()).into()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::{SERVED, codes, family, label, privately_verifiable, supported};

    #[test]
    fn the_list_names_each_served_type_once() {
        assert_eq!(codes().collect::<Vec<_>>(), [1, 2, 5, 0xDA7A, 0xDA7B, 0xE5AC]);
        assert_eq!(supported(), "1, 2, 5, 0xDA7A, 0xDA7B, 0xE5AC");
        assert_eq!(privately_verifiable(), "1, 5, 0xDA7B and 0xE5AC");
        for (i, f) in SERVED.iter().enumerate() {
            assert!(SERVED.iter().skip(i + 1).all(|g| g.code() != f.code()));
            assert!(family(f.code()).is_some_and(|g| g.code() == f.code()));
        }
        assert!(family(3).is_none());
        assert_eq!(
            [1, 2, 5, 0xDA7A, 0xDA7B, 0xE5AC, 3].map(label),
            [Some("1"), Some("2"), Some("5"), Some("0xDA7A"), Some("0xDA7B"), Some("0xE5AC"), None]
        );
        // Only ARC's challenge carries a limit and a credential_context.
        assert!(SERVED.iter().all(|f| f.rate_limited() == (f.code() == 0xE5AC)));
        assert!(family(1).unwrap().challenge(b"i", &[], b"", &[7; 32]).is_err());
        assert!(family(0xE5AC).unwrap().challenge(b"i", &[], b"", &[7; 32]).is_ok());
        assert!(family(0xE5AC).unwrap().usable_limit(3) && !family(0xE5AC).unwrap().usable_limit(1));
    }
}
