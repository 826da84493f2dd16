//! RSA keys: the RSASSA-PSS SubjectPublicKeyInfo of RFC 9578 §6.5, PKCS#8
//! private keys (RFC 5208 wrapping RFC 8017 §A.1.2 `RSAPrivateKey`), and the
//! private-key operation with CRT (RFC 8017 §5.1.2, method 2(b)).
//!
//! The encodings are read and written with the RustCrypto `der`, `spki`,
//! `pkcs1`, `pkcs8` and `pem-rfc7468` crates through `der.rs`, whose header
//! says what is accepted, how errors map, and what the switch from the
//! hand-written reader measured. This file checks the values: e = 65537, the
//! modulus size, and the consistency of a private key.

use core::fmt;

use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use crypto_bigint::{NonZero, Odd, U1024, U2048, U4096, Uint};
use sha2::{Digest, Sha256};
use subtle::{Choice, ConstantTimeEq, ConstantTimeLess};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use super::der::{self, E_BYTES, header_len};
use super::monty;
use super::uint::{Sizes, from_be};
#[cfg(all(target_arch = "x86_64", feature = "std"))]
use super::{kernel, monty_avx2, monty_ifma};
use crate::error::{Error, Field, Result};

/// The only public exponent this module accepts: e = 65537 (RFC 9578 §6.5 keys,
/// RFC 9474 Appendix A).
pub const PUBLIC_EXPONENT: u32 = 65537;

/// The length of the DER `AlgorithmIdentifier` for id-RSASSA-PSS with the
/// parameters of RFC 9578 §6.5 (`der::RSASSA_PSS`; a test checks it).
const PSS_ALGORITHM_ID_LEN: usize = 63;

/// An RSA public key (n, e = 65537) whose modulus is exactly `8·B` bits long,
/// held as `L` limbs (RFC 8017 §3.1).
///
/// Use the aliases [`PublicKey`] (RSA-2048, the Privacy Pass key) and
/// [`PublicKey4096`]. All data in it is public; its operations are not required
/// to be constant time.
#[derive(Clone)]
pub struct RsaPublicKey<const L: usize, const B: usize> {
    n: [u8; B],
    params: FixedMontyParams<L>,
    key_id: [u8; 32],
}

/// The RSA-2048 public key of Privacy Pass token type 0x0002 (RFC 9578 §6).
pub type PublicKey = RsaPublicKey<{ U2048::LIMBS }, 256>;
/// An RSA-4096 public key (RFC 9474 Appendix A uses 4096-bit keys).
pub type PublicKey4096 = RsaPublicKey<{ U4096::LIMBS }, 512>;

impl<const L: usize, const B: usize> RsaPublicKey<L, B> {
    /// The length of [`Self::to_spki`]'s output (342 for RSA-2048).
    pub const SPKI_LEN: usize = spki_len(PSS_ALGORITHM_ID_LEN, B);

    /// Builds the key from its big-endian modulus n (RFC 8017 §3.1; exactly `B`
    /// bytes, top bit set, odd); e is 65537.
    ///
    /// The checks branch on the (public) modulus; the Montgomery parameters are
    /// computed with the constant-time `FixedMontyParams::new`.
    pub fn from_modulus(n: &[u8]) -> Result<Self> {
        let (n, n_odd) = Self::check_modulus(n)?;
        let key_id = der::pss_spki_sha256(&n)?;
        Ok(Self { n, params: FixedMontyParams::new(n_odd), key_id })
    }

    /// The modulus checks of [`Self::from_modulus`].
    fn check_modulus(n: &[u8]) -> Result<([u8; B], Odd<Uint<L>>)> {
        let () = Sizes::<L, 0, B>::MODULUS;
        let n_arr: [u8; B] = n.try_into().map_err(|_| Error::InvalidLength(Field::Key))?;
        match n_arr.first() {
            Some(b) if *b >= 0x80 => {}
            _ => return Err(Error::InvalidLength(Field::Key)),
        }
        let n_uint = from_be::<L>(&n_arr).ok_or(Error::InvalidLength(Field::Key))?;
        let n_odd = Odd::new(n_uint).into_option().ok_or(Error::InvalidKey)?;
        Ok((n_arr, n_odd))
    }

    /// Parses the RSASSA-PSS SubjectPublicKeyInfo of RFC 9578 §6.5 (the
    /// `token-key` of token type 0x0002): id-RSASSA-PSS with the parameters
    /// {SHA-384, MGF1-SHA-384, saltLength 48}, then a BIT STRING holding
    /// `RSAPublicKey {n, e}` (RFC 8017 §A.1.1).
    ///
    /// Strict on structure, with one leniency: each of the two SHA-384
    /// identifiers may carry NULL parameters instead of none (RFC 5754 §2;
    /// OpenSSL writes NULL, so a 2048-bit key is then 346 bytes rather than
    /// 342). Otherwise every byte of the AlgorithmIdentifier is checked
    /// (trailerField must be left out, as DER leaves out defaults), the DER
    /// must be minimal, e must be 65537, n must be `8·B` bits, and no byte may
    /// follow. The rsaEncryption form is rejected here; see
    /// [`Self::from_rsa_encryption_spki`]. Not constant time (public input).
    ///
    /// The key id is SHA-256 of `der` as given, the bytes the issuer
    /// published, so for a NULL spelling it differs from the id of the same
    /// modulus in the form [`Self::to_spki`] writes.
    pub fn from_spki(der: &[u8]) -> Result<Self> {
        let (n, n_odd) = Self::check_modulus(Self::parse_spki(der, der::SpkiAlgorithm::RsassaPss)?)?;
        // RFC 9578 §6.5 defines the key id over the encoded key as published,
        // so hash the input, not a re-encoding: for the RFC 9578 spelling the
        // two are the same bytes (DER leaves one encoding), for the NULL
        // spellings of `der::ACCEPTED_PSS_PARAMS` they are not, and the
        // issuer's id is over what it sent. This also keeps the DER encoder
        // out of clients.
        let key_id = Sha256::digest(der).into();
        Ok(Self { n, params: FixedMontyParams::new(n_odd), key_id })
    }

    /// Parses a plain rsaEncryption SubjectPublicKeyInfo (RFC 3279 §2.3.1; 294
    /// bytes for RSA-2048), pat-go's "legacy" encoding. No issuer publishes it,
    /// so it is accepted only through this separately named function; the key
    /// id of the resulting key is still computed over the RSASSA-PSS encoding.
    /// Not constant time (public input).
    pub fn from_rsa_encryption_spki(der: &[u8]) -> Result<Self> {
        Self::from_modulus(Self::parse_spki(der, der::SpkiAlgorithm::RsaEncryption)?)
    }

    /// The modulus of an SPKI with `algorithm` and e = 65537.
    fn parse_spki(input: &[u8], algorithm: der::SpkiAlgorithm) -> Result<&[u8]> {
        let (n, e) = der::parse_spki(input, algorithm)?;
        if e != E_BYTES {
            return Err(Error::InvalidKey);
        }
        Ok(n)
    }

    /// Writes the RSASSA-PSS SubjectPublicKeyInfo (RFC 9578 §6.5) into `out`
    /// and returns its length, [`Self::SPKI_LEN`], or [`Error::BufferTooSmall`].
    /// Always RFC 9578's spelling (hash parameters absent), even for a key
    /// [`Self::from_spki`] read in a NULL spelling; [`Self::key_id`] stays the
    /// hash of the bytes read. Public data only.
    pub fn to_spki(&self, out: &mut [u8]) -> Result<usize> {
        if out.len() < Self::SPKI_LEN {
            return Err(Error::BufferTooSmall);
        }
        der::write_pss_spki(&self.n, out)
    }

    /// `token_key_id` = SHA-256 of the RSASSA-PSS SPKI (RFC 9578 §6.5, §6.1),
    /// computed once when the key is built: over the bytes given to
    /// [`Self::from_spki`], or else over the encoding [`Self::to_spki`]
    /// writes. Public data only.
    pub const fn key_id(&self) -> &[u8; 32] {
        &self.key_id
    }

    /// The big-endian modulus n (RFC 8017 §3.1). Public data only.
    pub const fn modulus(&self) -> &[u8; B] {
        &self.n
    }

    pub(crate) const fn params(&self) -> &FixedMontyParams<L> {
        &self.params
    }

    /// OS2IP of `bytes` (exactly `B` long), rejecting values ≥ n.
    /// Constant time in the value; the `Option` reveals only the range check.
    pub(crate) fn integer(&self, bytes: &[u8]) -> Option<Uint<L>> {
        if bytes.len() != B {
            return None;
        }
        let x = from_be::<L>(bytes)?;
        let mut in_range = x.ct_lt(self.params.modulus().as_ref());
        crate::ct::declassify(&mut in_range); // wire inputs: public; blind r, imported r⁻¹: a rejection verdict
        Option::from(subtle::CtOption::new(x, in_range))
    }
}

impl PublicKey {
    /// The 342-byte RSASSA-PSS SPKI of an RSA-2048 key (RFC 9578 §6.5).
    /// Public data only.
    pub fn to_spki_array(&self) -> [u8; 342] {
        let mut out = [0u8; 342];
        // Cannot fail: SPKI_LEN is 342 for B = 256.
        let _ = self.to_spki(&mut out);
        out
    }
}

/// Equal keys have the same modulus and the same key id: one key published
/// in two SPKI spellings (with and without NULL hash parameters) has two key
/// ids, so tokens of one do not verify under the other, and the two are not
/// equal.
impl<const L: usize, const B: usize> PartialEq for RsaPublicKey<L, B> {
    fn eq(&self, other: &Self) -> bool {
        self.n == other.n && self.key_id == other.key_id
    }
}

impl<const L: usize, const B: usize> Eq for RsaPublicKey<L, B> {}

impl<const L: usize, const B: usize> fmt::Debug for RsaPublicKey<L, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "RsaPublicKey<{}> {{ key_id: {:?} }}", B * 8, crate::hex::Hex(&self.key_id))
    }
}

const fn spki_len(alg_len: usize, b: usize) -> usize {
    let int = b + 1; // leading zero: the top bit of n is set
    let rsa_body = header_len(int) + int + 2 + E_BYTES.len();
    let rsa = header_len(rsa_body) + rsa_body;
    let bits = 1 + rsa;
    let body = alg_len + header_len(bits) + bits;
    header_len(body) + body
}

/// An RSA private key in CRT form (RFC 8017 §3.2, second representation): the
/// primes p and q of `4·H` bytes each (`H` limbs), dP, dQ and qInv.
///
/// Use the aliases [`SecretKey`] (RSA-2048) and [`SecretKey4096`]. Not `Copy`,
/// zeroized on drop, and its `Debug` prints only the type name. The private
/// operation is constant time.
pub struct RsaSecretKey<const L: usize, const H: usize, const B: usize> {
    pub(super) public: RsaPublicKey<L, B>,
    pub(super) p: FixedMontyParams<H>,
    pub(super) q: FixedMontyParams<H>,
    pub(super) d_p: Uint<H>,
    pub(super) d_q: Uint<H>,
    pub(super) q_inv: Uint<H>,
    /// R³ mod p and R³ mod q (R = 2^(64·H) on 64-bit targets): one Montgomery
    /// product with them turns m·R⁻¹ into the Montgomery form m·R.
    pub(super) r3_p: Uint<H>,
    pub(super) r3_q: Uint<H>,
    /// The IFMA kernel's conversion constants for p and q (`monty_ifma`).
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    pub(super) ifma: [monty_ifma::PrimeConsts<H>; 2],
    /// The AVX2 kernel's conversion constants for p and q (`monty_avx2`).
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    pub(super) avx2: [monty_avx2::PrimeConsts<H>; 2],
}

/// The RSA-2048 private key of a Privacy Pass token type 0x0002 issuer (RFC 9578 §6).
pub type SecretKey = RsaSecretKey<{ U2048::LIMBS }, { U1024::LIMBS }, 256>;
/// An RSA-4096 private key (RFC 9474 Appendix A).
pub type SecretKey4096 = RsaSecretKey<{ U4096::LIMBS }, { U2048::LIMBS }, 512>;

impl<const L: usize, const H: usize, const B: usize> fmt::Debug for RsaSecretKey<L, H, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("RsaSecretKey")
    }
}

impl<const L: usize, const H: usize, const B: usize> Drop for RsaSecretKey<L, H, B> {
    fn drop(&mut self) {
        self.p.zeroize();
        self.q.zeroize();
        self.d_p.zeroize();
        self.d_q.zeroize();
        self.q_inv.zeroize();
        self.r3_p.zeroize();
        self.r3_q.zeroize();
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        for c in &mut self.ifma {
            c.zeroize();
        }
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        for c in &mut self.avx2 {
            c.zeroize();
        }
    }
}

impl<const L: usize, const H: usize, const B: usize> ZeroizeOnDrop for RsaSecretKey<L, H, B> {}

/// Secret integers parsed or derived while building a key; wiped on drop.
/// Passed by reference, so that no move leaves a copy of it behind.
#[derive(Zeroize, ZeroizeOnDrop)]
struct Crt<const L: usize, const H: usize> {
    d: Uint<L>,
    p: Uint<H>,
    q: Uint<H>,
    d_p: Uint<H>,
    d_q: Uint<H>,
    q_inv: Uint<H>,
}

impl<const L: usize, const H: usize> Crt<L, H> {
    const fn zero() -> Self {
        Self { d: Uint::ZERO, p: Uint::ZERO, q: Uint::ZERO, d_p: Uint::ZERO, d_q: Uint::ZERO, q_inv: Uint::ZERO }
    }
}

impl<const L: usize, const H: usize, const B: usize> RsaSecretKey<L, H, B> {
    /// The matching public key (RFC 8017 §3.1).
    pub const fn public_key(&self) -> &RsaPublicKey<L, B> {
        &self.public
    }

    /// Marks p, q (with their Montgomery parameters), dP, dQ, qInv and R³ mod p, q as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(&self.p);
        crate::ct::poison(&self.q);
        crate::ct::poison(&self.d_p);
        crate::ct::poison(&self.d_q);
        crate::ct::poison(&self.q_inv);
        crate::ct::poison(&self.r3_p);
        crate::ct::poison(&self.r3_q);
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        crate::ct::poison(&self.ifma);
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        crate::ct::poison(&self.avx2);
    }

    /// Parses a DER PKCS#8 `PrivateKeyInfo` (RFC 5208 §5, version 0, algorithm
    /// rsaEncryption with NULL parameters, no attributes) wrapping a two-prime
    /// `RSAPrivateKey` (RFC 8017 §A.1.2, version 0).
    ///
    /// Checks e = 65537, that n has `8·B` bits, and that the key is consistent:
    /// p·q = n, qInv·q ≡ 1 (mod p), dP = d mod (p−1), dQ = d mod (q−1),
    /// e·dP ≡ 1 (mod p−1) and e·dQ ≡ 1 (mod q−1). The DER structure is parsed in
    /// variable time; the consistency checks on the secret integers are constant
    /// time and only their combined result is branched on.
    pub fn from_pkcs8_der(der: &[u8]) -> Result<Self> {
        let key = der::parse_pkcs8(der)?;
        if key.public_exponent.as_bytes() != E_BYTES {
            return Err(Error::InvalidKey);
        }
        // The `UintRef`s borrow from `der`; this is the only copy, wiped on
        // drop. Filled field by field, so that an early return after the
        // first fields still wipes them.
        let mut crt = Crt::zero();
        crt.d = from_be::<L>(key.private_exponent.as_bytes()).ok_or(Error::InvalidKey)?;
        crt.p = from_be::<H>(key.prime1.as_bytes()).ok_or(Error::InvalidKey)?;
        crt.q = from_be::<H>(key.prime2.as_bytes()).ok_or(Error::InvalidKey)?;
        crt.d_p = from_be::<H>(key.exponent1.as_bytes()).ok_or(Error::InvalidKey)?;
        crt.d_q = from_be::<H>(key.exponent2.as_bytes()).ok_or(Error::InvalidKey)?;
        crt.q_inv = from_be::<H>(key.coefficient.as_bytes()).ok_or(Error::InvalidKey)?;
        Self::from_crt(key.modulus.as_bytes(), &crt)
    }

    /// Parses a PEM `-----BEGIN PRIVATE KEY-----` block (RFC 7468 §10, the
    /// strict grammar of §3 with any consistent line width) and then
    /// [`Self::from_pkcs8_der`]. The base64 decoding is constant time
    /// (`pem-rfc7468` over `base64ct`) and writes into a 3 KiB stack buffer
    /// that is wiped afterwards; a larger body is
    /// [`Error::InvalidLength`]`(`[`Field::Key`]`)`.
    pub fn from_pkcs8_pem(pem: &str) -> Result<Self> {
        let mut buf = Zeroizing::new([0u8; der::MAX_PKCS8_LEN]);
        Self::from_pkcs8_der(der::decode_pem(pem, buf.as_mut_slice())?)
    }

    /// Builds a key from n, e, d, p and q (big-endian, RFC 8017 §3.2),
    /// deriving dP = d mod (p−1), dQ = d mod (q−1) and qInv = q⁻¹ mod p in
    /// constant time, then running the checks of [`Self::from_pkcs8_der`].
    /// Leading zero bytes are allowed; stripping them is the only step whose
    /// time depends on the inputs (on their byte lengths).
    pub fn from_components(n: &[u8], e: &[u8], d: &[u8], p: &[u8], q: &[u8]) -> Result<Self> {
        if strip(e) != E_BYTES {
            return Err(Error::InvalidKey);
        }
        let mut crt = Crt::zero();
        crt.d = from_be::<L>(strip(d)).ok_or(Error::InvalidKey)?;
        crt.p = from_be::<H>(strip(p)).ok_or(Error::InvalidKey)?;
        crt.q = from_be::<H>(strip(q)).ok_or(Error::InvalidKey)?;
        // Every copy of a secret below is wiped when it goes out of scope, on
        // the error paths too.
        let p_odd = Zeroizing::new(odd(crt.p)?);
        let q_odd = Zeroizing::new(odd(crt.q)?);
        let p_minus_1 = Zeroizing::new(minus_one(&crt.p)?);
        let q_minus_1 = Zeroizing::new(minus_one(&crt.q)?);
        crt.d_p = crt.d.rem(&p_minus_1);
        crt.d_q = crt.d.rem(&q_minus_1);
        let p_params = Zeroizing::new(FixedMontyParams::new(*p_odd));
        let q_reduced = Zeroizing::new(q_odd.rem(p_params.modulus().as_nz_ref()));
        let q_mod_p = Zeroizing::new(FixedMontyForm::new(&q_reduced, &p_params));
        let q_inv = Zeroizing::new(q_mod_p.invert().into_option().ok_or(Error::InvalidKey)?);
        crt.q_inv = q_inv.retrieve();
        Self::from_crt(strip(n), &crt)
    }

    fn from_crt(n: &[u8], crt: &Crt<L, H>) -> Result<Self> {
        let () = Sizes::<L, H, B>::HALVES;
        let public = RsaPublicKey::<L, B>::from_modulus(n)?;
        // Every copy of a secret below is wiped when it goes out of scope, on
        // the error paths too.
        let p_odd = Zeroizing::new(odd(crt.p)?);
        let q_odd = Zeroizing::new(odd(crt.q)?);
        let p_minus_1 = Zeroizing::new(minus_one(&crt.p)?);
        let q_minus_1 = Zeroizing::new(minus_one(&crt.q)?);

        // p·q = n (and therefore p, q > 1 since both have at most B/2 bytes).
        // The product is n, public.
        let (lo, hi) = crt.p.widening_mul(&crt.q);
        let pq: Uint<L> = lo.concat_resize(&hi);
        let mut ok = pq.ct_eq(public.params().modulus().as_ref());
        ok &= !crt.p.ct_eq(&crt.q);

        // The CRT exponents: reduced, equal to d mod (p−1) / (q−1), inverse of e.
        let e = Uint::<H>::from_u32(PUBLIC_EXPONENT);
        for (d_x, x_minus_1) in [(&crt.d_p, &*p_minus_1), (&crt.d_q, &*q_minus_1)] {
            ok &= d_x.ct_lt(x_minus_1.as_ref());
            let reduced = Zeroizing::new(crt.d.rem(x_minus_1));
            ok &= reduced.ct_eq(d_x);
            let mut wide = d_x.widening_mul(&e);
            let inverse_check = Zeroizing::new(Uint::rem_wide(wide, x_minus_1));
            wide.0.zeroize();
            wide.1.zeroize();
            ok &= inverse_check.ct_eq(&Uint::ONE);
        }

        // qInv·q ≡ 1 (mod p), qInv < p.
        let p_params = Zeroizing::new(FixedMontyParams::new(*p_odd));
        let q_params = Zeroizing::new(FixedMontyParams::new(*q_odd));
        ok &= crt.q_inv.ct_lt(p_odd.as_ref());
        let q_mod_p = Zeroizing::new(crt.q.rem(p_params.modulus().as_nz_ref()));
        let q_mont = Zeroizing::new(FixedMontyForm::new(&q_mod_p, &p_params));
        let q_inv_mont = Zeroizing::new(FixedMontyForm::new(&crt.q_inv, &p_params));
        let one = Zeroizing::new(q_mont.mul(&q_inv_mont).retrieve());
        ok &= one.ct_eq(&Uint::ONE);

        if !bool::from(ok) {
            return Err(Error::InvalidKey);
        }
        // Per-key constants of the private operation: R³ = (R²)²·R⁻¹.
        let r3_p = monty::mul(p_params.r2(), p_params.r2(), &p_params);
        let r3_q = monty::mul(q_params.r2(), q_params.r2(), &q_params);
        Ok(Self {
            public,
            p: *p_params,
            q: *q_params,
            d_p: crt.d_p,
            d_q: crt.d_q,
            q_inv: crt.q_inv,
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            ifma: [monty_ifma::PrimeConsts::new(&p_params, &r3_p), monty_ifma::PrimeConsts::new(&q_params, &r3_q)],
            #[cfg(all(target_arch = "x86_64", feature = "std"))]
            avx2: [monty_avx2::PrimeConsts::new(&p_params, &r3_p), monty_avx2::PrimeConsts::new(&q_params, &r3_q)],
            r3_p,
            r3_q,
        })
    }

    /// RSASP1 (RFC 8017 §5.1.2) with CRT and Garner's recombination, for
    /// `m < n`: returns `m^d mod n`. Constant time in `m` and in the key.
    ///
    /// All modular arithmetic uses [`monty`] and the per-key constants R² (in
    /// `FixedMontyParams`) and R³ (`r3_p`, `r3_q`), with R = 2^(bits of p):
    ///
    /// 1. m mod p in Montgomery form without a division: REDC(m) = m·R⁻¹ mod p
    ///    (valid because m < n < p·R), then one product with R³ mod p gives
    ///    m·R mod p. Same for q.
    /// 2. s_p = (m mod p)^dP and s_q = (m mod q)^dQ with the 5-bit fixed-window
    ///    [`monty::pow`] over all bits of dP and dQ, or both at once with the
    ///    AVX-512 IFMA kernel where the CPU has it, else with the AVX2 kernel
    ///    where it has that (`kernel`, `monty_ifma`, `monty_avx2`: the same
    ///    values); s_p stays in Montgomery form, s_q is brought out
    ///    with one REDC.
    /// 3. Garner: the product of s_q (< q < R) with R² mod p is s_q·R mod p,
    ///    the Montgomery form of s_q mod p; subtracting it from s_p·R and
    ///    multiplying by the *plain* qInv yields the plain
    ///    h = qInv·(s_p − s_q) mod p with no conversion back.
    /// 4. s = s_q + q·h < n.
    ///
    /// The instruction counts and times of each step of this design, with
    /// the commands, are in `docs/reports/2026-12-01-crypto-design-measurements.md`.
    pub(crate) fn rsasp1_crt(&self, m: &Uint<L>) -> Uint<L> {
        self.rsasp1_crt_with(m, &self.d_p, &self.d_q)
    }

    /// [`Self::rsasp1_crt`] with other CRT exponents `d_p` < p − 1 and
    /// `d_q` < q − 1 (those of a partially blind RSA derived key, `partial`):
    /// `m^d mod n` for the d with d ≡ `d_p` (mod p − 1), d ≡ `d_q` (mod q − 1).
    pub(crate) fn rsasp1_crt_with(&self, m: &Uint<L>, d_p: &Uint<H>, d_q: &Uint<H>) -> Uint<L> {
        let (mut s_p, mut s_q_mont) = self.half_powers(m, d_p, d_q);
        let mut s_q = monty::redc::<H, L>(&s_q_mont.resize::<L>(), &self.q);
        // h = qInv·(s_p − s_q) mod p, from Montgomery forms to a plain value.
        let mut s_q_mod_p = monty::mul(&s_q, self.p.r2(), &self.p);
        let mut diff = s_p.sub_mod(&s_q_mod_p, self.p.modulus().as_nz_ref());
        let mut h = monty::mul(&diff, &self.q_inv, &self.p);
        // s = s_q + q·h < q + q·(p − 1) = n.
        let (lo, hi) = h.widening_mul(self.q.modulus().as_ref());
        let qh: Uint<L> = lo.concat_resize(&hi);
        let s = qh.wrapping_add(&s_q.resize::<L>());
        for x in [&mut s_p, &mut s_q_mont, &mut s_q, &mut s_q_mod_p, &mut diff, &mut h] {
            x.zeroize();
        }
        s
    }

    /// The fault check of a CRT signature for an exponent `e` of at most
    /// `H` limbs, computed with the primes: whether s^e ≡ m (mod p) and
    /// s^e ≡ m (mod q), which together are s^e ≡ m (mod n). For s, m < n.
    ///
    /// Two half-size powers, about the cost of the signature itself, where
    /// the check modulo n with a half-size exponent (partially blind RSA's
    /// e′) costs about twice as much. Constant time in p and q; the returned
    /// verdict depends on them and must be declassified before it is
    /// branched on.
    pub(crate) fn crt_power_matches(&self, s: &Uint<L>, m: &Uint<L>, e: &Uint<H>) -> Choice {
        let mut ok = Choice::from(1);
        let (mut lhs_p, mut lhs_q) = self.half_powers(s, e, e);
        for ((x, r3), lhs) in [(&self.p, &self.r3_p), (&self.q, &self.r3_q)].into_iter().zip([&mut lhs_p, &mut lhs_q]) {
            let mut m_reduced = monty::redc::<H, L>(m, x);
            let mut rhs = monty::mul(&m_reduced, r3, x);
            ok &= lhs.ct_eq(&rhs);
            for v in [lhs, &mut m_reduced, &mut rhs] {
                v.zeroize();
            }
        }
        ok
    }

    /// The fault check of an RSA-2048 signature, s^65537 ≡ m (mod n) for
    /// s, m < n, computed modulo p and q with the IFMA or AVX2 kernel (about
    /// a quarter of the cost of the check modulo n): `None` when neither is
    /// in use or the primes are not 1024-bit, and the caller checks
    /// modulo n. Constant time; the verdict depends on p and q and must be
    /// declassified before it is branched on.
    pub(crate) fn fault_check_65537(&self, s: &Uint<L>, m: &Uint<L>) -> Option<Choice> {
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        let simd = (kernel::ifma(), kernel::avx2());
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        if simd.0.is_some() || simd.1.is_some() {
            let mut reduced = [monty::redc::<H, L>(s, &self.p), monty::redc::<H, L>(s, &self.q)];
            let (x, pq) = ([&reduced[0], &reduced[1]], [&self.p, &self.q]);
            let powers = match simd {
                (Some(ifma), _) => monty_ifma::pow_65537_pair(ifma, x, pq, [&self.ifma[0], &self.ifma[1]]),
                (None, Some(avx2)) => monty_avx2::pow_65537_pair(avx2, x, pq, [&self.avx2[0], &self.avx2[1]]),
                (None, None) => None,
            };
            reduced.zeroize();
            let [mut lhs_p, mut lhs_q] = powers?;
            // m·R mod p and mod q (R = 2^(64·H)): REDC, then a product with R³.
            let mut reduced = [monty::redc::<H, L>(m, &self.p), monty::redc::<H, L>(m, &self.q)];
            let mut m_p = monty::mul(&reduced[0], &self.r3_p, &self.p);
            let mut m_q = monty::mul(&reduced[1], &self.r3_q, &self.q);
            let ok = lhs_p.ct_eq(&m_p) & lhs_q.ct_eq(&m_q);
            reduced.zeroize();
            for v in [&mut lhs_p, &mut lhs_q, &mut m_p, &mut m_q] {
                v.zeroize();
            }
            return Some(ok);
        }
        let _ = (s, m);
        None
    }

    /// (m mod p)^d_p·R mod p and (m mod q)^d_q·R mod q for m < n, in
    /// Montgomery form: with the IFMA or AVX2 kernel when one is in use and the primes
    /// are 1024-bit, otherwise with [`monty::pow`] one after the other.
    fn half_powers(&self, m: &Uint<L>, d_p: &Uint<H>, d_q: &Uint<H>) -> (Uint<H>, Uint<H>) {
        let mut reduced = [monty::redc::<H, L>(m, &self.p), monty::redc::<H, L>(m, &self.q)];
        #[cfg(all(target_arch = "x86_64", feature = "std"))]
        {
            let (x, pq) = ([&reduced[0], &reduced[1]], [&self.p, &self.q]);
            let powers = match (kernel::ifma(), kernel::avx2()) {
                (Some(ifma), _) => monty_ifma::pow_pair(ifma, x, [d_p, d_q], pq, [&self.ifma[0], &self.ifma[1]]),
                (None, Some(avx2)) => monty_avx2::pow_pair(avx2, x, [d_p, d_q], pq, [&self.avx2[0], &self.avx2[1]]),
                (None, None) => None,
            };
            if let Some([s_p, s_q]) = powers {
                reduced.zeroize();
                return (s_p, s_q);
            }
        }
        let mut out = [Uint::ZERO; 2];
        for (((o, x), (r3, d_x)), reduced) in
            out.iter_mut().zip([&self.p, &self.q]).zip([(&self.r3_p, d_p), (&self.r3_q, d_q)]).zip(&reduced)
        {
            let mut base = monty::mul(reduced, r3, x);
            *o = monty::pow::<H, L, { monty::WINDOW_TABLE }>(&base, d_x, x);
            base.zeroize();
        }
        reduced.zeroize();
        let [s_p, s_q] = out;
        (s_p, s_q)
    }
}

fn odd<const H: usize>(x: Uint<H>) -> Result<Odd<Uint<H>>> {
    Odd::new(x).into_option().ok_or(Error::InvalidKey)
}

fn minus_one<const H: usize>(x: &Uint<H>) -> Result<NonZero<Uint<H>>> {
    NonZero::new(x.wrapping_sub(&Uint::ONE)).into_option().ok_or(Error::InvalidKey)
}

/// `Choice` helper for callers in this module.
pub(crate) fn choice(c: crypto_bigint::Choice) -> Choice {
    c.into()
}

/// Drops leading zero bytes (the components of RFC 9474 Appendix A are printed
/// with them).
fn strip(x: &[u8]) -> &[u8] {
    let zeros = x.iter().take_while(|b| **b == 0).count();
    x.get(zeros..).unwrap_or_default()
}

// The wire layer sizes header buffers for the longest token key without
// depending on this module.
// The longest accepted spelling: two NULL parameters of 2 bytes each (der.rs).
const _: () = assert!(PublicKey::SPKI_LEN + 4 == crate::wire::auth::MAX_TOKEN_KEY_LEN);

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use ::der::Encode;

    use super::*;

    #[test]
    fn algorithm_identifiers_match_the_crates() {
        let mut out = [0u8; 80];
        assert_eq!(der::RSASSA_PSS.encode_to_slice(&mut out).unwrap().len(), PSS_ALGORITHM_ID_LEN);
        // rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters (RFC 8017 §A.1).
        let rsa_encryption = [0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00];
        assert_eq!(der::RSA_ENCRYPTION.encode_to_slice(&mut out).unwrap(), rsa_encryption);
    }

    #[test]
    fn spki_lengths() {
        assert_eq!(PublicKey::SPKI_LEN, 342);
        assert_eq!(PublicKey4096::SPKI_LEN, 598);
    }
}
