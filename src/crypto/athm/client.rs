//! The client's side of ATHM: `TokenRequest` and `FinalizeToken`
//! (draft-yun-cfrg-athm-00 §4.2, §4.4).

use core::fmt;

use p256::elliptic_curve::ops::LinearCombination;
use p256::{ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use super::hash::{Params, mul_g, random_nonzero_scalar, random_scalar};
use super::issuer::{TokenResponse, response_challenge};
use super::keys::VerifiedPublicKey;
use crate::crypto::arc::group::{Elem, NE, NS, decode_scalar, encode_scalar, generator_g};
use crate::error::{Error, Result};

/// The client's secrets between request and finalization: (r, tc).
pub struct TokenContext {
    r: Scalar,
    tc: Scalar,
}

impl Drop for TokenContext {
    fn drop(&mut self) {
        self.r.zeroize();
        self.tc.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for TokenContext {}

impl fmt::Debug for TokenContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenContext").finish_non_exhaustive()
    }
}

impl ConstantTimeEq for TokenContext {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.r.ct_eq(&other.r) & self.tc.ct_eq(&other.tc)
    }
}

impl TokenContext {
    /// Length of the export: r ‖ tc (the reference code's encoding).
    pub const LEN: usize = 2 * NS;

    /// The export, wiped when dropped.
    pub fn to_bytes(&self) -> Zeroizing<[u8; Self::LEN]> {
        let mut out = Zeroizing::new([0u8; Self::LEN]);
        let (r, tc) = out.split_at_mut(NS);
        let (mut a, mut b) = (encode_scalar(&self.r), encode_scalar(&self.tc));
        r.copy_from_slice(&a);
        tc.copy_from_slice(&b);
        a.zeroize();
        b.zeroize();
        out
    }

    /// Imports [`to_bytes`](Self::to_bytes): two scalars below the order.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => return Err(Error::Truncated),
            n if n > Self::LEN => return Err(Error::TrailingBytes),
            _ => {}
        }
        let (r, tc) = bytes.split_at(NS);
        Ok(Self { r: decode_scalar(r)?, tc: decode_scalar(tc)? })
    }
}

/// The token request T (33 bytes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenRequest {
    pub(crate) t: Elem,
}

impl TokenRequest {
    /// Length of the encoding.
    pub const LEN: usize = NE;

    /// Decodes T: a valid point, not the identity.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => Err(Error::Truncated),
            n if n > Self::LEN => Err(Error::TrailingBytes),
            _ => Ok(Self { t: Elem::decode(bytes)? }),
        }
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        self.t.bytes
    }
}

/// `TokenRequest` (§4.2): r and tc drawn in that order, T = r·G + tc·Z.
pub fn token_request<R: TryCryptoRng<Error: 'static> + ?Sized>(
    key: &VerifiedPublicKey,
    rng: &mut R,
) -> Result<(TokenContext, TokenRequest)> {
    let r = random_scalar(rng)?;
    let tc = random_scalar(rng)?;
    let context = TokenContext { r, tc };
    let t = Elem::public(mul_g(&context.r) + key.0.z.point * context.tc)?;
    Ok((context, TokenRequest { t }))
}

/// A token (t, P, Q): 98 bytes, `t ‖ P ‖ Q`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Token {
    pub(crate) t: Scalar,
    pub(crate) p: Elem,
    pub(crate) q: Elem,
}

impl Token {
    /// Length of the encoding.
    pub const LEN: usize = NS + 2 * NE;

    /// Decodes `t ‖ P ‖ Q`: t below the order, P and Q valid points that are
    /// not the identity.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        match bytes.len() {
            n if n < Self::LEN => return Err(Error::Truncated),
            n if n > Self::LEN => return Err(Error::TrailingBytes),
            _ => {}
        }
        let (t, rest) = bytes.split_at(NS);
        let (p, q) = rest.split_at(NE);
        Ok(Self { t: decode_scalar(t)?, p: Elem::decode(p)?, q: Elem::decode(q)? })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        let (t, rest) = out.split_at_mut(NS);
        let (p, q) = rest.split_at_mut(NE);
        t.copy_from_slice(&encode_scalar(&self.t));
        p.copy_from_slice(&self.p.bytes);
        q.copy_from_slice(&self.q.bytes);
        out
    }

    /// t, the token's nonce: what a redeemer keeps to refuse a second
    /// spending. (t, k·P, k·Q) verifies for every k ≠ 0, so the token's bytes
    /// or P and Q cannot serve.
    pub fn nonce(&self) -> [u8; NS] {
        encode_scalar(&self.t)
    }
}

/// `FinalizeToken` (§4.4): verifies the issuance proof, then draws c (not
/// zero) and unblinds: P = c·U, Q = c·(V − r·U), t = tc + ts. Any proof
/// failure is `Verification`.
pub fn finalize_token<R: TryCryptoRng<Error: 'static> + ?Sized, const N: usize>(
    params: &Params<'_, N>,
    key: &VerifiedPublicKey,
    context: &TokenContext,
    request: &TokenRequest,
    response: &TokenResponse<N>,
    rng: &mut R,
) -> Result<Token> {
    verify_issuance_proof(params, key, request, response)?;
    let mut c = random_nonzero_scalar(rng)?;
    let u = response.u.point;
    let p = Elem::public(u * c)?;
    // c·(V − r·U) as one combination: c·V + (−c·r)·U.
    let mut cr = -(c * context.r);
    let q = Elem::public(ProjectivePoint::lincomb(&[(response.v.point, c), (u, cr)]))?;
    c.zeroize();
    cr.zeroize();
    let mut t = context.tc + response.ts;
    crate::ct::declassify(&mut t);
    Ok(Token { t, p, q })
}

/// `VerifyIssuanceProof`: public values only.
fn verify_issuance_proof<const N: usize>(
    params: &Params<'_, N>,
    key: &VerifiedPublicKey,
    request: &TokenRequest,
    response: &TokenResponse<N>,
) -> Result<()> {
    let pk = &key.0;
    let h = params.h.point;
    let proof = &response.proof;
    let mut commitments = [generator_g(); N];
    let mut d = proof.c.point;
    let mut e = Scalar::ZERO;
    for ((slot, e_i), a_i) in commitments.iter_mut().zip(&proof.e).zip(&proof.a) {
        *slot = Elem::public(ProjectivePoint::lincomb_vartime(&[(h, *a_i), (d, -*e_i)]))?;
        d -= pk.c_y.point;
        e += e_i;
    }
    let (u, v, ts, t) = (response.u.point, response.v.point, response.ts, request.t.point);
    let g = ProjectivePoint::GENERATOR;
    let c_d = Elem::public(ProjectivePoint::lincomb_vartime(&[(u, proof.a_d), (g, e)]))?;
    // e·(C_x + C + ts·Z + T), with e·ts·Z a term of its own.
    let base = pk.c_x.point + proof.c.point + t;
    let c_rho = Elem::public(ProjectivePoint::lincomb_vartime(&[
        (v, proof.a_d),
        (h, proof.a_rho),
        (base, e),
        (pk.z.point, ts * e),
    ]))?;
    let c_w = Elem::public(ProjectivePoint::lincomb_vartime(&[(v, proof.a_d), (g, proof.a_w), (t, e)]))?;
    let challenge = response_challenge(params, pk, response, request, &commitments, &c_d, &c_rho, &c_w);
    if !bool::from(challenge.ct_eq(&e)) {
        return Err(Error::Verification);
    }
    Ok(())
}
