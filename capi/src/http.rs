//! The HTTP authentication scheme (RFC 9577 §2): a `PrivateToken`
//! challenge out of a `WWW-Authenticate` value, and the `Authorization`
//! value of a token.

use core::ffi::c_char;
use core::ptr;

use pat::Error;
use pat::TokenChallenge;
use pat::tokens::arc::ArcChallenge;
use pat::wire::auth;
use pat::wire::codec::Decode;
use pat::wire::token::TokenRef;

use crate::call::{Object, Out, call, call_into};
use crate::ffi::Fail;

/// `Content-Type` of a TokenRequest POSTed to the issuer's
/// `issuer-request-uri` (RFC 9578 §5.1, §6.1).
pub const PAT_MEDIA_TYPE_TOKEN_REQUEST: &str = "application/private-token-request";
/// `Content-Type` of the issuer's TokenResponse (RFC 9578 §5.2, §6.2).
pub const PAT_MEDIA_TYPE_TOKEN_RESPONSE: &str = "application/private-token-response";
/// `Content-Type` of the issuer directory (RFC 9578 §4).
pub const PAT_MEDIA_TYPE_ISSUER_DIRECTORY: &str = "application/private-token-issuer-directory";
/// Where an issuer serves its directory, after `https://<issuer name>` (RFC 9578 §4).
pub const PAT_ISSUER_DIRECTORY_PATH: &str = "/.well-known/private-token-issuer-directory";
/// `Content-Type` of an ARC CredentialRequest (type 0xE5AC) POSTed to the
/// issuer's `issuer-request-uri` (draft-ietf-privacypass-arc-protocol-01 §7).
pub const PAT_MEDIA_TYPE_CREDENTIAL_REQUEST: &str = "application/private-credential-request";
/// `Content-Type` of the issuer's ARC CredentialResponse.
pub const PAT_MEDIA_TYPE_CREDENTIAL_RESPONSE: &str = "application/private-credential-response";
/// `Content-Type` of an AmortizedBatchTokenRequest (types 0x0001 and 0x0005)
/// POSTed to the issuer's `issuer-request-uri`
/// (draft-ietf-privacypass-batched-tokens §5.1).
pub const PAT_MEDIA_TYPE_AMORTIZED_REQUEST: &str = "application/private-token-amortized-batch-request";
/// `Content-Type` of the issuer's AmortizedBatchTokenResponse (§5.2).
pub const PAT_MEDIA_TYPE_AMORTIZED_RESPONSE: &str = "application/private-token-amortized-batch-response";
/// `Content-Type` of a GenericBatchTokenRequest (types 0x0001, 0x0002 and
/// 0x0005, mixed) POSTed to the issuer's `issuer-request-uri`
/// (draft-ietf-privacypass-batched-tokens §6.1).
pub const PAT_MEDIA_TYPE_GENERIC_BATCH_REQUEST: &str = "application/private-token-generic-batch-request";
/// `Content-Type` of the issuer's GenericBatchTokenResponse (§6.2).
pub const PAT_MEDIA_TYPE_GENERIC_BATCH_RESPONSE: &str = "application/private-token-generic-batch-response";

const fn same(a: &[u8], b: &[u8]) -> bool {
    match (a, b) {
        ([], []) => true,
        ([x, rest_a @ ..], [y, rest_b @ ..]) => *x == *y && same(rest_a, rest_b),
        _ => false,
    }
}
// The library's own names, so that the header cannot drift from them.
const _: () = assert!(same(PAT_MEDIA_TYPE_ISSUER_DIRECTORY.as_bytes(), pat::deploy::directory::MEDIA_TYPE.as_bytes()));
const _: () = assert!(same(PAT_ISSUER_DIRECTORY_PATH.as_bytes(), pat::deploy::directory::WELL_KNOWN_PATH.as_bytes()));

/// One `PrivateToken` challenge of a `WWW-Authenticate` value, decoded.
/// Filled by `pat_www_authenticate_challenge`, whose pointers point into
/// the caller's `buf` (valid while `buf` is, until the next call with the
/// same `buf`), or by `pat_token_challenge_parse`, whose pointers point into
/// the challenge it was given. An absent field is NULL with length 0; a
/// failed call leaves it empty (every field 0, false or NULL) where it can
/// write it (see each function).
#[repr(C)]
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug)]
pub struct pat_challenge {
    /// The TokenChallenge's token type.
    pub token_type: u16,
    /// Whether the challenge carried `max-age`.
    pub has_max_age: bool,
    /// `max-age` in seconds (0 when absent).
    pub max_age: u32,
    /// The encoded TokenChallenge, as `pat_typeN_request` takes it.
    pub challenge: *const u8,
    /// Its length.
    pub challenge_len: usize,
    /// The decoded `token-key`, or NULL when the challenge has none (the
    /// client then takes the key from the issuer directory,
    /// `pat_directory_select`).
    pub token_key: *const u8,
    /// Its length (0 when absent).
    pub token_key_len: usize,
    /// The TokenChallenge's `issuer_name` (inside `challenge`).
    pub issuer_name: *const u8,
    /// Its length.
    pub issuer_name_len: usize,
    /// The TokenChallenge's `redemption_context` (0 or 32 bytes, inside `challenge`).
    pub redemption_context: *const u8,
    /// Its length.
    pub redemption_context_len: usize,
    /// The TokenChallenge's `origin_info` (inside `challenge`).
    pub origin_info: *const u8,
    /// Its length.
    pub origin_info_len: usize,
    /// Types 0xE5AC (ARC) and 0xE5AD (ACT) only: the TokenChallenge's
    /// `credential_context` (inside `challenge`; NULL when empty, and for
    /// every other type).
    pub credential_context: *const u8,
    /// Its length (0 or `PAT_ARC_CREDENTIAL_CONTEXT_LEN`).
    pub credential_context_len: usize,
    /// Whether the challenge carried `rate-limit` (read on ARC challenges
    /// only, where it is the presentation limit; ignored on others).
    pub has_rate_limit: bool,
    /// `rate-limit` (0 when absent): the `limit` of `pat_arc_presentation_state`.
    pub rate_limit: u64,
}

impl pat_challenge {
    const EMPTY: Self = Self {
        token_type: 0,
        has_max_age: false,
        max_age: 0,
        challenge: ptr::null(),
        challenge_len: 0,
        token_key: ptr::null(),
        token_key_len: 0,
        issuer_name: ptr::null(),
        issuer_name_len: 0,
        redemption_context: ptr::null(),
        redemption_context_len: 0,
        origin_info: ptr::null(),
        origin_info_len: 0,
        credential_context: ptr::null(),
        credential_context_len: 0,
        has_rate_limit: false,
        rate_limit: 0,
    };
}

/// The RFC 9577 fields of an encoded challenge and, for types 0xE5AC (ARC)
/// and 0xE5AD (ACT), its `credential_context`.
fn decode_challenge(bytes: &[u8]) -> Result<(TokenChallenge<'_>, &[u8]), Fail> {
    if crate::arc::is_arc(bytes) {
        let c = ArcChallenge::decode(bytes)?;
        Ok((*c.challenge(), c.credential_context()))
    } else if crate::act::is_act(bytes) {
        let c = pat::tokens::act::ActChallenge::decode(bytes)?;
        Ok((*c.challenge(), c.credential_context()))
    } else {
        Ok((TokenChallenge::decode(bytes)?, &[]))
    }
}

/// Whether `token` is a token of a type this library implements (an ARC
/// token: of a length some limit gives; an ATHM token: its own layout).
fn check_token(token: &[u8]) -> Result<(), Fail> {
    if crate::arc::is_arc(token) {
        return crate::arc::check_token(token);
    }
    if crate::athm::is_athm(token) {
        return crate::athm::check_token(token);
    }
    if crate::act::is_act(token) {
        return crate::act::check_token(token);
    }
    TokenRef::decode(token)?;
    Ok(())
}

/// A text written by `write` into `out` and terminated with a NUL right
/// after it (one byte of `out` is kept for it); returns the text's length.
pub(crate) fn with_nul(out: &mut [u8], write: impl FnOnce(&mut [u8]) -> Result<usize, Fail>) -> Result<usize, Fail> {
    let room = out.len().checked_sub(1).ok_or(Error::BufferTooSmall)?;
    let (text, nul) = out.split_at_mut(room);
    let len = write(text)?;
    // The NUL goes right after the text (inside `text` when it is shorter).
    *text.get_mut(len).or(nul.first_mut()).ok_or(Error::BufferTooSmall)? = 0;
    Ok(len)
}

/// A pointer to `part` (NULL when empty) and its length.
fn raw(part: &[u8]) -> (*const u8, usize) {
    if part.is_empty() { (ptr::null(), 0) } else { (part.as_ptr(), part.len()) }
}

/// The `index`-th `PrivateToken` challenge of `value`, decoded into `buf`.
fn challenge_at(value: &[u8], index: usize, buf: &mut [u8]) -> Result<Option<pat_challenge>, Fail> {
    let Some(found) = auth::parse_www_authenticate_bytes(value).nth(index) else {
        return Ok(None);
    };
    let found = found?;
    let (challenge_buf, key_buf) = buf.split_at_mut(buf.len().min(found.challenge.decoded_len_bound()));
    let challenge_bytes = found.decode_challenge(challenge_buf)?;
    let (parsed, credential_context) = decode_challenge(challenge_bytes)?;
    // Read where it is used (ARC); a malformed value there makes the challenge unusable.
    let rate_limit = if crate::arc::is_arc(challenge_bytes) { found.decode_rate_limit()? } else { None };
    let token_key = match found.token_key {
        Some(v) => v.decode_base64url(key_buf)?,
        None => &[],
    };
    let (challenge, challenge_len) = raw(challenge_bytes);
    let (token_key, token_key_len) = raw(token_key);
    let (issuer_name, issuer_name_len) = raw(parsed.issuer_name());
    let (redemption_context, redemption_context_len) = raw(parsed.redemption_context());
    let (origin_info, origin_info_len) = raw(parsed.origin_info());
    let (credential_context, credential_context_len) = raw(credential_context);
    Ok(Some(pat_challenge {
        token_type: parsed.token_type(),
        credential_context,
        credential_context_len,
        has_rate_limit: rate_limit.is_some(),
        rate_limit: rate_limit.unwrap_or(0),
        has_max_age: found.max_age.is_some(),
        max_age: found.max_age.unwrap_or(0),
        challenge,
        challenge_len,
        token_key,
        token_key_len,
        issuer_name,
        issuer_name_len,
        redemption_context,
        redemption_context_len,
        origin_info,
        origin_info_len,
    }))
}

/// Reads the `index`-th `PrivateToken` challenge (counting from 0, other
/// schemes skipped) of a `WWW-Authenticate` field value (RFC 9110 §11.6.1,
/// RFC 9577 §2.1): decodes its `challenge` and `token-key` into `buf`
/// (`buf_cap` bytes; `PAT_CHALLENGE_BUFFER_SIZE` is enough for practical
/// names), parses the TokenChallenge, and fills `out` with pointers into
/// `buf`.
///
/// Returns the length of the decoded TokenChallenge (`out->challenge_len`,
/// always positive) when the challenge exists and `out` is filled, 0 when
/// the value has no challenge at `index` (`out` is zeroed), or a negative
/// code:
/// that challenge is malformed (`-PAT_E_MISSING_PARAMETER`,
/// `-PAT_E_INVALID_BASE64`, a TokenChallenge error, ...; the next index may
/// still be fine), or the value's syntax is broken
/// (`-PAT_E_MALFORMED_HEADER`; no later index parses). Parameter names are
/// matched case-insensitively, values may be quoted or not, base64url
/// padded or not, and other schemes' quoted strings may carry any byte
/// RFC 9110 allows (obs-text included).
///
/// An ARC challenge (type 0xE5AC) is read with its `credential_context` and
/// its `rate-limit` (`has_rate_limit`, `rate_limit`; a malformed one is a
/// negative code of kind `PAT_E_INVALID_VALUE`); other types' challenges
/// ignore a `rate-limit`.
///
/// Next: `out->challenge` and the token key go to `pat_typeN_request` for
/// `out->token_type` (`pat_arc_request` for 0xE5AC, and the rate limit to
/// `pat_arc_presentation_state`); without a `token-key`, take the key from the issuer
/// directory (`pat_directory_select`). With `max-age` (`has_max_age`), the
/// origin accepts a token for this challenge only for `max_age` seconds
/// from when it sent it: past that, fetch a fresh challenge rather than
/// spend a token on this one.
///
/// On any result but a positive one, `buf` is zeroed and `out` emptied (every field 0,
/// false or NULL), except what a call refused for its buffers cannot
/// write: a `buf` or `out` that overlaps another buffer of the call
/// (`-PAT_E_OVERLAP`; a buffer that runs past the end of memory counts as
/// reaching to it) is left as it was, and so is an `out` that is NULL or
/// misaligned, or a `buf` that is NULL or runs past the end of memory.
///
/// # Safety
/// `value` points to `value_len` readable bytes, `buf` to `buf_cap`
/// writable bytes, `out` to a writable `pat_challenge`; none overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_www_authenticate_challenge(
    value: *const c_char,
    value_len: usize,
    index: usize,
    buf: *mut u8,
    buf_cap: usize,
    out: *mut pat_challenge,
) -> i32 {
    let body = |[value]: [&[u8]; 1], [buf]: &mut [&mut [u8]; 1]| -> Result<_, Fail> {
        Ok(match challenge_at(value, index, buf)? {
            Some(c) => (c.challenge_len, c),
            None => (0, pat_challenge::EMPTY),
        })
    };
    let out = Object::new(out, pat_challenge::EMPTY);
    // SAFETY: the caller's contract for these buffers.
    unsafe { call_into([(value.cast::<u8>(), value_len)], [Out::wiped(buf, buf_cap)], Some(out), body) }
}

/// Writes the `Authorization` field value for `token` (an encoded Token of
/// a type this library implements, e.g. from `pat_type1_finalize`):
/// `PrivateToken token="<padded base64url>"` (RFC 9577 §2.2), NUL-terminated,
/// into `out` (`PAT_TYPEn_AUTHORIZATION_SIZE` bytes for type n,
/// `pat_arc_authorization_size(limit)` for an ARC token). Returns its
/// length without the NUL, or a negative code: a token that does not parse
/// (`-PAT_E_UNKNOWN_TOKEN_TYPE`, `-PAT_E_TRUNCATED`,
/// `-PAT_E_TRAILING_BYTES`; an ARC token of a length no limit gives: kind
/// `PAT_E_INVALID_LENGTH`), or `-PAT_E_BUFFER_TOO_SMALL`.
///
/// Next: send the value as the `Authorization` header field of the request
/// that was refused with the challenge, to the same origin. A token is
/// spent once the origin accepts it; a replay is refused with a new
/// challenge.
///
/// # Safety
/// `token` points to `token_len` readable bytes, `out` to `out_cap`
/// writable bytes; they do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_authorization(
    token: *const u8,
    token_len: usize,
    out: *mut c_char,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call([(token, token_len)], [Out::wiped(out.cast::<u8>(), out_cap)], |[token], [out]| {
            check_token(token)?;
            with_nul(out, |text| Ok(auth::write_authorization(token, text)?.len()))
        })
    }
}

/// Writes the `Authorization` field value for `token` and the `extensions`
/// sent with it (an encoded Extensions list; type 0xDA7A's metadata):
/// `PrivateToken token="<padded base64url>", extensions="<padded base64url>"`
/// (draft-ietf-privacypass-auth-scheme-extensions §3), NUL-terminated, into
/// `out` (`pat_typeda7a_authorization_size(extensions_len)` bytes for a
/// type-0xDA7A token). Returns its length without
/// the NUL, or a negative code: a token or extensions that do not parse,
/// or `-PAT_E_BUFFER_TOO_SMALL`.
///
/// Next: the `Authorization` header field of the retried request to the
/// origin, which verifies the token with these extensions.
///
/// # Safety
/// `token` points to `token_len` readable bytes, `extensions` to
/// `extensions_len`, `out` to `out_cap` writable bytes; `out` overlaps
/// neither.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_authorization_with_extensions(
    token: *const u8,
    token_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    out: *mut c_char,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token, token_len), (extensions, extensions_len)],
            [Out::wiped(out.cast::<u8>(), out_cap)],
            |[token, extensions], [out]| {
                // ARC, ACT and ATHM tokens carry no extensions (no draft of theirs has them).
                if crate::arc::is_arc(token) || crate::act::is_act(token) || crate::athm::is_athm(token) {
                    return Err(Fail::from(Error::InvalidValue(pat::Field::Extensions)));
                }
                check_token(token)?;
                let extensions = pat::wire::extensions::Extensions::decode(extensions)?;
                with_nul(out, |text| Ok(auth::write_authorization_with_extensions(token, &extensions, text)?.len()))
            },
        )
    }
}

/// Parses an encoded TokenChallenge (RFC 9577 §2.1.1), strictly: a type
/// this library knows or not, lengths within bounds, no trailing bytes.
/// Fills `out` (its `challenge` pointing at `challenge` itself, its key and
/// `max-age` empty) and returns 0, or a negative code with `out` emptied
/// (every field 0, false or NULL), unless `out` is NULL, misaligned or
/// overlaps `challenge` (as far as `challenge_len` reaches, even past the
/// end of memory): then it is left as it was.
///
/// # Safety
/// `challenge` points to `challenge_len` readable bytes, `out` to a
/// writable `pat_challenge` outside them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_token_challenge_parse(
    challenge: *const u8,
    challenge_len: usize,
    out: *mut pat_challenge,
) -> i32 {
    let body = |[bytes]: [&[u8]; 1], _: &mut [&mut [u8]; 0]| -> Result<_, Fail> {
        let (c, credential_context) = decode_challenge(bytes)?;
        let (credential_context, credential_context_len) = raw(credential_context);
        let (challenge, challenge_len) = raw(bytes);
        let (issuer_name, issuer_name_len) = raw(c.issuer_name());
        let (redemption_context, redemption_context_len) = raw(c.redemption_context());
        let (origin_info, origin_info_len) = raw(c.origin_info());
        let parsed = pat_challenge {
            token_type: c.token_type(),
            challenge,
            challenge_len,
            issuer_name,
            issuer_name_len,
            redemption_context,
            redemption_context_len,
            origin_info,
            origin_info_len,
            credential_context,
            credential_context_len,
            ..pat_challenge::EMPTY
        };
        Ok((0, parsed))
    };
    let out = Object::new(out, pat_challenge::EMPTY);
    // SAFETY: the caller's contract for these buffers.
    unsafe { call_into([(challenge, challenge_len)], [], Some(out), body) }
}
