//! RFC 9497 verifiable oblivious pseudorandom functions, written once and
//! generic over a group [`Suite`].
//!
//! This module implements the VOPRF protocol (mode 0x01, RFC 9497 §3.3.2)
//! used by Privacy Pass privately verifiable tokens (RFC 9578 §5: type 0x0001
//! with [`P384Sha384`], type 0x0005 with [`Ristretto255Sha512`]), including
//! batched evaluation with a single DLEQ proof (§2.2). The base OPRF mode
//! (0x00, §3.3.1) is in [`oprf`], the partially oblivious mode (POPRF, 0x02,
//! §3.3.3; token type 0xDA7B) in [`poprf`].
//!
//! | step | client | server |
//! |---|---|---|
//! | setup (§3.2) | – | [`derive_key_pair`] / [`generate_key_pair`] |
//! | request | [`blind`] → ([`Blind`], [`Element`]) | – |
//! | response | – | [`blind_evaluate`] → evaluated elements + [`Proof`] |
//! | output | [`finalize`] (verifies the proof) | – |
//! | redemption | – | [`evaluate`] / [`verify_output`] |
//!
//! Nothing here allocates: batches are caller-provided slices, and every
//! serialized form is a fixed-size array given by the suite
//! ([`Suite::ElementBytes`], [`Suite::ScalarBytes`], [`Suite::ProofBytes`],
//! [`Suite::Output`]).
//!
//! # Constant time
//!
//! Operations on the server key, the client blinds, the proof nonce and
//! unblinded elements are constant time (the `p384` and `curve25519-dalek`
//! scalar multiplications and inversions). Functions whose names end in
//! `_vartime` (internal) only ever see public data: the proof verification
//! and the composite `M = Σ d_i·C_i`. Comparing PRF outputs must use
//! [`output_ct_eq`] or [`verify_output`].
//!
//! # Deterministic variants
//!
//! With the `hazmat` feature, `pat::hazmat::crypto::voprf` holds the functions that take the
//! blind and the proof nonce explicitly. They exist for known-answer tests;
//! reusing a blind or a nonce breaks unlinkability or leaks the key.

#[cfg(pat_bench)]
#[doc(hidden)]
pub mod bench;
mod dleq;
// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;
pub mod oprf;
mod p384_jacobian;
mod p384_sha384;
pub mod poprf;
mod protocol;
mod ristretto255_sha512;
mod suite;

use core::fmt;

use subtle::{Choice, ConstantTimeEq};
use zeroize::{ZeroizeOnDrop, Zeroizing};

pub use p384_sha384::P384Sha384;
pub use protocol::{blind, blind_evaluate, derive_key_pair, evaluate, finalize, generate_key_pair, verify_output};
pub use ristretto255_sha512::Ristretto255Sha512;
pub use suite::{ByteArray, Suite};

use crate::error::{Error, Result};

/// A validated group element together with its canonical encoding
/// (RFC 9497 §2.1 `Element`, `SerializeElement`): a blinded element, an
/// evaluated element or a public key.
///
/// It is never the identity. Keeping the encoding avoids serializing the same
/// point again when it enters a transcript hash (§2.2.1) or the wire.
#[derive(Clone, Copy)]
pub struct Element<S: Suite> {
    point: S::Point,
    bytes: S::ElementBytes,
}

impl<S: Suite> Element<S> {
    /// `DeserializeElement` (RFC 9497 §2.1, §4): accepts only the canonical
    /// encoding of a non-identity element, else [`Error::InvalidElement`].
    pub fn from_bytes(bytes: &S::ElementBytes) -> Result<Self> {
        let point = S::deserialize_element(bytes)?;
        Ok(Self { point, bytes: *bytes })
    }

    /// `DeserializeElement` (RFC 9497 §2.1) for a slice, which must be exactly
    /// `Ne` bytes long ([`Error::InvalidElement`] otherwise).
    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        let bytes = S::ElementBytes::from_slice(bytes).ok_or(Error::InvalidElement)?;
        Self::from_bytes(&bytes)
    }

    /// `SerializeElement` (RFC 9497 §2.1): the canonical `Ne`-byte encoding.
    pub fn as_bytes(&self) -> &S::ElementBytes {
        &self.bytes
    }

    /// Serializes a computed point; fails for the identity.
    pub(crate) fn from_point(point: S::Point) -> Result<Self> {
        let bytes = suite::serialize_element::<S>(&point)?;
        Ok(Self { point, bytes })
    }

    /// A computed point and its encoding (which the caller made from it).
    pub(crate) fn from_parts(point: S::Point, bytes: S::ElementBytes) -> Self {
        Self { point, bytes }
    }

    pub(crate) fn point(&self) -> &S::Point {
        &self.point
    }
}

impl<S: Suite> PartialEq for Element<S> {
    fn eq(&self, other: &Self) -> bool {
        self.bytes == other.bytes
    }
}

impl<S: Suite> Eq for Element<S> {}

impl<S: Suite> fmt::Debug for Element<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "Element", self.bytes.as_ref())
    }
}

/// The server's public key `pkS = skS·G` (RFC 9497 §3.2), a non-identity
/// element. The client needs it to verify proofs.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey<S: Suite>(Element<S>);

impl<S: Suite> PublicKey<S> {
    /// Parses a serialized public key (RFC 9497 §2.1 `DeserializeElement`).
    pub fn from_bytes(bytes: &S::ElementBytes) -> Result<Self> {
        Element::from_bytes(bytes).map(Self)
    }

    /// The serialized public key (`SerializeElement(pkS)`, RFC 9497 §2.1).
    pub fn as_bytes(&self) -> &S::ElementBytes {
        self.0.as_bytes()
    }

    /// The key as a group element (RFC 9497 §3.2 `pkS`).
    pub fn as_element(&self) -> &Element<S> {
        &self.0
    }
}

impl<S: Suite> fmt::Debug for PublicKey<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "PublicKey", self.as_bytes().as_ref())
    }
}

/// The server's private key `skS` (RFC 9497 §3.2), a non-zero scalar.
///
/// Not `Copy`, zeroized on drop, `Debug` prints only the type name; compare
/// with [`ConstantTimeEq`].
pub struct SecretKey<S: Suite>(S::Scalar);

impl<S: Suite> SecretKey<S> {
    /// `DeserializeScalar` for a private key (RFC 9497 §2.1): rejects
    /// non-canonical encodings and zero with [`Error::InvalidScalar`].
    pub fn from_bytes(bytes: &S::ScalarBytes) -> Result<Self> {
        let s = S::deserialize_scalar(bytes)?;
        if bool::from(S::scalar_is_zero(&s)) {
            return Err(Error::InvalidScalar);
        }
        Ok(Self(s))
    }

    /// `SerializeScalar(skS)` (RFC 9497 §2.1), wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<S::ScalarBytes> {
        Zeroizing::new(S::serialize_scalar(&self.0))
    }

    pub(crate) fn scalar(&self) -> &S::Scalar {
        &self.0
    }

    /// Marks the secret memory as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(&self.0);
    }
}

secret_newtype!(impl[S: Suite] SecretKey<S> { 0 });

/// A server key pair `(skS, pkS)` (RFC 9497 §3.2). The public key is kept
/// serialized because every proof hashes it (§2.2.1).
pub struct KeyPair<S: Suite> {
    secret: SecretKey<S>,
    public: PublicKey<S>,
}

impl<S: Suite> KeyPair<S> {
    /// Completes a private key with its public key (RFC 9497 §3.2).
    pub fn from_secret_key(secret: SecretKey<S>) -> Result<Self> {
        let mut pk = S::mul_base(secret.scalar());
        crate::ct::declassify(&mut pk); // the public key pkS = skS·G is published
        let public = PublicKey(Element::from_point(pk)?);
        Ok(Self { secret, public })
    }

    /// The private key `skS` (RFC 9497 §3.2).
    pub fn secret_key(&self) -> &SecretKey<S> {
        &self.secret
    }

    /// The public key `pkS` (RFC 9497 §3.2).
    pub fn public_key(&self) -> &PublicKey<S> {
        &self.public
    }
}

impl<S: Suite> ZeroizeOnDrop for KeyPair<S> {}

impl<S: Suite> fmt::Debug for KeyPair<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeyPair").field("public", &self.public).finish_non_exhaustive()
    }
}

/// A client's blinding scalar (RFC 9497 §3.3.1 `Blind`), a non-zero scalar
/// kept until [`finalize`].
///
/// Not `Copy`, zeroized on drop, `Debug` prints only the type name; compare
/// with [`ConstantTimeEq`].
pub struct Blind<S: Suite>(S::Scalar);

impl<S: Suite> Blind<S> {
    pub(crate) fn scalar(&self) -> &S::Scalar {
        &self.0
    }

    pub(crate) fn new(s: S::Scalar) -> Result<Self> {
        let mut zero = S::scalar_is_zero(&s);
        crate::ct::declassify(&mut zero); // verdict only: RandomScalar is never zero, an explicit zero is an error
        if bool::from(zero) {
            return Err(Error::InvalidScalar);
        }
        Ok(Self(s))
    }

    /// `DeserializeScalar` for a blind (RFC 9497 §2.1): canonical and
    /// non-zero, else [`Error::InvalidScalar`].
    pub(crate) fn from_bytes(bytes: &S::ScalarBytes) -> Result<Self> {
        Self::new(S::deserialize_scalar(bytes)?)
    }

    /// `SerializeScalar(blind)` (RFC 9497 §2.1), wiped when dropped.
    pub(crate) fn to_bytes(&self) -> Zeroizing<S::ScalarBytes> {
        Zeroizing::new(S::serialize_scalar(&self.0))
    }

    /// Zeroes the scalar in place (a spent client state). The blind is then
    /// zero, which no valid blind is: only use it again after a new value.
    pub(crate) fn wipe(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.0);
    }
}

secret_newtype!(impl[S: Suite] Blind<S> { 0 });

/// A DLEQ proof `(c, s)` (RFC 9497 §2.2), serialized as
/// `SerializeScalar(c) || SerializeScalar(s)`.
#[derive(Clone, Copy)]
pub struct Proof<S: Suite> {
    pub(crate) c: S::Scalar,
    pub(crate) s: S::Scalar,
}

impl<S: Suite> Proof<S> {
    /// Parses `c || s` (RFC 9497 §2.2); [`Error::InvalidScalar`] if either
    /// scalar is not canonical.
    pub fn from_bytes(bytes: &S::ProofBytes) -> Result<Self> {
        let (c, s) = bytes.as_ref().split_at_checked(S::NS).ok_or(Error::InvalidScalar)?;
        let c = S::ScalarBytes::from_slice(c).ok_or(Error::InvalidScalar)?;
        let s = S::ScalarBytes::from_slice(s).ok_or(Error::InvalidScalar)?;
        Ok(Self { c: S::deserialize_scalar(&c)?, s: S::deserialize_scalar(&s)? })
    }

    /// Parses `c || s` (RFC 9497 §2.2) from a slice of exactly `2·Ns` bytes
    /// ([`Error::InvalidScalar`] otherwise).
    pub fn from_slice(bytes: &[u8]) -> Result<Self> {
        let bytes = S::ProofBytes::from_slice(bytes).ok_or(Error::InvalidScalar)?;
        Self::from_bytes(&bytes)
    }

    /// `SerializeScalar(c) || SerializeScalar(s)` (RFC 9497 §2.2).
    pub fn to_bytes(&self) -> S::ProofBytes {
        let mut out = S::ProofBytes::ZERO;
        let c = S::serialize_scalar(&self.c);
        let s = S::serialize_scalar(&self.s);
        for (o, b) in out.as_mut().iter_mut().zip(c.as_ref().iter().chain(s.as_ref())) {
            *o = *b;
        }
        out
    }
}

impl<S: Suite> PartialEq for Proof<S> {
    fn eq(&self, other: &Self) -> bool {
        self.to_bytes() == other.to_bytes()
    }
}

impl<S: Suite> Eq for Proof<S> {}

impl<S: Suite> fmt::Debug for Proof<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "Proof", self.to_bytes().as_ref())
    }
}

/// Constant-time equality of two PRF outputs (RFC 9497 §3.3.1 `Finalize`,
/// §3.3.2 `Evaluate`), e.g. a token's authenticator against the recomputed
/// value (RFC 9578 §5.4).
pub fn output_ct_eq<S: Suite>(a: &S::Output, b: &S::Output) -> Choice {
    a.as_ref().ct_eq(b.as_ref())
}
