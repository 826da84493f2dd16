//! The issuer of type 0xE5AD, which is also the origin: credential
//! responses, and spends checked and refunded.

use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;

use super::client::key_id_of;
use super::{ActChallenge, Token, TokenRequest, TokenResponse};
use crate::crypto::act::{Params, PrivateKey, Refund};
use crate::error::{Error, Field, Result};
use crate::tokens::truncated_key_id;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer and origin of type 0xE5AD (one party: ACT is privately
/// verifiable) for one key and bit length `L`.
#[derive(Debug)]
pub struct Issuer<const L: usize> {
    params: Params,
    key: PrivateKey,
    key_id: [u8; KEY_ID_LEN],
}

/// The key inside wipes itself on drop.
impl<const L: usize> zeroize::ZeroizeOnDrop for Issuer<L> {}

/// A spend that verified: its nullifier, and the refund to release once the
/// nullifier is recorded as spent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verified {
    /// The spend proof's nullifier, which the caller must refuse to see
    /// twice.
    pub nullifier: [u8; 32],
    /// The refund to send the client, only after the nullifier was recorded.
    pub refund: Refund,
}

impl<const L: usize> Issuer<L> {
    /// An issuer with `key` under the deployment's `params`.
    pub fn new(params: Params, key: PrivateKey) -> Self {
        let key_id = key_id_of(key.public_key());
        Self { params, key, key_id }
    }

    /// The token key to publish: the raw 32-byte public key.
    pub fn token_key(&self) -> [u8; 32] {
        self.key.public_key().to_bytes()
    }

    /// The issuer key id, SHA-256 of [`token_key`](Self::token_key).
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The deployment's parameters.
    pub fn params(&self) -> &Params {
        &self.params
    }

    /// The secret key.
    pub fn secret_key(&self) -> &PrivateKey {
        &self.key
    }

    /// The credential response (privacypass-act-01 §6.2, `IssueResponse` of
    /// cfrg-act-01 §3.3.2) granting `credits` (0 < credits < 2^L) under the
    /// request context of `challenge` and this key.
    /// [`Error::KeyIdMismatch`] for a request for another key,
    /// [`Error::Verification`] if its proof fails.
    pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest,
        credits: u128,
        challenge: &ActChallenge<'_>,
        rng: &mut R,
    ) -> Result<TokenResponse> {
        if request.truncated_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        let ctx = challenge.request_context(&self.key_id);
        let response = self.key.issue::<L, R>(&self.params, &request.request, credits, &ctx, rng)?;
        Ok(TokenResponse { response })
    }

    /// Token verification with its refund (privacypass-act-01 §7.2,
    /// `VerifyAndRefund` of cfrg-act-01 §3.4.2–3.4.3) for `challenge`, at
    /// `cost`, returning `refund_amount` (≤ cost) of the credits spent.
    ///
    /// Checks, in this order: the challenge digest
    /// ([`Error::ChallengeMismatch`]), the key id
    /// ([`Error::KeyIdMismatch`]), the revealed charge against `cost`
    /// (`InvalidValue(Token)`), the revealed request context against the
    /// challenge's ([`Error::ChallengeMismatch`]), then the spend proof
    /// ([`Error::Verification`]). The crypto layer verifies the proof in the
    /// step that signs the refund, so the refund comes with the nullifier:
    /// the caller must refuse a nullifier it has seen and record it before
    /// it releases the refund (`redeem`, from the deployment layer, does
    /// both).
    pub fn verify<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        token: &Token<L>,
        challenge: &ActChallenge<'_>,
        cost: u128,
        refund_amount: u128,
        rng: &mut R,
    ) -> Result<Verified> {
        if !bool::from(token.challenge_digest.ct_eq(&challenge.digest())) {
            return Err(Error::ChallengeMismatch);
        }
        if !bool::from(token.issuer_key_id.ct_eq(&self.key_id)) {
            return Err(Error::KeyIdMismatch);
        }
        if token.proof.charge()? != cost {
            return Err(Error::InvalidValue(Field::Token));
        }
        if token.proof.context() != challenge.request_context(&self.key_id) {
            return Err(Error::ChallengeMismatch);
        }
        let refund = self.key.refund::<L, R>(&self.params, &token.proof, refund_amount, rng)?;
        Ok(Verified { nullifier: token.nullifier(), refund })
    }
}
