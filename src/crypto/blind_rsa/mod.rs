//! RSA blind signatures (RFC 9474) on fixed-size integers, without allocation.
//!
//! This is the primitive behind Privacy Pass token type 0x0002 (RFC 9578 §6),
//! which uses the RSABSSA-SHA384-PSS-Deterministic variant with RSA-2048 keys:
//! the free functions [`blind`], [`blind_sign`], [`finalize`] and [`verify`]
//! implement exactly that. All four RFC 9474 §5 variants are available as
//! [`Variant`] methods, and every operation is generic over the key size
//! ([`PublicKey`]/[`SecretKey`] for RSA-2048, [`PublicKey4096`]/[`SecretKey4096`]).
//!
//! ```text
//! client                           issuer
//! (blinded, state) = blind(pk, msg, rng)
//!                  ── blinded ──▶
//!                                  blind_sig = blind_sign(sk, blinded)
//!                  ◀── blind_sig ─
//! sig = finalize(pk, msg, &state, blind_sig)         verify(pk, msg, sig)
//! ```
//!
//! # Constant time
//!
//! - Issuer: the private operation (CRT with two half-size Montgomery
//!   exponentiations and Garner's recombination), the key consistency checks
//!   and the verify-after-sign fault check are constant time in the key and
//!   the message. Only the combined outcome of a check is branched on. The
//!   exponentiations use a 5-bit fixed window whose table is read in full for
//!   every lookup (masked AND/OR, no secret-dependent address) and reduce m
//!   modulo p and q without a division (Montgomery reduction with per-key
//!   R³ mod p, R³ mod q); see `monty` and `RsaSecretKey::rsasp1_crt`. The
//!   fault check sᵉ = m is sixteen squarings and one product, constant time
//!   even though s and m are public. On x86_64 with `std`, a CPU with
//!   AVX-512 IFMA runs both half exponentiations of an RSA-2048 key at once
//!   in `monty_ifma`, a CPU with AVX2 and without IFMA in `monty_avx2`
//!   (chosen once at run time, `kernel`; the same values, the same
//!   constant-time rules: table read in full under masks), and the fault
//!   check there is done modulo p and q.
//! - Client: the blind r is sampled by rejection (a rejected candidate reveals
//!   only that it was rejected) and read directly as a Montgomery form; rᵉ is
//!   sixteen squarings and one product. r⁻¹ comes from one *blinded*
//!   variable-time inversion: of w = m·r·u for a fresh secret uniformly random
//!   u, which makes w uniform and independent of m and r, so the inversion's
//!   timing reveals nothing about them (the argument is in `blind_core`); it
//!   also checks that m is coprime to n. The known-answer entry points (no
//!   RNG for u) use the constant-time safegcd inversion instead.
//!   The EMSA-PSS encoding and the final verification are constant time in the
//!   message and the signature.
//! - DER parsing branches on tags and lengths (and on the public modulus).
//!   The only variable-time arithmetic on the protocol path is the blinded
//!   inversion above (`vartime_inv`: batched divsteps on 62-bit words).
//!   Outside it, the safe-prime check of a partially blind RSA key
//!   (`RsaSecretKey::check_safe_primes_vartime`, `primality`) branches on
//!   the primes; it runs once when a type 0xDA7A issuer loads its key.
//!
//! No function here allocates, panics or uses `unsafe`.

mod der;
// Deterministic variants (explicit blinds, nonces, salts): public only as
// `crate::hazmat`, used inside the crate by the power-on self-test and tests.
#[cfg_attr(not(feature = "hazmat"), allow(dead_code))]
pub(crate) mod deterministic;
#[cfg(feature = "keygen")]
mod keygen;
#[cfg(feature = "keygen")]
pub use keygen::{PKCS8_MAX_LEN, PKCS8_PEM_MAX_LEN};
mod kernel;
mod key;
mod monty;
#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod monty_avx2;
#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod monty_ifma;
pub mod partial;
mod primality;
mod pss;
mod uint;
mod vartime_inv;

/// Reproducible integers for the `monty` and `vartime_inv` tests, from the
/// shared test generator.
#[cfg(test)]
#[allow(clippy::cast_possible_truncation)]
mod test_rng {
    use crypto_bigint::{Limb, Uint, Word};
    use pat_testkit::TestRng;

    /// Test integers (test only: reproducible, not random).
    pub(super) struct TestInts(TestRng);

    impl TestInts {
        pub(super) const fn new(seed: u64) -> Self {
            Self(TestRng::new(seed))
        }

        pub(super) fn next(&mut self) -> u64 {
            self.0.next()
        }

        pub(super) fn uint<const N: usize>(&mut self) -> Uint<N> {
            let mut limbs = [Limb::ZERO; N];
            for l in &mut limbs {
                l.0 = self.next() as Word;
            }
            Uint::new(limbs)
        }
    }
}

use crypto_bigint::modular::FixedMontyForm;
use crypto_bigint::{U2048, Uint};
use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

pub use key::{PUBLIC_EXPONENT, PublicKey, PublicKey4096, RsaPublicKey, RsaSecretKey, SecretKey, SecretKey4096};

use crate::error::{Error, Field, Result, RngCode};

/// The modulus length in bytes of the Privacy Pass key (RSA-2048), which is also
/// the length of every blinded message, blind signature and signature (RFC 9578 §6).
pub const MODULUS_LEN: usize = 256;
/// The PSS salt length of the RSABSSA-SHA384-PSS variants (RFC 9474 §5).
pub const SALT_LEN: usize = 48;
/// The length of the random `msg_prefix` of the randomized variants (RFC 9474 §4.1).
pub const MSG_PREFIX_LEN: usize = 32;
/// How many candidates the blind sampler draws before it reports [`Error::Rng`]
/// (each is accepted with probability > 1/2, since n has its top bit set).
const MAX_BLIND_ATTEMPTS: usize = 128;

/// An RSA-2048 blinded message (RFC 9474 §4.2 `blinded_msg`).
pub type BlindedMessage = [u8; MODULUS_LEN];
/// An RSA-2048 blind signature (RFC 9474 §4.3 `blind_sig`).
pub type BlindSignature = [u8; MODULUS_LEN];
/// An RSA-2048 RSASSA-PSS signature (RFC 9474 §4.4 `sig`).
pub type Signature = [u8; MODULUS_LEN];

/// The client's secret between [`blind`] and [`finalize`]: the inverse r⁻¹ of
/// the blind (RFC 9474 §4.2 `inv`), held in Montgomery form r⁻¹·R mod n.
///
/// Not `Copy`, zeroized on drop; `Debug` prints only the type name.
pub struct RsaBlindingState<const L: usize> {
    r_inv: Uint<L>,
}

/// The blinding state for RSA-2048 keys.
pub type BlindingState = RsaBlindingState<{ U2048::LIMBS }>;

secret_newtype!(impl[const L: usize] RsaBlindingState<L> { r_inv });

impl<const L: usize> RsaBlindingState<L> {
    /// Zeroes r⁻¹ in place (a spent client state). The state is then
    /// useless: finalizing with it gives a signature that does not verify.
    pub(crate) fn wipe(&mut self) {
        self.r_inv.zeroize();
    }

    /// The stored form r⁻¹·R mod n, R = 2^(8·B), as `B` big-endian bytes
    /// into `out` (an exported client state, `tokens::state`). No conversion,
    /// so no key is needed; the value does not depend on the limb size.
    pub(crate) fn write_stored(&self, out: &mut [u8]) {
        uint::to_be(&self.r_inv, out);
    }

    /// The state whose stored form ([`Self::write_stored`]) is `bytes`, for
    /// `pk`: it must lie in [1, n), else
    /// [`Error::InvalidValue`]`(`[`Field::BlindInverse`]`)`. Whether it is a
    /// unit mod n is not checked (that takes an inversion): a non-unit
    /// cannot come from [`blind`], and finalize then fails to verify.
    pub(crate) fn from_stored<const B: usize>(pk: &RsaPublicKey<L, B>, bytes: &[u8]) -> Result<Self> {
        let mut r_inv = pk.integer(bytes).ok_or(Error::InvalidValue(Field::BlindInverse))?;
        let mut nonzero = !r_inv.ct_eq(&Uint::ZERO);
        crate::ct::declassify(&mut nonzero); // verdict only: an imported r⁻¹ = 0 is an error
        if !bool::from(nonzero) {
            r_inv.zeroize();
            return Err(Error::InvalidValue(Field::BlindInverse));
        }
        Ok(Self { r_inv })
    }
}

/// RFC 9474 §4.1 `input_msg`: the message, preceded by a 32-byte random
/// `msg_prefix` for the randomized variants. The two parts are hashed one after
/// the other, never concatenated.
///
/// The prefix is public: the verifier needs it together with the signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PreparedMessage<'a> {
    prefix: Option<[u8; MSG_PREFIX_LEN]>,
    msg: &'a [u8],
}

impl<'a> PreparedMessage<'a> {
    /// `Prepare` of the deterministic variants (RFC 9474 §4.1: identity).
    pub const fn identity(msg: &'a [u8]) -> Self {
        Self { prefix: None, msg }
    }

    /// `Prepare` of the randomized variants with a given `msg_prefix` (RFC 9474
    /// §4.1), for example one received from the signer of a message.
    pub const fn with_prefix(msg_prefix: [u8; MSG_PREFIX_LEN], msg: &'a [u8]) -> Self {
        Self { prefix: Some(msg_prefix), msg }
    }

    /// The 32-byte `msg_prefix` (RFC 9474 §4.1), if this is a randomized input.
    pub const fn msg_prefix(&self) -> Option<&[u8; MSG_PREFIX_LEN]> {
        self.prefix.as_ref()
    }

    /// The message `msg` without the prefix (RFC 9474 §4.1).
    pub const fn msg(&self) -> &'a [u8] {
        self.msg
    }

    fn parts(&self) -> [&[u8]; 2] {
        match &self.prefix {
            Some(prefix) => [prefix, self.msg],
            None => [&[], self.msg],
        }
    }
}

/// The four RSABSSA variants of RFC 9474 §5, all with SHA-384 and MGF1-SHA-384.
///
/// Privacy Pass (RFC 9578 §6) uses [`Variant::Sha384PssDeterministic`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// RSABSSA-SHA384-PSS-Randomized: salt 48 bytes, random 32-byte prefix.
    Sha384PssRandomized,
    /// RSABSSA-SHA384-PSSZERO-Randomized: empty salt, random 32-byte prefix.
    Sha384PssZeroRandomized,
    /// RSABSSA-SHA384-PSS-Deterministic: salt 48 bytes, no prefix.
    Sha384PssDeterministic,
    /// RSABSSA-SHA384-PSSZERO-Deterministic: empty salt, no prefix.
    Sha384PssZeroDeterministic,
}

impl Variant {
    /// The PSS salt length sLen (RFC 9474 §5): 48 or 0.
    pub const fn salt_len(self) -> usize {
        match self {
            Variant::Sha384PssRandomized | Variant::Sha384PssDeterministic => SALT_LEN,
            Variant::Sha384PssZeroRandomized | Variant::Sha384PssZeroDeterministic => 0,
        }
    }

    /// Whether `Prepare` adds a random prefix (RFC 9474 §4.1, §5).
    pub const fn is_randomized(self) -> bool {
        matches!(self, Variant::Sha384PssRandomized | Variant::Sha384PssZeroRandomized)
    }

    /// `Prepare` (RFC 9474 §4.1): identity for the deterministic variants, a
    /// fresh 32-byte `msg_prefix` from `rng` for the randomized ones.
    pub fn prepare<'a, R: TryCryptoRng<Error: 'static> + ?Sized>(
        self,
        msg: &'a [u8],
        rng: &mut R,
    ) -> Result<PreparedMessage<'a>> {
        if !self.is_randomized() {
            return Ok(PreparedMessage::identity(msg));
        }
        let mut prefix = [0u8; MSG_PREFIX_LEN];
        crate::rng::fill(rng, &mut prefix)?;
        Ok(PreparedMessage::with_prefix(prefix, msg))
    }

    fn check_input(self, input: &PreparedMessage<'_>) -> Result<()> {
        if self.is_randomized() == input.prefix.is_some() { Ok(()) } else { Err(Error::InvalidValue(Field::Message)) }
    }

    /// `Blind` (RFC 9474 §4.2): EMSA-PSS-encodes `input` with a fresh salt,
    /// draws r uniformly from [1, n) with r invertible, and returns
    /// `blinded_msg = m·rᵉ mod n` together with the secret state r⁻¹.
    ///
    /// Constant time in the message, salt and r (see the module docs).
    /// Errors: [`Error::Rng`] if the RNG fails, [`Error::InvalidValue`] if the
    /// encoded message is not invertible mod n or `input` does not match the
    /// variant.
    pub fn blind<const L: usize, const B: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        self,
        pk: &RsaPublicKey<L, B>,
        input: &PreparedMessage<'_>,
        rng: &mut R,
    ) -> Result<([u8; B], RsaBlindingState<L>)> {
        let mut salt = [0u8; SALT_LEN];
        let salt = salt.get_mut(..self.salt_len()).ok_or(Error::InvalidKey)?;
        crate::rng::fill(rng, salt)?;
        let mut m = self.encode::<L, B>(input, salt)?;
        let result = blind_encoded(pk, &m, rng, |r_mont| pow_65537_mont(r_mont, pk.params()));
        m.zeroize();
        result
    }

    /// `m = OS2IP(EMSA-PSS-ENCODE(input, salt))` (RFC 9474 §4.2 steps 1–2).
    fn encode<const L: usize, const B: usize>(self, input: &PreparedMessage<'_>, salt: &[u8]) -> Result<Uint<L>> {
        self.check_input(input)?;
        encode_parts::<L, B>(&input.parts(), salt)
    }

    /// `Finalize` (RFC 9474 §4.4): `sig = blind_sig·r⁻¹ mod n`, returned only
    /// if it passes RSASSA-PSS verification for `input`.
    ///
    /// The state is borrowed, as [`voprf::finalize`](crate::crypto::voprf::finalize)
    /// borrows its blinds: a blind signature that fails leaves it usable for
    /// another one. Drop it when done; it wipes itself.
    ///
    /// Constant time in r⁻¹ and the signature. Errors:
    /// [`Error::InvalidLength`] if `blind_sig` is not `B` bytes,
    /// [`Error::Verification`] if it is ≥ n or the result does not verify.
    pub fn finalize<const L: usize, const B: usize>(
        self,
        pk: &RsaPublicKey<L, B>,
        input: &PreparedMessage<'_>,
        state: &RsaBlindingState<L>,
        blind_sig: &[u8],
    ) -> Result<[u8; B]> {
        self.check_input(input)?;
        if blind_sig.len() != B {
            return Err(Error::InvalidLength(Field::Message));
        }
        let z = pk.integer(blind_sig).ok_or(Error::Verification)?;
        // z·(r⁻¹·R)·R⁻¹ = z·r⁻¹: one Montgomery product with the stored form.
        let mut s = monty::mul(&z, &state.r_inv, pk.params());
        crate::ct::declassify(&mut s); // the signature is the token's authenticator, shown at redemption
        let mut sig = [0u8; B];
        uint::to_be(&s, &mut sig);
        self.verify(pk, input, &sig)?;
        Ok(sig)
    }

    /// `Verify` (RFC 9474 §4.5): RSASSA-PSS-VERIFY (RFC 8017 §8.1.2) with
    /// SHA-384, MGF1-SHA-384 and this variant's salt length.
    ///
    /// Every failure (wrong length, s ≥ n, bad encoding) is
    /// [`Error::Verification`]. Constant time in the signature and message.
    pub fn verify<const L: usize, const B: usize>(
        self,
        pk: &RsaPublicKey<L, B>,
        input: &PreparedMessage<'_>,
        sig: &[u8],
    ) -> Result<()> {
        self.check_input(input)?;
        let s = pk.integer(sig).ok_or(Error::Verification)?;
        // RSAVP1 (RFC 8017 §5.2.2): s^65537 mod n, plain in and out.
        let m = monty::pow_65537(&s, pk.params());
        let mut em = [0u8; B];
        uint::to_be(&m, &mut em);
        let mut ok = pss::verify(&input.parts(), &mut em, 8 * B - 1, self.salt_len());
        crate::ct::declassify(&mut ok); // the verification verdict
        if bool::from(ok) { Ok(()) } else { Err(Error::Verification) }
    }
}

/// `m = OS2IP(EMSA-PSS-ENCODE(M, salt))` for `M = parts[0] ‖ parts[1] ‖ …`
/// (RFC 9474 §4.2 steps 1–2), with emBits = modBits − 1.
pub(crate) fn encode_parts<const L: usize, const B: usize>(parts: &[&[u8]], salt: &[u8]) -> Result<Uint<L>> {
    let mut em = [0u8; B];
    pss::encode(parts, salt, 8 * B - 1, &mut em)?;
    // emBits = modBits − 1, so m < 2^(8B−1) < n.
    let m = uint::from_be::<L>(&em).ok_or(Error::InvalidKey);
    em.zeroize();
    m
}

/// rᵉ·R for r·R with e = 65537: sixteen squarings and one product.
fn pow_65537_mont<const L: usize>(r_mont: &Uint<L>, params: &crypto_bigint::modular::FixedMontyParams<L>) -> Uint<L> {
    let r_65536 = Zeroizing::new(monty::pow_65536_mont(r_mont, params));
    monty::mul(&r_65536, r_mont, params)
}

/// The blinding loop of `Blind` (RFC 9474 §4.2 steps 3–6) for the encoded
/// message `m`: draws r and the inversion blind u, and returns
/// `blinded_msg = m·rᵉ mod n` with the state r⁻¹. `pow_e` maps r·R to rᵉ·R
/// for the public exponent e in use (65537, or a partially blind RSA
/// exponent e′ from `partial`).
pub(crate) fn blind_encoded<const L: usize, const B: usize, R, F>(
    pk: &RsaPublicKey<L, B>,
    m: &Uint<L>,
    rng: &mut R,
    pow_e: F,
) -> Result<([u8; B], RsaBlindingState<L>)>
where
    R: TryCryptoRng<Error: 'static> + ?Sized,
    F: Fn(&Uint<L>) -> Uint<L>,
{
    let mut result = Err(Error::Rng(RngCode::EXHAUSTED));
    // One round unless m·r·u is not invertible: never for honest keys
    // unless m shares a factor with n (then the error below).
    for _ in 0..MAX_BLIND_ATTEMPTS {
        let (mut r, mut u) = match (random_residue(pk, rng), random_residue(pk, rng)) {
            (Ok(r), Ok(u)) => (r, u),
            (Err(e), _) | (_, Err(e)) => {
                result = Err(e);
                break;
            }
        };
        let blinded = blind_core(pk, m, &r, Some(&u), &pow_e);
        r.zeroize();
        u.zeroize();
        if let Some(out) = blinded {
            result = Ok(out);
            break;
        }
        // RFC 9474 §4.2 step 3: m must be coprime to n; otherwise r or u
        // was not (a factor of n found by chance) and new ones are drawn.
        let mut coprime = coprime_to_n(m, pk.params());
        crate::ct::declassify(&mut coprime); // verdict only: a message sharing a factor with n aborts
        if !bool::from(coprime) {
            result = Err(Error::InvalidValue(Field::Message));
            break;
        }
    }
    result
}

/// Whether `m` is a unit mod n, in constant time. Not inlined: the inversion
/// runs only after a rejected blind, and inlined it kept its temporaries in
/// [`blind_encoded`]'s frame for every request.
#[inline(never)]
fn coprime_to_n<const L: usize>(m: &Uint<L>, params: &crypto_bigint::modular::FixedMontyParams<L>) -> subtle::Choice {
    key::choice(FixedMontyForm::new(m, params).invert().is_some())
}

/// A uniformly random nonzero residue x·R mod n, read directly as the
/// Montgomery form of x: since x·R ↦ x is a bijection of [1, n), x is uniform
/// in [1, n) as well and no conversion product is needed. Rejection sampling
/// of `B` random bytes; a rejected candidate reveals only that it was ≥ n or
/// zero. [`Error::Rng`] if the generator fails or after
/// [`MAX_BLIND_ATTEMPTS`] rejections.
fn random_residue<const L: usize, const B: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
    pk: &RsaPublicKey<L, B>,
    rng: &mut R,
) -> Result<Uint<L>> {
    let mut candidate = [0u8; B];
    for _ in 0..MAX_BLIND_ATTEMPTS {
        crate::rng::fill(rng, &mut candidate)?;
        let x = pk.integer(&candidate);
        candidate.zeroize();
        // Branches only on whether this candidate is rejected.
        if let Some(mut x) = x {
            let mut nonzero = !x.ct_eq(&Uint::ZERO);
            crate::ct::declassify(&mut nonzero); // rejection verdict for this candidate, not its value
            if bool::from(nonzero) {
                return Ok(x);
            }
            x.zeroize();
        }
    }
    Err(Error::Rng(RngCode::EXHAUSTED))
}

/// `blinded_msg = m·rᵉ mod n` and the state r⁻¹ (RFC 9474 §4.2 steps 3–6)
/// for the plain m and the blind in Montgomery form `r_mont` = r·R, or `None`
/// if m·r is not invertible mod n.
///
/// - rᵉ·R is `pow_e(r·R)` (for e = 65537, sixteen squarings of r·R and one
///   product with it); one product with the plain m then leaves Montgomery
///   form: m·rᵉ.
/// - r⁻¹ and the check that m is coprime to n (step 3) share one inversion,
///   of m·r: r⁻¹ = m·(m·r)⁻¹.
/// - With an inversion blind `u_mont` (u·R for a fresh secret u, uniformly
///   random in [1, n)), the inversion is variable time, of w = m·r·u; see
///   the comment at the call. Without one (the known-answer path), it is the
///   constant-time safegcd inversion of m·r.
///
/// The state keeps r⁻¹ in Montgomery form, r⁻¹·R, so that `Finalize` is one
/// Montgomery product with the plain blind signature.
fn blind_core<const L: usize, const B: usize, F: Fn(&Uint<L>) -> Uint<L>>(
    pk: &RsaPublicKey<L, B>,
    m: &Uint<L>,
    r_mont: &Uint<L>,
    u_mont: Option<&Uint<L>>,
    pow_e: &F,
) -> Option<([u8; B], RsaBlindingState<L>)> {
    let params = pk.params();
    // Every secret intermediate is wrapped, so that it is wiped on every path,
    // the early returns of a failed inversion included.
    let r_e = Zeroizing::new(pow_e(r_mont));
    let mut z = monty::mul(&r_e, m, params);
    crate::ct::declassify(&mut z); // the blinded message is sent to the signer
    drop(r_e);
    // m·(r·R)·R⁻¹ = m·r, plain.
    let mr = Zeroizing::new(monty::mul(m, r_mont, params));
    // (m·r)⁻¹·R² in both branches. An inverter given the raw value x treats it
    // as the Montgomery form of x·R⁻¹ and returns (x·R⁻¹)⁻¹·R = x⁻¹·R².
    let mr_inv = Zeroizing::new(match u_mont {
        Some(u_mont) => {
            // Blinded variable-time inversion. w = m·r·u (plain). u is a
            // fresh secret drawn uniformly from [1, n) independently of m
            // and r, and for a fixed unit m·r the map u ↦ m·r·u permutes the
            // units mod n; so w is uniformly distributed over the units
            // (non-units occur with probability ≈ 2^-1023 and are rejected)
            // and independent of m, of r and of everything the protocol
            // publishes (blinded_msg = m·rᵉ does not involve u). Timing,
            // branches and memory accesses of the inversion of w therefore
            // carry no information about m or r; u never reaches
            // variable-time code, and (m·r)⁻¹ = u·w⁻¹ is a constant-time
            // product. Hence w is declassified here.
            let mut w = monty::mul(&mr, u_mont, params);
            crate::ct::declassify(&mut w);
            let w_inv = Zeroizing::new(if vartime_inv::fits::<L>() {
                // Plain w⁻¹, then ·R² by two products with R² mod n.
                let x = Zeroizing::new(vartime_inv::invert(&w, params.modulus().as_ref())?);
                let x_r = Zeroizing::new(monty::mul(&x, params.r2(), params));
                monty::mul(&x_r, params.r2(), params)
            } else {
                *FixedMontyForm::from_montgomery(w, params).invert_vartime().into_option()?.as_montgomery()
            });
            // (m·r·u)⁻¹·R² · u·R · R⁻¹ = (m·r)⁻¹·R².
            monty::mul(&w_inv, u_mont, params)
        }
        None => {
            let inv = FixedMontyForm::from_montgomery(*mr, params).invert();
            let mut ok = key::choice(inv.is_some());
            crate::ct::declassify(&mut ok); // verdict only: m·r not invertible aborts (known-answer path)
            let value = Zeroizing::new(*inv.as_inner_unchecked().as_montgomery());
            Option::<Uint<L>>::from(subtle::CtOption::new(*value, ok))?
        }
    });
    drop(mr);
    // (m·r)⁻¹·R² · m · R⁻¹ = r⁻¹·R.
    let r_inv = monty::mul(&mr_inv, m, params);
    let mut out = [0u8; B];
    uint::to_be(&z, &mut out);
    Some((out, RsaBlindingState { r_inv }))
}

/// `BlindSign` (RFC 9474 §4.3): `s = RSASP1(sk, m)` for `m = OS2IP(blinded_msg)`,
/// then the fault check `RSAVP1(pk, s) = m` before anything is returned.
///
/// Variant independent. Constant time in the key and the message (CRT with
/// Garner's recombination). Errors: [`Error::InvalidLength`] if `blinded_msg`
/// is not `B` bytes, [`Error::InvalidValue`] if it is ≥ n, and
/// [`Error::Verification`] (with no output) if the fault check fails.
pub fn blind_sign<const L: usize, const H: usize, const B: usize>(
    sk: &RsaSecretKey<L, H, B>,
    blinded_msg: &[u8],
) -> Result<[u8; B]> {
    if blinded_msg.len() != B {
        return Err(Error::InvalidLength(Field::Message));
    }
    let pk = sk.public_key();
    let m = pk.integer(blinded_msg).ok_or(Error::InvalidValue(Field::Message))?;
    let mut s = sk.rsasp1_crt(&m);
    crate::ct::declassify(&mut s); // the blind signature is sent to the client
    // The fault check s^e = m: modulo p and q with the IFMA or AVX2 kernel (cheaper
    // there), otherwise modulo n.
    let check = match sk.fault_check_65537(&s, &m) {
        Some(mut check) => {
            crate::ct::declassify(&mut check); // verdict only: a fault in the signature aborts
            check
        }
        None => monty::pow_65537(&s, pk.params()).ct_eq(&m),
    };
    if !bool::from(check) {
        return Err(Error::Verification);
    }
    let mut out = [0u8; B];
    uint::to_be(&s, &mut out);
    Ok(out)
}

/// Privacy Pass `Blind` (RFC 9578 §6.1, RFC 9474 §4.2 with
/// RSABSSA-SHA384-PSS-Deterministic): blinds `msg` (the 98-byte token input)
/// under `pk`. Constant time in the secrets; see [`Variant::blind`].
pub fn blind<const L: usize, const B: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
    pk: &RsaPublicKey<L, B>,
    msg: &[u8],
    rng: &mut R,
) -> Result<([u8; B], RsaBlindingState<L>)> {
    Variant::Sha384PssDeterministic.blind(pk, &PreparedMessage::identity(msg), rng)
}

/// Privacy Pass `Finalize` (RFC 9578 §6.3, RFC 9474 §4.4): unblinds
/// `blind_sig` and returns the token authenticator after verifying it. The
/// state is borrowed and stays usable if `blind_sig` fails. Constant time in
/// the secrets; see [`Variant::finalize`].
pub fn finalize<const L: usize, const B: usize>(
    pk: &RsaPublicKey<L, B>,
    msg: &[u8],
    state: &RsaBlindingState<L>,
    blind_sig: &[u8],
) -> Result<[u8; B]> {
    Variant::Sha384PssDeterministic.finalize(pk, &PreparedMessage::identity(msg), state, blind_sig)
}

/// Privacy Pass token verification (RFC 9578 §6.4): RSASSA-PSS-VERIFY of the
/// authenticator `sig` over `msg` (the token input) with SHA-384, MGF1-SHA-384
/// and a 48-byte salt. Every failure is [`Error::Verification`].
pub fn verify<const L: usize, const B: usize>(pk: &RsaPublicKey<L, B>, msg: &[u8], sig: &[u8]) -> Result<()> {
    Variant::Sha384PssDeterministic.verify(pk, &PreparedMessage::identity(msg), sig)
}
