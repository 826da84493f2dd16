//! The messages of type 0xC07E (draft-yun-privacypass-athm-00 §3).

use super::{REQUEST_LEN, TOKEN_LEN, TOKEN_TYPE};
use crate::crypto::athm::{Token as AthmToken, TokenRequest as AthmRequest};
use crate::error::Result;
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token_type::KEY_ID_LEN;

/// A `TokenRequest`: the last byte of the issuer key id and T.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    /// The last byte of the issuer key id.
    pub truncated_key_id: u8,
    /// The ATHM request.
    pub request: AthmRequest,
}

impl Decode<'_> for TokenRequest {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let truncated_key_id = r.u8()?;
        let request = AthmRequest::from_bytes(r.take(AthmRequest::LEN)?)?;
        Ok(Self { truncated_key_id, request })
    }
}

impl Encode for TokenRequest {
    fn encoded_len(&self) -> usize {
        REQUEST_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(TOKEN_TYPE)?;
        w.u8(self.truncated_key_id)?;
        w.put(&self.request.to_bytes())
    }
}

/// A `Token`: the issuer key id and the ATHM token (t, P, Q).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    /// SHA-256 of the issuer's public key (without its proof).
    pub issuer_key_id: [u8; KEY_ID_LEN],
    /// The ATHM token.
    pub token: AthmToken,
}

impl Decode<'_> for Token {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let issuer_key_id = *r.array::<KEY_ID_LEN>()?;
        let token = AthmToken::from_bytes(r.take(AthmToken::LEN)?)?;
        Ok(Self { issuer_key_id, token })
    }
}

impl Encode for Token {
    fn encoded_len(&self) -> usize {
        TOKEN_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(TOKEN_TYPE)?;
        w.put(&self.issuer_key_id)?;
        w.put(&self.token.to_bytes())
    }
}
