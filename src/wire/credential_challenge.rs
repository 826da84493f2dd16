//! The `TokenChallenge` of the credential token types, ARC (0xE5AC,
//! draft-ietf-privacypass-arc-protocol-01 §6) and ACT (0xE5AD,
//! draft-schlesinger-privacypass-act-01 §5.1): RFC 9577's fields followed by
//! a `credential_context` of 0 or 32 bytes.
//!
//! ```text
//! TokenChallenge = token_type ‖ issuer_name<1..2^16-1> ‖ redemption_context<0..32>
//!                  ‖ origin_info<0..2^16-1> ‖ credential_context<0..32>
//! ```
//!
//! One type for both, with the code point as a parameter: each family names
//! it ([`ArcChallenge`](crate::tokens::arc::ArcChallenge),
//! [`ActChallenge`](crate::tokens::act::ActChallenge)) and adds how its
//! contexts are derived.

use sha2::{Digest, Sha256};

use super::challenge::{MAX_NAME_LEN, REDEMPTION_CONTEXT_LEN, TokenChallenge};
use super::codec::{Decode, Encode, Reader, Writer};
use super::token_type::CHALLENGE_DIGEST_LEN;
use crate::error::{Error, Field, Result};

/// Length of a non-empty `credential_context`.
pub const CREDENTIAL_CONTEXT_LEN: usize = 32;

/// A credential family's `TokenChallenge` for the token type `TYPE`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CredentialChallenge<'a, const TYPE: u16> {
    inner: TokenChallenge<'a>,
    credential_context: Option<&'a [u8; CREDENTIAL_CONTEXT_LEN]>,
}

fn credential_context_of(bytes: &[u8]) -> Result<Option<&[u8; CREDENTIAL_CONTEXT_LEN]>> {
    match bytes.len() {
        0 => Ok(None),
        _ => Ok(Some(bytes.try_into().map_err(|_| Error::InvalidLength(Field::CredentialContext))?)),
    }
}

/// A 2-byte big-endian length (every field is at most 2^16 − 1 bytes: the
/// constructors check it).
pub(crate) fn len16(field: &[u8]) -> [u8; 2] {
    u16::try_from(field.len()).unwrap_or(u16::MAX).to_be_bytes()
}

impl<'a, const TYPE: u16> CredentialChallenge<'a, TYPE> {
    /// A challenge with the names checked as [`TokenChallenge::new`] checks
    /// them; `credential_context` must be empty or 32 bytes
    /// (`InvalidLength(CredentialContext)`).
    pub fn new(
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
        credential_context: &'a [u8],
    ) -> Result<Self> {
        let inner = TokenChallenge::new(TYPE, issuer_name, redemption_context, origin_info)?;
        Ok(Self { inner, credential_context: credential_context_of(credential_context)? })
    }

    /// A challenge checked for structure only, as decoding does.
    pub fn new_opaque(
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
        credential_context: &'a [u8],
    ) -> Result<Self> {
        let inner = TokenChallenge::new_opaque(TYPE, issuer_name, redemption_context, origin_info)?;
        Ok(Self { inner, credential_context: credential_context_of(credential_context)? })
    }

    /// The RFC 9577 fields.
    pub const fn challenge(&self) -> &TokenChallenge<'a> {
        &self.inner
    }

    /// The `credential_context` (empty or 32 bytes).
    pub fn credential_context(&self) -> &'a [u8] {
        match self.credential_context {
            Some(c) => c,
            None => &[],
        }
    }

    /// SHA-256 of the encoding, the token's `challenge_digest`.
    pub fn digest(&self) -> [u8; CHALLENGE_DIGEST_LEN] {
        let c = &self.inner;
        let mut h = Sha256::new();
        h.update(TYPE.to_be_bytes());
        h.update(len16(c.issuer_name()));
        h.update(c.issuer_name());
        // redemption_context and credential_context are 0 or 32 bytes: one length byte.
        h.update([u8::try_from(c.redemption_context().len()).unwrap_or(0)]);
        h.update(c.redemption_context());
        h.update(len16(c.origin_info()));
        h.update(c.origin_info());
        h.update([u8::try_from(self.credential_context().len()).unwrap_or(0)]);
        h.update(self.credential_context());
        h.finalize().into()
    }
}

impl<'a, const TYPE: u16> Decode<'a> for CredentialChallenge<'a, TYPE> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let found = r.u16()?;
        if found != TYPE {
            return Err(Error::WrongTokenType { expected: TYPE, found });
        }
        let issuer_name = r.u16_prefixed(1, MAX_NAME_LEN, Field::IssuerName)?;
        let redemption_context = r.u8_prefixed(0, REDEMPTION_CONTEXT_LEN, Field::RedemptionContext)?;
        let origin_info = r.u16_prefixed(0, MAX_NAME_LEN, Field::OriginInfo)?;
        let credential_context = r.u8_prefixed(0, CREDENTIAL_CONTEXT_LEN, Field::CredentialContext)?;
        Self::new_opaque(issuer_name, redemption_context, origin_info, credential_context)
    }
}

impl<const TYPE: u16> Encode for CredentialChallenge<'_, TYPE> {
    fn encoded_len(&self) -> usize {
        self.inner.encoded_len() + 1 + self.credential_context().len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        self.inner.encode_into(w)?;
        w.u8_prefixed(self.credential_context())
    }
}
