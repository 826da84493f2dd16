//! The client of type 0xC07E: request, finalize, and the state between.

use core::fmt;

use rand_core::TryCryptoRng;
use zeroize::Zeroizing;

use super::{TOKEN_KEY_LEN, TOKEN_TYPE, Token, TokenRequest};
use crate::crypto::athm::{
    Params, PublicKey, PublicKeyProof, TokenContext, TokenRequest as AthmRequest, TokenResponse, VerifiedPublicKey,
    finalize_token, token_request,
};
use crate::error::{Error, Field, Result};
use crate::tokens::state::{self, Shape};
use crate::tokens::truncated_key_id;
use crate::wire::token_type::KEY_ID_LEN;

/// The client of type 0xC07E, for one issuer key of a deployment with `N`
/// buckets.
#[derive(Clone, Copy, Debug)]
pub struct Client<'p, const N: usize> {
    params: Params<'p, N>,
    key: VerifiedPublicKey,
    key_id: [u8; KEY_ID_LEN],
}

impl<'p, const N: usize> Client<'p, N> {
    /// A client for the published token key (the public key and its proof,
    /// [`TOKEN_KEY_LEN`] bytes): the proof is checked here, once
    /// (`Verification` if it fails; `InvalidLength(TokenKey)` for another
    /// length).
    pub fn from_token_key(params: Params<'p, N>, token_key: &[u8]) -> Result<Self> {
        if token_key.len() != TOKEN_KEY_LEN {
            return Err(Error::InvalidLength(Field::TokenKey));
        }
        let (key, proof) = token_key.split_at(PublicKey::LEN);
        let key = PublicKey::from_bytes(key)?.verify(&params, &PublicKeyProof::from_bytes(proof)?)?;
        Ok(Self { params, key_id: key.key().key_id(), key })
    }

    /// The issuer key id.
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// A token request and the state its response needs.
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        rng: &mut R,
    ) -> Result<(RequestState, TokenRequest)> {
        let (context, request) = token_request(&self.key, rng)?;
        let state = RequestState { context, request, key_id: self.key_id };
        Ok((state, TokenRequest { truncated_key_id: truncated_key_id(&self.key_id), request }))
    }

    /// The token from the issuer's response (its proof verified first:
    /// `Verification` otherwise; `KeyIdMismatch` for a state of another key).
    pub fn finalize<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        state: &RequestState,
        response: &TokenResponse<N>,
        rng: &mut R,
    ) -> Result<Token> {
        if state.key_id != self.key_id {
            return Err(Error::KeyIdMismatch);
        }
        let token = finalize_token(&self.params, &self.key, &state.context, &state.request, response, rng)?;
        Ok(Token { issuer_key_id: self.key_id, token })
    }
}

/// What the client keeps between request and response: (r, tc), T and the
/// key id. Exports to [`RequestState::LEN`] bytes.
pub struct RequestState {
    context: TokenContext,
    request: AthmRequest,
    key_id: [u8; KEY_ID_LEN],
}

impl fmt::Debug for RequestState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RequestState").field("key_id", &self.key_id).finish_non_exhaustive()
    }
}

/// The context inside wipes itself on drop.
impl zeroize::ZeroizeOnDrop for RequestState {}

impl RequestState {
    /// Length of the export: the header of [`crate::tokens::state`]
    /// (version, shape 0x04), the token type, r ‖ tc ‖ T and the key id.
    pub const LEN: usize = state::HEADER_LEN + 2 + TokenContext::LEN + AthmRequest::LEN + KEY_ID_LEN;

    /// The export (the format of [`crate::tokens::state`]), wiped when
    /// dropped.
    pub fn export(&self) -> Zeroizing<[u8; Self::LEN]> {
        let mut out = Zeroizing::new([0u8; Self::LEN]);
        let (header, rest) = out.split_at_mut(state::HEADER_LEN);
        header.copy_from_slice(&[state::VERSION, Shape::Athm as u8]);
        let (token_type, rest) = rest.split_at_mut(2);
        token_type.copy_from_slice(&TOKEN_TYPE.to_be_bytes());
        let (context, rest) = rest.split_at_mut(TokenContext::LEN);
        let (request, key_id) = rest.split_at_mut(AthmRequest::LEN);
        context.copy_from_slice(&*self.context.to_bytes());
        request.copy_from_slice(&self.request.to_bytes());
        key_id.copy_from_slice(&self.key_id);
        out
    }

    /// Imports an [`export`](Self::export), strictly as every state of
    /// [`crate::tokens::state`]: exactly [`LEN`](Self::LEN) bytes
    /// ([`Error::InvalidLength`]`(`[`Field::State`]`)`), version 1
    /// ([`Error::UnknownStateVersion`], also for a zeroed state), shape 0x04
    /// ([`Error::InvalidValue`]`(`[`Field::State`]`)`), type 0xC07E
    /// ([`Error::WrongTokenType`]), scalars below the order, T a valid point.
    pub fn import(bytes: &[u8]) -> Result<Self> {
        state::import(bytes, Self::LEN, Shape::Athm, |r| {
            let found = r.u16()?;
            if found != TOKEN_TYPE {
                return Err(Error::WrongTokenType { expected: TOKEN_TYPE, found });
            }
            let context = TokenContext::from_bytes(r.take(TokenContext::LEN)?)?;
            let request = AthmRequest::from_bytes(r.take(AthmRequest::LEN)?)?;
            let key_id = *r.array::<KEY_ID_LEN>()?;
            Ok(Self { context, request, key_id })
        })
    }
}
