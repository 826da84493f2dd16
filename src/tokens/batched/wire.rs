//! The generic batch messages (draft §6.1, §6.2) and their codec: the
//! per-entry TokenRequest and TokenResponse enums, the presence byte of an
//! OptionalTokenResponse, and the varint-framed batches, decoded without
//! copying and checked entry by entry.

use core::fmt;

use crate::error::{Error, Field, Result};
use crate::tokens::{private, public};
use crate::wire::codec::{Decode, Encode, Reader, Writer, varint_len, varint_prefixed_len};
use crate::wire::token_type::{PrivateP384, PrivateRistretto255, PublicRsa2048, TokenKind, TokenType};

/// A present OptionalTokenResponse: `0x01` (draft §4.1).
const PRESENT: u8 = 0x01;
/// An absent OptionalTokenResponse: `0x00` (draft §4.1).
const ABSENT: u8 = 0x00;

/// The fixed TokenRequest / TokenResponse sizes of the types a generic batch
/// carries, or [`Error::UnknownTokenType`].
pub(super) fn sizes(code: u16) -> Result<(usize, usize)> {
    let fixed = |len| match len {
        crate::wire::token_type::MessageLen::Fixed(n) => Ok(n),
        crate::wire::token_type::MessageLen::Range { .. } => Err(Error::UnknownTokenType(code)),
    };
    match code {
        PrivateP384::CODE | PublicRsa2048::CODE | PrivateRistretto255::CODE => {
            let kind = TokenKind::from_code(code)?;
            Ok((fixed(kind.request_len())?, fixed(kind.response_len())?))
        }
        other => Err(Error::UnknownTokenType(other)),
    }
}

/// The larger of two lengths.
const fn larger(a: usize, b: usize) -> usize {
    if a > b { a } else { b }
}

/// The longest entry of a generic batch request: the largest TokenRequest of
/// the types a batch carries (type 0x0002, 259 bytes).
const MAX_REQUEST_ENTRY: usize =
    larger(larger(PrivateP384::REQUEST_MAX_LEN, PrivateRistretto255::REQUEST_MAX_LEN), PublicRsa2048::REQUEST_MAX_LEN);

/// The longest entry of a generic batch response: presence byte ‖ token
/// type ‖ the largest TokenResponse (type 0x0002: 1 + 2 + 256 bytes).
const MAX_RESPONSE_ENTRY: usize = 1
    + 2
    + larger(
        larger(PrivateP384::RESPONSE_MAX_LEN, PrivateRistretto255::RESPONSE_MAX_LEN),
        PublicRsa2048::RESPONSE_MAX_LEN,
    );

/// The longest [`GenericBatchTokenRequest`] of `n` entries, whatever their
/// types (all of type 0x0002 at most: `varint(259·n) + 259·n` bytes; it
/// saturates instead of overflowing). A `const fn`, so it sizes arrays. The
/// exact length of a request is its [`Encode::encoded_len`].
pub const fn request_max_len(n: usize) -> usize {
    varint_prefixed_len(n.saturating_mul(MAX_REQUEST_ENTRY))
}

/// The longest [`GenericBatchTokenResponse`] of `n` entries, whatever their
/// types and whether present (all present and of type 0x0002 at most:
/// `varint(259·n) + 259·n` bytes; it saturates instead of overflowing). For
/// a request in hand, [`GenericBatchTokenRequest::max_response_len`] gives
/// its own, smaller bound.
pub const fn response_max_len(n: usize) -> usize {
    varint_prefixed_len(n.saturating_mul(MAX_RESPONSE_ENTRY))
}

/// Inside a batch, input that ends in the middle of an entry means the total
/// length does not add up to whole entries.
fn in_batch(e: Error) -> Error {
    if e == Error::Truncated { Error::InvalidLength(Field::Batch) } else { e }
}

pub(super) fn prefixed_len(body: usize) -> usize {
    varint_len(body as u64).unwrap_or(8) + body
}

pub(super) fn write_prefix(w: &mut Writer<'_>, body: usize) -> Result<()> {
    w.varint(u64::try_from(body).map_err(|_| Error::ValueTooLarge)?)
}

// ---- requests ---------------------------------------------------------------

// Inline on purpose: there is no allocator to box the RSA variant into.
per_type_enum! {
    /// One entry of a generic batch request: a complete TokenRequest of type
    /// 0x0001, 0x0002 or 0x0005 (draft §6.1, `GenericTokenRequest`).
    #[allow(clippy::large_enum_variant)]
    #[derive(Clone, PartialEq, Eq)]
    pub enum GenericTokenRequest(debug, decode) {
        /// Type 0x0001, VOPRF(P-384, SHA-384) (RFC 9578 §5.1).
        PrivateP384(private::TokenRequest<PrivateP384>),
        /// Type 0x0002, Blind RSA (2048-bit) (RFC 9578 §6.1).
        PublicRsa2048(public::TokenRequest),
        /// Type 0x0005, VOPRF(ristretto255, SHA-512) (RFC 9578 §5.1).
        PrivateRistretto255(private::TokenRequest<PrivateRistretto255>),
    }
}

impl GenericTokenRequest {
    /// The request's truncated token key id.
    pub const fn truncated_token_key_id(&self) -> u8 {
        per_type!(self, r => r.truncated_token_key_id)
    }
}

impl<'a> Decode<'a> for GenericTokenRequest {
    /// Reads one TokenRequest, dispatching on its leading token type; types
    /// other than 0x0001, 0x0002 and 0x0005 are [`Error::UnknownTokenType`].
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        // The TokenRequest itself starts with the type: peek, do not consume.
        Self::decode_as(r.clone().u16()?, r)
    }
}

impl Encode for GenericTokenRequest {
    fn encoded_len(&self) -> usize {
        per_type!(self, r => r.encoded_len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        per_type!(self, r => r.encode_into(w))
    }
}

/// The entries of a generic batch request, decoded one at a time from the
/// borrowed body (draft §6.1).
///
/// Yields [`Error::UnknownTokenType`] for an entry of another type and
/// [`Error::InvalidLength`]`(`[`Field::Batch`]`)` when the body ends in the
/// middle of an entry (the total length does not add up to whole entries);
/// after an error it yields nothing more.
#[derive(Clone, Debug)]
pub struct GenericTokenRequests<'a> {
    r: Reader<'a>,
}

impl<'a> GenericTokenRequests<'a> {
    /// Iterates the entries of a request body (the bytes after the varint).
    pub const fn new(body: &'a [u8]) -> Self {
        Self { r: Reader::new(body) }
    }
}

impl Iterator for GenericTokenRequests<'_> {
    type Item = Result<GenericTokenRequest>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.r.is_empty() {
            return None;
        }
        let entry = GenericTokenRequest::decode_from(&mut self.r).map_err(in_batch);
        if entry.is_err() {
            self.r = Reader::new(&[]);
        }
        Some(entry)
    }
}

/// A generic batch request, borrowed from its encoding (draft §6.1,
/// `GenericBatchTokenRequest`). Decoding checks every entry's framing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct GenericBatchTokenRequest<'a> {
    body: &'a [u8],
    len: usize,
}

impl<'a> GenericBatchTokenRequest<'a> {
    /// The number of token requests.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch has no entries.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries, in order. They were checked when the batch was decoded.
    pub const fn iter(&self) -> GenericTokenRequests<'a> {
        GenericTokenRequests::new(self.body)
    }

    /// The largest GenericBatchTokenResponse this request can receive (every
    /// entry present): the buffer size [`Issuer::evaluate`](super::Issuer::evaluate) needs.
    pub fn max_response_len(&self) -> usize {
        prefixed_len(self.max_response_body())
    }

    pub(super) fn max_response_body(&self) -> usize {
        self.iter().map(|e| e.and_then(|e| sizes(e.kind().code())).map_or(0, |(_, resp)| 1 + 2 + resp)).sum()
    }
}

impl fmt::Debug for GenericBatchTokenRequest<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> Decode<'a> for GenericBatchTokenRequest<'a> {
    /// Reads `varint(total) ‖ entries`: the varint must be minimal
    /// ([`Error::NonMinimalVarint`]) and not claim more bytes than remain
    /// ([`Error::Truncated`]); every entry must be of a supported type and
    /// complete (see [`GenericTokenRequests`]).
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let body = r.varint_prefixed(0, usize::MAX, Field::Batch)?;
        let mut len = 0usize;
        for entry in GenericTokenRequests::new(body) {
            entry?;
            len += 1;
        }
        Ok(Self { body, len })
    }
}

impl Encode for GenericBatchTokenRequest<'_> {
    fn encoded_len(&self) -> usize {
        prefixed_len(self.body.len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.varint_prefixed(self.body)
    }
}

// ---- responses --------------------------------------------------------------

per_type_enum! {
    /// A present entry of a generic batch response: the TokenResponse of the
    /// entry's type (draft §6.2, `GenericTokenResponse`).
    #[derive(Clone, PartialEq, Eq)]
    pub enum GenericTokenResponse(debug, decode) {
        /// Type 0x0001 (RFC 9578 §5.2).
        PrivateP384(private::TokenResponse<PrivateP384>),
        /// Type 0x0002 (RFC 9578 §6.2).
        PublicRsa2048(public::TokenResponse),
        /// Type 0x0005 (RFC 9578 §5.2).
        PrivateRistretto255(private::TokenResponse<PrivateRistretto255>),
    }
}

impl<'a> Decode<'a> for GenericTokenResponse {
    /// Reads `token_type ‖ TokenResponse`.
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let code = r.u16()?;
        Self::decode_as(code, r)
    }
}

impl Encode for GenericTokenResponse {
    fn encoded_len(&self) -> usize {
        2 + per_type!(self, r => r.encoded_len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(self.kind().code())?;
        per_type!(self, r => r.encode_into(w))
    }
}

/// Reads an `OptionalTokenResponse` (draft §4.1, §6.2): `0x00` is `None`,
/// `0x01 ‖ GenericTokenResponse` is `Some`, any other presence byte is
/// [`Error::InvalidValue`]`(`[`Field::Batch`]`)`.
fn decode_optional(r: &mut Reader<'_>) -> Result<Option<GenericTokenResponse>> {
    match r.u8()? {
        ABSENT => Ok(None),
        PRESENT => GenericTokenResponse::decode_from(r).map(Some),
        _ => Err(Error::InvalidValue(Field::Batch)),
    }
}

pub(super) fn encode_optional(w: &mut Writer<'_>, response: Option<&GenericTokenResponse>) -> Result<()> {
    match response {
        None => w.u8(ABSENT),
        Some(resp) => {
            w.u8(PRESENT)?;
            resp.encode_into(w)
        }
    }
}

/// The entries of a generic batch response, decoded one at a time from the
/// borrowed body (draft §6.2): `None` for an absent entry.
///
/// Errors as [`GenericTokenRequests`], plus [`Error::InvalidValue`]`(`
/// [`Field::Batch`]`)` for a presence byte other than 0 or 1.
#[derive(Clone, Debug)]
pub struct OptionalTokenResponses<'a> {
    r: Reader<'a>,
}

impl<'a> OptionalTokenResponses<'a> {
    /// Iterates the entries of a response body (the bytes after the varint).
    pub const fn new(body: &'a [u8]) -> Self {
        Self { r: Reader::new(body) }
    }
}

impl Iterator for OptionalTokenResponses<'_> {
    type Item = Result<Option<GenericTokenResponse>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.r.is_empty() {
            return None;
        }
        let entry = decode_optional(&mut self.r).map_err(in_batch);
        if entry.is_err() {
            self.r = Reader::new(&[]);
        }
        Some(entry)
    }
}

/// A generic batch response, borrowed from its encoding (draft §6.2,
/// `GenericBatchTokenResponse`). Decoding checks every entry's framing.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct GenericBatchTokenResponse<'a> {
    body: &'a [u8],
    len: usize,
}

impl<'a> GenericBatchTokenResponse<'a> {
    /// The number of entries, present or absent.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether the batch has no entries.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The entries, in order (`None` when absent). They were checked when
    /// the batch was decoded.
    pub const fn iter(&self) -> OptionalTokenResponses<'a> {
        OptionalTokenResponses::new(self.body)
    }
}

impl fmt::Debug for GenericBatchTokenResponse<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<'a> Decode<'a> for GenericBatchTokenResponse<'a> {
    /// Reads `varint(total) ‖ entries` with the checks of
    /// [`GenericBatchTokenRequest::decode_from`] and [`OptionalTokenResponses`].
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        let body = r.varint_prefixed(0, usize::MAX, Field::Batch)?;
        let mut len = 0usize;
        for entry in OptionalTokenResponses::new(body) {
            entry?;
            len += 1;
        }
        Ok(Self { body, len })
    }
}

impl Encode for GenericBatchTokenResponse<'_> {
    fn encoded_len(&self) -> usize {
        prefixed_len(self.body.len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.varint_prefixed(self.body)
    }
}
