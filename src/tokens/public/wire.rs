//! The type 0x0002 messages: TokenRequest and TokenResponse (RFC 9578 §6.1,
//! §6.2).

use crate::crypto::blind_rsa::MODULUS_LEN;
use crate::error::Result;
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token_type::{PublicRsa2048, TokenType};

/// TokenRequest for type 0x0002 (RFC 9578 §6.1).
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded PSS-encoded token input.
    pub blinded_msg: [u8; MODULUS_LEN],
}

impl core::fmt::Debug for TokenRequest {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenRequest {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, PublicRsa2048::CODE)?;
        Ok(Self { truncated_token_key_id: r.u8()?, blinded_msg: *r.array()? })
    }
}

impl Encode for TokenRequest {
    fn encoded_len(&self) -> usize {
        2 + 1 + MODULUS_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(PublicRsa2048::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(&self.blinded_msg)
    }
}

/// TokenResponse for type 0x0002 (RFC 9578 §6.2): the blind signature.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenResponse {
    /// The blind signature.
    pub blind_sig: [u8; MODULUS_LEN],
}

impl core::fmt::Debug for TokenResponse {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenResponse").finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenResponse {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        Ok(Self { blind_sig: *r.array()? })
    }
}

impl Encode for TokenResponse {
    fn encoded_len(&self) -> usize {
        MODULUS_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(&self.blind_sig)
    }
}
