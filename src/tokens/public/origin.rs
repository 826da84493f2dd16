//! The origin of type 0x0002: token verification with the public key (RFC 9578
//! §6.4), and the RSA token checks types 0x0003 and 0xDA7A share.

use super::PublicToken;
use crate::crypto::blind_rsa::{self, PublicKey};
use crate::error::{Error, Result};
use crate::wire::challenge::TokenChallenge;
use crate::wire::token_type::{KEY_ID_LEN, TokenKind};

/// Origin verification for type 0x0002 (RFC 9578 §6.4).
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

    /// The issuer key's token_key_id.
    pub const fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        self.key.key_id()
    }

    /// Verifies a token: its type, its key id against the issuer key, the
    /// challenge digest against the challenge the origin sent, then the
    /// RSASSA-PSS signature. Mismatches are typed errors; a bad signature is
    /// [`Error::Verification`].
    pub fn verify(&self, token: &PublicToken, challenge: &TokenChallenge<'_>) -> Result<()> {
        verify_token(&self.key, TokenKind::PublicRsa2048, token, challenge)
    }
}

/// Shared by types 0x0002 and 0x0003, whose tokens are both RSA-PSS signatures.
pub(crate) fn verify_token(
    key: &PublicKey,
    kind: TokenKind,
    token: &PublicToken,
    challenge: &TokenChallenge<'_>,
) -> Result<()> {
    check_token_input(key, kind, token, challenge)?;
    blind_rsa::verify(key, token.input().as_bytes(), token.authenticator())
}

/// The checks of an RSA token before its signature (types 0x0002, 0x0003 and
/// 0xDA7A): its type ([`Error::WrongTokenType`]), the challenge's type and
/// digest ([`Error::ChallengeMismatch`]) and its key id
/// ([`Error::KeyIdMismatch`]).
pub(crate) fn check_token_input(
    key: &PublicKey,
    kind: TokenKind,
    token: &PublicToken,
    challenge: &TokenChallenge<'_>,
) -> Result<()> {
    let input = token.input();
    if input.kind() != kind {
        return Err(Error::WrongTokenType { expected: kind.code(), found: input.kind().code() });
    }
    if challenge.token_type() != kind.code() || input.challenge_digest() != &challenge.digest() {
        return Err(Error::ChallengeMismatch);
    }
    if input.token_key_id() != key.key_id() {
        return Err(Error::KeyIdMismatch);
    }
    Ok(())
}
