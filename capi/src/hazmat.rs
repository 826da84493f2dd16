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

/// A VOPRF blind given as bytes: exactly the suite's scalar length.
type Blind<T> = zeroize::Zeroizing<<<T as PrivateTokenType>::Suite as Suite>::ScalarBytes>;

/// The nonce and blind of a type-0x0001 or 0x0005 known answer.
fn private_inputs<'n, T: PrivateTokenType>(nonce: &'n [u8], blind: &[u8]) -> Result<(&'n [u8; 32], Blind<T>), Fail> {
    let nonce = exact::<32>(nonce, Field::Message)?;
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?;
    Ok((nonce, zeroize::Zeroizing::new(blind)))
}

/// The nonce, salt and blind of a type-0x0002 known answer.
fn public_inputs<'a>(nonce: &'a [u8], salt: &'a [u8], blind: &'a [u8]) -> Result<PublicInputs<'a>, Fail> {
    Ok((exact::<32>(nonce, Field::Message)?, exact::<48>(salt, Field::Message)?, exact::<256>(blind, Field::Message)?))
}

type PublicInputs<'a> = (&'a [u8; 32], &'a [u8; 48], &'a [u8; 256]);

fn private_request_with<T: PrivateTokenType>(
    [key, challenge, nonce, blind]: [&[u8]; 4],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    let client = apart(|| private::Client::<T>::from_token_key(key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let (nonce, blind) = private_inputs::<T>(nonce, blind)?;
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
    let (nonce, salt, blind) = public_inputs(nonce, salt, blind)?;
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

/// The deterministic amortized batch behind `pat_type1_request_batch_with`
/// and `pat_type5_request_batch_with`: one token per 32-byte nonce, each
/// with its blind (`Ns` bytes) from `blinds`.
fn batch_with<T: PrivateTokenType>(
    [key, challenge, nonces, blinds]: [&[u8]; 4],
    write_state: crate::amortized::WriteState<T>,
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    use crate::amortized::CAPACITY;
    let ns = <<T::Suite as Suite>::ScalarBytes as ByteArray>::LEN;
    if !nonces.len().is_multiple_of(32) || blinds.len() != (nonces.len() / 32).saturating_mul(ns) {
        return Err(Fail::from(Error::InvalidLength(Field::Batch)));
    }
    let count = crate::amortized::checked_count(nonces.len() / 32)?;
    let client = apart(|| private::Client::<T>::from_token_key(key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let (request_out, state_out) = crate::amortized::batch_outs::<T>(count, outs)?;
    let mut nonce_list = [[0u8; 32]; CAPACITY];
    let mut blind_list = zeroize::Zeroizing::new([<<T::Suite as Suite>::ScalarBytes>::ZERO; CAPACITY]);
    for (((nonce, blind), nonce_slot), blind_slot) in
        nonces.chunks_exact(32).zip(blinds.chunks_exact(ns)).zip(nonce_list.iter_mut()).zip(blind_list.iter_mut())
    {
        *nonce_slot = *exact::<32>(nonce, Field::Message)?;
        *blind_slot =
            <<T::Suite as Suite>::ScalarBytes>::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?;
    }
    let nonce_list = nonce_list.get(..count).ok_or(Error::CapacityExceeded)?;
    let blind_slice = blind_list.get(..count).ok_or(Error::CapacityExceeded)?;
    let state = apart(|| {
        pat::hazmat::tokens::amortized::request_batch_with::<T, CAPACITY>(&client, &challenge, nonce_list, blind_slice)
    })?;
    apart(|| crate::amortized::write_batch(&state, write_state, request_out, state_out))
}

/// # Safety
/// As `pat_type1_request_batch`.
#[allow(clippy::too_many_arguments)]
unsafe fn batch_c<T: PrivateTokenType>(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonces: *const u8,
    nonces_len: usize,
    blinds: *const u8,
    blinds_len: usize,
    write_state: crate::amortized::WriteState<T>,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(token_key, token_key_len), (challenge, challenge_len), (nonces, nonces_len), (blinds, blinds_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |ins, outs| batch_with::<T>(ins, write_state, outs),
        )
    }
}

/// HAZMAT, known-answer tests only: `pat_type1_request_batch` for one
/// token per nonce of `nonces` (`PAT_NONCE_LEN` bytes each, 1 to
/// `PAT_BATCH_MAX` of them) with the blinds in `blinds`
/// (`PAT_TYPE1_BLIND_LEN` bytes each, canonical non-zero scalars) instead
/// of random ones.
///
/// # Safety
/// As `pat_type1_request_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type1_request_batch_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonces: *const u8,
    nonces_len: usize,
    blinds: *const u8,
    blinds_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        batch_c::<PrivateP384>(
            token_key,
            token_key_len,
            challenge,
            challenge_len,
            nonces,
            nonces_len,
            blinds,
            blinds_len,
            crate::amortized::write_state1,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// HAZMAT, known-answer tests only: `pat_type5_request_batch` with given
/// nonces and blinds (`PAT_TYPE5_BLIND_LEN` bytes each), as
/// `pat_type1_request_batch_with`.
///
/// # Safety
/// As `pat_type5_request_batch`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_type5_request_batch_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    nonces: *const u8,
    nonces_len: usize,
    blinds: *const u8,
    blinds_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: forwarded contract.
    unsafe {
        batch_c::<PrivateRistretto255>(
            token_key,
            token_key_len,
            challenge,
            challenge_len,
            nonces,
            nonces_len,
            blinds,
            blinds_len,
            crate::amortized::write_state5,
            request,
            request_cap,
            state,
            state_cap,
        )
    }
}

/// The deterministic type-0xDA7B request behind `pat_typeda7b_request_with`.
fn poprf_request_with(
    [key, challenge, extensions, nonce, blind]: [&[u8]; 5],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    use pat::crypto::voprf::P384Sha384;
    let client = apart(|| pat::tokens::poprf::Client::from_token_key(key))?;
    let challenge = TokenChallenge::decode(challenge)?;
    let extensions = pat::wire::extensions::Extensions::decode(extensions)?;
    let nonce = exact::<32>(nonce, Field::Message)?;
    let blind = zeroize::Zeroizing::new(
        <<P384Sha384 as Suite>::ScalarBytes>::from_slice(blind).ok_or(Error::InvalidLength(Field::Message))?,
    );
    crate::poprf::request_into(&client, &challenge, extensions, outs, |c, ch, ext| {
        pat::hazmat::tokens::poprf::request_with(c, ch, ext, nonce, &blind)
    })
}

/// HAZMAT, known-answer tests only: `pat_typeda7b_request` with the given
/// `nonce` (`PAT_NONCE_LEN` bytes) and POPRF `blind` (`PAT_TYPE1_BLIND_LEN`
/// bytes, a canonical non-zero P-384 scalar) instead of random ones.
///
/// # Safety
/// As `pat_typeda7b_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_typeda7b_request_with(
    token_key: *const u8,
    token_key_len: usize,
    challenge: *const u8,
    challenge_len: usize,
    extensions: *const u8,
    extensions_len: usize,
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
            [
                (token_key, token_key_len),
                (challenge, challenge_len),
                (extensions, extensions_len),
                (nonce, nonce_len),
                (blind, blind_len),
            ],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            poprf_request_with,
        )
    }
}

/// ATHM's generator in the reference's vectors: ChaCha20 from a 32-byte seed.
fn athm_rng(seed: &[u8]) -> Result<rand_chacha::ChaCha20Rng, Fail> {
    use pat::rand_core::SeedableRng;
    Ok(rand_chacha::ChaCha20Rng::from_seed(*exact::<32>(seed, Field::Message)?))
}

/// HAZMAT, known-answer tests only: `pat_athm_request` drawing its
/// randomness from ChaCha20 seeded with `seed` (32 bytes), the generator of
/// the ATHM reference's vectors (`rng_seed`), instead of the callback.
///
/// # Safety
/// As `pat_athm_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_athm_request_with(
    deployment_id: *const u8,
    deployment_id_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    seed: *const u8,
    seed_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(deployment_id, deployment_id_len), (token_key, token_key_len), (seed, seed_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |[deployment_id, token_key, seed], outs| {
                crate::athm::request([deployment_id, token_key], &mut athm_rng(seed)?, outs)
            },
        )
    }
}

/// HAZMAT, known-answer tests only: `pat_athm_finalize` drawing its
/// randomness from ChaCha20 seeded with `seed` (32 bytes), as
/// `pat_athm_request_with`.
///
/// # Safety
/// As `pat_athm_finalize`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_athm_finalize_with(
    deployment_id: *const u8,
    deployment_id_len: usize,
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    seed: *const u8,
    seed_len: usize,
    token: *mut u8,
    token_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (deployment_id, deployment_id_len),
                (token_key, token_key_len),
                (response, response_len),
                (seed, seed_len),
            ],
            [Out::kept(state, state_len), Out::wiped(token, token_cap)],
            |[deployment_id, token_key, response, seed], outs| {
                let mut rng = athm_rng(seed)?;
                crate::athm::finalize([deployment_id, token_key, response], &mut rng, outs)
            },
        )
    }
}

/// One run of ACT's protocol (draft-schlesinger-cfrg-act-01) for balances of
/// `L` bits, every value drawn from one ChaCha20 seeded with `seed` in the
/// reference's order, as its appendix vectors: the issuer's key, the
/// pre-issuance and request, the issuance of `c` credits under `ctx`, the
/// credential, a spend of `s`, the refund of `t` and the next credential,
/// each written in its CBOR encoding one after the other.
fn act_run<const L: usize>(
    [seed, domain_separator, ctx]: [&[u8]; 3],
    [c, s, t]: [u64; 3],
    outs: &mut [&mut [u8]; 1],
) -> Result<usize, Fail> {
    use pat::crypto::act::{Params, PreIssuance, PrivateKey};
    let mut rng = athm_rng(seed)?;
    let ctx = exact::<32>(ctx, Field::Message)?;
    let params = Params::from_domain_separator(domain_separator);
    let [out] = outs;
    let mut w = pat::wire::codec::Writer::new(out);
    let sk = apart(|| PrivateKey::generate(&mut rng))?;
    w.put(&sk.to_cbor()[..])?;
    w.put(&sk.public_key().to_cbor())?;
    let pre = apart(|| PreIssuance::random(&mut rng))?;
    w.put(&pre.to_cbor()[..])?;
    let request = apart(|| pre.request(&params, &mut rng))?;
    w.put(&request.to_cbor())?;
    let response = apart(|| sk.issue::<L, _>(&params, &request, u128::from(c), ctx, &mut rng))?;
    w.put(&response.to_cbor())?;
    let credential = apart(|| pre.to_credit_token::<L>(&params, sk.public_key(), &request, &response))?;
    w.put(&credential.to_cbor()[..])?;
    let (proof, pre_refund) = apart(|| credential.prove_spend::<L, _>(&params, u128::from(s), &mut rng))?;
    let mut encoded = [0u8; pat::crypto::act::SPEND_PROOF_MAX_LEN];
    let n = proof.encode(&mut encoded)?;
    w.put(encoded.get(..n).ok_or(Error::BufferTooSmall)?)?;
    w.put(&pre_refund.to_cbor()[..])?;
    let refund = apart(|| sk.refund::<L, _>(&params, &proof, u128::from(t), &mut rng))?;
    w.put(&refund.to_cbor())?;
    let next = apart(|| pre_refund.to_credit_token::<L>(&params, &proof, &refund, sk.public_key()))?;
    w.put(&next.to_cbor()[..])?;
    Ok(w.finish())
}

/// HAZMAT, known-answer tests only: one run of ACT's crypto protocol
/// (draft-schlesinger-cfrg-act-01) from a ChaCha20 seeded with `seed` (32
/// bytes), as its appendix vectors are made, for balances of `bits` bits (8,
/// 16, 32, 64 or 128) in the deployment of `domain_separator`: key
/// generation, a credential of `c` credits under the request context `ctx`
/// (32 bytes, a canonical scalar), a spend of `s` and a refund of `t`.
/// Writes, each in its CBOR encoding, the private key, the public key, the
/// pre-issuance, the issuance request and response, the credential, the
/// spend proof, the pre-refund, the refund and the next credential, one
/// after the other into `out`; returns their total length.
///
/// # Safety
/// Every pointer points to its length's (or capacity's) readable (inputs)
/// or writable (output) bytes for the whole call; NULL only with length 0.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_act_run_with(
    seed: *const u8,
    seed_len: usize,
    domain_separator: *const u8,
    domain_separator_len: usize,
    bits: usize,
    ctx: *const u8,
    ctx_len: usize,
    c: u64,
    s: u64,
    t: u64,
    out: *mut u8,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [(seed, seed_len), (domain_separator, domain_separator_len), (ctx, ctx_len)],
            [Out::wiped(out, out_cap)],
            |ins, outs| crate::act::with_bits!(bits, act_run(ins, [c, s, t], outs)),
        )
    }
}

/// The outputs of [`pat_arc_run_with`] before the presentations:
/// secret key ‖ public key ‖ request state ‖ CredentialRequest (the
/// crypto-level 226 bytes) ‖ CredentialResponse ‖ credential.
const ARC_RUN_FIXED_LEN: usize = pat::crypto::arc::ServerPrivateKey::LEN
    + pat::crypto::arc::ServerPublicKey::LEN
    + pat::crypto::arc::CredentialRequestState::STATE_LEN
    + pat::crypto::arc::messages::REQUEST_LEN
    + pat::crypto::arc::messages::RESPONSE_LEN
    + pat::crypto::arc::Credential::LEN;

/// One run of ARC's protocol from the draft's test generator (seeded with
/// `seed`), for its published vectors: key generation, a credential request
/// for `request_context`, the response, finalize, then `count`
/// presentations for `presentation_context` under `limit`, all drawing from
/// one `TestDrng` in that order.
fn arc_run_with(
    [seed, request_context, presentation_context]: [&[u8]; 3],
    limit: u64,
    count: usize,
    outs: &mut [&mut [u8]; 1],
) -> Result<usize, Fail> {
    use pat::crypto::arc::PresentationState;
    use pat::crypto::arc::messages::presentation_len;
    use pat::hazmat::crypto::arc::{self as arc, TestDrng};

    let mut drng = TestDrng::new(exact::<32>(seed, Field::Message)?);
    let each = presentation_len(limit)?;
    let total = each.checked_mul(count).and_then(|n| n.checked_add(ARC_RUN_FIXED_LEN)).ok_or(Error::BufferTooSmall)?;
    let [out] = outs;
    let out = prefix(out, total)?;
    let key = apart(|| arc::server_keygen(&mut drng))?;
    let (state, request) = apart(|| arc::credential_request(&[request_context], &mut drng))?;
    let response = apart(|| arc::credential_response(&key, &request, &mut drng))?;
    let credential = apart(|| state.finalize(key.public_key(), &response))?;
    let mut rest: &mut [u8] = out;
    for part in [
        &key.to_bytes()[..],
        &key.public_key().to_bytes(),
        &state.export()[..],
        &request.to_bytes(),
        &response.to_bytes(),
        &credential.export()[..],
    ] {
        let (head, tail) = rest.split_at_mut(part.len());
        head.copy_from_slice(part);
        rest = tail;
    }
    let mut pstate = PresentationState::new(&credential, &[presentation_context], limit)?;
    for chunk in rest.chunks_exact_mut(each) {
        apart(|| arc::present(&mut pstate, &mut drng, chunk))?;
    }
    Ok(total)
}

/// ARC's known-answer run (draft-ietf-privacypass-arc-crypto-01 vectors):
/// key generation, a credential request for `request_context`, its response
/// and finalize, then `count` presentations for `presentation_context`
/// under `limit`, all from the draft's test generator seeded with `seed`
/// (32 bytes). Writes, one after the other: the secret key (128 bytes),
/// the public key (99), the request state (162), the CredentialRequest
/// without its type and key id (226), the CredentialResponse (454), the
/// credential (131) and the presentations (each as long as `limit` makes
/// it); returns the total length.
///
/// # Safety
/// As `pat_arc_request`.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn pat_arc_run_with(
    seed: *const u8,
    seed_len: usize,
    request_context: *const u8,
    request_context_len: usize,
    presentation_context: *const u8,
    presentation_context_len: usize,
    limit: u64,
    count: usize,
    out: *mut u8,
    out_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract for these buffers.
    unsafe {
        call(
            [
                (seed, seed_len),
                (request_context, request_context_len),
                (presentation_context, presentation_context_len),
            ],
            [Out::wiped(out, out_cap)],
            |ins, outs| arc_run_with(ins, limit, count, outs),
        )
    }
}

/// The generic batch's known-answer body: each entry's request made with
/// its slice of `randomness` (in entry order: nonce ‖ blind for 0x0001 and
/// 0x0005, nonce ‖ salt ‖ blind for 0x0002), which must be used up exactly.
fn generic_batch_request_with(
    entries: &[crate::batched::Entry<'_>],
    randomness: &[u8],
    outs: &mut [&mut [u8]; 2],
) -> Result<usize, Fail> {
    use crate::batched::ClientRef;

    fn take<'r>(rest: &mut &'r [u8], n: usize) -> Result<&'r [u8], Fail> {
        let (head, tail) = rest.split_at_checked(n).ok_or(Error::InvalidLength(Field::Message))?;
        *rest = tail;
        Ok(head)
    }
    fn private_entry<T: PrivateTokenType>(
        c: &private::Client<T>,
        challenge: &TokenChallenge<'_>,
        rest: &mut &[u8],
    ) -> Result<(private::TokenRequest<T>, RequestState<T>), Fail> {
        let nonce = take(rest, 32)?;
        let blind = take(rest, <<T::Suite as Suite>::ScalarBytes as ByteArray>::LEN)?;
        let (nonce, blind) = private_inputs::<T>(nonce, blind)?;
        Ok(pat::hazmat::tokens::private::request_with(c, challenge, nonce, &blind)?)
    }

    let mut rest = randomness;
    let made = crate::batched::make_batch(
        entries,
        &mut |_, client, challenge, batch| {
            match client {
                ClientRef::P384(c) => batch.push(c, private_entry(c, challenge, &mut rest)?)?,
                ClientRef::R255(c) => batch.push(c, private_entry(c, challenge, &mut rest)?)?,
                ClientRef::Rsa(c) => {
                    let (nonce, salt, blind) = (take(&mut rest, 32)?, take(&mut rest, 48)?, take(&mut rest, 256)?);
                    let (nonce, salt, blind) = public_inputs(nonce, salt, blind)?;
                    let made = apart(|| pat::hazmat::tokens::public::request_with(c, challenge, nonce, salt, blind))?;
                    batch.push(c, made)?;
                }
            }
            Ok(())
        },
        outs,
    )?;
    if !rest.is_empty() {
        return Err(Error::InvalidLength(Field::Message).into());
    }
    Ok(made)
}

/// HAZMAT, known-answer tests only: `pat_generic_batch_request` with each
/// entry's nonce, blind and salt taken from `randomness` instead of `rng`:
/// in entry order, `PAT_NONCE_LEN` bytes of nonce then `PAT_TYPE1_BLIND_LEN`
/// (0x0001) or `PAT_TYPE5_BLIND_LEN` (0x0005) bytes of blind, or for
/// 0x0002 the nonce, `PAT_TYPE2_SALT_LEN` bytes of salt and
/// `PAT_TYPE2_BLIND_LEN` bytes of blind. Randomness of another total length
/// is `-PAT_E_INVALID_LENGTH` (field message).
///
/// # Safety
/// As `pat_generic_batch_request`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_generic_batch_request_with(
    entries: *const crate::batched::pat_batch_entry,
    count: usize,
    randomness: *const u8,
    randomness_len: usize,
    request: *mut u8,
    request_cap: usize,
    state: *mut u8,
    state_cap: usize,
) -> i32 {
    // SAFETY: the caller's contract, forwarded.
    unsafe {
        crate::batched::call_entries(
            entries,
            count,
            [(randomness, randomness_len)],
            [Out::wiped(request, request_cap), Out::wiped(state, state_cap)],
            |list, [randomness], outs| generic_batch_request_with(list, randomness, outs),
        )
    }
}
