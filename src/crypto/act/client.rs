//! The client's side of ACT (draft-schlesinger-cfrg-act-01 §3.3, §3.4):
//! the issuance request and its verification, the credit token, the spend
//! proof with its range proof, and the token rebuilt from a refund.

use core::fmt;

use curve25519_dalek::Scalar;
use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT as G;
use curve25519_dalek::ristretto::RistrettoPoint;
use rand_core::TryCryptoRng;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::{Zeroize, Zeroizing};

use super::cbor::{flat_len, read_flat, write_flat};
use super::fixed_base::Gen::{H1, H2, H3, H4};
use super::group::{
    Elem, bit, check_l, credit_to_scalar, decode_scalar, fits_in_bits, invert, random_scalar, random_scalars,
    scalar_to_credit,
};
use super::keys::PublicKey;
use super::messages::{Commitment, IssuanceRequest, IssuanceResponse, Refund, SpendProof};
use super::params::Params;
use super::transcript::Transcript;
use super::vartime::{add_mul_base_vartime, mul_add_base_vartime, mul_vartime, pow2_sum_vartime};
use crate::error::{Error, Result};

/// Implements `Drop` (wiping every scalar), `ZeroizeOnDrop`, a `Debug` that
/// prints the type name only, and `ConstantTimeEq` over the scalars.
macro_rules! secret {
    ($name:ident { $($field:ident),* }) => {
        impl Drop for $name {
            fn drop(&mut self) {
                $(self.$field.zeroize();)*
            }
        }
        impl zeroize::ZeroizeOnDrop for $name {}
        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.debug_struct(stringify!($name)).finish_non_exhaustive()
            }
        }
        impl ConstantTimeEq for $name {
            fn ct_eq(&self, other: &Self) -> Choice {
                Choice::from(1) $(& self.$field.ct_eq(&other.$field))*
            }
        }
    };
}

/// The client's secrets of an issuance (§3.3.1): the nullifier k and the
/// blind r. CBOR `{1: r, 2: k}` (the reference code's).
pub struct PreIssuance {
    r: Scalar,
    k: Scalar,
}

secret!(PreIssuance { r, k });

impl PreIssuance {
    /// Length of [`to_cbor`](Self::to_cbor).
    pub const CBOR_LEN: usize = flat_len(2);

    /// Draws r, then k (the reference code's order, which the appendix
    /// vectors follow).
    pub fn random<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        let mut rk = [Scalar::ZERO; 2];
        random_scalars(rng, &mut rk)?;
        let [r, k] = rk;
        Ok(Self { r, k })
    }

    /// `IssueRequest` (§3.3.1): K = k·H2 + r·H3 and a proof of knowledge of
    /// k and r (nonces k′, r′ drawn in that order).
    pub fn request<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        params: &Params,
        rng: &mut R,
    ) -> Result<IssuanceRequest> {
        let big_k = Elem::new(params.mul(H2, &self.k) + params.mul(H3, &self.r))?;
        let mut nonces = [Scalar::ZERO; 2];
        random_scalars(rng, &mut nonces)?;
        let [mut k_prime, mut r_prime] = nonces;
        nonces.zeroize();
        let k1 = params.mul(H2, &k_prime) + params.mul(H3, &r_prime);
        let mut t = Transcript::new(params, b"request");
        t.element(&big_k);
        t.point(&k1);
        let gamma = t.challenge();
        let mut request =
            IssuanceRequest { big_k, gamma, k_bar: k_prime + gamma * self.k, r_bar: r_prime + gamma * self.r };
        k_prime.zeroize();
        r_prime.zeroize();
        crate::ct::declassify(&mut request);
        Ok(request)
    }

    /// `VerifyIssuance` (§3.3.3): checks the issuer's proof (public values,
    /// variable time; `Verification` if it fails) and that c < 2^L
    /// (`ValueTooLarge`), and returns the token.
    pub fn to_credit_token<const L: usize>(
        &self,
        params: &Params,
        public: &PublicKey,
        request: &IssuanceRequest,
        response: &IssuanceResponse,
    ) -> Result<CreditToken> {
        check_l::<L>()?;
        if !bool::from(fits_in_bits::<L>(&response.c)) {
            return Err(Error::ValueTooLarge);
        }
        let x_a = G + params.mul_vartime(H1, &response.c) + params.mul_vartime(H4, &response.ctx) + request.big_k.point;
        verify_signature_proof(
            params,
            b"respond",
            &[&response.c, &response.ctx, &response.e],
            &x_a,
            public,
            &response.a,
            &response.e,
            &response.gamma,
            &response.z,
        )?;
        Ok(CreditToken { a: response.a, e: response.e, k: self.k, r: self.r, c: response.c, ctx: response.ctx })
    }

    /// The CBOR `{1: r, 2: k}`, wiped when dropped.
    pub fn to_cbor(&self) -> Zeroizing<[u8; Self::CBOR_LEN]> {
        let mut out = Zeroizing::new([0u8; Self::CBOR_LEN]);
        let (mut r, mut k) = (self.r.to_bytes(), self.k.to_bytes());
        let _ = write_flat(&mut *out, &[&r, &k]);
        r.zeroize();
        k.zeroize();
        out
    }

    /// Decodes [`to_cbor`](Self::to_cbor).
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let mut f = read_flat::<2>(bytes)?;
        let [r, k] = &f;
        let (r, k) = (decode_scalar(r), decode_scalar(k));
        f.zeroize();
        Ok(Self { r: r?, k: k? })
    }
}

/// Checks the issuer's proof of §3.3.3 and §3.4.4 that A = X_A/(e + x)
/// under W = x·G (public values, variable time; `Verification` if it
/// fails): X_G = W + e·G, Y_A = z·A − γ·X_A, Y_G = z·G − γ·X_G, and γ the
/// challenge over them.
#[allow(clippy::too_many_arguments)]
fn verify_signature_proof(
    params: &Params,
    label: &[u8],
    scalars: &[&Scalar; 3],
    x_a: &RistrettoPoint,
    public: &PublicKey,
    a: &Elem,
    e: &Scalar,
    gamma: &Scalar,
    z: &Scalar,
) -> Result<()> {
    let x_g = add_mul_base_vartime(&public.w.point, e);
    let y_a = mul_vartime(z, &a.point) - mul_vartime(gamma, x_a);
    let y_g = mul_add_base_vartime(&-gamma, &x_g, z);
    if respond_challenge(params, label, scalars, a, &[x_a, &x_g, &y_a, &y_g]) != *gamma {
        return Err(Error::Verification);
    }
    Ok(())
}

/// The challenge of the issuer's two proofs of §3.3.2 and §3.4.3 (labels
/// "respond" and "refund"): three scalars, then A, X_A, X_G, Y_A, Y_G.
pub(crate) fn respond_challenge(
    params: &Params,
    label: &[u8],
    scalars: &[&Scalar; 3],
    a: &Elem,
    points: &[&RistrettoPoint; 4],
) -> Scalar {
    let mut t = Transcript::new(params, label);
    for s in scalars {
        t.scalar(s);
    }
    t.element(a);
    for p in points {
        t.point(p);
    }
    t.challenge()
}

/// A credit token (A, e, k, r, c, ctx) (§3.3.3): a BBS signature on the
/// balance c, the nullifier k, the blind r and the context. CBOR `{1: A,
/// 2: e, 3: k, 4: r, 5: c, 6: ctx}` (the reference code's).
pub struct CreditToken {
    a: Elem,
    e: Scalar,
    k: Scalar,
    r: Scalar,
    c: Scalar,
    ctx: Scalar,
}

impl Drop for CreditToken {
    fn drop(&mut self) {
        self.a.bytes.zeroize();
        self.a.point.zeroize();
        self.e.zeroize();
        self.k.zeroize();
        self.r.zeroize();
        self.c.zeroize();
        self.ctx.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for CreditToken {}

impl fmt::Debug for CreditToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CreditToken").finish_non_exhaustive()
    }
}

impl ConstantTimeEq for CreditToken {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.a.bytes.ct_eq(&other.a.bytes)
            & self.e.ct_eq(&other.e)
            & self.k.ct_eq(&other.k)
            & self.r.ct_eq(&other.r)
            & self.c.ct_eq(&other.c)
            & self.ctx.ct_eq(&other.ctx)
    }
}

impl CreditToken {
    /// Length of [`to_cbor`](Self::to_cbor).
    pub const CBOR_LEN: usize = flat_len(6);

    /// The nullifier k, which the spend proof reveals.
    pub fn nullifier(&self) -> [u8; 32] {
        self.k.to_bytes()
    }

    /// The balance c, below 2^L (`ValueTooLarge` otherwise).
    pub fn credits<const L: usize>(&self) -> Result<u128> {
        let mut c = self.c;
        crate::ct::declassify(&mut c);
        scalar_to_credit::<L>(&c)
    }

    /// The request context ctx (32 bytes little endian).
    pub fn context(&self) -> [u8; 32] {
        self.ctx.to_bytes()
    }

    /// The CBOR, wiped when dropped.
    pub fn to_cbor(&self) -> Zeroizing<[u8; Self::CBOR_LEN]> {
        let mut out = Zeroizing::new([0u8; Self::CBOR_LEN]);
        let mut s = [self.e.to_bytes(), self.k.to_bytes(), self.r.to_bytes(), self.c.to_bytes(), self.ctx.to_bytes()];
        let [e, k, r, c, ctx] = &s;
        let _ = write_flat(&mut *out, &[&self.a.bytes, e, k, r, c, ctx]);
        s.zeroize();
        out
    }

    /// Decodes [`to_cbor`](Self::to_cbor): A a valid element, not the
    /// identity; every scalar canonical.
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let mut f = read_flat::<6>(bytes)?;
        let [a, e, k, r, c, ctx] = &f;
        let parsed = (
            Elem::decode(a),
            decode_scalar(e),
            decode_scalar(k),
            decode_scalar(r),
            decode_scalar(c),
            decode_scalar(ctx),
        );
        f.zeroize();
        Ok(Self { a: parsed.0?, e: parsed.1?, k: parsed.2?, r: parsed.3?, c: parsed.4?, ctx: parsed.5? })
    }

    /// `ProveSpend` (§3.4.1): spends `s` credits (0 ≤ s ≤ c, s < 2^L) and
    /// returns the proof for the issuer and the state that turns its refund
    /// into the next token. An amount of 2^L or more, a balance not below
    /// 2^L, or s > c (overspending) is `ValueTooLarge`, before anything is
    /// drawn; `InvalidLength(Message)` unless 1 ≤ L ≤ 128.
    ///
    /// Draws, in the reference code's order (which the appendix vectors
    /// follow): r1, r2, c′, r′, e′, r2′, r3′, k*, s_0..s_{L−1}, k0′,
    /// s′_0..s′_{L−1}, γ0_0..γ0_{L−1}, w0, z_0..z_{L−1}, k′, s′. The bits of
    /// the remainder m = c − s select the real and simulated branch of each
    /// OR-proof with constant-time selections.
    pub fn prove_spend<const L: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        params: &Params,
        s: u128,
        rng: &mut R,
    ) -> Result<(SpendProof<L>, PreRefund)> {
        check_l::<L>()?;
        let s = credit_to_scalar::<L>(s)?;
        let mut m = self.c - s;
        let mut ok = fits_in_bits::<L>(&self.c) & fits_in_bits::<L>(&m);
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            m.zeroize();
            return Err(Error::ValueTooLarge);
        }

        // The draws in the order above, batched (see `random_scalars`).
        let mut first = [Scalar::ZERO; 8];
        random_scalars(rng, &mut first)?;
        let [mut r1, mut r2, mut c_prime, mut r_prime, mut e_prime, mut r2_prime, mut r3_prime, mut k_star] = first;
        first.zeroize();
        let mut s_i = Zeroizing::new([Scalar::ZERO; L]);
        random_scalars(rng, &mut *s_i)?;
        let mut k0_prime = random_scalar(rng)?;
        let mut s_prime_i = Zeroizing::new([Scalar::ZERO; L]);
        random_scalars(rng, &mut *s_prime_i)?;
        let mut gamma_i = Zeroizing::new([Scalar::ZERO; L]);
        random_scalars(rng, &mut *gamma_i)?;
        let mut w0 = random_scalar(rng)?;
        let mut z_i = Zeroizing::new([Scalar::ZERO; L]);
        random_scalars(rng, &mut *z_i)?;
        let mut last = [Scalar::ZERO; 2];
        random_scalars(rng, &mut last)?;
        let [mut k_prime, mut s_prime] = last;
        last.zeroize();

        // The re-randomized signature: A′ = A·r1·r2 and B̄ = B·r1, where B =
        // G + c·H1 + k·H2 + r·H3 + ctx·H4; B̄ is computed as r1·G +
        // (r1·c)·H1 + … + (r1·ctx)·H4, five fixed-base products (against
        // four and a variable-base one for B, then B·r1). Then the proof's
        // first commitments.
        let a_prime = Elem::new(self.a.point * (r1 * r2))?;
        let mut r1_b = [r1 * self.c, r1 * self.k, r1 * self.r, r1 * self.ctx];
        let [r1_c, r1_k, r1_r, r1_ctx] = &r1_b;
        let b_bar = RistrettoPoint::mul_base(&r1)
            + params.mul(H1, r1_c)
            + params.mul(H2, r1_k)
            + params.mul(H3, r1_r)
            + params.mul(H4, r1_ctx);
        r1_b.zeroize();
        let b_bar = Elem::new(b_bar)?;
        let mut r3 = invert(&r1);
        let a1 = a_prime.point * e_prime + b_bar.point * r2_prime;
        let a2 = b_bar.point * r3_prime + params.mul(H1, &c_prime) + params.mul(H3, &r_prime);

        // Commitments to the bits of m: Com_0 = i_0·H1 + k*·H2 + s_0·H3,
        // Com_j = i_j·H1 + s_j·H3.
        let mut com = [Commitment::empty(); L];
        for (j, (slot, s_j)) in com.iter_mut().zip(s_i.iter()).enumerate() {
            let bit_h1 = RistrettoPoint::conditional_select(&RistrettoPoint::default(), &params.h1.point, bit(&m, j));
            let mut p = bit_h1 + params.mul(H3, s_j);
            if j == 0 {
                p += params.mul(H2, &k_star);
            }
            *slot = Commitment::new(&Elem::new(p)?);
        }

        let mut t = Transcript::new(params, b"spend");
        t.scalar(&self.k);
        t.scalar(&self.ctx);
        t.element(&a_prime);
        t.element(&b_bar);
        t.point(&a1);
        t.point(&a2);
        for c in &com {
            t.encoded(c.bytes());
        }
        // Each bit's two OR-proof commitments: the real branch i_j gets
        // s′_j·H3 (+ k0′·H2 for bit 0), the other is simulated with the
        // challenge γ0_j and the response z_j (and w0):
        // (w0·H2 +) z_j·H3 − γ0_j·C[j][1 − i_j], where C[j][0] = Com_j and
        // C[j][1] = Com_j − H1; expanded, (w0 − γ0_j·k*)·H2 + (z_j −
        // γ0_j·s_j)·H3 ± γ0_j·H1 (+ for i_j = 0, − for i_j = 1).
        for j in 0..L {
            let zero = !bit(&m, j);
            let (s_j, sp_j, g_j, z_j) = (at(&s_i, j), at(&s_prime_i, j), at(&gamma_i, j), at(&z_i, j));
            let mut real = params.mul(H3, &sp_j);
            let mut sim = params.mul(H3, &(z_j - g_j * s_j));
            if j == 0 {
                real += params.mul(H2, &k0_prime);
                sim += params.mul(H2, &(w0 - g_j * k_star));
            }
            let g_h1 = params.mul(H1, &g_j);
            sim += RistrettoPoint::conditional_select(&-g_h1, &g_h1, zero);
            t.point(&RistrettoPoint::conditional_select(&sim, &real, zero));
            t.point(&RistrettoPoint::conditional_select(&real, &sim, zero));
        }
        t.point(&(params.mul(H2, &k_prime) + params.mul(H3, &s_prime) - params.mul(H1, &c_prime)));
        let gamma = t.challenge();

        // Responses. Per bit, γ0 is branch 0's challenge: γ − γ0_j when
        // branch 0 is real (i_j = 0), else the simulated γ0_j.
        let mut gamma0 = [Scalar::ZERO; L];
        let mut z = [[Scalar::ZERO; 2]; L];
        let (mut w00, mut w01) = (Scalar::ZERO, Scalar::ZERO);
        for j in 0..L {
            let zero = !bit(&m, j);
            let (s_j, sp_j, g_j, z_j) = (at(&s_i, j), at(&s_prime_i, j), at(&gamma_i, j), at(&z_i, j));
            let g0 = Scalar::conditional_select(&g_j, &(gamma - g_j), zero);
            let g1 = gamma - g0;
            let pair = [
                Scalar::conditional_select(&z_j, &(g0 * s_j + sp_j), zero),
                Scalar::conditional_select(&(g1 * s_j + sp_j), &z_j, zero),
            ];
            if j == 0 {
                w00 = Scalar::conditional_select(&w0, &(g0 * k_star + k0_prime), zero);
                w01 = Scalar::conditional_select(&(g1 * k_star + k0_prime), &w0, zero);
            }
            if let (Some(g), Some(zz)) = (gamma0.get_mut(j), z.get_mut(j)) {
                *g = g0;
                *zz = pair;
            }
        }
        // r* = Σ 2^j·s_j, so that Σ 2^j·Com_j = m·H1 + k*·H2 + r*·H3.
        let r_star = s_i.iter().rev().fold(Scalar::ZERO, |acc, s_j| acc + acc + s_j);

        let mut proof = SpendProof {
            k: self.k,
            s,
            a_prime,
            b_bar,
            com,
            gamma,
            e_bar: e_prime - gamma * self.e,
            r2_bar: gamma * r2 + r2_prime,
            r3_bar: gamma * r3 + r3_prime,
            c_bar: c_prime - gamma * self.c,
            r_bar: r_prime - gamma * self.r,
            w00,
            w01,
            gamma0,
            z,
            k_bar: gamma * k_star + k_prime,
            s_bar: gamma * r_star + s_prime,
            ctx: self.ctx,
        };
        crate::ct::declassify(&mut proof);
        let pre_refund = PreRefund { r: r_star, k: k_star, m, ctx: self.ctx };
        for v in [
            &mut r1,
            &mut r2,
            &mut r3,
            &mut c_prime,
            &mut r_prime,
            &mut e_prime,
            &mut r2_prime,
            &mut r3_prime,
            &mut k_star,
            &mut k0_prime,
            &mut w0,
            &mut k_prime,
            &mut s_prime,
            &mut w00,
            &mut w01,
            &mut m,
        ] {
            v.zeroize();
        }
        Ok((proof, pre_refund))
    }
}

/// Element `j` of a per-bit array (j < L always).
fn at<const L: usize>(values: &[Scalar; L], j: usize) -> Scalar {
    values.get(j).copied().unwrap_or(Scalar::ZERO)
}

/// The client's state between a spend and its refund (§3.4.1): the next
/// token's blind r* and nullifier k*, the remainder m = c − s and the
/// context. CBOR `{1: r*, 2: k*, 3: m, 4: ctx}` (the reference code's).
pub struct PreRefund {
    r: Scalar,
    k: Scalar,
    m: Scalar,
    ctx: Scalar,
}

secret!(PreRefund { r, k, m, ctx });

impl PreRefund {
    /// Length of [`to_cbor`](Self::to_cbor).
    pub const CBOR_LEN: usize = flat_len(4);

    /// The CBOR, wiped when dropped.
    pub fn to_cbor(&self) -> Zeroizing<[u8; Self::CBOR_LEN]> {
        let mut out = Zeroizing::new([0u8; Self::CBOR_LEN]);
        let mut s = [self.r.to_bytes(), self.k.to_bytes(), self.m.to_bytes(), self.ctx.to_bytes()];
        let [r, k, m, ctx] = &s;
        let _ = write_flat(&mut *out, &[r, k, m, ctx]);
        s.zeroize();
        out
    }

    /// Decodes [`to_cbor`](Self::to_cbor).
    pub fn from_cbor(bytes: &[u8]) -> Result<Self> {
        let mut f = read_flat::<4>(bytes)?;
        let [r, k, m, ctx] = &f;
        let parsed = (decode_scalar(r), decode_scalar(k), decode_scalar(m), decode_scalar(ctx));
        f.zeroize();
        Ok(Self { r: parsed.0?, k: parsed.1?, m: parsed.2?, ctx: parsed.3? })
    }

    /// The next token's nullifier k*.
    pub fn nullifier(&self) -> [u8; 32] {
        self.k.to_bytes()
    }

    /// `ConstructRefundToken` (§3.4.4): checks the issuer's refund proof
    /// against the spend proof's commitments (public values, variable time;
    /// `Verification`), then t < 2^L and m + t < 2^L (`ValueTooLarge`), and
    /// returns the token (A*, e*, k*, r*, m + t, ctx).
    pub fn to_credit_token<const L: usize>(
        &self,
        params: &Params,
        spend_proof: &SpendProof<L>,
        refund: &Refund,
        public: &PublicKey,
    ) -> Result<CreditToken> {
        check_l::<L>()?;
        let k_prime = commitments_sum(&spend_proof.com)?;
        let x_a = G + k_prime + params.mul_vartime(H1, &refund.t) + params.mul_vartime(H4, &self.ctx);
        verify_signature_proof(
            params,
            b"refund",
            &[&refund.e, &refund.t, &self.ctx],
            &x_a,
            public,
            &refund.a,
            &refund.e,
            &refund.gamma,
            &refund.z,
        )?;
        let c = self.m + refund.t;
        let mut ok = fits_in_bits::<L>(&refund.t) & fits_in_bits::<L>(&c);
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            return Err(Error::ValueTooLarge);
        }
        Ok(CreditToken { a: refund.a, e: refund.e, k: self.k, r: self.r, c, ctx: self.ctx })
    }
}

/// K′ = Σ 2^j·Com_j from a spend proof's commitments (`Verification` if
/// one does not decode, which a decoded proof rules out).
fn commitments_sum<const L: usize>(com: &[Commitment; L]) -> Result<RistrettoPoint> {
    let mut points = [RistrettoPoint::default(); L];
    for (p, c) in points.iter_mut().zip(com) {
        *p = c.point()?;
    }
    Ok(pow2_sum_vartime(&points))
}
