//! The issuer's keys (draft-schlesinger-cfrg-act-01 §3.2): sk = x, pk = W =
//! x·G, and their CBOR (the reference code's: the private key as
//! `{1: x, 2: W}`, the public key as the byte string W).

use core::fmt;

use curve25519_dalek::Scalar;
use curve25519_dalek::ristretto::RistrettoPoint;
use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use super::cbor::{BSTR32_LEN, Reader, Writer, flat_len, read_flat, write_flat};
use super::group::{Elem, decode_scalar, random_scalar};
use crate::error::{Error, Result};

/// The issuer's private key x, with its public key.
pub struct PrivateKey {
    pub(crate) x: Scalar,
    pub(crate) public: PublicKey,
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.x.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for PrivateKey {}

impl fmt::Debug for PrivateKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PrivateKey").finish_non_exhaustive()
    }
}

impl ConstantTimeEq for PrivateKey {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.x.ct_eq(&other.x)
    }
}

impl PrivateKey {
    /// Length of [`to_cbor`](Self::to_cbor): `{1: x, 2: W}`.
    pub const CBOR_LEN: usize = flat_len(2);

    /// `KeyGen` (§3.2): x drawn (64 bytes reduced, one draw), W = x·G.
    pub fn generate<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        let x = random_scalar(rng)?;
        let w = Elem::new(RistrettoPoint::mul_base(&x))?;
        Ok(Self { x, public: PublicKey { w } })
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The CBOR `{1: x, 2: W}`, wiped when dropped.
    pub fn to_cbor(&self) -> Zeroizing<[u8; Self::CBOR_LEN]> {
        let mut out = Zeroizing::new([0u8; Self::CBOR_LEN]);
        let mut x = self.x.to_bytes();
        // The buffer has the exact length: this cannot fail.
        let _ = write_flat(&mut *out, &[&x, &self.public.w.bytes]);
        x.zeroize();
        out
    }

    /// Decodes [`to_cbor`](Self::to_cbor): x canonical (`InvalidScalar`), W
    /// a valid element (`InvalidElement`) equal to x·G (`InvalidKey`).
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let mut fields = read_flat::<2>(bytes)?;
        let [x, w] = &fields;
        let (x, w) = (decode_scalar(x), Elem::decode(w));
        fields.zeroize();
        let key = Self { x: x?, public: PublicKey { w: w? } };
        let mut ok = RistrettoPoint::mul_base(&key.x).compress().to_bytes().ct_eq(&key.public.w.bytes);
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            return Err(Error::InvalidKey);
        }
        Ok(key)
    }

    /// Marks the secret memory as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(&self.x);
    }
}

/// The issuer's public key W.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey {
    pub(crate) w: Elem,
}

impl PublicKey {
    /// Length of [`to_cbor`](Self::to_cbor): a 32-byte CBOR byte string.
    pub const CBOR_LEN: usize = BSTR32_LEN;

    /// The CBOR byte string W.
    pub fn to_cbor(&self) -> [u8; Self::CBOR_LEN] {
        let mut out = [0u8; Self::CBOR_LEN];
        let _ = Writer::new(&mut out).bstr32(&self.w.bytes);
        out
    }

    /// Decodes [`to_cbor`](Self::to_cbor): a valid element, not the identity.
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let mut r = Reader::new(bytes);
        let w = r.bstr32()?;
        r.finish()?;
        Ok(Self { w: Elem::decode(&w)? })
    }

    /// The encoding of W (32 bytes, RFC 9496).
    pub fn to_bytes(&self) -> [u8; 32] {
        self.w.bytes
    }

    /// Decodes the 32-byte encoding of W.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        let bytes: &[u8; 32] =
            bytes.try_into().map_err(|_| if bytes.len() < 32 { Error::Truncated } else { Error::TrailingBytes })?;
        Ok(Self { w: Elem::decode(bytes)? })
    }
}
