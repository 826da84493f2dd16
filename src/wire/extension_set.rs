//! The `ExtensionSet` of a challenge
//! (draft-ietf-privacypass-auth-scheme-extensions-03 §4): the extension
//! types an origin asks a client for, each marked required or optional.
//!
//! ```text
//! struct {
//!     enum { false(0), true(1) } Bool;
//!     Bool is_required;
//!     ExtensionType extension_type;      // uint16
//! } ExtensionEntry;
//!
//! struct {
//!     ExtensionEntry extension_types<0..2^16-1>;
//! } ExtensionSet;
//! ```
//!
//! Every entry is three bytes, so the list's length is a multiple of three
//! (at most 65,535 bytes: 21,845 entries). A decoder checks that, that each
//! `is_required` byte is 0 or 1 (the two values the draft's `Bool` has), and
//! that nothing trails the list; it keeps borrowing the input. The draft
//! puts no order on the entries and does not forbid a type listed twice:
//! both are accepted as received, and a type counts as required when any of
//! its entries says so ([`ExtensionSet::is_required`]).
//!
//! It travels base64url-encoded in the `extension-set` parameter of
//! `WWW-Authenticate` ([`crate::wire::auth`]); the extensions themselves are
//! [`crate::wire::extensions`].

use crate::error::{Error, Field, Result};
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::extensions::Extensions;

/// The encoded size of one `ExtensionEntry`: `is_required` and the type.
pub const EXTENSION_ENTRY_LEN: usize = 3;
/// The most entries a set holds: 65,535 bytes of 3-byte entries.
pub const EXTENSION_SET_MAX_ENTRIES: usize = 0xffff / EXTENSION_ENTRY_LEN;
/// The largest encoded `ExtensionSet`: the 2-byte length and 65,535 bytes
/// of entries.
pub const EXTENSION_SET_MAX_LEN: usize = 2 + EXTENSION_SET_MAX_ENTRIES * EXTENSION_ENTRY_LEN;

/// The encoded length of a set of `entries` entries (saturating).
pub const fn extension_set_len(entries: usize) -> usize {
    entries.saturating_mul(EXTENSION_ENTRY_LEN).saturating_add(2)
}

/// One entry of an [`ExtensionSet`]: an extension type and whether the
/// origin requires it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ExtensionEntry {
    /// `extension_type`.
    pub extension_type: u16,
    /// `is_required`: a client that leaves a required type out should
    /// expect its token to be refused; an optional one it may send or not.
    pub required: bool,
}

impl ExtensionEntry {
    /// A required entry for `extension_type`.
    pub const fn required(extension_type: u16) -> Self {
        Self { extension_type, required: true }
    }

    /// An optional entry for `extension_type`.
    pub const fn optional(extension_type: u16) -> Self {
        Self { extension_type, required: false }
    }
}

/// A validated `ExtensionSet`, borrowing its encoding.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ExtensionSet<'a> {
    /// The whole encoding, length prefix included.
    encoded: &'a [u8],
}

impl core::fmt::Debug for ExtensionSet<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The encoding of the empty set.
const EMPTY_EXTENSION_SET: [u8; 2] = [0, 0];

impl Default for ExtensionSet<'_> {
    fn default() -> Self {
        Self::EMPTY
    }
}

impl<'a> ExtensionSet<'a> {
    /// The empty set (two zero bytes): the origin asks for no extension.
    pub const EMPTY: ExtensionSet<'static> = ExtensionSet { encoded: &EMPTY_EXTENSION_SET };

    /// The encoding, length prefix included: the bytes of the
    /// `extension-set` parameter before base64url.
    pub const fn as_bytes(&self) -> &'a [u8] {
        self.encoded
    }

    /// The entries, without the length prefix.
    fn body(&self) -> &'a [u8] {
        self.encoded.get(2..).unwrap_or_default()
    }

    /// The entries in the order received.
    pub fn iter(&self) -> ExtensionSetIter<'a> {
        ExtensionSetIter { r: Reader::new(self.body()) }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.body().len() / EXTENSION_ENTRY_LEN
    }

    /// Whether the set has no entry.
    pub fn is_empty(&self) -> bool {
        self.body().is_empty()
    }

    /// Whether some entry names `extension_type`.
    pub fn contains(&self, extension_type: u16) -> bool {
        self.iter().any(|e| e.extension_type == extension_type)
    }

    /// Whether some entry names `extension_type` as required.
    pub fn is_required(&self, extension_type: u16) -> bool {
        self.iter().any(|e| e.required && e.extension_type == extension_type)
    }

    /// The required types, in the order received (a type listed twice as
    /// required comes twice).
    pub fn required(&self) -> impl Iterator<Item = u16> + 'a {
        self.iter().filter(|e| e.required).map(|e| e.extension_type)
    }

    /// The first required type of which `extensions` has no extension, if
    /// any: `None` means the list satisfies every requirement of the set.
    pub fn first_missing(&self, extensions: &Extensions<'_>) -> Option<u16> {
        self.required().find(|&t| extensions.get(t).is_none())
    }
}

/// Reads one entry.
fn read_entry(r: &mut Reader<'_>) -> Result<ExtensionEntry> {
    let required = match r.u8()? {
        0 => false,
        1 => true,
        _ => return Err(Error::InvalidValue(Field::ExtensionSet)),
    };
    Ok(ExtensionEntry { extension_type: r.u16()?, required })
}

impl<'a> Decode<'a> for ExtensionSet<'a> {
    /// Reads the length prefix and the entries it covers. Input shorter
    /// than the prefix says is [`Error::Truncated`]; a length that is not a
    /// multiple of three is
    /// [`Error::InvalidLength`]`(`[`Field::ExtensionSet`]`)`; an
    /// `is_required` byte other than 0 or 1 is
    /// [`Error::InvalidValue`]`(`[`Field::ExtensionSet`]`)`.
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let start = r.clone();
        let body = r.u16_prefixed(0, 0xffff, Field::ExtensionSet)?;
        if body.len() % EXTENSION_ENTRY_LEN != 0 {
            return Err(Error::InvalidLength(Field::ExtensionSet));
        }
        let encoded = start.clone().take(2 + body.len())?;
        let mut entries = Reader::new(body);
        while !entries.is_empty() {
            read_entry(&mut entries)?;
        }
        Ok(Self { encoded })
    }
}

impl Encode for ExtensionSet<'_> {
    fn encoded_len(&self) -> usize {
        self.encoded.len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(self.encoded)
    }
}

/// Iterator over the entries of a validated set.
#[derive(Clone, Debug)]
pub struct ExtensionSetIter<'a> {
    r: Reader<'a>,
}

impl Iterator for ExtensionSetIter<'_> {
    type Item = ExtensionEntry;

    fn next(&mut self) -> Option<ExtensionEntry> {
        if self.r.is_empty() {
            return None;
        }
        // The set was validated when it was decoded or built.
        read_entry(&mut self.r).ok()
    }
}

/// Builds an `ExtensionSet` into a caller buffer, entries in the order pushed.
///
/// ```
/// use pat::wire::extension_set::{ExtensionEntry, ExtensionSetWriter};
/// let mut buf = [0u8; 8];
/// let mut w = ExtensionSetWriter::new(&mut buf);
/// w.push(ExtensionEntry::required(0x0002))?;
/// w.push(ExtensionEntry::optional(0x0001))?;
/// let set = w.finish()?;
/// assert_eq!(set.as_bytes(), [0, 6, 1, 0, 2, 0, 0, 1]);
/// assert_eq!(set.required().collect::<Vec<_>>(), [2]);
/// # Ok::<(), pat::Error>(())
/// ```
#[derive(Debug)]
pub struct ExtensionSetWriter<'o> {
    buf: &'o mut [u8],
    len: usize,
}

impl<'o> ExtensionSetWriter<'o> {
    /// Starts an empty set at the front of `buf`.
    pub fn new(buf: &'o mut [u8]) -> Self {
        Self { buf, len: 2 }
    }

    /// Appends an entry. [`Error::InvalidLength`]`(`[`Field::ExtensionSet`]`)`
    /// past [`EXTENSION_SET_MAX_ENTRIES`] entries, [`Error::BufferTooSmall`]
    /// if `buf` is full; a failed push leaves the set as it was.
    pub fn push(&mut self, entry: ExtensionEntry) -> Result<()> {
        let end = self.len + EXTENSION_ENTRY_LEN;
        if end > EXTENSION_SET_MAX_LEN {
            return Err(Error::InvalidLength(Field::ExtensionSet));
        }
        let out = self.buf.get_mut(self.len..end).ok_or(Error::BufferTooSmall)?;
        let mut w = Writer::new(out);
        w.u8(u8::from(entry.required))?;
        w.u16(entry.extension_type)?;
        self.len = end;
        Ok(())
    }

    /// Writes the length prefix and returns the set.
    pub fn finish(self) -> Result<ExtensionSet<'o>> {
        let body_len = u16::try_from(self.len - 2).map_err(|_| Error::InvalidLength(Field::ExtensionSet))?;
        let buf: &'o mut [u8] = self.buf;
        let prefix = buf.get_mut(..2).ok_or(Error::BufferTooSmall)?;
        prefix.copy_from_slice(&body_len.to_be_bytes());
        let encoded: &'o [u8] = buf.get(..self.len).ok_or(Error::BufferTooSmall)?;
        Ok(ExtensionSet { encoded })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    extern crate std;
    use std::vec::Vec;

    use super::*;
    use crate::wire::extensions::ExtensionsWriter;

    #[test]
    fn empty_set() {
        let s = ExtensionSet::decode(&[0, 0]).unwrap();
        assert!(s.is_empty());
        assert_eq!((s.len(), s.iter().count()), (0, 0));
        assert_eq!(s, ExtensionSet::EMPTY);
        assert_eq!(s.first_missing(&Extensions::EMPTY), None);
        let mut buf = [0xffu8; 2];
        assert_eq!(ExtensionSetWriter::new(&mut buf).finish().unwrap().as_bytes(), [0, 0]);
    }

    #[test]
    fn both_bool_values_and_every_type_boundary_decode() {
        // is_required 0 and 1, types 0 (reserved, still a u16), 1, 0xDA7A and 0xFFFF.
        let bytes = [0, 12, 0, 0, 0, 1, 0, 1, 1, 0xda, 0x7a, 0, 0xff, 0xff];
        let s = ExtensionSet::decode(&bytes).unwrap();
        let entries: Vec<_> = s.iter().collect();
        assert_eq!(
            entries,
            [
                ExtensionEntry::optional(0),
                ExtensionEntry::required(1),
                ExtensionEntry::required(0xda7a),
                ExtensionEntry::optional(0xffff)
            ]
        );
        assert_eq!(s.len(), 4);
        assert!(s.contains(0) && s.contains(0xffff) && !s.contains(2));
        assert!(s.is_required(1) && s.is_required(0xda7a) && !s.is_required(0) && !s.is_required(2));
        assert_eq!(s.required().collect::<Vec<_>>(), [1, 0xda7a]);
        let mut out = [0u8; 14];
        assert_eq!(s.encode(&mut out).unwrap(), 14);
        assert_eq!(out, bytes);
    }

    #[test]
    fn order_and_repeats_are_kept_as_received() {
        // Unsorted, and type 5 listed optional then required: it is required.
        let bytes = [0, 9, 0, 0, 5, 1, 0, 3, 1, 0, 5];
        let s = ExtensionSet::decode(&bytes).unwrap();
        assert_eq!(s.iter().map(|e| e.extension_type).collect::<Vec<_>>(), [5, 3, 5]);
        assert!(s.is_required(5));
        assert_eq!(s.required().collect::<Vec<_>>(), [3, 5]);
    }

    #[test]
    fn decode_rejects_bad_structure() {
        // Truncated prefix and body.
        assert_eq!(ExtensionSet::decode(&[]), Err(Error::Truncated));
        assert_eq!(ExtensionSet::decode(&[0]), Err(Error::Truncated));
        assert_eq!(ExtensionSet::decode(&[0, 3, 1, 0]), Err(Error::Truncated));
        // A length that is no whole number of entries.
        for len in [1u8, 2, 4, 5] {
            let mut bytes = std::vec![0, len];
            bytes.resize(2 + usize::from(len), 0);
            assert_eq!(ExtensionSet::decode(&bytes), Err(Error::InvalidLength(Field::ExtensionSet)), "{len}");
        }
        // is_required out of range, in the first and in a later entry.
        for b in [2u8, 0x80, 0xff] {
            assert_eq!(ExtensionSet::decode(&[0, 3, b, 0, 1]), Err(Error::InvalidValue(Field::ExtensionSet)));
            assert_eq!(ExtensionSet::decode(&[0, 6, 1, 0, 1, b, 0, 2]), Err(Error::InvalidValue(Field::ExtensionSet)));
        }
        // Trailing bytes after the set.
        assert_eq!(ExtensionSet::decode(&[0, 0, 0]), Err(Error::TrailingBytes));
        assert_eq!(ExtensionSet::decode(&[0, 3, 1, 0, 1, 0]), Err(Error::TrailingBytes));
    }

    #[test]
    fn writer_round_trips_and_bounds() {
        let mut buf = [0u8; 16];
        let mut w = ExtensionSetWriter::new(&mut buf);
        w.push(ExtensionEntry::required(0xda7a)).unwrap();
        w.push(ExtensionEntry::optional(1)).unwrap();
        let s = w.finish().unwrap();
        assert_eq!(s.as_bytes(), [0, 6, 1, 0xda, 0x7a, 0, 0, 1]);
        assert_eq!(ExtensionSet::decode(s.as_bytes()).unwrap(), s);

        let mut small = [0u8; 4];
        let mut w = ExtensionSetWriter::new(&mut small);
        assert_eq!(w.push(ExtensionEntry::required(1)), Err(Error::BufferTooSmall));
        assert_eq!(w.finish().unwrap().as_bytes(), [0, 0]);

        let mut big = std::vec![0u8; EXTENSION_SET_MAX_LEN + 3];
        let mut w = ExtensionSetWriter::new(&mut big);
        for t in 0..EXTENSION_SET_MAX_ENTRIES {
            w.push(ExtensionEntry::optional(u16::try_from(t).unwrap())).unwrap();
        }
        assert_eq!(w.push(ExtensionEntry::optional(0)), Err(Error::InvalidLength(Field::ExtensionSet)));
        let s = w.finish().unwrap();
        assert_eq!(s.as_bytes().len(), EXTENSION_SET_MAX_LEN);
        assert_eq!(extension_set_len(EXTENSION_SET_MAX_ENTRIES), EXTENSION_SET_MAX_LEN);
        assert_eq!(ExtensionSet::decode(s.as_bytes()).unwrap().len(), EXTENSION_SET_MAX_ENTRIES);
    }

    #[test]
    fn first_missing_reads_the_required_types_only() {
        let mut sbuf = [0u8; 16];
        let mut w = ExtensionSetWriter::new(&mut sbuf);
        w.push(ExtensionEntry::required(2)).unwrap();
        w.push(ExtensionEntry::optional(1)).unwrap();
        w.push(ExtensionEntry::required(7)).unwrap();
        let set = w.finish().unwrap();
        let mut ebuf = [0u8; 32];
        let mut w = ExtensionsWriter::new(&mut ebuf);
        w.push(2, b"US").unwrap();
        let only2 = w.finish().unwrap();
        assert_eq!(set.first_missing(&Extensions::EMPTY), Some(2));
        assert_eq!(set.first_missing(&only2), Some(7));
        let mut ebuf = [0u8; 32];
        let mut w = ExtensionsWriter::new(&mut ebuf);
        w.push(2, b"US").unwrap();
        w.push(7, b"").unwrap();
        assert_eq!(set.first_missing(&w.finish().unwrap()), None);
    }
}
