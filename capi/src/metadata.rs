//! The client of type 0xDA7A (partially blind RSA 2048 with public metadata,
//! draft-ietf-privacypass-public-metadata-issuance): the request carries
//! the metadata, an encoded Extensions list, which finalize takes again and
//! which goes with the token to the origin (`pat_authorization_with_extensions`).

use core::ffi::c_void;

use pat::tokens::metadata::{Client, RequestState, TokenRequest, TokenResponse};
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::Extensions;
use pat::wire::token_type::PublicMetadataRsa2048;
use pat::{TokenChallenge, TokenType};

use crate::call::{Out, apart, call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// A fresh request: the request into `outs[0]`, the exported state into
/// `outs[1]`.
fn request(
    [token_key, challenge, extensions]: [&[u8]; 3],
    rng: &mut CallbackRng,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let extensions = Extensions::decode(extensions)?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, request_len(extensions.as_bytes().len()))?;
    let state_out = prefix(state_out, RequestState::STATE_LEN)?;
    let (request, state) = apart(|| client.request(&challenge, extensions, rng))?;
    apart(|| write_request(&request, &state, request_out, state_out))
}

/// The length of a request carrying `extensions_len` bytes of encoded extensions.
const fn request_len(extensions_len: usize) -> usize {
    (2 + 1 + pat::crypto::blind_rsa::MODULUS_LEN).saturating_add(extensions_len)
}

/// Encodes a request and its exported state into the caller's buffers.
pub(crate) fn write_request(
    request: &TokenRequest<'_>,
    state: &RequestState,
    request_out: &mut [u8],
    state_out: &mut [u8],
) -> Result<usize, Fail> {
    let exported = state.export()?;
    state_out.copy_from_slice(exported.as_bytes());
    Ok(request.encode(request_out)?)
}

/// Finalizes: imports the state (`outs[0]`, wiped on success), checks the
/// extensions against the request's, unblinds and verifies the signature,
/// writes the token into `outs[1]`.
fn finalize([token_key, extensions, response]: [&[u8]; 3], outs: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let extensions = Extensions::decode(extensions)?;
    let [state_buf, token_out] = outs;
    let token_out = prefix(token_out, PublicMetadataRsa2048::TOKEN_LEN)?;
    let mut state = apart(|| RequestState::import(&client, state_buf))?;
    let response = TokenResponse::decode(response)?;
    let token = apart(|| client.finalize(&mut state, &extensions, &response))?;
    let n = token.encode(token_out)?;
    crate::ffi::wipe(state_buf);
    Ok(n)
}

/// The length of a type-0xDA7A TokenRequest carrying `extensions_len`
/// bytes of encoded Extensions (length prefix included):
/// `PAT_TYPEDA7A_REQUEST_FIXED_LEN + extensions_len`, or
/// `-PAT_E_INVALID_LENGTH` when no Extensions list is that long (under 2
/// or over 65,537 bytes).
#[unsafe(no_mangle)]
pub extern "C" fn pat_typeda7a_request_len(extensions_len: usize) -> i32 {
    crate::ffi::status(checked_extensions_len(extensions_len).map(request_len))
}

/// `extensions_len` if an Extensions list (length prefix included) can be
/// that long: 2 to 65,537 bytes; `InvalidLength(Extensions)` otherwise.
pub(crate) fn checked_extensions_len(extensions_len: usize) -> Result<usize, Fail> {
    if (2..=2 + 0xffff).contains(&extensions_len) {
        Ok(extensions_len)
    } else {
        Err(Fail::from(pat::Error::InvalidLength(pat::Field::Extensions)))
    }
}

/// The size of the `Authorization` buffer for a token of `token_len` bytes
/// and `extensions_len` bytes of encoded extensions, its NUL included.
pub(crate) fn authorization_size(token_len: usize, extensions_len: usize) -> i32 {
    crate::ffi::status(
        checked_extensions_len(extensions_len)
            .map(|n| pat::wire::auth::authorization_with_extensions_len(token_len, n).saturating_add(1)),
    )
}

/// The size of the buffer `pat_authorization_with_extensions` needs for a
/// type-0xDA7A token and `extensions_len` bytes of encoded extensions, its
/// NUL included, or `-PAT_E_INVALID_LENGTH` as `pat_typeda7a_request_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_typeda7a_authorization_size(extensions_len: usize) -> i32 {
    authorization_size(PublicMetadataRsa2048::TOKEN_LEN, extensions_len)
}

/// Type 0xDA7A (draft-ietf-privacypass-public-metadata-issuance): builds an
/// ExtendedTokenRequest for `challenge` (an encoded TokenChallenge of type
/// 0xDA7A) carrying `extensions` (the token's public metadata: an encoded
/// Extensions list, length prefix included, types ascending) to the issuer
/// of `token_key` (its RSA-2048 SubjectPublicKeyInfo,
/// `PAT_TYPEDA7A_TOKEN_KEY_LEN` bytes), with a fresh nonce, salt and blind
/// from `rng`.
///
/// Writes the request (`pat_typeda7a_request_len(extensions_len)` bytes) to
/// `request` and the client state (`PAT_TYPEDA7A_STATE_LEN` bytes, secret:
/// it holds the blind inverse and the SHA-256 of the extensions) to
/// `state`; returns the request's length, or a negative code (and both
/// buffers zeroed, but for one refused for overlapping another buffer).
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri`
/// with `Content-Type: PAT_MEDIA_TYPE_TOKEN_REQUEST` and `Accept:
/// PAT_MEDIA_TYPE_TOKEN_RESPONSE`; keep `extensions` for finalize and for
/// the `Authorization` value.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_typeda7a_request(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len), (extensions, extensions_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::request(inputs, &mut rng, outs)
            },
        )
    }
}

/// Type 0xDA7A: unblinds the issuer's `response` (`PAT_TYPEDA7A_RESPONSE_LEN`
/// bytes) with the `state` that `pat_typeda7a_request` wrote, checks that
/// `extensions` are the request's (`-PAT_E_EXTENSIONS_MISMATCH`), verifies
/// the signature under the key derived for them, and writes the Token
/// (`PAT_TYPEDA7A_TOKEN_LEN` bytes) to `token`; returns its length.
///
/// On success the state buffer is zeroed: one request, one token. On
/// failure the state is left unchanged, ready for the genuine response, and
/// `token` is zeroed (unless it overlaps another buffer: refused, and left
/// as it was). Next: `pat_authorization_with_extensions` with the same
/// extensions, which the origin needs to verify the token.
///
/// # Safety
/// As `pat_typeda7a_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_typeda7a_finalize(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    response: *const u8,
    response_len: usize,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (extensions, extensions_len), (response, response_len)],
            [Out::kept(state, state_len), Out::wiped(token, token_cap)],
            finalize,
        )
    }
}
