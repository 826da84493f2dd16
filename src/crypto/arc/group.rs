//! The ARC(P-256) group (draft-ietf-privacypass-arc-crypto-01 §6.1): NIST
//! P-256 from the RustCrypto `p256` crate, compressed SEC1 elements
//! (`Ne` = 33), big-endian scalars (`Ns` = 32), `HashToGroup` with
//! `P256_XMD:SHA-256_SSWU_RO_` and `HashToScalar` with `hash_to_field`
//! (L = 48, `expand_message_xmd` over SHA-256), both under the DST
//! `"HashTo…-" ‖ "ARCV1-P256" ‖ info`.
//!
//! Why this is not the VOPRF [`Suite`](crate::crypto::voprf::Suite): a
//! `Suite` is a whole RFC 9497 ciphersuite (context string, the suite's
//! hash as the PRF output, the DLEQ proof's size), sealed, and its P-384
//! arithmetic is pat's own Jacobian code with entry points shaped for the
//! VOPRF roles (`mul_serialize` encodes a batch with one inversion). ARC
//! needs a plain prime-order group: P-256 elements and scalars with their
//! encodings, hashing under ARC's DST, and constant-time linear combinations
//! over secret scalars for the sigma prover, which no `Suite` offers (its
//! linear combinations are variable time). Both already meet in RustCrypto's
//! `group` traits, which `p256` implements and this module builds on. A
//! trait beneath both (issue 32) would be a third layer over the
//! constant-time P-384 code that no family needs yet; it is left until a
//! family needs one group in both places.

use p256::elliptic_curve::array::Array;
use p256::elliptic_curve::consts::U48;
use p256::elliptic_curve::ops::Reduce;
use p256::elliptic_curve::point::{AffineCoordinates, DecompressPoint};
use p256::elliptic_curve::{Group, PrimeField};
use p256::hash2curve::{ExpandMsgXmd, hash_from_bytes, hash_to_scalar};
use p256::{AffinePoint, NistP256, ProjectivePoint, Scalar};
use sha2::Sha256;
use subtle::{Choice, ConstantTimeEq};

use crate::error::{Error, Field, Result};

/// Length of a serialized element (`Ne`).
pub const NE: usize = 33;
/// Length of a serialized scalar (`Ns`).
pub const NS: usize = 32;
/// The ciphersuite's `contextString`.
pub const CONTEXT_STRING: &[u8] = b"ARCV1-P256";

/// `SerializeElement(generatorH)`, where generatorH =
/// `HashToGroup(SerializeElement(generatorG), "generatorH")` (§3.1); the unit
/// test `generator_h_is_the_hash_of_g` derives it again.
pub(crate) const GENERATOR_H: [u8; NE] = [
    0x02, 0x2d, 0x47, 0xce, 0x5f, 0x78, 0x09, 0x2b, 0x3e, 0x2b, 0x05, 0x72, 0x28, 0xf4, 0x76, 0x92, 0xd5, 0x4f, 0xb6,
    0xb5, 0x54, 0xb1, 0xc1, 0xb1, 0xd5, 0xc9, 0x3e, 0xe3, 0x83, 0xb7, 0x84, 0x83, 0xdb,
];

/// `SerializeElement(generatorG)`, the compressed base point; the unit test
/// `constant_time_encoding_is_sec1_compressed` encodes G again.
pub(crate) const GENERATOR_G: [u8; NE] = [
    0x03, 0x6b, 0x17, 0xd1, 0xf2, 0xe1, 0x2c, 0x42, 0x47, 0xf8, 0xbc, 0xe6, 0xe5, 0x63, 0xa4, 0x40, 0xf2, 0x77, 0x03,
    0x7d, 0x81, 0x2d, 0xeb, 0x33, 0xa0, 0xf4, 0xa1, 0x39, 0x45, 0xd8, 0x98, 0xc2, 0x96,
];

/// generatorH's y coordinate (the even root, as the prefix 0x02 says).
const GENERATOR_H_Y: [u8; NS] = [
    0x6f, 0x7f, 0xb3, 0xab, 0x8b, 0x71, 0x66, 0x90, 0xa9, 0xa8, 0x34, 0x37, 0xc3, 0xb6, 0x25, 0x4b, 0x1e, 0x62, 0xe9,
    0xaf, 0xdf, 0x6d, 0x80, 0xb9, 0x91, 0xe2, 0xc7, 0x3e, 0xd8, 0x30, 0xa0, 0x0c,
];

/// An element with its serialization, as the proofs use both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Elem {
    pub(crate) point: ProjectivePoint,
    pub(crate) bytes: [u8; NE],
}

impl Elem {
    /// `DeserializeElement`: a compressed point on the curve (never the
    /// identity, which has no compressed form). Constant time in the bytes
    /// (the prefix and x are checked and y recovered without branching), so
    /// that a stored secret point, the credential's UPrime, imports without
    /// leaking; only the verdict is revealed.
    pub(crate) fn decode(bytes: &[u8]) -> Result<Self> {
        let (affine, bytes) = Self::decode_affine(bytes)?;
        Ok(Self { point: ProjectivePoint::from(affine), bytes })
    }

    /// [`decode`](Self::decode), giving the affine point (whose y a caller
    /// may keep, to rebuild the point with [`from_xy`](Self::from_xy)
    /// without a second square root).
    pub(crate) fn decode_affine(bytes: &[u8]) -> Result<(AffinePoint, [u8; NE])> {
        let bytes: [u8; NE] = bytes.try_into().map_err(|_| Error::InvalidElement)?;
        let (prefix, x) = bytes.split_at(1);
        let prefix = prefix.first().copied().unwrap_or(0);
        let x: [u8; NS] = x.try_into().map_err(|_| Error::InvalidElement)?;
        let affine = AffinePoint::decompress(&Array::from(x), Choice::from(prefix & 1));
        let mut ok = (prefix | 1).ct_eq(&0x03) & affine.is_some();
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            return Err(Error::InvalidElement);
        }
        Ok((affine.unwrap_or(AffinePoint::IDENTITY), bytes))
    }

    /// The element encoded as `bytes` whose y coordinate is `y`, as
    /// [`decode_affine`](Self::decode_affine) found it: the curve equation
    /// is checked (three multiplications), no square root is taken.
    pub(crate) fn from_xy(bytes: &[u8], y: &[u8; NS]) -> Result<Self> {
        let bytes: [u8; NE] = bytes.try_into().map_err(|_| Error::InvalidElement)?;
        let x: [u8; NS] = bytes.get(1..).and_then(|x| x.try_into().ok()).ok_or(Error::InvalidElement)?;
        let affine = AffinePoint::from_coordinates(&Array::from(x), &Array::from(*y));
        // The prefix must name y's parity, as a compressed encoding does.
        let prefix = bytes.first().copied().unwrap_or(0);
        let parity = affine.map(|a| a.y_is_odd().unwrap_u8()).unwrap_or(2);
        let mut ok = affine.is_some() & prefix.ct_eq(&(0x02 | parity));
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            return Err(Error::InvalidElement);
        }
        Ok(Self { point: ProjectivePoint::from(affine.unwrap_or(AffinePoint::IDENTITY)), bytes })
    }

    /// [`from_point`](Self::from_point) for a value the protocol sends or
    /// publishes: marked public for the constant-time harness.
    pub(crate) fn public(point: ProjectivePoint) -> Result<Self> {
        let mut e = Self::from_point(point)?;
        crate::ct::declassify(&mut e);
        Ok(e)
    }

    /// `SerializeElement` of a computed point, in constant time: the prefix
    /// is 0x02 plus y's parity as a value (SEC1's encoder in `sec1` branches
    /// on it), then x. The identity has no encoding in this group and is an
    /// error, the one verdict this reveals (for a point derived from secrets
    /// an event of probability about 2^-256).
    pub(crate) fn from_point(point: ProjectivePoint) -> Result<Self> {
        let mut identity = point.is_identity();
        crate::ct::declassify(&mut identity);
        if bool::from(identity) {
            return Err(Error::InvalidElement);
        }
        let affine = point.to_affine();
        let x = affine.x();
        let mut bytes = [0u8; NE];
        let (prefix, rest) = bytes.split_at_mut(1);
        if let Some(p) = prefix.first_mut() {
            *p = 0x02 | affine.y_is_odd().unwrap_u8();
        }
        rest.copy_from_slice(x.as_slice());
        Ok(Self { point, bytes })
    }
}

/// generatorG, the curve's base point.
pub(crate) fn generator_g() -> Elem {
    Elem { point: ProjectivePoint::GENERATOR, bytes: GENERATOR_G }
}

/// generatorH (§3.1), from its coordinates: the curve equation is checked,
/// no square root is taken (the fixed-base products ask for H often).
pub(crate) fn generator_h() -> Result<Elem> {
    Elem::from_xy(&GENERATOR_H, &GENERATOR_H_Y)
}

/// `HashToGroup(msg, info)` (§6.1).
pub(crate) fn hash_to_group(msg: &[&[u8]], info: &[u8]) -> Result<ProjectivePoint> {
    hash_from_bytes::<NistP256, ExpandMsgXmd<Sha256>>(msg, &[b"HashToGroup-", CONTEXT_STRING, info])
        .map_err(|_| Error::InvalidLength(Field::Message))
}

/// `HashToScalar(msg, info)` (§6.1).
pub(crate) fn hash_to_scalar_arc(msg: &[&[u8]], info: &[u8]) -> Result<Scalar> {
    hash_to_scalar::<NistP256, ExpandMsgXmd<Sha256>, U48>(msg, &[b"HashToScalar-", CONTEXT_STRING, info])
        .map_err(|_| Error::InvalidLength(Field::Message))
}

/// A 48-byte string reduced modulo the group order (OS2IP, then mod n): the
/// sigma challenge and the sampling of the test generator.
pub(crate) fn reduce_wide(bytes: &[u8; 48]) -> Scalar {
    <Scalar as Reduce<Array<u8, U48>>>::reduce(&Array::from(*bytes))
}

/// `DeserializeScalar`: 32 big-endian bytes below the order. Zero is
/// accepted, as the reference code does (a proof response may be zero).
pub(crate) fn decode_scalar(bytes: &[u8]) -> Result<Scalar> {
    let bytes: [u8; NS] = bytes.try_into().map_err(|_| Error::InvalidScalar)?;
    let s = Scalar::from_repr(Array::from(bytes));
    let mut ok = s.is_some();
    crate::ct::declassify(&mut ok);
    if !bool::from(ok) {
        return Err(Error::InvalidScalar);
    }
    Ok(s.unwrap_or(Scalar::ZERO))
}

/// `SerializeScalar`.
pub(crate) fn encode_scalar(s: &Scalar) -> [u8; NS] {
    let repr = s.to_repr();
    let mut out = [0u8; NS];
    out.copy_from_slice(repr.as_slice());
    out
}

#[cfg(test)]
mod tests {
    use p256::elliptic_curve::group::GroupEncoding;

    use super::*;

    #[test]
    fn constant_time_encoding_is_sec1_compressed() {
        let mut p = ProjectivePoint::GENERATOR;
        for _ in 0..64 {
            let e = Elem::from_point(p).unwrap();
            assert_eq!(e.bytes[..], p.to_affine().to_bytes()[..]);
            assert_eq!(Elem::decode(&e.bytes).unwrap().point, p);
            p = p.double() + ProjectivePoint::GENERATOR;
        }
        assert_eq!(Elem::from_point(ProjectivePoint::IDENTITY), Err(Error::InvalidElement));
    }

    #[test]
    fn generator_constants_are_the_points() {
        let g = ProjectivePoint::GENERATOR.to_affine().to_bytes();
        assert_eq!(GENERATOR_G[..], g[..]);
        assert_eq!(Elem::decode(&GENERATOR_H).unwrap(), generator_h().unwrap());
    }

    #[test]
    fn generator_h_is_the_hash_of_g() {
        let g = generator_g();
        let h = hash_to_group(&[&g.bytes], b"generatorH").unwrap();
        let h = Elem::from_point(h).unwrap();
        assert_eq!(h.bytes, GENERATOR_H, "{:02x?}", h.bytes);
    }
}
