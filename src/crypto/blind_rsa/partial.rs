//! Partially blind RSA signatures (draft-irtf-cfrg-partially-blind-rsa-01,
//! RSAPBSSA), the primitive of Privacy Pass token type 0xDA7A.
//!
//! The signer's key pair (n, e, d) is turned, for every public metadata
//! string `info`, into a derived pair (n, e′, d′): e′ comes from HKDF over n
//! and `info` (`DerivePublicKey`), d′ = e′⁻¹ mod φ(n) from the primes
//! (`DeriveKeyPair`). The client blinds under (n, e′) a PSS encoding of
//! `msg_prime = "msg" ‖ len(info) (4 bytes) ‖ info ‖ input_msg`, the signer
//! signs with d′ without seeing the message, and a signature verifies only
//! with the same `info`.
//!
//! ```text
//! client                                   signer
//! pk′ = RsaDerivedPublicKey::new(pk, info)  sk′ = RsaDerivedSecretKey::new(sk, info)
//! (blinded, state) = pk′.blind(variant, input, rng)
//!                  ── blinded ──▶
//!                                          blind_sig = sk′.blind_sign(blinded)
//!                  ◀── blind_sig ─
//! sig = pk′.finalize(variant, input, &state, blind_sig)      pk′.verify(variant, input, sig)
//! ```
//!
//! The four variants of [`Variant`] carry over with their RSAPBSSA names
//! (RSAPBSSA-SHA384-PSS-Deterministic and so on). Token type 0xDA7A uses
//! RSAPBSSA-SHA384-PSS-Deterministic.
//!
//! # Keys
//!
//! The draft requires the signer's primes to be safe primes (p = 2p′ + 1
//! with p′ prime, §4.1): then every derived e′ (odd, below 2^(λ−2) where λ
//! is the bit length of p, hence below p′ and q′) is invertible modulo
//! p − 1 and q − 1. `RsaSecretKey::generate_safe` (feature `keygen`) makes
//! such a key. With ordinary primes some derivations fail with
//! [`Error::DeriveKeyPair`], and which metadata fail tells the small
//! factors of p − 1 and q − 1 to whoever chooses the metadata.
//!
//! Parsing a key does not check for safe primes: the RSA key types serve
//! type 0x0002 too, whose keys have ordinary primes.
//! [`RsaSecretKey::check_safe_primes_vartime`] checks (with a Baillie–PSW
//! test of (p − 1)/2 and (q − 1)/2, see `primality`), and the type 0xDA7A
//! issuer runs it on every key it is given
//! ([`crate::tokens::metadata::Issuer::try_new`]). The derivations here
//! ([`RsaDerivedSecretKey`], [`RsaOwnedDerivedSecretKey`]) take any key, so
//! that known-answer tests can use theirs.
//!
//! A derived signing key comes in two forms: [`RsaDerivedSecretKey`]
//! borrows the signer's key and signs on its own; [`RsaOwnedDerivedSecretKey`]
//! holds only the derived exponents (fixed size, no borrow), so that an
//! issuer can keep derivations in its own struct, and takes the signer's
//! key again to sign.
//!
//! # Constant time
//!
//! - e′ is public (it depends only on n and `info`), so the powers with it
//!   may scan its bits; they still use the fixed-window `monty::pow_exp`,
//!   which is constant time in the base (the client's blind r is secret).
//! - `DeriveKeyPair` inverts e′ modulo the secret p − 1 and q − 1 with the
//!   roles swapped, so that only the public e′ is a modulus or divisor: the
//!   secret p − 1 is inverted modulo e′ (crypto-bigint's constant-time
//!   safegcd), and the inverse d with e′·d = 1 + k·(p − 1) is an exact
//!   division by e′. Only whether both inverses exist is branched on.
//!   (crypto-bigint's `invert_mod` with the even modulus p − 1 asserts on
//!   its number of trailing zero bits; see `invert_mod_minus_one`.)
//! - Signing is [`RsaSecretKey`]'s CRT private operation with the derived
//!   exponents, then the fault check s^e′ = m, computed modulo p and modulo
//!   q (two half-size powers, constant time in the primes; together they are
//!   the check modulo n at half its cost).
//! - The client's inversion of r is the blinded variable-time one of type
//!   0x0002 (see `blind_core`).
//! - The safe-prime check [`RsaSecretKey::check_safe_primes_vartime`] is
//!   variable time in the primes: it runs once when a key is loaded, never
//!   per request.
//!
//! No function here allocates, panics or uses `unsafe`.

use core::marker::PhantomData;

use crypto_bigint::{Odd, Uint};
use hkdf::HkdfExtract;
use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256, Sha384};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::uint::{self, Sizes};
use super::{
    PreparedMessage, RsaBlindingState, RsaPublicKey, RsaSecretKey, SALT_LEN, Variant, blind_encoded, encode_parts, key,
    monty, primality, pss,
};
use crate::error::{Error, Field, Result};

/// The HKDF `info` of `DerivePublicKey`.
const HKDF_INFO: &[u8] = b"PBRSA";
/// The prefix of the HKDF input keying material: `"key" ‖ info ‖ 0x00`.
const IKM_PREFIX: &[u8] = b"key";
/// The prefix of `msg_prime`.
const MSG_PREFIX: &[u8] = b"msg";
/// HKDF expands 16 bytes more than e′ needs (the draft's `hkdf_len = lambda_len + 16`).
const HKDF_EXTRA: usize = 16;
/// The largest `lambda_len + 16` of the supported key sizes (RSA-4096: 256 + 16).
const MAX_EXPANDED: usize = 256 + HKDF_EXTRA;
/// The window table of the powers with e′: 2^4 entries. A 2048-bit residue
/// is 256 bytes, so the table takes 4 KiB of stack (8 KiB would be the 5-bit
/// window of the private operation) for about 3 % more products.
const PUBLIC_WINDOW_TABLE: usize = 16;

/// `DerivePublicKey` (draft-irtf-cfrg-partially-blind-rsa-01 §4.6): the
/// derived public exponent e′ for n and `info`, as `H` limbs (half the
/// modulus length, `lambda_len` bytes).
///
/// `expanded = HKDF-SHA384(IKM = "key" ‖ info ‖ 0x00, salt = I2OSP(n, B),
/// info = "PBRSA", L = B/2 + 16)`; the two top bits of its first byte are
/// cleared and the low bit of byte B/2 − 1 set; e′ is its first B/2 bytes.
fn derive_exponent<const L: usize, const H: usize, const B: usize>(
    pk: &RsaPublicKey<L, B>,
    info: &[u8],
) -> Result<Uint<H>> {
    let () = Sizes::<L, H, B>::HALVES;
    const { assert!(B / 2 + HKDF_EXTRA <= MAX_EXPANDED, "the HKDF output buffer must hold B/2 + 16 bytes") };
    let mut salt = [0u8; B];
    uint::to_be(pk.params().modulus().as_ref(), &mut salt);
    let mut extract = HkdfExtract::<Sha384>::new(Some(&salt));
    extract.input_ikm(IKM_PREFIX);
    extract.input_ikm(info);
    extract.input_ikm(&[0]);
    let (_, hkdf) = extract.finalize();
    let lambda_len = B / 2;
    let mut expanded = [0u8; MAX_EXPANDED];
    // Cannot fail (the buffer holds B/2 + 16 bytes, and HKDF-SHA384 expands
    // up to 12,240), but a failure must never leave e′ = 0: r^0 = 1 would
    // send the encoded message unblinded.
    let out = expanded.get_mut(..lambda_len + HKDF_EXTRA).ok_or(Error::InvalidKey)?;
    hkdf.expand(HKDF_INFO, out).map_err(|_| Error::InvalidKey)?;
    if let Some(first) = out.first_mut() {
        *first &= 0x3f;
    }
    if let Some(last) = out.get_mut(lambda_len.wrapping_sub(1)) {
        *last |= 0x01;
    }
    // Odd by construction, so never zero.
    out.get(..lambda_len).and_then(uint::from_be::<H>).filter(|e| bool::from(e.is_odd())).ok_or(Error::InvalidKey)
}

/// The 4-byte big-endian `len(info)` of `msg_prime`, or
/// [`Error::InvalidLength`]`(`[`Field::Extensions`]`)` beyond 2^32 − 1 bytes.
fn info_len(info: &[u8]) -> Result<[u8; 4]> {
    u32::try_from(info.len()).map(u32::to_be_bytes).map_err(|_| Error::InvalidLength(Field::Extensions))
}

/// x^e′ mod n for plain x < n, plain in and out.
fn pow_public<const L: usize, const H: usize, const B: usize>(
    pk: &RsaPublicKey<L, B>,
    e: &Uint<H>,
    x: &Uint<L>,
) -> Uint<L> {
    let params = pk.params();
    let x_mont = monty::mul(x, params.r2(), params);
    let y_mont = monty::pow_exp::<L, H, PUBLIC_WINDOW_TABLE>(&x_mont, e, params);
    // y·R · 1 · R⁻¹ = y.
    monty::mul(&y_mont, &Uint::ONE, params)
}

/// The public key (n, e′) derived for one metadata string `info`
/// (`DerivePublicKey`), together with `info` itself, which every message
/// it signs or verifies is bound to.
///
/// Use the alias [`DerivedPublicKey`] for RSA-2048.
#[derive(Clone)]
pub struct RsaDerivedPublicKey<'k, 'i, const L: usize, const H: usize, const B: usize> {
    key: &'k RsaPublicKey<L, B>,
    info: &'i [u8],
    info_len: [u8; 4],
    e: Uint<H>,
}

/// An RSA-2048 derived public key (token type 0xDA7A).
pub type DerivedPublicKey<'k, 'i> =
    RsaDerivedPublicKey<'k, 'i, { crypto_bigint::U2048::LIMBS }, { crypto_bigint::U1024::LIMBS }, 256>;

impl<const L: usize, const H: usize, const B: usize> core::fmt::Debug for RsaDerivedPublicKey<'_, '_, L, H, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaDerivedPublicKey").field("key", self.key).field("info_len", &self.info.len()).finish()
    }
}

impl<'k, 'i, const L: usize, const H: usize, const B: usize> RsaDerivedPublicKey<'k, 'i, L, H, B> {
    /// `DerivePublicKey(pk, info)`. [`Error::InvalidLength`] if `info` is
    /// longer than 2^32 − 1 bytes (the 4-byte length of `msg_prime`).
    pub fn new(key: &'k RsaPublicKey<L, B>, info: &'i [u8]) -> Result<Self> {
        let info_len = info_len(info)?;
        Ok(Self { key, info, info_len, e: derive_exponent::<L, H, B>(key, info)? })
    }

    /// The signer's public key (n, e) this key was derived from.
    pub const fn base(&self) -> &'k RsaPublicKey<L, B> {
        self.key
    }

    /// The metadata `info`.
    pub const fn info(&self) -> &'i [u8] {
        self.info
    }

    /// The derived exponent e′, big-endian, `B/2` bytes, into `out` (which
    /// must hold `B/2` bytes; [`Error::BufferTooSmall`] otherwise).
    pub fn exponent_to_be(&self, out: &mut [u8]) -> Result<()> {
        let out = out.get_mut(..B / 2).ok_or(Error::BufferTooSmall)?;
        uint::to_be(&self.e, out);
        Ok(())
    }

    /// `msg_prime`'s parts for `input`: `"msg" ‖ len(info) ‖ info ‖ input_msg`.
    fn parts<'a>(&'a self, input: &'a PreparedMessage<'_>) -> [&'a [u8]; 5] {
        let [prefix, msg] = input.parts();
        [MSG_PREFIX, &self.info_len, self.info, prefix, msg]
    }

    /// `Blind` (draft §4.2): EMSA-PSS-encodes `msg_prime` with a fresh salt,
    /// draws the blind r and returns `blinded_msg = m·r^e′ mod n` with the
    /// secret state r⁻¹. Constant time in the message, the salt and r.
    /// Errors as [`Variant::blind`].
    pub fn blind<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        variant: Variant,
        input: &PreparedMessage<'_>,
        rng: &mut R,
    ) -> Result<([u8; B], RsaBlindingState<L>)> {
        variant.check_input(input)?;
        let mut salt = Zeroizing::new([0u8; SALT_LEN]);
        let salt = salt.get_mut(..variant.salt_len()).ok_or(Error::InvalidKey)?;
        crate::rng::fill(rng, salt)?;
        let m = Zeroizing::new(encode_parts::<L, B>(&self.parts(input), salt)?);
        blind_encoded(self.key, &m, rng, |r_mont| self.pow_mont(r_mont))
    }

    /// [`Self::blind`] with an explicit salt and blind r (big-endian, in
    /// [1, n)), through the constant-time inversion: the known answers of the
    /// draft (`hazmat`).
    pub(crate) fn blind_with(
        &self,
        variant: Variant,
        input: &PreparedMessage<'_>,
        salt: &[u8],
        r: &[u8],
    ) -> Result<([u8; B], RsaBlindingState<L>)> {
        variant.check_input(input)?;
        if salt.len() != variant.salt_len() {
            return Err(Error::InvalidLength(Field::Message));
        }
        let r = Zeroizing::new(self.key.integer(r).ok_or(Error::InvalidValue(Field::Message))?);
        let m = Zeroizing::new(encode_parts::<L, B>(&self.parts(input), salt)?);
        let params = self.key.params();
        let r_mont = Zeroizing::new(monty::mul(&r, params.r2(), params));
        super::blind_core(self.key, &m, &r_mont, None, &|x: &Uint<L>| self.pow_mont(x))
            .ok_or(Error::InvalidValue(Field::Message))
    }

    /// x^e′·R for x·R: the fixed-window power over the B/2 bytes of e′.
    fn pow_mont(&self, x_mont: &Uint<L>) -> Uint<L> {
        monty::pow_exp::<L, H, PUBLIC_WINDOW_TABLE>(x_mont, &self.e, self.key.params())
    }

    /// `Finalize` (draft §4.4): `sig = blind_sig·r⁻¹ mod n`, returned only
    /// if it verifies for `input` under this derived key. The state is
    /// borrowed and stays usable if `blind_sig` fails. Errors as
    /// [`Variant::finalize`].
    pub fn finalize(
        &self,
        variant: Variant,
        input: &PreparedMessage<'_>,
        state: &RsaBlindingState<L>,
        blind_sig: &[u8],
    ) -> Result<[u8; B]> {
        variant.check_input(input)?;
        if blind_sig.len() != B {
            return Err(Error::InvalidLength(Field::Message));
        }
        let z = self.key.integer(blind_sig).ok_or(Error::Verification)?;
        let mut s = monty::mul(&z, &state.r_inv, self.key.params());
        crate::ct::declassify(&mut s); // the signature is the token's authenticator, shown at redemption
        let mut sig = [0u8; B];
        uint::to_be(&s, &mut sig);
        self.verify(variant, input, &sig)?;
        Ok(sig)
    }

    /// `Verify` (draft §4.5): RSASSA-PSS-VERIFY of `sig` over `msg_prime`
    /// under (n, e′), with SHA-384, MGF1-SHA-384 and the variant's salt
    /// length. Every failure is [`Error::Verification`]. Constant time in
    /// the signature and the message.
    pub fn verify(&self, variant: Variant, input: &PreparedMessage<'_>, sig: &[u8]) -> Result<()> {
        variant.check_input(input)?;
        if sig.len() != B {
            return Err(Error::Verification);
        }
        let s = self.key.integer(sig).ok_or(Error::Verification)?;
        let m = pow_public(self.key, &self.e, &s);
        let mut em = [0u8; B];
        uint::to_be(&m, &mut em);
        let mut ok = pss::verify(&self.parts(input), &mut em, 8 * B - 1, variant.salt_len());
        crate::ct::declassify(&mut ok); // the verification verdict
        if bool::from(ok) { Ok(()) } else { Err(Error::Verification) }
    }
}

/// The signing key (n, e′, d′) derived for one metadata string
/// (`DeriveKeyPair`), borrowing the signer's key: the derived exponents of
/// [`RsaOwnedDerivedSecretKey`] (e′ and the CRT exponents d′ mod (p − 1),
/// d′ mod (q − 1), and the SHA-256 of `info` to tell which metadata it is
/// for, [`Self::is_for`]) with the key they were derived from.
///
/// Deriving costs two constant-time inversions (a fraction of one
/// signature); an issuer that signs for few distinct metadata strings can
/// keep the derived keys ([`Self::into_owned`] drops the borrow). Not
/// `Copy`, zeroized on drop, `Debug` shows only the public key.
pub struct RsaDerivedSecretKey<'k, const L: usize, const H: usize, const B: usize> {
    key: &'k RsaSecretKey<L, H, B>,
    owned: RsaOwnedDerivedSecretKey<L, H, B>,
}

/// An RSA-2048 derived secret key (token type 0xDA7A).
pub type DerivedSecretKey<'k> =
    RsaDerivedSecretKey<'k, { crypto_bigint::U2048::LIMBS }, { crypto_bigint::U1024::LIMBS }, 256>;

impl<const L: usize, const H: usize, const B: usize> core::fmt::Debug for RsaDerivedSecretKey<'_, L, H, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaDerivedSecretKey").field("key", self.key.public_key()).finish_non_exhaustive()
    }
}

/// The derived exponents wipe themselves on drop.
impl<const L: usize, const H: usize, const B: usize> ZeroizeOnDrop for RsaDerivedSecretKey<'_, L, H, B> {}

impl<'k, const L: usize, const H: usize, const B: usize> RsaDerivedSecretKey<'k, L, H, B> {
    /// `DeriveKeyPair(sk, info)` (draft §4.7): e′ = `DerivePublicKey(pk,
    /// info)`, then d′ mod (p − 1) = e′⁻¹ mod (p − 1) and the same for q, in
    /// constant time. [`Error::DeriveKeyPair`] if e′ is not invertible
    /// modulo p − 1 or q − 1 (impossible with safe primes). The key is not
    /// checked for safe primes (see the module docs).
    pub fn new(key: &'k RsaSecretKey<L, H, B>, info: &[u8]) -> Result<Self> {
        Ok(Self { key, owned: RsaOwnedDerivedSecretKey::new(key, info)? })
    }

    /// Whether this key was derived for `info` (compares SHA-256 digests).
    pub fn is_for(&self, info: &[u8]) -> bool {
        self.owned.is_for(info)
    }

    /// The signer's key this key was derived from.
    pub const fn base(&self) -> &'k RsaSecretKey<L, H, B> {
        self.key
    }

    /// The derived exponents without the borrow of the signer's key, to
    /// keep (sign with [`RsaOwnedDerivedSecretKey::blind_sign`]).
    pub fn into_owned(self) -> RsaOwnedDerivedSecretKey<L, H, B> {
        self.owned
    }

    /// `BlindSign` (draft §4.3): `s = m^d′ mod n` with CRT for
    /// `m = OS2IP(blinded_msg)`, then the fault check s^e′ = m (modulo p and
    /// q) before anything is returned. Constant time in the key and the message.
    /// Errors as [`super::blind_sign`].
    pub fn blind_sign(&self, blinded_msg: &[u8]) -> Result<[u8; B]> {
        // Its check of the modulus passes: the exponents came from `key`.
        self.owned.blind_sign(self.key, blinded_msg)
    }
}

/// The exponents of one `DeriveKeyPair` (e′, d′ mod (p − 1) and
/// d′ mod (q − 1)) without a borrow of the signer's key, which signing
/// takes again: the form an issuer can keep in its own struct, for example
/// a small cache of the metadata it signs most.
///
/// It remembers the SHA-256 of the signer's modulus and of `info`, so that
/// it signs only with the key it came from ([`Error::KeyIdMismatch`]) and a
/// cache can tell which metadata it is for ([`Self::is_for`]). Fixed size
/// (three half-size integers and two 32-byte digests), no allocation. Not
/// `Copy` or `Clone`, zeroized on drop, and `Debug` shows only the type
/// name.
///
/// Use the alias [`OwnedDerivedSecretKey`] for RSA-2048.
pub struct RsaOwnedDerivedSecretKey<const L: usize, const H: usize, const B: usize> {
    /// e′, public (it depends only on n and `info`).
    e: Uint<H>,
    d_p: Uint<H>,
    d_q: Uint<H>,
    /// SHA-256 of the `info` it was derived for (public), so that a cached
    /// key is not used for other metadata ([`Self::is_for`]).
    info_digest: [u8; 32],
    /// SHA-256 of the signer's modulus n (public), so that it signs only
    /// with that key ([`Self::is_from`]).
    modulus_digest: [u8; 32],
    /// The key size it belongs to (`L`, `B` are the modulus's limbs and bytes).
    sizes: PhantomData<([(); L], [(); B])>,
}

/// An RSA-2048 owned derived secret key (token type 0xDA7A).
pub type OwnedDerivedSecretKey =
    RsaOwnedDerivedSecretKey<{ crypto_bigint::U2048::LIMBS }, { crypto_bigint::U1024::LIMBS }, 256>;

impl<const L: usize, const H: usize, const B: usize> core::fmt::Debug for RsaOwnedDerivedSecretKey<L, H, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("RsaOwnedDerivedSecretKey").finish_non_exhaustive()
    }
}

impl<const L: usize, const H: usize, const B: usize> Drop for RsaOwnedDerivedSecretKey<L, H, B> {
    fn drop(&mut self) {
        self.d_p.zeroize();
        self.d_q.zeroize();
    }
}

impl<const L: usize, const H: usize, const B: usize> ZeroizeOnDrop for RsaOwnedDerivedSecretKey<L, H, B> {}

impl<const L: usize, const H: usize, const B: usize> RsaOwnedDerivedSecretKey<L, H, B> {
    /// `DeriveKeyPair(sk, info)` (draft §4.7), as [`RsaDerivedSecretKey::new`]
    /// (same errors, same constant-time inversions), keeping no borrow of `key`.
    pub fn new(key: &RsaSecretKey<L, H, B>, info: &[u8]) -> Result<Self> {
        info_len(info)?;
        let e = derive_exponent::<L, H, B>(key.public_key(), info)?;
        // The inverses are written straight into the key, which wipes them on
        // drop, on the error path too.
        let mut derived = Self {
            e,
            d_p: Uint::ZERO,
            d_q: Uint::ZERO,
            info_digest: Sha256::digest(info).into(),
            modulus_digest: Sha256::digest(key.public_key().modulus()).into(),
            sizes: PhantomData,
        };
        let ok_p = invert_mod_minus_one::<H, L>(&e, key.p.modulus().as_ref(), &mut derived.d_p);
        let ok_q = invert_mod_minus_one::<H, L>(&e, key.q.modulus().as_ref(), &mut derived.d_q);
        let mut ok = key::choice(ok_p) & key::choice(ok_q);
        crate::ct::declassify(&mut ok); // verdict only: with safe primes both inverses exist
        if !bool::from(ok) {
            return Err(Error::DeriveKeyPair);
        }
        Ok(derived)
    }

    /// Whether this key was derived for `info` (compares SHA-256 digests).
    pub fn is_for(&self, info: &[u8]) -> bool {
        let digest: [u8; 32] = Sha256::digest(info).into();
        digest == self.info_digest
    }

    /// Whether this key was derived from the signer's key whose public key
    /// is `key` (compares SHA-256 digests of the modulus, so the spelling of
    /// the SPKI the public key was read from does not matter).
    pub fn is_from(&self, key: &RsaPublicKey<L, B>) -> bool {
        let digest: [u8; 32] = Sha256::digest(key.modulus()).into();
        digest == self.modulus_digest
    }

    /// `BlindSign` (draft §4.3) with the signer's key `key`, which must be
    /// the key this one was derived from ([`Error::KeyIdMismatch`]
    /// otherwise): as [`RsaDerivedSecretKey::blind_sign`].
    pub fn blind_sign(&self, key: &RsaSecretKey<L, H, B>, blinded_msg: &[u8]) -> Result<[u8; B]> {
        if !self.is_from(key.public_key()) {
            return Err(Error::KeyIdMismatch);
        }
        if blinded_msg.len() != B {
            return Err(Error::InvalidLength(Field::Message));
        }
        let pk = key.public_key();
        let m = pk.integer(blinded_msg).ok_or(Error::InvalidValue(Field::Message))?;
        let mut s = key.rsasp1_crt_with(&m, &self.d_p, &self.d_q);
        crate::ct::declassify(&mut s); // the blind signature is sent to the client
        // s^e′ = m, checked modulo p and q: half the cost of the check modulo n.
        let mut check = key.crt_power_matches(&s, &m, &self.e);
        crate::ct::declassify(&mut check); // verdict only: a fault in the signature aborts
        if !bool::from(check) {
            return Err(Error::Verification);
        }
        let mut out = [0u8; B];
        uint::to_be(&s, &mut out);
        Ok(out)
    }
}

/// e⁻¹ mod (x − 1) for an odd prime x (≥ 3) and the public e, in constant
/// time in x; none if e is even or shares a factor with x − 1.
///
/// The secret m = x − 1 is never a modulus or a divisor, only the public e
/// is: e·d ≡ 1 (mod m) means e·d = 1 + k·m with k ≡ −m⁻¹ (mod e), 0 < k < e,
/// so k comes from inverting m mod e (crypto-bigint's constant-time safegcd
/// for an odd modulus) and d = (1 + k·m)/e from an exact division by e
/// (variable time in the divisor only). d < m since k < e. m has an inverse
/// mod e exactly when e has one mod m, so the verdict is the same as for
/// crypto-bigint's `invert_mod(e, m)`, used before: that splits its modulus
/// m = 2^t·s and shifts by the secret t through `Uint::shr`, whose
/// assertions branch on t (crypto-bigint 0.7.11 `src/uint/ref_type/shr.rs`
/// lines 51 and 258, `t < BITS` and a `NonZeroU32` `expect`). They always
/// pass, so the time did not vary, but memcheck flags them (`scripts/ctgrind`
/// case `typeda7a-issuer`) and nothing stops a later version from branching
/// for real; here no secret reaches a branch or an assertion.
fn invert_mod_minus_one<const H: usize, const L: usize>(
    e: &Uint<H>,
    x: &Uint<H>,
    out: &mut Uint<H>,
) -> crypto_bigint::Choice {
    // e is public (derived from n and info): branching on its parity is fine.
    let Some(e_odd) = Odd::new(*e).into_option() else {
        return crypto_bigint::Choice::FALSE;
    };
    // Modulo 1 there is no inverse of m mod e to compute (safegcd says none),
    // but 1⁻¹ = 1 mod m. (A derived e′ is 1 with probability 2^-1021.)
    if *e == Uint::ONE {
        *out = Uint::ONE;
        return crypto_bigint::Choice::TRUE;
    }
    // Every intermediate is secret (m⁻¹ mod e with the public e gives
    // p − 1 mod e, most of p): all are wiped, the CtOptions' contents too.
    let mut m = x.wrapping_sub(&Uint::ONE);
    let mut m_mod_e = m.rem_vartime(e_odd.as_nz_ref());
    let mut m_inv = m_mod_e.invert_odd_mod(&e_odd);
    // k = e − m⁻¹ mod e; if m⁻¹ does not exist the verdict below is false.
    let mut k = e.wrapping_sub(m_inv.as_inner_unchecked());
    let (mut lo, mut hi) = k.widening_mul(&m);
    // k·m + 1 < e·m < 2^(2·bits of H): no overflow.
    let mut t: Uint<L> = lo.concat_resize(&hi);
    t = t.wrapping_add(&Uint::ONE);
    let mut quotient = t.div_exact_vartime(e_odd.as_nz_ref());
    let exists = m_inv.is_some().and(quotient.is_some());
    // The quotient is below m, so it fits in H limbs.
    *out = quotient.as_inner_unchecked().resize::<H>();
    // `insert` overwrites the value in place (the flags were read above).
    for x in [&mut m, &mut m_mod_e, &mut k, &mut lo, &mut hi, m_inv.insert(Uint::ZERO)] {
        x.zeroize();
    }
    t.zeroize();
    quotient.insert(Uint::ZERO).zeroize();
    exists
}

impl<const L: usize, const H: usize, const B: usize> RsaSecretKey<L, H, B> {
    /// `DeriveKeyPair` for `info`: see [`RsaDerivedSecretKey::new`].
    pub fn derive(&self, info: &[u8]) -> Result<RsaDerivedSecretKey<'_, L, H, B>> {
        RsaDerivedSecretKey::new(self, info)
    }

    /// Checks that p and q are safe primes, as the signer's key of partially
    /// blind RSA must have (draft-irtf-cfrg-partially-blind-rsa-01 §4.1):
    /// that p, q, (p − 1)/2 and (q − 1)/2 are prime, by the Baillie–PSW
    /// test (Miller–Rabin to base 2 and a Lucas test; no composite is known
    /// to pass both). [`Error::NotSafePrime`] otherwise.
    ///
    /// Variable time in p and q: run it when a key is loaded (the type
    /// 0xDA7A issuer does, [`crate::tokens::metadata::Issuer::try_new`]),
    /// never per request.
    pub fn check_safe_primes_vartime(&self) -> Result<()> {
        for prime in [&self.p, &self.q] {
            // p is odd, so (p − 1)/2 is p shifted right by one bit.
            let half = prime.modulus().as_ref().wrapping_shr_vartime(1);
            if !primality::is_probable_prime_vartime(&half)
                || !primality::is_probable_prime_vartime(prime.modulus().as_ref())
            {
                return Err(Error::NotSafePrime);
            }
        }
        Ok(())
    }
}

impl<const L: usize, const B: usize> RsaPublicKey<L, B> {
    /// `DerivePublicKey` for `info`: see [`RsaDerivedPublicKey::new`]. The
    /// prime size `H` (half of `L`) is named by the result type, as in
    /// [`DerivedPublicKey`].
    pub fn derive<'i, const H: usize>(&self, info: &'i [u8]) -> Result<RsaDerivedPublicKey<'_, 'i, L, H, B>> {
        RsaDerivedPublicKey::new(self, info)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod crt_tests {
    use super::*;
    use crate::crypto::blind_rsa::SecretKey;

    const VECTORS: &str = include_str!("../../../tests/vectors/pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json");

    fn hex(s: &str) -> std::vec::Vec<u8> {
        (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
    }

    fn draft_key() -> SecretKey {
        let v: serde_json::Value = serde_json::from_str(VECTORS).unwrap();
        let f = |k: &str| hex(v[0][k].as_str().unwrap());
        SecretKey::from_components(&f("n"), &f("e"), &f("d"), &f("p"), &f("q")).unwrap()
    }

    /// The fault check modulo p and q agrees with the check modulo n, for the
    /// real signature and for wrong ones.
    #[test]
    fn crt_check_agrees_with_the_check_modulo_n() {
        let sk = draft_key();
        let pk = sk.public_key();
        for info in [&b""[..], b"metadata", &[0xff; 300]] {
            let derived = sk.derive(info).unwrap();
            let mut bytes = [0u8; 256];
            bytes[1..].fill(0x5a);
            let m = pk.integer(&bytes).unwrap();
            let s = sk.rsasp1_crt_with(&m, &derived.owned.d_p, &derived.owned.d_q);
            assert_eq!(pow_public(pk, &derived.owned.e, &s), m);
            assert!(bool::from(sk.crt_power_matches(&s, &m, &derived.owned.e)));
            for wrong in [s.wrapping_add(&Uint::ONE), s.wrapping_sub(&Uint::ONE), s ^ Uint::ONE.shl_vartime(700)] {
                assert_ne!(pow_public(pk, &derived.owned.e, &wrong), m);
                assert!(!bool::from(sk.crt_power_matches(&wrong, &m, &derived.owned.e)));
            }
            // A signature correct modulo q only (the Bellcore fault) fails.
            let q = sk.q.modulus().as_ref().resize::<{ crypto_bigint::U2048::LIMBS }>();
            let faulty = s.add_mod(&q, pk.params().modulus().as_nz_ref());
            assert!(!bool::from(sk.crt_power_matches(&faulty, &m, &derived.owned.e)));
        }
    }

    /// e′ has its two top bits clear and its low bit set, whatever `info`.
    #[test]
    fn derived_exponent_shape() {
        let sk = draft_key();
        for info in [&b""[..], b"a", &[0u8; 1000]] {
            let e: Uint<{ crypto_bigint::U1024::LIMBS }> = derive_exponent::<
                { crypto_bigint::U2048::LIMBS },
                { crypto_bigint::U1024::LIMBS },
                256,
            >(sk.public_key(), info)
            .unwrap();
            let mut be = [0u8; 128];
            uint::to_be(&e, &mut be);
            assert_eq!(be[0] & 0xc0, 0);
            assert_eq!(be[127] & 1, 1);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]
mod tests {
    extern crate std;

    use std::vec::Vec;

    use crypto_bigint::NonZero;

    use super::*;
    use crate::crypto::blind_rsa::test_rng::TestInts;
    use crate::crypto::blind_rsa::{SecretKey, SecretKey4096};

    /// The hex field `name` of a JSON object in a vector file, as bytes.
    fn field(v: &serde_json::Value, name: &str) -> Vec<u8> {
        let hex = v[name].as_str().unwrap();
        (0..hex.len()).step_by(2).map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap()).collect()
    }

    fn vector(file: &str) -> serde_json::Value {
        let path = std::format!("{}/tests/vectors/{file}", env!("CARGO_MANIFEST_DIR"));
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
    }

    /// [`invert_mod_minus_one`] as an `Option`.
    fn inverse<const H: usize, const L: usize>(e: &Uint<H>, x: &Uint<H>) -> Option<Uint<H>> {
        let mut out = Uint::ZERO;
        bool::from(invert_mod_minus_one::<H, L>(e, x, &mut out)).then_some(out)
    }

    fn components(v: &serde_json::Value) -> [Vec<u8>; 5] {
        ["n", "e", "d", "p", "q"].map(|f| field(v, f))
    }

    /// The new inverse against crypto-bigint's `invert_mod`, the one used
    /// before (`typeda7a-issuer` ctgrind finding), for both primes of `sk`
    /// and many exponents: the derived e′ for 32 metadata strings, 65537
    /// (whose inverses are the key's dP, dQ), small odd and even values, and
    /// reproducible odd integers of every size up to the prime's. Returns how
    /// many were not invertible.
    fn same_as_invert_mod<const L: usize, const H: usize, const B: usize>(sk: &RsaSecretKey<L, H, B>) -> usize {
        let mut es: Vec<Uint<H>> =
            (0u8..32).map(|i| derive_exponent::<L, H, B>(sk.public_key(), &[i]).unwrap()).collect();
        es.extend([1u64, 2, 3, 5, 7, 15, 65536, 65537, 105].map(Uint::from_u64));
        let mut ints = TestInts::new(0xda7a);
        for bits in (8..Uint::<H>::BITS).step_by(61) {
            let x: Uint<H> = ints.uint::<H>();
            es.push(x.shr_vartime(Uint::<H>::BITS - bits).bitor(&Uint::ONE));
        }
        let mut failed = 0;
        for e in &es {
            for x in [&sk.p, &sk.q] {
                let x = x.modulus().as_ref();
                let old = e.invert_mod(&NonZero::new(x.wrapping_sub(&Uint::ONE)).unwrap()).into_option();
                let new = inverse::<H, L>(e, x);
                assert_eq!(new, old, "e = {e}");
                failed += usize::from(new.is_none());
            }
        }
        let e = Uint::<H>::from_u32(super::super::PUBLIC_EXPONENT);
        assert_eq!(inverse::<H, L>(&e, sk.p.modulus().as_ref()), Some(sk.d_p));
        assert_eq!(inverse::<H, L>(&e, sk.q.modulus().as_ref()), Some(sk.d_q));
        failed
    }

    #[test]
    fn inverse_mod_p_minus_one_equals_crypto_bigints() {
        // The draft's key (safe primes): only the even exponents fail (and
        // 3, 5, 7, 15, 105 only if they divided p′ or q′, which they do not).
        let v = vector("pbrsa/draft-irtf-cfrg-partially-blind-rsa-01.json");
        let [n, e, d, p, q] = components(&v[0]);
        let safe = SecretKey::from_components(&n, &e, &d, &p, &q).unwrap();
        assert_eq!(same_as_invert_mod(&safe), 2 * 2);
        // RFC 9474's RSA-4096 key: ordinary primes (3, 5 and 7 divide p − 1),
        // so odd exponents fail too.
        let v = vector("rfc/rfc9474-blind-rsa.json");
        let [n, e, d, p, q] = components(&v["vectors"][0]);
        let ordinary = SecretKey4096::from_components(&n, &e, &d, &p, &q).unwrap();
        assert!(same_as_invert_mod(&ordinary) > 2 * 2 + 4);
        // RFC 9578's RSA-2048 key (ordinary primes too).
        let v = vector("rfc/rfc9578-issuance.json");
        let pem = std::string::String::from_utf8(field(&v["type_0002_blind_rsa_2048"][0], "skS")).unwrap();
        let rfc9578 = SecretKey::from_pkcs8_pem(&pem).unwrap();
        assert!(same_as_invert_mod(&rfc9578) >= 2 * 2);
    }
}
