//! Ed25519 key blinding (draft-irtf-cfrg-signature-key-blinding §5).
//!
//! - The blind scalar: `b = SHA-512(bk ‖ 0x00 ‖ ctx)`, `s = b[0..32]` read
//!   little-endian and reduced mod ℓ **without clamping**, `prefix2 = b[32..64]`
//!   (§5.1).
//! - `BlindPublicKey(pkS, bk, ctx)` = `Encode(s·A)`; `UnblindPublicKey(pkR, bk,
//!   ctx)` = `Encode(s⁻¹·A)` with a constant-time inversion (§5.1).
//! - `BlindKeySign(skS, bk, ctx, msg)` (§5.2): with `h = SHA-512(skS)`,
//!   `a = clamp(h[0..32])`, `prefix1 = h[32..64]`: `r = SHA-512(prefix1 ‖ prefix2
//!   ‖ msg) mod ℓ`, `R = r·B`, `A' = s·A`, `k = SHA-512(R ‖ A' ‖ msg) mod ℓ`,
//!   `S = r + k·(a·s) mod ℓ`; the signature `R ‖ S` is deterministic and is an
//!   ordinary RFC 8032 Ed25519 signature under `A'`.
//!
//! Constant time: every operation on `skS`, `bk` and the scalars derived from
//! them uses curve25519-dalek's constant-time scalar and point arithmetic.

use core::fmt;

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::scalar::{Scalar, clamp_integer};
use sha2::{Digest as _, Sha512};
use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use crate::error::{Error, Result};

/// Length of a secret key (the RFC 8032 seed) and of a blind key: 32 bytes.
pub const SECRET_KEY_LEN: usize = 32;
/// Length of an encoded public key: 32 bytes (RFC 8032 §5.1.2).
pub const PUBLIC_KEY_LEN: usize = 32;
/// Length of a signature `R ‖ S`: 64 bytes (RFC 8032 §5.1.6).
pub const SIGNATURE_LEN: usize = 64;

/// An Ed25519 secret key: the 32-byte seed of RFC 8032 §5.1.5.
///
/// Not `Copy`; zeroized on drop; `Debug` prints only the type name.
pub struct SecretKey([u8; SECRET_KEY_LEN]);

impl SecretKey {
    /// Wraps a 32-byte seed (every value is valid).
    pub fn from_bytes(seed: &[u8; SECRET_KEY_LEN]) -> Self {
        Self(*seed)
    }

    /// Draws a random seed.
    pub fn random<R: rand_core::TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        let mut sk = Self([0u8; SECRET_KEY_LEN]);
        crate::rng::fill(rng, &mut sk.0)?;
        Ok(sk)
    }

    /// The 32-byte seed.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SECRET_KEY_LEN]> {
        Zeroizing::new(self.0)
    }

    /// `(a, prefix1)`: the clamped secret scalar and the nonce prefix (RFC 8032 §5.1.5).
    fn expand(&self) -> (Scalar, Zeroizing<[u8; 32]>) {
        let h = Zeroizing::new(<[u8; 64]>::from(Sha512::digest(self.0)));
        let (lo, hi) = split64(&h);
        let a = Scalar::from_bytes_mod_order(clamp_integer(*lo));
        (a, Zeroizing::new(*hi))
    }

    /// The RFC 8032 public key `A = a·B` (§5.1.5).
    pub fn public_key(&self) -> PublicKey {
        let h = Zeroizing::new(<[u8; 64]>::from(Sha512::digest(self.0)));
        let (lo, _) = split64(&h);
        PublicKey::from_point(EdwardsPoint::mul_base_clamped(*lo))
    }

    /// Marks the secret memory as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(&self.0);
    }
}

secret_newtype!(SecretKey { 0 });

/// An Ed25519 blind key `bk`: 32 secret bytes (draft §5; any value, including
/// all zeros, is allowed).
///
/// Not `Copy`; zeroized on drop; `Debug` prints only the type name.
pub struct BlindKey([u8; SECRET_KEY_LEN]);

impl BlindKey {
    /// Wraps 32 bytes.
    pub fn from_bytes(bytes: &[u8; SECRET_KEY_LEN]) -> Self {
        Self(*bytes)
    }

    /// Draws 32 random bytes.
    pub fn random<R: rand_core::TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        let mut bk = Self([0u8; SECRET_KEY_LEN]);
        crate::rng::fill(rng, &mut bk.0)?;
        Ok(bk)
    }

    /// The 32 raw bytes.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SECRET_KEY_LEN]> {
        Zeroizing::new(self.0)
    }

    /// `(s, prefix2)` from `SHA-512(bk ‖ 0x00 ‖ ctx)` (draft §5.1); rejects `s = 0`.
    fn expand(&self, ctx: &[u8]) -> Result<(BlindScalar, Zeroizing<[u8; 32]>)> {
        let h = Zeroizing::new(<[u8; 64]>::from(
            Sha512::new().chain_update(self.0).chain_update([0x00]).chain_update(ctx).finalize(),
        ));
        let (lo, hi) = split64(&h);
        let s = BlindScalar(Scalar::from_bytes_mod_order(*lo));
        // s = 0 happens with probability 2⁻²⁵²; it would map every key to the identity.
        let mut zero = s.0.ct_eq(&Scalar::ZERO);
        crate::ct::declassify(&mut zero); // verdict only: a zero blind scalar is an error
        if bool::from(zero) {
            return Err(Error::InvalidScalar);
        }
        Ok((s, Zeroizing::new(*hi)))
    }
}

secret_newtype!(BlindKey { 0 });

/// The blinding scalar `s = SHA-512(bk ‖ 0x00 ‖ ctx)[0..32] mod ℓ` (draft §5.1).
///
/// Secret: not `Copy`, zeroized on drop, `Debug` prints only the type name.
pub struct BlindScalar(Scalar);

impl BlindScalar {
    /// The 32-byte little-endian encoding of `s`.
    pub fn to_bytes(&self) -> Zeroizing<[u8; 32]> {
        Zeroizing::new(self.0.to_bytes())
    }
}

secret_newtype!(BlindScalar { 0 });

/// The blind scalar `s` of `bk` and `ctx` (draft §5.1). Fails with
/// [`Error::InvalidScalar`] if `s = 0` (probability 2⁻²⁵²).
pub fn blind_scalar(bk: &BlindKey, ctx: &[u8]) -> Result<BlindScalar> {
    bk.expand(ctx).map(|(s, _)| s)
}

/// An Ed25519 public key: a 32-byte encoding that decompresses to a curve point
/// (RFC 8032 §5.1.3).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey {
    bytes: [u8; PUBLIC_KEY_LEN],
    point: EdwardsPoint,
}

impl PublicKey {
    /// Decodes a point; fails with [`Error::InvalidElement`] if it does not
    /// decompress (RFC 8032 §5.1.3).
    pub fn from_bytes(bytes: &[u8; PUBLIC_KEY_LEN]) -> Result<Self> {
        let point = CompressedEdwardsY(*bytes).decompress().ok_or(Error::InvalidElement)?;
        Ok(Self { bytes: *bytes, point })
    }

    /// The 32-byte encoding.
    pub const fn to_bytes(&self) -> [u8; PUBLIC_KEY_LEN] {
        self.bytes
    }

    fn from_point(mut point: EdwardsPoint) -> Self {
        crate::ct::declassify(&mut point); // public keys (blinded or not) are public outputs
        Self { bytes: point.compress().to_bytes(), point }
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "PublicKey", &self.bytes)
    }
}

/// An Ed25519 signature `R ‖ S` (RFC 8032 §5.1.6).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature([u8; SIGNATURE_LEN]);

impl Signature {
    /// Wraps 64 bytes; their validity is checked by verification.
    pub const fn from_bytes(bytes: &[u8; SIGNATURE_LEN]) -> Self {
        Self(*bytes)
    }

    /// The 64-byte encoding.
    pub const fn to_bytes(&self) -> [u8; SIGNATURE_LEN] {
        self.0
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "Signature", &self.0)
    }
}

/// `BlindPublicKey(pkS, bk, ctx)` = `Encode(s·A)` (draft §5.1).
pub fn blind_public_key(pk: &PublicKey, bk: &BlindKey, ctx: &[u8]) -> Result<PublicKey> {
    let (s, _) = bk.expand(ctx)?;
    Ok(PublicKey::from_point(pk.point * s.0))
}

/// `UnblindPublicKey(pkR, bk, ctx)` = `Encode(s⁻¹·A)` (draft §5.1), with
/// curve25519-dalek's constant-time `Scalar::invert`.
pub fn unblind_public_key(pk: &PublicKey, bk: &BlindKey, ctx: &[u8]) -> Result<PublicKey> {
    let (s, _) = bk.expand(ctx)?;
    let inv = BlindScalar(s.0.invert());
    Ok(PublicKey::from_point(pk.point * inv.0))
}

/// `BlindKeySign(skS, bk, ctx, msg)` (draft §5.2): a deterministic Ed25519
/// signature under `BlindPublicKey(pkS, bk, ctx)`.
pub fn blind_key_sign(sk: &SecretKey, bk: &BlindKey, ctx: &[u8], message: &[u8]) -> Result<Signature> {
    let (a, prefix1) = sk.expand();
    let a = BlindScalar(a);
    let (s, prefix2) = bk.expand(ctx)?;
    let blinded = BlindScalar(a.0 * s.0);
    let a_blinded = EdwardsPoint::mul_base(&blinded.0).compress();

    let r_hash = Zeroizing::new(<[u8; 64]>::from(
        Sha512::new().chain_update(*prefix1).chain_update(*prefix2).chain_update(message).finalize(),
    ));
    let r = BlindScalar(Scalar::from_bytes_mod_order_wide(&r_hash));
    let big_r = EdwardsPoint::mul_base(&r.0).compress();

    let k_hash: [u8; 64] = Sha512::new()
        .chain_update(big_r.as_bytes())
        .chain_update(a_blinded.as_bytes())
        .chain_update(message)
        .finalize()
        .into();
    let k = Scalar::from_bytes_mod_order_wide(&k_hash);
    let big_s = r.0 + k * blinded.0;

    let mut sig = [0u8; SIGNATURE_LEN];
    let (sig_r, sig_s) = sig.split_first_chunk_mut::<32>().ok_or(Error::BufferTooSmall)?;
    sig_r.copy_from_slice(big_r.as_bytes());
    sig_s.copy_from_slice(big_s.as_bytes());
    crate::ct::declassify(&mut sig); // the signature is a public output
    Ok(Signature(sig))
}

/// Verifies an Ed25519 signature (RFC 8032 §5.1.7) with ed25519-dalek's
/// `verify_strict`: it rejects a non-canonical `S`, and also small-order `A`
/// and `R`, which no honestly blinded key or signature has. Every failure is
/// [`Error::Verification`]. Variable time (public data only).
///
/// Go's `ed25519.Verify` (used by pat-go) rejects non-canonical `S` but accepts
/// small-order points; signatures made by [`blind_key_sign`] pass both.
pub fn verify(pk: &PublicKey, message: &[u8], sig: &Signature) -> Result<()> {
    let vk = ed25519_dalek::VerifyingKey::from_bytes(&pk.bytes).map_err(|_| Error::Verification)?;
    let sig = ed25519_dalek::Signature::from_bytes(&sig.0);
    vk.verify_strict(message, &sig).map_err(|_| Error::Verification)
}

/// Splits 64 bytes into two 32-byte halves without indexing.
fn split64(h: &[u8; 64]) -> (&[u8; 32], &[u8; 32]) {
    let (lo, hi) = h.split_first_chunk::<32>().unwrap_or((&[0u8; 32], &[]));
    // `hi` is exactly 32 bytes, so the conversion cannot fail; the fallback
    // exists only to avoid `unwrap`.
    (lo, <&[u8; 32]>::try_from(hi).unwrap_or(&[0u8; 32]))
}
