//! The clients of types 0x0001 (VOPRF P-384) and 0x0005 (VOPRF
//! ristretto255), RFC 9578 §5: one generic body, two sets of exports.

use core::ffi::c_void;

use pat::TokenChallenge;
use pat::tokens::private::{Client, PrivateTokenType, RequestState, TokenResponse};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};

use crate::call::{Out, apart, call, finalize_call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// A fresh request: the request into `outs[0]`, the exported state into
/// `outs[1]`.
pub(crate) fn request<T: PrivateTokenType>(
    token_key: &[u8],
    challenge: &[u8],
    rng: &mut CallbackRng,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| Client::<T>::from_token_key(token_key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, T::REQUEST_MAX_LEN)?;
    let state_out = prefix(state_out, RequestState::<T>::STATE_LEN)?;
    let (request, state) = apart(|| client.request(&challenge, rng))?;
    apart(|| write_request(&request, &state, request_out, state_out))
}

/// Encodes a request and its exported state into the caller's buffers.
pub(crate) fn write_request<T: PrivateTokenType>(
    request: &pat::tokens::private::TokenRequest<T>,
    state: &RequestState<T>,
    request_out: &mut [u8],
    state_out: &mut [u8],
) -> Result<usize, Fail> {
    let exported = state.export()?;
    state_out.copy_from_slice(exported.as_bytes().as_ref());
    Ok(request.encode(request_out)?)
}

/// Finalizes: imports the state (`outs[0]`, wiped on success), checks the
/// response and writes the token into `outs[1]`.
pub(crate) fn finalize<T: PrivateTokenType>(
    token_key: &[u8],
    response: &[u8],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| Client::<T>::from_token_key(token_key))?;
    let [state_buf, token_out] = outs;
    let token_out = prefix(token_out, T::TOKEN_LEN)?;
    let mut state = apart(|| RequestState::<T>::import(&client, state_buf))?;
    let response = TokenResponse::<T>::decode(response)?;
    let token = apart(|| client.finalize(&mut state, &response))?;
    let n = token.encode(token_out)?;
    crate::ffi::wipe(state_buf);
    Ok(n)
}

/// The state buffer is read, and wiped once the token is out; a failed
/// finalize leaves it as it was (ready for the genuine response) and zeroes
/// the token buffer.
///
/// # Safety
/// As [`call`].
#[allow(clippy::too_many_arguments)]
unsafe fn finalize_c<T: PrivateTokenType>(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        finalize_call(
            token_key,
            token_key_len,
            state,
            state_len,
            response,
            response_len,
            token,
            token_cap,
            |[key, response], outs| finalize::<T>(key, response, outs),
        )
    }
}

/// # Safety
/// As [`call`]; `rng` is called with `rng_ctx`.
#[allow(clippy::too_many_arguments)]
unsafe fn request_c<T: PrivateTokenType>(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    request_out: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len)],
            [Out::wiped(request_out, request_cap), Out::wiped(state, state_cap)],
            |[key, challenge], outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                request::<T>(key, challenge, &mut rng, outs)
            },
        )
    }
}

/// Type 0x0001 (VOPRF P-384, RFC 9578 §5.1): builds a TokenRequest for
/// `challenge` (an encoded TokenChallenge of type 0x0001) to the issuer of
/// `token_key` (`PAT_TYPE1_TOKEN_KEY_LEN` bytes), with a fresh nonce and
/// blind from `rng`.
///
/// Writes the request (`PAT_TYPE1_REQUEST_LEN` bytes) to `request` and the
/// client state (`PAT_TYPE1_STATE_LEN` bytes) to `state`; returns the
/// request's length, or a negative code (and both buffers zeroed, but for
/// one refused for overlapping another buffer: that one is left as it
/// was). The state holds the blind: keep it as a secret, pass it to
/// `pat_type1_finalize` with the issuer's response, and wipe every copy
/// after use (`pat_wipe`).
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri`
/// (from its directory, `pat_directory_select`) with `Content-Type:
/// PAT_MEDIA_TYPE_TOKEN_REQUEST` and `Accept: PAT_MEDIA_TYPE_TOKEN_RESPONSE`;
/// a 200 answer with that `Content-Type` is the response for finalize.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type1_request(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        request_c::<PrivateP384>(
            token_key,
            token_key_len,
            challenge,
            challenge_len,
            rng,
            rng_ctx,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// Type 0x0001 (RFC 9578 §5.3): checks the issuer's `response`
/// (`PAT_TYPE1_RESPONSE_LEN` bytes) against the `state` that
/// `pat_type1_request` wrote (`PAT_TYPE1_STATE_LEN` bytes), unblinds, and
/// writes the Token (`PAT_TYPE1_TOKEN_LEN` bytes) to `token`; returns its
/// length. Next: `pat_authorization` makes the `Authorization` value that
/// redeems it, once, at the origin that sent the challenge.
///
/// On success the state buffer is zeroed: one request, one token. On
/// failure (`-PAT_E_VERIFICATION` for a proof that does not verify) the
/// state is left unchanged, ready for the genuine response, and `token` is
/// zeroed (unless it overlaps another buffer: refused, and left as it was).
///
/// # Safety
/// As `pat_type1_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type1_finalize(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        finalize_c::<PrivateP384>(token_key, token_key_len, state, state_len, response, response_len, token, token_cap)
    }
}

/// Type 0x0005 (VOPRF ristretto255): as `pat_type1_request`, with
/// `PAT_TYPE5_TOKEN_KEY_LEN`, `PAT_TYPE5_REQUEST_LEN` and
/// `PAT_TYPE5_STATE_LEN`.
///
/// # Safety
/// As `pat_type1_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type5_request(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        request_c::<PrivateRistretto255>(
            token_key,
            token_key_len,
            challenge,
            challenge_len,
            rng,
            rng_ctx,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// Type 0x0005: as `pat_type1_finalize`, with `PAT_TYPE5_RESPONSE_LEN`,
/// `PAT_TYPE5_STATE_LEN` and `PAT_TYPE5_TOKEN_LEN`.
///
/// # Safety
/// As `pat_type1_finalize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type5_finalize(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        finalize_c::<PrivateRistretto255>(
            token_key,
            token_key_len,
            state,
            state_len,
            response,
            response_len,
            token,
            token_cap,
        )
    }
}
