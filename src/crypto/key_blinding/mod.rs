//! Signature key blinding (draft-irtf-cfrg-signature-key-blinding).
//!
//! A key pair `(skS, pkS)` and a blind key `bk` give a blinded key pair
//! `(skR, pkR)`: anyone holding `pkS` and `bk` computes `pkR`
//! (`BlindPublicKey`), anyone holding `pkR` and `bk` recovers `pkS`
//! (`UnblindPublicKey`), and the holder of `skS` signs under `pkR`
//! (`BlindKeySign`) with an ordinary signature that verifies under `pkR`.
//!
//! - [`ecdsa_p384`]: ECDSA P-384 with SHA-384 (draft §6), used by rate-limited
//!   tokens (token type 0x0003) for the client's request key and the issuer's
//!   origin index key.
//! - [`ed25519`]: Ed25519 (draft §5).
//!
//! Every operation on a secret (secret key, blind key, blinded scalar) is
//! constant time, except where a function's documentation says otherwise
//! ([`ecdsa_p384::BlindKeyEncoding::Minimal`] leaks the number of leading zero
//! bytes of the blind key through the hash input length).

pub mod ecdsa_p384;
pub mod ed25519;
