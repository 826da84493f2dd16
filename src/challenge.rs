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

use sha2::{Digest, Sha256};

use crate::codec::{Decode, Encode, Reader, Writer};
use crate::error::{Error, Field, Result};
use crate::token_type::{CHALLENGE_DIGEST_LEN, TokenKind};

/// Length of a non-empty redemption context.
pub const REDEMPTION_CONTEXT_LEN: usize = 32;
/// Largest issuer_name and origin_info (2-byte length prefix).
pub const MAX_NAME_LEN: usize = u16::MAX as usize;
/// Largest possible encoded TokenChallenge.
pub const MAX_CHALLENGE_LEN: usize = 2 + (2 + MAX_NAME_LEN) + (1 + REDEMPTION_CONTEXT_LEN) + (2 + MAX_NAME_LEN);

/// A TokenChallenge whose variable fields borrow from a buffer (RFC 9577 §2.1.1).
///
/// Construct with [`TokenChallenge::new`] (validates) or [`Decode::decode`]
/// (validates and rejects trailing bytes).
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

fn check_issuer_name(name: &[u8]) -> Result<()> {
    if name.is_empty() || name.len() > MAX_NAME_LEN {
        return Err(Error::InvalidLength(Field::IssuerName));
    }
    if !name.iter().copied().all(is_name_byte) {
        return Err(Error::InvalidValue(Field::IssuerName));
    }
    Ok(())
}

fn check_origin_info(info: &[u8]) -> Result<()> {
    if info.len() > MAX_NAME_LEN {
        return Err(Error::InvalidLength(Field::OriginInfo));
    }
    // Empty means "any origin". Otherwise a comma-separated list of non-empty
    // names of printable ASCII.
    if !info.is_empty()
        && info.split(|&b| b == b',').any(|name| name.is_empty() || !name.iter().copied().all(is_name_byte))
    {
        return Err(Error::InvalidValue(Field::OriginInfo));
    }
    Ok(())
}

impl<'a> TokenChallenge<'a> {
    /// Builds a challenge, checking every field against RFC 9577 §2.1.1.
    ///
    /// `issuer_name` must be 1..=65535 bytes and `origin_info` 0..=65535 bytes,
    /// both visible ASCII (origin_info a comma-separated list of non-empty names);
    /// `redemption_context` must be empty or exactly 32 bytes.
    pub fn new(
        token_type: u16,
        issuer_name: &'a [u8],
        redemption_context: &'a [u8],
        origin_info: &'a [u8],
    ) -> Result<Self> {
        check_issuer_name(issuer_name)?;
        check_origin_info(origin_info)?;
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

    /// The issuer name (ASCII).
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

    /// Iterates over the origin names in origin_info (none when it is empty).
    pub fn origins(&self) -> Origins<'a> {
        Origins { rest: (!self.origin_info.is_empty()).then_some(self.origin_info) }
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
        Self::new(token_type, issuer_name, redemption_context, origin_info)
    }
}

impl Encode for TokenChallenge<'_> {
    fn encoded_len(&self) -> usize {
        2 + 2 + self.issuer_name.len() + 1 + self.redemption_context().len() + 2 + self.origin_info.len()
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
