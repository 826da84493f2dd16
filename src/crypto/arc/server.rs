//! The ARC server (draft-ietf-privacypass-arc-crypto-01 §4.1, §4.2.2,
//! §4.3.3): key generation, the credential response, and presentation
//! verification. Secret-key arithmetic is constant time. Checking the
//! client's proofs is variable time in the public scalars (challenge and
//! responses) only: in a presentation the statement also holds V, derived
//! from the key and from points the client chose (so V is secret: with it a
//! client could compute MACs), and V enters only as a base point of p256's
//! `lincomb_vartime`, whose timing depends on the scalars' digits and not on
//! the points (complete formulas, no point-dependent branches; the ctgrind
//! case `arc-issuer-verify` checks it). Unlike the reference code, a
//! statement whose elements repeat (m1Enc = m2Enc, two equal bit
//! commitments) is not refused; the proof still has to verify.

use p256::elliptic_curve::Field as _;
use p256::elliptic_curve::Group as _;
use p256::elliptic_curve::ops::LinearCombination;
use p256::{ProjectivePoint, Scalar};
use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;
use zeroize::{Zeroize, Zeroizing};

use super::fixed_base::{mul_gh, mul_var};
use super::group::{
    Elem, NE, NS, decode_scalar, encode_scalar, generator_g, generator_h, hash_to_group, hash_to_scalar_arc,
};
use super::messages::{CredentialRequest, CredentialResponse, PresentationRef, RESPONSE_PROOF_LEN};
use super::proofs::{
    Bases, PRESENTATION_SESSION, PresentationStatement, REQUEST_SESSION, RESPONSE_SESSION, RequestStatement,
    ResponseStatement,
};
use super::random::{FromRng, ScalarSource};
use super::sigma;
use crate::error::{Error, Field, Result};

/// `ServerPublicKey` (§4.1): X0 ‖ X1 ‖ X2.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ServerPublicKey {
    pub(crate) x0: Elem,
    pub(crate) x1: Elem,
    pub(crate) x2: Elem,
}

impl core::fmt::Debug for ServerPublicKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str("ServerPublicKey(")?;
        for b in self.to_bytes() {
            write!(f, "{b:02x}")?;
        }
        f.write_str(")")
    }
}

impl ServerPublicKey {
    /// `NserverPublicKey` = 3·Ne.
    pub const LEN: usize = 3 * NE;

    /// Decodes exactly [`LEN`](Self::LEN) bytes.
    pub fn decode(bytes: &[u8]) -> Result<Self> {
        if bytes.len() < Self::LEN {
            return Err(Error::Truncated);
        }
        if bytes.len() > Self::LEN {
            return Err(Error::TrailingBytes);
        }
        let (a, rest) = bytes.split_at(NE);
        let (b, c) = rest.split_at(NE);
        Ok(Self { x0: Elem::decode(a)?, x1: Elem::decode(b)?, x2: Elem::decode(c)? })
    }

    /// The encoding.
    pub fn to_bytes(&self) -> [u8; Self::LEN] {
        let mut out = [0u8; Self::LEN];
        for (chunk, e) in out.chunks_exact_mut(NE).zip([&self.x0, &self.x1, &self.x2]) {
            chunk.copy_from_slice(&e.bytes);
        }
        out
    }

    /// `issuer_key_id` = SHA-256 of the encoding (arc-protocol §5).
    pub fn key_id(&self) -> [u8; 32] {
        Sha256::digest(self.to_bytes()).into()
    }
}

/// `ServerPrivateKey` (§4.1): x0, x1, x2 and x0Blinding, with the public key.
pub struct ServerPrivateKey {
    x0: Scalar,
    x1: Scalar,
    x2: Scalar,
    xb: Scalar,
    public: ServerPublicKey,
}

impl Drop for ServerPrivateKey {
    fn drop(&mut self) {
        self.x0.zeroize();
        self.x1.zeroize();
        self.x2.zeroize();
        self.xb.zeroize();
    }
}

impl zeroize::ZeroizeOnDrop for ServerPrivateKey {}

impl core::fmt::Debug for ServerPrivateKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ServerPrivateKey").field("public", &self.public).finish_non_exhaustive()
    }
}

impl ConstantTimeEq for ServerPrivateKey {
    fn ct_eq(&self, other: &Self) -> subtle::Choice {
        self.x0.ct_eq(&other.x0) & self.x1.ct_eq(&other.x1) & self.x2.ct_eq(&other.x2) & self.xb.ct_eq(&other.xb)
    }
}

impl ServerPrivateKey {
    /// Length of [`to_bytes`](Self::to_bytes): x0 ‖ x1 ‖ x2 ‖ x0Blinding
    /// (this crate's format; the draft defines none for private keys).
    pub const LEN: usize = 4 * NS;

    /// `SetupServer()` (§4.1).
    pub fn generate<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Self> {
        Self::generate_with(&mut FromRng(rng))
    }

    pub(crate) fn generate_with<S: ScalarSource + ?Sized>(src: &mut S) -> Result<Self> {
        let mut s = Zeroizing::new([Scalar::ZERO; 4]);
        for slot in s.iter_mut() {
            *slot = src.random_scalar()?;
        }
        let [x0, x1, x2, xb] = *s;
        Self::from_scalars(x0, x1, x2, xb)
    }

    fn from_scalars(x0: Scalar, x1: Scalar, x2: Scalar, xb: Scalar) -> Result<Self> {
        // Wipes the scalars if no key forms (an identity public key,
        // probability about 2^-256); the key's own Drop wipes them otherwise.
        let _guard = Zeroizing::new([x0, x1, x2, xb]);
        let public = ServerPublicKey {
            x0: Elem::public(mul_gh(Some(&x0), Some(&xb))?)?,
            x1: Elem::public(mul_gh(None, Some(&x1))?)?,
            x2: Elem::public(mul_gh(None, Some(&x2))?)?,
        };
        Ok(Self { x0, x1, x2, xb, public })
    }

    /// Reads [`to_bytes`](Self::to_bytes); each scalar must be nonzero and
    /// below the order.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self> {
        if bytes.len() != Self::LEN {
            return Err(Error::InvalidLength(Field::Key));
        }
        let mut s = Zeroizing::new([Scalar::ZERO; 4]);
        for (slot, chunk) in s.iter_mut().zip(bytes.chunks_exact(NS)) {
            *slot = decode_scalar(chunk).map_err(|_| Error::InvalidKey)?;
            let mut zero = slot.is_zero();
            crate::ct::declassify(&mut zero);
            if bool::from(zero) {
                return Err(Error::InvalidKey);
            }
        }
        let [x0, x1, x2, xb] = *s;
        Self::from_scalars(x0, x1, x2, xb)
    }

    /// The secret key as bytes, wiped when the returned value drops.
    pub fn to_bytes(&self) -> Zeroizing<[u8; Self::LEN]> {
        let mut out = Zeroizing::new([0u8; Self::LEN]);
        for (chunk, s) in out.chunks_exact_mut(NS).zip([&self.x0, &self.x1, &self.x2, &self.xb]) {
            let mut b = encode_scalar(s);
            chunk.copy_from_slice(&b);
            b.zeroize();
        }
        out
    }

    /// The public key.
    pub fn public_key(&self) -> &ServerPublicKey {
        &self.public
    }

    /// `CreateCredentialResponse` (§4.2.2): checks the request proof, then
    /// MACs the client's commitments and proves it did so with this key.
    pub fn respond<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        request: &CredentialRequest,
        rng: &mut R,
    ) -> Result<CredentialResponse> {
        self.respond_with(request, &mut FromRng(rng))
    }

    pub(crate) fn respond_with<S: ScalarSource + ?Sized>(
        &self,
        request: &CredentialRequest,
        src: &mut S,
    ) -> Result<CredentialResponse> {
        let g = generator_g();
        let h = generator_h()?;
        let st = RequestStatement { elems: [&g, &h, &request.m1_enc, &request.m2_enc] };
        sigma::verify(&REQUEST_SESSION, &st, &request.proof)?;

        let mut b = src.random_scalar()?;
        let mut t1 = b * self.x1;
        let mut t2 = b * self.x2;
        let mut bxb = b * self.xb;
        let result = (|| {
            let pk = &self.public;
            let u = Elem::public(mul_gh(Some(&b), None)?)?;
            // encUPrime = b·(X0 + x1·m1Enc + x2·m2Enc) = b·X0 + t1·m1Enc + t2·m2Enc.
            let enc_u_prime = Elem::public(ProjectivePoint::lincomb(&[
                (pk.x0.point, b),
                (request.m1_enc.point, t1),
                (request.m2_enc.point, t2),
            ]))?;
            let x0_aux = Elem::public(mul_gh(None, Some(&bxb))?)?;
            let x1_aux = Elem::public(mul_var(&[(pk.x1.point, b)])?)?;
            let x2_aux = Elem::public(mul_var(&[(pk.x2.point, b)])?)?;
            let h_aux = Elem::public(mul_gh(None, Some(&b))?)?;
            let st = ResponseStatement {
                elems: [
                    &g,
                    &h,
                    &request.m1_enc,
                    &request.m2_enc,
                    &u,
                    &enc_u_prime,
                    &pk.x0,
                    &pk.x1,
                    &pk.x2,
                    &x0_aux,
                    &x1_aux,
                    &x2_aux,
                    &h_aux,
                ],
            };
            let mut proof = [0u8; RESPONSE_PROOF_LEN];
            let mut witness = [self.x0, self.x1, self.x2, self.xb, b, t1, t2];
            let proved = sigma::prove(&RESPONSE_SESSION, &st, witness.as_slice(), src, &mut proof);
            witness.zeroize();
            proved?;
            Ok(CredentialResponse { u, enc_u_prime, x0_aux, x1_aux, x2_aux, h_aux, proof })
        })();
        b.zeroize();
        t1.zeroize();
        t2.zeroize();
        bxb.zeroize();
        result
    }

    /// `VerifyPresentation` (§4.3.3): checks `presentation` for the request
    /// and presentation contexts (each the concatenation of its parts) and
    /// `limit`. On success the caller must still refuse a tag it has seen
    /// ([`PresentationRef::tag`]).
    pub fn verify_presentation(
        &self,
        request_context: &[&[u8]],
        presentation_context: &[&[u8]],
        presentation: &PresentationRef<'_>,
        limit: u64,
    ) -> Result<()> {
        let bases = Bases::new(limit)?;
        if bases.len != presentation.k {
            return Err(Error::InvalidLength(Field::Presentation));
        }
        let g = generator_g();
        let h = generator_h()?;
        let p = presentation;
        let m2 = hash_to_scalar_arc(request_context, b"requestContext")?;
        // V = x0·U + x1·m1Commit + x2·m2·U − UPrimeCommit (secret scalars).
        let mut ux = self.x0 + self.x2 * m2;
        let v = ProjectivePoint::lincomb(&[(p.u.point, ux), (p.m1_commit.point, self.x1)]) - p.u_prime_commit.point;
        ux.zeroize();
        // An identity V would need a forged MAC; it has no encoding.
        let v = Elem::from_point(v).map_err(|_| Error::Verification)?;
        let t = Elem::from_point(hash_to_group(presentation_context, b"Tag")?)?;
        // The bit commitments, decompressed once by `PresentationRef::decode`
        // (here rebuilt from x and the y it found), and
        // the sum check Σ base·D[i] = nonceCommit (public points and bases
        // below 2^32: variable-time double-and-add over the base's bits).
        let mut sum = ProjectivePoint::IDENTITY;
        for ((chunk, y), &base) in p.d.chunks_exact(NE).zip(p.d_y.iter()).zip(bases.as_slice()) {
            sum += mul_small_vartime(&Elem::from_xy(chunk, y)?.point, base);
        }
        if !bool::from(sum.ct_eq(&p.nonce_commit.point)) {
            return Err(Error::Verification);
        }
        let elems = [g, h, p.u, p.u_prime_commit, p.m1_commit, v, self.public.x1, p.tag, t, p.nonce_commit];
        let st = PresentationStatement { elems: &elems, d: p.d, d_y: Some(&p.d_y), k: p.k };
        sigma::verify(&PRESENTATION_SESSION, &st, p.proof)
    }
}

/// `base·p` for a public point and a public base, in variable time: a
/// doubling per bit below the top one and an addition per set bit (a bit
/// commitment times 1 is free, times 2^j takes j doublings).
fn mul_small_vartime(p: &ProjectivePoint, base: u32) -> ProjectivePoint {
    let mut acc = ProjectivePoint::IDENTITY;
    for bit in (0..u32::BITS - base.leading_zeros()).rev() {
        acc = acc.double();
        if (base >> bit) & 1 == 1 {
            acc += p;
        }
    }
    acc
}
