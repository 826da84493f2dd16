//! The origin's side for the publicly verifiable types, 0x0002 (blind
//! RSA), 0x0003 (rate-limited blind RSA) and 0xDA7A (public metadata): the
//! TokenChallenge and the `WWW-Authenticate` value it is sent in, the
//! `Authorization` value read back, and the token verified with the issuer's
//! public key alone (RFC 9577 §2, RFC 9578 §6.4).
//!
//! The other types are verified by their issuer (it holds the secret key):
//! an origin of those forwards the token, which no C call here does.
//!
//! Verification is the cryptographic check only. Replay protection is the
//! origin's: keep each accepted token's nonce (its bytes 2 to 34) for as
//! long as a token for that challenge may be redeemed, and refuse a second.

use core::ffi::c_char;

use pat::crypto::blind_rsa::PublicKey;
use pat::tokens::{metadata, public, rate_limited};
use pat::wire::auth;
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::Extensions;
use pat::wire::token_type::{PublicMetadataRsa2048, PublicRsa2048, RateLimitedRsa2048, TokenType};
use pat::{Error, Field, TokenChallenge};

use crate::call::{Out, apart, call};
use crate::ffi::Fail;

/// `max-age` as the library takes it.
const fn max_age_of(has_max_age: bool, max_age: u32) -> Option<u32> {
    if has_max_age { Some(max_age) } else { None }
}

/// The size of the buffer `pat_www_authenticate` needs (with its NUL) for a
/// TokenChallenge of `challenge_len` bytes, a token key of `token_key_len`
/// bytes and `max-age` when `has_max_age`; `-PAT_E_VALUE_TOO_LARGE` when it
/// does not fit an `int32_t`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_www_authenticate_size(
    challenge_len: usize,
    token_key_len: usize,
    has_max_age: bool,
    max_age: u32,
) -> i32 {
    let len = auth::www_authenticate_len(challenge_len, Some(token_key_len), max_age_of(has_max_age, max_age));
    crate::ffi::status(Ok(len.saturating_add(1)))
}

/// Writes an encoded TokenChallenge (RFC 9577 §2.1.1) for `token_type`:
/// `issuer_name` (1 to 65,535 printable ASCII bytes), `redemption_context`
/// (0 or 32 bytes; 32 fresh random bytes bind the token to this one
/// challenge) and `origin_info` (0 to 65,535 bytes, a comma-separated list
/// of names), into `out` (2 + 2 + `issuer_name_len` + 1 +
/// `redemption_context_len` + 2 + `origin_info_len` bytes). Returns its
/// length, or a negative code: a field out of bounds
/// (`-PAT_E_INVALID_LENGTH`, the detail names it) or not allowed
/// (`-PAT_E_INVALID_VALUE`), types 0xE5AC and 0xE5AD, whose challenges
/// carry a credential context (kind `PAT_E_INVALID_VALUE`, field token
/// type), or `-PAT_E_BUFFER_TOO_SMALL`.
///
/// Next: `pat_www_authenticate` with the issuer's token key, in a 401
/// answer; keep the challenge to verify the token that comes back.
///
/// # Safety
/// Each pointer points to its length's readable bytes (`out`: `out_cap`
/// writable bytes, overlapping none of them); NULL only with length 0.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pat_token_challenge_write(
    token_type: u16,
    issuer_name: *const u8,
    issuer_name_len: usize,
    redemption_context: *const u8,
    redemption_context_len: usize,
    origin_info: *const u8,
    origin_info_len: usize,
    out: *mut u8,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (issuer_name, issuer_name_len),
                (redemption_context, redemption_context_len),
                (origin_info, origin_info_len),
            ],
            [Out::wiped(out, out_cap)],
            |[issuer_name, redemption_context, origin_info], [out]| {
                if token_type == pat::tokens::arc::TOKEN_TYPE || token_type == pat::tokens::act::TOKEN_TYPE {
                    return Err(Error::InvalidValue(Field::TokenType).into());
                }
                let challenge = TokenChallenge::new(token_type, issuer_name, redemption_context, origin_info)?;
                Ok(challenge.encode(out)?)
            },
        )
    }
}

/// Writes the `WWW-Authenticate` field value of a 401 answer (RFC 9577
/// §2.1): `PrivateToken challenge="…", token-key="…"`, and `, max-age="…"`
/// when `has_max_age`, NUL-terminated, into `out`
/// (`pat_www_authenticate_size(...)` bytes). `challenge` is an encoded
/// TokenChallenge (strictly parsed) and `token_key` the issuer's key for
/// its type (for 0x0002, 0x0003 and 0xDA7A an RSA SubjectPublicKeyInfo).
/// Returns the length without the NUL, or a negative code: a challenge
/// that does not parse, an empty key (`-PAT_E_INVALID_LENGTH`, field token
/// key), or `-PAT_E_BUFFER_TOO_SMALL`.
///
/// Next: answer the request 401 with this header; a client that has a
/// token for it retries with `Authorization` (`pat_authorization_token`).
///
/// # Safety
/// `challenge` and `token_key` point to their lengths' readable bytes,
/// `out` to `out_cap` writable bytes overlapping neither.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pat_www_authenticate(
    challenge: *const u8,
    challenge_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    has_max_age: bool,
    max_age: u32,
    out: *mut c_char,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(challenge, challenge_len), (token_key, token_key_len)],
            [Out::wiped(out.cast::<u8>(), out_cap)],
            |[challenge, token_key], [out]| {
                TokenChallenge::decode(challenge)?;
                if token_key.is_empty() {
                    return Err(Error::InvalidLength(Field::TokenKey).into());
                }
                crate::http::with_nul(out, |text| {
                    Ok(auth::write_www_authenticate(challenge, token_key, max_age_of(has_max_age, max_age), text)?
                        .len())
                })
            },
        )
    }
}

/// Reads the token of an `Authorization` field value (RFC 9577 §2.2:
/// `PrivateToken token="…"`, optionally with `extensions="…"`): decodes its
/// base64url into `token` (`token_cap` bytes; the type's
/// `PAT_TYPEn_TOKEN_LEN` is enough for a token of type n) and returns the
/// token's length, or a negative code: another scheme, a second
/// credential or a broken syntax (`-PAT_E_MALFORMED_HEADER`), no `token`
/// (`-PAT_E_MISSING_PARAMETER`), `token` or `extensions` twice
/// (`-PAT_E_DUPLICATE_PARAMETER`), bad base64url
/// (`-PAT_E_INVALID_BASE64`), `-PAT_E_BUFFER_TOO_SMALL`.
///
/// Next: the token (and for type 0xDA7A the extensions,
/// `pat_authorization_extensions`) to `pat_typeN_verify` with the challenge
/// this origin sent.
///
/// # Safety
/// `value` points to `value_len` readable bytes, `token` to `token_cap`
/// writable bytes outside them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_authorization_token(
    value: *const c_char,
    value_len: usize,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call([(value.cast::<u8>(), value_len)], [Out::wiped(token, token_cap)], |[value], [out]| {
            let value = core::str::from_utf8(value).map_err(|_| Error::MalformedHeader)?;
            let params = auth::parse_authorization_with_extensions(value)?;
            Ok(params.token.decode_base64url(out)?.len())
        })
    }
}

/// Reads the `extensions` of an `Authorization` field value
/// (draft-ietf-privacypass-auth-scheme-extensions §3): decodes it into
/// `extensions` (`extensions_cap` bytes) and checks that it is one
/// Extensions list; returns its length, 0 when the value has no
/// `extensions` parameter, or a negative code as `pat_authorization_token`,
/// and an Extensions list that does not parse.
///
/// # Safety
/// As `pat_authorization_token`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_authorization_extensions(
    value: *const c_char,
    value_len: usize,
    extensions: *mut u8,
    extensions_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call([(value.cast::<u8>(), value_len)], [Out::wiped(extensions, extensions_cap)], |[value], [out]| {
            let value = core::str::from_utf8(value).map_err(|_| Error::MalformedHeader)?;
            let params = auth::parse_authorization_with_extensions(value)?;
            match params.extensions {
                None => Ok(0),
                Some(v) => {
                    let bytes = v.decode_base64url(out)?;
                    Extensions::decode(bytes)?;
                    Ok(bytes.len())
                }
            }
        })
    }
}

/// The issuer's RSA key, parsed in a frame of its own.
fn rsa_key(token_key: &[u8]) -> Result<PublicKey, Fail> {
    Ok(apart(|| PublicKey::from_spki(token_key))?)
}

/// The body of the RSA types' checks (0x0002 and 0x0003, whose tokens share
/// one layout): the key, the challenge and the token parsed, then `verify`.
///
/// # Safety
/// As `pat_type2_verify`, for the three `(pointer, length)` inputs.
unsafe fn verify_rsa(
    inputs: [(*const u8, usize); 3],
    verify: impl FnOnce(PublicKey, &public::PublicToken, &TokenChallenge<'_>) -> pat::Result<()>,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(inputs, [], |[token_key, challenge, token], []| {
            let token = public::PublicToken::decode(token)?;
            let challenge = TokenChallenge::decode(challenge)?;
            let key = rsa_key(token_key)?;
            apart(|| verify(key, &token, &challenge))?;
            Ok(0)
        })
    }
}

/// Type 0x0002 (RFC 9578 §6.4): verifies `token` (an encoded Token,
/// `PAT_TYPE2_TOKEN_LEN` bytes) against the `challenge` this origin sent
/// (an encoded TokenChallenge) and the issuer's `token_key` (its RSA-2048
/// SubjectPublicKeyInfo). Returns 0 when the signature verifies, or a
/// negative code: a token or challenge that does not parse, a token of
/// another type (`-PAT_E_WRONG_TOKEN_TYPE`), for another challenge
/// (`-PAT_E_CHALLENGE_MISMATCH`) or key (`-PAT_E_KEY_ID_MISMATCH`), a key
/// that does not parse, or a signature that fails (`-PAT_E_VERIFICATION`).
///
/// Next: refuse the token if its nonce was accepted before (replay), else
/// remember the nonce and serve the request. Answer a refusal 401 with a
/// fresh challenge.
///
/// # Safety
/// Each pointer points to its length's readable bytes; NULL only with
/// length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type2_verify(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    token: *const u8,
    token_len: usize,
) -> i32 {
    // SAFETY: the caller's contract, forwarded.
    unsafe {
        verify_rsa(
            [(token_key, token_key_len), (challenge, challenge_len), (token, token_len)],
            |key, token, challenge| public::Origin::new(key).verify(token, challenge),
        )
    }
}

/// Type 0x0003 (rate-limited, pat-go's wire choices): as `pat_type2_verify`,
/// for a token of type 0x0003 (`PAT_TYPE3_TOKEN_LEN` bytes) signed by the
/// issuer of `token_key`.
///
/// # Safety
/// As `pat_type2_verify`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type3_verify(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    token: *const u8,
    token_len: usize,
) -> i32 {
    // SAFETY: the caller's contract, forwarded.
    unsafe {
        verify_rsa(
            [(token_key, token_key_len), (challenge, challenge_len), (token, token_len)],
            |key, token, challenge| rate_limited::Origin::new(key).verify(token, challenge),
        )
    }
}

/// Type 0xDA7A (public metadata): as `pat_type2_verify`, for a token of
/// type 0xDA7A (`PAT_TYPEDA7A_TOKEN_LEN` bytes) issued with `extensions`
/// (the encoded Extensions list that came with it,
/// `pat_authorization_extensions`), verified under the key the issuer
/// derived for them: other extensions than the issued ones are
/// `-PAT_E_VERIFICATION`. `extensions` must be one encoded Extensions list
/// (the empty list is the two bytes 0x0000): anything else, an empty
/// buffer included (what `pat_authorization_extensions` gives for a value
/// without them), is refused with the decoder's code (`-PAT_E_TRUNCATED`,
/// `-PAT_E_TRAILING_BYTES`, `-PAT_E_UNSORTED_EXTENSIONS`, ...). Whether the
/// extensions are acceptable is the origin's policy, to check before or
/// after.
///
/// # Safety
/// As `pat_type2_verify`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pat_typeda7a_verify(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    token: *const u8,
    token_len: usize,
    extensions: *const u8,
    extensions_len: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len), (token, token_len), (extensions, extensions_len)],
            [],
            |[token_key, challenge, token, extensions], []| {
                let token = metadata::MetadataToken::decode(token)?;
                let challenge = TokenChallenge::decode(challenge)?;
                let extensions = Extensions::decode(extensions)?;
                let origin = metadata::Origin::new(rsa_key(token_key)?);
                apart(|| origin.verify(&token, &challenge, &extensions))?;
                Ok(0)
            },
        )
    }
}

// The token lengths the docs name are the types' own.
const _: () = assert!(
    PublicRsa2048::TOKEN_LEN == crate::sizes::PAT_TYPE2_TOKEN_LEN
        && RateLimitedRsa2048::TOKEN_LEN == crate::sizes::PAT_TYPE3_TOKEN_LEN
        && PublicMetadataRsa2048::TOKEN_LEN == crate::sizes::PAT_TYPEDA7A_TOKEN_LEN
);
