//! ATHM keys and the public key's proof (draft-yun-cfrg-athm-00 §4.1).

use core::fmt;

use p256::elliptic_curve::Field as _;
use p256::elliptic_curve::ops::LinearCombination;
use p256::{ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use super::hash::{Params, Transcript, mul_g, random_nonzero_scalar, random_scalar};
use crate::crypto::arc::group::{Elem, NE, NS, decode_scalar, encode_scalar, generator_g};
use crate::error::{Error, Result};

/// The issuer's private key (x, y, z, r_x, r_y), with y and z not zero.
pub struct PrivateKey {
    pub(crate) x: Scalar,
    pub(crate) y: Scalar,
    pub(crate) z: Scalar,
    pub(crate) r_x: Scalar,
    pub(crate) r_y: Scalar,
}

impl Drop for PrivateKey {
    fn drop(&mut self) {
        self.x.zeroize();
        self.y.zeroize();
        self.z.zeroize();
        self.r_x.zeroize();
        self.r_y.zeroize();
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
            & self.y.ct_eq(&other.y)
            & self.z.ct_eq(&other.z)
            & self.r_x.ct_eq(&other.r_x)
            & self.r_y.ct_eq(&other.r_y)
    }
}

impl PrivateKey {
    /// Length of [`to_bytes`](Self::to_bytes): x ‖ y ‖ z ‖ r_x ‖ r_y, as the
    /// reference code and its vectors write it (the draft defines none).
    pub const LEN: usize = 5 * NS;

    /// The encoding, wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<[u8; Self::LEN]> {
        let mut out = Zeroizing::new([0u8; Self::LEN]);
        for (chunk, s) in out.chunks_exact_mut(NS).zip([&self.x, &self.y, &self.z, &self.r_x, &self.r_y]) {
            let mut bytes = encode_scalar(s);
            chunk.copy_from_slice(&bytes);
            bytes.zeroize();
        }
        out
    }

    /// Decodes [`to_bytes`](Self::to_bytes): every scalar below the order
    /// (`InvalidScalar`), y and z not zero, and x and r_x not both zero
    /// (`InvalidKey`: C_x = x·G + r_x·H would be the identity, which no
    /// public key may hold), exactly [`LEN`](Self::LEN) bytes (`Truncated`,
    /// `TrailingBytes`).
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => return Err(Error::Truncated),
            n if n > Self::LEN => return Err(Error::TrailingBytes),
            _ => {}
        }
        let mut s = [Scalar::ZERO; 5];
        for (slot, chunk) in s.iter_mut().zip(bytes.chunks_exact(NS)) {
            *slot = decode_scalar(chunk)?;
        }
        let [x, y, z, r_x, r_y] = s;
        let key = Self { x, y, z, r_x, r_y };
        s.zeroize();
        let mut zero = key.y.is_zero() | key.z.is_zero() | (key.x.is_zero() & key.r_x.is_zero());
        crate::ct::declassify(&mut zero);
        if bool::from(zero) {
            return Err(Error::InvalidKey);
        }
        Ok(key)
    }

    /// Marks the secret memory as undefined for valgrind memcheck (the
    /// `ctgrind` harness only; see `ctgrind/`).
    #[cfg(pat_ctgrind)]
    #[doc(hidden)]
    pub fn ctgrind_poison(&self) {
        crate::ct::poison(self);
    }

    /// `KeyGen` (§4.1): x, y (not zero), z (not zero), r_x, r_y drawn in
    /// that order, then the public key and its proof (one more draw).
    pub fn generate<R: TryCryptoRng<Error: 'static> + ?Sized, const N: usize>(
        params: &Params<'_, N>,
        rng: &mut R,
    ) -> Result<(Self, PublicKey, PublicKeyProof)> {
        let x = random_scalar(rng)?;
        let y = random_nonzero_scalar(rng)?;
        let z = random_nonzero_scalar(rng)?;
        let r_x = random_scalar(rng)?;
        let r_y = random_scalar(rng)?;
        let key = Self { x, y, z, r_x, r_y };
        let public = key.public_key(params)?;
        let proof = key.prove(params, &public, rng)?;
        Ok((key, public, proof))
    }

    /// The public key (Z, C_x, C_y) = (z·G, x·G + r_x·H, y·G + r_y·H).
    pub fn public_key<const N: usize>(&self, params: &Params<'_, N>) -> Result<PublicKey> {
        let h = params.h.point;
        Ok(PublicKey {
            z: Elem::public(mul_g(&self.z))?,
            c_x: Elem::public(mul_g(&self.x) + h * self.r_x)?,
            c_y: Elem::public(mul_g(&self.y) + h * self.r_y)?,
        })
    }

    /// `CreatePublicKeyProof`: a Schnorr proof of knowledge of z.
    pub fn prove<R: TryCryptoRng<Error: 'static> + ?Sized, const N: usize>(
        &self,
        params: &Params<'_, N>,
        public: &PublicKey,
        rng: &mut R,
    ) -> Result<PublicKeyProof> {
        let mut rho = random_scalar(rng)?;
        let gamma = Elem::public(mul_g(&rho))?;
        let e = key_challenge(params, &public.z, &gamma);
        let mut a_z = rho - e * self.z;
        crate::ct::declassify(&mut a_z);
        rho.zeroize();
        Ok(PublicKeyProof { e, a_z })
    }
}

/// `e = HashToScalar(G ‖ Z ‖ gamma_z, "KeyCommitments")`.
fn key_challenge<const N: usize>(params: &Params<'_, N>, z: &Elem, gamma: &Elem) -> Scalar {
    let mut t = Transcript::new();
    t.element(&generator_g());
    t.element(z);
    t.element(gamma);
    t.challenge(params, b"KeyCommitments")
}

/// The issuer's public key (Z, C_x, C_y): 99 bytes, `Z ‖ C_x ‖ C_y`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKey {
    pub(crate) z: Elem,
    pub(crate) c_x: Elem,
    pub(crate) c_y: Elem,
}

impl PublicKey {
    /// Length of the encoding.
    pub const LEN: usize = 3 * NE;

    /// Decodes `Z ‖ C_x ‖ C_y`: three valid points, none the identity.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => return Err(Error::Truncated),
            n if n > Self::LEN => return Err(Error::TrailingBytes),
            _ => {}
        }
        let (z, rest) = bytes.split_at(NE);
        let (c_x, c_y) = rest.split_at(NE);
        Ok(Self { z: Elem::decode(z)?, c_x: Elem::decode(c_x)?, c_y: Elem::decode(c_y)? })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        for (chunk, e) in out.chunks_exact_mut(NE).zip([&self.z, &self.c_x, &self.c_y]) {
            chunk.copy_from_slice(&e.bytes);
        }
        out
    }

    /// `issuer_key_id` = SHA-256 of the 99-byte encoding
    /// (draft-yun-privacypass-athm-00 §3).
    pub fn key_id(&self) -> [u8; 32] {
        Sha256::digest(self.to_bytes()).into()
    }

    /// `VerifyPublicKeyProof`: the key a client may use, or `Verification`.
    pub fn verify<const N: usize>(&self, params: &Params<'_, N>, proof: &PublicKeyProof) -> Result<VerifiedPublicKey> {
        // Public values only: variable time.
        let gamma = Elem::public(ProjectivePoint::lincomb_vartime(&[
            (ProjectivePoint::GENERATOR, proof.a_z),
            (self.z.point, proof.e),
        ]))?;
        let e = key_challenge(params, &self.z, &gamma);
        if !bool::from(e.ct_eq(&proof.e)) {
            return Err(Error::Verification);
        }
        Ok(VerifiedPublicKey(*self))
    }
}

/// A public key whose proof verified: what the client issues against.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VerifiedPublicKey(pub(crate) PublicKey);

impl VerifiedPublicKey {
    /// The key.
    pub fn key(&self) -> &PublicKey {
        &self.0
    }
}

/// The public key's proof (e, a_z): 64 bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PublicKeyProof {
    pub(crate) e: Scalar,
    pub(crate) a_z: Scalar,
}

impl PublicKeyProof {
    /// Length of the encoding.
    pub const LEN: usize = 2 * NS;

    /// Decodes `e ‖ a_z`, two scalars below the order.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => return Err(Error::Truncated),
            n if n > Self::LEN => return Err(Error::TrailingBytes),
            _ => {}
        }
        let (e, a_z) = bytes.split_at(NS);
        Ok(Self { e: decode_scalar(e)?, a_z: decode_scalar(a_z)? })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        let (e, a_z) = out.split_at_mut(NS);
        e.copy_from_slice(&encode_scalar(&self.e));
        a_z.copy_from_slice(&encode_scalar(&self.a_z));
        out
    }
}
