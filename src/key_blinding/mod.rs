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

/// The secret-handling impls of a tuple newtype around a secret value:
/// constant-time equality, zeroization on drop, and a `Debug` that prints only
/// the type name.
macro_rules! secret_newtype {
    ($name:ident) => {
        impl subtle::ConstantTimeEq for $name {
            fn ct_eq(&self, other: &Self) -> subtle::Choice {
                self.0.ct_eq(&other.0)
            }
        }

        impl Drop for $name {
            fn drop(&mut self) {
                zeroize::Zeroize::zeroize(&mut self.0);
            }
        }

        impl zeroize::ZeroizeOnDrop for $name {}

        impl core::fmt::Debug for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}

pub mod ecdsa_p384;
pub mod ed25519;
