//! The amortized batch messages (draft §5.1, §5.2): AmortizedBatchTokenRequest
//! and AmortizedBatchTokenResponse, parsed without copying, and their lengths.

use core::fmt;
use core::marker::PhantomData;

use super::{ElementBytes, MAX_BATCH, ProofBytes};
use crate::crypto::voprf::{ByteArray, Suite};
use crate::error::{Error, Field, Result};
use crate::tokens::expect_type;
use crate::tokens::private::PrivateTokenType;
use crate::wire::codec::{Decode, Encode, Reader, Writer, varint_len, varint_prefixed_len};

/// The length of an [`AmortizedTokenRequest`] for `n` tokens of type `T`:
/// `3 + varint(n·Ne) + n·Ne` bytes (for `n` in `1..=MAX_BATCH`; it
/// saturates instead of overflowing). A `const fn`, so it sizes arrays:
///
/// ```
/// use pat::wire::token_type::PrivateRistretto255;
/// use pat::tokens::amortized;
///
/// let request = [0u8; amortized::request_len::<PrivateRistretto255>(8)];
/// assert_eq!(request.len(), 3 + 2 + 8 * 32);
/// ```
pub const fn request_len<T: PrivateTokenType>(n: usize) -> usize {
    varint_prefixed_len(n.saturating_mul(T::Suite::NE)).saturating_add(3)
}

/// The length of an [`AmortizedTokenResponse`] for `n` tokens of type `T`:
/// `varint(n·Ne) + n·Ne + 2·Ns` bytes, what
/// [`Issuer::evaluate_batch`](crate::tokens::private::Issuer::evaluate_batch) writes
/// (for `n` in `1..=MAX_BATCH`; it saturates instead of overflowing).
pub const fn response_len<T: PrivateTokenType>(n: usize) -> usize {
    varint_prefixed_len(n.saturating_mul(T::Suite::NE)).saturating_add(2 * T::Suite::NS)
}

/// Reads `varint(Nr·Ne) ‖ elements` and checks the length is a non-zero multiple of Ne.
fn read_elements<'a, T: PrivateTokenType>(r: &mut Reader<'a>) -> Result<&'a [u8]> {
    let ne = T::Suite::NE;
    let bytes = r.varint_prefixed(ne, MAX_BATCH * ne, Field::Batch)?;
    if !bytes.len().is_multiple_of(ne) {
        return Err(Error::InvalidLength(Field::Batch));
    }
    Ok(bytes)
}

fn element_bytes<T: PrivateTokenType>(bytes: &[u8]) -> impl Iterator<Item = Result<ElementBytes<T>>> + '_ {
    bytes.chunks_exact(T::Suite::NE).map(|c| ElementBytes::<T>::from_slice(c).ok_or(Error::InvalidElement))
}

/// An amortized batch request, borrowed from its encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AmortizedTokenRequest<'a, T: PrivateTokenType> {
    truncated_token_key_id: u8,
    blinded: &'a [u8],
    _type: PhantomData<T>,
}

impl<'a, T: PrivateTokenType> AmortizedTokenRequest<'a, T> {
    /// Last byte of the issuer's token key id.
    pub const fn truncated_token_key_id(&self) -> u8 {
        self.truncated_token_key_id
    }

    /// The number of blinded elements, Nr.
    pub fn len(&self) -> usize {
        self.blinded.len() / T::Suite::NE
    }

    /// Whether the batch is empty (never true for a parsed request).
    pub fn is_empty(&self) -> bool {
        self.blinded.is_empty()
    }

    /// The serialized blinded elements.
    pub fn blinded_msgs(&self) -> impl Iterator<Item = Result<ElementBytes<T>>> + 'a {
        element_bytes::<T>(self.blinded)
    }
}

impl<T: PrivateTokenType> fmt::Debug for AmortizedTokenRequest<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AmortizedTokenRequest")
            .field("token_type", &T::CODE)
            .field("truncated_token_key_id", &self.truncated_token_key_id)
            .field("len", &self.len())
            .finish()
    }
}

impl<'a, T: PrivateTokenType> Decode<'a> for AmortizedTokenRequest<'a, T> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        expect_type(r, T::CODE)?;
        let truncated_token_key_id = r.u8()?;
        Ok(Self { truncated_token_key_id, blinded: read_elements::<T>(r)?, _type: PhantomData })
    }
}

impl<T: PrivateTokenType> Encode for AmortizedTokenRequest<'_, T> {
    fn encoded_len(&self) -> usize {
        3 + varint_len(self.blinded.len() as u64).unwrap_or(8) + self.blinded.len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(T::CODE)?;
        w.u8(self.truncated_token_key_id)?;
        w.varint_prefixed(self.blinded)
    }
}

/// An amortized batch response, borrowed from its encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct AmortizedTokenResponse<'a, T: PrivateTokenType> {
    evaluated: &'a [u8],
    proof: ProofBytes<T>,
}

impl<'a, T: PrivateTokenType> AmortizedTokenResponse<'a, T> {
    /// The number of evaluated elements.
    pub fn len(&self) -> usize {
        self.evaluated.len() / T::Suite::NE
    }

    /// Whether the batch is empty (never true for a parsed response).
    pub fn is_empty(&self) -> bool {
        self.evaluated.is_empty()
    }

    /// The serialized evaluated elements.
    pub fn evaluated_msgs(&self) -> impl Iterator<Item = Result<ElementBytes<T>>> + 'a {
        element_bytes::<T>(self.evaluated)
    }

    /// The batched DLEQ proof `c ‖ s`.
    pub const fn proof(&self) -> &ProofBytes<T> {
        &self.proof
    }
}

impl<T: PrivateTokenType> fmt::Debug for AmortizedTokenResponse<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AmortizedTokenResponse").field("token_type", &T::CODE).field("len", &self.len()).finish()
    }
}

impl<'a, T: PrivateTokenType> Decode<'a> for AmortizedTokenResponse<'a, T> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let evaluated = read_elements::<T>(r)?;
        let proof = ProofBytes::<T>::from_slice(r.take(2 * T::Suite::NS)?).ok_or(Error::Truncated)?;
        Ok(Self { evaluated, proof })
    }
}

impl<T: PrivateTokenType> Encode for AmortizedTokenResponse<'_, T> {
    fn encoded_len(&self) -> usize {
        varint_len(self.evaluated.len() as u64).unwrap_or(8) + self.evaluated.len() + 2 * T::Suite::NS
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.varint_prefixed(self.evaluated)?;
        w.put(self.proof.as_ref())
    }
}
