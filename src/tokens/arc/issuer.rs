//! The issuer of type 0xE5AC, which is also the origin: credential responses
//! and presentation checks.

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use super::{ArcChallenge, ArcToken, TokenRequest};
use crate::crypto::arc::messages::PresentationRef;
use crate::crypto::arc::{CredentialResponse, ServerPrivateKey, ServerPublicKey};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer and origin of type 0xE5AC (one party: ARC is privately
/// verifiable), for one key.
#[derive(Debug)]
pub struct Issuer {
    key: ServerPrivateKey,
    key_id: [u8; KEY_ID_LEN],
}

/// The key inside wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl Issuer {
    /// An issuer with `key`.
    pub fn new(key: ServerPrivateKey) -> Self {
        let key_id = key.public_key().key_id();
        Self { key, key_id }
    }

    /// The token key to publish: the 99-byte ServerPublicKey.
    pub fn token_key(&self) -> [u8; ServerPublicKey::LEN] {
        self.key.public_key().to_bytes()
    }

    /// The issuer key id, SHA-256 of [`token_key`](Self::token_key).
    pub fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        &self.key_id
    }

    /// The secret key.
    pub fn secret_key(&self) -> &ServerPrivateKey {
        &self.key
    }

    /// The credential response (arc-protocol-01 §7.2):
    /// [`Error::KeyIdMismatch`] for a request for another key,
    /// [`Error::Verification`] if its proof fails.
    pub fn issue<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &TokenRequest,
        rng: &mut R,
    ) -> Result<CredentialResponse> {
        if request.truncated_key_id != truncated_key_id(&self.key_id) {
            return Err(Error::KeyIdMismatch);
        }
        self.key.respond(&request.request, rng)
    }

    /// Token verification (arc-protocol-01 §8.2) for `challenge` under `limit`;
    /// returns the presentation tag, which the caller must refuse to see
    /// twice ([`redeem`](Self::redeem), from the deployment layer, does both).
    pub fn verify(&self, token: &ArcToken<'_>, challenge: &ArcChallenge<'_>, limit: u64) -> Result<[u8; 33]> {
        if !bool::from(token.challenge_digest.ct_eq(&challenge.digest())) {
            return Err(Error::ChallengeMismatch);
        }
        if !bool::from(token.issuer_key_id.ct_eq(&self.key_id)) {
            return Err(Error::KeyIdMismatch);
        }
        let presentation = PresentationRef::decode(token.presentation, limit)?;
        self.key.verify_presentation(
            &challenge.request_context(&self.key_id).parts(),
            &challenge.presentation_context(&self.key_id).parts(),
            &presentation,
            limit,
        )?;
        Ok(*presentation.tag())
    }
}

/// The 32-byte replay-store entry of a presentation tag: SHA-256 of the tag.
pub fn tag_id(tag: &[u8; 33]) -> [u8; 32] {
    Sha256::digest(tag).into()
}
