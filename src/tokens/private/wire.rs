//! The messages of types 0x0001 and 0x0005: TokenRequest and TokenResponse (RFC
//! 9578 §5.1, §5.2).

use core::fmt;

use super::{ElementBytes, PrivateTokenType, ProofBytes};
use crate::crypto::voprf::{ByteArray, Suite};
use crate::error::{Error, Result};
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};

/// TokenRequest for a privately verifiable type (RFC 9578 §5.1).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenRequest<T: PrivateTokenType> {
    /// Last byte of the issuer's token key id.
    pub truncated_token_key_id: u8,
    /// The blinded element, serialized.
    pub blinded_msg: ElementBytes<T>,
}

impl<T: PrivateTokenType> fmt::Debug for TokenRequest<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenRequest")
            .field("token_type", &T::CODE)
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .finish_non_exhaustive()
    }
}

impl<'a, T: PrivateTokenType> Decode<'a> for TokenRequest<T> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, T::CODE)?;
        let truncated_token_key_id = r.u8()?;
        let blinded_msg = ElementBytes::<T>::from_slice(r.take(T::Suite::NE)?).ok_or(Error::Truncated)?;
        Ok(Self { truncated_token_key_id, blinded_msg })
    }
}

impl<T: PrivateTokenType> Encode for TokenRequest<T> {
    fn encoded_len(&self) -> usize {
        2 + 1 + T::Suite::NE
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(T::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.put(self.blinded_msg.as_ref())
    }
}

/// TokenResponse for a privately verifiable type (RFC 9578 §5.2).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TokenResponse<T: PrivateTokenType> {
    /// The evaluated element, serialized.
    pub evaluate_msg: ElementBytes<T>,
    /// The DLEQ proof `c ‖ s`.
    pub evaluate_proof: ProofBytes<T>,
}

impl<T: PrivateTokenType> fmt::Debug for TokenResponse<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenResponse").field("token_type", &T::CODE).finish_non_exhaustive()
    }
}

impl<'a, T: PrivateTokenType> Decode<'a> for TokenResponse<T> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let evaluate_msg = ElementBytes::<T>::from_slice(r.take(T::Suite::NE)?).ok_or(Error::Truncated)?;
        let evaluate_proof = ProofBytes::<T>::from_slice(r.take(2 * T::Suite::NS)?).ok_or(Error::Truncated)?;
        Ok(Self { evaluate_msg, evaluate_proof })
    }
}

impl<T: PrivateTokenType> Encode for TokenResponse<T> {
    fn encoded_len(&self) -> usize {
        T::Suite::NE + 2 * T::Suite::NS
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.evaluate_msg.as_ref())?;
        w.put(self.evaluate_proof.as_ref())
    }
}
