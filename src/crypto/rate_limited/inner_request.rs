//! `InnerTokenRequest`, the plaintext a client encrypts to the issuer
//! (draft-ietf-privacypass-rate-limit-tokens "Client to Issuer Encapsulation").
//!
//! ```text
//! struct {
//!     uint8 token_key_id;
//!     uint8 blinded_msg[Nk];
//!     uint8 padded_origin_name<0..2^16-1>;
//! } InnerTokenRequest;
//! ```
//!
//! `padded_origin_name` is the origin name followed by N zero bytes with
//! `N = 31 − ((L − 1) mod 32)` for a name of L > 0 bytes and N = 32 for
//! L = 0, so its length is the smallest positive multiple of 32 that holds the
//! name. Decoding is strict: the padded length must be a positive multiple of
//! 32, the padding is every trailing zero byte, and the result must re-pad to
//! exactly the received length (no extra zero blocks). A name cannot end in a
//! zero byte, since padding could not be removed unambiguously.
//!
//! Origin names are not secret towards the issuer, who decrypts them, so
//! padding and unpadding are variable time.

use crate::error::{Error, Field, Result};
use crate::wire::codec::{Decode, Encode, Reader, Writer};

/// Nk: the length of the RSA blinded message, 256 bytes (RSA-2048, as pat-go;
/// the draft's table says 512).
pub const BLINDED_MSG_LEN: usize = 256;
/// The padding block: padded origin names are multiples of 32 bytes.
pub const PAD_BLOCK: usize = 32;
/// The longest padded origin name a 2-byte length prefix can carry: the largest
/// multiple of 32 not above 65535.
pub const MAX_PADDED_ORIGIN_LEN: usize = (u16::MAX as usize / PAD_BLOCK) * PAD_BLOCK;
/// The longest origin name.
pub const MAX_ORIGIN_NAME_LEN: usize = MAX_PADDED_ORIGIN_LEN;
/// The length of an `InnerTokenRequest` without the padded origin name:
/// token_key_id (1) ‖ blinded_msg (256) ‖ length prefix (2).
pub const FIXED_LEN: usize = 1 + BLINDED_MSG_LEN + 2;

/// The padded length of an origin name of `len` bytes: the smallest positive
/// multiple of 32 that is at least `len` (draft "Client to Issuer Encapsulation").
pub const fn padded_len(len: usize) -> usize {
    if len == 0 { PAD_BLOCK } else { len.div_ceil(PAD_BLOCK) * PAD_BLOCK }
}

/// Removes the padding of a `padded_origin_name` (draft "Client to Issuer
/// Encapsulation"), strictly: fails with [`Error::InvalidLength`] unless the
/// length is a positive multiple of 32 (at most [`MAX_PADDED_ORIGIN_LEN`]), and
/// with [`Error::InvalidValue`] if more than the minimal padding is present.
pub fn unpad(padded: &[u8]) -> Result<&[u8]> {
    if padded.is_empty() || !padded.len().is_multiple_of(PAD_BLOCK) || padded.len() > MAX_PADDED_ORIGIN_LEN {
        return Err(Error::InvalidLength(Field::OriginName));
    }
    let end = padded.iter().rposition(|&b| b != 0).map_or(0, |i| i + 1);
    let name = padded.get(..end).ok_or(Error::InvalidLength(Field::OriginName))?;
    if padded_len(name.len()) != padded.len() {
        return Err(Error::InvalidValue(Field::OriginName));
    }
    Ok(name)
}

/// The plaintext of an encrypted token request (draft "Client to Issuer
/// Encapsulation"), borrowing its fields. `origin_name` is held **unpadded**;
/// encoding pads it and decoding removes the padding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InnerTokenRequest<'a> {
    /// One byte of the issuer's token key id (see
    /// [`KeyIdByte`](super::KeyIdByte): pat-go sends the first byte).
    pub token_key_id: u8,
    /// The RSA blinded message (RFC 9474 `Blind` output), Nk = 256 bytes.
    pub blinded_msg: &'a [u8; BLINDED_MSG_LEN],
    /// The origin name, without padding.
    pub origin_name: &'a [u8],
}

impl<'a> InnerTokenRequest<'a> {
    /// Builds a request, checking that the origin name can be padded: at most
    /// [`MAX_ORIGIN_NAME_LEN`] bytes ([`Error::InvalidLength`]) and not ending in
    /// a zero byte ([`Error::InvalidValue`]).
    pub fn new(token_key_id: u8, blinded_msg: &'a [u8; BLINDED_MSG_LEN], origin_name: &'a [u8]) -> Result<Self> {
        check_origin_name(origin_name)?;
        Ok(Self { token_key_id, blinded_msg, origin_name })
    }
}

fn check_origin_name(origin_name: &[u8]) -> Result<()> {
    if origin_name.len() > MAX_ORIGIN_NAME_LEN {
        return Err(Error::InvalidLength(Field::OriginName));
    }
    if origin_name.last() == Some(&0) {
        return Err(Error::InvalidValue(Field::OriginName));
    }
    Ok(())
}

impl<'a> Decode<'a> for InnerTokenRequest<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let token_key_id = r.u8()?;
        let blinded_msg = r.array::<BLINDED_MSG_LEN>()?;
        let padded = r.u16_prefixed(PAD_BLOCK, MAX_PADDED_ORIGIN_LEN, Field::OriginName)?;
        let origin_name = unpad(padded)?;
        Ok(Self { token_key_id, blinded_msg, origin_name })
    }
}

impl Encode for InnerTokenRequest<'_> {
    fn encoded_len(&self) -> usize {
        FIXED_LEN + padded_len(self.origin_name.len())
    }

    /// Fails like [`InnerTokenRequest::new`] if the origin name cannot be padded
    /// (the fields are public, so they are checked again here).
    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        check_origin_name(self.origin_name)?;
        let padded = padded_len(self.origin_name.len());
        w.u8(self.token_key_id)?;
        w.put(self.blinded_msg)?;
        w.u16(u16::try_from(padded).map_err(|_| Error::InvalidLength(Field::OriginName))?)?;
        w.put(self.origin_name)?;
        w.reserve(padded.saturating_sub(self.origin_name.len()))?.fill(0);
        Ok(())
    }
}
