//! The issuer of type 0xDA7A: signing with the key pair derived for the
//! request's extensions.

use super::{TokenRequest, TokenResponse};
use crate::crypto::blind_rsa::partial::DerivedSecretKey;
use crate::crypto::blind_rsa::{PublicKey, SecretKey};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer side of type 0xDA7A. Not `Copy`; `Debug` shows only the
/// public key.
pub struct Issuer {
    key: SecretKey,
}

impl core::fmt::Debug for Issuer {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Issuer").field("public_key", self.key.public_key()).finish_non_exhaustive()
    }
}

/// The RSA key wipes itself on drop.
impl zeroize::ZeroizeOnDrop for Issuer {}

impl Issuer {
    /// An issuer with the given private key, whose primes must be safe
    /// primes (see the module docs).
    pub const fn new(key: SecretKey) -> Self {
        Self { key }
    }

    /// The public key.
    pub const fn public_key(&self) -> &PublicKey {
        self.key.public_key()
    }

    /// The token key to publish: the 342-byte RSASSA-PSS SPKI.
    pub fn token_key(&self) -> [u8; 342] {
        self.key.public_key().to_spki_array()
    }

    /// The token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.public_key().key_id()
    }

    /// The signing key derived for `extensions` (`DeriveKeyPair`), to sign
    /// many requests with the same metadata through [`Self::evaluate_with`].
    pub fn derive(&self, extensions: &Extensions<'_>) -> Result<DerivedSecretKey<'_>> {
        DerivedSecretKey::new(&self.key, extensions.as_bytes())
    }

    /// Signs a request: checks its truncated key id against this key
    /// ([`Error::KeyIdMismatch`]), derives the key pair for its extensions
    /// and signs in constant time, checking the signature before it is
    /// returned. Which extensions to accept is the caller's policy: read
    /// `request.extensions` before calling this.
    pub fn evaluate(&self, request: &TokenRequest<'_>) -> Result<TokenResponse> {
        self.check_key_id(request)?;
        let derived = self.derive(&request.extensions)?;
        Ok(TokenResponse { blind_sig: derived.blind_sign(&request.blinded_msg)? })
    }

    /// [`Self::evaluate`] with a key derived beforehand by [`Self::derive`]
    /// for the request's extensions. A key derived from another issuer key
    /// is [`Error::KeyIdMismatch`]; one derived for other extensions is
    /// [`Error::ExtensionsMismatch`] (checked by digest before signing, so a
    /// cache lookup that returns the wrong key never signs).
    pub fn evaluate_with(&self, derived: &DerivedSecretKey<'_>, request: &TokenRequest<'_>) -> Result<TokenResponse> {
        self.check_key_id(request)?;
        if derived.base().public_key() != self.key.public_key() {
            return Err(Error::KeyIdMismatch);
        }
        if !derived.is_for(request.extensions.as_bytes()) {
            return Err(Error::ExtensionsMismatch);
        }
        Ok(TokenResponse { blind_sig: derived.blind_sign(&request.blinded_msg)? })
    }

    fn check_key_id(&self, request: &TokenRequest<'_>) -> Result<()> {
        if request.truncated_token_key_id == truncated_key_id(self.key_id()) {
            Ok(())
        } else {
            Err(Error::KeyIdMismatch)
        }
    }
}
