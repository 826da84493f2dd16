//! Client states as bytes: a client can keep a pending request across a
//! sleep or a reset, and finalize it with the issuer's response afterwards.
//!
//! Every client state (the `RequestState` of types 0x0001, 0x0002, 0x0005,
//! 0xDA7A and 0xDA7B, the type 0x0003 `ClientState`, the amortized and the generic
//! `BatchState`) has an `export` that returns a fixed-size encoding in an
//! [`ExportedState`], and an `import` that takes the bytes and the client
//! (or clients) the state was made with. The ATHM (0xC07E) `RequestState`
//! uses the same format (its `export` returns the bytes in a `Zeroizing`
//! array, and its `import` needs no client: its finalize checks the key
//! id). The encoding is this crate's own; no specification defines one.
//!
//! ```text
//! state      = version (0x01) ‖ shape ‖ body
//! shape      = 0x01 one token | 0x02 amortized batch | 0x03 generic batch
//!              | 0x04 ATHM
//!
//! one token  = token_input[98] ‖ secrets                              length in all
//!   0x0001   secrets = blind[48] ‖ blinded_element[49]                197
//!   0x0002   secrets = inv_mont[256]                                  356
//!   0x0003   secrets = inv_mont[256] ‖ enc[32] ‖ secret[16]
//!                      ‖ request_blind[48] ‖ encoding[1]              453
//!   0x0005   secrets = blind[32] ‖ blinded_element[32]                164
//!   0xDA7A   secrets = inv_mont[256] ‖ extensions_digest[32]          388
//!   0xDA7B   secrets = blind[48] ‖ blinded_element[49]
//!                      ‖ extensions_digest[32]                        229
//!
//! amortized  = token_type[2] ‖ token_key_id[32] ‖ count[2] ‖ entry × N
//!   entry    = nonce[32] ‖ challenge_digest[32] ‖ blind ‖ blinded_element
//!                                          (161 or 128 bytes; unused: zeros)
//! athm       = token_type[2] (0xC07E) ‖ r[32] ‖ tc[32] ‖ T[33]
//!              ‖ token_key_id[32]                                     133 in all
//! generic    = count[2] ‖ slot × N
//!   slot     = token_input[98] ‖ secrets ‖ (0x0002 only: blinded_msg[256])
//!              ‖ zeros                                   (610 bytes each)
//! ```
//!
//! `token_input` (RFC 9577 §2.2) starts with the token type and ends with
//! the token key id, so every state is bound to both. `blind` is
//! `SerializeScalar(blind)` (RFC 9497 §2.1) and `blinded_element` its
//! `SerializeElement`. `inv_mont` is the RSA blind inverse r⁻¹ of RFC 9474
//! §4.2 times 2²⁰⁴⁸ modulo n, big-endian: the Montgomery form the client
//! keeps in memory, so that export needs no key. `enc` and `secret` are the
//! HPKE values the type 0x0003 response is decrypted with, and `encoding`
//! is the request blind's [`BlindKeyEncoding`] (0 minimal, 1 fixed).
//! `extensions_digest` is the SHA-256 of the 0xDA7A or 0xDA7B request's `Extensions`
//! encoding: the extensions stay with the caller, and finalize checks it
//! gets the same ones. A
//! generic batch keeps each type 0x0002 entry's blinded message, since its
//! request cannot be rebuilt from the state; an amortized batch shares the
//! type and key id of its tokens, so its entries do not repeat them.
//!
//! Import is strict. It checks the length first
//! ([`Error::InvalidLength`]`(`[`Field::State`]`)`), then the version
//! ([`Error::UnknownStateVersion`]), then everything else as it reads it:
//! the shape byte, the counts and the zero padding
//! ([`Error::InvalidValue`]`(`[`Field::State`]`)`), the token type
//! ([`Error::WrongTokenType`]; in a generic batch, a type it does not carry
//! is [`Error::UnknownTokenType`]), the token key id against the client's
//! ([`Error::KeyIdMismatch`]), and the secrets as the request made them: a
//! VOPRF blind is a canonical non-zero scalar ([`Error::InvalidScalar`]), a
//! blinded element a canonical non-identity element
//! ([`Error::InvalidElement`]), an RSA blind inverse lies in [1, n)
//! ([`Error::InvalidValue`]`(`[`Field::BlindInverse`]`)`). An inverse in
//! that range that is not a unit mod n cannot come from a request; it is not
//! checked (that would take an inversion), and finalize then fails with
//! [`Error::Verification`].
//!
//! # Protecting the bytes
//!
//! The encoding holds the blind: whoever reads it can link the token to its
//! request, and whoever holds it with the response can finalize the token.
//! Treat it as a secret key. Store it encrypted and authenticated under a
//! device key (AES-GCM with a key kept in a secure element, for example),
//! never log it, and delete it once the state is finalized. A spent state
//! cannot be exported ([`Error::StateSpent`]), but a stored copy imports as
//! a fresh state and can finalize again: delete every stored copy after use.
//! An import checks the structure, not the origin of the bytes: a state
//! edited by someone else may still import, so authenticate what you store.
//!
//! # Example
//!
//! A type 0x0005 client exports its state before it sleeps and finalizes
//! after the reset with a client rebuilt from the token key:
//!
//! ```
//! use pat::wire::token_type::PrivateRistretto255 as R255;
//! use pat::tokens::private::{Client, Issuer, RequestState};
//! use pat::{OsRng, TokenChallenge};
//!
//! # fn main() -> pat::Result<()> {
//! let mut rng = pat::rand_core::UnwrapErr(OsRng);
//! let issuer = Issuer::<R255>::generate(&mut rng)?;
//! let token_key = *issuer.token_key(); // what the device keeps of the issuer
//! let challenge = TokenChallenge::new(0x0005, b"issuer.example", &[], b"origin.example")?;
//!
//! let client = Client::<R255>::from_token_key(&token_key)?;
//! let (request, state) = client.request(&challenge, &mut rng)?;
//! let exported = state.export()?;
//! // Encrypt and authenticate `exported.as_bytes()` under a device key and
//! // write it to flash; here it only stays in RAM.
//! let mut flash = [0u8; RequestState::<R255>::STATE_LEN];
//! flash.copy_from_slice(exported.as_bytes());
//! drop((exported, state, client)); // the reset
//!
//! let response = issuer.evaluate(&request, &mut rng)?;
//! let client = Client::<R255>::from_token_key(&token_key)?;
//! let mut state = RequestState::import(&client, &flash)?;
//! let token = client.finalize(&mut state, &response)?;
//! flash.fill(0); // delete the stored copy: it could finalize again
//! issuer.verify(&token, &challenge)?;
//! # Ok(())
//! # }
//! ```
//!
//! A batch's `export` takes its length as a const argument, checked when
//! the call is compiled:
//!
//! ```compile_fail
//! use pat::wire::token_type::PrivateP384;
//! use pat::tokens::amortized::BatchState;
//!
//! fn store(state: Option<&BatchState<PrivateP384, 4>>) {
//!     if let Some(state) = state {
//!         let _ = state.export::<100>(); // not BatchState::<PrivateP384, 4>::STATE_LEN
//!     }
//! }
//! store(None);
//! ```
//!
//! [`BlindKeyEncoding`]: crate::crypto::key_blinding::ecdsa_p384::BlindKeyEncoding

use core::fmt;

use subtle::{Choice, ConstantTimeEq};
use zeroize::ZeroizeOnDrop;

use crate::crypto::voprf::ByteArray;
use crate::error::{Error, Field, Result};
use crate::wire::codec::{Reader, Writer};
use crate::wire::token::TokenInput;
use crate::wire::token_type::{KEY_ID_LEN, TOKEN_INPUT_LEN, TokenKind};

/// The format version this crate writes and reads, the first byte of every
/// exported state.
pub const VERSION: u8 = 1;

/// Version and shape: the first two bytes of every exported state.
pub(crate) const HEADER_LEN: usize = 2;

/// What an exported state holds, its second byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(crate) enum Shape {
    /// One token's request state.
    One = 1,
    /// An amortized batch.
    Amortized = 2,
    /// A generic batch.
    Generic = 3,
    /// One ATHM (type 0xC07E) request's state.
    Athm = 4,
}

/// An exported client state: the fixed-size encoding `A` (a `[u8; LEN]`),
/// which holds the request's secrets.
///
/// Not `Copy` or `Clone`, zeroized on drop; `Debug` prints only the type
/// name; equality is [`ConstantTimeEq`]. See the [module docs](self) for the
/// layout and for how to store it.
pub struct ExportedState<A: ByteArray> {
    bytes: A,
}

impl<A: ByteArray> ExportedState<A> {
    /// The length of the encoding in bytes.
    pub const LEN: usize = A::LEN;

    /// The encoding, to store (encrypted) or to pass to the matching `import`.
    pub const fn as_bytes(&self) -> &A {
        &self.bytes
    }
}

impl<A: ByteArray> Drop for ExportedState<A> {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl<A: ByteArray> ZeroizeOnDrop for ExportedState<A> {}

impl<A: ByteArray> ConstantTimeEq for ExportedState<A> {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.bytes.as_ref().ct_eq(other.bytes.as_ref())
    }
}

impl<A: ByteArray> fmt::Debug for ExportedState<A> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("ExportedState")
    }
}

/// Writes the header and `body` into a fresh encoding, which must come out
/// exactly `A::LEN` bytes long. On error the partial encoding is wiped.
pub(crate) fn export<A: ByteArray>(
    shape: Shape,
    body: impl FnOnce(&mut Writer<'_>) -> Result<()>,
) -> Result<ExportedState<A>> {
    let mut out = ExportedState { bytes: A::ZERO };
    let mut w = Writer::new(out.bytes.as_mut());
    w.u8(VERSION)?;
    w.u8(shape as u8)?;
    body(&mut w)?;
    if w.finish() != A::LEN {
        return Err(Error::InvalidLength(Field::State));
    }
    Ok(out)
}

/// Checks the length and the header of `bytes`, then reads the body with
/// `body`, which must read every byte.
pub(crate) fn import<T>(
    bytes: &[u8],
    len: usize,
    shape: Shape,
    body: impl FnOnce(&mut Reader<'_>) -> Result<T>,
) -> Result<T> {
    if bytes.len() != len {
        return Err(Error::InvalidLength(Field::State));
    }
    let mut r = Reader::new(bytes);
    let version = r.u8()?;
    if version != VERSION {
        return Err(Error::UnknownStateVersion(version));
    }
    if r.u8()? != shape as u8 {
        return Err(Error::InvalidValue(Field::State));
    }
    let value = body(&mut r)?;
    r.finish()?;
    Ok(value)
}

/// Checks a token type code against the one expected.
pub(crate) fn check_type(expected: TokenKind, found: u16) -> Result<()> {
    if found == expected.code() { Ok(()) } else { Err(Error::WrongTokenType { expected: expected.code(), found }) }
}

/// Reads a token input of type `kind` for the key `key_id`.
pub(crate) fn read_input(r: &mut Reader<'_>, kind: TokenKind, key_id: &[u8; KEY_ID_LEN]) -> Result<TokenInput> {
    let bytes = r.array::<TOKEN_INPUT_LEN>()?;
    let (code, _) = bytes.split_first_chunk::<2>().ok_or(Error::Truncated)?;
    check_type(kind, u16::from_be_bytes(*code))?;
    let input = TokenInput::from_bytes(bytes)?;
    if input.token_key_id() != key_id {
        return Err(Error::KeyIdMismatch);
    }
    Ok(input)
}

/// Reads `n` bytes that must all be zero (unused entries).
pub(crate) fn read_zeros(r: &mut Reader<'_>, n: usize) -> Result<()> {
    zeros(r.take(n)?)
}

/// Checks that `bytes` (padding, unused entries) are all zero.
pub(crate) fn zeros(bytes: &[u8]) -> Result<()> {
    if bytes.iter().all(|&b| b == 0) { Ok(()) } else { Err(Error::InvalidValue(Field::State)) }
}
