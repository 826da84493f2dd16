//! The ARC client (draft-ietf-privacypass-arc-crypto-01 §4.2.1, §4.2.3,
//! §4.3.1–4.3.2): the credential request, its finalization into a
//! [`Credential`], and presentations from a [`PresentationState`].
//!
//! Everything a device keeps between steps is fixed size and exportable:
//! the request state ([`CredentialRequestState::STATE_LEN`]), the credential
//! ([`Credential::LEN`]) and the presentation state
//! ([`PresentationState::STATE_LEN`]), which stores the tag generator of its
//! presentation context instead of the context itself.

use p256::elliptic_curve::ops::LinearCombination;
use p256::{ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use subtle::{ConditionallySelectable, ConstantTimeEq, ConstantTimeGreater};
use zeroize::{Zeroize, Zeroizing};

use super::fixed_base::{combine, mul_gh, mul_var};
use super::group::{
    Elem, NE, NS, decode_scalar, encode_scalar, generator_g, generator_h, hash_to_group, hash_to_scalar_arc,
};
use super::messages::{CredentialRequest, CredentialResponse, REQUEST_PROOF_LEN};
use super::proofs::{
    Bases, PRESENTATION_SESSION, PresentationStatement, PresentationWitness, REQUEST_SESSION, RESPONSE_SESSION,
    RequestStatement, ResponseStatement,
};
use super::random::{FromRng, ScalarSource};
use super::server::ServerPublicKey;
use super::sigma;
use crate::error::{Error, Field, Result};

/// The client's secrets between request and finalization (`clientSecrets`
/// with the request's two commitments, which the response proof covers).
pub struct CredentialRequestState {
    m1: Scalar,
    r1: Scalar,
    r2: Scalar,
    m1_enc: Elem,
    m2_enc: Elem,
}

impl Drop for CredentialRequestState {
    fn drop(&mut self) {
        self.m1.zeroize();
        self.r1.zeroize();
        self.r2.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for CredentialRequestState {}

impl core::fmt::Debug for CredentialRequestState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("CredentialRequestState")
    }
}

impl ConstantTimeEq for CredentialRequestState {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.m1.ct_eq(&other.m1)
            & self.r1.ct_eq(&other.r1)
            & self.r2.ct_eq(&other.r2)
            & self.m1_enc.bytes.ct_eq(&other.m1_enc.bytes)
            & self.m2_enc.bytes.ct_eq(&other.m2_enc.bytes)
    }
}

impl CredentialRequestState {
    /// Length of [`export`](Self::export): m1 ‖ r1 ‖ r2 ‖ m1Enc ‖ m2Enc.
    pub const STATE_LEN: usize = 3 * NS + 2 * NE;

    /// `CreateCredentialRequest(requestContext)` (§4.2.1); the context is
    /// the concatenation of `request_context`'s parts.
    pub fn new<R: TryCryptoRng<Error: 'static> + ?Sized>(
        request_context: &[&[u8]],
        rng: &mut R,
    ) -> Result<(Self, CredentialRequest)> {
        Self::new_with(request_context, &mut FromRng(rng))
    }

    pub(crate) fn new_with<S: ScalarSource + ?Sized>(
        request_context: &[&[u8]],
        src: &mut S,
    ) -> Result<(Self, CredentialRequest)> {
        let g = generator_g();
        let h = generator_h()?;
        let mut m1 = src.random_scalar()?;
        let mut m2 = hash_to_scalar_arc(request_context, b"requestContext")?;
        let mut r1 = src.random_scalar()?;
        let mut r2 = src.random_scalar()?;
        let result = (|| {
            // With the tables, G and H by table; on a device, the two
            // `lincomb`s inline here as they were (through `mul_gh` they
            // took 2.2 KiB more stack).
            #[cfg(feature = "precomputed-tables")]
            let (m1_enc, m2_enc) =
                (Elem::public(mul_gh(Some(&m1), Some(&r1))?)?, Elem::public(mul_gh(Some(&m2), Some(&r2))?)?);
            #[cfg(not(feature = "precomputed-tables"))]
            let (m1_enc, m2_enc) = (
                Elem::public(ProjectivePoint::lincomb(&[(g.point, m1), (h.point, r1)]))?,
                Elem::public(ProjectivePoint::lincomb(&[(g.point, m2), (h.point, r2)]))?,
            );
            let st = RequestStatement { elems: [&g, &h, &m1_enc, &m2_enc] };
            let mut proof = [0u8; REQUEST_PROOF_LEN];
            let witness = Zeroizing::new([m1, m2, r1, r2]);
            sigma::prove(&REQUEST_SESSION, &st, witness.as_slice(), src, &mut proof)?;
            Ok((Self { m1, r1, r2, m1_enc, m2_enc }, CredentialRequest { m1_enc, m2_enc, proof }))
        })();
        m1.zeroize();
        m2.zeroize();
        r1.zeroize();
        r2.zeroize();
        result
    }

    /// `FinalizeCredential` (§4.2.3): checks the response proof against
    /// `public_key` and this request, then unblinds the MAC.
    pub fn finalize(&self, public_key: &ServerPublicKey, response: &CredentialResponse) -> Result<Credential> {
        let (g, h) = (generator_g(), generator_h()?);
        let st = ResponseStatement {
            elems: [
                &g,
                &h,
                &self.m1_enc,
                &self.m2_enc,
                &response.u,
                &response.enc_u_prime,
                &public_key.x0,
                &public_key.x1,
                &public_key.x2,
                &response.x0_aux,
                &response.x1_aux,
                &response.x2_aux,
                &response.h_aux,
            ],
        };
        sigma::verify(&RESPONSE_SESSION, &st, &response.proof)?;
        // UPrime = encUPrime − X0Aux − r1·X1Aux − r2·X2Aux (r1, r2 secret).
        let blind = ProjectivePoint::lincomb(&[(response.x1_aux.point, self.r1), (response.x2_aux.point, self.r2)]);
        let u_prime = response.enc_u_prime.point - response.x0_aux.point - blind;
        Ok(Credential { m1: self.m1, u: response.u, u_prime: Elem::from_point(u_prime)?, x1: public_key.x1 })
    }

    /// The state as bytes, for a device that finalizes later. They are
    /// secret, and wiped when the returned value drops.
    pub fn export(&self) -> Zeroizing<[u8; Self::STATE_LEN]> {
        let mut out = Zeroizing::new([0u8; Self::STATE_LEN]);
        let s = Zeroizing::new([encode_scalar(&self.m1), encode_scalar(&self.r1), encode_scalar(&self.r2)]);
        let [m1, r1, r2] = &*s;
        write_parts(&mut *out, &[m1, r1, r2, &self.m1_enc.bytes, &self.m2_enc.bytes]);
        out
    }

    /// Reads an [`export`](Self::export)ed state.
    pub fn import(bytes: &[u8]) -> Result<Self> {
        let bytes: &[u8; Self::STATE_LEN] = bytes.try_into().map_err(|_| Error::InvalidLength(Field::State))?;
        let (s, e) = bytes.split_at(3 * NS);
        let (m1, rest) = s.split_at(NS);
        let (r1, r2) = rest.split_at(NS);
        let (m1_enc, m2_enc) = e.split_at(NE);
        Ok(Self {
            m1: decode_scalar(m1)?,
            r1: decode_scalar(r1)?,
            r2: decode_scalar(r2)?,
            m1_enc: Elem::decode(m1_enc)?,
            m2_enc: Elem::decode(m2_enc)?,
        })
    }
}

/// Where the presentation statement's elements U, UPrimeCommit, m1Commit,
/// tag and nonceCommit are (the order of the message's first five).
const U: usize = 2;
const U_PRIME_COMMIT: usize = 3;
const M1_COMMIT: usize = 4;
const TAG: usize = 7;
const NONCE_COMMIT: usize = 9;

/// The range proof's bit commitments (§5.4): the canonical decomposition of
/// `nonce` over `bases`, in constant time, each `D[i] = b[i]·G + s[i]·H`
/// written straight into `d_out`, the bits and blinds into `witness` (whose
/// nonceBlinding the last blind balances: `Σ base·D[i] = nonceCommit`). A
/// frame of its own, gone before the proof.
#[inline(never)]
fn range_commitments<S: ScalarSource + ?Sized>(
    bases: &Bases,
    nonce: u32,
    src: &mut S,
    d_out: &mut [u8],
    witness: &mut PresentationWitness,
) -> Result<()> {
    let mut remainder = nonce;
    let mut partial = Scalar::ZERO;
    let last = bases.len.saturating_sub(1);
    let result = (|| {
        for (i, (&base, d)) in bases.as_slice().iter().zip(d_out.chunks_exact_mut(NE)).enumerate() {
            let bit = !base.ct_gt(&remainder);
            remainder = u32::conditional_select(&remainder, &remainder.wrapping_sub(base), bit);
            witness.bits |= u32::from(bit.unwrap_u8()) << i;
            let b = Scalar::conditional_select(&Scalar::ZERO, &Scalar::ONE, bit);
            let s = if i < last {
                let s = src.random_scalar()?;
                partial += Scalar::from(u64::from(base)) * s;
                s
            } else {
                let inv_base =
                    Option::<Scalar>::from(Scalar::from(u64::from(base)).invert()).ok_or(Error::InvalidScalar)?;
                let nonce_blinding = witness.head.get(4).ok_or(Error::InvalidLength(Field::Presentation))?;
                inv_base * (nonce_blinding - &partial)
            };
            d.copy_from_slice(&Elem::public(mul_gh(Some(&b), Some(&s))?)?.bytes);
            if let Some(slot) = witness.blinds.get_mut(i) {
                *slot = s;
            }
        }
        Ok(())
    })();
    remainder.zeroize();
    partial.zeroize();
    result
}

fn write_parts(out: &mut [u8], parts: &[&[u8]]) {
    let mut at = 0;
    for p in parts {
        if let Some(dst) = out.get_mut(at..at + p.len()) {
            dst.copy_from_slice(p);
        }
        at += p.len();
    }
}

/// An ARC credential (§4.2.3): the secret m1, the MAC (U, UPrime) and the
/// server's X1.
pub struct Credential {
    m1: Scalar,
    u: Elem,
    u_prime: Elem,
    x1: Elem,
}

impl Drop for Credential {
    fn drop(&mut self) {
        self.m1.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for Credential {}

impl core::fmt::Debug for Credential {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("Credential")
    }
}

impl ConstantTimeEq for Credential {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.m1.ct_eq(&other.m1)
            & self.u.bytes.ct_eq(&other.u.bytes)
            & self.u_prime.bytes.ct_eq(&other.u_prime.bytes)
            & self.x1.bytes.ct_eq(&other.x1.bytes)
    }
}

impl Credential {
    /// Length of [`export`](Self::export): m1 ‖ U ‖ UPrime ‖ X1.
    pub const LEN: usize = NS + 3 * NE;

    /// The credential as bytes (secret: m1 is the credential's key), wiped
    /// when the returned value drops.
    pub fn export(&self) -> Zeroizing<[u8; Self::LEN]> {
        let mut out = Zeroizing::new([0u8; Self::LEN]);
        let m1 = Zeroizing::new(encode_scalar(&self.m1));
        write_parts(&mut *out, &[&*m1, &self.u.bytes, &self.u_prime.bytes, &self.x1.bytes]);
        out
    }

    /// Reads an [`export`](Self::export)ed credential.
    pub fn import(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::LEN {
            return Err(Error::InvalidLength(Field::State));
        }
        let (m1, rest) = bytes.split_at(NS);
        let (u, rest) = rest.split_at(NE);
        let (u_prime, x1) = rest.split_at(NE);
        Ok(Self { m1: decode_scalar(m1)?, u: Elem::decode(u)?, u_prime: Elem::decode(u_prime)?, x1: Elem::decode(x1)? })
    }

    /// A second copy, for a presentation state (not `Clone`: copies of a
    /// secret are made only where the crate needs one).
    fn copy(&self) -> Self {
        Self { m1: self.m1, u: self.u, u_prime: self.u_prime, x1: self.x1 }
    }

    /// `SerializeElement(U)`.
    pub fn u(&self) -> &[u8; NE] {
        &self.u.bytes
    }
    /// `SerializeElement(UPrime)`.
    pub fn u_prime(&self) -> &[u8; NE] {
        &self.u_prime.bytes
    }
}

/// A presentation just made: where it was written and with which nonce.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Presentation {
    /// The nonce it used (the token's `presentation_nonce`).
    pub nonce: u32,
    /// Bytes written to the output.
    pub len: usize,
}

/// `PresentationState` (§4.3.1): a credential, the tag generator of one
/// presentation context, the next nonce and the limit. Each
/// [`present`](Self::present) uses the next nonce; the state must be kept
/// (or [`export`](Self::export)ed) after every presentation, since reusing a
/// nonce links presentations.
pub struct PresentationState {
    credential: Credential,
    generator_t: Elem,
    next_nonce: u64,
    limit: u64,
}

impl core::fmt::Debug for PresentationState {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The nonce counter stays out of logs: the presentations hide it.
        f.debug_struct("PresentationState").field("limit", &self.limit).finish_non_exhaustive()
    }
}

impl Drop for PresentationState {
    fn drop(&mut self) {
        self.next_nonce.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for PresentationState {}

impl PresentationState {
    /// Length of [`export`](Self::export): credential ‖ generatorT ‖
    /// next nonce (8 bytes) ‖ limit (8 bytes).
    pub const STATE_LEN: usize = Credential::LEN + NE + 16;

    /// `MakePresentationState(credential, presentationContext, limit)`; the
    /// context is the concatenation of `presentation_context`'s parts, and
    /// the limit lies in [2, 2^32]. The state holds its own copy of the
    /// credential, which stays the caller's (one credential serves several
    /// presentation contexts, one state each).
    ///
    /// Make one state per context and keep it: the tag depends on the
    /// context and the nonce but not on the limit (an open issue of the
    /// draft), so a second state for the same context starts again at nonce
    /// 0 and its tokens repeat the first state's tags, which links them and
    /// makes the origin refuse them as replays.
    pub fn new(credential: &Credential, presentation_context: &[&[u8]], limit: u64) -> Result<Self> {
        Bases::new(limit)?;
        let t = hash_to_group(presentation_context, b"Tag")?;
        Ok(Self { credential: credential.copy(), generator_t: Elem::from_point(t)?, next_nonce: 0, limit })
    }

    /// Whether this state is for `presentation_context` (its tag generator
    /// is that context's).
    pub fn is_for(&self, presentation_context: &[&[u8]]) -> Result<bool> {
        let t = Elem::from_point(hash_to_group(presentation_context, b"Tag")?)?;
        Ok(t.bytes == self.generator_t.bytes)
    }

    /// How many presentations are left.
    pub fn remaining(&self) -> u64 {
        self.limit.saturating_sub(self.next_nonce)
    }

    /// The limit.
    pub fn limit(&self) -> u64 {
        self.limit
    }

    /// `Present(state)` (§4.3.2): writes the presentation into `out`
    /// ([`presentation_len`](super::messages::presentation_len) bytes) and
    /// advances the nonce; [`Error::PresentationLimitReached`] once `limit`
    /// presentations were made. While the proof is computed, `out` holds
    /// the proof's secret nonces (in the slots their responses then
    /// replace), so it must be memory no one else reads during the call
    /// (not a buffer shared with another core or a DMA engine); a failed
    /// call leaves it zeroed.
    pub fn present<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &mut self,
        rng: &mut R,
        out: &mut [u8],
    ) -> Result<Presentation> {
        self.present_with(&mut FromRng(rng), out)
    }

    pub(crate) fn present_with<S: ScalarSource + ?Sized>(
        &mut self,
        src: &mut S,
        out: &mut [u8],
    ) -> Result<Presentation> {
        // The counter is the client's secret in the crypto layer (the token
        // format shows it, arc-protocol-01 §8.1); only the verdict is branched on.
        let mut spent = !self.limit.ct_gt(&self.next_nonce);
        crate::ct::declassify(&mut spent);
        if bool::from(spent) {
            return Err(Error::PresentationLimitReached);
        }
        let bases = Bases::new(self.limit)?;
        let k = bases.len;
        let len = super::messages::presentation_len(self.limit)?;
        let out = out.get_mut(..len).ok_or(Error::BufferTooSmall)?;
        // Below the limit, so below 2^32: the low 32 bits, without a branch.
        let [n0, n1, n2, n3, ..] = self.next_nonce.to_le_bytes();
        let nonce = u32::from_le_bytes([n0, n1, n2, n3]);
        // The nonce is spent before anything can fail.
        self.next_nonce += 1;

        let mut witness = PresentationWitness::new(k);
        let result = (|| {
            // U ‖ UPrimeCommit ‖ m1Commit ‖ tag ‖ nonceCommit ‖ D ‖ proof.
            let (head, rest) = out.split_at_mut(5 * NE);
            let (d_out, proof_out) = rest.split_at_mut(k * NE);
            let elems = self.commitments(nonce, src, &mut witness)?;
            for (chunk, i) in head.chunks_exact_mut(NE).zip([U, U_PRIME_COMMIT, M1_COMMIT, TAG, NONCE_COMMIT]) {
                chunk.copy_from_slice(&elems.get(i).ok_or(Error::InvalidLength(Field::Presentation))?.bytes);
            }
            range_commitments(&bases, nonce, src, d_out, &mut witness)?;
            let st = PresentationStatement { elems: &elems, d: d_out, d_y: None, k };
            sigma::prove(&PRESENTATION_SESSION, &st, &witness, src, proof_out)?;
            Ok(Presentation { nonce, len })
        })();
        if result.is_err() {
            out.zeroize();
        }
        result
    }

    /// The presentation statement's elements (G, H, U, UPrimeCommit,
    /// m1Commit, V, X1, tag, generatorT, nonceCommit: §4.3.2), with the
    /// witness's m1, z, −r, nonce and nonceBlinding. A frame of its own
    /// (never inlined): its products' temporaries are gone before the proof,
    /// whose frames stack deepest.
    #[inline(never)]
    fn commitments<S: ScalarSource + ?Sized>(
        &self,
        nonce: u32,
        src: &mut S,
        witness: &mut PresentationWitness,
    ) -> Result<[Elem; 10]> {
        // Every secret intermediate lives out here, wiped on every path.
        let (mut nonce_s, mut nonce_blinding, mut inv) = (Scalar::from(u64::from(nonce)), Scalar::ZERO, Scalar::ZERO);
        let mut a = src.random_scalar()?;
        let mut r = src.random_scalar()?;
        let mut z = src.random_scalar()?;
        let result = (|| {
            let c = &self.credential;
            let u = Elem::public(mul_var(&[(c.u.point, a)])?)?;
            let u_prime_commit = Elem::public(combine(Some(&r), None, &[(c.u_prime.point, a)])?)?;
            let m1_commit = Elem::public(combine(None, Some(&z), &[(u.point, c.m1)])?)?;
            nonce_blinding = src.random_scalar()?;
            let nonce_commit = Elem::public(mul_gh(Some(&nonce_s), Some(&nonce_blinding))?)?;
            let inverse = (c.m1 + nonce_s).invert();
            let mut ok = inverse.is_some();
            crate::ct::declassify(&mut ok);
            if !bool::from(ok) {
                return Err(Error::InvalidScalar);
            }
            inv = inverse.unwrap_or(Scalar::ZERO);
            let tag = Elem::public(mul_var(&[(self.generator_t.point, inv)])?)?;
            let v = Elem::from_point(combine(Some(&-r), None, &[(c.x1.point, z)])?)?;
            witness.head = [c.m1, z, -r, nonce_s, nonce_blinding];
            Ok([
                generator_g(),
                generator_h()?,
                u,
                u_prime_commit,
                m1_commit,
                v,
                c.x1,
                tag,
                self.generator_t,
                nonce_commit,
            ])
        })();
        a.zeroize();
        nonce_s.zeroize();
        nonce_blinding.zeroize();
        inv.zeroize();
        r.zeroize();
        z.zeroize();
        result
    }

    /// The state as bytes (secret: it holds the credential), wiped when the
    /// returned value drops.
    pub fn export(&self) -> Zeroizing<[u8; Self::STATE_LEN]> {
        let mut out = Zeroizing::new([0u8; Self::STATE_LEN]);
        let cred = self.credential.export();
        write_parts(
            &mut *out,
            &[&*cred, &self.generator_t.bytes, &self.next_nonce.to_be_bytes(), &self.limit.to_be_bytes()],
        );
        out
    }

    /// Reads an [`export`](Self::export)ed state.
    pub fn import(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::STATE_LEN {
            return Err(Error::InvalidLength(Field::State));
        }
        let (cred, rest) = bytes.split_at(Credential::LEN);
        let (t, rest) = rest.split_at(NE);
        let (nonce, limit) = rest.split_at(8);
        let next_nonce = u64::from_be_bytes(nonce.try_into().map_err(|_| Error::InvalidLength(Field::State))?);
        let limit = u64::from_be_bytes(limit.try_into().map_err(|_| Error::InvalidLength(Field::State))?);
        Bases::new(limit).map_err(|_| Error::InvalidValue(Field::State))?;
        let mut past = next_nonce.ct_gt(&limit);
        crate::ct::declassify(&mut past);
        if bool::from(past) {
            return Err(Error::InvalidValue(Field::State));
        }
        Ok(Self { credential: Credential::import(cred)?, generator_t: Elem::decode(t)?, next_nonce, limit })
    }
}
