//! ACT's protocol messages and their CBOR (draft-schlesinger-cfrg-act-01
//! §4.1): the issuance request and response, the spend proof and the
//! refund. Decoding checks the structure ([`super::cbor`]), decodes every
//! element (canonical, not the identity: `InvalidElement`) and scalar
//! (canonical: `InvalidScalar`); the proofs are checked by the role that
//! receives the message, and amounts against L where they are used.

use curve25519_dalek::Scalar;
use curve25519_dalek::ristretto::RistrettoPoint;

use super::cbor::{BSTR32_LEN, Reader, Writer, array_head_len, flat_len, read_flat, write_flat};
use super::group::{Elem, NE, check_l, decode_scalar, scalar_to_credit};
use crate::error::Result;

/// `IssuanceRequestMsg` (§4.1.1): `{1: K, 2: γ, 3: k̄, 4: r̄}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssuanceRequest {
    pub(crate) big_k: Elem,
    pub(crate) gamma: Scalar,
    pub(crate) k_bar: Scalar,
    pub(crate) r_bar: Scalar,
}

impl IssuanceRequest {
    /// Length of the CBOR (141 bytes).
    pub const LEN: usize = flat_len(4);

    /// The CBOR.
    pub fn to_cbor(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        let _ = write_flat(
            &mut out,
            &[&self.big_k.bytes, self.gamma.as_bytes(), self.k_bar.as_bytes(), self.r_bar.as_bytes()],
        );
        out
    }

    /// Decodes exactly one message.
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let [k, g, kb, rb] = read_flat::<4>(bytes)?;
        Ok(Self {
            big_k: Elem::decode(&k)?,
            gamma: decode_scalar(&g)?,
            k_bar: decode_scalar(&kb)?,
            r_bar: decode_scalar(&rb)?,
        })
    }
}

/// `IssuanceResponseMsg` (§4.1.2): `{1: A, 2: e, 3: γ, 4: z, 5: c, 6: ctx}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssuanceResponse {
    pub(crate) a: Elem,
    pub(crate) e: Scalar,
    pub(crate) gamma: Scalar,
    pub(crate) z: Scalar,
    pub(crate) c: Scalar,
    pub(crate) ctx: Scalar,
}

impl IssuanceResponse {
    /// Length of the CBOR (211 bytes).
    pub const LEN: usize = flat_len(6);

    /// The CBOR.
    pub fn to_cbor(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        let _ = write_flat(
            &mut out,
            &[
                &self.a.bytes,
                self.e.as_bytes(),
                self.gamma.as_bytes(),
                self.z.as_bytes(),
                self.c.as_bytes(),
                self.ctx.as_bytes(),
            ],
        );
        out
    }

    /// Decodes exactly one message.
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let [a, e, g, z, c, ctx] = read_flat::<6>(bytes)?;
        Ok(Self {
            a: Elem::decode(&a)?,
            e: decode_scalar(&e)?,
            gamma: decode_scalar(&g)?,
            z: decode_scalar(&z)?,
            c: decode_scalar(&c)?,
            ctx: decode_scalar(&ctx)?,
        })
    }

    /// The credits c issued, as an integer below 2^L (`ValueTooLarge`
    /// otherwise).
    pub fn credits<const L: usize>(&self) -> Result<u128> {
        scalar_to_credit::<L>(&self.c)
    }

    /// The request context ctx (a scalar, 32 bytes little-endian).
    pub fn context(&self) -> [u8; 32] {
        self.ctx.to_bytes()
    }
}

/// Length of a spend proof's CBOR for bit length `L` (1 ≤ L ≤ 128):
/// 529 + 3·h + 137·L, where h = 1 for L < 24, else 2.
pub const fn spend_proof_len(l: usize) -> usize {
    // Map head, fifteen keyed 32-byte strings, the keys of the three arrays.
    flat_len(15) + 3
        // Com and γ0: L strings each; z: L arrays of two strings.
        + 3 * array_head_len(l)
        + l * (2 * BSTR32_LEN + 1 + 2 * BSTR32_LEN)
}

/// The longest spend proof (L = 128): 18 071 bytes.
pub const SPEND_PROOF_MAX_LEN: usize = spend_proof_len(super::group::MAX_L);

/// A commitment Com_j of a spend proof (§3.4.1). With `precomputed-tables`
/// (the feature that trades memory for speed) it keeps the element with
/// its encoding, decoded once, when the proof is made or parsed: the
/// issuer's check and the client's refund token use it as it is (L
/// decodings fewer, 3.4 µs each on the bench machine: 55 µs of the
/// issuer's 1.43 ms at L = 16). Without the feature it is the encoding
/// alone (32 bytes a bit instead of 192), decoded again where it is used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Commitment {
    bytes: [u8; NE],
    #[cfg(feature = "precomputed-tables")]
    point: RistrettoPoint,
}

impl Commitment {
    /// A placeholder, overwritten before use.
    pub(crate) fn empty() -> Self {
        Self {
            bytes: [0; NE],
            #[cfg(feature = "precomputed-tables")]
            point: RistrettoPoint::default(),
        }
    }

    /// From a decoded or computed element.
    pub(crate) fn new(e: &Elem) -> Self {
        Self {
            bytes: e.bytes,
            #[cfg(feature = "precomputed-tables")]
            point: e.point,
        }
    }

    /// The encoding.
    pub(crate) fn bytes(&self) -> &[u8; NE] {
        &self.bytes
    }

    /// The element (`Verification` if it does not decode, which a decoded
    /// or computed proof rules out).
    pub(crate) fn point(&self) -> Result<RistrettoPoint> {
        #[cfg(feature = "precomputed-tables")]
        {
            Ok(self.point)
        }
        #[cfg(not(feature = "precomputed-tables"))]
        {
            Ok(Elem::decode(&self.bytes).map_err(|_| crate::error::Error::Verification)?.point)
        }
    }
}

/// `SpendProofMsg` (§4.1.3): `{1: k, 2: s, 3: A′, 4: B̄, 5: [Com × L], 6: γ,
/// 7: ē, 8: r̄2, 9: r̄3, 10: c̄, 11: r̄, 12: w00, 13: w01, 14: [γ0 × L],
/// 15: [[z0, z1] × L], 16: k̄, 17: s̄, 18: ctx}`.
///
/// It reveals the nullifier k ([`nullifier`](Self::nullifier)), the charge
/// s and the context; the issuer checks it in
/// [`PrivateKey::refund`](super::PrivateKey::refund).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpendProof<const L: usize> {
    pub(crate) k: Scalar,
    pub(crate) s: Scalar,
    pub(crate) a_prime: Elem,
    pub(crate) b_bar: Elem,
    pub(crate) com: [Commitment; L],
    pub(crate) gamma: Scalar,
    pub(crate) e_bar: Scalar,
    pub(crate) r2_bar: Scalar,
    pub(crate) r3_bar: Scalar,
    pub(crate) c_bar: Scalar,
    pub(crate) r_bar: Scalar,
    pub(crate) w00: Scalar,
    pub(crate) w01: Scalar,
    pub(crate) gamma0: [Scalar; L],
    pub(crate) z: [[Scalar; 2]; L],
    pub(crate) k_bar: Scalar,
    pub(crate) s_bar: Scalar,
    pub(crate) ctx: Scalar,
}

impl<const L: usize> SpendProof<L> {
    /// Length of the CBOR: [`spend_proof_len`]`(L)`.
    pub const LEN: usize = spend_proof_len(L);

    /// The nullifier k: what the issuer records, atomically with accepting
    /// the proof, to refuse a second spending of the same token.
    pub fn nullifier(&self) -> [u8; 32] {
        self.k.to_bytes()
    }

    /// The request context ctx the token was issued with (32 bytes little
    /// endian): the issuer compares it with the one it expects.
    pub fn context(&self) -> [u8; 32] {
        self.ctx.to_bytes()
    }

    /// The charge s, below 2^L (`ValueTooLarge` otherwise).
    pub fn charge(&self) -> Result<u128> {
        scalar_to_credit::<L>(&self.s)
    }

    /// Writes the CBOR into `out` and returns its length ([`Self::LEN`]);
    /// `BufferTooSmall` if `out` is shorter, `InvalidLength(Message)` unless
    /// 1 ≤ L ≤ 128.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize> {
        check_l::<L>()?;
        let mut w = Writer::new(out);
        w.map(18)?;
        for (key, s) in [(1, &self.k), (2, &self.s)] {
            w.key(key)?;
            w.bstr32(s.as_bytes())?;
        }
        for (key, e) in [(3, &self.a_prime), (4, &self.b_bar)] {
            w.key(key)?;
            w.bstr32(&e.bytes)?;
        }
        w.key(5)?;
        w.array(L)?;
        for c in &self.com {
            w.bstr32(c.bytes())?;
        }
        for (key, s) in [
            (6, &self.gamma),
            (7, &self.e_bar),
            (8, &self.r2_bar),
            (9, &self.r3_bar),
            (10, &self.c_bar),
            (11, &self.r_bar),
            (12, &self.w00),
            (13, &self.w01),
        ] {
            w.key(key)?;
            w.bstr32(s.as_bytes())?;
        }
        w.key(14)?;
        w.array(L)?;
        for g in &self.gamma0 {
            w.bstr32(g.as_bytes())?;
        }
        w.key(15)?;
        w.array(L)?;
        for [z0, z1] in &self.z {
            w.array(2)?;
            w.bstr32(z0.as_bytes())?;
            w.bstr32(z1.as_bytes())?;
        }
        for (key, s) in [(16, &self.k_bar), (17, &self.s_bar), (18, &self.ctx)] {
            w.key(key)?;
            w.bstr32(s.as_bytes())?;
        }
        Ok(w.len())
    }

    /// Decodes exactly one message with L commitments; `InvalidLength(Message)`
    /// unless 1 ≤ L ≤ 128 or when an array has another length.
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        check_l::<L>()?;
        let mut r = Reader::new(bytes);
        r.map(18)?;
        let scalar = |r: &mut Reader<'_>, key: u8| -> Result<Scalar> {
            r.key(key)?;
            decode_scalar(&r.bstr32()?)
        };
        let elem = |r: &mut Reader<'_>, key: u8| -> Result<Elem> {
            r.key(key)?;
            Elem::decode(&r.bstr32()?)
        };
        let k = scalar(&mut r, 1)?;
        let s = scalar(&mut r, 2)?;
        let a_prime = elem(&mut r, 3)?;
        let b_bar = elem(&mut r, 4)?;
        r.key(5)?;
        r.array(L)?;
        let mut com = [Commitment::empty(); L];
        for c in com.iter_mut() {
            *c = Commitment::new(&Elem::decode(&r.bstr32()?)?);
        }
        let gamma = scalar(&mut r, 6)?;
        let e_bar = scalar(&mut r, 7)?;
        let r2_bar = scalar(&mut r, 8)?;
        let r3_bar = scalar(&mut r, 9)?;
        let c_bar = scalar(&mut r, 10)?;
        let r_bar = scalar(&mut r, 11)?;
        let w00 = scalar(&mut r, 12)?;
        let w01 = scalar(&mut r, 13)?;
        r.key(14)?;
        r.array(L)?;
        let mut gamma0 = [Scalar::ZERO; L];
        for g in gamma0.iter_mut() {
            *g = decode_scalar(&r.bstr32()?)?;
        }
        r.key(15)?;
        r.array(L)?;
        let mut z = [[Scalar::ZERO; 2]; L];
        for pair in z.iter_mut() {
            r.array(2)?;
            for v in pair.iter_mut() {
                *v = decode_scalar(&r.bstr32()?)?;
            }
        }
        let k_bar = scalar(&mut r, 16)?;
        let s_bar = scalar(&mut r, 17)?;
        let ctx = scalar(&mut r, 18)?;
        r.finish()?;
        Ok(Self {
            k,
            s,
            a_prime,
            b_bar,
            com,
            gamma,
            e_bar,
            r2_bar,
            r3_bar,
            c_bar,
            r_bar,
            w00,
            w01,
            gamma0,
            z,
            k_bar,
            s_bar,
            ctx,
        })
    }
}

/// `RefundMsg` (§4.1.4): `{1: A*, 2: e*, 3: γ, 4: z, 5: t}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Refund {
    pub(crate) a: Elem,
    pub(crate) e: Scalar,
    pub(crate) gamma: Scalar,
    pub(crate) z: Scalar,
    pub(crate) t: Scalar,
}

impl Refund {
    /// Length of the CBOR (176 bytes).
    pub const LEN: usize = flat_len(5);

    /// The CBOR.
    pub fn to_cbor(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        let _ = write_flat(
            &mut out,
            &[&self.a.bytes, self.e.as_bytes(), self.gamma.as_bytes(), self.z.as_bytes(), self.t.as_bytes()],
        );
        out
    }

    /// Decodes exactly one message.
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let [a, e, g, z, t] = read_flat::<5>(bytes)?;
        Ok(Self {
            a: Elem::decode(&a)?,
            e: decode_scalar(&e)?,
            gamma: decode_scalar(&g)?,
            z: decode_scalar(&z)?,
            t: decode_scalar(&t)?,
        })
    }

    /// The partial return t, below 2^L (`ValueTooLarge` otherwise).
    pub fn partial_return<const L: usize>(&self) -> Result<u128> {
        scalar_to_credit::<L>(&self.t)
    }
}
