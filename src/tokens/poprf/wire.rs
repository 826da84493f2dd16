//! The type 0xDA7B request, ExtendedTokenRequest (draft §5.1); the response
//! is the type 0x0001 TokenResponse (§5.2).

use crate::crypto::voprf::P384Sha384;
use crate::error::Result;
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::extensions::Extensions;
use crate::wire::token_type::{PrivateP384, PublicMetadataP384, TokenType};

/// The length of a serialized P-384 element (RFC 9497 §4.4 `Ne`).
const NE: usize = <P384Sha384 as crate::crypto::voprf::Suite>::NE;

/// TokenResponse of type 0xDA7B: `evaluate_msg[49] ‖ evaluate_proof[96]`,
/// the layout of type 0x0001's.
pub type TokenResponse = crate::tokens::private::TokenResponse<PrivateP384>;

/// ExtendedTokenRequest for type 0xDA7B: the type 0x0001 request layout with
/// the type code 0xDA7B, followed by the extensions it is for.
#[derive(Clone, PartialEq, Eq)]
pub struct TokenRequest<'a> {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded element, serialized.
    pub blinded_msg: [u8; NE],
    /// The public metadata the token will carry (the POPRF `info`).
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
        expect_type(r, PublicMetadataP384::CODE)?;
        let truncated_token_key_id = r.u8()?;
        let blinded_msg = *r.array()?;
        Ok(Self { truncated_token_key_id, blinded_msg, extensions: Extensions::decode_from(r)? })
    }
}

impl Encode for TokenRequest<'_> {
    fn encoded_len(&self) -> usize {
        2 + 1 + NE + self.extensions.encoded_len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(PublicMetadataP384::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(&self.blinded_msg)?;
        self.extensions.encode_into(w)
    }
}
