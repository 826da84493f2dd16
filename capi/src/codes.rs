//! The C status codes, as numbers: `PAT_OK`, the error kinds `PAT_E_*`
//! and the details `PAT_FIELD_*`, `PAT_RNG_*` and `PAT_SELF_TEST_*`.
//!
//! A leaf: it uses no other module of this crate, so that [`crate::ffi`],
//! which turns a call fault into its code, and [`crate::status`], which
//! takes a code apart and re-exports these constants as the public
//! `pat_capi::status::PAT_*`, can both depend on it. Each number is the
//! library's (`pat::Error::code`), checked below when this crate compiles.
//!
//! cbindgen writes the constants of `include/pat.h` in the order it reads
//! the modules: this one is declared after `sizes` in `lib.rs`, so that the
//! codes follow the sizes in the header as they always have.

use pat::{Error, Field, RngCode, SelfTestKind};

/// Success.
pub const PAT_OK: i32 = 0;

/// The input ended before the message was complete.
pub const PAT_E_TRUNCATED: i32 = 1;
/// Bytes remained after a complete message.
pub const PAT_E_TRAILING_BYTES: i32 = 2;
/// An output buffer is too small.
pub const PAT_E_BUFFER_TOO_SMALL: i32 = 3;
/// A length lies outside its bounds; the detail is a `PAT_FIELD_*`.
pub const PAT_E_INVALID_LENGTH: i32 = 4;
/// A QUIC variable-length integer is not minimal.
pub const PAT_E_NON_MINIMAL_VARINT: i32 = 5;
/// A value is too large for its encoding.
pub const PAT_E_VALUE_TOO_LARGE: i32 = 6;
/// A field's content is not allowed; the detail is a `PAT_FIELD_*`.
pub const PAT_E_INVALID_VALUE: i32 = 7;
/// A token type this library does not implement; the detail is the type.
pub const PAT_E_UNKNOWN_TOKEN_TYPE: i32 = 8;
/// Another token type than expected; the detail is `found + 0x10000 × e`
/// (`e`: 1 = 0x0001, 2 = 0x0002, 3 = 0x0003, 4 = 0x0005, 5 = 0xDA7A, 6 = 0xE5AC,
/// 7 = another type, 8 = 0xDA7B).
pub const PAT_E_WRONG_TOKEN_TYPE: i32 = 9;
/// A token key id does not match the key.
pub const PAT_E_KEY_ID_MISMATCH: i32 = 10;
/// Two keys share their truncated key id.
pub const PAT_E_KEY_ID_COLLISION: i32 = 11;
/// A token was not issued for the challenge.
pub const PAT_E_CHALLENGE_MISMATCH: i32 = 12;
/// An HTTP authentication header is not well formed.
pub const PAT_E_MALFORMED_HEADER: i32 = 13;
/// A required parameter or directory field is missing; the detail is a `PAT_FIELD_*`.
pub const PAT_E_MISSING_PARAMETER: i32 = 14;
/// A parameter or field occurs twice; the detail is a `PAT_FIELD_*`.
pub const PAT_E_DUPLICATE_PARAMETER: i32 = 15;
/// A base64url value is malformed.
pub const PAT_E_INVALID_BASE64: i32 = 16;
/// A JSON document is not well formed.
pub const PAT_E_MALFORMED_JSON: i32 = 17;
/// The issuer directory lists no key of the type (and key id).
pub const PAT_E_NO_MATCHING_KEY: i32 = 18;
/// Every matching directory key has a `not-before` in the future.
pub const PAT_E_KEY_NOT_YET_VALID: i32 = 19;
/// The token was already spent.
pub const PAT_E_REPLAYED: i32 = 20;
/// A replay store is full.
pub const PAT_E_REPLAY_STORE_FULL: i32 = 21;
/// Not the canonical encoding of a group element, or the identity.
pub const PAT_E_INVALID_ELEMENT: i32 = 22;
/// Not the canonical encoding of a scalar.
pub const PAT_E_INVALID_SCALAR: i32 = 23;
/// A key is malformed or unsupported.
pub const PAT_E_INVALID_KEY: i32 = 24;
/// A proof, signature or authentication tag did not verify.
pub const PAT_E_VERIFICATION: i32 = 25;
/// Key derivation failed.
pub const PAT_E_DERIVE_KEY_PAIR: i32 = 26;
/// The randomness callback failed; the detail is its code (`PAT_RNG_*` for the library's own).
pub const PAT_E_RNG: i32 = 27;
/// A capacity is exhausted.
pub const PAT_E_CAPACITY_EXCEEDED: i32 = 28;
/// An extensions list is not sorted.
pub const PAT_E_UNSORTED_EXTENSIONS: i32 = 29;
/// Extensions differ from the request's.
pub const PAT_E_EXTENSIONS_MISMATCH: i32 = 30;
/// A rate-limited request key is not the blinded client key.
pub const PAT_E_REQUEST_KEY_MISMATCH: i32 = 31;
/// No origin key for a rate-limited request's origin.
pub const PAT_E_UNKNOWN_ORIGIN: i32 = 32;
/// The rate limit is reached.
pub const PAT_E_RATE_LIMITED: i32 = 33;
/// An issuer-origin alias was seen with another origin id.
pub const PAT_E_ORIGIN_ID_CONFLICT: i32 = 34;
/// The client state already finalized a token.
pub const PAT_E_STATE_SPENT: i32 = 35;
/// A client state has an unknown format version; the detail is the version byte.
pub const PAT_E_UNKNOWN_STATE_VERSION: i32 = 36;
/// An ARC presentation limit is reached.
pub const PAT_E_PRESENTATION_LIMIT_REACHED: i32 = 37;
/// A power-on self-test failed; the detail is a `PAT_SELF_TEST_*`.
pub const PAT_E_SELF_TEST: i32 = 38;
/// A token was to be recorded as spent until a time already past: refused.
pub const PAT_E_REPLAY_WINDOW_EXPIRED: i32 = 39;
/// A partially blind RSA (type 0xDA7A) signing key whose primes are not safe primes.
pub const PAT_E_NOT_SAFE_PRIME: i32 = 40;

/// A NULL pointer where a buffer of non-zero length or a required output was expected.
pub const PAT_E_NULL_POINTER: i32 = 100;
/// An output buffer overlaps another buffer of the same call.
pub const PAT_E_OVERLAP: i32 = 101;
/// A pointer to a struct is not aligned for its type.
pub const PAT_E_MISALIGNED: i32 = 102;
/// A buffer's length runs past the end of the address space (or over
/// `PTRDIFF_MAX` bytes).
pub const PAT_E_ADDRESS_RANGE: i32 = 103;

/// Detail: `TokenChallenge.issuer_name`.
pub const PAT_FIELD_ISSUER_NAME: u32 = 1;
/// Detail: `TokenChallenge.redemption_context`.
pub const PAT_FIELD_REDEMPTION_CONTEXT: u32 = 2;
/// Detail: `TokenChallenge.origin_info`.
pub const PAT_FIELD_ORIGIN_INFO: u32 = 3;
/// Detail: a token's authenticator.
pub const PAT_FIELD_AUTHENTICATOR: u32 = 4;
/// Detail: a blinded or evaluated message (also a buffer the call refused).
pub const PAT_FIELD_MESSAGE: u32 = 5;
/// Detail: a batch.
pub const PAT_FIELD_BATCH: u32 = 6;
/// Detail: the `challenge` parameter.
pub const PAT_FIELD_CHALLENGE: u32 = 7;
/// Detail: the `token-key` parameter.
pub const PAT_FIELD_TOKEN_KEY: u32 = 8;
/// Detail: the `max-age` parameter.
pub const PAT_FIELD_MAX_AGE: u32 = 9;
/// Detail: the `token` parameter.
pub const PAT_FIELD_TOKEN: u32 = 10;
/// Detail: a key encoding.
pub const PAT_FIELD_KEY: u32 = 11;
/// Detail: a rate-limited request's origin name.
pub const PAT_FIELD_ORIGIN_NAME: u32 = 12;
/// Detail: a rate-limited `encrypted_token_request`.
pub const PAT_FIELD_ENCRYPTED_TOKEN_REQUEST: u32 = 13;
/// Detail: an issuer directory as a whole.
pub const PAT_FIELD_DIRECTORY: u32 = 14;
/// Detail: the directory's `issuer-request-uri`.
pub const PAT_FIELD_ISSUER_REQUEST_URI: u32 = 15;
/// Detail: the directory's `token-keys`.
pub const PAT_FIELD_TOKEN_KEYS: u32 = 16;
/// Detail: a directory key's `token-type`.
pub const PAT_FIELD_TOKEN_TYPE: u32 = 17;
/// Detail: a directory key's `not-before`.
pub const PAT_FIELD_NOT_BEFORE: u32 = 18;
/// Detail: a key's validity window.
pub const PAT_FIELD_VALIDITY: u32 = 19;
/// Detail: a client state as a whole.
pub const PAT_FIELD_STATE: u32 = 20;
/// Detail: an RSA blind inverse in a client state.
pub const PAT_FIELD_BLIND_INVERSE: u32 = 21;
/// Detail: an extensions list.
pub const PAT_FIELD_EXTENSIONS: u32 = 22;
/// Detail: one extension.
pub const PAT_FIELD_EXTENSION: u32 = 23;
/// Detail: an ARC presentation limit.
pub const PAT_FIELD_PRESENTATION_LIMIT: u32 = 24;
/// Detail: the `rate-limit` parameter.
pub const PAT_FIELD_RATE_LIMIT: u32 = 25;
/// Detail: an ARC presentation.
pub const PAT_FIELD_PRESENTATION: u32 = 26;
/// Detail: an ARC `credential_context`.
pub const PAT_FIELD_CREDENTIAL_CONTEXT: u32 = 27;
/// Detail: the public `info` of a partially oblivious PRF (type 0xDA7B's extensions).
pub const PAT_FIELD_INFO: u32 = 28;
/// Detail: an `ExtensionSet`, or the `extension-set` parameter of a challenge.
pub const PAT_FIELD_EXTENSION_SET: u32 = 29;
/// Detail: an ATHM deployment id (over 255 bytes).
pub const PAT_FIELD_DEPLOYMENT_ID: u32 = 30;
/// Detail: an ATHM hidden metadata value (not below the number of buckets).
pub const PAT_FIELD_HIDDEN_METADATA: u32 = 31;

/// Detail of `PAT_E_RNG`: the callback failed with a code outside 1 to 0x7FFFFC.
pub const PAT_RNG_UNKNOWN: u32 = 0x7F_FFFF;
/// Detail of `PAT_E_RNG`: the callback's output was rejected too often.
pub const PAT_RNG_EXHAUSTED: u32 = 0x7F_FFFE;
/// Detail of `PAT_E_RNG`: an internal generator was misused (a bug).
pub const PAT_RNG_INTERNAL: u32 = 0x7F_FFFD;

/// Detail of `PAT_E_SELF_TEST`: type 0x0001, the request half.
pub const PAT_SELF_TEST_TYPE1_REQUEST: u32 = 1;
/// Detail of `PAT_E_SELF_TEST`: type 0x0001, the token half.
pub const PAT_SELF_TEST_TYPE1_TOKEN: u32 = 2;
/// Detail of `PAT_E_SELF_TEST`: type 0x0002, the request half.
pub const PAT_SELF_TEST_TYPE2_REQUEST: u32 = 3;
/// Detail of `PAT_E_SELF_TEST`: type 0x0002, the token half.
pub const PAT_SELF_TEST_TYPE2_TOKEN: u32 = 4;
/// Detail of `PAT_E_SELF_TEST`: type 0x0005, the request half.
pub const PAT_SELF_TEST_TYPE5_REQUEST: u32 = 5;
/// Detail of `PAT_E_SELF_TEST`: type 0x0005, the token half.
pub const PAT_SELF_TEST_TYPE5_TOKEN: u32 = 6;

// Every number above is the library's (`pat::Error::code`), checked when
// this crate compiles (an index out of range here fails the build).
#[allow(clippy::indexing_slicing)]
const _: () = {
    const fn kind(e: Error) -> i32 {
        e.kind_code() as i32
    }
    assert!(kind(Error::Truncated) == PAT_E_TRUNCATED);
    assert!(kind(Error::TrailingBytes) == PAT_E_TRAILING_BYTES);
    assert!(kind(Error::BufferTooSmall) == PAT_E_BUFFER_TOO_SMALL);
    assert!(kind(Error::InvalidLength(Field::Key)) == PAT_E_INVALID_LENGTH);
    assert!(kind(Error::NonMinimalVarint) == PAT_E_NON_MINIMAL_VARINT);
    assert!(kind(Error::ValueTooLarge) == PAT_E_VALUE_TOO_LARGE);
    assert!(kind(Error::InvalidValue(Field::Key)) == PAT_E_INVALID_VALUE);
    assert!(kind(Error::UnknownTokenType(0)) == PAT_E_UNKNOWN_TOKEN_TYPE);
    assert!(kind(Error::WrongTokenType { expected: 1, found: 2 }) == PAT_E_WRONG_TOKEN_TYPE);
    assert!(kind(Error::KeyIdMismatch) == PAT_E_KEY_ID_MISMATCH);
    assert!(kind(Error::KeyIdCollision) == PAT_E_KEY_ID_COLLISION);
    assert!(kind(Error::ChallengeMismatch) == PAT_E_CHALLENGE_MISMATCH);
    assert!(kind(Error::MalformedHeader) == PAT_E_MALFORMED_HEADER);
    assert!(kind(Error::MissingParameter(Field::Key)) == PAT_E_MISSING_PARAMETER);
    assert!(kind(Error::DuplicateParameter(Field::Key)) == PAT_E_DUPLICATE_PARAMETER);
    assert!(kind(Error::InvalidBase64) == PAT_E_INVALID_BASE64);
    assert!(kind(Error::MalformedJson) == PAT_E_MALFORMED_JSON);
    assert!(kind(Error::NoMatchingKey) == PAT_E_NO_MATCHING_KEY);
    assert!(kind(Error::KeyNotYetValid) == PAT_E_KEY_NOT_YET_VALID);
    assert!(kind(Error::Replayed) == PAT_E_REPLAYED);
    assert!(kind(Error::ReplayStoreFull) == PAT_E_REPLAY_STORE_FULL);
    assert!(kind(Error::InvalidElement) == PAT_E_INVALID_ELEMENT);
    assert!(kind(Error::InvalidScalar) == PAT_E_INVALID_SCALAR);
    assert!(kind(Error::InvalidKey) == PAT_E_INVALID_KEY);
    assert!(kind(Error::Verification) == PAT_E_VERIFICATION);
    assert!(kind(Error::DeriveKeyPair) == PAT_E_DERIVE_KEY_PAIR);
    assert!(kind(Error::Rng(RngCode::UNKNOWN)) == PAT_E_RNG);
    assert!(kind(Error::CapacityExceeded) == PAT_E_CAPACITY_EXCEEDED);
    assert!(kind(Error::UnsortedExtensions) == PAT_E_UNSORTED_EXTENSIONS);
    assert!(kind(Error::ExtensionsMismatch) == PAT_E_EXTENSIONS_MISMATCH);
    assert!(kind(Error::RequestKeyMismatch) == PAT_E_REQUEST_KEY_MISMATCH);
    assert!(kind(Error::UnknownOrigin) == PAT_E_UNKNOWN_ORIGIN);
    assert!(kind(Error::RateLimited) == PAT_E_RATE_LIMITED);
    assert!(kind(Error::OriginIdConflict) == PAT_E_ORIGIN_ID_CONFLICT);
    assert!(kind(Error::StateSpent) == PAT_E_STATE_SPENT);
    assert!(kind(Error::UnknownStateVersion(0)) == PAT_E_UNKNOWN_STATE_VERSION);
    assert!(kind(Error::PresentationLimitReached) == PAT_E_PRESENTATION_LIMIT_REACHED);
    assert!(kind(Error::SelfTest(SelfTestKind::PrivateP384Request)) == PAT_E_SELF_TEST);
    assert!(kind(Error::ReplayWindowExpired) == PAT_E_REPLAY_WINDOW_EXPIRED);
    assert!(kind(Error::NotSafePrime) == PAT_E_NOT_SAFE_PRIME);

    const FIELDS: [(Field, u32); 31] = [
        (Field::IssuerName, PAT_FIELD_ISSUER_NAME),
        (Field::RedemptionContext, PAT_FIELD_REDEMPTION_CONTEXT),
        (Field::OriginInfo, PAT_FIELD_ORIGIN_INFO),
        (Field::Authenticator, PAT_FIELD_AUTHENTICATOR),
        (Field::Message, PAT_FIELD_MESSAGE),
        (Field::Batch, PAT_FIELD_BATCH),
        (Field::Challenge, PAT_FIELD_CHALLENGE),
        (Field::TokenKey, PAT_FIELD_TOKEN_KEY),
        (Field::MaxAge, PAT_FIELD_MAX_AGE),
        (Field::Token, PAT_FIELD_TOKEN),
        (Field::Key, PAT_FIELD_KEY),
        (Field::OriginName, PAT_FIELD_ORIGIN_NAME),
        (Field::EncryptedTokenRequest, PAT_FIELD_ENCRYPTED_TOKEN_REQUEST),
        (Field::Directory, PAT_FIELD_DIRECTORY),
        (Field::IssuerRequestUri, PAT_FIELD_ISSUER_REQUEST_URI),
        (Field::TokenKeys, PAT_FIELD_TOKEN_KEYS),
        (Field::TokenType, PAT_FIELD_TOKEN_TYPE),
        (Field::NotBefore, PAT_FIELD_NOT_BEFORE),
        (Field::Validity, PAT_FIELD_VALIDITY),
        (Field::State, PAT_FIELD_STATE),
        (Field::BlindInverse, PAT_FIELD_BLIND_INVERSE),
        (Field::Extensions, PAT_FIELD_EXTENSIONS),
        (Field::Extension, PAT_FIELD_EXTENSION),
        (Field::PresentationLimit, PAT_FIELD_PRESENTATION_LIMIT),
        (Field::RateLimit, PAT_FIELD_RATE_LIMIT),
        (Field::Presentation, PAT_FIELD_PRESENTATION),
        (Field::CredentialContext, PAT_FIELD_CREDENTIAL_CONTEXT),
        (Field::Info, PAT_FIELD_INFO),
        (Field::ExtensionSet, PAT_FIELD_EXTENSION_SET),
        (Field::DeploymentId, PAT_FIELD_DEPLOYMENT_ID),
        (Field::HiddenMetadata, PAT_FIELD_HIDDEN_METADATA),
    ];
    let mut i = 0;
    while i < FIELDS.len() {
        assert!(FIELDS[i].0.code() as u32 == FIELDS[i].1);
        i += 1;
    }

    assert!(Error::Rng(RngCode::UNKNOWN).detail() == PAT_RNG_UNKNOWN);
    assert!(Error::Rng(RngCode::EXHAUSTED).detail() == PAT_RNG_EXHAUSTED);
    assert!(Error::Rng(RngCode::INTERNAL).detail() == PAT_RNG_INTERNAL);

    assert!(SelfTestKind::PrivateP384Request.code() as u32 == PAT_SELF_TEST_TYPE1_REQUEST);
    assert!(SelfTestKind::PrivateP384Token.code() as u32 == PAT_SELF_TEST_TYPE1_TOKEN);
    assert!(SelfTestKind::PublicRsa2048Request.code() as u32 == PAT_SELF_TEST_TYPE2_REQUEST);
    assert!(SelfTestKind::PublicRsa2048Token.code() as u32 == PAT_SELF_TEST_TYPE2_TOKEN);
    assert!(SelfTestKind::PrivateRistretto255Request.code() as u32 == PAT_SELF_TEST_TYPE5_REQUEST);
    assert!(SelfTestKind::PrivateRistretto255Token.code() as u32 == PAT_SELF_TEST_TYPE5_TOKEN);
};
