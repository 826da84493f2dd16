//! ARC's wire structures (draft-ietf-privacypass-arc-crypto-01 §4): the
//! credential request (`Nrequest` = 226 bytes), the credential response
//! (`Nresponse` = 454 bytes) and the presentation, whose length depends on
//! the presentation limit. Decoding checks lengths and decodes every element
//! (on the curve, compressed, not the identity) and scalar (below the order);
//! the proofs are checked by the role that receives the message.

use p256::elliptic_curve::point::AffineCoordinates;

use super::group::{Elem, NE, NS};
use super::proofs::{Bases, MAX_BITS};
use crate::error::{Error, Result};

/// `Nrequest` = 2·Ne + 5·Ns.
pub const REQUEST_LEN: usize = 2 * NE + 5 * NS;
/// `Nresponse` = 6·Ne + 8·Ns.
pub const RESPONSE_LEN: usize = 6 * NE + 8 * NS;
/// Length of the request proof (challenge and four responses).
pub(crate) const REQUEST_PROOF_LEN: usize = 5 * NS;
/// Length of the response proof (challenge and seven responses).
pub(crate) const RESPONSE_PROOF_LEN: usize = 8 * NS;
/// The longest presentation (a limit of 2^32: k = 32).
pub const PRESENTATION_MAX_LEN: usize = 5 * NE + 32 * NE + (6 + 3 * 32) * NS;

/// `CredentialRequest` (§4.2.1): m1Enc ‖ m2Enc ‖ requestProof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CredentialRequest {
    pub(crate) m1_enc: Elem,
    pub(crate) m2_enc: Elem,
    pub(crate) proof: [u8; REQUEST_PROOF_LEN],
}

impl CredentialRequest {
    /// Decodes exactly [`REQUEST_LEN`] bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < REQUEST_LEN {
            return Err(Error::Truncated);
        }
        if bytes.len() > REQUEST_LEN {
            return Err(Error::TrailingBytes);
        }
        let (m1, rest) = bytes.split_at(NE);
        let (m2, proof) = rest.split_at(NE);
        let proof: [u8; REQUEST_PROOF_LEN] = proof.try_into().map_err(|_| Error::Truncated)?;
        Ok(Self { m1_enc: Elem::decode(m1)?, m2_enc: Elem::decode(m2)?, proof })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; REQUEST_LEN] {
        let mut out = [0u8; REQUEST_LEN];
        let (a, rest) = out.split_at_mut(NE);
        let (b, c) = rest.split_at_mut(NE);
        a.copy_from_slice(&self.m1_enc.bytes);
        b.copy_from_slice(&self.m2_enc.bytes);
        c.copy_from_slice(&self.proof);
        out
    }
}

/// `CredentialResponse` (§4.2.2): U ‖ encUPrime ‖ X0Aux ‖ X1Aux ‖ X2Aux ‖
/// HAux ‖ responseProof.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CredentialResponse {
    pub(crate) u: Elem,
    pub(crate) enc_u_prime: Elem,
    pub(crate) x0_aux: Elem,
    pub(crate) x1_aux: Elem,
    pub(crate) x2_aux: Elem,
    pub(crate) h_aux: Elem,
    pub(crate) proof: [u8; RESPONSE_PROOF_LEN],
}

impl CredentialResponse {
    /// Decodes exactly [`RESPONSE_LEN`] bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < RESPONSE_LEN {
            return Err(Error::Truncated);
        }
        if bytes.len() > RESPONSE_LEN {
            return Err(Error::TrailingBytes);
        }
        let mut chunks = bytes.chunks_exact(NE);
        let mut next = || chunks.next().ok_or(Error::Truncated).and_then(Elem::decode);
        let u = next()?;
        let enc_u_prime = next()?;
        let x0_aux = next()?;
        let x1_aux = next()?;
        let x2_aux = next()?;
        let h_aux = next()?;
        let proof =
            bytes.get(6 * NE..).and_then(|p| <[u8; RESPONSE_PROOF_LEN]>::try_from(p).ok()).ok_or(Error::Truncated)?;
        Ok(Self { u, enc_u_prime, x0_aux, x1_aux, x2_aux, h_aux, proof })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; RESPONSE_LEN] {
        let mut out = [0u8; RESPONSE_LEN];
        let elems = [&self.u, &self.enc_u_prime, &self.x0_aux, &self.x1_aux, &self.x2_aux, &self.h_aux];
        for (chunk, e) in out.chunks_exact_mut(NE).zip(elems) {
            chunk.copy_from_slice(&e.bytes);
        }
        if let Some(p) = out.get_mut(6 * NE..) {
            p.copy_from_slice(&self.proof);
        }
        out
    }
}

/// The length of a presentation under `limit` (`Npresentation` =
/// 5·Ne + k·Ne + (6 + 3k)·Ns with k = ⌈log2(limit)⌉).
pub fn presentation_len(limit: u64) -> Result<usize> {
    let k = Bases::new(limit)?.len;
    Ok(5 * NE + k * NE + (6 + 3 * k) * NS)
}

/// A decoded `Presentation` (§4.3.2), borrowing its proof: U ‖ UPrimeCommit ‖
/// m1Commit ‖ tag ‖ nonceCommit ‖ D[0..k] ‖ challenge ‖ responses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PresentationRef<'a> {
    pub(crate) u: Elem,
    pub(crate) u_prime_commit: Elem,
    pub(crate) m1_commit: Elem,
    pub(crate) tag: Elem,
    pub(crate) nonce_commit: Elem,
    /// The k bit commitments, encoded.
    pub(crate) d: &'a [u8],
    /// Their y coordinates, found when decoding (the first k entries), so
    /// that the verifier rebuilds each point without a second square root.
    pub(crate) d_y: [[u8; NS]; MAX_BITS],
    /// challenge ‖ responses.
    pub(crate) proof: &'a [u8],
    pub(crate) k: usize,
}

impl<'a> PresentationRef<'a> {
    /// Decodes a presentation made under `limit`: exactly
    /// [`presentation_len`]`(limit)` bytes.
    pub fn decode(bytes: &'a [u8], limit: u64) -> Result<Self> {
        let k = Bases::new(limit)?.len;
        let want = 5 * NE + k * NE + (6 + 3 * k) * NS;
        if bytes.len() < want {
            return Err(Error::Truncated);
        }
        if bytes.len() > want {
            return Err(Error::TrailingBytes);
        }
        let (head, rest) = bytes.split_at(5 * NE);
        let (d, proof) = rest.split_at(k * NE);
        let mut chunks = head.chunks_exact(NE);
        let mut next = || chunks.next().ok_or(Error::Truncated).and_then(Elem::decode);
        let u = next()?;
        let u_prime_commit = next()?;
        let m1_commit = next()?;
        let tag = next()?;
        let nonce_commit = next()?;
        let mut d_y = [[0u8; NS]; MAX_BITS];
        for (slot, chunk) in d_y.iter_mut().zip(d.chunks_exact(NE)) {
            let (affine, _) = Elem::decode_affine(chunk)?;
            slot.copy_from_slice(&affine.y());
        }
        Ok(Self { u, u_prime_commit, m1_commit, tag, nonce_commit, d, d_y, proof, k })
    }

    /// The presentation tag (§4.3.3), the value an origin keeps to refuse a
    /// second presentation with it.
    pub fn tag(&self) -> &[u8; NE] {
        &self.tag.bytes
    }
}
