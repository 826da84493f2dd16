//! The client of type 0xC07E, ATHM(P-256) (draft-yun-privacypass-athm-00):
//! tokens that carry a value (one of the deployment's buckets) that only
//! the issuer reads back at redemption. The deployment is named by its
//! deployment id and has `PAT_ATHM_BUCKETS` (4) buckets, the draft's and
//! its vectors' choice; the library's issuer and `pat` use the same.
//!
//! The token key is the issuer's public key with its proof: every call
//! checks the proof again (about 14 M instructions on a Cortex-M4), as the
//! C API keeps no parsed key between calls. The draft binds no challenge
//! into the token: a client may fetch tokens before any origin asks.

use core::ffi::c_void;

use pat::crypto::athm::{Params, TokenResponse};
use pat::tokens::athm::{Client, REQUEST_LEN, RequestState, TOKEN_LEN, TOKEN_TYPE, Token};
use pat::wire::codec::{Decode, Encode};

use crate::call::{Out, apart, call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// The buckets of every deployment this API serves (the draft's N).
pub(crate) const BUCKETS: usize = 4;

/// The parameters of the deployment named `deployment_id`.
pub(crate) fn params(deployment_id: &[u8]) -> Result<Params<'_, BUCKETS>, Fail> {
    Ok(Params::new(deployment_id)?)
}

/// A client for the token key (its proof checked) in that deployment.
/// One frame of its own, returning the caller's type: a conversion after
/// it would copy the client (its key's points) once more in the caller.
#[inline(always)]
pub(crate) fn client<'p>(deployment_id: &'p [u8], token_key: &[u8]) -> Result<Client<'p, BUCKETS>, Fail> {
    apart(|| Ok(Client::from_token_key(params(deployment_id)?, token_key)?))
}

/// Encodes a request and its exported state into the caller's buffers.
pub(crate) fn write_request(
    state: &RequestState,
    request: &pat::tokens::athm::TokenRequest,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, REQUEST_LEN)?;
    let state_out = prefix(state_out, RequestState::LEN)?;
    state_out.copy_from_slice(&state.export()[..]);
    Ok(request.encode(request_out)?)
}

/// A fresh request: the request into `outs[0]`, the exported state into
/// `outs[1]`.
pub(crate) fn request<R: pat::rand_core::TryCryptoRng<Error: 'static> + ?Sized>(
    [deployment_id, token_key]: [&[u8]; 2],
    rng: &mut R,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = client(deployment_id, token_key)?;
    let (state, request) = apart(|| client.request(rng))?;
    apart(|| write_request(&state, &request, outs))
}

/// Finalizes: the state (`outs[0]`, wiped on success) and the response give
/// the token, written into `outs[1]`.
pub(crate) fn finalize<R: pat::rand_core::TryCryptoRng<Error: 'static> + ?Sized>(
    [deployment_id, token_key, response]: [&[u8]; 3],
    rng: &mut R,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = client(deployment_id, token_key)?;
    let [state_buf, token_out] = outs;
    let token_out = prefix(token_out, TOKEN_LEN)?;
    let state = RequestState::import(state_buf)?;
    let response = TokenResponse::<BUCKETS>::from_bytes(response)?;
    let token = client.finalize(&state, &response, rng)?;
    let n = token.encode(token_out)?;
    crate::ffi::wipe(state_buf);
    Ok(n)
}

/// Whether `bytes` starts with ATHM's token type.
pub(crate) fn is_athm(bytes: &[u8]) -> bool {
    bytes.starts_with(&TOKEN_TYPE.to_be_bytes())
}

/// An ATHM token, strictly: its length, type and points.
pub(crate) fn check_token(token: &[u8]) -> Result<(), Fail> {
    Token::decode(token)?;
    Ok(())
}

/// Type 0xC07E (ATHM, draft-yun-privacypass-athm-00): builds a
/// TokenRequest to the issuer of `token_key` (its public key and the key's
/// proof, `PAT_ATHM_TOKEN_KEY_LEN` bytes, checked against the deployment)
/// in the deployment named `deployment_id` (up to 255 bytes, the name the
/// issuer publishes with its key), with fresh randomness from `rng`.
///
/// Writes the request (`PAT_ATHM_REQUEST_LEN` bytes) to `request` and the
/// client state (`PAT_ATHM_STATE_LEN` bytes, secret: the blinding scalars)
/// to `state`; returns the request's length, or a negative code (and both
/// buffers zeroed, but for one refused for overlapping another buffer):
/// `-PAT_E_VERIFICATION` for a key whose proof does not verify under the
/// deployment, `-PAT_E_INVALID_ELEMENT` for a key whose points are not
/// points, `-PAT_E_INVALID_LENGTH` for a key or deployment id of another
/// length, `-PAT_E_BUFFER_TOO_SMALL` for a short output, `-PAT_E_RNG` when
/// `rng` fails (its code in the detail).
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri`
/// with `Content-Type: PAT_MEDIA_TYPE_TOKEN_REQUEST` and `Accept:
/// PAT_MEDIA_TYPE_TOKEN_RESPONSE`.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_athm_request(
    deployment_id: *const u8,
    deployment_id_len: usize,
    token_key: *const u8,
    token_key_len: usize,
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
            [(deployment_id, deployment_id_len), (token_key, token_key_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::request(inputs, &mut rng, outs)
            },
        )
    }
}

/// Type 0xC07E: verifies the issuer's `response` (`PAT_ATHM_RESPONSE_LEN`
/// bytes; `-PAT_E_VERIFICATION` when its proof fails) against the `state`
/// that `pat_athm_request` wrote for the same deployment and key
/// (`-PAT_E_KEY_ID_MISMATCH` for another key), re-randomizes it with fresh
/// randomness from `rng` and writes the Token (`PAT_ATHM_TOKEN_LEN` bytes)
/// to `token`; returns its length. A response of another length is
/// `-PAT_E_TRUNCATED` or `-PAT_E_TRAILING_BYTES`; a state that does not
/// import `-PAT_E_INVALID_LENGTH` (field state) for another length,
/// `-PAT_E_UNKNOWN_STATE_VERSION` for another version or a zeroed, spent
/// state, `-PAT_E_INVALID_VALUE` (field state) for another shape,
/// `-PAT_E_WRONG_TOKEN_TYPE` for another type, `-PAT_E_INVALID_SCALAR` or
/// `-PAT_E_INVALID_ELEMENT` for secrets that do not decode; a short `token`
/// buffer `-PAT_E_BUFFER_TOO_SMALL`; a failing `rng` `-PAT_E_RNG`.
///
/// On success the state buffer is zeroed: one request, one token. On
/// failure the state is left unchanged, ready for the genuine response, and
/// `token` is zeroed (unless it overlaps another buffer: refused, and left
/// as it was). Next: `pat_authorization` (`PAT_ATHM_AUTHORIZATION_SIZE`
/// bytes) for the origin, which is the issuer and redeems the token once.
///
/// # Safety
/// As `pat_athm_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_athm_finalize(
    deployment_id: *const u8,
    deployment_id_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(deployment_id, deployment_id_len), (token_key, token_key_len), (response, response_len)],
            [Out::kept(state, state_len), Out::wiped(token, token_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                finalize(inputs, &mut rng, outs)
            },
        )
    }
}
