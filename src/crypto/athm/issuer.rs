//! The issuer's side of ATHM: `TokenResponse` with its proof, and
//! `VerifyToken`, which recovers the hidden metadata
//! (draft-yun-cfrg-athm-00 §4.3, §4.5).
//!
//! The metadata value m is a secret of the issuer's: nothing here branches
//! on it or indexes memory with it. Every bucket's simulated commitment is
//! computed and the real one selected into slot m; the redemption scan
//! compares every bucket and selects the match.

use p256::elliptic_curve::group::Group as _;
use p256::elliptic_curve::ops::LinearCombination;
use p256::{ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, ConstantTimeLess};
use zeroize::Zeroize;

use super::client::{Token, TokenRequest};
use super::hash::{Params, Transcript, mul_g, random_nonzero_scalar, random_scalar};
use super::keys::{PrivateKey, PublicKey};
use crate::crypto::arc::group::{Elem, NE, NS, decode_scalar, encode_scalar, generator_g};
use crate::error::{Error, Field, Result};

/// The issuance proof: C, e_0…e_{N−1}, a_0…a_{N−1}, a_d, a_rho, a_w.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IssuanceProof<const N: usize> {
    pub(crate) c: Elem,
    pub(crate) e: [Scalar; N],
    pub(crate) a: [Scalar; N],
    pub(crate) a_d: Scalar,
    pub(crate) a_rho: Scalar,
    pub(crate) a_w: Scalar,
}

/// The token response (U, V, ts, proof): `U ‖ V ‖ ts ‖ C ‖ e_0… ‖ a_0… ‖
/// a_d ‖ a_rho ‖ a_w`, [`response_len`]`(N)` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenResponse<const N: usize> {
    pub(crate) u: Elem,
    pub(crate) v: Elem,
    pub(crate) ts: Scalar,
    pub(crate) proof: IssuanceProof<N>,
}

/// The length of a token response for `n` buckets: 2·Ne + Ns for U, V and
/// ts, then Ne + (2n + 3)·Ns for the proof (483 bytes for 4 buckets).
pub const fn response_len(n: usize) -> usize {
    3 * NE + NS + (2 * n + 3) * NS
}

impl<const N: usize> TokenResponse<N> {
    /// Length of the encoding.
    pub const LEN: usize = response_len(N);

    /// Decodes a response for `N` buckets: every point valid and not the
    /// identity, every scalar below the order, exactly [`LEN`](Self::LEN)
    /// bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => return Err(Error::Truncated),
            n if n > Self::LEN => return Err(Error::TrailingBytes),
            _ => {}
        }
        let (u, rest) = bytes.split_at(NE);
        let (v, rest) = rest.split_at(NE);
        let (ts, rest) = rest.split_at(NS);
        let (c, rest) = rest.split_at(NE);
        let mut scalars = rest.chunks_exact(NS);
        let mut next = || decode_scalar(scalars.next().ok_or(Error::Truncated)?);
        let mut e = [Scalar::ZERO; N];
        for slot in e.iter_mut() {
            *slot = next()?;
        }
        let mut a = [Scalar::ZERO; N];
        for slot in a.iter_mut() {
            *slot = next()?;
        }
        let (a_d, a_rho, a_w) = (next()?, next()?, next()?);
        Ok(Self {
            u: Elem::decode(u)?,
            v: Elem::decode(v)?,
            ts: decode_scalar(ts)?,
            proof: IssuanceProof { c: Elem::decode(c)?, e, a, a_d, a_rho, a_w },
        })
    }

    /// Writes the encoding to the front of `out`; its length, or
    /// `BufferTooSmall`.
    pub fn encode(&self, out: &mut [u8]) -> Result<usize> {
        let out = out.get_mut(..Self::LEN).ok_or(Error::BufferTooSmall)?;
        let p = &self.proof;
        let mut pos = 0;
        let mut put = |bytes: &[u8]| {
            if let Some(dst) = out.get_mut(pos..pos + bytes.len()) {
                dst.copy_from_slice(bytes);
            }
            pos += bytes.len();
        };
        put(&self.u.bytes);
        put(&self.v.bytes);
        put(&encode_scalar(&self.ts));
        put(&p.c.bytes);
        for s in p.e.iter().chain(&p.a).chain([&p.a_d, &p.a_rho, &p.a_w]) {
            put(&encode_scalar(s));
        }
        Ok(Self::LEN)
    }
}

/// `e = HashToScalar(G, H, C_x, C_y, Z, U, V, ts, T, C, C_0…C_{N−1}, C_d,
/// C_rho, C_w; "TokenResponseProof")`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn response_challenge<const N: usize>(
    params: &Params<'_, N>,
    pk: &PublicKey,
    response: &TokenResponse<N>,
    request: &TokenRequest,
    commitments: &[Elem; N],
    c_d: &Elem,
    c_rho: &Elem,
    c_w: &Elem,
) -> Scalar {
    let mut t = Transcript::new();
    for e in [&generator_g(), &params.h, &pk.c_x, &pk.c_y, &pk.z, &response.u, &response.v] {
        t.element(e);
    }
    t.scalar(&encode_scalar(&response.ts));
    t.element(&request.t);
    t.element(&response.proof.c);
    for e in commitments.iter().chain([c_d, c_rho, c_w]) {
        t.element(e);
    }
    t.challenge(params, b"TokenResponseProof")
}

/// `TokenResponse` (§4.3): hides `metadata` (below `N`, or
/// `InvalidValue(HiddenMetadata)`) in V = d·(X + m·Y + ts·Z + T) and proves
/// it lies in one of the `N` buckets without saying which. Draws ts, d (not
/// zero), N values e_i, N values a_i, then r_mu, r_d, r_rho, r_w, mu, in
/// that order, as the reference code does.
pub fn token_response<R: TryCryptoRng<Error: 'static> + ?Sized, const N: usize>(
    params: &Params<'_, N>,
    key: &PrivateKey,
    pk: &PublicKey,
    request: &TokenRequest,
    metadata: u8,
    rng: &mut R,
) -> Result<TokenResponse<N>> {
    let n = u8::try_from(N).map_err(|_| Error::InvalidValue(Field::HiddenMetadata))?;
    let mut in_range = metadata.ct_lt(&n);
    crate::ct::declassify(&mut in_range);
    if !bool::from(in_range) {
        return Err(Error::InvalidValue(Field::HiddenMetadata));
    }
    let mut m = Scalar::from(u64::from(metadata));
    let h = params.h.point;
    let mut ts = random_scalar(rng)?;
    crate::ct::declassify(&mut ts);
    let mut d = random_nonzero_scalar(rng)?;
    let u = Elem::public(mul_g(&d))?;
    // V = d·(X + m·Y + ts·Z + T) = (d·(x + m·y))·G + (d·ts)·Z + d·T.
    let mut d_xy = d * (key.x + m * key.y);
    let mut d_ts = d * ts;
    let v = Elem::public(mul_g(&d_xy) + ProjectivePoint::lincomb(&[(pk.z.point, d_ts), (request.t.point, d)]))?;
    d_xy.zeroize();
    d_ts.zeroize();

    // The slot of the real bucket, as a mask per slot.
    let mut real = [Choice::from(0); N];
    for (i, slot) in (0u8..).zip(real.iter_mut()) {
        *slot = i.ct_eq(&metadata);
    }
    let mut e = [Scalar::ZERO; N];
    for (slot, is_real) in e.iter_mut().zip(&real) {
        *slot = Scalar::conditional_select(&random_scalar(rng)?, &Scalar::ZERO, *is_real);
    }
    let mut a = [Scalar::ZERO; N];
    for (slot, is_real) in a.iter_mut().zip(&real) {
        *slot = Scalar::conditional_select(&random_scalar(rng)?, &Scalar::ZERO, *is_real);
    }
    let mut r_mu = random_scalar(rng)?;
    let mut r_d = random_scalar(rng)?;
    let mut r_rho = random_scalar(rng)?;
    let mut r_w = random_scalar(rng)?;
    let mut mu = random_scalar(rng)?;

    let c = Elem::public(ProjectivePoint::lincomb(&[(pk.c_y.point, m), (h, mu)]))?;
    let real_commitment = h * r_mu;
    let mut commitments = [generator_g(); N];
    let mut shifted = c.point; // C − i·C_y
    for ((slot, (e_i, a_i)), is_real) in commitments.iter_mut().zip(e.iter().zip(&a)).zip(&real) {
        let simulated = ProjectivePoint::lincomb(&[(h, *a_i), (shifted, -*e_i)]);
        *slot = Elem::public(ProjectivePoint::conditional_select(&simulated, &real_commitment, *is_real))?;
        shifted -= pk.c_y.point;
    }
    // U·r_d = (d·r_d)·G.
    let mut d_r_d = d * r_d;
    let c_d = Elem::public(mul_g(&d_r_d))?;
    d_r_d.zeroize();
    let r_d_v = v.point * r_d;
    let c_rho = Elem::public(r_d_v + h * r_rho)?;
    let c_w = Elem::public(r_d_v + mul_g(&r_w))?;

    let placeholder = IssuanceProof { c, e, a, a_d: Scalar::ZERO, a_rho: Scalar::ZERO, a_w: Scalar::ZERO };
    let mut response = TokenResponse { u, v, ts, proof: placeholder };
    let challenge = response_challenge(params, pk, &response, request, &commitments, &c_d, &c_rho, &c_w);

    let sum = e.iter().fold(Scalar::ZERO, |acc, e_i| acc + e_i);
    let e_m = challenge - sum;
    let a_m = r_mu + e_m * mu;
    for ((e_i, a_i), is_real) in e.iter_mut().zip(a.iter_mut()).zip(&real) {
        e_i.conditional_assign(&e_m, *is_real);
        a_i.conditional_assign(&a_m, *is_real);
    }
    // d is not zero (drawn by `random_nonzero_scalar`), so its inverse
    // exists; `unwrap_or` selects in constant time, where converting the
    // `CtOption` to an `Option` branched on a verdict derived from d.
    let d_inv = d.invert().unwrap_or(Scalar::ZERO);
    let mut rho = -(key.r_x + m * key.r_y + mu);
    let mut w = key.x + m * key.y + ts * key.z;
    let mut proof = IssuanceProof {
        c,
        e,
        a,
        a_d: r_d - challenge * d_inv,
        a_rho: r_rho + challenge * rho,
        a_w: r_w + challenge * w,
    };
    crate::ct::declassify(&mut proof);
    response.proof = proof;

    for s in [&mut m, &mut d, &mut r_mu, &mut r_d, &mut r_rho, &mut r_w, &mut mu, &mut rho, &mut w] {
        s.zeroize();
    }
    Ok(response)
}

/// `VerifyToken` (§4.5): the hidden metadata, found by comparing Q with
/// (x + t·z + i·y)·P for every bucket i (all of them, no early exit); no
/// match is `Verification`.
pub fn verify_token<const N: usize>(params: &Params<'_, N>, key: &PrivateKey, token: &Token) -> Result<u8> {
    let _ = params;
    let p = token.p.point;
    let mut bucket = p * (key.x + token.t * key.z);
    let step = p * key.y;
    let mut found = Choice::from(0);
    let mut index = 0u8;
    for i in (0u8..).take(N) {
        let hit = bucket.ct_eq(&token.q.point);
        index.conditional_assign(&i, hit);
        found |= hit;
        bucket += step;
    }
    let mut valid = found & !p.is_identity() & !token.q.point.is_identity();
    crate::ct::declassify(&mut valid);
    if !bool::from(valid) {
        return Err(Error::Verification);
    }
    crate::ct::declassify(&mut index);
    Ok(index)
}
