//! # Hazardous: ARC from the sigma-protocols test generator
//!
//! [`TestDrng`] is the deterministic generator of the sigma-protocols draft
//! (`TestDRNG`: one SHAKE128 stream from a 32-byte seed), with which
//! draft-ietf-privacypass-arc-crypto-01's test vectors were made. The
//! functions here are the ordinary ARC operations drawing from it, so that
//! the vectors' proofs come out byte for byte. It exists for tests only.
//!
//! **Never use them to issue or present real credentials.** Every secret
//! they produce (server keys, m1, the blinds, the proof nonces) is fixed by
//! the seed: anyone who knows it can forge the credential, link its
//! presentations and recover the server's key from two proofs.

pub use crate::crypto::arc::deterministic::{
    TestDrng, credential_request, credential_response, present, server_keygen,
};
