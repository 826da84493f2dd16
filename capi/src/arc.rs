//! The client of type 0xE5AC, ARC(P-256) (draft-ietf-privacypass-arc-protocol-01):
//! a credential request and its finalize (once per issuer key and request
//! context), then presentation states (one per presentation context) and
//! tokens from them, each state a caller buffer that the call reads and
//! writes back.
//!
//! Every state is secret and the caller keeps it between calls (and across
//! restarts: the bytes are the library's `export` formats): the request
//! state until the response comes, the credential for as long as the
//! issuer key lives, the presentation state after every token. A
//! presentation state restored from an older copy repeats nonces, which
//! links the tokens and makes the origin refuse them.

use core::ffi::c_void;

use pat::crypto::arc::{Credential, CredentialRequestState, CredentialResponse, PresentationState};
use pat::tokens::arc::{ArcChallenge, Client, REQUEST_LEN, TOKEN_TYPE, token_len};
use pat::wire::codec::{Decode, Encode};

use crate::call::{Out, apart, call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// A credential request: the request into `outs[0]`, the exported state
/// into `outs[1]`.
fn request(
    [token_key, challenge]: [&[u8]; 2],
    rng: &mut CallbackRng,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let challenge = ArcChallenge::decode(challenge)?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, REQUEST_LEN)?;
    let state_out = prefix(state_out, CredentialRequestState::STATE_LEN)?;
    let (state, request) = apart(|| client.request(&challenge, rng))?;
    state_out.copy_from_slice(&state.export()[..]);
    Ok(request.encode(request_out)?)
}

/// Finalizes: the state (`outs[0]`, wiped on success) and the response give
/// the credential, written into `outs[1]`.
fn finalize([token_key, response]: [&[u8]; 2], outs: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let [state_buf, credential_out] = outs;
    let credential_out = prefix(credential_out, Credential::LEN)?;
    // Decoded in frames of their own (each element's square root has its
    // temporaries), not in the one that stays under the finalize.
    let state = apart(|| CredentialRequestState::import(state_buf))?;
    let response = apart(|| CredentialResponse::decode(response))?;
    let credential = apart(|| client.finalize(&state, &response))?;
    credential_out.copy_from_slice(&credential.export()[..]);
    crate::ffi::wipe(state_buf);
    Ok(Credential::LEN)
}

/// A presentation state for the challenge's presentation context under
/// `limit`, written into `outs[0]`.
fn presentation_state(
    [token_key, credential, challenge]: [&[u8]; 3],
    limit: u64,
    outs: &mut [&mut [u8]; 1],
) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let credential = apart(|| Credential::import(credential))?;
    let challenge = ArcChallenge::decode(challenge)?;
    let [state_out] = outs;
    let state_out = prefix(state_out, PresentationState::STATE_LEN)?;
    let state = apart(|| client.presentation_state(&credential, &challenge, limit))?;
    state_out.copy_from_slice(&state.export()[..]);
    Ok(PresentationState::STATE_LEN)
}

/// The next token of the state in `outs[0]` (written back advanced, only on
/// success) for the challenge, into `outs[1]`.
fn token([token_key, challenge]: [&[u8]; 2], rng: &mut CallbackRng, outs: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let challenge = ArcChallenge::decode(challenge)?;
    let [state_buf, token_out] = outs;
    let mut state = apart(|| PresentationState::import(state_buf))?;
    let n = apart(|| client.token(&mut state, &challenge, rng, token_out))?;
    state_buf.copy_from_slice(&state.export()[..]);
    Ok(n)
}

/// The length of an ARC token under `limit` (2 to 2^32, the challenge's
/// `rate-limit`), or a negative code of kind `PAT_E_INVALID_VALUE` (detail
/// `PAT_FIELD_PRESENTATION_LIMIT`) for a limit outside that range.
#[unsafe(no_mangle)]
pub extern "C" fn pat_arc_token_len(limit: u64) -> i32 {
    crate::ffi::status(token_len(limit).map_err(Fail::from))
}

/// The size of the buffer `pat_authorization` needs for an ARC token under
/// `limit`, its NUL included, or the negative code of `pat_arc_token_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_arc_authorization_size(limit: u64) -> i32 {
    let size = token_len(limit).map(|len| pat::wire::auth::authorization_len(len).saturating_add(1));
    crate::ffi::status(size.map_err(Fail::from))
}

/// Type 0xE5AC (ARC): a credential request for `challenge` (an encoded ARC
/// TokenChallenge, `credential_context` included; its issuer name,
/// origin_info and credential_context bind the credential) to the issuer
/// of `token_key` (its ServerPublicKey, `PAT_ARC_TOKEN_KEY_LEN` bytes), its
/// randomness from `rng`.
///
/// Writes the request (`PAT_ARC_REQUEST_LEN` bytes) to `request` and the
/// request state (`PAT_ARC_REQUEST_STATE_LEN` bytes, secret) to `state`;
/// returns the request's length, or a negative code (and both buffers
/// zeroed, but for one refused for overlapping another buffer).
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri`
/// with `Content-Type: PAT_MEDIA_TYPE_CREDENTIAL_REQUEST` and `Accept:
/// PAT_MEDIA_TYPE_CREDENTIAL_RESPONSE`, then `pat_arc_finalize` with the
/// state.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_arc_request(
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
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::request(inputs, &mut rng, outs)
            },
        )
    }
}

/// Type 0xE5AC: checks the issuer's `response` (`PAT_ARC_RESPONSE_LEN`
/// bytes) against the request `state` that `pat_arc_request` wrote and
/// writes the credential (`PAT_ARC_CREDENTIAL_LEN` bytes, secret) to
/// `credential`; returns its length.
///
/// On success the state buffer is zeroed: one request, one credential. On
/// failure the state is left unchanged, ready for the genuine response, and
/// `credential` is zeroed (unless it overlaps another buffer: refused, and
/// left as it was). Next: keep the credential (it serves every presentation
/// context of this issuer key and request context) and make a presentation
/// state with `pat_arc_presentation_state`.
///
/// # Safety
/// As `pat_arc_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_arc_finalize(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    credential: *mut u8,
    credential_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (response, response_len)],
            [Out::kept(state, state_len), Out::wiped(credential, credential_cap)],
            finalize,
        )
    }
}

/// Type 0xE5AC: the presentation state (`PAT_ARC_PRESENTATION_STATE_LEN`
/// bytes, secret) of `credential` for the presentation context of
/// `challenge` (its issuer name, origin_info and redemption_context) under
/// `limit` (the challenge's `rate-limit`, 2 to 2^32), written to `state`;
/// returns its length, or a negative code with `state` zeroed.
///
/// Make one state per presentation context and keep it: a second state for
/// the same context starts again at nonce 0 and repeats the first one's
/// tags, which links the tokens and makes the origin refuse them as
/// replays. Next: `pat_arc_token`.
///
/// # Safety
/// As `pat_arc_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_arc_presentation_state(
    token_key: *const u8,
    token_key_len: usize,
    credential: *const u8,
    credential_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    limit: u64,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (credential, credential_len), (challenge, challenge_len)],
            [Out::wiped(state, state_cap)],
            |inputs, outs| presentation_state(inputs, limit, outs),
        )
    }
}

/// Type 0xE5AC: the next token of the presentation `state` for `challenge`
/// (the one the state was made for: `-PAT_E_CHALLENGE_MISMATCH`
/// otherwise), its randomness from `rng`, written to `token`
/// (`pat_arc_token_len(limit)` bytes; at most `PAT_ARC_TOKEN_MAX_LEN`);
/// returns its length. On success `state` is written back advanced: store
/// it before sending the token. `-PAT_E_PRESENTATION_LIMIT_REACHED` once
/// the limit is used up (then obtain a new credential).
///
/// On failure `state` is left unchanged and `token` zeroed (unless a buffer
/// overlaps another: refused, and left as it was). Next:
/// `pat_authorization` with the token (`pat_arc_authorization_size(limit)`
/// bytes), sent to the origin that gave the challenge.
///
/// # Safety
/// As `pat_arc_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_arc_token(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len)],
            [Out::kept(state, state_len), Out::wiped(token, token_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::token(inputs, &mut rng, outs)
            },
        )
    }
}

/// Whether `token` is an ARC token of a length some limit gives (the
/// token does not carry its limit): for `pat_authorization`.
pub(crate) fn check_token(token: &[u8]) -> Result<(), Fail> {
    if pat::tokens::arc::is_token_len(token.len()) {
        Ok(())
    } else {
        Err(Fail::from(pat::Error::InvalidLength(pat::Field::Token)))
    }
}

/// Whether `bytes` starts with ARC's token type.
pub(crate) fn is_arc(bytes: &[u8]) -> bool {
    bytes.starts_with(&TOKEN_TYPE.to_be_bytes())
}
