//! RSA-2048 issuer key generation (feature `keygen`), with `crypto-primes`.
//!
//! p and q are random 1024-bit primes (Miller–Rabin base 2 plus the strong
//! Lucas test, as `crypto-primes` recommends), retried until n = p·q has
//! exactly 2048 bits, p ≠ q and e = 65537 is invertible modulo p−1 and q−1.
//! The private exponent is d = e⁻¹ mod (p−1)(q−1); the key then goes through
//! the same consistency checks as a parsed key.

use crypto_bigint::{NonZero, U1024, U2048, Uint};
use crypto_primes::{Flavor, random_prime};
use rand_core::CryptoRng;
use zeroize::{Zeroize, Zeroizing};

use der::Encode as _;
use der::asn1::{OctetStringRef, UintRef};
use pkcs1::RsaPrivateKeyRef;
use pkcs8::PrivateKeyInfoRef;

use super::der::RSA_ENCRYPTION;
use super::key::{PUBLIC_EXPONENT, SecretKey};
use super::uint::to_be;
use crate::error::{Error, Result, RngCode};

/// `x^k mod m` for small public `k`, `m < 2^32`: square-and-multiply over the
/// bits of the public exponent, so the time does not depend on `x`.
fn pow_mod_u64(x: u64, k: u64, m: u64) -> u64 {
    let mut acc = 1u64;
    for i in (0..u64::BITS - k.leading_zeros()).rev() {
        acc = acc * acc % m;
        let mul = acc * x % m;
        // Select without branching on the secret accumulator.
        let bit = (k >> i) & 1;
        acc = mul * bit + acc * (1 - bit);
    }
    acc
}

/// `e⁻¹ mod m` for the public prime e = 65537 and an even `m` with gcd(e, m) = 1:
/// d = (1 + k·m) / e with k = −m⁻¹ mod e. `None` if e divides m.
fn invert_e_mod(m: &U2048) -> Option<Zeroizing<U2048>> {
    let e = u64::from(PUBLIC_EXPONENT);
    let e_nz = NonZero::new(U2048::from_u64(e)).into_option()?;
    // A limb is a u32 on 32-bit targets, hence the conversion.
    #[allow(clippy::useless_conversion)]
    let m_mod_e = m.rem(&e_nz).as_words().first().copied().map(u64::from)?;
    if m_mod_e == 0 {
        return None;
    }
    // Fermat: m⁻¹ ≡ m^(e−2) (mod e).
    let k = (e - pow_mod_u64(m_mod_e, e - 2, e)) % e;
    // m = φ(n) is secret: every intermediate is wiped.
    let mut km = m.widening_mul(&U2048::from_u64(k));
    let one_plus_km: Zeroizing<Uint<{ U2048::LIMBS * 2 }>> =
        Zeroizing::new(km.0.concat_resize(&km.1).wrapping_add(&Uint::ONE));
    km.0.zeroize();
    km.1.zeroize();
    let (mut d, _) = one_plus_km.div_rem(&NonZero::new(Uint::<{ U2048::LIMBS * 2 }>::from_u64(e)).into_option()?);
    let out = Zeroizing::new(d.resize());
    d.zeroize();
    Some(out)
}

/// φ(n) = (p − 1)·(q − 1), with every intermediate wiped.
fn phi(p: &U1024, q: &U1024) -> Zeroizing<U2048> {
    let p1 = Zeroizing::new(p.wrapping_sub(&U1024::ONE));
    let q1 = Zeroizing::new(q.wrapping_sub(&U1024::ONE));
    let mut halves = p1.widening_mul(&q1);
    let phi = Zeroizing::new(halves.0.concat(&halves.1));
    halves.0.zeroize();
    halves.1.zeroize();
    phi
}

impl SecretKey {
    /// Generates a fresh RSA-2048 key with e = 65537 (RFC 8017 §3). Takes a
    /// few hundred milliseconds to seconds. Never use a key for anything but
    /// Privacy Pass token issuance (RFC 9474 §7.6).
    pub fn generate<R: CryptoRng + ?Sized>(rng: &mut R) -> Result<Self> {
        Self::generate_flavor(rng, Flavor::Any)
    }

    /// Generates a fresh RSA-2048 key whose primes are safe primes (p = 2p′ + 1
    /// with p′ prime), as partially blind RSA requires of the key of token
    /// type 0xDA7A (draft-irtf-cfrg-partially-blind-rsa §4.1;
    /// [`crate::crypto::blind_rsa::partial`]). Much slower than [`Self::generate`]:
    /// safe primes are rare (see docs/reports/2026-12-01-performance.md for measured times).
    /// Never use the key for anything else, type 0x0002 included
    /// (draft §5.2).
    pub fn generate_safe<R: CryptoRng + ?Sized>(rng: &mut R) -> Result<Self> {
        Self::generate_flavor(rng, Flavor::Safe)
    }

    fn generate_flavor<R: CryptoRng + ?Sized>(rng: &mut R, flavor: Flavor) -> Result<Self> {
        // A handful of attempts suffices (most fail only the 2048-bit check);
        // the bound keeps a broken RNG from looping forever.
        for _ in 0..64 {
            let p = Zeroizing::new(random_prime::<U1024, R>(rng, flavor, 1024));
            let q = Zeroizing::new(random_prime::<U1024, R>(rng, flavor, 1024));
            let (lo, hi) = p.widening_mul(&q);
            let n: U2048 = lo.concat(&hi);
            if n.bit_width_vartime() != 2048 || p == q {
                continue; // public facts about a rejected candidate
            }
            let phi = phi(&p, &q);
            let Some(d) = invert_e_mod(&phi) else { continue };
            let mut nb = [0u8; 256];
            let mut db = Zeroizing::new([0u8; 256]);
            let mut pb = Zeroizing::new([0u8; 128]);
            let mut qb = Zeroizing::new([0u8; 128]);
            to_be(&n, &mut nb);
            to_be(&*d, db.as_mut_slice());
            to_be(&*p, pb.as_mut_slice());
            to_be(&*q, qb.as_mut_slice());
            return Self::from_components(
                &nb,
                &PUBLIC_EXPONENT.to_be_bytes(),
                db.as_slice(),
                pb.as_slice(),
                qb.as_slice(),
            );
        }
        Err(Error::Rng(RngCode::EXHAUSTED))
    }
}

/// A DER `INTEGER` view of a non-negative big-endian value (leading zeros
/// dropped by `der`).
fn uint(be: &[u8]) -> Result<UintRef<'_>> {
    UintRef::new(be).map_err(|_| Error::InvalidKey)
}

/// The largest PKCS#8 encoding of an RSA-2048 key.
pub const PKCS8_MAX_LEN: usize = 1280;

/// The largest PEM form of [`PKCS8_MAX_LEN`] DER bytes: base64 (4 per 3),
/// a newline per 64 columns, and the two 28- and 26-byte boundary lines.
pub const PKCS8_PEM_MAX_LEN: usize = PKCS8_MAX_LEN.div_ceil(3) * 4 * 65 / 64 + 1 + 28 + 26;

impl SecretKey {
    /// Encodes the key as a DER PKCS#8 `PrivateKeyInfo` (RFC 5208 §5) wrapping
    /// an `RSAPrivateKey` (RFC 8017 §A.1.2), the form [`SecretKey::from_pkcs8_der`]
    /// reads, with the `pkcs1` and `pkcs8` encoders. The private exponent d = e⁻¹ mod (p−1)(q−1) is recomputed. Write
    /// into a buffer you wipe afterwards (e.g. `Zeroizing<[u8; PKCS8_MAX_LEN]>`).
    pub fn to_pkcs8_der(&self, out: &mut [u8]) -> Result<usize> {
        let p = Zeroizing::new(self.p.modulus().get());
        let q = Zeroizing::new(self.q.modulus().get());
        let d = invert_e_mod(&phi(&p, &q)).ok_or(Error::InvalidKey)?;
        let mut secrets = Zeroizing::new([[0u8; 256]; 6]);
        let [db, pb, qb, dpb, dqb, qib] = &mut *secrets;
        to_be(&*d, db);
        // The 1024-bit values go right-aligned into 256-byte buffers.
        for (value, buf) in [(&*p, &mut *pb), (&*q, qb), (&self.d_p, dpb), (&self.d_q, dqb), (&self.q_inv, qib)] {
            to_be(value, buf.get_mut(128..).ok_or(Error::BufferTooSmall)?);
        }
        let e = PUBLIC_EXPONENT.to_be_bytes();
        let key = RsaPrivateKeyRef {
            modulus: uint(self.public.modulus())?,
            public_exponent: uint(&e)?,
            private_exponent: uint(db)?,
            prime1: uint(pb)?,
            prime2: uint(qb)?,
            exponent1: uint(dpb)?,
            exponent2: uint(dqb)?,
            coefficient: uint(qib)?,
            other_prime_infos: None,
        };
        // The RSAPrivateKey goes into a wiped buffer, then into the
        // PrivateKeyInfo's OCTET STRING.
        let mut inner = Zeroizing::new([0u8; PKCS8_MAX_LEN]);
        let inner = key.encode_to_slice(&mut *inner).map_err(|_| Error::InvalidKey)?;
        let info = PrivateKeyInfoRef {
            algorithm: RSA_ENCRYPTION,
            private_key: OctetStringRef::new(inner).map_err(|_| Error::InvalidKey)?,
            public_key: None,
        };
        let len = info.encoded_len().ok().and_then(|l| usize::try_from(l).ok()).ok_or(Error::InvalidKey)?;
        let out = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
        Ok(info.encode_to_slice(out).map_err(|_| Error::BufferTooSmall)?.len())
    }

    /// [`SecretKey::to_pkcs8_der`] in a PEM `PRIVATE KEY` block (RFC 7468
    /// §10; 64-column lines, LF endings), the form
    /// [`SecretKey::from_pkcs8_pem`] reads. `out` needs [`PKCS8_PEM_MAX_LEN`]
    /// bytes at most ([`Error::BufferTooSmall`]); wipe it afterwards.
    pub fn to_pkcs8_pem<'o>(&self, out: &'o mut [u8]) -> Result<&'o str> {
        let mut der = Zeroizing::new([0u8; PKCS8_MAX_LEN]);
        let n = self.to_pkcs8_der(&mut *der)?;
        let der = der.get(..n).ok_or(Error::BufferTooSmall)?;
        pem_rfc7468::encode("PRIVATE KEY", pem_rfc7468::LineEnding::LF, der, out).map_err(|_| Error::BufferTooSmall)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pow_mod_small() {
        assert_eq!(pow_mod_u64(3, 65535, 65537) * 3 % 65537, 1);
        assert_eq!(pow_mod_u64(2, 10, 1_000_000), 1024);
    }

    #[test]
    fn invert_e() {
        let m = U2048::from_u64(2 * 3 * 5 * 7 * 11 * 13);
        let d = invert_e_mod(&m).unwrap_or_else(|| Zeroizing::new(U2048::ZERO));
        let (lo, _) = d.widening_mul(&U2048::from_u32(PUBLIC_EXPONENT));
        assert_eq!(lo.rem(&NonZero::new(m).unwrap()), U2048::ONE);
        assert!(invert_e_mod(&U2048::from_u64(65537 * 2)).is_none());
    }

    #[cfg(feature = "std")]
    #[test]
    fn generated_key_signs_and_verifies() {
        let mut rng = rand_core::UnwrapErr(getrandom::SysRng);
        let sk = SecretKey::generate(&mut rng).unwrap();
        let pk = sk.public_key();
        let msg = b"generated key";
        let (blinded, state) = crate::crypto::blind_rsa::blind(pk, msg, &mut rng).unwrap();
        let blind_sig = crate::crypto::blind_rsa::blind_sign(&sk, &blinded).unwrap();
        let sig = crate::crypto::blind_rsa::finalize(pk, msg, &state, &blind_sig).unwrap();
        crate::crypto::blind_rsa::verify(pk, msg, &sig).unwrap();
        assert_eq!(crate::crypto::blind_rsa::PublicKey::from_spki(&pk.to_spki_array()).unwrap().key_id(), pk.key_id());
        let mut der = [0u8; PKCS8_MAX_LEN];
        let n = sk.to_pkcs8_der(&mut der).unwrap();
        let again = SecretKey::from_pkcs8_der(&der[..n]).unwrap();
        assert_eq!(again.public_key(), pk);
        let blind_sig2 = crate::crypto::blind_rsa::blind_sign(&again, &blinded).unwrap();
        assert_eq!(blind_sig2, blind_sig);
    }
}
