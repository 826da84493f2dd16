//! The client of type 0x0002 (blind RSA 2048), RFC 9578 §6.

use core::ffi::c_void;

use pat::tokens::public::{Client, RequestState, TokenRequest, TokenResponse};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::PublicRsa2048;
use pat::{TokenChallenge, TokenType};

use crate::call::{Out, apart, call, finalize_call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// A fresh request: the request into `outs[0]`, the exported state into
/// `outs[1]`.
fn request(
    token_key: &[u8],
    challenge: &[u8],
    rng: &mut CallbackRng,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, PublicRsa2048::REQUEST_MAX_LEN)?;
    let state_out = prefix(state_out, RequestState::STATE_LEN)?;
    let (request, state) = apart(|| client.request(&challenge, rng))?;
    apart(|| write_request(&request, &state, request_out, state_out))
}

/// Encodes a request and its exported state into the caller's buffers.
pub(crate) fn write_request(
    request: &TokenRequest,
    state: &RequestState,
    request_out: &mut [u8],
    state_out: &mut [u8],
) -> Result<usize, Fail> {
    let exported = state.export()?;
    state_out.copy_from_slice(exported.as_bytes());
    Ok(request.encode(request_out)?)
}

/// Finalizes: imports the state (`outs[0]`, wiped on success), unblinds and
/// verifies the signature, writes the token into `outs[1]`.
fn finalize(token_key: &[u8], response: &[u8], outs: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let client = apart(|| Client::from_token_key(token_key))?;
    let [state_buf, token_out] = outs;
    let token_out = prefix(token_out, PublicRsa2048::TOKEN_LEN)?;
    let mut state = apart(|| RequestState::import(&client, state_buf))?;
    let response = TokenResponse::decode(response)?;
    let token = apart(|| client.finalize(&mut state, &response))?;
    let n = token.encode(token_out)?;
    crate::ffi::wipe(state_buf);
    Ok(n)
}

/// Type 0x0002 (blind RSA, RFC 9578 §6.1): builds a TokenRequest for
/// `challenge` (an encoded TokenChallenge of type 0x0002) to the issuer of
/// `token_key` (its RSA-2048 SubjectPublicKeyInfo, `PAT_TYPE2_TOKEN_KEY_LEN`
/// bytes as pat-go and RFC 9578 encode it), with a fresh nonce, salt and
/// blind from `rng`.
///
/// Writes the request (`PAT_TYPE2_REQUEST_LEN` bytes) to `request` and the
/// client state (`PAT_TYPE2_STATE_LEN` bytes) to `state`; returns the
/// request's length, or a negative code (and both buffers zeroed, but for
/// one refused for overlapping another buffer: that one is left as it
/// was). The state holds the blind inverse: keep it as a secret, pass it
/// to `pat_type2_finalize`, and wipe every copy after use (`pat_wipe`).
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
pub unsafe extern "C" fn pat_type2_request(
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
            |[key, challenge], outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::request(key, challenge, &mut rng, outs)
            },
        )
    }
}

/// Type 0x0002 (RFC 9578 §6.3): unblinds the issuer's `response`
/// (`PAT_TYPE2_RESPONSE_LEN` bytes) with the `state` that
/// `pat_type2_request` wrote, verifies the signature, and writes the Token
/// (`PAT_TYPE2_TOKEN_LEN` bytes) to `token`; returns its length. Next:
/// `pat_authorization`, as for type 0x0001.
///
/// On success the state buffer is zeroed: one request, one token. On
/// failure (`-PAT_E_VERIFICATION` for a signature that does not verify) the
/// state is left unchanged, ready for the genuine response, and `token` is
/// zeroed (unless it overlaps another buffer: refused, and left as it was).
///
/// # Safety
/// As `pat_type2_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type2_finalize(
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
            |[key, response], outs| finalize(key, response, outs),
        )
    }
}
