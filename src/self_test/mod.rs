//! Power-on self-test: known-answer tests of the client code, without the
//! `hazmat` feature.
//!
//! A device that must check its cryptography before it uses it (the
//! power-on self-tests of FIPS 140-3, a known-answer test per algorithm)
//! calls the function of each token type it uses, once at boot:
//!
//! ```
//! # fn main() -> pat::Result<()> {
//! pat::self_test::type5()?;
//! # Ok(())
//! # }
//! ```
//!
//! Each function runs case 3 of one of pat-go's issuance vector files
//! (`tests/vectors/pat-go/tokens/`) through the client code a real request
//! runs: the client parses the issuer's token key, builds the request from
//! the case's nonce and blind, and finalizes the case's issuer response. The
//! request and the token must equal the case's, byte for byte.
//!
//! - [`type5`], type 0x0005, VOPRF(ristretto255, SHA-512): hash to the group,
//!   blinding, the issuer's DLEQ proof (RFC 9497 §2.2), unblinding and the
//!   PRF output.
//! - [`type1`], type 0x0001, VOPRF(P-384, SHA-384): the same steps on P-384.
//! - [`type2`], type 0x0002, blind RSA-2048 (RFC 9474): the PSS encoding,
//!   blinding (rᵉ and the variable-time inversion every real request uses),
//!   unblinding, the signature check, and the token's verification as an
//!   origin does it (RFC 9578 §6.4).
//! - [`all`] runs the three.
//!
//! # Errors
//!
//! A failure is [`Error::SelfTest`], whose [`SelfTestKind`] names the token
//! type and the half that failed: the request (key parsing, hashing and
//! blinding) or the token (response parsing, proof or signature, unblinding).
//! Errors on the way (a key that no longer parses, a proof that no longer
//! verifies) map to the same kind, since every input is a constant: any
//! failure means that the code, or the flash it runs from, is broken. The
//! inputs are public, so the failure can name its step; the opaque
//! [`Error::Verification`] is kept for inputs an attacker chooses.
//!
//! # What it does not cover
//!
//! - Randomness: the self-test uses fixed blinds and nonces and draws
//!   nothing. The health tests of a hardware generator are its driver's job.
//! - The issuer's evaluation and signing, and the issuer's verification of
//!   private tokens: a device holding a client has no issuer key.
//! - Type 0x0003 and the batched types, whose client code is the type-0x0002
//!   and VOPRF code tested here plus their own wire formats and HPKE.
//!
//! # Cost
//!
//! Each self-test is one key parsing, one request and one finalize (for type
//! 0x0002 also one more key parsing and one verification), so its time and
//! stack are those of the client operations in the tables of
//! `docs/embedded.md` (type 0x0001, P-384 without tables, costs by far the
//! most).
//!
//! # Flash
//!
//! Each function and its known answer are items of their own: the data are
//! `const` items (no `static`, nothing registered in a table), so the linker
//! keeps only the self-tests a firmware calls. The functions are `#[inline]`
//! (or generic), so the library's own object code holds none of them: they
//! are compiled only into a firmware that calls them, and cannot change how
//! the client code is optimized in one that does not. A self-test shares its
//! arithmetic with the client of its type; what it adds is its constants and
//! the code that compares (see `docs/embedded.md`, "Power-on self-test").
//!
//! # Why not `hazmat`
//!
//! The deterministic entry points the self-test needs stay inside the crate
//! without the `hazmat` feature. This module runs them on its own constants
//! only, so a firmware cannot reach a fixed blind through it.

use crate::crypto::blind_rsa::PublicKey;
use crate::crypto::voprf::{ByteArray, Suite};
use crate::error::{Error, Result};
use crate::tokens::private::{self, PrivateTokenType};
use crate::tokens::public;
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Decode, Encode};
use crate::wire::token_type::{PrivateP384, PrivateRistretto255, PublicRsa2048, TokenType};

pub use crate::error::SelfTestKind;

mod known_answers;
#[cfg(test)]
mod tests;

use known_answers::{PrivateAnswer, PublicAnswer};

/// The known-answer test of type 0x0001, VOPRF(P-384, SHA-384): case 3 of
/// pat-go's `private/type1-issuance-test-vectors.json`. A failure is
/// [`Error::SelfTest`] with [`SelfTestKind::PrivateP384Request`] or
/// [`SelfTestKind::PrivateP384Token`].
#[inline]
pub fn type1() -> Result<()> {
    check_private::<PrivateP384>(
        &known_answers::TYPE1,
        SelfTestKind::PrivateP384Request,
        SelfTestKind::PrivateP384Token,
    )
}

/// The known-answer test of type 0x0002, blind RSA-2048: case 3 of pat-go's
/// `type2/type2-issuance-test-vectors.json`. A failure is
/// [`Error::SelfTest`] with [`SelfTestKind::PublicRsa2048Request`] or
/// [`SelfTestKind::PublicRsa2048Token`].
#[inline]
pub fn type2() -> Result<()> {
    check_public(&known_answers::TYPE2)
}

/// The known-answer test of type 0x0005, VOPRF(ristretto255, SHA-512): case
/// 3 of pat-go's `private/type5-issuance-test-vectors.json`. A failure is
/// [`Error::SelfTest`] with [`SelfTestKind::PrivateRistretto255Request`] or
/// [`SelfTestKind::PrivateRistretto255Token`].
#[inline]
pub fn type5() -> Result<()> {
    check_private::<PrivateRistretto255>(
        &known_answers::TYPE5,
        SelfTestKind::PrivateRistretto255Request,
        SelfTestKind::PrivateRistretto255Token,
    )
}

/// [`type1`], [`type2`] and [`type5`], in that order; the first failure is
/// returned. It links the code of all three types: a firmware with fewer
/// calls only the functions of its own.
#[inline]
pub fn all() -> Result<()> {
    type1()?;
    type2()?;
    type5()
}

/// The longest encoding compared: a type-0x0002 token (354 bytes).
const MAX_ENCODING: usize = PublicRsa2048::TOKEN_LEN;

/// Whether `msg` encodes to exactly `expected`.
fn encodes_to(msg: &impl Encode, expected: &[u8]) -> bool {
    let mut buf = [0u8; MAX_ENCODING];
    matches!(msg.encode(&mut buf), Ok(len) if buf.get(..len) == Some(expected))
}

/// Runs a privately verifiable type's client on `answer`: the request half
/// fails as `request`, the token half as `token`.
fn check_private<T: PrivateTokenType>(
    answer: &PrivateAnswer<'_>,
    request: SelfTestKind,
    token: SelfTestKind,
) -> Result<()> {
    let failed = Error::SelfTest(request);
    let client = private::Client::<T>::from_token_key(answer.token_key).map_err(|_| failed)?;
    let challenge = TokenChallenge::decode(answer.challenge).map_err(|_| failed)?;
    let blind = <T::Suite as Suite>::ScalarBytes::from_slice(answer.blind).ok_or(failed)?;
    let (sent, mut state) =
        private::deterministic::request_with(&client, &challenge, answer.nonce, &blind).map_err(|_| failed)?;
    if !encodes_to(&sent, answer.request) {
        return Err(failed);
    }

    let failed = Error::SelfTest(token);
    let response = private::TokenResponse::<T>::decode(answer.response).map_err(|_| failed)?;
    let finished = client.finalize(&mut state, &response).map_err(|_| failed)?;
    if !encodes_to(&finished, answer.token) {
        return Err(failed);
    }
    Ok(())
}

/// Runs the type-0x0002 client on `answer`, then verifies the token as an
/// origin does.
#[inline]
fn check_public(answer: &PublicAnswer<'_>) -> Result<()> {
    let failed = Error::SelfTest(SelfTestKind::PublicRsa2048Request);
    let client = public::Client::from_token_key(answer.token_key).map_err(|_| failed)?;
    let challenge = TokenChallenge::decode(answer.challenge).map_err(|_| failed)?;
    let (sent, mut state) =
        public::deterministic::request_with_vartime(&client, &challenge, answer.nonce, answer.salt, answer.blind)
            .map_err(|_| failed)?;
    if !encodes_to(&sent, answer.request) {
        return Err(failed);
    }

    let failed = Error::SelfTest(SelfTestKind::PublicRsa2048Token);
    let response = public::TokenResponse::decode(answer.response).map_err(|_| failed)?;
    let finished = client.finalize(&mut state, &response).map_err(|_| failed)?;
    if !encodes_to(&finished, answer.token) {
        return Err(failed);
    }
    // Finalize checked the signature; the origin also checks the token's
    // type, challenge digest and key id (RFC 9578 §6.4). Parsing the key
    // again keeps a second copy of it off the stack during the request.
    let key = PublicKey::from_spki(answer.token_key).map_err(|_| failed)?;
    public::Origin::new(key).verify(&finished, &challenge).map_err(|_| failed)
}
