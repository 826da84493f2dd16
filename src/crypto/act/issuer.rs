//! The issuer's side of ACT (draft-schlesinger-cfrg-act-01 §3.3.2, §3.4.2,
//! §3.4.3, §3.5): issuance, and the verification of a spend proof with the
//! refund that follows it.
//!
//! Double spending is the caller's check: [`PrivateKey::refund`] verifies
//! the proof but keeps no state. Before calling it, the issuer must look up
//! the proof's [`nullifier`](SpendProof::nullifier) in its store of spent
//! nullifiers and record it, atomically (two concurrent spends of one token
//! must not both pass; §5.1 "Nullifier Management"), and should compare
//! [`context`](SpendProof::context) and [`charge`](SpendProof::charge)
//! with what it expects.

use curve25519_dalek::Scalar;
use curve25519_dalek::constants::RISTRETTO_BASEPOINT_POINT as G;
use curve25519_dalek::ristretto::RistrettoPoint;
use rand_core::TryCryptoRng;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::client::respond_challenge;
use super::fixed_base::Gen::{H1, H2, H3, H4};
use super::group::{Elem, check_l, credit_to_scalar, decode_scalar, fits_in_bits, invert, random_scalars};
use super::keys::PrivateKey;
use super::messages::{IssuanceRequest, IssuanceResponse, Refund, SpendProof};
use super::params::Params;
use super::transcript::Transcript;
use super::vartime::{mul_add_base_vartime, mul_vartime, pow2_sum_vartime};
use crate::error::{Error, Result};

impl PrivateKey {
    /// `IssueResponse` (§3.3.2): verifies the request's proof (public
    /// values, variable time; `Verification`), then signs c credits under
    /// the context `ctx` (a canonical scalar, 32 bytes little endian;
    /// `InvalidScalar` otherwise). c must be above 0 (`InvalidScalar`) and
    /// below 2^L (`ValueTooLarge`). Draws e, then α.
    pub fn issue<const L: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        params: &Params,
        request: &IssuanceRequest,
        c: u128,
        ctx: &[u8; 32],
        rng: &mut R,
    ) -> Result<IssuanceResponse> {
        check_l::<L>()?;
        let c = credit_to_scalar::<L>(c)?;
        if c == Scalar::ZERO {
            return Err(Error::InvalidScalar);
        }
        let ctx = decode_scalar(ctx)?;
        // K1 = k̄·H2 + r̄·H3 − γ·K.
        let k1 = params.mul_vartime(H2, &request.k_bar) + params.mul_vartime(H3, &request.r_bar)
            - mul_vartime(&request.gamma, &request.big_k.point);
        let mut t = Transcript::new(params, b"request");
        t.element(&request.big_k);
        t.point(&k1);
        if t.challenge() != request.gamma {
            return Err(Error::Verification);
        }
        // c and ctx are public (the response carries them).
        let x_a = G + params.mul_vartime(H1, &c) + params.mul_vartime(H4, &ctx) + request.big_k.point;
        let (response, mut e, mut alpha) = self.sign(params, x_a, rng, |e, a, x_g, y_a, y_g| {
            respond_challenge(params, b"respond", &[&c, &ctx, e], a, &[&x_a, x_g, y_a, y_g])
        })?;
        let mut response = IssuanceResponse { a: response.0, e, gamma: response.1, z: response.2, c, ctx };
        e.zeroize();
        alpha.zeroize();
        crate::ct::declassify(&mut response);
        Ok(response)
    }

    /// The BBS signature A = X_A/(e + x) and its proof (§3.3.2, §3.4.3):
    /// draws e and α, and returns (A, γ, z), e and α.
    #[allow(clippy::type_complexity)]
    fn sign<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        _params: &Params,
        x_a: RistrettoPoint,
        rng: &mut R,
        challenge: impl FnOnce(&Scalar, &Elem, &RistrettoPoint, &RistrettoPoint, &RistrettoPoint) -> Scalar,
    ) -> Result<((Elem, Scalar, Scalar), Scalar, Scalar)> {
        let mut draws = [Scalar::ZERO; 2];
        random_scalars(rng, &mut draws)?;
        let [mut e, mut alpha] = draws;
        draws.zeroize();
        let mut e_x = e + self.x;
        let mut inv = invert(&e_x);
        e_x.zeroize();
        let a = Elem::new(x_a * inv);
        inv.zeroize();
        let a = match a {
            Ok(a) => a,
            Err(err) => {
                e.zeroize();
                alpha.zeroize();
                return Err(err);
            }
        };
        let x_g = RistrettoPoint::mul_base(&e) + self.public.w.point;
        let y_a = a.point * alpha;
        let y_g = RistrettoPoint::mul_base(&alpha);
        let gamma = challenge(&e, &a, &x_g, &y_a, &y_g);
        let z = gamma * (self.x + e) + alpha;
        Ok(((a, gamma, z), e, alpha))
    }

    /// `VerifyAndRefund` (§3.4.2, §3.4.3): verifies the spend proof
    /// (`Verification` if it fails), then returns `t` of the s credits spent
    /// (t ≤ s, t < 2^L; `ValueTooLarge` otherwise), signed into the client's
    /// next token with the proof's context. Draws e*, then α.
    ///
    /// It does not check the nullifier: the caller must refuse a spend
    /// proof whose [`nullifier`](SpendProof::nullifier) it has seen, and
    /// record it atomically with this call (see the module documentation).
    ///
    /// The proof's check uses the secret x only in constant-time
    /// arithmetic (the term −γ·x·A′ is folded into one constant-time
    /// multiplication of A′); the other terms are public and variable time.
    pub fn refund<const L: usize, R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        params: &Params,
        proof: &SpendProof<L>,
        t: u128,
        rng: &mut R,
    ) -> Result<Refund> {
        check_l::<L>()?;
        let t = credit_to_scalar::<L>(t)?;
        if !bool::from(fits_in_bits::<L>(&proof.s)) {
            return Err(Error::ValueTooLarge);
        }
        let k_prime = self.verify_spend(params, proof)?;
        // t ≤ s, both public and below 2^L ≤ 2^128.
        if !bool::from(fits_in_bits::<L>(&(proof.s - t))) {
            return Err(Error::ValueTooLarge);
        }
        let x_a = G + k_prime + params.mul_vartime(H1, &t) + params.mul_vartime(H4, &proof.ctx);
        let ctx = proof.ctx;
        let (refund, mut e, mut alpha) = self.sign(params, x_a, rng, |e, a, x_g, y_a, y_g| {
            respond_challenge(params, b"refund", &[e, &t, &ctx], a, &[&x_a, x_g, y_a, y_g])
        })?;
        let mut refund = Refund { a: refund.0, e, gamma: refund.1, z: refund.2, t };
        e.zeroize();
        alpha.zeroize();
        crate::ct::declassify(&mut refund);
        Ok(refund)
    }

    /// `VerifySpendProof` (§3.4.5); returns K′ = Σ 2^j·Com_j.
    ///
    /// Every equation is regrouped by base, which gives the same elements
    /// with fewer products: the terms in G join a double-base product, and
    /// those in H1..H4 one fixed-base product per generator.
    fn verify_spend<const L: usize>(&self, params: &Params, p: &SpendProof<L>) -> Result<RistrettoPoint> {
        let h1 = &params.h1.point;
        let gamma = &p.gamma;
        // A1 = ē·A′ + r̄2·B̄ − γ·(x·A′) = (ē − γ·x)·A′ + r̄2·B̄.
        let mut ex = p.e_bar - gamma * self.x;
        let a1 = p.a_prime.point * ex + mul_vartime(&p.r2_bar, &p.b_bar.point);
        ex.zeroize();
        // A2 = r̄3·B̄ + c̄·H1 + r̄·H3 − γ·(G + k·H2 + ctx·H4)
        //    = (r̄3·B̄ − γ·G) + c̄·H1 − (γ·k)·H2 + r̄·H3 − (γ·ctx)·H4.
        let a2 = mul_add_base_vartime(&p.r3_bar, &p.b_bar.point, &-gamma) + params.mul_vartime(H1, &p.c_bar)
            - params.mul_vartime(H2, &(gamma * p.k))
            + params.mul_vartime(H3, &p.r_bar)
            - params.mul_vartime(H4, &(gamma * p.ctx));
        let mut t = Transcript::new(params, b"spend");
        t.scalar(&p.k);
        t.scalar(&p.ctx);
        t.element(&p.a_prime);
        t.element(&p.b_bar);
        t.point(&a1);
        t.point(&a2);
        let mut coms = [RistrettoPoint::default(); L];
        for (slot, c) in coms.iter_mut().zip(&p.com) {
            *slot = c.point()?;
            t.encoded(c.bytes());
        }
        // C′[j][0] = (w00·H2 +) z0·H3 − γ0·Com_j,
        // C′[j][1] = (w01·H2 +) z1·H3 − (γ − γ0)·(Com_j − H1).
        for (j, ((com, g0), [z0, z1])) in coms.iter().zip(&p.gamma0).zip(&p.z).enumerate() {
            let g1 = gamma - g0;
            let mut c0 = params.mul_vartime(H3, z0) - mul_vartime(g0, com);
            let mut c1 = params.mul_vartime(H3, z1) - mul_vartime(&g1, &(com - h1));
            if j == 0 {
                c0 += params.mul_vartime(H2, &p.w00);
                c1 += params.mul_vartime(H2, &p.w01);
            }
            t.point(&c0);
            t.point(&c1);
        }
        // K′ = Σ 2^j·Com_j, and C = −c̄·H1 + k̄·H2 + s̄·H3 − γ·(s·H1 + K′)
        // = −(c̄ + γ·s)·H1 + k̄·H2 + s̄·H3 − γ·K′.
        let k_prime = pow2_sum_vartime(&coms);
        let c = params.mul_vartime(H2, &p.k_bar) + params.mul_vartime(H3, &p.s_bar)
            - params.mul_vartime(H1, &(p.c_bar + gamma * p.s))
            - mul_vartime(gamma, &k_prime);
        t.point(&c);
        let mut ok = t.challenge().ct_eq(gamma);
        crate::ct::declassify(&mut ok);
        if !bool::from(ok) {
            return Err(Error::Verification);
        }
        Ok(k_prime)
    }
}
