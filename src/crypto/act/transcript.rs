//! The Fiat-Shamir transcript (draft-schlesinger-cfrg-act-01 §3.7.2):
//! BLAKE3 over length-prefixed values, `LengthPrefixed(x)` = 8-byte
//! big-endian length ‖ x.
//!
//! `CreateTranscript(label)` absorbs the protocol version, the encodings of
//! H1..H4 (kept in [`Params`]: the state after them is computed once) and
//! the label; `GetChallenge` reads 64 bytes of BLAKE3's extendable output
//! and reduces them modulo q as a little-endian integer.

use curve25519_dalek::Scalar;

use super::group::Elem;
use super::params::Params;

/// `PROTOCOL_VERSION` (§3.7.1).
pub(crate) const PROTOCOL_VERSION: &[u8] = b"curve25519-ristretto anonymous-credits v1.0";

/// Absorbs `LengthPrefixed(bytes)`.
pub(crate) fn absorb(hasher: &mut blake3::Hasher, bytes: &[u8]) {
    let len = u64::try_from(bytes.len()).unwrap_or(u64::MAX);
    hasher.update(&len.to_be_bytes());
    hasher.update(bytes);
}

/// One proof's transcript.
pub(crate) struct Transcript(blake3::Hasher);

impl Transcript {
    /// `CreateTranscript(label)`.
    pub(crate) fn new(params: &Params, label: &[u8]) -> Self {
        let mut hasher = params.transcript.clone();
        absorb(&mut hasher, label);
        Self(hasher)
    }

    /// `AddToTranscript` of an element (its encoding).
    pub(crate) fn element(&mut self, e: &Elem) {
        absorb(&mut self.0, &e.bytes);
    }

    /// `AddToTranscript` of an element given by its encoding.
    pub(crate) fn encoded(&mut self, bytes: &[u8; 32]) {
        absorb(&mut self.0, bytes);
    }

    /// `AddToTranscript` of a point: compressed first.
    pub(crate) fn point(&mut self, p: &curve25519_dalek::RistrettoPoint) {
        absorb(&mut self.0, p.compress().as_bytes());
    }

    /// `AddToTranscript` of a scalar (32 bytes little-endian).
    pub(crate) fn scalar(&mut self, s: &Scalar) {
        absorb(&mut self.0, s.as_bytes());
    }

    /// `GetChallenge`: 64 bytes of output, little-endian, modulo q.
    pub(crate) fn challenge(self) -> Scalar {
        let mut wide = [0u8; 64];
        self.0.finalize_xof().fill(&mut wide);
        Scalar::from_bytes_mod_order_wide(&wide)
    }
}
