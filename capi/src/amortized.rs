//! Amortized batches of types 0x0001 and 0x0005
//! (draft-ietf-privacypass-batched-tokens §5): up to `PAT_BATCH_MAX`
//! tokens for one challenge and one key in one request, the issuer's
//! answer one response with one batched proof. One generic body, two sets
//! of exports, as for the single-token calls.
//!
//! The state holds every token's blind; its size does not depend on the
//! count (`PAT_TYPE1_BATCH_STATE_LEN`, `PAT_TYPE5_BATCH_STATE_LEN`).

use core::ffi::c_void;

use pat::TokenChallenge;
use pat::tokens::amortized::{AmortizedTokenResponse, BatchState, request_len, response_len};
use pat::tokens::private::{Client, PrivateTokenType};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field};

use crate::call::{Out, apart, call, finalize_call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// The most tokens in one batch of this API (`PAT_BATCH_MAX`).
pub(crate) const CAPACITY: usize = 8;

/// Writes a batch state's export (its length is a per-type constant, which
/// stable Rust cannot name for a generic type: one function per type).
pub(crate) type WriteState<T> = fn(&BatchState<T, CAPACITY>, &mut [u8]) -> Result<(), Fail>;

pub(crate) fn write_state1(state: &BatchState<PrivateP384, CAPACITY>, out: &mut [u8]) -> Result<(), Fail> {
    out.copy_from_slice(state.export::<{ BatchState::<PrivateP384, CAPACITY>::STATE_LEN }>()?.as_bytes());
    Ok(())
}

pub(crate) fn write_state5(state: &BatchState<PrivateRistretto255, CAPACITY>, out: &mut [u8]) -> Result<(), Fail> {
    out.copy_from_slice(state.export::<{ BatchState::<PrivateRistretto255, CAPACITY>::STATE_LEN }>()?.as_bytes());
    Ok(())
}

/// `count` if a batch of this API can hold it: 0 is
/// `InvalidLength(Batch)`, more than `CAPACITY` is `CapacityExceeded`.
pub(crate) fn checked_count(count: usize) -> Result<usize, Fail> {
    match count {
        0 => Err(Fail::from(Error::InvalidLength(Field::Batch))),
        n if n > CAPACITY => Err(Fail::from(Error::CapacityExceeded)),
        n => Ok(n),
    }
}

/// The request's and the state's outputs, checked before any work.
pub(crate) fn batch_outs<'o, T: PrivateTokenType>(
    count: usize,
    outs: &'o mut [&mut [u8]; 2],
) -> Result<(&'o mut [u8], &'o mut [u8]), Fail> {
    let [request_out, state_out] = outs;
    Ok((prefix(request_out, request_len::<T>(count))?, prefix(state_out, BatchState::<T, CAPACITY>::STATE_LEN)?))
}

/// Encodes a batch's request and exported state into the caller's buffers.
pub(crate) fn write_batch<T: PrivateTokenType>(
    state: &BatchState<T, CAPACITY>,
    write_state: WriteState<T>,
    request_out: &mut [u8],
    state_out: &mut [u8],
) -> Result<usize, Fail> {
    write_state(state, state_out)?;
    Ok(state.request().encode(request_out)?)
}

/// A fresh batch of `count` requests: the request into `outs[0]`, the
/// exported state into `outs[1]`.
fn request_batch<T: PrivateTokenType>(
    [token_key, challenge]: [&[u8]; 2],
    count: usize,
    rng: &mut CallbackRng,
    write_state: WriteState<T>,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let count = checked_count(count)?;
    let client = apart(|| Client::<T>::from_token_key(token_key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let (request_out, state_out) = batch_outs::<T>(count, outs)?;
    let state = apart(|| client.request_batch::<CAPACITY, _>(&challenge, count, rng))?;
    apart(|| write_batch(&state, write_state, request_out, state_out))
}

/// Finalizes a batch: imports the state (`outs[0]`, wiped on success),
/// verifies the batched proof and writes the tokens, in request order, one
/// after the other into `outs[1]`; returns their total length.
fn finalize_batch<T: PrivateTokenType>(
    [token_key, response]: [&[u8]; 2],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| Client::<T>::from_token_key(token_key))?;
    let [state_buf, tokens_out] = outs;
    let mut state = apart(|| BatchState::<T, CAPACITY>::import(&client, state_buf))?;
    let total = state.inputs().len().saturating_mul(T::TOKEN_LEN);
    let tokens_out = prefix(tokens_out, total)?;
    let response = AmortizedTokenResponse::<T>::decode(response)?;
    let tokens = apart(|| client.finalize_batch(&mut state, &response))?;
    for (token, out) in tokens.iter().zip(tokens_out.chunks_exact_mut(T::TOKEN_LEN)) {
        token.encode(out)?;
    }
    crate::ffi::wipe(state_buf);
    Ok(total)
}

/// A length of a batch of `count` tokens, or the refusal of `count`.
fn len_of(count: usize, len: fn(usize) -> usize) -> i32 {
    crate::ffi::status(checked_count(count).map(len))
}

/// # Safety
/// As `pat_type1_request_batch`.
#[allow(clippy::too_many_arguments)]
unsafe fn request_c<T: PrivateTokenType>(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    count: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    write_state: WriteState<T>,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                request_batch::<T>(inputs, count, &mut rng, write_state, outs)
            },
        )
    }
}

/// # Safety
/// As `pat_type1_finalize_batch`.
#[allow(clippy::too_many_arguments)]
unsafe fn finalize_c<T: PrivateTokenType>(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    tokens: *mut u8,
    tokens_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers, forwarded.
    unsafe {
        finalize_call(
            token_key,
            token_key_len,
            state,
            state_len,
            response,
            response_len,
            tokens,
            tokens_cap,
            finalize_batch::<T>,
        )
    }
}

/// The length of a type-0x0001 amortized batch request of `count` tokens
/// (1 to `PAT_BATCH_MAX`), or `-PAT_E_INVALID_LENGTH` (field batch) for 0
/// and `-PAT_E_CAPACITY_EXCEEDED` for more.
#[unsafe(no_mangle)]
pub extern "C" fn pat_type1_batch_request_len(count: usize) -> i32 {
    len_of(count, request_len::<PrivateP384>)
}

/// The length of the issuer's response to a type-0x0001 batch of `count`
/// tokens, refused as `pat_type1_batch_request_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_type1_batch_response_len(count: usize) -> i32 {
    len_of(count, response_len::<PrivateP384>)
}

/// The length of a type-0x0005 amortized batch request of `count` tokens,
/// refused as `pat_type1_batch_request_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_type5_batch_request_len(count: usize) -> i32 {
    len_of(count, request_len::<PrivateRistretto255>)
}

/// The length of the issuer's response to a type-0x0005 batch of `count`
/// tokens, refused as `pat_type1_batch_request_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_type5_batch_response_len(count: usize) -> i32 {
    len_of(count, response_len::<PrivateRistretto255>)
}

/// Type 0x0001, amortized (draft-ietf-privacypass-batched-tokens §5.1):
/// `count` requests (1 to `PAT_BATCH_MAX`) for `challenge` to the issuer of
/// `token_key`, each with a fresh nonce and blind from `rng`, in one
/// AmortizedBatchTokenRequest.
///
/// Writes the request (`pat_type1_batch_request_len(count)` bytes) to
/// `request` and the batch's state (`PAT_TYPE1_BATCH_STATE_LEN` bytes,
/// secret: every blind) to `state`; returns the request's length, or a
/// negative code with both buffers zeroed (for `count` as
/// `pat_type1_batch_request_len`, checked before any work).
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri` with
/// `Content-Type: PAT_MEDIA_TYPE_AMORTIZED_REQUEST` and `Accept:
/// PAT_MEDIA_TYPE_AMORTIZED_RESPONSE`; then `pat_type1_finalize_batch`.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type1_request_batch(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    count: usize,
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
            count,
            rng,
            rng_ctx,
            write_state1,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// Type 0x0001, amortized (§5.3): verifies the issuer's batched proof in
/// `response` (`pat_type1_batch_response_len(count)` bytes, as many
/// elements as the request: `-PAT_E_INVALID_LENGTH` otherwise,
/// `-PAT_E_VERIFICATION` for a proof that fails) against the `state` that
/// `pat_type1_request_batch` wrote, and writes the tokens in request
/// order, `PAT_TYPE1_TOKEN_LEN` bytes each, one after the other, to
/// `tokens`; returns their total length (count × `PAT_TYPE1_TOKEN_LEN`).
///
/// On success the state buffer is zeroed. On failure the state is left
/// unchanged, ready for the genuine response, and `tokens` is zeroed.
/// Next: one `pat_authorization` per token, each redeemed once.
///
/// # Safety
/// As `pat_type1_request_batch`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type1_finalize_batch(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    tokens: *mut u8,
    tokens_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        finalize_c::<PrivateP384>(
            token_key,
            token_key_len,
            state,
            state_len,
            response,
            response_len,
            tokens,
            tokens_cap,
        )
    }
}

/// Type 0x0005, amortized: as `pat_type1_request_batch`, with type
/// 0x0005's key, `pat_type5_batch_request_len(count)` and
/// `PAT_TYPE5_BATCH_STATE_LEN`.
///
/// # Safety
/// As `pat_type1_request_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type5_request_batch(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    count: usize,
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
            count,
            rng,
            rng_ctx,
            write_state5,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// Type 0x0005, amortized: as `pat_type1_finalize_batch`, tokens of
/// `PAT_TYPE5_TOKEN_LEN` bytes.
///
/// # Safety
/// As `pat_type1_finalize_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type5_finalize_batch(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    tokens: *mut u8,
    tokens_cap: usize,
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
            tokens,
            tokens_cap,
        )
    }
}
