//! The issuer of type 0x0002: blind signing (RFC 9578 §6.2).

use super::{TokenRequest, TokenResponse};
use crate::crypto::blind_rsa::{self, PublicKey, SecretKey};
use crate::error::{Error, Result};
use crate::tokens::truncated_key_id;
use crate::wire::token_type::KEY_ID_LEN;

/// The issuer side of type 0x0002 (RFC 9578 §6.2). Not `Copy`; `Debug`
/// shows only the public key.
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
    /// An issuer with the given private key.
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

    /// Signs a request: checks its truncated key id against this key
    /// ([`Error::KeyIdMismatch`]) and that the blinded message is below the
    /// modulus, then signs in constant time and checks the signature.
    pub fn evaluate(&self, request: &TokenRequest) -> Result<TokenResponse> {
        if request.truncated_token_key_id != truncated_key_id(self.key_id()) {
            return Err(Error::KeyIdMismatch);
        }
        Ok(TokenResponse { blind_sig: blind_rsa::blind_sign(&self.key, &request.blinded_msg)? })
    }
}
