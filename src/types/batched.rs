//! Generic token batch issuance: one request carrying token requests of
//! different types and keys (draft-ietf-privacypass-batched-tokens §6;
//! section numbers are those of draft -08).
//!
//! ```text
//! GenericBatchTokenRequest  = varint(total) ‖ TokenRequest_1 ‖ … ‖ TokenRequest_n       (§6.1)
//! GenericBatchTokenResponse = varint(total) ‖ OptionalTokenResponse_1 ‖ … ‖ _n         (§6.2)
//! OptionalTokenResponse     = 0x00                                  (absent, §4.1)
//!                           | 0x01 ‖ token_type ‖ TokenResponse     (present)
//! ```
//!
//! Every entry of a request is a complete RFC 9578 TokenRequest with its own
//! 2-byte token type (52, 259 or 35 bytes for types 0x0001, 0x0002, 0x0005);
//! every present response is that type's TokenResponse (145, 256 or 96 bytes)
//! behind a presence byte and the type. The varint is the byte length of what
//! follows, minimally encoded (§4.2); a presence byte other than 0 or 1 is
//! malformed (§4.1). Other token types are [`Error::UnknownTokenType`] here.
//!
//! Messages are parsed without copying: [`GenericBatchTokenRequest`] and
//! [`GenericBatchTokenResponse`] borrow the input, check the whole framing
//! when decoded and hand out entries one at a time. The [`Issuer`] evaluates
//! each entry with the first of the caller's keys of that type whose truncated
//! key id matches and marks the others absent; the client's [`BatchState`]
//! keeps the per-entry secrets in caller-chosen capacity `N`. Nothing
//! allocates.
//!
//! pat-go writes a refused entry as `0x01 ‖ token_type ‖ 0x00`, a malformed
//! present entry. This module writes and expects the draft's single `0x00`.

use core::fmt;

use heapless::Vec;
use rand_core::TryCryptoRng;

use super::{private, public, truncated_key_id};
use crate::codec::{Decode, Encode, Reader, Writer, varint_len};
use crate::error::{Error, Field, Result};
use crate::token::TokenRef;
use crate::token_type::{PrivateP384, PrivateRistretto255, PublicRsa2048, TokenKind, TokenType};

/// A present OptionalTokenResponse: `0x01` (draft §4.1).
const PRESENT: u8 = 0x01;
/// An absent OptionalTokenResponse: `0x00` (draft §4.1).
const ABSENT: u8 = 0x00;

/// The fixed TokenRequest / TokenResponse sizes of the types a generic batch
/// carries, or [`Error::UnknownTokenType`].
fn sizes(code: u16) -> Result<(usize, usize)> {
    let fixed = |len| match len {
        crate::token_type::MessageLen::Fixed(n) => Ok(n),
        crate::token_type::MessageLen::Range { .. } => Err(Error::UnknownTokenType(code)),
    };
    match code {
        PrivateP384::CODE | PublicRsa2048::CODE | PrivateRistretto255::CODE => {
            let kind = TokenKind::from_code(code)?;
            Ok((fixed(kind.request_len())?, fixed(kind.response_len())?))
        }
        other => Err(Error::UnknownTokenType(other)),
    }
}

/// Inside a batch, input that ends in the middle of an entry means the total
/// length does not add up to whole entries.
fn in_batch(e: Error) -> Error {
    if e == Error::Truncated { Error::InvalidLength(Field::Batch) } else { e }
}

fn prefixed_len(body: usize) -> usize {
    varint_len(body as u64).unwrap_or(8) + body
}

fn write_prefix(w: &mut Writer<'_>, body: usize) -> Result<()> {
    w.varint(u64::try_from(body).map_err(|_| Error::ValueTooLarge)?)
}

// ---- requests ---------------------------------------------------------------

/// One entry of a generic batch request: a complete TokenRequest of type
/// 0x0001, 0x0002 or 0x0005 (draft §6.1, `GenericTokenRequest`).
// Inline on purpose: there is no allocator to box the RSA variant into.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, PartialEq, Eq)]
pub enum GenericTokenRequest {
    /// Type 0x0001, VOPRF(P-384, SHA-384) (RFC 9578 §5.1).
    PrivateP384(private::TokenRequest<PrivateP384>),
    /// Type 0x0002, Blind RSA (2048-bit) (RFC 9578 §6.1).
    PublicRsa2048(public::TokenRequest),
    /// Type 0x0005, VOPRF(ristretto255, SHA-512) (RFC 9578 §5.1).
    PrivateRistretto255(private::TokenRequest<PrivateRistretto255>),
}

impl GenericTokenRequest {
    /// The token type.
    pub const fn kind(&self) -> TokenKind {
        match self {
            Self::PrivateP384(_) => TokenKind::PrivateP384,
            Self::PublicRsa2048(_) => TokenKind::PublicRsa2048,
            Self::PrivateRistretto255(_) => TokenKind::PrivateRistretto255,
        }
    }

    /// The request's truncated token key id.
    pub const fn truncated_token_key_id(&self) -> u8 {
        match self {
            Self::PrivateP384(r) => r.truncated_token_key_id,
            Self::PublicRsa2048(r) => r.truncated_token_key_id,
            Self::PrivateRistretto255(r) => r.truncated_token_key_id,
        }
    }
}

impl fmt::Debug for GenericTokenRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PrivateP384(r) => r.fmt(f),
            Self::PublicRsa2048(r) => r.fmt(f),
            Self::PrivateRistretto255(r) => r.fmt(f),
        }
    }
}

impl From<private::TokenRequest<PrivateP384>> for GenericTokenRequest {
    fn from(r: private::TokenRequest<PrivateP384>) -> Self {
        Self::PrivateP384(r)
    }
}

impl From<public::TokenRequest> for GenericTokenRequest {
    fn from(r: public::TokenRequest) -> Self {
        Self::PublicRsa2048(r)
    }
}

impl From<private::TokenRequest<PrivateRistretto255>> for GenericTokenRequest {
    fn from(r: private::TokenRequest<PrivateRistretto255>) -> Self {
        Self::PrivateRistretto255(r)
    }
}

impl<'a> Decode<'a> for GenericTokenRequest {
    /// Reads one TokenRequest, dispatching on its leading token type; types
    /// other than 0x0001, 0x0002 and 0x0005 are [`Error::UnknownTokenType`].
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        match r.clone().u16()? {
            PrivateP384::CODE => Ok(Self::PrivateP384(Decode::decode_from(r)?)),
            PublicRsa2048::CODE => Ok(Self::PublicRsa2048(Decode::decode_from(r)?)),
            PrivateRistretto255::CODE => Ok(Self::PrivateRistretto255(Decode::decode_from(r)?)),
            other => Err(Error::UnknownTokenType(other)),
        }
    }
}

impl Encode for GenericTokenRequest {
    fn encoded_len(&self) -> usize {
        match self {
            Self::PrivateP384(r) => r.encoded_len(),
            Self::PublicRsa2048(r) => r.encoded_len(),
            Self::PrivateRistretto255(r) => r.encoded_len(),
        }
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        match self {
            Self::PrivateP384(r) => r.encode_into(w),
            Self::PublicRsa2048(r) => r.encode_into(w),
            Self::PrivateRistretto255(r) => r.encode_into(w),
        }
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
    /// entry present): the buffer size [`Issuer::evaluate`] needs.
    pub fn max_response_len(&self) -> usize {
        prefixed_len(self.max_response_body())
    }

    fn max_response_body(&self) -> usize {
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

/// A present entry of a generic batch response: the TokenResponse of the
/// entry's type (draft §6.2, `GenericTokenResponse`).
#[derive(Clone, PartialEq, Eq)]
pub enum GenericTokenResponse {
    /// Type 0x0001 (RFC 9578 §5.2).
    PrivateP384(private::TokenResponse<PrivateP384>),
    /// Type 0x0002 (RFC 9578 §6.2).
    PublicRsa2048(public::TokenResponse),
    /// Type 0x0005 (RFC 9578 §5.2).
    PrivateRistretto255(private::TokenResponse<PrivateRistretto255>),
}

impl GenericTokenResponse {
    /// The token type.
    pub const fn kind(&self) -> TokenKind {
        match self {
            Self::PrivateP384(_) => TokenKind::PrivateP384,
            Self::PublicRsa2048(_) => TokenKind::PublicRsa2048,
            Self::PrivateRistretto255(_) => TokenKind::PrivateRistretto255,
        }
    }
}

impl fmt::Debug for GenericTokenResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PrivateP384(r) => r.fmt(f),
            Self::PublicRsa2048(r) => r.fmt(f),
            Self::PrivateRistretto255(r) => r.fmt(f),
        }
    }
}

impl<'a> Decode<'a> for GenericTokenResponse {
    /// Reads `token_type ‖ TokenResponse`.
    fn decode_from(r: &mut Reader<'a>) -> Result<Self> {
        match r.u16()? {
            PrivateP384::CODE => Ok(Self::PrivateP384(Decode::decode_from(r)?)),
            PublicRsa2048::CODE => Ok(Self::PublicRsa2048(Decode::decode_from(r)?)),
            PrivateRistretto255::CODE => Ok(Self::PrivateRistretto255(Decode::decode_from(r)?)),
            other => Err(Error::UnknownTokenType(other)),
        }
    }
}

impl Encode for GenericTokenResponse {
    fn encoded_len(&self) -> usize {
        2 + match self {
            Self::PrivateP384(r) => r.encoded_len(),
            Self::PublicRsa2048(r) => r.encoded_len(),
            Self::PrivateRistretto255(r) => r.encoded_len(),
        }
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(self.kind().code())?;
        match self {
            Self::PrivateP384(r) => r.encode_into(w),
            Self::PublicRsa2048(r) => r.encode_into(w),
            Self::PrivateRistretto255(r) => r.encode_into(w),
        }
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

fn encode_optional(w: &mut Writer<'_>, response: Option<&GenericTokenResponse>) -> Result<()> {
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

// ---- issuer -----------------------------------------------------------------

/// What [`Issuer::evaluate`] wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BatchEvaluation {
    /// Bytes of GenericBatchTokenResponse written to the front of the buffer.
    pub len: usize,
    /// Entries answered with a TokenResponse.
    pub issued: usize,
    /// Entries marked absent. When none was issued the draft (§6.2) has the
    /// issuer answer 400 instead; when some were, 206.
    pub absent: usize,
}

/// The issuer side of generic batches (draft §6.2): the caller's keys, by
/// token type. Each entry is evaluated with the first key of its type whose
/// truncated key id matches and whose evaluation succeeds; an entry no key
/// can answer (no key of the type or id, an invalid element, a blinded
/// message not below the RSA modulus, a failed signature check) is absent.
#[derive(Clone, Copy, Debug, Default)]
pub struct Issuer<'k> {
    /// Keys for type 0x0001.
    pub private_p384: &'k [private::Issuer<PrivateP384>],
    /// Keys for type 0x0002.
    pub public_rsa2048: &'k [public::Issuer],
    /// Keys for type 0x0005.
    pub private_ristretto255: &'k [private::Issuer<PrivateRistretto255>],
}

impl Issuer<'_> {
    /// Evaluates one entry (RFC 9578 §5.2, §6.2), or `None` if no key answers it.
    pub fn evaluate_entry<R: TryCryptoRng + ?Sized>(
        &self,
        request: &GenericTokenRequest,
        rng: &mut R,
    ) -> Option<GenericTokenResponse> {
        let id = request.truncated_token_key_id();
        match request {
            GenericTokenRequest::PrivateP384(req) => self
                .private_p384
                .iter()
                .filter(|i| truncated_key_id(i.key_id()) == id)
                .find_map(|i| i.evaluate(req, rng).ok())
                .map(GenericTokenResponse::PrivateP384),
            GenericTokenRequest::PublicRsa2048(req) => self
                .public_rsa2048
                .iter()
                .filter(|i| truncated_key_id(i.key_id()) == id)
                .find_map(|i| i.evaluate(req).ok())
                .map(GenericTokenResponse::PublicRsa2048),
            GenericTokenRequest::PrivateRistretto255(req) => self
                .private_ristretto255
                .iter()
                .filter(|i| truncated_key_id(i.key_id()) == id)
                .find_map(|i| i.evaluate(req, rng).ok())
                .map(GenericTokenResponse::PrivateRistretto255),
        }
    }

    /// Evaluates a batch of at most `N` entries (draft §6.2, §7.2: a larger
    /// batch is [`Error::CapacityExceeded`]) and writes the
    /// GenericBatchTokenResponse to the front of `out`, in request order,
    /// absent entries as `0x00`.
    ///
    /// `out` must hold [`GenericBatchTokenRequest::max_response_len`] bytes
    /// ([`Error::BufferTooSmall`], checked before any evaluation). Nothing is
    /// stored: the entries are written after room for the longest varint and
    /// moved into place once the length is known.
    pub fn evaluate<const N: usize, R: TryCryptoRng + ?Sized>(
        &self,
        request: &GenericBatchTokenRequest<'_>,
        out: &mut [u8],
        rng: &mut R,
    ) -> Result<BatchEvaluation> {
        if request.len() > N {
            return Err(Error::CapacityExceeded);
        }
        let max_body = request.max_response_body();
        let room = varint_len(u64::try_from(max_body).map_err(|_| Error::ValueTooLarge)?)?;
        let buf = out.get_mut(..room + max_body).ok_or(Error::BufferTooSmall)?;
        let (head, tail) = buf.split_at_mut(room);
        let mut w = Writer::new(tail);
        let (mut issued, mut absent) = (0, 0);
        for entry in request.iter() {
            let response = self.evaluate_entry(&entry?, rng);
            if response.is_some() {
                issued += 1
            } else {
                absent += 1
            }
            encode_optional(&mut w, response.as_ref())?;
        }
        let body = w.finish();
        let mut prefix = [0u8; 8];
        let mut pw = Writer::new(&mut prefix);
        write_prefix(&mut pw, body)?;
        let n = pw.finish();
        // Move the varint next to the body, then the whole message to the front.
        let start = room.checked_sub(n).ok_or(Error::ValueTooLarge)?;
        head.get_mut(start..).ok_or(Error::ValueTooLarge)?.copy_from_slice(prefix.get(..n).unwrap_or_default());
        buf.copy_within(start..room + body, 0);
        Ok(BatchEvaluation { len: n + body, issued, absent })
    }
}

// ---- client -----------------------------------------------------------------

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::private::Client<super::PrivateP384> {}
    impl Sealed for super::private::Client<super::PrivateRistretto255> {}
    impl Sealed for super::public::Client {}
}

/// A per-type client whose requests can join a generic batch: the clients of
/// types 0x0001, 0x0002 and 0x0005.
pub trait BatchClient: sealed::Sealed {
    /// The type's TokenRequest.
    type Request;
    /// The type's secret request state.
    type State;

    /// Pairs a request made by this client with its state, as one batch entry.
    /// A request or state for another key is [`Error::KeyIdMismatch`].
    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>>;
}

/// One entry of a [`BatchState`]: the client it was made with, the request and
/// its secret state.
pub struct PendingEntry<'c>(Pending<'c>);

// Inline on purpose: the caller's `N` bounds the storage, nothing is boxed.
#[allow(clippy::large_enum_variant)]
enum Pending<'c> {
    PrivateP384(
        &'c private::Client<PrivateP384>,
        private::TokenRequest<PrivateP384>,
        private::RequestState<PrivateP384>,
    ),
    PublicRsa2048(&'c public::Client, public::TokenRequest, public::RequestState),
    PrivateRistretto255(
        &'c private::Client<PrivateRistretto255>,
        private::TokenRequest<PrivateRistretto255>,
        private::RequestState<PrivateRistretto255>,
    ),
}

impl PendingEntry<'_> {
    /// The token type.
    pub const fn kind(&self) -> TokenKind {
        match self.0 {
            Pending::PrivateP384(..) => TokenKind::PrivateP384,
            Pending::PublicRsa2048(..) => TokenKind::PublicRsa2048,
            Pending::PrivateRistretto255(..) => TokenKind::PrivateRistretto255,
        }
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        match &self.0 {
            Pending::PrivateP384(_, r, _) => r.encode_into(w),
            Pending::PublicRsa2048(_, r, _) => r.encode_into(w),
            Pending::PrivateRistretto255(_, r, _) => r.encode_into(w),
        }
    }

    fn encoded_len(&self) -> usize {
        match &self.0 {
            Pending::PrivateP384(_, r, _) => r.encoded_len(),
            Pending::PublicRsa2048(_, r, _) => r.encoded_len(),
            Pending::PrivateRistretto255(_, r, _) => r.encoded_len(),
        }
    }
}

/// The request state wipes its secrets on drop.
impl zeroize::ZeroizeOnDrop for PendingEntry<'_> {}

impl fmt::Debug for PendingEntry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PendingEntry").field("kind", &self.kind()).finish_non_exhaustive()
    }
}

fn check_key(key_id: &[u8; 32], truncated: u8, input_key_id: &[u8; 32]) -> Result<()> {
    if truncated != truncated_key_id(key_id) || input_key_id != key_id {
        return Err(Error::KeyIdMismatch);
    }
    Ok(())
}

impl BatchClient for private::Client<PrivateP384> {
    type Request = private::TokenRequest<PrivateP384>;
    type State = private::RequestState<PrivateP384>;

    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>> {
        check_key(self.key_id(), request.truncated_token_key_id, state.input().token_key_id())?;
        Ok(PendingEntry(Pending::PrivateP384(self, request, state)))
    }
}

impl BatchClient for public::Client {
    type Request = public::TokenRequest;
    type State = public::RequestState;

    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>> {
        check_key(self.key_id(), request.truncated_token_key_id, state.input().token_key_id())?;
        Ok(PendingEntry(Pending::PublicRsa2048(self, request, state)))
    }
}

impl BatchClient for private::Client<PrivateRistretto255> {
    type Request = private::TokenRequest<PrivateRistretto255>;
    type State = private::RequestState<PrivateRistretto255>;

    fn entry(&self, request: Self::Request, state: Self::State) -> Result<PendingEntry<'_>> {
        check_key(self.key_id(), request.truncated_token_key_id, state.input().token_key_id())?;
        Ok(PendingEntry(Pending::PrivateRistretto255(self, request, state)))
    }
}

/// A token of any type a generic batch issues.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GenericToken {
    /// Type 0x0001.
    PrivateP384(<PrivateP384 as private::PrivateTokenType>::Token),
    /// Type 0x0002.
    PublicRsa2048(public::PublicToken),
    /// Type 0x0005.
    PrivateRistretto255(<PrivateRistretto255 as private::PrivateTokenType>::Token),
}

/// The token wipes its authenticator on drop.
impl zeroize::ZeroizeOnDrop for GenericToken {}

impl GenericToken {
    /// The token type.
    pub fn kind(&self) -> TokenKind {
        self.as_ref().kind()
    }

    /// A borrowed view (RFC 9577 §2.2).
    pub fn as_ref(&self) -> TokenRef<'_> {
        match self {
            Self::PrivateP384(t) => t.as_ref(),
            Self::PublicRsa2048(t) => t.as_ref(),
            Self::PrivateRistretto255(t) => t.as_ref(),
        }
    }
}

impl Encode for GenericToken {
    fn encoded_len(&self) -> usize {
        self.as_ref().encoded_len()
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        self.as_ref().encode_into(w)
    }
}

/// The client's side of a generic batch (draft §6.1, §6.3): up to `N`
/// entries of any mix of types 0x0001, 0x0002 and 0x0005, each with the
/// client it was made with and its secret state (wiped on drop).
pub struct BatchState<'c, const N: usize> {
    entries: Vec<PendingEntry<'c>, N>,
}

impl<const N: usize> Default for BatchState<'_, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<const N: usize> Drop for BatchState<'_, N> {
    fn drop(&mut self) {
        super::wipe_vec(&mut self.entries);
    }
}

/// Every entry's secret state wipes itself on drop; then the whole storage is
/// zeroed.
impl<const N: usize> zeroize::ZeroizeOnDrop for BatchState<'_, N> {}

impl<const N: usize> fmt::Debug for BatchState<'_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchState").field("entries", &self.entries).finish()
    }
}

impl<'c, const N: usize> BatchState<'c, N> {
    /// An empty batch.
    pub const fn new() -> Self {
        Self { entries: Vec::new() }
    }

    /// The number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the batch has no entries.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entries, in request order.
    pub fn entries(&self) -> &[PendingEntry<'c>] {
        &self.entries
    }

    /// Appends an entry made by a per-type `Client::request` (or
    /// `request_with`): `batch.push(&client, client.request(&challenge, rng)?)`.
    /// A full batch is [`Error::CapacityExceeded`]; a request for another key
    /// than `client`'s is [`Error::KeyIdMismatch`].
    pub fn push<C: BatchClient>(&mut self, client: &'c C, (request, state): (C::Request, C::State)) -> Result<()> {
        if self.entries.is_full() {
            return Err(Error::CapacityExceeded);
        }
        let entry = client.entry(request, state)?;
        self.entries.push(entry).map_err(|_| Error::CapacityExceeded)
    }

    /// The GenericBatchTokenRequest to send.
    pub const fn request(&self) -> BatchRequest<'_, 'c, N> {
        BatchRequest { state: self }
    }

    /// Finalizes every present entry with its own type's procedure (draft
    /// §6.3) and returns, in request order, `Some(token)` or `None` for an
    /// entry the issuer left absent.
    ///
    /// The response must have one entry per request ([`Error::InvalidLength`]
    /// `(`[`Field::Batch`]`)`) and each present entry the requested type
    /// ([`Error::WrongTokenType`]); both are checked before any
    /// cryptography. A proof or signature that does not verify fails the
    /// whole batch with [`Error::Verification`].
    pub fn finalize(mut self, response: &GenericBatchTokenResponse<'_>) -> Result<Vec<Option<GenericToken>, N>> {
        if response.len() != self.entries.len() {
            return Err(Error::InvalidLength(Field::Batch));
        }
        for (entry, resp) in self.entries.iter().zip(response.iter()) {
            if let Some(resp) = resp?
                && resp.kind() != entry.kind()
            {
                return Err(Error::WrongTokenType { expected: entry.kind().code(), found: resp.kind().code() });
            }
        }
        let mut tokens = Vec::new();
        for (entry, resp) in core::mem::take(&mut self.entries).into_iter().zip(response.iter()) {
            let expected = entry.kind().code();
            let token = match (entry.0, resp?) {
                (_, None) => None,
                (Pending::PrivateP384(c, _, s), Some(GenericTokenResponse::PrivateP384(r))) => {
                    Some(GenericToken::PrivateP384(c.finalize(s, &r)?))
                }
                (Pending::PublicRsa2048(c, _, s), Some(GenericTokenResponse::PublicRsa2048(r))) => {
                    Some(GenericToken::PublicRsa2048(c.finalize(s, &r)?))
                }
                (Pending::PrivateRistretto255(c, _, s), Some(GenericTokenResponse::PrivateRistretto255(r))) => {
                    Some(GenericToken::PrivateRistretto255(c.finalize(s, &r)?))
                }
                (_, Some(resp)) => return Err(Error::WrongTokenType { expected, found: resp.kind().code() }),
            };
            tokens.push(token).map_err(|_| Error::CapacityExceeded)?;
        }
        Ok(tokens)
    }
}

/// The wire form of a [`BatchState`]'s request (a GenericBatchTokenRequest,
/// draft §6.1).
#[derive(Clone, Copy)]
pub struct BatchRequest<'s, 'c, const N: usize> {
    state: &'s BatchState<'c, N>,
}

impl<const N: usize> fmt::Debug for BatchRequest<'_, '_, N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchRequest").field("len", &self.state.len()).finish()
    }
}

impl<const N: usize> BatchRequest<'_, '_, N> {
    fn body_len(&self) -> usize {
        self.state.entries.iter().map(PendingEntry::encoded_len).sum()
    }
}

impl<const N: usize> Encode for BatchRequest<'_, '_, N> {
    fn encoded_len(&self) -> usize {
        prefixed_len(self.body_len())
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        write_prefix(w, self.body_len())?;
        self.state.entries.iter().try_for_each(|e| e.encode_into(w))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    #[test]
    fn sizes_follow_the_registry() {
        assert_eq!(sizes(1), Ok((52, 145)));
        assert_eq!(sizes(2), Ok((259, 256)));
        assert_eq!(sizes(5), Ok((35, 96)));
        assert_eq!(sizes(3), Err(Error::UnknownTokenType(3)));
    }

    #[test]
    fn empty_batches_round_trip() {
        let req = GenericBatchTokenRequest::decode(&[0]).unwrap();
        assert!(req.is_empty());
        assert_eq!(req.max_response_len(), 1);
        let resp = GenericBatchTokenResponse::decode(&[0]).unwrap();
        assert_eq!(resp.iter().count(), 0);
    }

    #[test]
    fn absent_entries_parse() {
        let resp = GenericBatchTokenResponse::decode(&[3, 0, 0, 0]).unwrap();
        assert_eq!(resp.len(), 3);
        assert!(resp.iter().all(|e| e == Ok(None)));
        assert_eq!(GenericBatchTokenResponse::decode(&[2, 0, 2]).err(), Some(Error::InvalidValue(Field::Batch)));
        assert_eq!(GenericBatchTokenResponse::decode(&[3, 0, 1, 0]).err(), Some(Error::InvalidLength(Field::Batch)));
    }
}
