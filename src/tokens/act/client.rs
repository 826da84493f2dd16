//! The client of type 0xE5AD: the credential request, finalize, spends and
//! the tokens that refunds make.

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::{ActChallenge, Token, TokenRequest, TokenResponse};
use crate::crypto::act::{CreditToken, IssuanceRequest, Params, PreIssuance, PreRefund, PublicKey, Refund};
use crate::error::{Error, Field, Result};
use crate::tokens::truncated_key_id;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer key id: SHA-256 of the raw 32-byte public key (the encoded
/// ristretto255 element, not its CBOR byte string).
pub(crate) fn key_id_of(public_key: &PublicKey) -> [u8; KEY_ID_LEN] {
    Sha256::digest(public_key.to_bytes()).into()
}

/// The client of type 0xE5AD for one issuer key and bit length `L`.
#[derive(Clone, Debug)]
pub struct Client<const L: usize> {
    params: Params,
    public_key: PublicKey,
    key_id: [u8; KEY_ID_LEN],
}

/// The client's state between its request and the issuer's response: the
/// secrets of the request, the request, and the request context it expects.
pub struct RequestState {
    pre: PreIssuance,
    request: IssuanceRequest,
    context: [u8; 32],
}

impl core::fmt::Debug for RequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("RequestState")
    }
}

impl RequestState {
    /// Length of [`to_bytes`](Self::to_bytes).
    pub const LEN: usize = PreIssuance::CBOR_LEN + IssuanceRequest::LEN + 32;

    /// The request context ctx the response must carry.
    pub fn context(&self) -> [u8; 32] {
        self.context
    }

    /// The state as bytes: the CBOR `PreIssuance` ‖ the CBOR
    /// `IssuanceRequest` ‖ ctx; wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<[u8; Self::LEN]> {
        let mut out = Zeroizing::new([0u8; Self::LEN]);
        let (pre, rest) = out.split_at_mut(PreIssuance::CBOR_LEN);
        let (request, context) = rest.split_at_mut(IssuanceRequest::LEN);
        pre.copy_from_slice(&*self.pre.to_cbor());
        request.copy_from_slice(&self.request.to_cbor());
        context.copy_from_slice(&self.context);
        out
    }

    /// Decodes [`to_bytes`](Self::to_bytes): exactly [`Self::LEN`] bytes
    /// (`InvalidLength(State)` otherwise).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::LEN {
            return Err(Error::InvalidLength(Field::State));
        }
        let (pre, rest) = bytes.split_at(PreIssuance::CBOR_LEN);
        let (request, context) = rest.split_at(IssuanceRequest::LEN);
        let context: [u8; 32] = context.try_into().map_err(|_| Error::InvalidLength(Field::State))?;
        Ok(Self { pre: PreIssuance::from_cbor(pre)?, request: IssuanceRequest::from_cbor(request)?, context })
    }
}

impl<const L: usize> Client<L> {
    /// A client for the issuer key `token_key` (the raw 32-byte ristretto255
    /// public key) under the deployment's `params`.
    pub fn from_token_key(params: Params, token_key: &[u8]) -> Result<Self> {
        let public_key = PublicKey::from_bytes(token_key)?;
        Ok(Self { key_id: key_id_of(&public_key), public_key, params })
    }

    /// The issuer key id, SHA-256 of the token key.
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The credential request for `challenge` (privacypass-act-01 §6.1,
    /// `IssueRequest` of cfrg-act-01 §3.3.1).
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &ActChallenge<'_>,
        rng: &mut R,
    ) -> Result<(RequestState, TokenRequest)> {
        let pre = PreIssuance::random(rng)?;
        let request = pre.request(&self.params, rng)?;
        let context = challenge.request_context(&self.key_id);
        let token_request = TokenRequest { truncated_key_id: truncated_key_id(&self.key_id), request };
        Ok((RequestState { pre, request, context }, token_request))
    }

    /// Credential finalization (privacypass-act-01 §6.3, `VerifyIssuance`
    /// of cfrg-act-01 §3.3.3): [`Error::ChallengeMismatch`] if the response
    /// carries another request context than the challenge's,
    /// [`Error::Verification`] if its proof fails.
    pub fn finalize(&self, state: &RequestState, response: &TokenResponse) -> Result<CreditToken> {
        if response.response.context() != state.context {
            return Err(Error::ChallengeMismatch);
        }
        state.pre.to_credit_token::<L>(&self.params, &self.public_key, &state.request, &response.response)
    }

    /// A token spending `cost` credits of `credit_token` for `challenge`
    /// (privacypass-act-01 §7.1, `ProveSpend` of cfrg-act-01 §3.4.1), and the
    /// state that turns the issuer's refund into the next credit token.
    /// [`Error::ChallengeMismatch`] if the credit token was issued for
    /// another request context (issuer, origin, credential context or key);
    /// [`Error::ValueTooLarge`] if `cost` exceeds the balance. Spend each
    /// credit token once: a second spend shows the same nullifier.
    pub fn spend<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        credit_token: &CreditToken,
        challenge: &ActChallenge<'_>,
        cost: u128,
        rng: &mut R,
    ) -> Result<(Token<L>, PreRefund)> {
        let mut same = credit_token.context().ct_eq(&challenge.request_context(&self.key_id));
        crate::ct::declassify(&mut same); // the spend proof reveals ctx anyway
        if !bool::from(same) {
            return Err(Error::ChallengeMismatch);
        }
        let (proof, state) = credit_token.prove_spend::<L, R>(&self.params, cost, rng)?;
        Ok((Token { challenge_digest: challenge.digest(), issuer_key_id: self.key_id, proof }, state))
    }

    /// The next credit token from the issuer's `refund` of `token`
    /// (privacypass-act-01 §7.3, `ConstructRefundToken` of cfrg-act-01
    /// §3.4.4), worth the balance left after the spend plus the refund.
    /// [`Error::Verification`] if the refund's proof fails.
    pub fn refund(&self, state: &PreRefund, token: &Token<L>, refund: &Refund) -> Result<CreditToken> {
        state.to_credit_token::<L>(&self.params, &token.proof, refund, &self.public_key)
    }
}
