//! The client of type 0xDA7B (privately verifiable tokens with public
//! metadata on POPRF(P-384, SHA-384),
//! draft-ietf-privacypass-public-metadata-issuance §5): the request carries
//! the metadata, an encoded Extensions list (the POPRF `info`), which
//! finalize takes again and which goes with the token to the origin
//! (`pat_authorization_with_extensions`). Only the issuer can verify the
//! token, as for type 0x0001.

use core::ffi::c_void;

use pat::TokenChallenge;
use pat::tokens::poprf::{Client, RequestState, TokenRequest, TokenResponse};
use pat::wire::codec::{Decode, Encode};
use pat::wire::extensions::Extensions;
use pat::wire::token_type::{PublicMetadataP384, TokenType};

use crate::call::{Out, apart, call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};
use crate::sizes::PAT_TYPEDA7B_REQUEST_FIXED_LEN;

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
    request_into(&client, &challenge, extensions, outs, |c, ch, ext| c.request(ch, ext, rng))
}

/// The request `make` builds (fresh, or for known answers deterministic)
/// for the parsed inputs, checked against and written into `outs`: the
/// request into `outs[0]`, the exported state into `outs[1]`.
pub(crate) fn request_into<'e>(
    client: &Client,
    challenge: &TokenChallenge<'_>,
    extensions: Extensions<'e>,
    outs: &mut [&mut [u8]; 2],
    make: impl FnOnce(&Client, &TokenChallenge<'_>, Extensions<'e>) -> pat::Result<(TokenRequest<'e>, RequestState)>,
) -> Result<usize, Fail> {
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, request_len(extensions.as_bytes().len()))?;
    let state_out = prefix(state_out, RequestState::STATE_LEN)?;
    let (request, state) = apart(|| make(client, challenge, extensions))?;
    apart(|| write_request(&request, &state, request_out, state_out))
}

/// The length of a request carrying `extensions_len` bytes of encoded extensions.
const fn request_len(extensions_len: usize) -> usize {
    PAT_TYPEDA7B_REQUEST_FIXED_LEN.saturating_add(extensions_len)
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
/// extensions against the request's, verifies the issuer's proof under the
/// key tweaked by them and unblinds, writes the token into `outs[1]`.
fn finalize([token_key, extensions, response]: [&[u8]; 3], outs: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let extensions = Extensions::decode(extensions)?;
    let [state_buf, token_out] = outs;
    let token_out = prefix(token_out, PublicMetadataP384::TOKEN_LEN)?;
    let mut state = apart(|| RequestState::import(&client, state_buf))?;
    let response = TokenResponse::decode(response)?;
    let token = apart(|| client.finalize(&mut state, &extensions, &response))?;
    let n = token.encode(token_out)?;
    crate::ffi::wipe(state_buf);
    Ok(n)
}

/// The length of a type-0xDA7B TokenRequest carrying `extensions_len`
/// bytes of encoded Extensions (length prefix included):
/// `PAT_TYPEDA7B_REQUEST_FIXED_LEN + extensions_len`, or
/// `-PAT_E_INVALID_LENGTH` when no Extensions list is that long (under 2
/// or over 65,537 bytes). `pat_typeda7b_request` itself takes at most
/// 65,535 bytes (the POPRF's limit on its `info`).
#[unsafe(no_mangle)]
pub extern "C" fn pat_typeda7b_request_len(extensions_len: usize) -> i32 {
    crate::ffi::status(crate::metadata::checked_extensions_len(extensions_len).map(request_len))
}

/// The size of the buffer `pat_authorization_with_extensions` needs for a
/// type-0xDA7B token and `extensions_len` bytes of encoded extensions, its
/// NUL included, or `-PAT_E_INVALID_LENGTH` as `pat_typeda7b_request_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_typeda7b_authorization_size(extensions_len: usize) -> i32 {
    crate::metadata::authorization_size(PublicMetadataP384::TOKEN_LEN, extensions_len)
}

/// Type 0xDA7B (draft-ietf-privacypass-public-metadata-issuance §5):
/// builds an ExtendedTokenRequest for `challenge` (an encoded
/// TokenChallenge of type 0xDA7B) carrying `extensions` (the token's public
/// metadata: an encoded Extensions list, length prefix included, types
/// ascending, at most 65,535 bytes in all) to the issuer of `token_key`
/// (its compressed P-384 point, `PAT_TYPEDA7B_TOKEN_KEY_LEN` bytes), with a
/// fresh nonce and blind from `rng`.
///
/// Writes the request (`pat_typeda7b_request_len(extensions_len)` bytes) to
/// `request` and the client state (`PAT_TYPEDA7B_STATE_LEN` bytes, secret:
/// it holds the blind and the SHA-256 of the extensions) to `state`;
/// returns the request's length, or a negative code (and both buffers
/// zeroed, but for one refused for overlapping another buffer):
/// `-PAT_E_WRONG_TOKEN_TYPE` for a challenge of another type,
/// `-PAT_E_INVALID_LENGTH` (field info) for extensions over 65,535 bytes,
/// (field key) for a key of another length, `-PAT_E_INVALID_ELEMENT` for a
/// key that is not a point or when the key tweaked by the extensions is the
/// identity, `-PAT_E_TRUNCATED`, `-PAT_E_TRAILING_BYTES` or
/// `-PAT_E_UNSORTED_EXTENSIONS` for a malformed extensions list (or
/// challenge), `-PAT_E_BUFFER_TOO_SMALL` for a short output, `-PAT_E_RNG`
/// when `rng` fails.
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
pub unsafe extern "C" fn pat_typeda7b_request(
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

/// Type 0xDA7B: checks that `extensions` are the request's
/// (`-PAT_E_EXTENSIONS_MISMATCH`), verifies the issuer's proof in
/// `response` (`PAT_TYPEDA7B_RESPONSE_LEN` bytes) under the key tweaked by
/// them (`-PAT_E_VERIFICATION`), unblinds with the `state` that
/// `pat_typeda7b_request` wrote and writes the Token
/// (`PAT_TYPEDA7B_TOKEN_LEN` bytes) to `token`; returns its length.
/// Refused besides: a state made for another key
/// (`-PAT_E_KEY_ID_MISMATCH`), a response of another length
/// (`-PAT_E_TRUNCATED`, `-PAT_E_TRAILING_BYTES`) or whose element is not a
/// point (`-PAT_E_INVALID_ELEMENT`), a state that does not import
/// (`-PAT_E_INVALID_LENGTH` field state for another length,
/// `-PAT_E_UNKNOWN_STATE_VERSION` for another version or a zeroed, spent
/// state, `-PAT_E_INVALID_VALUE` field state for another shape,
/// `-PAT_E_WRONG_TOKEN_TYPE` for another type), a short `token` buffer
/// (`-PAT_E_BUFFER_TOO_SMALL`).
///
/// On success the state buffer is zeroed: one request, one token. On
/// failure the state is left unchanged, ready for the genuine response, and
/// `token` is zeroed (unless it overlaps another buffer: refused, and left
/// as it was). Next: `pat_authorization_with_extensions` with the same
/// extensions, which the issuer needs to verify the token.
///
/// # Safety
/// As `pat_typeda7b_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_typeda7b_finalize(
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
