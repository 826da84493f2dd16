//! The origin of type 0xDA7A: token verification with the public key derived
//! for the extensions.

use super::{MetadataToken, VARIANT};
use crate::crypto::blind_rsa::partial::DerivedPublicKey;
use crate::crypto::blind_rsa::{PreparedMessage, PublicKey};
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::extensions::Extensions;
use crate::wire::token_type::TokenKind;

/// Origin verification for type 0xDA7A.
#[derive(Clone, Debug)]
pub struct Origin {
    key: PublicKey,
}

impl Origin {
    /// An origin trusting the issuer with this public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// The issuer public key.
    pub const fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// Verifies a token with the extensions that came with it: its type, its
    /// key id, the challenge digest against the challenge the origin sent,
    /// then the signature under the key derived for `extensions`. Whether
    /// the extensions are acceptable is the caller's policy. A bad
    /// signature, or extensions other than the issued ones, is
    /// [`Error::Verification`](crate::Error::Verification).
    pub fn verify(
        &self,
        token: &MetadataToken,
        challenge: &TokenChallenge<'_>,
        extensions: &Extensions<'_>,
    ) -> Result<()> {
        crate::tokens::public::check_token_input(&self.key, TokenKind::PublicMetadataRsa2048, token, challenge)?;
        let input = token.input();
        let derived: DerivedPublicKey<'_, '_> = DerivedPublicKey::new(&self.key, extensions.as_bytes())?;
        derived.verify(VARIANT, &PreparedMessage::identity(input.as_bytes()), token.authenticator())
    }
}
