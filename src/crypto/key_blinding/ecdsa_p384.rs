//! ECDSA P-384 with SHA-384 key blinding (draft-irtf-cfrg-signature-key-blinding §6).
//!
//! - `HashToScalar(bk ‖ 0x00 ‖ ctx)` = `hash_to_field` with count 1 (RFC 9380
//!   §5.2): `expand_message_xmd` with SHA-384, DST `"ECDSA Key Blind"`,
//!   L = 72, reduced modulo the group order n ([`blind_scalar`]).
//! - `BlindPublicKey(pkS, bk, ctx)` = `u·pkS` ([`blind_public_key`]).
//! - `UnblindPublicKey(pkR, bk, ctx)` = `u⁻¹·pkR` ([`unblind_public_key`]).
//! - `BlindKeySign(skS, bk, ctx, digest)` = ECDSA over `digest` with the secret
//!   scalar `skS·u mod n` ([`blind_key_sign`]); the signature is `r ‖ s`, two
//!   48-byte big-endian scalars, and verifies under `pkR` ([`verify_prehash`]).
//!
//! Constant time: scalar multiplication, inversion (`Scalar::invert`, a fixed
//! addition chain) and signing (RFC 6979 with added randomness, from the
//! `ecdsa` crate) are constant time in the secrets. Verification and public key
//! decoding work on public data only. [`BlindKeyEncoding::Minimal`] is the one
//! documented exception (it leaks the blind's number of leading zero bytes).
//!
//! Security note (draft §6 "Security Considerations"): multiplicative ECDSA
//! blinding is not strongly unforgeable when the adversary chooses the blind;
//! use blinds that are random or derived from a secret.

use core::fmt;

use p384::ecdsa::signature::hazmat::{PrehashVerifier as _, RandomizedPrehashSigner as _};
use p384::elliptic_curve::ff::PrimeField as _;
use p384::elliptic_curve::group::GroupEncoding as _;
use p384::elliptic_curve::subtle::{Choice, ConstantTimeEq};
use p384::hash2curve::{ExpandMsgXmd, hash_to_scalar};
use p384::{AffinePoint, NistP384, NonZeroScalar, ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use sha2::{Digest as _, Sha384};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::error::{Error, Result, RngCode};

/// Length of a serialized scalar (secret key, blind key): Ns = 48 bytes, big-endian.
pub const SCALAR_LEN: usize = 48;
/// Length of a compressed SEC1 public key: Npk = 49 bytes.
pub const PUBLIC_KEY_LEN: usize = 49;
/// Length of a signature `r ‖ s`: Nsig = 96 bytes.
pub const SIGNATURE_LEN: usize = 96;
/// Length of the SHA-384 digest that is signed.
pub const DIGEST_LEN: usize = 48;
/// The domain separation tag of `HashToScalar` (draft §6).
pub const DST: &[u8] = b"ECDSA Key Blind";
/// The `expand_message_xmd` output length L for P-384 (RFC 9380 §5: ceil((384 + 192) / 8)).
pub const HASH_TO_SCALAR_LEN: usize = 72;

type L72 = p384::elliptic_curve::array::typenum::U72;

/// An ECDSA P-384 secret key: a scalar in `[1, n − 1]` (draft §6: `skS`).
///
/// Not `Copy`; zeroized on drop; `Debug` prints only the type name.
pub struct SecretKey(Scalar);

impl SecretKey {
    /// Reads a 48-byte big-endian scalar and rejects 0 and values ≥ n with
    /// [`Error::InvalidScalar`] (SEC 1 §2.3.6).
    ///
    /// pat-go's `ecdsa.CreateKey` accepts any 48 bytes without a range check or
    /// reduction; keys outside `[1, n − 1]` never occur in honest use, so this
    /// rejection does not affect interoperability.
    pub fn from_bytes(bytes: &[u8; SCALAR_LEN]) -> Result<Self> {
        let scalar = Scalar::from_repr((*bytes).into());
        let mut ok = scalar.is_some() & !scalar.map(|s| s.is_zero()).unwrap_or(Choice::from(1));
        crate::ct::declassify(&mut ok); // validity verdict: a parse error, or a rejection in `random`
        if bool::from(ok) { Ok(Self(scalar.unwrap_or(Scalar::ONE))) } else { Err(Error::InvalidScalar) }
    }

    /// Draws a uniformly random secret key.
    pub fn random<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        let mut bytes = Zeroizing::new([0u8; SCALAR_LEN]);
        // Rejection sampling: a uniformly random 384-bit string lies in
        // [1, n − 1] with probability 1 − 2^−189, so the loop ends at once.
        for _ in 0..64 {
            crate::rng::fill(rng, bytes.as_mut())?;
            if let Ok(sk) = Self::from_bytes(&bytes) {
                return Ok(sk);
            }
        }
        Err(Error::Rng(RngCode::EXHAUSTED))
    }

    /// The 48-byte big-endian encoding of the scalar.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SCALAR_LEN]> {
        Zeroizing::new(self.0.to_repr().into())
    }

    /// The public key `skS·G`.
    pub fn public_key(&self) -> PublicKey {
        let mut pk = (ProjectivePoint::GENERATOR * self.0).to_affine();
        crate::ct::declassify(&mut pk); // a public key is published
        PublicKey(pk)
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

/// How a blind key is serialized into `HashToScalar`'s input
/// `serialize(bk) ‖ 0x00 ‖ ctx`.
///
/// The two encodings differ only when the blind's first byte is zero (about
/// one blind in 256), and every published vector has a non-zero first byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum BlindKeyEncoding {
    /// The minimal big-endian bytes of the blind (leading zero bytes removed; an
    /// all-zero blind is the empty string), as pat-go's `hashBlind` does with
    /// `big.Int.Bytes()`. The default, because it interoperates with pat-go.
    ///
    /// Not constant time: the hash input length reveals the number of leading
    /// zero bytes of the blind through timing. For type 0x0003 that is the
    /// client's `request_blind` and also the issuer's long-term origin key,
    /// which [`alias::blinded_request_key`](crate::crypto::rate_limited::alias::blinded_request_key)
    /// uses as a blind for every request: an attacker who times many
    /// issuances learns whether the origin key starts with zero bytes (one key
    /// in 256 does), a few bits of a long-lived secret. Use it only where
    /// pat-go interoperability requires it.
    #[default]
    Minimal,
    /// The fixed 48-byte big-endian encoding that the draft's
    /// `SerializeScalar` implies. Constant time; the recommended choice
    /// wherever the peers are not pat-go
    /// ([`Config::DRAFT`](crate::tokens::rate_limited::Config::DRAFT)).
    Fixed,
}

/// A blind key `bk` (draft §6): 48 secret bytes and the encoding that
/// serializes them into `HashToScalar`.
///
/// Any 48 bytes are accepted (pat-go does the same): the blind is only ever
/// hashed. Not `Copy`; zeroized on drop; `Debug` prints only the type name.
pub struct BlindKey {
    bytes: [u8; SCALAR_LEN],
    encoding: BlindKeyEncoding,
}

impl BlindKey {
    /// A blind key with pat-go's [`BlindKeyEncoding::Minimal`] encoding.
    pub fn from_bytes(bytes: &[u8; SCALAR_LEN]) -> Self {
        Self::with_encoding(bytes, BlindKeyEncoding::default())
    }

    /// A blind key with an explicit encoding.
    pub fn with_encoding(bytes: &[u8; SCALAR_LEN], encoding: BlindKeyEncoding) -> Self {
        Self { bytes: *bytes, encoding }
    }

    /// Uses a secret key's 48-byte scalar as a blind (the issuer's origin index
    /// key `sk_origin` blinds request keys this way, rate-limit draft
    /// "Issuer's Origin Alias Computation"), with the given encoding.
    pub fn from_secret_key(sk: &SecretKey, encoding: BlindKeyEncoding) -> Self {
        let bytes = sk.to_bytes();
        Self::with_encoding(&bytes, encoding)
    }

    /// Draws 48 uniformly random bytes.
    pub fn random<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R, encoding: BlindKeyEncoding) -> Result<Self> {
        let mut bytes = [0u8; SCALAR_LEN];
        crate::rng::fill(rng, &mut bytes)?;
        let bk = Self::with_encoding(&bytes, encoding);
        bytes.zeroize();
        Ok(bk)
    }

    /// The encoding this blind uses.
    pub const fn encoding(&self) -> BlindKeyEncoding {
        self.encoding
    }

    /// Marks the blind's bytes as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(&self.bytes);
    }

    /// The 48 raw bytes of the blind.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SCALAR_LEN]> {
        Zeroizing::new(self.bytes)
    }

    /// Zeroes the bytes in place (a spent client state); the encoding stays.
    pub(crate) fn wipe(&mut self) {
        self.bytes.zeroize();
    }

    /// `serialize(bk)` under this blind's encoding.
    fn serialized(&self) -> &[u8] {
        match self.encoding {
            BlindKeyEncoding::Fixed => &self.bytes,
            BlindKeyEncoding::Minimal => {
                // Count the leading zero bytes without branching on them; only
                // the resulting length (documented above) is revealed.
                let mut zeros = 0usize;
                let mut in_prefix = Choice::from(1);
                for b in &self.bytes {
                    in_prefix &= b.ct_eq(&0);
                    zeros += usize::from(in_prefix.unwrap_u8());
                }
                self.bytes.get(zeros..).unwrap_or_default()
            }
        }
    }
}

impl Drop for BlindKey {
    fn drop(&mut self) {
        self.bytes.zeroize();
    }
}

impl ZeroizeOnDrop for BlindKey {}

impl ConstantTimeEq for BlindKey {
    /// Constant time in the bytes; the encoding is public.
    fn ct_eq(&self, other: &Self) -> Choice {
        self.bytes.ct_eq(&other.bytes) & Choice::from(u8::from(self.encoding == other.encoding))
    }
}

impl fmt::Debug for BlindKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("BlindKey")
    }
}

/// The blinding scalar `u = HashToScalar(serialize(bk) ‖ 0x00 ‖ ctx)` (draft §6).
///
/// Secret: not `Copy`, zeroized on drop, `Debug` prints only the type name.
pub struct BlindScalar(Scalar);

impl BlindScalar {
    /// The 48-byte big-endian encoding of `u`.
    pub fn to_bytes(&self) -> Zeroizing<[u8; SCALAR_LEN]> {
        Zeroizing::new(self.0.to_repr().into())
    }
}

secret_newtype!(BlindScalar { 0 });

/// `HashToScalar(serialize(bk) ‖ 0x00 ‖ ctx)` (draft §6; RFC 9380 §5.2
/// `hash_to_field` with `expand_message_xmd`-SHA-384, DST [`DST`], L = 72, mod n).
///
/// Fails with [`Error::InvalidScalar`] if the result is zero (probability 2⁻³⁸⁴),
/// which would make the blinded key the identity.
pub fn blind_scalar(bk: &BlindKey, ctx: &[u8]) -> Result<BlindScalar> {
    let u = hash_to_scalar::<NistP384, ExpandMsgXmd<Sha384>, L72>(&[bk.serialized(), &[0x00], ctx], &[DST])
        .map_err(|_| Error::InvalidScalar)?;
    let u = BlindScalar(u);
    let mut zero = u.0.is_zero();
    crate::ct::declassify(&mut zero); // verdict only (probability 2^-384): a zero blind is an error
    if bool::from(zero) { Err(Error::InvalidScalar) } else { Ok(u) }
}

/// An ECDSA P-384 public key: a point other than the identity, serialized as a
/// 49-byte compressed SEC1 point (SEC 1 §2.3.3).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct PublicKey(AffinePoint);

impl PublicKey {
    /// Decodes a compressed SEC1 point; fails with [`Error::InvalidElement`] if the
    /// bytes are not on the curve or encode the identity.
    pub fn from_bytes(bytes: &[u8; PUBLIC_KEY_LEN]) -> Result<Self> {
        let point = AffinePoint::from_bytes(&(*bytes).into());
        let ok = point.is_some() & !point.map(|p| p.is_identity()).unwrap_or(Choice::from(1));
        if bool::from(ok) { Ok(Self(point.unwrap_or(AffinePoint::GENERATOR))) } else { Err(Error::InvalidElement) }
    }

    /// The 49-byte compressed SEC1 encoding.
    pub fn to_bytes(&self) -> [u8; PUBLIC_KEY_LEN] {
        self.0.to_bytes().into()
    }

    fn from_projective(p: ProjectivePoint) -> Result<Self> {
        let mut affine = p.to_affine();
        crate::ct::declassify(&mut affine); // blinded and unblinded public keys are public outputs
        if bool::from(affine.is_identity()) { Err(Error::InvalidElement) } else { Ok(Self(affine)) }
    }
}

impl fmt::Debug for PublicKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "PublicKey", &self.to_bytes())
    }
}

/// `BlindPublicKey(pkS, bk, ctx)` = `HashToScalar(serialize(bk) ‖ 0x00 ‖ ctx)·pkS`
/// (draft §6).
pub fn blind_public_key(pk: &PublicKey, bk: &BlindKey, ctx: &[u8]) -> Result<PublicKey> {
    let u = blind_scalar(bk, ctx)?;
    PublicKey::from_projective(ProjectivePoint::from(pk.0) * u.0)
}

/// `UnblindPublicKey(pkR, bk, ctx)` = `u⁻¹·pkR` with the same `u` as
/// [`blind_public_key`] (draft §6). The inversion is constant time.
pub fn unblind_public_key(pk: &PublicKey, bk: &BlindKey, ctx: &[u8]) -> Result<PublicKey> {
    let u = blind_scalar(bk, ctx)?;
    // `u` is non-zero, so the inverse exists; a zero fallback would only make
    // the result the identity, which `from_projective` rejects.
    let inv = BlindScalar(u.0.invert().unwrap_or(Scalar::ZERO));
    PublicKey::from_projective(ProjectivePoint::from(pk.0) * inv.0)
}

/// The blinded secret key `skR = skS·u mod n` (draft §6, `BlindKeySign` step 2),
/// whose public key is `BlindPublicKey(pkS, bk, ctx)`.
pub fn blind_secret_key(sk: &SecretKey, bk: &BlindKey, ctx: &[u8]) -> Result<SecretKey> {
    let u = blind_scalar(bk, ctx)?;
    let sk_r = SecretKey(sk.0 * u.0);
    // A product of two non-zero scalars modulo the prime n is non-zero.
    let mut zero = sk_r.0.is_zero();
    crate::ct::declassify(&mut zero); // verdict only, never true
    if bool::from(zero) { Err(Error::InvalidScalar) } else { Ok(sk_r) }
}

/// An ECDSA P-384 signature `r ‖ s`, two 48-byte big-endian scalars (draft §6;
/// pat-go's encoding of `(r, s)`).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct Signature([u8; SIGNATURE_LEN]);

impl Signature {
    /// Wraps 96 bytes; their validity is checked by verification.
    pub const fn from_bytes(bytes: &[u8; SIGNATURE_LEN]) -> Self {
        Self(*bytes)
    }

    /// The 96-byte encoding `r ‖ s`.
    pub const fn to_bytes(&self) -> [u8; SIGNATURE_LEN] {
        self.0
    }
}

impl fmt::Debug for Signature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        crate::hex::debug_bytes(f, "Signature", &self.0)
    }
}

/// `BlindKeySign(skS, bk, ctx, digest)` (draft §6): ECDSA P-384 over the SHA-384
/// `digest` with the blinded secret `skS·u`.
///
/// The nonce is RFC 6979's deterministic nonce with 48 fresh random bytes as
/// additional data (RFC 6979 §3.6, "hedged"), computed by the `ecdsa` crate.
/// Fails with [`Error::Rng`] if the random number generator fails.
pub fn blind_key_sign<R: TryCryptoRng<Error: 'static> + ?Sized>(
    sk: &SecretKey,
    bk: &BlindKey,
    ctx: &[u8],
    digest: &[u8; DIGEST_LEN],
    rng: &mut R,
) -> Result<Signature> {
    let sk_r = blind_secret_key(sk, bk, ctx)?;
    // `blind_secret_key` rejected zero, so this never falls back to one (a
    // constant-time select instead of a branch on the secret's zero test).
    let one = Option::<NonZeroScalar>::from(NonZeroScalar::new(Scalar::ONE)).ok_or(Error::InvalidScalar)?;
    let nz = NonZeroScalar::new(sk_r.0).unwrap_or(one);
    let signing_key = p384::ecdsa::SigningKey::from(nz);
    // The `ecdsa` crate's error drops the generator's; `KeepCode` keeps its code.
    let mut rng = crate::rng::KeepCode::new(rng);
    let sig: p384::ecdsa::Signature = signing_key.sign_prehash_with_rng(&mut rng, digest).map_err(|_| rng.error())?;
    let mut sig = Signature(sig.to_bytes().into());
    crate::ct::declassify(&mut sig); // the signature is sent with the request
    Ok(sig)
}

/// [`blind_key_sign`] over `SHA-384(message)`.
pub fn blind_key_sign_message<R: TryCryptoRng<Error: 'static> + ?Sized>(
    sk: &SecretKey,
    bk: &BlindKey,
    ctx: &[u8],
    message: &[u8],
    rng: &mut R,
) -> Result<Signature> {
    blind_key_sign(sk, bk, ctx, &Sha384::digest(message).into(), rng)
}

/// Verifies an ECDSA P-384 signature over a SHA-384 `digest` (SEC 1 §4.1.4):
/// `r` and `s` must lie in `[1, n − 1]`. Every failure is [`Error::Verification`].
///
/// Blinded signatures are ordinary ECDSA signatures under the blinded key.
/// Variable time (public data only).
pub fn verify_prehash(pk: &PublicKey, digest: &[u8; DIGEST_LEN], sig: &Signature) -> Result<()> {
    let sig = p384::ecdsa::Signature::from_slice(&sig.0).map_err(|_| Error::Verification)?;
    let vk = p384::ecdsa::VerifyingKey::from_affine(pk.0).map_err(|_| Error::Verification)?;
    vk.verify_prehash(digest, &sig).map_err(|_| Error::Verification)
}

/// [`verify_prehash`] over `SHA-384(message)`.
pub fn verify(pk: &PublicKey, message: &[u8], sig: &Signature) -> Result<()> {
    verify_prehash(pk, &Sha384::digest(message).into(), sig)
}
