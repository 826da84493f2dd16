//! The client core of the blind-RSA families, written once: types 0x0002
//! ([`public`](super::public)), 0x0003 ([`rate_limited`](super::rate_limited))
//! and 0xDA7A ([`metadata`](super::metadata)).
//!
//! All three build the token input the same way (RFC 9578 §6.1: the
//! challenge's type checked, a fresh nonce, the challenge digest, the token
//! key id), keep the same request state (the token input, the blind inverse
//! and whether a token was finalized with it), store it the same way
//! (`token_input ‖ inv_mont`, [`crate::tokens::state`]) and finalize in the
//! same order: refuse a spent state, unblind and verify, build the token,
//! then spend. What differs (the key a 0xDA7A signature is checked under, the
//! HPKE response secret of type 0x0003) stays in each family's own client,
//! around this core.

use crate::crypto::blind_rsa::{BlindingState, MODULUS_LEN, PublicKey};
use crate::error::{Error, Result};
use crate::tokens::state;
use crate::wire::challenge::TokenChallenge;
use crate::wire::codec::{Reader, Writer};
use crate::wire::token::{Token, TokenInput};
use crate::wire::token_type::{KEY_ID_LEN, NONCE_LEN, TokenKind};

/// The token input of a request for `challenge`, which must be of `kind`
/// ([`Error::WrongTokenType`] otherwise).
pub(crate) fn token_input(
    kind: TokenKind,
    challenge: &TokenChallenge<'_>,
    nonce: &[u8; NONCE_LEN],
    key_id: &[u8; KEY_ID_LEN],
) -> Result<TokenInput> {
    if challenge.token_type() != kind.code() {
        return Err(Error::WrongTokenType { expected: kind.code(), found: challenge.token_type() });
    }
    Ok(TokenInput::new(kind, nonce, &challenge.digest(), key_id))
}

/// The request state every blind-RSA client keeps: the token input, the
/// blind inverse (secret; [`BlindingState`] wipes itself on drop) and the
/// spent flag.
pub(crate) struct RsaRequestState {
    input: TokenInput,
    blinding: BlindingState,
    spent: bool,
}

impl RsaRequestState {
    /// A fresh, unspent state.
    pub(crate) const fn new(input: TokenInput, blinding: BlindingState) -> Self {
        Self { input, blinding, spent: false }
    }

    pub(crate) const fn input(&self) -> &TokenInput {
        &self.input
    }

    pub(crate) const fn is_spent(&self) -> bool {
        self.spent
    }

    /// [`Error::StateSpent`] once a token was finalized with this state.
    pub(crate) const fn check_unspent(&self) -> Result<()> {
        if self.spent { Err(Error::StateSpent) } else { Ok(()) }
    }

    /// `token_input ‖ inv_mont`, the stored form's common part.
    pub(crate) fn write(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.input.as_bytes())?;
        self.blinding.write_stored(w.reserve(MODULUS_LEN)?);
        Ok(())
    }

    /// Reads what [`Self::write`] wrote: a token input of `kind` for `key`
    /// (its key id checked) and a blind inverse in [1, n).
    pub(crate) fn read(kind: TokenKind, key: &PublicKey, r: &mut Reader<'_>) -> Result<Self> {
        let input = state::read_input(r, kind, key.key_id())?;
        let blinding = BlindingState::from_stored(key, r.take(MODULUS_LEN)?)?;
        Ok(Self::new(input, blinding))
    }

    /// The token, from the signature `unblind` returns for the token input
    /// and the blinding state (it unblinds and verifies), without spending
    /// the state. A spent state is [`Error::StateSpent`], and `unblind` is
    /// then never called.
    pub(crate) fn token_unspent(
        &self,
        unblind: impl FnOnce(&[u8], &BlindingState) -> Result<[u8; MODULUS_LEN]>,
    ) -> Result<Token<MODULUS_LEN>> {
        self.check_unspent()?;
        let sig = unblind(self.input.as_bytes(), &self.blinding)?;
        Token::new(self.input, sig)
    }

    /// [`Self::token_unspent`], then [`Self::spend`] on success; a failure
    /// leaves the state as it was, ready for the genuine response.
    pub(crate) fn finalize(
        &mut self,
        unblind: impl FnOnce(&[u8], &BlindingState) -> Result<[u8; MODULUS_LEN]>,
    ) -> Result<Token<MODULUS_LEN>> {
        let token = self.token_unspent(unblind)?;
        self.spend();
        Ok(token)
    }

    /// Wipes the blind inverse and marks the state spent.
    pub(crate) fn spend(&mut self) {
        self.blinding.wipe();
        self.spent = true;
    }
}
