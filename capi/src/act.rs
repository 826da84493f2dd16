//! The client of type 0xE5AD, ACT(ristretto255)
//! (draft-schlesinger-privacypass-act-01 on draft-schlesinger-cfrg-act-01):
//! a credential holding credits, spent a cost at a time; each spend's
//! refund becomes the next credential.
//!
//! The deployment is named by its domain separator (the issuer publishes
//! it: `ACT-v1:<organization>:<service>:<deployment id>:<version>`) and by
//! `bits`, the bit length L of its balances: 8, 16, 32, 64 or 128 here
//! (the library takes any L from 1 to 128; these are the ones compiled
//! in). Credits and costs cross the C boundary as `uint64_t`.
//!
//! Every state is secret and the caller keeps it between calls: the
//! request state until the response comes, the credential until it is
//! spent (a spend wipes it: a credential spent twice shows the same
//! nullifier, which the issuer refuses and which links the two spends),
//! the refund state until the refund comes. The bytes are the draft's CBOR
//! encodings (`PreIssuance`, `CreditToken`, `PreRefund`).

use core::ffi::c_void;

use pat::crypto::act::{CreditToken, Params, PreRefund, Refund};
use pat::tokens::act::{
    ActChallenge, Client, REFUND_LEN, REQUEST_LEN, RequestState, TOKEN_TYPE, Token, TokenResponse, token_len,
};
use pat::wire::codec::{Decode, Encode};
use pat::{Error, Field};

use crate::call::{Object, Out, apart, call, call_into, prefix};
use crate::ffi::Fail;
use crate::rng::{CallbackRng, pat_rng_fn};

/// The bit lengths L this API serves, ascending.
pub(crate) const BITS: [usize; 5] = [8, 16, 32, 64, 128];

/// Runs `$body` with `L` set to `bits`, one of [`BITS`]; another is
/// `InvalidLength(Message)`, the library's error for an L it cannot take.
/// Each L runs in a frame of its own: inlined side by side, the five
/// instantiations' buffers would share one frame (the largest L's proof
/// arrays under every call).
macro_rules! with_bits {
    ($bits:expr, $body:ident ( $($arg:expr),* )) => {
        match $bits {
            8 => $crate::call::apart(|| $body::<8>($($arg),*)),
            16 => $crate::call::apart(|| $body::<16>($($arg),*)),
            32 => $crate::call::apart(|| $body::<32>($($arg),*)),
            64 => $crate::call::apart(|| $body::<64>($($arg),*)),
            128 => $crate::call::apart(|| $body::<128>($($arg),*)),
            _ => Err(crate::ffi::Fail::from(pat::Error::InvalidLength(pat::Field::Message))),
        }
    };
}
#[cfg_attr(not(feature = "hazmat"), allow(unused_imports))]
pub(crate) use with_bits;

/// The client of the deployment and key (L only types the calls).
fn client<const L: usize>(domain_separator: &[u8], token_key: &[u8]) -> Result<Client<L>, Fail> {
    Ok(apart(|| Client::<L>::from_token_key(Params::from_domain_separator(domain_separator), token_key))?)
}

/// `bytes`, unless they are a state, credential or refund state of its
/// length `len` that this API wiped: every one it writes starts with a CBOR
/// header, never 0, and a spent one is all zeros. A wiped one is
/// `UnknownStateVersion(0)`, as every other family's spent state (whose
/// version byte is 0); one of another length is left to the decoder
/// (`InvalidLength`, `Truncated`, `TrailingBytes`). The first byte is the
/// encoding's header, the same for every value: reading it tells nothing
/// secret.
fn unspent(bytes: &[u8], len: usize) -> Result<&[u8], Fail> {
    match bytes.first() {
        Some(0) if bytes.len() == len => Err(Fail::from(Error::UnknownStateVersion(0))),
        _ => Ok(bytes),
    }
}

/// A credential request: the request into `outs[0]`, the state into `outs[1]`.
fn request(
    [domain_separator, token_key, challenge]: [&[u8]; 3],
    rng: &mut CallbackRng,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    // The request does not depend on L.
    let client = client::<128>(domain_separator, token_key)?;
    let challenge = ActChallenge::decode(challenge)?;
    let [request_out, state_out] = outs;
    let request_out = prefix(request_out, REQUEST_LEN)?;
    let state_out = prefix(state_out, RequestState::LEN)?;
    let (state, request) = apart(|| client.request(&challenge, rng))?;
    state_out.copy_from_slice(&state.to_bytes()[..]);
    Ok(request.encode(request_out)?)
}

/// The credential from the state (`outs[0]`, wiped on success) and the
/// response, into `outs[1]`.
fn finalize<const L: usize>(
    [domain_separator, token_key, response]: [&[u8]; 3],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = client::<L>(domain_separator, token_key)?;
    let [state_buf, credential_out] = outs;
    let credential_out = prefix(credential_out, CreditToken::CBOR_LEN)?;
    // The inputs decoded, the finalize and the credential in one frame of
    // their own, under which the client alone stays.
    apart(|| -> Result<(), Fail> {
        let state = RequestState::from_bytes(unspent(state_buf, RequestState::LEN)?)?;
        let response = TokenResponse::decode(response)?;
        credential_out.copy_from_slice(&client.finalize(&state, &response)?.to_cbor()[..]);
        Ok(())
    })?;
    crate::ffi::wipe(state_buf);
    Ok(CreditToken::CBOR_LEN)
}

/// A spend of `cost` from the credential (`outs[0]`, wiped on success): the
/// token into `outs[1]`, the refund state into `outs[2]`.
fn spend<const L: usize>(
    [domain_separator, token_key, challenge]: [&[u8]; 3],
    cost: u64,
    rng: &mut CallbackRng,
    outs: &mut [&mut [u8]; 3],
) -> Result<usize, Fail> {
    let client = client::<L>(domain_separator, token_key)?;
    let challenge = ActChallenge::decode(challenge)?;
    let [credential_buf, token_out, refund_state_out] = outs;
    let token_out = prefix(token_out, Token::<L>::LEN)?;
    let refund_state_out = prefix(refund_state_out, PreRefund::CBOR_LEN)?;
    unspent(credential_buf, CreditToken::CBOR_LEN)?;
    let credential = apart(|| CreditToken::from_cbor(credential_buf))?;
    let (token, pre_refund) = apart(|| client.spend(&credential, &challenge, u128::from(cost), rng))?;
    let n = token.encode(token_out)?;
    refund_state_out.copy_from_slice(&pre_refund.to_cbor()[..]);
    crate::ffi::wipe(credential_buf);
    Ok(n)
}

/// The next credential from the refund state (`outs[0]`, wiped on
/// success), the token it was made with and the issuer's refund, into
/// `outs[1]`.
fn refund_credential<const L: usize>(
    [domain_separator, token_key, token, refund]: [&[u8]; 4],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = client::<L>(domain_separator, token_key)?;
    let [state_buf, credential_out] = outs;
    let credential_out = prefix(credential_out, CreditToken::CBOR_LEN)?;
    // The inputs decoded, the refund and the credential in one frame of
    // their own, under which the client alone stays.
    apart(|| -> Result<(), Fail> {
        let state = PreRefund::from_cbor(unspent(state_buf, PreRefund::CBOR_LEN)?)?;
        let token = Token::<L>::decode(token)?;
        let refund = Refund::from_cbor(refund)?;
        credential_out.copy_from_slice(&client.refund(&state, &token, &refund)?.to_cbor()[..]);
        Ok(())
    })?;
    crate::ffi::wipe(state_buf);
    Ok(CreditToken::CBOR_LEN)
}

/// The credits of a credential under L.
fn credits<const L: usize>(credential: &[u8]) -> Result<u64, Fail> {
    let credits = CreditToken::from_cbor(unspent(credential, CreditToken::CBOR_LEN)?)?.credits::<L>()?;
    Ok(u64::try_from(credits).map_err(|_| Error::ValueTooLarge)?)
}

/// A token of L bits, strictly.
fn decode_token<const L: usize>(token: &[u8]) -> Result<(), Fail> {
    Token::<L>::decode(token)?;
    Ok(())
}

/// Whether `bytes` starts with ACT's token type.
pub(crate) fn is_act(bytes: &[u8]) -> bool {
    bytes.starts_with(&TOKEN_TYPE.to_be_bytes())
}

/// An ACT token of one of [`BITS`] (its length tells which), strictly.
pub(crate) fn check_token(token: &[u8]) -> Result<(), Fail> {
    let bits = BITS.iter().find(|&&l| token_len(l) == token.len()).copied().unwrap_or(0);
    if bits == 0 {
        return Err(Fail::from(Error::InvalidLength(Field::Token)));
    }
    with_bits!(bits, decode_token(token))
}

/// `token_len(bits)` for a served `bits`.
fn checked_token_len(bits: usize) -> Result<usize, Fail> {
    if BITS.contains(&bits) { Ok(token_len(bits)) } else { Err(Fail::from(Error::InvalidLength(Field::Message))) }
}

/// The length of a type-0xE5AD token for balances of `bits` bits (8, 16,
/// 32, 64 or 128), or `-PAT_E_INVALID_LENGTH` (field message) for another.
#[unsafe(no_mangle)]
pub extern "C" fn pat_act_token_len(bits: usize) -> i32 {
    crate::ffi::status(checked_token_len(bits))
}

/// The size of the buffer `pat_authorization` needs for a type-0xE5AD
/// token of `bits` bits, its NUL included, or a negative code as
/// `pat_act_token_len`.
#[unsafe(no_mangle)]
pub extern "C" fn pat_act_authorization_size(bits: usize) -> i32 {
    crate::ffi::status(checked_token_len(bits).map(|n| pat::wire::auth::authorization_len(n).saturating_add(1)))
}

/// Type 0xE5AD (ACT): a credential request for `challenge` (an encoded ACT
/// TokenChallenge, its `credential_context` included: issuer name, origin
/// info, credential context and key bind the credential) to the issuer of
/// `token_key` (its ristretto255 public key, `PAT_ACT_TOKEN_KEY_LEN` bytes)
/// in the deployment of `domain_separator`, its randomness from `rng`.
///
/// Writes the request (`PAT_ACT_REQUEST_LEN` bytes) to `request` and the
/// request state (`PAT_ACT_REQUEST_STATE_LEN` bytes, secret) to `state`;
/// returns the request's length, or a negative code with both buffers
/// zeroed (`-PAT_E_WRONG_TOKEN_TYPE` for another type's challenge).
///
/// Next: POST the request's bytes to the issuer's `issuer-request-uri`
/// with `Content-Type: PAT_MEDIA_TYPE_TOKEN_REQUEST` and `Accept:
/// PAT_MEDIA_TYPE_TOKEN_RESPONSE`, then `pat_act_finalize`.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (outputs) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_act_request(
    domain_separator: *const u8,
    domain_separator_len: usize,
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
            [(domain_separator, domain_separator_len), (token_key, token_key_len), (challenge, challenge_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                self::request(inputs, &mut rng, outs)
            },
        )
    }
}

/// Type 0xE5AD: the credential from the issuer's `response`
/// (`PAT_ACT_RESPONSE_LEN` bytes; `-PAT_E_CHALLENGE_MISMATCH` when it
/// carries another request context, `-PAT_E_VERIFICATION` when its proof
/// fails) and the `state` `pat_act_request` wrote, for balances of `bits`
/// bits. Writes the credential (`PAT_ACT_CREDENTIAL_LEN` bytes, secret) to
/// `credential`; returns its length.
///
/// On success the state buffer is zeroed; on failure it is left as it was
/// and `credential` is zeroed. Next: keep the credential (its balance:
/// `pat_act_credits`) for `pat_act_spend`.
///
/// A wiped (spent) request state is `-PAT_E_UNKNOWN_STATE_VERSION` (detail 0),
/// as every other family's spent state.
///
/// # Safety
/// As `pat_act_request`; `state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_act_finalize(
    domain_separator: *const u8,
    domain_separator_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    bits: usize,
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
            [(domain_separator, domain_separator_len), (token_key, token_key_len), (response, response_len)],
            [Out::kept(state, state_len), Out::wiped(credential, credential_cap)],
            |inputs, outs| with_bits!(bits, finalize(inputs, outs)),
        )
    }
}

/// Type 0xE5AD: spends `cost` credits of `credential` for `challenge` (the
/// origin's ACT TokenChallenge; `-PAT_E_CHALLENGE_MISMATCH` if the
/// credential was issued for another issuer, origin, credential context or
/// key; `-PAT_E_VALUE_TOO_LARGE` if `cost` exceeds the balance), with
/// fresh randomness from `rng`.
///
/// Writes the token (`pat_act_token_len(bits)` bytes) to `token` and the
/// refund state (`PAT_ACT_REFUND_STATE_LEN` bytes, secret) to
/// `refund_state`; returns the token's length. On success the credential
/// buffer is zeroed (a credential is spent once); on failure it is left as
/// it was and both outputs are zeroed.
///
/// Next: `pat_authorization` with the token (`pat_act_authorization_size`
/// bytes) to the origin, which answers with a refund
/// (`PAT_ACT_REFUND_LEN` bytes; -01 does not say how it travels) for
/// `pat_act_refund`.
///
/// A wiped (spent) credential is `-PAT_E_UNKNOWN_STATE_VERSION` (detail 0),
/// as every other family's spent state.
///
/// # Safety
/// As `pat_act_request`; `credential` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_act_spend(
    domain_separator: *const u8,
    domain_separator_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    bits: usize,
    credential: *mut u8,
    credential_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    cost: u64,
    rng: pat_rng_fn,
    rng_ctx: *mut c_void,
    token: *mut u8,
    token_cap: usize,
    refund_state: *mut u8,
    refund_state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(domain_separator, domain_separator_len), (token_key, token_key_len), (challenge, challenge_len)],
            [
                Out::kept(credential, credential_len),
                Out::wiped(token, token_cap),
                Out::wiped(refund_state, refund_state_cap),
            ],
            |inputs, outs| {
                let mut rng = CallbackRng::new(rng, rng_ctx)?;
                with_bits!(bits, spend(inputs, cost, &mut rng, outs))
            },
        )
    }
}

/// Type 0xE5AD: the next credential from the issuer's `refund`
/// (`PAT_ACT_REFUND_LEN` bytes; `-PAT_E_VERIFICATION` when its proof
/// fails), the `refund_state` and the `token` `pat_act_spend` wrote. Writes
/// the credential (`PAT_ACT_CREDENTIAL_LEN` bytes, secret: the balance left
/// plus the refund) to `credential`; returns its length.
///
/// On success the refund state is zeroed; on failure it is left as it was
/// and `credential` is zeroed. Next: `pat_act_spend` with the new
/// credential.
///
/// A wiped (spent) refund state is `-PAT_E_UNKNOWN_STATE_VERSION` (detail 0),
/// as every other family's spent state.
///
/// # Safety
/// As `pat_act_request`; `refund_state` is read and written.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_act_refund(
    domain_separator: *const u8,
    domain_separator_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    bits: usize,
    refund_state: *mut u8,
    refund_state_len: usize,
    token: *const u8,
    token_len: usize,
    refund: *const u8,
    refund_len: usize,
    credential: *mut u8,
    credential_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (domain_separator, domain_separator_len),
                (token_key, token_key_len),
                (token, token_len),
                (refund, refund_len),
            ],
            [Out::kept(refund_state, refund_state_len), Out::wiped(credential, credential_cap)],
            |inputs, outs| with_bits!(bits, refund_credential(inputs, outs)),
        )
    }
}

/// Type 0xE5AD: the balance of `credential` (`PAT_ACT_CREDENTIAL_LEN`
/// bytes) under balances of `bits` bits, into `*out`; returns 0, or a
/// negative code with `*out` set to 0 (`-PAT_E_VALUE_TOO_LARGE` for a
/// balance above `UINT64_MAX`).
///
/// A wiped (spent) credential is `-PAT_E_UNKNOWN_STATE_VERSION` (detail 0),
/// as every other family's spent state.
///
/// # Safety
/// `credential` points to `credential_len` readable bytes, `out` to a
/// writable `uint64_t` outside them.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_act_credits(
    credential: *const u8,
    credential_len: usize,
    bits: usize,
    out: *mut u64,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call_into([(credential, credential_len)], [], Some(Object::new(out, 0)), |[credential], _| {
            Ok((0, with_bits!(bits, credits(credential))?))
        })
    }
}

/// The lengths of the refund the issuer sends, for the header's checks.
const _: () = assert!(REFUND_LEN == Refund::LEN);
