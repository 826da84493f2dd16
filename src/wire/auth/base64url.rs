//! base64url (RFC 4648 §5): the length of what the builders write, the
//! padded encoder they write with, and the decoders that read a parameter
//! value into a caller buffer, padded or not, through the constant-time
//! decoder of `base64ct`.

use base64ct::{Base64Url, Base64UrlUnpadded, Encoding};

use crate::error::{Error, Result};
use crate::wire::codec::Writer;

/// The length of padded base64url (RFC 4648 §5) of `len` bytes, which the
/// builders emit. Saturates at `usize::MAX` instead of overflowing.
pub const fn base64url_len(len: usize) -> usize {
    len.div_ceil(3).saturating_mul(4)
}

pub(crate) fn put_base64url(w: &mut Writer<'_>, bytes: &[u8]) -> Result<()> {
    let dst = w.reserve(Base64Url::encoded_len(bytes))?;
    Base64Url::encode(bytes, dst).map_err(|_| Error::BufferTooSmall)?;
    Ok(())
}

/// Decodes base64url (RFC 4648 §5) from a character stream, with or without
/// `=` padding, rejecting non-canonical trailing bits.
pub(crate) fn decode_base64url(chars: impl Iterator<Item = u8>, out: &mut [u8]) -> Result<&[u8]> {
    let mut group = [0u8; 4];
    let mut filled = 0usize;
    let mut written = 0usize;
    let mut padding = 0usize;
    for c in chars {
        if c == b'=' {
            padding += 1;
            continue;
        }
        if padding > 0 {
            return Err(Error::InvalidBase64);
        }
        *group.get_mut(filled).ok_or(Error::InvalidBase64)? = c;
        filled += 1;
        if filled == 4 {
            written += decode_group(&group, out.get_mut(written..).ok_or(Error::BufferTooSmall)?)?;
            filled = 0;
        }
    }
    // Padding, if present, must complete the last group to four characters.
    let pad_ok = matches!((filled, padding), (_, 0) | (2, 2) | (3, 1));
    if filled == 1 || !pad_ok {
        return Err(Error::InvalidBase64);
    }
    if filled > 0 {
        let tail = group.get(..filled).ok_or(Error::InvalidBase64)?;
        written += decode_group(tail, out.get_mut(written..).ok_or(Error::BufferTooSmall)?)?;
    }
    out.get(..written).ok_or(Error::BufferTooSmall)
}

/// [`decode_base64url`] over a slice of characters, in one call of the
/// constant-time decoder instead of one per group of four (3–4× faster on
/// a 342-byte token key), with the same rules: padding only to complete the
/// last group, no lone trailing character, canonical trailing bits.
pub(crate) fn decode_base64url_slice<'o>(chars: &[u8], out: &'o mut [u8]) -> Result<&'o [u8]> {
    let body_len = chars.iter().rposition(|&c| c != b'=').map_or(0, |i| i + 1);
    let (body, padding) = chars.split_at(body_len);
    let rem = body.len() % 4;
    let pad_ok = matches!((rem, padding.len()), (_, 0) | (2, 2) | (3, 1));
    if rem == 1 || !pad_ok {
        return Err(Error::InvalidBase64);
    }
    let len = body.len() / 4 * 3 + rem.saturating_sub(1);
    let dst = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
    // base64ct refuses '=' inside the body, other characters and
    // non-canonical trailing bits.
    Base64UrlUnpadded::decode(body, dst).map_err(|_| Error::InvalidBase64)
}

/// Decodes 2, 3 or 4 base64url characters into `out`; returns the byte count.
fn decode_group(chars: &[u8], out: &mut [u8]) -> Result<usize> {
    let mut buf = [0u8; 3];
    let n = Base64UrlUnpadded::decode(chars, &mut buf).map_err(|_| Error::InvalidBase64)?.len();
    out.get_mut(..n).ok_or(Error::BufferTooSmall)?.copy_from_slice(buf.get(..n).ok_or(Error::InvalidBase64)?);
    Ok(n)
}
