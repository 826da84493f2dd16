//! A small, strict DER reader and writer for the few fixed structures this
//! module needs (SPKI, PKCS#8 `PrivateKeyInfo`, `RSAPrivateKey`; X.690 §8, §10).
//!
//! Strictness: definite lengths only, in their shortest form; `INTEGER`s are
//! non-negative and minimally encoded; every constructed value must be consumed
//! completely. None of this is constant time: lengths and tags are treated as
//! public. Integer *contents* are only copied, never branched on (apart from
//! the leading byte that DER minimality is about).

use crate::codec::{Reader, Writer};
use crate::error::{Error, Field, Result};

/// `SEQUENCE` (constructed).
pub(crate) const TAG_SEQUENCE: u8 = 0x30;
/// `INTEGER`.
pub(crate) const TAG_INTEGER: u8 = 0x02;
/// `BIT STRING`.
pub(crate) const TAG_BIT_STRING: u8 = 0x03;
/// `OCTET STRING`.
pub(crate) const TAG_OCTET_STRING: u8 = 0x04;

const KEY: Error = Error::InvalidValue(Field::Key);

/// Reads one TLV with the expected tag and returns its contents.
pub(crate) fn read_tlv<'a>(r: &mut Reader<'a>, tag: u8) -> Result<&'a [u8]> {
    if r.u8()? != tag {
        return Err(KEY);
    }
    let first = r.u8()?;
    let len = match first {
        0..=0x7f => usize::from(first),
        0x81 => {
            let b = r.u8()?;
            if b < 0x80 {
                return Err(KEY); // not the shortest form
            }
            usize::from(b)
        }
        0x82 => {
            let v = r.u16()?;
            if v < 0x100 {
                return Err(KEY); // not the shortest form
            }
            usize::from(v)
        }
        // Indefinite lengths (BER) and lengths ≥ 64 KiB never occur here.
        _ => return Err(KEY),
    };
    r.take(len)
}

/// Reads a TLV that must be the whole of `input`.
pub(crate) fn read_single(input: &[u8], tag: u8) -> Result<&[u8]> {
    let mut r = Reader::new(input);
    let inner = read_tlv(&mut r, tag)?;
    r.finish()?;
    Ok(inner)
}

/// Reads a non-negative, minimally encoded `INTEGER` and returns its magnitude
/// without the sign byte (so the first byte is non-zero unless the value is 0,
/// which is returned as one zero byte).
pub(crate) fn read_uint<'a>(r: &mut Reader<'a>) -> Result<&'a [u8]> {
    let bytes = read_tlv(r, TAG_INTEGER)?;
    match bytes {
        [] => Err(KEY),
        [b, ..] if *b >= 0x80 => Err(KEY), // negative
        [0] => Ok(bytes),
        [0, rest @ ..] => match rest.first() {
            Some(b) if *b >= 0x80 => Ok(rest),
            _ => Err(KEY), // superfluous leading zero
        },
        _ => Ok(bytes),
    }
}

/// Writes a DER header (tag and definite length, shortest form).
pub(crate) fn write_header(w: &mut Writer<'_>, tag: u8, len: usize) -> Result<()> {
    match len {
        0..=0x7f => w.put(&[tag, u8::try_from(len).map_err(|_| Error::ValueTooLarge)?]),
        0x80..=0xff => w.put(&[tag, 0x81, u8::try_from(len).map_err(|_| Error::ValueTooLarge)?]),
        _ => {
            let v = u16::try_from(len).map_err(|_| Error::ValueTooLarge)?;
            let [hi, lo] = v.to_be_bytes();
            w.put(&[tag, 0x82, hi, lo])
        }
    }
}

/// The length of a DER header for `len` content bytes.
pub(crate) const fn header_len(len: usize) -> usize {
    if len < 0x80 {
        2
    } else if len < 0x100 {
        3
    } else {
        4
    }
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    #[test]
    fn lengths() {
        let mut r = Reader::new(&[0x02, 0x81, 0x05]);
        assert!(read_tlv(&mut r, TAG_INTEGER).is_err());
        let mut r = Reader::new(&[0x02, 0x82, 0x00, 0x05]);
        assert!(read_tlv(&mut r, TAG_INTEGER).is_err());
        let mut r = Reader::new(&[0x02, 0x80]);
        assert!(read_tlv(&mut r, TAG_INTEGER).is_err());
        assert!(read_single(&[0x05, 0x00, 0x00], 0x05).is_err());
        assert_eq!(read_single(&[0x05, 0x00], 0x05), Ok(&[][..]));
    }

    #[test]
    fn integers() {
        fn ok(b: &[u8]) -> Result<&[u8]> {
            read_uint(&mut Reader::new(b))
        }
        assert_eq!(ok(&[2, 1, 0]), Ok(&[0u8][..]));
        assert_eq!(ok(&[2, 2, 0, 0x80]), Ok(&[0x80u8][..]));
        assert!(ok(&[2, 2, 0, 0x7f]).is_err());
        assert!(ok(&[2, 1, 0x80]).is_err());
        assert!(ok(&[2, 0]).is_err());
    }
}
