//! The deterministic arc entry points behind `pat::hazmat::crypto::arc`
//! (see its warning), and used by the power-on self-test and the tests.

use crypto_bigint::{NonZero, U384};
use p256::Scalar;

use super::client::{CredentialRequestState, Presentation, PresentationState};
use super::group::{decode_scalar, reduce_wide};
use super::messages::{CredentialRequest, CredentialResponse};
use super::server::ServerPrivateKey;
use super::sigma::Sponge;
use crate::error::Result;
use sha3::digest::{ExtendableOutput, XofReader};

/// The IV of the test generator's sponge.
const DRNG_IV: &[u8] = b"sigma-proofs/TestDRNG/SHAKE128";

/// n − 1 for P-256, the range of the reference code's `G.ScalarField.random`
/// (`randint(0, n − 1)`: uniform below n − 1).
const ORDER_MINUS_ONE: U384 = U384::from_be_hex(
    "00000000000000000000000000000000ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632550",
);

/// The sigma-protocols draft's `TestDRNG`: one SHAKE128 output stream, read
/// in order. Not a cryptographic generator: its output is fixed by the seed.
pub struct TestDrng {
    // Nothing is absorbed after the seed, so the reference's re-squeezing
    // from offset 0 reads the same stream as one reader kept open.
    stream: sha3::Shake128Reader,
}

impl core::fmt::Debug for TestDrng {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("TestDrng")
    }
}

impl TestDrng {
    /// The generator for `seed` (the vectors use `"test vector seed"` and 16
    /// zero bytes).
    pub fn new(seed: &[u8; 32]) -> Self {
        let mut sponge = Sponge::new(DRNG_IV);
        sponge.absorb(seed);
        Self { stream: sponge.0.finalize_xof() }
    }

    /// The next 48 bytes of the stream.
    fn next48(&mut self) -> [u8; 48] {
        let mut out = [0u8; 48];
        self.stream.read(&mut out);
        out
    }

    /// The next protocol scalar the generator gives (as the ARC operations
    /// draw it from this generator), serialized: how a vector writer reads the blinds the
    /// library keeps to itself, by running a second generator of the same
    /// seed to the step that draws them.
    pub fn next_protocol_scalar(&mut self) -> [u8; 32] {
        super::group::encode_scalar(&self.protocol_scalar())
    }

    /// `rng.random_scalar()`: 48 bytes modulo n (the sigma nonces).
    pub(crate) fn sigma_scalar(&mut self) -> Scalar {
        reduce_wide(&self.next48())
    }

    /// `G.ScalarField.random(rng)` of the reference code: 48 bytes modulo
    /// n − 1 (the protocol's scalars).
    pub(crate) fn protocol_scalar(&mut self) -> Scalar {
        let wide = U384::from_be_slice(&self.next48());
        let Some(modulus) = NonZero::new(ORDER_MINUS_ONE).into_option() else {
            return Scalar::ZERO;
        };
        let r = wide.rem_vartime(&modulus);
        let bytes = r.to_be_bytes();
        decode_scalar(bytes.as_ref().get(16..).unwrap_or(&[])).unwrap_or(Scalar::ZERO)
    }
}

/// `SetupServer()` drawing from `drng`.
pub fn server_keygen(drng: &mut TestDrng) -> Result<ServerPrivateKey> {
    ServerPrivateKey::generate_with(drng)
}

/// `CreateCredentialRequest` drawing from `drng`.
pub fn credential_request(
    request_context: &[&[u8]],
    drng: &mut TestDrng,
) -> Result<(CredentialRequestState, CredentialRequest)> {
    CredentialRequestState::new_with(request_context, drng)
}

/// `CreateCredentialResponse` drawing from `drng`.
pub fn credential_response(
    key: &ServerPrivateKey,
    request: &CredentialRequest,
    drng: &mut TestDrng,
) -> Result<CredentialResponse> {
    key.respond_with(request, drng)
}

/// `Present` drawing from `drng`.
pub fn present(state: &mut PresentationState, drng: &mut TestDrng, out: &mut [u8]) -> Result<Presentation> {
    state.present_with(drng, out)
}

impl super::random::sealed::Sealed for TestDrng {}

impl super::random::ScalarSource for TestDrng {
    fn random_scalar(&mut self) -> Result<Scalar> {
        Ok(self.protocol_scalar())
    }
    fn proof_nonce(&mut self) -> Result<Scalar> {
        Ok(self.sigma_scalar())
    }
}

#[cfg(test)]
mod tests {
    use sha2::{Digest, Sha256};

    use super::*;
    use crate::crypto::arc::messages::{PRESENTATION_MAX_LEN, PresentationRef};
    use crate::crypto::arc::{Credential, PresentationState};

    /// SHA-256 of the two presentations (nonces 0 and 1) that a credential
    /// from the draft's generator makes under `limit`, each verified.
    fn presentations_digest(limit: u64) -> [u8; 32] {
        let mut drng = TestDrng::new(&[0x5a; 32]);
        let key = server_keygen(&mut drng).unwrap();
        let (state, request) = credential_request(&[b"request context"], &mut drng).unwrap();
        let response = credential_response(&key, &request, &mut drng).unwrap();
        let credential: Credential = state.finalize(key.public_key(), &response).unwrap();
        let mut pstate = PresentationState::new(&credential, &[b"presentation context"], limit).unwrap();
        let mut out = [0u8; PRESENTATION_MAX_LEN];
        let mut h = Sha256::new();
        for nonce in 0..2u32 {
            let p = present(&mut pstate, &mut drng, &mut out).unwrap();
            assert_eq!(p.nonce, nonce);
            let bytes = &out[..p.len];
            let parsed = PresentationRef::decode(bytes, limit).unwrap();
            key.verify_presentation(&[b"request context"], &[b"presentation context"], &parsed, limit).unwrap();
            h.update(bytes);
        }
        h.finalize().into()
    }

    fn hex(s: &str) -> [u8; 32] {
        let mut out = [0u8; 32];
        for (o, pair) in out.iter_mut().zip(s.as_bytes().chunks(2)) {
            *o = u8::from_str_radix(core::str::from_utf8(pair).unwrap(), 16).unwrap();
        }
        out
    }

    /// The draft's vectors have limit 2 only (one range-proof base, whose
    /// commitment is nonceCommit's variable). These digests pin the
    /// presentations at limits with 2, 3, 16 and 32 bases to what the
    /// prover made before its stack was cut (commit b885262, the prover
    /// that kept every bit commitment as a point and 101 nonces and witness
    /// scalars; the same digests with and without `precomputed-tables`), so
    /// a transcript that changed but stays self-consistent fails here. Run
    /// in both builds of the library (`scripts/test` runs the lib tests
    /// without default features too).
    #[test]
    fn presentations_at_every_width_match_the_earlier_prover() {
        for (limit, digest) in [
            (2u64, "66cca73767ab5cc190fc2575bd1979a258ecad784659255e72fbc742f701f905"),
            (3u64, "1d403a87c426c7951d22f90a10707b13852cd454f9b2d2ca64d6805a19cb9f7c"),
            (5u64, "12de5b2cfcf779f7daf2ae672fbcd16304d4d2d28206a631d32a734b981cbbdf"),
            (65536u64, "41208219161b94b78a1189aa2761767a72ed2575d02dd517fd3630b6cfdb9a90"),
            (4294967296u64, "a25d7c3908439af0daca80d3ddf2d6dd68ca42d749f372bfd6c08e9d6fd3531c"),
        ] {
            assert_eq!(presentations_digest(limit), hex(digest), "limit {limit}");
        }
    }
}
