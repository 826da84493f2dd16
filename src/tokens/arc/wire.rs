//! The messages of type 0xE5AC: the ARC challenge, the request context, the
//! credential request and the token (arc-protocol-01 §6, §7).

use super::{REQUEST_LEN, TOKEN_HEADER_LEN, TOKEN_TYPE, token_len};
use crate::crypto::arc::CredentialRequest;
use crate::crypto::arc::messages as arc_messages;
use crate::error::{Error, Result};
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::credential_challenge::{CredentialChallenge, len16};
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN};

/// An ARC `TokenChallenge` (arc-protocol-01 §6): the RFC 9577 fields with the
/// type fixed to 0xE5AC, and the `credential_context` (empty or 32 bytes).
pub type ArcChallenge<'a> = CredentialChallenge<'a, TOKEN_TYPE>;

impl<'a> CredentialChallenge<'a, TOKEN_TYPE> {
    /// The request context of issuance (arc-protocol-01 §7.1), in parts.
    pub fn request_context(&self, issuer_key_id: &[u8; KEY_ID_LEN]) -> Context<'a> {
        let c = self.challenge();
        Context::new(c.issuer_name(), c.origin_info(), self.credential_context(), issuer_key_id)
    }

    /// The presentation context of a token (arc-protocol-01 §8.1), in parts.
    pub fn presentation_context(&self, issuer_key_id: &[u8; KEY_ID_LEN]) -> Context<'a> {
        let c = self.challenge();
        Context::new(c.issuer_name(), c.origin_info(), c.redemption_context(), issuer_key_id)
    }
}

/// A request or presentation context: len ‖ issuer_name ‖ len ‖ origin_info
/// ‖ len ‖ context ‖ issuer_key_id, kept as parts (nothing is copied).
#[derive(Clone, Copy, Debug)]
pub struct Context<'a> {
    lens: [[u8; 2]; 3],
    issuer_name: &'a [u8],
    origin_info: &'a [u8],
    context: &'a [u8],
    key_id: [u8; KEY_ID_LEN],
}

impl<'a> Context<'a> {
    fn new(issuer_name: &'a [u8], origin_info: &'a [u8], context: &'a [u8], key_id: &[u8; KEY_ID_LEN]) -> Self {
        Self {
            lens: [len16(issuer_name), len16(origin_info), len16(context)],
            issuer_name,
            origin_info,
            context,
            key_id: *key_id,
        }
    }

    /// The parts, whose concatenation is the context.
    pub fn parts(&self) -> [&[u8]; 7] {
        let [a, b, c] = &self.lens;
        [a, self.issuer_name, b, self.origin_info, c, self.context, &self.key_id]
    }
}

/// A `CredentialRequest` (arc-protocol-01 §7.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    /// The last byte of the issuer key id.
    pub truncated_key_id: u8,
    /// The ARC request.
    pub request: CredentialRequest,
}

impl Decode<'_> for TokenRequest {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let truncated_key_id = r.u8()?;
        let request = CredentialRequest::decode(r.take(arc_messages::REQUEST_LEN)?)?;
        Ok(Self { truncated_key_id, request })
    }
}

impl Encode for TokenRequest {
    fn encoded_len(&self) -> usize {
        REQUEST_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(TOKEN_TYPE)?;
        w.u8(self.truncated_key_id)?;
        w.put(&self.request.to_bytes())
    }
}

/// A decoded ARC token, borrowing its presentation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArcToken<'a> {
    /// `presentation_nonce`, as the client wrote it (unverified).
    pub presentation_nonce: u32,
    /// SHA-256 of the challenge.
    pub challenge_digest: [u8; CHALLENGE_DIGEST_LEN],
    /// SHA-256 of the issuer's public key.
    pub issuer_key_id: [u8; KEY_ID_LEN],
    /// The encoded presentation.
    pub presentation: &'a [u8],
}

impl<'a> ArcToken<'a> {
    /// Decodes a token made under `limit`: exactly [`token_len`]`(limit)`
    /// bytes. The presentation is decoded when the token is verified.
    pub fn decode(bytes: &'a [u8], limit: u64) -> Result<Self> {
        let want = token_len(limit)?;
        let mut r = Reader::new(bytes);
        expect_type(&mut r, TOKEN_TYPE)?;
        let presentation_nonce = u32::from_be_bytes(*r.array::<4>()?);
        let challenge_digest = *r.array::<CHALLENGE_DIGEST_LEN>()?;
        let issuer_key_id = *r.array::<KEY_ID_LEN>()?;
        let presentation = r.take(want - TOKEN_HEADER_LEN)?;
        r.finish()?;
        Ok(Self { presentation_nonce, challenge_digest, issuer_key_id, presentation })
    }

    /// Writes the token into `out`; returns its length.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize> {
        let len = TOKEN_HEADER_LEN + self.presentation.len();
        let mut w = Writer::new(out.get_mut(..len).ok_or(Error::BufferTooSmall)?);
        w.u16(TOKEN_TYPE)?;
        w.put(&self.presentation_nonce.to_be_bytes())?;
        w.put(&self.challenge_digest)?;
        w.put(&self.issuer_key_id)?;
        w.put(self.presentation)?;
        Ok(len)
    }
}
