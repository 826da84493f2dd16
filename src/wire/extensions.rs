//! Token extensions (draft-ietf-privacypass-auth-scheme-extensions): the
//! `Extensions` list that a client sends with a token, and that token type
//! 0xDA7A binds into its signature as public metadata
//! (draft-ietf-privacypass-public-metadata-issuance).
//!
//! ```text
//! struct {
//!     uint16 extension_type;
//!     opaque extension_data<0..2^16-1>;
//! } Extension;
//!
//! struct {
//!     Extension extensions<0..2^16-1>;
//! } Extensions;
//! ```
//!
//! The list is sorted by `extension_type`; the same type may appear more
//! than once (the draft leaves repeated types to each extension's
//! definition, and privacypass-ts produces them), so the order is
//! non-decreasing. A decoder checks every entry's header and length against
//! the list's length, the order, and that nothing trails the list; it keeps
//! borrowing the input, so [`Extensions::as_bytes`] is the exact encoding
//! that was signed.
//!
//! [`ExtensionsWriter`] builds a list into a caller buffer and enforces the
//! same rules.

use crate::error::{Error, Field, Result};
use crate::wire::codec::{Decode, Encode, Reader, Writer};

/// The largest encoded `Extensions`: the 2-byte length and 65,535 bytes of
/// entries.
pub const EXTENSIONS_MAX_LEN: usize = 2 + 0xffff;
/// The largest `extension_data` that fits in a list: 65,535 bytes of entries
/// less the 4-byte header of its own entry.
pub const EXTENSION_DATA_MAX_LEN: usize = 0xffff - 4;
/// The encoding of the empty list.
pub const EMPTY_EXTENSIONS: [u8; 2] = [0, 0];

/// One extension: its type and its data, borrowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extension<'a> {
    /// `extension_type`.
    pub extension_type: u16,
    /// `extension_data`.
    pub data: &'a [u8],
}

impl Extension<'_> {
    /// The encoded length: 4 bytes of header and the data.
    pub const fn encoded_len(&self) -> usize {
        4 + self.data.len()
    }
}

/// A validated `Extensions` list, borrowing its encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Extensions<'a> {
    /// The whole encoding, length prefix included.
    encoded: &'a [u8],
}

impl core::fmt::Debug for Extensions<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl Default for Extensions<'_> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<'a> Extensions<'a> {
    /// The empty list (encoded as two zero bytes).
    pub const EMPTY: Extensions<'static> = Extensions { encoded: &EMPTY_EXTENSIONS };

    /// The encoding, length prefix included: the `info` that token type
    /// 0xDA7A signs with, and the value of the `extensions` parameter.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.encoded
    }

    /// The entries, without the length prefix.
    fn body(&self) -> &'a [u8] {
        self.encoded.get(2..).unwrap_or_default()
    }

    /// The extensions in order.
    pub fn iter(&self) -> ExtensionsIter<'a> {
        ExtensionsIter { r: Reader::new(self.body()) }
    }

    /// The number of extensions.
    pub fn len(&self) -> usize {
        self.iter().count()
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.body().is_empty()
    }

    /// The first extension of type `extension_type`, if any.
    pub fn get(&self, extension_type: u16) -> Option<Extension<'a>> {
        self.iter().find(|e| e.extension_type == extension_type)
    }

    /// Every extension of type `extension_type`, in order.
    pub fn all_of(&self, extension_type: u16) -> impl Iterator<Item = Extension<'a>> + 'a {
        self.iter().filter(move |e| e.extension_type == extension_type)
    }
}

/// Reads one entry's header and data.
fn read_entry<'a>(r: &mut Reader<'a>) -> Result<Extension<'a>> {
    let extension_type = r.u16().map_err(|_| Error::InvalidLength(Field::Extension))?;
    let len = usize::from(r.u16().map_err(|_| Error::InvalidLength(Field::Extension))?);
    let data = r.take(len).map_err(|_| Error::InvalidLength(Field::Extension))?;
    Ok(Extension { extension_type, data })
}

impl<'a> Decode<'a> for Extensions<'a> {
    /// Reads the length prefix and the entries it covers; every entry must
    /// end inside the list (else [`Error::InvalidLength`]`(`[`Field::Extension`]`)`)
    /// and the types must not decrease ([`Error::UnsortedExtensions`]).
    /// Input shorter than the prefix says is [`Error::Truncated`].
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let start = r.clone();
        let body = r.u16_prefixed(0, 0xffff, Field::Extensions)?;
        let encoded = start.clone().take(2 + body.len())?;
        let mut entries = Reader::new(body);
        let mut last: Option<u16> = None;
        while !entries.is_empty() {
            let entry = read_entry(&mut entries)?;
            if last.is_some_and(|t| entry.extension_type < t) {
                return Err(Error::UnsortedExtensions);
            }
            last = Some(entry.extension_type);
        }
        Ok(Self { encoded })
    }
}

impl Encode for Extensions<'_> {
    fn encoded_len(&self) -> usize {
        self.encoded.len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.encoded)
    }
}

/// Iterator over the entries of a validated list.
#[derive(Clone, Debug)]
pub struct ExtensionsIter<'a> {
    r: Reader<'a>,
}

impl<'a> Iterator for ExtensionsIter<'a> {
    type Item = Extension<'a>;

    fn next(&mut self) -> Option<Extension<'a>> {
        if self.r.is_empty() {
            return None;
        }
        // The list was validated when it was decoded or built.
        read_entry(&mut self.r).ok()
    }
}

/// Builds an `Extensions` list into a caller buffer, in order.
///
/// ```
/// use pat::wire::extensions::ExtensionsWriter;
/// let mut buf = [0u8; 16];
/// let mut w = ExtensionsWriter::new(&mut buf);
/// w.push(0x0001, b"\x01\x02")?;
/// w.push(0x0002, b"")?;
/// let ext = w.finish()?;
/// assert_eq!(ext.as_bytes(), [0, 10, 0, 1, 0, 2, 1, 2, 0, 2, 0, 0]);
/// # Ok::<(), pat::Error>(())
/// ```
#[derive(Debug)]
pub struct ExtensionsWriter<'o> {
    buf: &'o mut [u8],
    len: usize,
    last: Option<u16>,
}

impl<'o> ExtensionsWriter<'o> {
    /// Starts an empty list at the front of `buf`.
    pub fn new(buf: &'o mut [u8]) -> Self {
        Self { buf, len: 2, last: None }
    }

    /// Appends an extension. [`Error::UnsortedExtensions`] if its type is
    /// below the previous one, [`Error::InvalidLength`]`(`[`Field::Extensions`]`)`
    /// if the list would pass 65,535 bytes of entries, and
    /// [`Error::BufferTooSmall`] if `buf` is full. A failed push leaves the
    /// list as it was.
    pub fn push(&mut self, extension_type: u16, data: &[u8]) -> Result<()> {
        if self.last.is_some_and(|t| extension_type < t) {
            return Err(Error::UnsortedExtensions);
        }
        let data_len = u16::try_from(data.len()).map_err(|_| Error::InvalidLength(Field::Extensions))?;
        let end = self.len.checked_add(4 + data.len()).ok_or(Error::InvalidLength(Field::Extensions))?;
        if end > EXTENSIONS_MAX_LEN {
            return Err(Error::InvalidLength(Field::Extensions));
        }
        let out = self.buf.get_mut(self.len..end).ok_or(Error::BufferTooSmall)?;
        let mut w = Writer::new(out);
        w.u16(extension_type)?;
        w.u16(data_len)?;
        w.put(data)?;
        self.len = end;
        self.last = Some(extension_type);
        Ok(())
    }

    /// Writes the length prefix and returns the list.
    pub fn finish(self) -> Result<Extensions<'o>> {
        let body_len = u16::try_from(self.len - 2).map_err(|_| Error::InvalidLength(Field::Extensions))?;
        let buf: &'o mut [u8] = self.buf;
        let prefix = buf.get_mut(..2).ok_or(Error::BufferTooSmall)?;
        prefix.copy_from_slice(&body_len.to_be_bytes());
        let encoded: &'o [u8] = buf.get(..self.len).ok_or(Error::BufferTooSmall)?;
        Ok(Extensions { encoded })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    #[test]
    fn empty_list() {
        let e = Extensions::decode(&[0, 0]).unwrap();
        assert!(e.is_empty());
        assert_eq!(e.len(), 0);
        assert_eq!(e, Extensions::EMPTY);
        let mut buf = [0xffu8; 2];
        assert_eq!(ExtensionsWriter::new(&mut buf).finish().unwrap().as_bytes(), [0, 0]);
    }

    #[test]
    fn round_trip_and_lookup() {
        let bytes = [0, 15, 0, 1, 0, 1, 7, 0, 1, 0, 0, 0xff, 0xff, 0, 2, 8, 9];
        let e = Extensions::decode(&bytes).unwrap();
        assert_eq!(e.len(), 3);
        assert_eq!(e.get(1), Some(Extension { extension_type: 1, data: &[7] }));
        assert_eq!(e.all_of(1).count(), 2);
        assert_eq!(e.get(0xffff).unwrap().data, [8, 9]);
        assert_eq!(e.get(2), None);
        let mut out = [0u8; 17];
        assert_eq!(e.encode(&mut out).unwrap(), 17);
        assert_eq!(out, bytes);
    }

    #[test]
    fn decode_rejects_bad_structure() {
        // Truncated prefix and body.
        assert_eq!(Extensions::decode(&[0]), Err(Error::Truncated));
        assert_eq!(Extensions::decode(&[0, 5, 0, 1, 0, 0]), Err(Error::Truncated));
        // An entry that runs past the list, or a header cut short.
        assert_eq!(Extensions::decode(&[0, 5, 0, 1, 0, 2, 9]), Err(Error::InvalidLength(Field::Extension)));
        assert_eq!(Extensions::decode(&[0, 3, 0, 1, 0]), Err(Error::InvalidLength(Field::Extension)));
        // Decreasing types.
        assert_eq!(Extensions::decode(&[0, 8, 0, 2, 0, 0, 0, 1, 0, 0]), Err(Error::UnsortedExtensions));
        // Trailing bytes after the list.
        assert_eq!(Extensions::decode(&[0, 0, 0]), Err(Error::TrailingBytes));
    }

    #[test]
    fn writer_rules() {
        let mut buf = [0u8; 64];
        let mut w = ExtensionsWriter::new(&mut buf);
        w.push(5, b"ab").unwrap();
        assert_eq!(w.push(4, b""), Err(Error::UnsortedExtensions));
        w.push(5, b"").unwrap();
        let e = w.finish().unwrap();
        assert_eq!(e.as_bytes(), [0, 10, 0, 5, 0, 2, b'a', b'b', 0, 5, 0, 0]);
        assert_eq!(Extensions::decode(e.as_bytes()).unwrap(), e);

        let mut small = [0u8; 5];
        let mut w = ExtensionsWriter::new(&mut small);
        assert_eq!(w.push(1, b"x"), Err(Error::BufferTooSmall));
        assert_eq!(w.finish().unwrap().as_bytes(), [0, 0]);
    }

    #[test]
    fn largest_list() {
        let mut buf = [0u8; EXTENSIONS_MAX_LEN + 1];
        let data = [0xaau8; EXTENSION_DATA_MAX_LEN];
        let mut w = ExtensionsWriter::new(&mut buf);
        w.push(0xaa, &data).unwrap();
        assert_eq!(w.push(0xaa, b""), Err(Error::InvalidLength(Field::Extensions)));
        let e = w.finish().unwrap();
        assert_eq!(e.as_bytes().len(), EXTENSIONS_MAX_LEN);
        assert_eq!(Extensions::decode(e.as_bytes()).unwrap().get(0xaa).unwrap().data.len(), EXTENSION_DATA_MAX_LEN);
        let mut w = ExtensionsWriter::new(&mut buf);
        assert_eq!(w.push(1, &[0u8; EXTENSION_DATA_MAX_LEN + 1]), Err(Error::InvalidLength(Field::Extensions)));
    }
}
