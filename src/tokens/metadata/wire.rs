//! The type 0xDA7A request: ExtendedTokenRequest (the response is type
//! 0x0002's).

use crate::crypto::blind_rsa::MODULUS_LEN;
use crate::error::Result;
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::extensions::Extensions;
use crate::wire::token_type::{PublicMetadataRsa2048, TokenType};

/// ExtendedTokenRequest for type 0xDA7A: the type 0x0002 request layout
/// with the type code 0xDA7A, followed by the extensions it is for.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest<'a> {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded PSS-encoded `msg_prime` of the token input.
    pub blinded_msg: [u8; MODULUS_LEN],
    /// The public metadata the token will carry.
    pub extensions: Extensions<'a>,
}

impl core::fmt::Debug for TokenRequest<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("TokenRequest")
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

impl<'a> Decode<'a> for TokenRequest<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, PublicMetadataRsa2048::CODE)?;
        let truncated_token_key_id = r.u8()?;
        let blinded_msg = *r.array()?;
        Ok(Self { truncated_token_key_id, blinded_msg, extensions: Extensions::decode_from(r)? })
    }
}

impl Encode for TokenRequest<'_> {
    fn encoded_len(&self) -> usize {
        2 + 1 + MODULUS_LEN + self.extensions.encoded_len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(PublicMetadataRsa2048::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(&self.blinded_msg)?;
        self.extensions.encode_into(w)
    }
}
