//! # Hazardous: deterministic requests, for known-answer tests only
//!
//! These functions exist only in a library built with the `hazmat` feature,
//! and the header declares them only when `PAT_HAZMAT` is defined. They take
//! the nonce, blind and salt that a real request draws from the randomness
//! callback, so that pat-go's vectors can be reproduced through the C API.
//!
//! **Never use them for real tokens.** An issuer that can predict a blind
//! links the redeemed token to its request, which removes the unlinkability
//! Privacy Pass exists for, and a reused nonce makes the second token a
//! replay (see `pat::hazmat::tokens::private`).

use pat::TokenChallenge;
use pat::crypto::voprf::{ByteArray, Suite};
use pat::tokens::private::{self, PrivateTokenType, RequestState};
use pat::tokens::public;
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255, PublicRsa2048, TokenType};
use pat::{Error, Field};

use crate::call::{Out, apart, call, exact, prefix};
use crate::ffi::Fail;

fn private_request_with<T: PrivateTokenType>(
    [key, challenge, nonce, blind]: [&[u8]; 4],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| private::Client::<T>::from_token_key(key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let nonce = exact::<32>(nonce, Field::Message)?;
    let blind = zeroize::Zeroizing::new(
        <<T::Suite as Suite>::ScalarBytes>::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?,
    );
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, T::REQUEST_MAX_LEN)?;
    let state_out = prefix(state_out, RequestState::<T>::STATE_LEN)?;
    let (request, state) = apart(|| pat::hazmat::tokens::private::request_with(&client, &challenge, nonce, &blind))?;
    apart(|| crate::private::write_request(&request, &state, request_out, state_out))
}

fn public_request_with(
    [key, challenge, nonce, salt, blind]: [&[u8]; 5],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| public::Client::from_token_key(key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let nonce = exact::<32>(nonce, Field::Message)?;
    let salt = exact::<48>(salt, Field::Message)?;
    let blind = exact::<256>(blind, Field::Message)?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, PublicRsa2048::REQUEST_MAX_LEN)?;
    let state_out = prefix(state_out, public::RequestState::STATE_LEN)?;
    let (request, state) =
        apart(|| pat::hazmat::tokens::public::request_with(&client, &challenge, nonce, salt, blind))?;
    apart(|| crate::public::write_request(&request, &state, request_out, state_out))
}

/// # Safety
/// As `pat_type1_request`.
#[allow(clippy::too_many_arguments)]
unsafe fn private_c<T: PrivateTokenType>(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    blind: *const u8,
    blind_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len), (nonce, nonce_len), (blind, blind_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |ins, outs| private_request_with::<T>(ins, outs),
        )
    }
}

/// HAZMAT, known-answer tests only: `pat_type1_request` with the given
/// `nonce` (`PAT_NONCE_LEN` bytes) and VOPRF `blind` (`PAT_TYPE1_BLIND_LEN`
/// bytes, a canonical non-zero scalar) instead of random ones.
///
/// # Safety
/// As `pat_type1_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type1_request_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    blind: *const u8,
    blind_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        private_c::<PrivateP384>(
            token_key,
            token_key_len,
            challenge,
            challenge_len,
            nonce,
            nonce_len,
            blind,
            blind_len,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// HAZMAT, known-answer tests only: `pat_type5_request` with the given
/// `nonce` (`PAT_NONCE_LEN` bytes) and VOPRF `blind` (`PAT_TYPE5_BLIND_LEN`
/// bytes, a canonical non-zero scalar) instead of random ones.
///
/// # Safety
/// As `pat_type5_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type5_request_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    blind: *const u8,
    blind_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        private_c::<PrivateRistretto255>(
            token_key,
            token_key_len,
            challenge,
            challenge_len,
            nonce,
            nonce_len,
            blind,
            blind_len,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// HAZMAT, known-answer tests only: `pat_type2_request` with the given
/// `nonce` (`PAT_NONCE_LEN` bytes), PSS `salt` (`PAT_TYPE2_SALT_LEN` bytes)
/// and RSA `blind` (`PAT_TYPE2_BLIND_LEN` bytes, big-endian, in [1, n) and
/// invertible) instead of random ones.
///
/// # Safety
/// As `pat_type2_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type2_request_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    salt: *const u8,
    salt_len: usize,
    blind: *const u8,
    blind_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (token_key, token_key_len),
                (challenge, challenge_len),
                (nonce, nonce_len),
                (salt, salt_len),
                (blind, blind_len),
            ],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            public_request_with,
        )
    }
}

/// The deterministic type-0xDA7A request behind `pat_typeda7a_request_with`.
fn metadata_request_with(
    [key, challenge, extensions, nonce, salt, blind]: [&[u8]; 6],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| pat::tokens::metadata::Client::from_token_key(key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let extensions = pat::wire::extensions::Extensions::decode(extensions)?;
    let nonce = exact::<32>(nonce, Field::Message)?;
    let salt = exact::<48>(salt, Field::Message)?;
    let blind = exact::<256>(blind, Field::Message)?;
    let [request_out, state_out] = outs;
    let request_len = crate::sizes::PAT_TYPEDA7A_REQUEST_FIXED_LEN.saturating_add(extensions.as_bytes().len());
    let request_out = prefix(request_out, request_len)?;
    let state_out = prefix(state_out, pat::tokens::metadata::RequestState::STATE_LEN)?;
    let (request, state) =
        apart(|| pat::hazmat::tokens::metadata::request_with(&client, &challenge, extensions, nonce, salt, blind))?;
    apart(|| crate::metadata::write_request(&request, &state, request_out, state_out))
}

/// HAZMAT, known-answer tests only: `pat_typeda7a_request` with the given
/// `nonce` (`PAT_NONCE_LEN` bytes), PSS `salt` (`PAT_TYPE2_SALT_LEN` bytes)
/// and RSA `blind` (`PAT_TYPE2_BLIND_LEN` bytes, big-endian, in [1, n) and
/// invertible) instead of random ones.
///
/// # Safety
/// As `pat_typeda7a_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_typeda7a_request_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    extensions: *const u8,
    extensions_len: usize,
    nonce: *const u8,
    nonce_len: usize,
    salt: *const u8,
    salt_len: usize,
    blind: *const u8,
    blind_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (token_key, token_key_len),
                (challenge, challenge_len),
                (extensions, extensions_len),
                (nonce, nonce_len),
                (salt, salt_len),
                (blind, blind_len),
            ],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            metadata_request_with,
        )
    }
}
