//! TokenChallenge (RFC 9577 §2.1.1) and its digest.
//!
//! ```text
//! struct {
//!     uint16_t token_type;
//!     opaque issuer_name<1..2^16-1>;
//!     opaque redemption_context<0..32>;   // exactly 0 or 32 bytes
//!     opaque origin_info<0..2^16-1>;
//! } TokenChallenge;
//! ```
//!
//! Decoding borrows every variable field from the input. The token type is kept
//! as its raw code: RFC 9577 lets origins grease challenges with unassigned
//! types, and a client has to be able to parse and skip them. [`TokenChallenge::kind`]
//! maps it onto the registry.
//!
//! # Names: strict on structure, liberal on content
//!
//! On the wire `issuer_name` and `origin_info` are opaque bytes, and the token
//! binds SHA-256 of exactly the bytes received. Other implementations issue
//! and accept challenges with UTF-8 names or with empty items in the origin
//! list (pat-go and the `privacypass` crate take any bytes; privacypass-ts
//! reads names as UTF-8 text), so decoding checks the structure only (the
//! length bounds of RFC 9577 §2.1.1: a non-empty issuer name, a redemption
//! context of 0 or 32 bytes) and keeps the names as they are.
//! [`TokenChallenge::new`] keeps writing the conservative syntax (printable
//! ASCII, a comma-separated list of non-empty origin names);
//! [`TokenChallenge::new_opaque`] builds what decoding accepts, and
//! [`TokenChallenge::validate_names`] lets a strict origin apply the syntax
//! check to a challenge it received.

use sha2::{Digest, Sha256};

use crate::error::{Error, Field, Result};
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, TokenKind};

/// Length of a non-empty redemption context.
pub const REDEMPTION_CONTEXT_LEN: usize = 32;
/// Largest issuer_name and origin_info (2-byte length prefix).
pub const MAX_NAME_LEN: usize = u16::MAX as usize;
/// Largest possible encoded TokenChallenge (131,109 bytes; see
/// [`PRACTICAL_CHALLENGE_LEN`] for a bound that fits a small buffer).
pub const MAX_CHALLENGE_LEN: usize = challenge_len(MAX_NAME_LEN, REDEMPTION_CONTEXT_LEN, MAX_NAME_LEN);

/// A practical bound on an issuer name or origin name, to size buffers:
/// 259 bytes, a host name of up to 253 bytes (the longest DNS name in text
/// form) with a `:port` suffix (6 bytes), as RFC 9577 §2.1.1 describes
/// both names. Decoding does not enforce it: the wire allows 65,535 bytes.
pub const PRACTICAL_NAME_LEN: usize = 253 + 1 + 5;

/// The length of an encoded TokenChallenge whose fields have these lengths
/// (`redemption_context_len` is 0 or 32). Saturates at `usize::MAX`
/// instead of overflowing.
pub const fn challenge_len(issuer_name_len: usize, redemption_context_len: usize, origin_info_len: usize) -> usize {
    (2 + 2 + 1 + 2_usize)
        .saturating_add(issuer_name_len)
        .saturating_add(redemption_context_len)
        .saturating_add(origin_info_len)
}

/// A practical bound on an encoded TokenChallenge, to size a buffer: an
/// issuer name and an origin_info of one origin name, each up to
/// [`PRACTICAL_NAME_LEN`] bytes, and a redemption context (557 bytes).
/// Challenges listing several origins can be longer: size them with
/// [`challenge_len`].
pub const PRACTICAL_CHALLENGE_LEN: usize =
    challenge_len(PRACTICAL_NAME_LEN, REDEMPTION_CONTEXT_LEN, PRACTICAL_NAME_LEN);

/// A TokenChallenge whose variable fields borrow from a buffer (RFC 9577 §2.1.1).
///
/// Construct with [`TokenChallenge::new`] (checks structure and name syntax),
/// [`TokenChallenge::new_opaque`] (structure only) or [`Decode::decode`]
/// (structure only; rejects trailing bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenChallenge<'a> {
    token_type: u16,
    issuer_name: &'a [u8],
    redemption_context: Option<&'a [u8; REDEMPTION_CONTEXT_LEN]>,
    origin_info: &'a [u8],
}

/// Printable ASCII. RFC 9577 asks for ASCII server and origin names; the space
/// is allowed because deployed issuers use names like "Issuer Name" (the
/// `privacypass` crate's vectors), control bytes and non-ASCII are not.
fn is_name_byte(b: u8) -> bool {
    (0x20..=0x7e).contains(&b)
}

/// The name syntax of [`TokenChallenge::validate_names`]: printable ASCII,
/// and for origin_info a comma-separated list of non-empty names (empty
/// means "any origin").
fn check_name_syntax(issuer_name: &[u8], origin_info: &[u8]) -> Result<()> {
    if !issuer_name.iter().copied().all(is_name_byte) {
        return Err(Error::InvalidValue(Field::IssuerName));
    }
    if !origin_info.is_empty()
        && origin_info.split(|&b| b == b',').any(|name| name.is_empty() || !name.iter().copied().all(is_name_byte))
    {
        return Err(Error::InvalidValue(Field::OriginInfo));
    }
    Ok(())
}

impl<'a> TokenChallenge<'a> {
    /// Builds a challenge, checking every field against RFC 9577 §2.1.1 and
    /// the names against the conservative syntax this crate writes.
    ///
    /// `issuer_name` must be 1..=65535 bytes and `origin_info` 0..=65535 bytes
    /// ([`Error::InvalidLength`]), both printable ASCII, origin_info a
    /// comma-separated list of non-empty names ([`Error::InvalidValue`]);
    /// `redemption_context` must be empty or exactly 32 bytes.
    pub fn new(
        token_type: u16,
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
    ) -> Result<Self> {
        let challenge = Self::new_opaque(token_type, issuer_name, redemption_context, origin_info)?;
        challenge.validate_names()?;
        Ok(challenge)
    }

    /// Builds a challenge checked for structure only, as decoding does: the
    /// length bounds of RFC 9577 §2.1.1 (`issuer_name` 1..=65535 bytes,
    /// `origin_info` 0..=65535, `redemption_context` 0 or 32), with the names
    /// as opaque bytes (UTF-8 names, empty origin-list items). For a challenge
    /// that other implementations must also accept, prefer [`TokenChallenge::new`].
    pub fn new_opaque(
        token_type: u16,
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
    ) -> Result<Self> {
        if issuer_name.is_empty() || issuer_name.len() > MAX_NAME_LEN {
            return Err(Error::InvalidLength(Field::IssuerName));
        }
        if origin_info.len() > MAX_NAME_LEN {
            return Err(Error::InvalidLength(Field::OriginInfo));
        }
        let redemption_context = match redemption_context.len() {
            0 => None,
            _ => Some(
                <&[u8; REDEMPTION_CONTEXT_LEN]>::try_from(redemption_context)
                    .map_err(|_| Error::InvalidLength(Field::RedemptionContext))?,
            ),
        };
        Ok(Self { token_type, issuer_name, redemption_context, origin_info })
    }

    /// The raw token type code.
    pub const fn token_type(&self) -> u16 {
        self.token_type
    }

    /// The token type, if this crate implements it.
    pub const fn kind(&self) -> Result<TokenKind> {
        TokenKind::from_code(self.token_type)
    }

    /// Checks the names against the syntax [`TokenChallenge::new`] writes:
    /// printable ASCII (0x20–0x7e), and origin_info empty or a comma-separated
    /// list of non-empty names; [`Error::InvalidValue`] with
    /// [`Field::IssuerName`] or [`Field::OriginInfo`] otherwise.
    ///
    /// Decoding does not apply it, since other implementations send names
    /// outside it (UTF-8, empty list items) and the token covers the exact
    /// bytes anyway. An origin that wants only such names in the challenges
    /// it redeems can call it.
    pub fn validate_names(&self) -> Result<()> {
        check_name_syntax(self.issuer_name, self.origin_info)
    }

    /// The issuer name, as the bytes received (ASCII when built with
    /// [`TokenChallenge::new`]).
    pub const fn issuer_name(&self) -> &'a [u8] {
        self.issuer_name
    }

    /// The redemption context: empty, or 32 bytes.
    pub fn redemption_context(&self) -> &'a [u8] {
        match self.redemption_context {
            Some(ctx) => ctx,
            None => &[],
        }
    }

    /// The raw origin_info field: comma-separated origin names, or empty.
    pub const fn origin_info(&self) -> &'a [u8] {
        self.origin_info
    }

    /// Iterates over the origin names in origin_info (none when it is empty),
    /// split at every comma. Empty items (`a,,b`, a leading or trailing comma)
    /// are yielded as empty slices, as they are on the wire: nothing is
    /// skipped, so the items always join back to origin_info.
    pub fn origins(&self) -> Origins<'a> {
        Origins { rest: (!self.origin_info.is_empty()).then_some(self.origin_info) }
    }

    /// Whether `origin` is one of the items of origin_info, compared byte for
    /// byte (no case folding, no trimming). An empty `origin` matches an empty
    /// item only; an empty origin_info lists no origin, and whether it then
    /// means "any origin" is the caller's decision (RFC 9577 §2.1.1).
    pub fn lists_origin(&self, origin: &[u8]) -> bool {
        self.origins().any(|item| item == origin)
    }

    /// The challenge digest: SHA-256 of the encoded challenge (RFC 9577 §2.2).
    pub fn digest(&self) -> [u8; CHALLENGE_DIGEST_LEN] {
        let mut h = Sha256::new();
        h.update(self.token_type.to_be_bytes());
        // Lengths were validated on construction, so they fit their prefixes.
        h.update(len_be16(self.issuer_name));
        h.update(self.issuer_name);
        let ctx = self.redemption_context();
        // 0 or 32: always fits the 1-byte prefix.
        h.update([u8::try_from(ctx.len()).unwrap_or(u8::MAX)]);
        h.update(ctx);
        h.update(len_be16(self.origin_info));
        h.update(self.origin_info);
        h.finalize().into()
    }
}

/// The 2-byte big-endian length of a field already checked to fit in 16 bits.
fn len_be16(field: &[u8]) -> [u8; 2] {
    u16::try_from(field.len()).unwrap_or(u16::MAX).to_be_bytes()
}

impl<'a> Decode<'a> for TokenChallenge<'a> {
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let token_type = r.u16()?;
        let issuer_name = r.u16_prefixed(1, MAX_NAME_LEN, Field::IssuerName)?;
        let redemption_context = r.u8_prefixed(0, REDEMPTION_CONTEXT_LEN, Field::RedemptionContext)?;
        if !(redemption_context.is_empty() || redemption_context.len() == REDEMPTION_CONTEXT_LEN) {
            return Err(Error::InvalidLength(Field::RedemptionContext));
        }
        let origin_info = r.u16_prefixed(0, MAX_NAME_LEN, Field::OriginInfo)?;
        Self::new_opaque(token_type, issuer_name, redemption_context, origin_info)
    }
}

impl Encode for TokenChallenge<'_> {
    fn encoded_len(&self) -> usize {
        challenge_len(self.issuer_name.len(), self.redemption_context().len(), self.origin_info.len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(self.token_type)?;
        w.u16_prefixed(self.issuer_name)?;
        w.u8_prefixed(self.redemption_context())?;
        w.u16_prefixed(self.origin_info)
    }
}

/// Iterator over the comma-separated origin names of a challenge.
#[derive(Clone, Debug)]
pub struct Origins<'a> {
    rest: Option<&'a [u8]>,
}

impl<'a> Iterator for Origins<'a> {
    type Item = &'a [u8];

    fn next(&mut self) -> Option<&'a [u8]> {
        let rest = self.rest?;
        match rest.iter().position(|&b| b == b',') {
            Some(i) => {
                let (name, tail) = rest.split_at_checked(i)?;
                self.rest = tail.get(1..);
                Some(name)
            }
            None => {
                self.rest = None;
                Some(rest)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    extern crate std;
    use std::vec;
    use std::vec::Vec;

    use super::*;

    fn encode(c: &TokenChallenge<'_>) -> Vec<u8> {
        let mut out = vec![0u8; c.encoded_len()];
        assert_eq!(c.encode(&mut out).unwrap(), out.len());
        out
    }

    #[test]
    fn roundtrip_and_digest() {
        let ctx = [7u8; 32];
        let c = TokenChallenge::new(2, b"issuer.example", &ctx, b"a.example,b.example").unwrap();
        let bytes = encode(&c);
        let d = TokenChallenge::decode(&bytes).unwrap();
        assert_eq!(d, c);
        assert_eq!(d.digest(), <[u8; 32]>::from(Sha256::digest(&bytes)));
        let origins: Vec<&[u8]> = d.origins().collect();
        assert_eq!(origins, [&b"a.example"[..], b"b.example"]);
    }

    #[test]
    fn empty_origin_info_has_no_origins() {
        let c = TokenChallenge::new(1, b"i", &[], &[]).unwrap();
        assert_eq!(c.origins().count(), 0);
        assert_eq!(encode(&c), [0, 1, 0, 1, b'i', 0, 0, 0]);
    }

    #[test]
    fn maximal_fields_roundtrip() {
        let name = vec![b'n'; MAX_NAME_LEN];
        let mut info = vec![b'o'; MAX_NAME_LEN];
        info[100] = b',';
        let ctx = [0xab; 32];
        let c = TokenChallenge::new(0x0002, &name, &ctx, &info).unwrap();
        let bytes = encode(&c);
        assert_eq!(bytes.len(), MAX_CHALLENGE_LEN);
        let d = TokenChallenge::decode(&bytes).unwrap();
        assert_eq!(encode(&d), bytes);
        assert_eq!(d.origins().count(), 2);
        assert_eq!(d.digest(), <[u8; 32]>::from(Sha256::digest(&bytes)));
    }

    #[test]
    fn rejects_bad_fields() {
        assert_eq!(TokenChallenge::new(1, b"", &[], &[]), Err(Error::InvalidLength(Field::IssuerName)));
        assert_eq!(TokenChallenge::new(1, b"a\tb", &[], &[]), Err(Error::InvalidValue(Field::IssuerName)));
        assert!(TokenChallenge::new(1, b"Issuer Name", &[], &[]).is_ok());
        assert_eq!(TokenChallenge::new(1, b"\xff", &[], &[]), Err(Error::InvalidValue(Field::IssuerName)));
        for n in [1usize, 31, 33] {
            let ctx = vec![0u8; n];
            assert_eq!(
                TokenChallenge::new(1, b"i", &ctx, &[]),
                Err(Error::InvalidLength(Field::RedemptionContext)),
                "{n}"
            );
        }
        for info in [&b","[..], b"a,", b",a", b"a,,b", b"a\x7f", b"a\0"] {
            assert_eq!(
                TokenChallenge::new(1, b"i", &[], info),
                Err(Error::InvalidValue(Field::OriginInfo)),
                "{info:?}"
            );
        }
        let long = vec![b'a'; MAX_NAME_LEN + 1];
        assert_eq!(TokenChallenge::new(1, &long, &[], &[]), Err(Error::InvalidLength(Field::IssuerName)));
        assert_eq!(TokenChallenge::new(1, b"i", &[], &long), Err(Error::InvalidLength(Field::OriginInfo)));
    }

    /// Decoding takes any bytes in the names (the structure alone is checked),
    /// keeps them exactly, and the digest covers them; `new` still refuses
    /// them and `validate_names` reports them.
    #[test]
    fn decode_accepts_opaque_names() {
        let utf8_issuer = "issuer.bücher.example".as_bytes();
        let cases: [(&[u8], &[u8]); 6] = [
            (utf8_issuer, b""),
            (b"i", "origin.bücher.example".as_bytes()),
            (b"issuer.example", b",x.example,"),
            (b"issuer.example", b"a,,b"),
            (b"\xff\x00\x7f", b","),
            (b"x", b"\n"),
        ];
        for (issuer, origins) in cases {
            let c = TokenChallenge::new_opaque(0x0002, issuer, &[], origins).unwrap();
            let bytes = encode(&c);
            let d = TokenChallenge::decode(&bytes).unwrap();
            assert_eq!((d.issuer_name(), d.origin_info()), (issuer, origins));
            assert_eq!(d.digest(), <[u8; 32]>::from(Sha256::digest(&bytes)));
            assert!(d.validate_names().is_err(), "{issuer:?} {origins:?}");
            assert!(TokenChallenge::new(0x0002, issuer, &[], origins).is_err());
            // The items join back to origin_info.
            if !origins.is_empty() {
                let items: Vec<&[u8]> = d.origins().collect();
                assert_eq!(items.join(&b","[..]), origins);
            }
        }
        let d = TokenChallenge::new_opaque(1, b"i", &[], b",x.example,").unwrap();
        let items: Vec<&[u8]> = d.origins().collect();
        assert_eq!(items, [&b""[..], b"x.example", b""]);
        assert!(d.lists_origin(b"x.example") && d.lists_origin(b""));
        assert!(!d.lists_origin(b"X.example") && !d.lists_origin(b"x.example "));
        assert!(!TokenChallenge::new(1, b"i", &[], &[]).unwrap().lists_origin(b""));
        // A one-byte issuer and the structural bounds.
        assert!(TokenChallenge::new_opaque(1, b"\x01", &[], &[]).is_ok());
        assert_eq!(TokenChallenge::new_opaque(1, b"", &[], &[]), Err(Error::InvalidLength(Field::IssuerName)));
        assert_eq!(
            TokenChallenge::new_opaque(1, b"i", &[0; 31], &[]),
            Err(Error::InvalidLength(Field::RedemptionContext))
        );
        let long = vec![b'a'; MAX_NAME_LEN + 1];
        assert_eq!(TokenChallenge::new_opaque(1, &long, &[], &[]), Err(Error::InvalidLength(Field::IssuerName)));
        assert_eq!(TokenChallenge::new_opaque(1, b"i", &[], &long), Err(Error::InvalidLength(Field::OriginInfo)));
        assert_eq!(
            TokenChallenge::new_opaque(1, "é".as_bytes(), &[], b"a,,b").unwrap().validate_names(),
            Err(Error::InvalidValue(Field::IssuerName))
        );
        assert_eq!(
            TokenChallenge::new_opaque(1, b"i", &[], b"a,,b").unwrap().validate_names(),
            Err(Error::InvalidValue(Field::OriginInfo))
        );
    }

    #[test]
    fn decode_rejects_malformed() {
        let good = encode(&TokenChallenge::new(1, b"iss", &[9u8; 32], b"o").unwrap());
        // Every strict prefix is truncated.
        for n in 0..good.len() {
            assert_eq!(TokenChallenge::decode(&good[..n]), Err(Error::Truncated), "prefix {n}");
        }
        let mut long = good.clone();
        long.push(0);
        assert_eq!(TokenChallenge::decode(&long), Err(Error::TrailingBytes));
        // Empty issuer name on the wire.
        assert_eq!(TokenChallenge::decode(&[0, 1, 0, 0, 0, 0, 0]), Err(Error::InvalidLength(Field::IssuerName)));
        // Redemption context of 1 and of 33 bytes.
        let mut one = vec![0, 1, 0, 1, b'i', 1, 0xaa, 0, 0];
        assert_eq!(TokenChallenge::decode(&one), Err(Error::InvalidLength(Field::RedemptionContext)));
        one[5] = 33;
        assert_eq!(TokenChallenge::decode(&one), Err(Error::InvalidLength(Field::RedemptionContext)));
        // An unknown type still parses (greasing) but has no kind.
        let greased = encode(&TokenChallenge::new(0xb3aa, b"i", &[], &[]).unwrap());
        let c = TokenChallenge::decode(&greased).unwrap();
        assert_eq!(c.kind(), Err(Error::UnknownTokenType(0xb3aa)));
    }

    #[test]
    fn encode_reports_small_buffer() {
        let c = TokenChallenge::new(1, b"iss", &[], b"o").unwrap();
        let mut buf = [0u8; 16];
        assert_eq!(c.encode(&mut buf[..c.encoded_len() - 1]), Err(Error::BufferTooSmall));
        assert_eq!(c.encode(&mut buf).unwrap(), c.encoded_len());
    }
}
