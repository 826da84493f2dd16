//! The token families (RFC 9578 and drafts), one module per family, built on
//! the primitives of [`crate::crypto`] and the encodings of [`crate::wire`].
//!
//! Every family has the same shape: a `Client` that turns a
//! [`TokenChallenge`](crate::TokenChallenge) into a request and keeps a
//! secret state, an `Issuer` that evaluates the request, the client's
//! `finalize` that turns the response into a `Token`, and an `Origin` that
//! verifies that token. Where one party plays two roles, the second name is
//! an alias of the first.
//!
//! | family | token types | `Client` | `Issuer` | `Origin` | `Attester` | `Token` |
//! |---|---|---|---|---|---|---|
//! | [`private`] | 0x0001, 0x0005 | `Client<T>` | `Issuer<T>` | = `Issuer<T>` | – | `Token<T>` |
//! | [`public`] | 0x0002 | `Client` | `Issuer` | `Origin` | – | `Token` |
//! | [`metadata`] | 0xDA7A | `Client` | `Issuer` | `Origin` | – | `Token` |
//! | [`poprf`] | 0xDA7B | `Client` | `Issuer` | = `Issuer` | – | `Token` |
//! | [`rate_limited`] | 0x0003 | `Client` | `Issuer<K>` | `Origin` | `Attester<N>` | `Token` |
//! | [`amortized`] | batches of 0x0001, 0x0005 | = `private::Client<T>` | = `private::Issuer<T>` | = `private::Issuer<T>` | – | = `private::Token<T>` |
//! | [`batched`] | generic batches of 0x0001, 0x0002, 0x0005 | `Client` (= `BatchClients`) | `Issuer<'k>` | each family's | – | `Token` (= `GenericToken`) |
//! | [`arc`] | 0xE5AC | `Client` | `Issuer` | = `Issuer` | – | `Token<'a>` (= `ArcToken`) |
//!
//! The steps have the same names everywhere: `request` (or `request_batch`),
//! `evaluate` (or `issue` for ARC's credential), `finalize`, `verify`, and
//! `redeem` where verification and the replay check go together. [`state`]
//! turns any client state into bytes and back.

use rand_core::TryCryptoRng;

use crate::error::{Error, Result};
use crate::wire::token_type::NONCE_LEN;

pub mod act;
pub mod amortized;
pub mod arc;
pub mod athm;
pub mod batched;
mod blind_rsa_client;
pub mod metadata;
pub mod poprf;
pub mod private;
pub mod public;
pub mod rate_limited;
pub mod state;

/// A fresh 32-byte token nonce (RFC 9577 §2.2).
///
/// Every request draws its nonce first, so this is where a generator stuck
/// at zero (a TRNG driver returning an unfilled buffer, a `crypto` binding
/// that did nothing) is caught: 32 zero bytes are [`Error::Rng`] with
/// [`RngCode::EXHAUSTED`] (an honest generator gives them with probability
/// 2^-256). Without this check such a generator would not always fail
/// later: the P-384 blind, reduced into [1, n − 1], would come out as 1,
/// and the issuer would see the token input unblinded. The nonce stays
/// secret until redemption, so it is compared in constant time and only the
/// verdict is public.
///
/// [`RngCode::EXHAUSTED`]: crate::RngCode::EXHAUSTED
pub(crate) fn random_nonce<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<[u8; NONCE_LEN]> {
    use subtle::ConstantTimeEq as _;
    let mut nonce = [0u8; NONCE_LEN];
    crate::rng::fill(rng, &mut nonce)?;
    let mut stuck = nonce.ct_eq(&[0u8; NONCE_LEN]);
    crate::ct::declassify(&mut stuck); // verdict only: an all-zero draw is an error
    if bool::from(stuck) {
        return Err(Error::Rng(crate::RngCode::EXHAUSTED));
    }
    Ok(nonce)
}

/// The truncated token key id: the last byte of the key id (RFC 9578 §5.1, §6.1).
pub(crate) fn truncated_key_id(key_id: &[u8; 32]) -> u8 {
    key_id.last().copied().unwrap_or_default()
}

/// Drops `v`'s elements, then zeroes its whole storage. A move copies a
/// value's unused bytes along with it (spare capacity, the tail of a smaller
/// enum variant), and with them whatever stale stack bytes, secrets included,
/// were there; the elements' own destructors never see those bytes.
pub(crate) fn wipe_vec<T, const N: usize>(v: &mut heapless::Vec<T, N>) {
    use zeroize::Zeroize as _;
    v.clear();
    v.spare_capacity_mut().zeroize();
}

/// Reads a request's 2-byte token type and checks it is `expected`.
pub(crate) fn expect_type(r: &mut crate::wire::codec::Reader<'_>, expected: u16) -> Result<()> {
    let found = r.u16()?;
    if found != expected {
        return Err(Error::WrongTokenType { expected, found });
    }
    Ok(())
}
