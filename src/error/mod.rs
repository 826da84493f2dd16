//! The crate's single error type.
//!
//! Parse errors say what was wrong; every cryptographic failure (a proof, a
//! signature or an AEAD tag that does not verify) collapses into the one opaque
//! [`Error::Verification`] variant so that callers cannot build an oracle from
//! the reason.

use core::fmt;

mod code;

/// Everything that can go wrong in this crate.
///
/// The enum is `Copy`, carries no dependency error types and never holds
/// secret data, so it can be logged freely.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Error {
    // ---- wire format -------------------------------------------------------
    /// The input ended before the message was complete.
    Truncated,
    /// Bytes remained after a complete top-level message.
    TrailingBytes,
    /// The caller's output buffer is too small for the encoding.
    BufferTooSmall,
    /// A length (prefix or field) lies outside the bounds its specification allows.
    InvalidLength(Field),
    /// A QUIC variable-length integer was not in its shortest form (RFC 9000 §16).
    NonMinimalVarint,
    /// A value is too large for the integer encoding it has to fit in.
    ValueTooLarge,
    /// A field's content is not allowed (for example non-ASCII bytes in an issuer name).
    InvalidValue(Field),
    /// The token type code is not one this crate implements.
    UnknownTokenType(u16),
    /// A message carried a token type other than the one expected.
    WrongTokenType {
        /// The type code the caller expected.
        expected: u16,
        /// The type code found in the message.
        found: u16,
    },
    /// A request's (truncated) token key id does not match the key it is evaluated with.
    KeyIdMismatch,
    /// Two keys of one token type in a key set share their truncated key id
    /// (the last byte of the key id, RFC 9578 §5.1, §6.1), so a request could
    /// not tell which of them it is meant for.
    KeyIdCollision,
    /// A token was not issued for the challenge it is redeemed against.
    ChallengeMismatch,

    // ---- HTTP authentication scheme ----------------------------------------
    /// An HTTP `WWW-Authenticate` or `Authorization` value is not well formed.
    MalformedHeader,
    /// A required authentication parameter (or issuer directory field) is missing.
    MissingParameter(Field),
    /// An authentication parameter occurs more than once in one challenge (or
    /// a field more than once in one issuer directory object).
    DuplicateParameter(Field),
    /// A base64url value is malformed (bad alphabet, bad padding or non-canonical bits).
    InvalidBase64,

    // ---- issuer directory (RFC 9578 §4) -------------------------------------
    /// A JSON document is not well formed (RFC 8259): bad syntax, bad escape,
    /// unpaired surrogate, invalid UTF-8 or nesting deeper than the reader allows.
    MalformedJson,
    /// The directory lists no key of the requested token type (and key id).
    NoMatchingKey,
    /// The directory lists keys of the requested type (and key id), but
    /// every one of them has a `not-before` still in the future.
    KeyNotYetValid,

    // ---- redemption ---------------------------------------------------------
    /// The token was already spent (RFC 9577 §2.2, double-spend prevention).
    Replayed,
    /// The replay store has no free slot: every entry is still live, and
    /// none may be forgotten without letting its token be spent again.
    ReplayStoreFull,
    /// A token was to be recorded as spent until a time that has already
    /// come (`expires_at <= now`): nothing could be recorded, so the token
    /// is refused. Its redemption window has closed, or the caller passed a
    /// wrong expiry (0, or a time in the past; see
    /// [`crate::deploy::replay::windowed_expiry`]).
    ReplayWindowExpired,

    // ---- cryptography ------------------------------------------------------
    /// A byte string is not the canonical encoding of a group element, or is the identity.
    InvalidElement,
    /// A byte string is not the canonical encoding of a (non-zero where required) scalar.
    InvalidScalar,
    /// A key is malformed or unsupported.
    InvalidKey,
    /// A proof, signature or authentication tag did not verify.
    Verification,
    /// Key derivation failed: the counter of RFC 9497's `DeriveKeyPair` ran
    /// out (`DeriveKeyPairError`), or a partially blind RSA derived exponent
    /// is not invertible modulo p − 1 or q − 1 (a key without safe primes;
    /// [`crate::crypto::blind_rsa::partial`]).
    DeriveKeyPair,
    /// A partially blind RSA signing key (token type 0xDA7A) has a prime p
    /// or q that is not a safe prime: (p − 1)/2 or (q − 1)/2 is not prime
    /// (draft-irtf-cfrg-partially-blind-rsa-01 §4.1). With such a key,
    /// `DeriveKeyPair` fails for some metadata, and which metadata fail
    /// tells the small factors of p − 1 and q − 1; the type 0xDA7A issuer
    /// refuses the key ([`crate::tokens::metadata::Issuer::try_new`],
    /// [`crate::crypto::blind_rsa::RsaSecretKey::check_safe_primes_vartime`]).
    NotSafePrime,
    /// The random number generator failed, or its output was rejected too
    /// often (see [`RngCode`] for what the code says).
    Rng(RngCode),
    /// A caller-provided capacity (batch size, state table) is exhausted.
    CapacityExceeded,
    /// An `Extensions` list is not sorted by extension type
    /// (draft-ietf-privacypass-auth-scheme-extensions; [`crate::wire::extensions`]).
    UnsortedExtensions,
    /// A type 0xDA7A client state is finalized with other extensions than
    /// the request carried, or an issuer is given a key derived for other
    /// extensions than the request's ([`crate::tokens::metadata`]).
    ExtensionsMismatch,
    /// A rate-limited request's `request_key` is not the client's key blinded
    /// with the request blind (draft-ietf-privacypass-rate-limit-tokens,
    /// attester checks).
    RequestKeyMismatch,
    /// The issuer has no origin key for the origin name in a rate-limited
    /// request (draft-ietf-privacypass-rate-limit-tokens, issuer behaviour).
    UnknownOrigin,
    /// The client has used up its tokens for this origin in the current policy
    /// window (draft-ietf-privacypass-rate-limit-tokens, attester behaviour).
    RateLimited,
    /// An issuer-origin alias was seen before with another anonymous origin id
    /// (draft-ietf-privacypass-rate-limit-tokens, attester behaviour).
    OriginIdConflict,

    // ---- client state ------------------------------------------------------
    /// The client state already finalized a token: its secrets are wiped, so
    /// it can neither finalize again nor be exported.
    StateSpent,
    /// An exported client state has a format version this crate does not
    /// read (its first byte; see [`crate::tokens::state`]).
    UnknownStateVersion(u8),
    /// An ARC presentation state has made as many presentations as its
    /// limit allows (draft-ietf-privacypass-arc-crypto-01 §4.3.2,
    /// `LimitExceededError`).
    PresentationLimitReached,

    // ---- power-on self-test ------------------------------------------------
    /// A known-answer test of [`crate::self_test`] did not give its known
    /// answer: the code or the flash it runs from is broken.
    SelfTest(SelfTestKind),
}

/// Why the random number generator failed: a small code carried by
/// [`Error::Rng`].
///
/// An RNG adapter can use `RngCode` as its `TryRng::Error` to pass a
/// driver's status code through the library: every operation that draws
/// randomness maps such an error to `Error::Rng` with the same code. Other
/// errors get a code the library can read from them, or a fixed one:
///
/// - the OS generator `pat::OsRng` (feature `std`): the OS error
///   number, when the failure came from the OS;
/// - any other error type: [`RngCode::UNKNOWN`].
///
/// The library also reports [`RngCode::EXHAUSTED`] and
/// [`RngCode::INTERNAL`]. Codes from `0xffff_ff00` up are reserved for these
/// fixed codes; a driver should use lower ones.
///
/// The mapping recognizes the error by downcasting it through
/// `core::any::Any`, which needs a `'static` error type: every function
/// that takes a generator asks for `R: TryCryptoRng<Error: 'static>`. The
/// error types of `rand_core`, `getrandom` and HAL drivers are all `'static`.
///
/// # A hardware generator
///
/// Wrap the driver (here its error type carries no code; give it one as
/// above to see the driver's status in `Error::Rng`):
///
/// ```rust
/// use pat::rand_core::{TryCryptoRng, TryRng, utils};
///
/// /// The driver's error type; it must implement `core::error::Error`.
/// #[derive(Debug)]
/// pub struct TrngError;
/// impl core::fmt::Display for TrngError {
///     fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result { f.write_str("TRNG failure") }
/// }
/// impl core::error::Error for TrngError {}
///
/// fn trng_fill(buf: &mut [u8]) -> Result<(), TrngError> {
///     // the vendor's driver call
///     # pat::OsRng.try_fill_bytes(buf).map_err(|_| TrngError)
/// }
///
/// pub struct HwRng;
/// impl TryRng for HwRng {
///     type Error = TrngError;
///     fn try_next_u32(&mut self) -> Result<u32, TrngError> { utils::next_word_via_fill(self) }
///     fn try_next_u64(&mut self) -> Result<u64, TrngError> { utils::next_word_via_fill(self) }
///     fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), TrngError> { trng_fill(dst) }
/// }
///
/// /// A promise that the output is fit for cryptography.
/// impl TryCryptoRng for HwRng {}
///
/// # use pat::{wire::token_type::PrivateRistretto255 as R255, tokens::private::{Client, Issuer}};
/// # let client = Client::<R255>::from_token_key(Issuer::<R255>::generate(&mut HwRng)?.token_key())?;
/// let challenge = pat::TokenChallenge::new(0x0005, b"issuer.example", &[], &[])?;
/// let (request, state) = client.request(&challenge, &mut HwRng)?;
/// # Ok::<(), pat::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RngCode(u32);

impl RngCode {
    /// The generator failed with an error type that carries no code the
    /// library can read.
    pub const UNKNOWN: Self = Self(0xffff_ffff);
    /// Rejection sampling gave up: the generator's output was rejected more
    /// often than an honest generator would ever make happen (for example
    /// one stuck at a constant value).
    pub const EXHAUSTED: Self = Self(0xffff_fffe);
    /// An internal single-use generator (the HPKE ephemeral key of type
    /// 0x0003) was drawn from in an unexpected way: a bug, not a failure of
    /// the caller's generator.
    pub const INTERNAL: Self = Self(0xffff_fffd);

    /// A code, as a driver reports it.
    pub const fn new(code: u32) -> Self {
        Self(code)
    }

    /// The code's value.
    pub const fn get(self) -> u32 {
        self.0
    }
}

impl fmt::Display for RngCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            RngCode::UNKNOWN => f.write_str("RNG failed without a readable code"),
            RngCode::EXHAUSTED => f.write_str("RNG output rejected too often"),
            RngCode::INTERNAL => f.write_str("internal RNG misuse"),
            RngCode(code) => write!(f, "RNG error code 0x{code:08x}"),
        }
    }
}

impl core::error::Error for RngCode {}

/// The fixed codes by name, any other code in hex.
#[cfg(feature = "defmt")]
impl defmt::Format for RngCode {
    fn format(&self, f: defmt::Formatter<'_>) {
        match *self {
            RngCode::UNKNOWN => defmt::write!(f, "RngCode::UNKNOWN"),
            RngCode::EXHAUSTED => defmt::write!(f, "RngCode::EXHAUSTED"),
            RngCode::INTERNAL => defmt::write!(f, "RngCode::INTERNAL"),
            RngCode(code) => defmt::write!(f, "RngCode({=u32:#x})", code),
        }
    }
}

/// Names the field an [`Error`] refers to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum Field {
    /// `TokenChallenge.issuer_name`.
    IssuerName,
    /// `TokenChallenge.redemption_context`.
    RedemptionContext,
    /// `TokenChallenge.origin_info`.
    OriginInfo,
    /// A token's authenticator.
    Authenticator,
    /// A blinded or evaluated message.
    Message,
    /// A batch's element count or total length.
    Batch,
    /// The `challenge` authentication parameter.
    Challenge,
    /// The `token-key` authentication parameter.
    TokenKey,
    /// The `max-age` authentication parameter.
    MaxAge,
    /// The `token` authentication parameter.
    Token,
    /// A key encoding.
    Key,
    /// The (padded) origin name of a rate-limited `InnerTokenRequest`.
    OriginName,
    /// The `encrypted_token_request` of a rate-limited `TokenRequest`.
    EncryptedTokenRequest,
    /// An issuer directory document as a whole (RFC 9578 §4).
    Directory,
    /// The directory's `issuer-request-uri`.
    IssuerRequestUri,
    /// The directory's `token-keys` list, or one of its entries.
    TokenKeys,
    /// A directory key's `token-type`.
    TokenType,
    /// A directory key's `not-before`.
    NotBefore,
    /// A key's validity window in a [`KeySet`](crate::deploy::keyset::KeySet).
    Validity,
    /// An exported client state as a whole: its length, shape byte, counts
    /// and padding ([`crate::tokens::state`]).
    State,
    /// An RSA blind inverse r⁻¹ (RFC 9474 §4.2 `inv`) in an exported client
    /// state, which must lie in [1, n).
    BlindInverse,
    /// An `Extensions` list (draft-ietf-privacypass-auth-scheme-extensions):
    /// its length prefix, or the `extensions` parameter of `Authorization`.
    Extensions,
    /// One `Extension` of a list: its type and length header or its data.
    Extension,
    /// An ARC presentation limit, which must lie in [2, 2^32].
    PresentationLimit,
    /// The `rate-limit` parameter of an ARC `WWW-Authenticate` challenge.
    RateLimit,
    /// An ARC presentation (draft-ietf-privacypass-arc-crypto-01 §4.3.2).
    Presentation,
    /// The `credential_context` of an ARC `TokenChallenge`, 0 or 32 bytes
    /// (draft-ietf-privacypass-arc-protocol-01 §6).
    CredentialContext,
    /// The public `info` of a partially oblivious PRF (RFC 9497 §3.3.3),
    /// at most 65535 bytes: for token type 0xDA7B, the serialized extensions.
    Info,
    /// An `ExtensionSet` (draft-ietf-privacypass-auth-scheme-extensions-03
    /// §4): its length, an entry's `is_required` byte, or the
    /// `extension-set` parameter of `WWW-Authenticate`.
    ExtensionSet,
    /// An ATHM deployment id (draft-yun-cfrg-athm-00 §3.1), at most 255
    /// bytes, or a number of metadata buckets outside 1 to 255.
    DeploymentId,
    /// An ATHM hidden metadata value, which must lie below the number of
    /// buckets.
    HiddenMetadata,
}

impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Field::IssuerName => "issuer_name",
            Field::RedemptionContext => "redemption_context",
            Field::OriginInfo => "origin_info",
            Field::Authenticator => "authenticator",
            Field::Message => "message",
            Field::Batch => "batch",
            Field::Challenge => "challenge",
            Field::TokenKey => "token-key",
            Field::MaxAge => "max-age",
            Field::Token => "token",
            Field::Key => "key",
            Field::OriginName => "origin_name",
            Field::EncryptedTokenRequest => "encrypted_token_request",
            Field::Directory => "issuer directory",
            Field::IssuerRequestUri => "issuer-request-uri",
            Field::TokenKeys => "token-keys",
            Field::TokenType => "token-type",
            Field::NotBefore => "not-before",
            Field::Validity => "validity",
            Field::State => "client state",
            Field::BlindInverse => "blind inverse",
            Field::Extensions => "extensions",
            Field::Extension => "extension",
            Field::PresentationLimit => "presentation limit",
            Field::RateLimit => "rate-limit",
            Field::Presentation => "presentation",
            Field::CredentialContext => "credential_context",
            Field::Info => "info",
            Field::ExtensionSet => "extension-set",
            Field::DeploymentId => "deployment id",
            Field::HiddenMetadata => "hidden metadata",
        })
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Truncated => f.write_str("input is truncated"),
            Error::TrailingBytes => f.write_str("trailing bytes after the message"),
            Error::BufferTooSmall => f.write_str("output buffer is too small"),
            Error::InvalidLength(field) => write!(f, "length of {field} is out of range"),
            Error::NonMinimalVarint => f.write_str("variable-length integer is not minimally encoded"),
            Error::ValueTooLarge => f.write_str("value is too large for its encoding"),
            Error::InvalidValue(field) => write!(f, "{field} has an invalid value"),
            Error::UnknownTokenType(code) => write!(f, "unknown token type 0x{code:04x}"),
            Error::WrongTokenType { expected, found } => {
                write!(f, "expected token type 0x{expected:04x}, found 0x{found:04x}")
            }
            Error::KeyIdMismatch => f.write_str("token key id does not match the key"),
            Error::KeyIdCollision => f.write_str("two keys of one token type share their truncated key id"),
            Error::ChallengeMismatch => f.write_str("token does not match the challenge"),
            Error::MalformedHeader => f.write_str("malformed HTTP authentication header"),
            Error::MissingParameter(field) => write!(f, "missing parameter {field}"),
            Error::DuplicateParameter(field) => write!(f, "duplicate parameter {field}"),
            Error::InvalidBase64 => f.write_str("invalid base64url"),
            Error::MalformedJson => f.write_str("malformed JSON"),
            Error::NoMatchingKey => f.write_str("no key of this token type (and key id) in the directory"),
            Error::KeyNotYetValid => f.write_str("every matching directory key has a not-before in the future"),
            Error::Replayed => f.write_str("token already spent"),
            Error::ReplayStoreFull => f.write_str("replay store is full of live entries"),
            Error::ReplayWindowExpired => f.write_str("replay entry would expire at once: token refused"),
            Error::InvalidElement => f.write_str("invalid group element"),
            Error::InvalidScalar => f.write_str("invalid scalar"),
            Error::InvalidKey => f.write_str("invalid key"),
            Error::Verification => f.write_str("verification failed"),
            Error::DeriveKeyPair => f.write_str("key derivation failed"),
            Error::NotSafePrime => {
                f.write_str("a prime of the RSA key is not a safe prime, as partially blind RSA requires")
            }
            Error::UnsortedExtensions => f.write_str("extensions are not sorted by type"),
            Error::ExtensionsMismatch => f.write_str("extensions differ from the request's"),
            Error::Rng(code) => write!(f, "random number generator failed (code 0x{:08x})", code.get()),
            Error::CapacityExceeded => f.write_str("capacity exceeded"),
            Error::RequestKeyMismatch => f.write_str("request key is not the blinded client key"),
            Error::UnknownOrigin => f.write_str("no origin key for this origin name"),
            Error::RateLimited => f.write_str("rate limit reached for this origin"),
            Error::OriginIdConflict => f.write_str("issuer-origin alias seen with another anonymous origin id"),
            Error::StateSpent => f.write_str("client state already finalized"),
            Error::UnknownStateVersion(v) => write!(f, "unknown client state version {v}"),
            Error::PresentationLimitReached => f.write_str("the presentation limit is reached"),
            Error::SelfTest(kind) => write!(f, "self-test failed: {kind}"),
        }
    }
}

impl core::error::Error for Error {}

/// The crate's result type.
pub type Result<T> = core::result::Result<T, Error>;

/// Which known-answer test of [`crate::self_test`] failed, carried by
/// [`Error::SelfTest`]: the token type and the half of the client flow.
///
/// The "request" half parses the token key and the challenge and builds the
/// request from the vector's nonce and blind (hash to the group or PSS
/// encoding, then blinding). The "token" half parses the vector's response,
/// finalizes it (the issuer's proof or signature checked, the result
/// unblinded) and compares the token; for type 0x0002 it also verifies the
/// token as an origin would.
///
/// The self-test's inputs are public constants, so naming the step that
/// failed gives an attacker nothing; unlike [`Error::Verification`], which
/// stays opaque because it answers for inputs an attacker chooses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "defmt", derive(defmt::Format))]
#[non_exhaustive]
pub enum SelfTestKind {
    /// Type 0x0001, VOPRF(P-384, SHA-384): the request half.
    PrivateP384Request,
    /// Type 0x0001: the token half.
    PrivateP384Token,
    /// Type 0x0002, blind RSA-2048: the request half.
    PublicRsa2048Request,
    /// Type 0x0002: the token half.
    PublicRsa2048Token,
    /// Type 0x0005, VOPRF(ristretto255, SHA-512): the request half.
    PrivateRistretto255Request,
    /// Type 0x0005: the token half.
    PrivateRistretto255Token,
}

impl fmt::Display for SelfTestKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            SelfTestKind::PrivateP384Request => "type 0x0001 request",
            SelfTestKind::PrivateP384Token => "type 0x0001 token",
            SelfTestKind::PublicRsa2048Request => "type 0x0002 request",
            SelfTestKind::PublicRsa2048Token => "type 0x0002 token",
            SelfTestKind::PrivateRistretto255Request => "type 0x0005 request",
            SelfTestKind::PrivateRistretto255Token => "type 0x0005 token",
        })
    }
}
