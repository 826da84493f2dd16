//! The issuer of type 0xC07E, which is also the origin.

use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;

use super::{TOKEN_KEY_LEN, Token, TokenRequest};
use crate::crypto::athm::{Params, PrivateKey, PublicKey, PublicKeyProof, TokenResponse, token_response, verify_token};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer and origin of type 0xC07E for one key of a deployment with
/// `N` buckets.
#[derive(Debug)]
pub struct Issuer<'p, const N: usize> {
    params: Params<'p, N>,
    key: PrivateKey,
    public: PublicKey,
    proof: PublicKeyProof,
    key_id: [u8; KEY_ID_LEN],
}

/// The key inside wipes itself on drop.
impl<const N: usize> zeroize::ZeroizeOnDrop for Issuer<'_, N> {}

impl<'p, const N: usize> Issuer<'p, N> {
    /// An issuer with `key`, whose proof is made here with the system
    /// generator (`std` only; elsewhere use [`with_proof`](Self::with_proof)).
    #[cfg(feature = "std")]
    pub fn new(params: Params<'p, N>, key: PrivateKey) -> Result<Self> {
        let public = key.public_key(&params)?;
        let proof = key.prove(&params, &public, &mut rand_core::UnwrapErr(crate::OsRng))?;
        Self::with_proof(params, key, proof)
    }

    /// An issuer with `key` and a proof made for it (for example the one
    /// [`PrivateKey::generate`] returned); `Verification` if the proof does
    /// not verify.
    pub fn with_proof(params: Params<'p, N>, key: PrivateKey, proof: PublicKeyProof) -> Result<Self> {
        let public = key.public_key(&params)?;
        public.verify(&params, &proof)?;
        Ok(Self { params, key_id: public.key_id(), key, public, proof })
    }

    /// The token key to publish: the public key and its proof.
    pub fn token_key(&self) -> [u8; TOKEN_KEY_LEN] {
        let mut out = [0u8; TOKEN_KEY_LEN];
        let (key, proof) = out.split_at_mut(PublicKey::LEN);
        key.copy_from_slice(&self.public.to_bytes());
        proof.copy_from_slice(&self.proof.to_bytes());
        out
    }

    /// The issuer key id, SHA-256 of the public key without its proof.
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The response hiding `metadata` (below `N`:
    /// `InvalidValue(HiddenMetadata)` otherwise); `KeyIdMismatch` for a
    /// request for another key.
    pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest,
        metadata: u8,
        rng: &mut R,
    ) -> Result<TokenResponse<N>> {
        if request.truncated_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        token_response(&self.params, &self.key, &self.public, &request.request, metadata, rng)
    }

    /// The hidden value of a token, without recording it as spent:
    /// `KeyIdMismatch` for another key, `Verification` if no bucket matches.
    pub fn verify(&self, token: &Token) -> Result<u8> {
        if !bool::from(token.issuer_key_id.ct_eq(&self.key_id)) {
            return Err(Error::KeyIdMismatch);
        }
        verify_token(&self.params, &self.key, &token.token)
    }
}
