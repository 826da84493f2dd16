//! The deterministic CBOR (RFC 8949 §4.2.1) of ACT's messages
//! (draft-schlesinger-cfrg-act-01 §4), as the reference code writes it.
//!
//! Every message is a map with the integer keys 1..n in ascending order
//! whose values are 32-byte byte strings (elements and scalars), or, in
//! the spend proof, definite-length arrays of them. The schema is fixed, so
//! each message has exactly one valid encoding, and this codec compares
//! every header byte against it: a decoder refuses another major type, a
//! key that is unknown, repeated or out of order, a non-minimal length or
//! count, an indefinite length, a missing field and trailing bytes.
//!
//! Why hand-written: `minicbor` (no_std, no alloc) was the candidate, but
//! its decoder accepts non-minimal heads (`0x18 0x05` for 5, `0x59 0x00
//! 0x20` for a 32-byte string) and has no strict mode, so a wrapper would
//! have had to re-check every head byte it read; with a fixed schema, that
//! check is the whole codec (about sixty lines here), and the encoder is a
//! few header bytes around 32-byte copies.
//!
//! Errors: `Truncated` when the input ends early; `TrailingBytes` after a
//! complete message; `InvalidLength(Message)` for a head of the expected
//! major type with another length or count; `InvalidValue(Message)` for
//! any other unexpected head byte (major type, key).

use crate::error::{Error, Field, Result};

/// Length of a 32-byte string item: head `0x58 0x20` and the bytes.
pub(crate) const BSTR32_LEN: usize = 2 + 32;

/// Length of a flat map of `n` ≤ 23 byte-string fields keyed 1..n.
pub(crate) const fn flat_len(n: usize) -> usize {
    1 + n * (1 + BSTR32_LEN)
}

/// Length of an array head for `n` ≤ 255 items.
pub(crate) const fn array_head_len(n: usize) -> usize {
    if n < 24 { 1 } else { 2 }
}

/// A writer into a caller buffer.
pub(crate) struct Writer<'a> {
    out: &'a mut [u8],
    pos: usize,
}

impl<'a> Writer<'a> {
    pub(crate) fn new(out: &'a mut [u8]) -> Self {
        Self { out, pos: 0 }
    }

    fn raw(&mut self, bytes: &[u8]) -> Result<()> {
        let end = self.pos.checked_add(bytes.len()).ok_or(Error::BufferTooSmall)?;
        self.out.get_mut(self.pos..end).ok_or(Error::BufferTooSmall)?.copy_from_slice(bytes);
        self.pos = end;
        Ok(())
    }

    /// A map head for `n` ≤ 23 pairs.
    pub(crate) fn map(&mut self, n: u8) -> Result<()> {
        self.raw(&[0xa0 | (n & 0x1f)])
    }

    /// A key ≤ 23 (an unsigned integer in its one-byte form).
    pub(crate) fn key(&mut self, k: u8) -> Result<()> {
        self.raw(&[k & 0x1f])
    }

    /// An array head for `n` ≤ 255 items.
    pub(crate) fn array(&mut self, n: usize) -> Result<()> {
        let n = u8::try_from(n).map_err(|_| Error::ValueTooLarge)?;
        if n < 24 { self.raw(&[0x80 | n]) } else { self.raw(&[0x98, n]) }
    }

    /// A 32-byte string.
    pub(crate) fn bstr32(&mut self, bytes: &[u8; 32]) -> Result<()> {
        self.raw(&[0x58, 0x20])?;
        self.raw(bytes)
    }

    /// The number of bytes written.
    pub(crate) fn len(&self) -> usize {
        self.pos
    }
}

/// Writes a flat map of byte-string fields keyed 1..n; returns its length.
pub(crate) fn write_flat(out: &mut [u8], fields: &[&[u8; 32]]) -> Result<usize> {
    let mut w = Writer::new(out);
    w.map(u8::try_from(fields.len()).map_err(|_| Error::ValueTooLarge)?)?;
    for (k, f) in (1u8..).zip(fields) {
        w.key(k)?;
        w.bstr32(f)?;
    }
    Ok(w.len())
}

/// A reader over a borrowed message.
pub(crate) struct Reader<'a> {
    buf: &'a [u8],
}

/// The major type of a head byte.
const fn major(b: u8) -> u8 {
    b >> 5
}

impl<'a> Reader<'a> {
    pub(crate) fn new(buf: &'a [u8]) -> Self {
        Self { buf }
    }

    fn take(&mut self, n: usize) -> Result<&'a [u8]> {
        if self.buf.len() < n {
            return Err(Error::Truncated);
        }
        let (head, rest) = self.buf.split_at(n);
        self.buf = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8> {
        self.take(1)?.first().copied().ok_or(Error::Truncated)
    }

    /// A head of major type `mt` that must be `expected`.
    fn head(&mut self, expected: &[u8], mt: u8) -> Result<()> {
        for (i, &want) in expected.iter().enumerate() {
            let got = self.byte()?;
            if got != want {
                // A wrong first byte of the right major type, or a wrong
                // length byte after it, is a length; anything else a type.
                return Err(if i > 0 || major(got) == mt {
                    Error::InvalidLength(Field::Message)
                } else {
                    Error::InvalidValue(Field::Message)
                });
            }
        }
        Ok(())
    }

    /// A map head for exactly `n` ≤ 23 pairs.
    pub(crate) fn map(&mut self, n: u8) -> Result<()> {
        self.head(&[0xa0 | (n & 0x1f)], 5)
    }

    /// The key `k` ≤ 23, and nothing else.
    pub(crate) fn key(&mut self, k: u8) -> Result<()> {
        if self.byte()? != k & 0x1f {
            return Err(Error::InvalidValue(Field::Message));
        }
        Ok(())
    }

    /// An array head for exactly `n` ≤ 255 items.
    pub(crate) fn array(&mut self, n: usize) -> Result<()> {
        let n = u8::try_from(n).map_err(|_| Error::InvalidLength(Field::Message))?;
        if n < 24 { self.head(&[0x80 | n], 4) } else { self.head(&[0x98, n], 4) }
    }

    /// A byte string of exactly 32 bytes.
    pub(crate) fn bstr32(&mut self) -> Result<[u8; 32]> {
        self.head(&[0x58, 0x20], 2)?;
        let mut out = [0u8; 32];
        out.copy_from_slice(self.take(32)?);
        Ok(out)
    }

    /// The end of a top-level message: `TrailingBytes` if anything is left.
    pub(crate) fn finish(self) -> Result<()> {
        if self.buf.is_empty() { Ok(()) } else { Err(Error::TrailingBytes) }
    }
}

/// Reads a whole flat map of `N` byte-string fields keyed 1..N.
pub(crate) fn read_flat<const N: usize>(bytes: &[u8]) -> Result<[[u8; 32]; N]> {
    let mut r = Reader::new(bytes);
    r.map(u8::try_from(N).map_err(|_| Error::InvalidLength(Field::Message))?)?;
    let mut out = [[0u8; 32]; N];
    for (k, slot) in (1u8..).zip(out.iter_mut()) {
        r.key(k)?;
        *slot = r.bstr32()?;
    }
    r.finish()?;
    Ok(out)
}
