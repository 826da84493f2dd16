//! The origin of type 0x0003: token verification, the same as for type
//! 0x0002 apart from the type code.

use super::RateLimitedToken;
use crate::crypto::blind_rsa::PublicKey;
use crate::error::Result;
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::TokenKind;

/// Origin verification for type 0x0003: the same RSASSA-PSS check as type
/// 0x0002 (RFC 9578 §6.4) with the type code 0x0003.
#[derive(Clone, Debug)]
pub struct Origin {
    key: PublicKey,
}

impl Origin {
    /// An origin trusting the issuer with this RSA public key.
    pub const fn new(key: PublicKey) -> Self {
        Self { key }
    }

    /// The issuer public key.
    pub const fn public_key(&self) -> &PublicKey {
        &self.key
    }

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; crate::wire::token_type::KEY_ID_LEN] {
        self.key.key_id()
    }

    /// Verifies a token: its type, the challenge digest, the key id, then the
    /// signature ([`Error::Verification`]).
    ///
    /// [`Error::Verification`]: crate::error::Error::Verification
    pub fn verify(&self, token: &RateLimitedToken, challenge: &TokenChallenge<'_>) -> Result<()> {
        crate::tokens::public::verify_token(&self.key, TokenKind::RateLimitedRsa2048, token, challenge)
    }
}
