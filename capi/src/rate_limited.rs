//! The client of type 0x0003 (rate-limited blind RSA,
//! draft-ietf-privacypass-rate-limit-tokens), with pat-go's wire choices
//! (`pat::tokens::rate_limited::Config::PAT_GO`).
//!
//! The client holds a long-term ECDSA P-384 secret its attester knows the
//! public key of (`pat_type3_client_key`). A request goes to the attester
//! with `request_blind`; the issuer's encrypted response comes back through
//! the attester and finalizes, with the token key alone, into a token.

use core::ffi::c_void;

use pat::Field;
use pat::TokenChallenge;
use pat::crypto::key_blinding::ecdsa_p384::{self as ecdsa, PUBLIC_KEY_LEN, SCALAR_LEN};
use pat::crypto::rate_limited::EncapKey;
use pat::tokens::rate_limited::{Client, ClientState, request_len};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{RateLimitedRsa2048, TokenType};

use crate::call::{Out, apart, call, exact, finalize_call, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// The client of `secret`, `encap_key` and `token_key`.
fn client(secret: &[u8], encap_key: &[u8], token_key: &[u8]) -> Result<Client, Fail> {
    let secret = ecdsa::SecretKey::from_bytes(exact::<SCALAR_LEN>(secret, Field::Key)?)?;
    let encap_key = EncapKey::decode(encap_key)?;
    let token_key = pat::crypto::blind_rsa::PublicKey::from_spki(token_key)?;
    Ok(Client::new(secret, encap_key, token_key))
}

fn request(
    [secret, encap_key, token_key, challenge, origin_name]: [&[u8]; 5],
    rng: &mut CallbackRng,
    [request_out, blind_out, state_out]: &mut [&mut [u8]; 3],
) -> Result<usize, Fail> {
    let client = apart(|| client(secret, encap_key, token_key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let blind_out = prefix(blind_out, SCALAR_LEN)?;
    let state_out = prefix(state_out, ClientState::STATE_LEN)?;
    let (n, state) = apart(|| client.request(&challenge, origin_name, rng, request_out))?;
    blind_out.copy_from_slice(state.request_blind().to_bytes().as_ref());
    apart(|| state.export().map(|e| state_out.copy_from_slice(e.as_bytes())))?;
    Ok(n)
}

fn finalize([token_key, response]: [&[u8]; 2], [state_buf, token_out]: &mut [&mut [u8]; 2]) -> Result<usize, Fail> {
    let token_key = apart(|| pat::crypto::blind_rsa::PublicKey::from_spki(token_key))?;
    let token_out = prefix(token_out, RateLimitedRsa2048::TOKEN_LEN)?;
    let mut state = apart(|| ClientState::import_for_token_key(&token_key, state_buf))?;
    let token = apart(|| state.finalize(&token_key, response))?;
    let n = token.encode(token_out)?;
    crate::ffi::wipe(state_buf);
    Ok(n)
}

/// The length of a type-0x0003 TokenRequest for an origin name of
/// `origin_name_len` bytes (`PAT_TYPE3_REQUEST_LEN_SHORT_NAME` up to 32
/// bytes; names are padded to 32-byte blocks), or
/// `-PAT_E_INVALID_LENGTH` beyond the longest name the format carries.
#[unsafe(no_mangle)]
pub extern "C" fn pat_type3_request_len(origin_name_len: usize) -> i32 {
    crate::ffi::status(request_len(origin_name_len).map_err(Fail::from))
}

/// Writes the client's public key (`PAT_TYPE3_CLIENT_KEY_LEN` bytes, the
/// compressed P-384 point its attester enrolls) for the long-term secret
/// `client_secret` (`PAT_TYPE3_CLIENT_SECRET_LEN` bytes, a non-zero scalar
/// below the group order, big-endian) into `out`; returns its length.
///
/// # Safety
/// `client_secret` points to `client_secret_len` readable bytes, `out` to
/// `out_cap` writable bytes; they do not overlap.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type3_client_key(
    client_secret: *const u8,
    client_secret_len: usize,
    out: *mut u8,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call([(client_secret, client_secret_len)], [Out::wiped(out, out_cap)], |[secret], [out]| {
            let secret = ecdsa::SecretKey::from_bytes(exact::<SCALAR_LEN>(secret, Field::Key)?)?;
            prefix(out, PUBLIC_KEY_LEN)?.copy_from_slice(&secret.public_key().to_bytes());
            Ok(PUBLIC_KEY_LEN)
        })
    }
}

/// Type 0x0003: builds the TokenRequest for `challenge` (type 0x0003) and
/// `origin_name` (the origin's name as the issuer knows it, not ending in a
/// zero byte) to the issuer of `encap_key` (its HPKE key configuration,
/// `PAT_TYPE3_ENCAP_KEY_LEN` bytes) and `token_key` (RSA-2048 SPKI), signed
/// with the client's `client_secret` blinded by a fresh `request_blind`.
/// Nonce, salt, blind, `request_blind`, HPKE and ECDSA randomness come from
/// `rng`.
///
/// Writes the request (`pat_type3_request_len(origin_name_len)` bytes) to
/// `request`, `request_blind` (`PAT_TYPE3_REQUEST_BLIND_LEN` bytes, for the
/// attester alone: with the client key it links the request to the client,
/// so send it to the attester only and `pat_wipe` it after) to
/// `request_blind`, and the state (`PAT_TYPE3_STATE_LEN` bytes, secret) to
/// `state`; returns the request's length, or a negative code (and every
/// output zeroed, but for one refused for overlapping another buffer: that
/// one is left as it was).
///
/// Next: the request goes to the attester (not to the issuer directly),
/// which forwards it to the issuer's `issuer-request-uri` with `Content-Type:
/// PAT_MEDIA_TYPE_TOKEN_REQUEST`; the issuer's response, relayed back, goes
/// to `pat_type3_finalize`.
///
/// The wire choices are pat-go's (`Config::PAT_GO` of the library: its
/// HPKE labels, the last byte of the token key id in the inner request, the
/// minimal blind-key encoding); the issuer and attester must use the same.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type3_request(
    client_secret: *const u8,
    client_secret_len: usize,
    encap_key: *const u8,
    encap_key_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    origin_name: *const u8,
    origin_name_len: usize,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    request: *mut u8,
    request_cap: usize,
    request_blind: *mut u8,
    request_blind_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (client_secret, client_secret_len),
                (encap_key, encap_key_len),
                (token_key, token_key_len),
                (challenge, challenge_len),
                (origin_name, origin_name_len),
            ],
            [
                Out::wiped(request, request_cap),
                Out::wiped(request_blind, request_blind_cap),
                Out::wiped(state, state_cap),
            ],
            |ins, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::request(ins, &mut rng, outs)
            },
        )
    }
}

/// Type 0x0003: decrypts the issuer's `encrypted_token_response`
/// (`PAT_TYPE3_RESPONSE_LEN` bytes) with the `state` of
/// `pat_type3_request`, unblinds and verifies the signature with
/// `token_key` (the issuer's RSA-2048 SPKI the request was made for), and
/// writes the Token (`PAT_TYPE3_TOKEN_LEN` bytes) to `token`; returns its
/// length. The client's long-term secret is not needed. The state is
/// zeroed on success and left unchanged on failure (`-PAT_E_VERIFICATION`
/// for a response that does not decrypt or a signature that does not
/// verify; `-PAT_E_KEY_ID_MISMATCH` for another token key), and `token` is
/// zeroed on failure (unless it overlaps another buffer: refused, and left
/// as it was).
///
/// # Safety
/// As `pat_type3_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type3_finalize(
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
        finalize_call(token_key, token_key_len, state, state_len, response, response_len, token, token_cap, finalize)
    }
}
