//! The target of ACT (draft-schlesinger-cfrg-act-01: ristretto255, BLAKE3,
//! CBOR), `act_messages`: its first byte picks one of the nine decoders
//! (the messages IssuanceRequest, IssuanceResponse, SpendProof for L = 8
//! and Refund; the keys PublicKey and PrivateKey; the client states
//! PreIssuance, CreditToken and PreRefund), the rest is the CBOR. What
//! decodes re-encodes to the same bytes (the codec admits exactly one
//! encoding per value); what fails, fails with an error its decoder
//! documents. A spend proof that decodes goes to the fixed issuer's
//! `refund`, which accepts it (the appendix vector's proof) or refuses it
//! with `Verification` or `ValueTooLarge`, and never panics. The issuer is
//! the appendix vectors' (`tests/vectors/act/`: their domain separator and
//! key, L = 8), so the vector's proof reaches the success path; the seeds
//! are the vectors' messages (`scripts/fuzz-seeds.py`). Randomness is
//! [`FixedRng`], so every input replays the same way.

use sha2::{Digest, Sha256};

use crate::crypto::act::{
    CreditToken, IssuanceRequest, IssuanceResponse, Params, PreIssuance, PreRefund, PrivateKey, PublicKey, Refund,
    SpendProof,
};
use crate::error::{Error, Field};

/// The bit length of balances of the fixture (the vectors' `L`).
const L: usize = 8;

/// The vectors' domain separator.
const DOMAIN_SEPARATOR: &[u8] = b"ACT-v1:test:vectors:v0:2025-01-01";

/// The vectors' private key CBOR, `{1: x, 2: W}` (71 bytes).
const PRIVATE_KEY: [&str; 2] = [
    "a201582036e5b43419551a92c809a995a3d2c817a86ce8f5dd973b06fe9cb5a3f012870b",
    "0258204aceeb1d507e50957db46b6bcd374614b8ea080cbbc77ad060666bf5788c8121",
];

/// Hex pieces to bytes (the constant above; a panic names a bad one).
fn unhex<const N: usize>(pieces: &[&str]) -> [u8; N] {
    let digit = |c: &u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => panic!("not a hex digit: {c}"),
    };
    let mut out = [0u8; N];
    let pairs = pieces.iter().flat_map(|p| p.as_bytes().chunks_exact(2));
    assert_eq!(pieces.iter().map(|p| p.len()).sum::<usize>(), 2 * N, "a constant of the wrong length");
    for (byte, pair) in out.iter_mut().zip(pairs) {
        if let [hi, lo] = pair {
            *byte = (digit(hi) << 4) | digit(lo);
        }
    }
    out
}

/// A deterministic generator: SHA-256 of a label and a counter. The
/// issuer's draws (e*, α) need not be secret here, only reproducible.
struct FixedRng(u64);

impl rand_core::TryRng for FixedRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        let mut b = [0u8; 4];
        self.try_fill_bytes(&mut b)?;
        Ok(u32::from_le_bytes(b))
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        let mut b = [0u8; 8];
        self.try_fill_bytes(&mut b)?;
        Ok(u64::from_le_bytes(b))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(32) {
            let block = Sha256::new().chain_update(b"pat fuzzing ACT").chain_update(self.0.to_be_bytes()).finalize();
            self.0 = self.0.wrapping_add(1);
            if let Some(src) = block.get(..chunk.len()) {
                chunk.copy_from_slice(src);
            }
        }
        Ok(())
    }
}

impl rand_core::TryCryptoRng for FixedRng {}

/// A structural refusal of the CBOR codec (`cbor.rs`'s errors).
fn structural(e: Error) -> bool {
    matches!(
        e,
        Error::Truncated
            | Error::TrailingBytes
            | Error::InvalidLength(Field::Message)
            | Error::InvalidValue(Field::Message)
    )
}

/// A decoder's documented refusal: the structure, or a field that is not a
/// canonical scalar or a canonical non-identity element.
fn refused(what: &str, e: Error) {
    assert!(
        structural(e) || matches!(e, Error::InvalidScalar | Error::InvalidElement),
        "{what}: unexpected error {e:?}"
    );
}

/// Checks one decoder: `Ok` re-encodes to `data`, `Err` is documented.
fn roundtrip<T, const N: usize>(
    what: &str,
    data: &[u8],
    decode: fn(&[u8]) -> crate::Result<T>,
    encode: impl Fn(&T) -> [u8; N],
    extra: fn(Error) -> bool,
) -> Option<T> {
    match decode(data) {
        Ok(v) => {
            assert_eq!(encode(&v).as_slice(), data, "{what}: decode → encode is not the identity");
            Some(v)
        }
        Err(e) => {
            if !extra(e) {
                refused(what, e);
            }
            None
        }
    }
}

/// No extra error beyond the codec's and the field decoders'.
fn none(_: Error) -> bool {
    false
}

/// The first byte picks the decoder (0 IssuanceRequest, 1 IssuanceResponse,
/// 2 SpendProof<8>, 3 Refund, 4 PublicKey, 5 PrivateKey, 6 PreIssuance,
/// 7 CreditToken, 8 PreRefund; a byte above 8 is ignored), the rest is its
/// CBOR. See the module documentation.
pub fn act_messages(data: &[u8]) {
    let Some((&selector, msg)) = data.split_first() else { return };
    match selector {
        0 => drop(roundtrip("IssuanceRequest", msg, IssuanceRequest::from_cbor, |v| v.to_cbor(), none)),
        1 => {
            if let Some(r) = roundtrip("IssuanceResponse", msg, IssuanceResponse::from_cbor, |v| v.to_cbor(), none) {
                let _ = r.credits::<L>();
            }
        }
        2 => spend_proof(msg),
        3 => {
            if let Some(r) = roundtrip("Refund", msg, Refund::from_cbor, |v| v.to_cbor(), none) {
                let _ = r.partial_return::<L>();
            }
        }
        4 => {
            if let Some(k) = roundtrip("PublicKey", msg, PublicKey::from_cbor, |v| v.to_cbor(), none) {
                assert_eq!(PublicKey::from_bytes(&k.to_bytes()), Ok(k));
            }
        }
        5 => {
            // W ≠ x·G is the key decoder's own refusal.
            let key = roundtrip("PrivateKey", msg, PrivateKey::from_cbor, |v| *v.to_cbor(), |e| e == Error::InvalidKey);
            if let Some(key) = key {
                let public = key.public_key().to_cbor();
                assert_eq!(msg.get(msg.len().saturating_sub(public.len())..), Some(public.as_slice()));
            }
        }
        6 => drop(roundtrip("PreIssuance", msg, PreIssuance::from_cbor, |v| *v.to_cbor(), none)),
        7 => {
            if let Some(t) = roundtrip("CreditToken", msg, CreditToken::from_cbor, |v| *v.to_cbor(), none) {
                let _ = t.credits::<L>();
            }
        }
        8 => drop(roundtrip("PreRefund", msg, PreRefund::from_cbor, |v| *v.to_cbor(), none)),
        _ => {}
    }
}

/// A SpendProof<8>: decode → encode is the identity; the fixture's issuer
/// refunds it (t = 0, then t = s when the charge is below 2^8), which
/// succeeds or fails with `Verification` or `ValueTooLarge`.
fn spend_proof(msg: &[u8]) {
    let proof = match SpendProof::<L>::from_cbor(msg) {
        Ok(p) => p,
        Err(e) => return refused("SpendProof", e),
    };
    let mut out = [0u8; SpendProof::<L>::LEN];
    assert_eq!(proof.encode(&mut out), Ok(SpendProof::<L>::LEN), "SpendProof: encode");
    assert_eq!(out.as_slice(), msg, "SpendProof: decode → encode is not the identity");
    let params = Params::from_domain_separator(DOMAIN_SEPARATOR);
    let key = match PrivateKey::from_cbor(&unhex::<{ PrivateKey::CBOR_LEN }>(&PRIVATE_KEY)) {
        Ok(k) => k,
        Err(e) => panic!("the ACT fixture's private key failed: {e:?}"),
    };
    let charge = proof.charge();
    let mut rng = FixedRng(0);
    for t in [Some(0), charge.ok()].into_iter().flatten() {
        match key.refund::<L, _>(&params, &proof, t, &mut rng) {
            Ok(refund) => {
                assert!(t <= charge.unwrap_or(0), "a refund above the charge");
                assert_eq!(refund.partial_return::<L>(), Ok(t));
                assert_eq!(Refund::from_cbor(&refund.to_cbor()), Ok(refund));
            }
            Err(e) => assert!(matches!(e, Error::Verification | Error::ValueTooLarge), "refund: unexpected {e:?}"),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    /// The fixture's key loads and the empty and unknown selectors pass.
    #[test]
    fn fixture_and_selectors() {
        assert!(PrivateKey::from_cbor(&unhex::<{ PrivateKey::CBOR_LEN }>(&PRIVATE_KEY)).is_ok());
        act_messages(&[]);
        act_messages(&[9, 1, 2, 3]);
        for selector in 0..9u8 {
            act_messages(&[selector]);
            act_messages(&[selector, 0xa0]);
        }
    }
}
