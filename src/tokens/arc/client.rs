//! The client of type 0xE5AC: credential request, finalize, presentation states
//! and tokens.

use rand_core::TryCryptoRng;

use super::{ArcChallenge, TOKEN_HEADER_LEN, TOKEN_TYPE, TokenRequest, token_len};
use crate::crypto::arc::{Credential, CredentialRequestState, CredentialResponse, PresentationState, ServerPublicKey};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::codec::Writer;
use crate::wire::token_type::KEY_ID_LEN;

/// The client of type 0xE5AC, for one issuer key.
#[derive(Clone, Debug)]
pub struct Client {
    public_key: ServerPublicKey,
    key_id: [u8; KEY_ID_LEN],
}

impl Client {
    /// A client for the issuer key `token_key` (the 99-byte ServerPublicKey).
    pub fn from_token_key(token_key: &[u8]) -> Result<Self> {
        let public_key = ServerPublicKey::decode(token_key)?;
        Ok(Self { key_id: public_key.key_id(), public_key })
    }

    /// The issuer key id.
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The credential request for `challenge` (arc-protocol-01 §7.1).
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        challenge: &ArcChallenge<'_>,
        rng: &mut R,
    ) -> Result<(CredentialRequestState, TokenRequest)> {
        let ctx = challenge.request_context(&self.key_id);
        let (state, request) = CredentialRequestState::new(&ctx.parts(), rng)?;
        Ok((state, TokenRequest { truncated_key_id: truncated_key_id(&self.key_id), request }))
    }

    /// Credential finalization (arc-protocol-01 §7.3).
    pub fn finalize(&self, state: &CredentialRequestState, response: &CredentialResponse) -> Result<Credential> {
        state.finalize(&self.public_key, response)
    }

    /// The presentation state for the presentation context of `challenge`
    /// under `limit` (arc-protocol-01 §8.1). Keep it, exported if need be, for
    /// every later token for the same context.
    pub fn presentation_state(
        &self,
        credential: &Credential,
        challenge: &ArcChallenge<'_>,
        limit: u64,
    ) -> Result<PresentationState> {
        PresentationState::new(credential, &challenge.presentation_context(&self.key_id).parts(), limit)
    }

    /// A token for `challenge` from `state` (arc-protocol-01 §8.1), written into
    /// `out` ([`token_len`] of the state's limit); returns its length.
    /// [`Error::ChallengeMismatch`] if `state` is for another presentation
    /// context, [`Error::PresentationLimitReached`] once it is used up.
    pub fn token<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        state: &mut PresentationState,
        challenge: &ArcChallenge<'_>,
        rng: &mut R,
        out: &mut [u8],
    ) -> Result<usize> {
        if !state.is_for(&challenge.presentation_context(&self.key_id).parts())? {
            return Err(Error::ChallengeMismatch);
        }
        let len = token_len(state.limit())?;
        let out = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
        let (header, presentation) = out.split_at_mut(TOKEN_HEADER_LEN);
        let p = state.present(rng, presentation)?;
        let mut w = Writer::new(header);
        w.u16(TOKEN_TYPE)?;
        w.put(&p.nonce.to_be_bytes())?;
        w.put(&challenge.digest())?;
        w.put(&self.key_id)?;
        Ok(len)
    }
}
