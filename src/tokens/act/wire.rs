//! The messages of type 0xE5AD: the ACT challenge, the request context
//! scalar, the token request and response, and the token
//! (draft-schlesinger-privacypass-act-01 §5, §6, §7; the context rule of
//! -02 §5.2).

use curve25519_dalek::Scalar;
use sha3::Shake128;
use sha3::digest::{ExtendableOutput, Update, XofReader};

use super::{REQUEST_LEN, RESPONSE_LEN, TOKEN_HEADER_LEN, TOKEN_TYPE};
use crate::crypto::act::{IssuanceRequest, IssuanceResponse, SpendProof, spend_proof_len};
use crate::error::Result;
use crate::tokens::expect_type;
use crate::wire::codec::{Decode, Encode, Reader, Writer};
use crate::wire::credential_challenge::{CredentialChallenge, len16};
use crate::wire::token_type::{CHALLENGE_DIGEST_LEN, KEY_ID_LEN};

/// An ACT `TokenChallenge` (privacypass-act-01 §5.1): the RFC 9577 fields
/// with the type fixed to 0xE5AD, and the `credential_context` (empty or 32
/// bytes), the shape of [`ArcChallenge`](crate::tokens::arc::ArcChallenge)
/// under another code point.
pub type ActChallenge<'a> = CredentialChallenge<'a, TOKEN_TYPE>;

impl CredentialChallenge<'_, TOKEN_TYPE> {
    /// The request context ctx of the credential (privacypass-act-02 §5.2;
    /// -01 leaves the mapping undefined): `HashToScalar(concat(issuer_name,
    /// origin_info, credential_context, issuer_key_id))`, where `concat`
    /// gives each item a 2-byte big-endian length and `HashToScalar` reads
    /// 64 bytes of SHAKE128 as a little-endian integer mod q. Returned as
    /// the scalar's 32-byte little-endian encoding, as the crypto layer
    /// takes it.
    pub fn request_context(&self, issuer_key_id: &[u8; KEY_ID_LEN]) -> [u8; 32] {
        let c = self.challenge();
        let mut h = Shake128::default();
        for part in [c.issuer_name(), c.origin_info(), self.credential_context(), issuer_key_id] {
            Update::update(&mut h, &len16(part));
            Update::update(&mut h, part);
        }
        let mut wide = [0u8; 64];
        h.finalize_xof().read(&mut wide);
        Scalar::from_bytes_mod_order_wide(&wide).to_bytes()
    }
}

/// A `TokenRequest` (privacypass-act-01 §6.1): type ‖ truncated key id ‖
/// the CBOR `IssuanceRequest`, [`REQUEST_LEN`] bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    /// The last byte of the issuer key id.
    pub truncated_key_id: u8,
    /// The ACT issuance request.
    pub request: IssuanceRequest,
}

impl Decode<'_> for TokenRequest {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let truncated_key_id = r.u8()?;
        let request = IssuanceRequest::from_cbor(r.take(IssuanceRequest::LEN)?)?;
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
        w.put(&self.request.to_cbor())
    }
}

/// A `TokenResponse` (privacypass-act-01 §6.2): the CBOR
/// `IssuanceResponse`, [`RESPONSE_LEN`] bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenResponse {
    /// The ACT issuance response.
    pub response: IssuanceResponse,
}

impl Decode<'_> for TokenResponse {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        Ok(Self { response: IssuanceResponse::from_cbor(r.take(RESPONSE_LEN)?)? })
    }
}

impl Encode for TokenResponse {
    fn encoded_len(&self) -> usize {
        RESPONSE_LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.put(&self.response.to_cbor())
    }
}

/// An ACT `Token` (privacypass-act-01 §7.1): type ‖ `challenge_digest[32]` ‖
/// `issuer_key_id[32]` ‖ the CBOR spend proof, [`Token::LEN`] bytes for the
/// bit length `L`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Token<const L: usize> {
    /// SHA-256 of the challenge.
    pub challenge_digest: [u8; CHALLENGE_DIGEST_LEN],
    /// SHA-256 of the issuer's public key.
    pub issuer_key_id: [u8; KEY_ID_LEN],
    /// The spend proof, which reveals the nullifier, the charge and the
    /// request context.
    pub proof: SpendProof<L>,
}

impl<const L: usize> Token<L> {
    /// Length of the token: [`token_len`](super::token_len)`(L)`.
    pub const LEN: usize = TOKEN_HEADER_LEN + spend_proof_len(L);

    /// The nullifier the spend proof reveals.
    pub fn nullifier(&self) -> [u8; 32] {
        self.proof.nullifier()
    }
}

impl<const L: usize> Decode<'_> for Token<L> {
    fn decode_from(r: &mut Reader<'_>) -> Result<Self> {
        expect_type(r, TOKEN_TYPE)?;
        let challenge_digest = *r.array::<CHALLENGE_DIGEST_LEN>()?;
        let issuer_key_id = *r.array::<KEY_ID_LEN>()?;
        let proof = SpendProof::<L>::from_cbor(r.take(SpendProof::<L>::LEN)?)?;
        Ok(Self { challenge_digest, issuer_key_id, proof })
    }
}

impl<const L: usize> Encode for Token<L> {
    fn encoded_len(&self) -> usize {
        Self::LEN
    }

    fn encode_into(&self, w: &mut Writer<'_>) -> Result<()> {
        w.u16(TOKEN_TYPE)?;
        w.put(&self.challenge_digest)?;
        w.put(&self.issuer_key_id)?;
        let out = w.reserve(SpendProof::<L>::LEN)?;
        self.proof.encode(out)?;
        Ok(())
    }
}
