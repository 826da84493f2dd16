//! The wire codec shared by every message: a borrowed [`Reader`] and a [`Writer`]
//! into a caller buffer.
//!
//! All integers are big-endian. Length prefixes follow the TLS presentation
//! language (`opaque x<a..b>` uses a 1-byte prefix when `b ≤ 255` and 2 bytes when
//! `b ≤ 65535`); the batched-token drafts use QUIC variable-length integers
//! (RFC 9000 §16), which must be minimally encoded. Decoders never copy: they
//! hand out sub-slices of the input. Top-level decoders reject trailing bytes.

use crate::error::{Error, Field, Result};

/// The largest value a QUIC variable-length integer can carry (2^62 − 1).
pub const VARINT_MAX: u64 = (1 << 62) - 1;

/// A cursor over borrowed input.
#[derive(Clone, Debug)]
pub struct Reader<'a> {
    buf: &'a [u8],
}

impl<'a> Reader<'a> {
    /// Starts reading `buf` from its first byte.
    pub const fn new(buf: &'a [u8]) -> Self {
        Self { buf }
    }

    /// The number of bytes not yet read.
    pub const fn remaining(&self) -> usize {
        self.buf.len()
    }

    /// Whether every byte has been read.
    pub const fn is_empty(&self) -> bool {
        self.buf.is_empty()
    }

    /// Reads the next `n` bytes.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        let (head, tail) = self.buf.split_at_checked(n).ok_or(Error::Truncated)?;
        self.buf = tail;
        Ok(head)
    }

    /// Reads the next `N` bytes as an array reference.
    pub fn array<const N: usize>(&mut self) -> Result<&'a [u8; N]> {
        let (head, tail) = self.buf.split_first_chunk::<N>().ok_or(Error::Truncated)?;
        self.buf = tail;
        Ok(head)
    }

    /// Reads everything that is left.
    pub fn rest(&mut self) -> &'a [u8] {
        core::mem::take(&mut self.buf)
    }

    /// Reads one byte.
    pub fn u8(&mut self) -> Result<u8> {
        let [b] = *self.array::<1>()?;
        Ok(b)
    }

    /// Reads a big-endian `u16`.
    pub fn u16(&mut self) -> Result<u16> {
        Ok(u16::from_be_bytes(*self.array::<2>()?))
    }

    /// Reads a QUIC variable-length integer and rejects non-minimal encodings.
    pub fn varint(&mut self) -> Result<u64> {
        let first = *self.buf.first().ok_or(Error::Truncated)?;
        let len = 1usize << (first >> 6);
        let bytes = self.take(len)?;
        let mut value = u64::from(first & 0x3f);
        for b in bytes.iter().skip(1) {
            value = (value << 8) | u64::from(*b);
        }
        let min = match len {
            1 => 0,
            2 => 64,
            4 => 1 << 14,
            _ => 1 << 30,
        };
        if value < min {
            return Err(Error::NonMinimalVarint);
        }
        Ok(value)
    }

    /// Reads `opaque x<lo..hi>` with a 1-byte length prefix.
    pub fn u8_prefixed(&mut self, lo: usize, hi: usize, field: Field) -> Result<&'a [u8]> {
        let len = usize::from(self.u8()?);
        self.bounded(len, lo, hi, field)
    }

    /// Reads `opaque x<lo..hi>` with a 2-byte length prefix.
    pub fn u16_prefixed(&mut self, lo: usize, hi: usize, field: Field) -> Result<&'a [u8]> {
        let len = usize::from(self.u16()?);
        self.bounded(len, lo, hi, field)
    }

    /// Reads bytes preceded by a QUIC varint byte length, bounded by `lo..=hi`.
    pub fn varint_prefixed(&mut self, lo: usize, hi: usize, field: Field) -> Result<&'a [u8]> {
        let len = usize::try_from(self.varint()?).map_err(|_| Error::InvalidLength(field))?;
        self.bounded(len, lo, hi, field)
    }

    fn bounded(&mut self, len: usize, lo: usize, hi: usize, field: Field) -> Result<&'a [u8]> {
        if len < lo || len > hi {
            return Err(Error::InvalidLength(field));
        }
        self.take(len)
    }

    /// Ends a top-level decode: fails with [`Error::TrailingBytes`] if input is left.
    pub fn finish(self) -> Result<()> {
        if self.buf.is_empty() { Ok(()) } else { Err(Error::TrailingBytes) }
    }
}

/// A cursor writing into a caller-provided buffer.
#[derive(Debug)]
pub struct Writer<'a> {
    buf: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    /// Starts writing at the beginning of `buf`.
    pub fn new(buf: &'a mut [u8]) -> Self {
        Self { buf, pos: 0 }
    }

    /// The number of bytes written so far.
    pub const fn len(&self) -> usize {
        self.pos
    }

    /// Whether nothing has been written yet.
    pub const fn is_empty(&self) -> bool {
        self.pos == 0
    }

    /// Reserves the next `n` bytes and returns them for the caller to fill.
    pub fn reserve(&mut self, n: usize) -> Result<&mut [u8]> {
        let end = self.pos.checked_add(n).ok_or(Error::BufferTooSmall)?;
        let out = self.buf.get_mut(self.pos..end).ok_or(Error::BufferTooSmall)?;
        self.pos = end;
        Ok(out)
    }

    /// Appends bytes.
    pub fn put(&mut self, bytes: &[u8]) -> Result<()> {
        self.reserve(bytes.len())?.copy_from_slice(bytes);
        Ok(())
    }

    /// Appends `v` as ASCII decimal digits, without leading zeros (HTTP
    /// `max-age`, JSON integers).
    pub(crate) fn decimal(&mut self, mut v: u64) -> Result<()> {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        loop {
            start -= 1;
            let d = u8::try_from(v % 10).map_err(|_| Error::ValueTooLarge)?;
            *digits.get_mut(start).ok_or(Error::ValueTooLarge)? = b'0' + d;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        self.put(digits.get(start..).unwrap_or_default())
    }

    /// Appends one byte.
    pub fn u8(&mut self, v: u8) -> Result<()> {
        self.put(&[v])
    }

    /// Appends a big-endian `u16`.
    pub fn u16(&mut self, v: u16) -> Result<()> {
        self.put(&v.to_be_bytes())
    }

    /// Appends a QUIC variable-length integer in its shortest form.
    pub fn varint(&mut self, v: u64) -> Result<()> {
        let len = varint_len(v)?;
        let be = v.to_be_bytes();
        let out = self.reserve(len)?;
        // `len` is 1, 2, 4 or 8, so the tail slice always exists.
        let tail = be.get(8 - len..).ok_or(Error::ValueTooLarge)?;
        out.copy_from_slice(tail);
        if let Some(first) = out.first_mut() {
            // `len.trailing_zeros()` is 0..=3: the 2-bit length tag.
            *first |= u8::try_from(len.trailing_zeros()).map_err(|_| Error::ValueTooLarge)? << 6;
        }
        Ok(())
    }

    /// Appends `bytes` with a 1-byte length prefix.
    pub fn u8_prefixed(&mut self, bytes: &[u8]) -> Result<()> {
        self.u8(u8::try_from(bytes.len()).map_err(|_| Error::ValueTooLarge)?)?;
        self.put(bytes)
    }

    /// Appends `bytes` with a 2-byte length prefix.
    pub fn u16_prefixed(&mut self, bytes: &[u8]) -> Result<()> {
        self.u16(u16::try_from(bytes.len()).map_err(|_| Error::ValueTooLarge)?)?;
        self.put(bytes)
    }

    /// Appends `bytes` with a QUIC varint length prefix.
    pub fn varint_prefixed(&mut self, bytes: &[u8]) -> Result<()> {
        self.varint(u64::try_from(bytes.len()).map_err(|_| Error::ValueTooLarge)?)?;
        self.put(bytes)
    }

    /// Finishes writing and returns the number of bytes written.
    pub const fn finish(self) -> usize {
        self.pos
    }
}

/// The number of bytes the shortest QUIC varint encoding of `v` takes.
pub const fn varint_len(v: u64) -> Result<usize> {
    if v < 1 << 6 {
        Ok(1)
    } else if v < 1 << 14 {
        Ok(2)
    } else if v < 1 << 30 {
        Ok(4)
    } else if v <= VARINT_MAX {
        Ok(8)
    } else {
        Err(Error::ValueTooLarge)
    }
}

/// The length of `body` bytes behind their shortest varint length prefix,
/// saturating at `usize::MAX` (for the `const fn` size bounds).
pub const fn varint_prefixed_len(body: usize) -> usize {
    let prefix = match varint_len(body as u64) {
        Ok(len) => len,
        Err(_) => 8,
    };
    body.saturating_add(prefix)
}

/// A message that decodes from borrowed bytes.
pub trait Decode<'a>: Sized {
    /// Reads the message from the front of `r`, leaving what follows it.
    fn decode_from(r: &mut Reader<'a>) -> Result<Self>;

    /// Decodes a complete message: fails on truncation and on trailing bytes.
    fn decode(bytes: &'a [u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let v = Self::decode_from(&mut r)?;
        r.finish()?;
        Ok(v)
    }
}

/// A message that encodes into a caller buffer.
pub trait Encode {
    /// The exact number of bytes [`Encode::encode_into`] writes.
    fn encoded_len(&self) -> usize;

    /// Appends the encoding to `w`.
    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()>;

    /// Encodes into the front of `out` and returns the number of bytes written.
    ///
    /// Fails with [`Error::BufferTooSmall`] before writing anything if `out` is
    /// shorter than [`Encode::encoded_len`].
    fn encode(&self, out: &mut [u8]) -> Result<usize> {
        if out.len() < self.encoded_len() {
            return Err(Error::BufferTooSmall);
        }
        let mut w = Writer::new(out);
        self.encode_into(&mut w)?;
        Ok(w.finish())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    fn enc_varint(v: u64) -> ([u8; 8], usize) {
        let mut buf = [0u8; 8];
        let mut w = Writer::new(&mut buf);
        w.varint(v).unwrap();
        let n = w.finish();
        (buf, n)
    }

    #[test]
    fn varint_rfc9000_examples() {
        // RFC 9000 Appendix A.1 sample encodings.
        let cases: [(&[u8], u64); 4] = [
            (&[0xc2, 0x19, 0x7c, 0x5e, 0xff, 0x14, 0xe8, 0x8c], 151_288_809_941_952_652),
            (&[0x9d, 0x7f, 0x3e, 0x7d], 494_878_333),
            (&[0x7b, 0xbd], 15_293),
            (&[0x25], 37),
        ];
        for (bytes, value) in cases {
            let mut r = Reader::new(bytes);
            assert_eq!(r.varint().unwrap(), value);
            assert!(r.is_empty());
            let (buf, n) = enc_varint(value);
            assert_eq!(&buf[..n], bytes);
        }
    }

    #[test]
    fn varint_boundaries_roundtrip() {
        for v in [0, 63, 64, 16_383, 16_384, (1 << 30) - 1, 1 << 30, VARINT_MAX] {
            let (buf, n) = enc_varint(v);
            assert_eq!(n, varint_len(v).unwrap());
            let mut r = Reader::new(&buf[..n]);
            assert_eq!(r.varint().unwrap(), v);
            r.finish().unwrap();
        }
    }

    #[test]
    fn varint_rejects_non_minimal() {
        // RFC 9000 A.1: 0x4025 also decodes to 37 but is not minimal.
        for bytes in [
            &[0x40, 0x25][..],
            &[0x80, 0x00, 0x00, 0x25],
            &[0xc0, 0, 0, 0, 0, 0, 0, 0x25],
            &[0x80, 0x00, 0x3f, 0xff],
            &[0xc0, 0, 0, 0, 0x3f, 0xff, 0xff, 0xff],
        ] {
            assert_eq!(Reader::new(bytes).varint(), Err(Error::NonMinimalVarint), "{bytes:02x?}");
        }
    }

    #[test]
    fn varint_rejects_truncated_and_too_large() {
        assert_eq!(Reader::new(&[]).varint(), Err(Error::Truncated));
        assert_eq!(Reader::new(&[0x40]).varint(), Err(Error::Truncated));
        assert_eq!(Reader::new(&[0xc0, 0, 0]).varint(), Err(Error::Truncated));
        let mut buf = [0u8; 8];
        assert_eq!(Writer::new(&mut buf).varint(VARINT_MAX + 1), Err(Error::ValueTooLarge));
    }

    #[test]
    fn prefixed_bounds() {
        let mut r = Reader::new(&[3, 1, 2, 3]);
        assert_eq!(r.u8_prefixed(0, 255, Field::Message).unwrap(), &[1, 2, 3]);
        let mut r = Reader::new(&[3, 1, 2, 3]);
        assert_eq!(r.u8_prefixed(4, 255, Field::Message), Err(Error::InvalidLength(Field::Message)));
        let mut r = Reader::new(&[0, 4, 1, 2, 3]);
        assert_eq!(r.u16_prefixed(0, 65535, Field::Message), Err(Error::Truncated));
        let mut r = Reader::new(&[0x02, 9, 9]);
        assert_eq!(r.varint_prefixed(0, 2, Field::Batch).unwrap(), &[9, 9]);
        let mut r = Reader::new(&[0x40, 0x02, 9, 9]);
        assert_eq!(r.varint_prefixed(0, 2, Field::Batch), Err(Error::NonMinimalVarint));
        let mut r = Reader::new(&[0x02, 9, 9]);
        assert_eq!(r.varint_prefixed(0, 1, Field::Batch), Err(Error::InvalidLength(Field::Batch)));
        let mut r = Reader::new(&[0x05, 1]);
        assert_eq!(r.varint_prefixed(0, 10, Field::Batch), Err(Error::Truncated));
    }

    #[test]
    fn writer_reports_small_buffer() {
        let mut buf = [0u8; 3];
        let mut w = Writer::new(&mut buf);
        w.u16(7).unwrap();
        assert_eq!(w.u16(8), Err(Error::BufferTooSmall));
        let mut buf = [0u8; 300];
        let mut w = Writer::new(&mut buf);
        assert_eq!(w.u8_prefixed(&[0u8; 256]), Err(Error::ValueTooLarge));
    }

    #[test]
    fn finish_rejects_trailing() {
        let mut r = Reader::new(&[1, 2]);
        r.u8().unwrap();
        assert_eq!(r.finish(), Err(Error::TrailingBytes));
    }
}
