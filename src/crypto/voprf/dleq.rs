//! Batched discrete-log-equality proofs (RFC 9497 §2.2).
//!
//! The proof shows that `pkS = k·G` and `D_i = k·C_i` for every `i` with the
//! same `k`, through one composite pair `(M, Z)` (§2.2.1). The VOPRF proves
//! this for its key and `C` = the blinded elements; the POPRF for its
//! tweaked key and `C` = the evaluated elements ([`generate_proof_inverse`]).
//!
//! ARC's proofs come from a general sigma-protocol compiler
//! (`crypto::arc::sigma`); this module stays separate because RFC 9497's
//! transcript (the suite's hash, the `Seed`/`Composite`/`Challenge`
//! labels) is not that compiler's SHAKE128 sponge: the module header of
//! `sigma.rs` gives the whole reason.

use subtle::ConstantTimeEq;
use zeroize::Zeroizing;

use super::suite::{ByteArray, Context, Suite, len2};
use super::{Element, KeyPair, Proof, PublicKey};
use crate::error::{Error, Field, Result};

/// Terms handed to the suite's multi-scalar multiplication at once: with
/// `precomputed-tables` the ristretto255 suite interleaves up to sixteen over
/// one chain of doublings (P-384 four, splitting the sixteen itself); the
/// small-stack build sums pairs.
const LINCOMB_TERMS: usize = if cfg!(feature = "precomputed-tables") { 16 } else { 2 };

/// Accumulates `Σ s_i·P_i` over public data, feeding the suite's
/// multi-scalar multiplication [`LINCOMB_TERMS`] terms at a time (no
/// allocation).
struct LincombVartime<S: Suite> {
    buf: [(S::Point, S::Scalar); LINCOMB_TERMS],
    len: usize,
    acc: S::Point,
}

impl<S: Suite> LincombVartime<S> {
    fn new() -> Self {
        Self { buf: [(S::Point::default(), S::Scalar::default()); LINCOMB_TERMS], len: 0, acc: S::Point::default() }
    }

    fn push(&mut self, p: S::Point, s: S::Scalar) -> Result<()> {
        if self.len == self.buf.len() {
            self.flush()?;
        }
        let slot = self.buf.get_mut(self.len).ok_or(Error::InvalidLength(Field::Batch))?;
        *slot = (p, s);
        self.len += 1;
        Ok(())
    }

    fn flush(&mut self) -> Result<()> {
        let pairs = self.buf.get(..self.len).ok_or(Error::InvalidLength(Field::Batch))?;
        if !pairs.is_empty() {
            self.acc = self.acc + S::lincomb_vartime(pairs)?;
        }
        self.len = 0;
        Ok(())
    }

    fn finish(mut self) -> Result<S::Point> {
        self.flush()?;
        Ok(self.acc)
    }
}

/// `seed = Hash(I2OSP(len(Bm), 2) || Bm || I2OSP(len(seedDST), 2) || seedDST)`
/// with `seedDST = "Seed-" || contextString` (RFC 9497 §2.2.1).
fn composite_seed<S: Suite>(ctx: &Context<S>, pk: &S::ElementBytes) -> Result<S::Output> {
    const SEED: &[u8] = b"Seed-";
    let pk_len = len2(S::NE, Field::Key)?;
    let dst_len = len2(SEED.len() + Context::<S>::len(), Field::Key)?;
    let [p0, p1, p2, p3, p4] = ctx.with_prefix(SEED);
    Ok(S::hash_parts(&[&pk_len, pk.as_ref(), &dst_len, p0, p1, p2, p3, p4]))
}

/// `d_i = HashToScalar(I2OSP(len(seed), 2) || seed || I2OSP(i, 2) ||
/// I2OSP(len(Ci), 2) || Ci || I2OSP(len(Di), 2) || Di || "Composite")`
/// (RFC 9497 §2.2.1).
fn composite_scalar<S: Suite>(
    ctx: &Context<S>,
    seed: &S::Output,
    index: usize,
    c: &S::ElementBytes,
    d: &S::ElementBytes,
) -> Result<S::Scalar> {
    let seed_len = len2(S::NH, Field::Batch)?;
    let index = len2(index, Field::Batch)?;
    let elem_len = len2(S::NE, Field::Message)?;
    S::hash_to_scalar(
        &[&seed_len, seed.as_ref(), &index, &elem_len, c.as_ref(), &elem_len, d.as_ref(), b"Composite"],
        &ctx.with_prefix(b"HashToScalar-"),
    )
}

/// `c = HashToScalar(len2(Bm) || Bm || len2(a0) || a0 || … || len2(a3) || a3 ||
/// "Challenge")` with `a = [M, Z, t2, t3]` (RFC 9497 §2.2.1, §2.2.2).
fn challenge<S: Suite>(ctx: &Context<S>, pk: &S::ElementBytes, transcript: &[S::ElementBytes; 4]) -> Result<S::Scalar> {
    let elem_len = len2(S::NE, Field::Message)?;
    let [m, z, t2, t3] = transcript;
    S::hash_to_scalar(
        &[
            &elem_len,
            pk.as_ref(),
            &elem_len,
            m.as_ref(),
            &elem_len,
            z.as_ref(),
            &elem_len,
            t2.as_ref(),
            &elem_len,
            t3.as_ref(),
            b"Challenge",
        ],
        &ctx.with_prefix(b"HashToScalar-"),
    )
}

/// `GenerateProof(k, G, pkS, C, D)` with `ComputeCompositesFast`
/// (RFC 9497 §2.2.1), for a batch whose evaluations `D_i = k·C_i` are already
/// serialized in `evaluated`.
///
/// Work saved compared with a literal transcription of the RFC:
/// - `Z = k·M` is one constant-time multiplication instead of the `n` of
///   `Σ d_i·D_i`, and the `D_i` are never deserialized;
/// - `M = Σ d_i·C_i` involves only public values, so it is a variable-time
///   multi-scalar multiplication (interleaved wNAF, shared doublings);
/// - `Z = k·M` and `t3 = t·M` share one precomputation for `M`
///   ([`Suite::prepare`]); for a single element, `M`, `Z` and `t3` are
///   all multiples of `C_0` and share the precomputation that gave `D_0`
///   (`base`, prepared by the caller, or here if `None`);
/// - the blinded elements and the evaluated elements are hashed from their
///   existing encodings, and `M, Z, t2, t3` are serialized together with one
///   batch normalization (one field inversion on P-384 instead of four).
///
/// `nonce` is the proof randomness `r` (named `t` here to avoid confusion with
/// the client's blind); it must be a fresh uniformly random non-zero scalar.
pub(crate) fn generate_proof<S: Suite>(
    ctx: &Context<S>,
    key: &KeyPair<S>,
    blinded: &[Element<S>],
    evaluated: &[S::ElementBytes],
    nonce: &Zeroizing<S::Scalar>,
    base: Option<&S::Prepared>,
) -> Result<Proof<S>> {
    if blinded.len() != evaluated.len() {
        return Err(Error::InvalidLength(Field::Batch));
    }
    let k = key.secret_key().scalar();
    let pk = key.public_key().as_bytes();

    let seed = composite_seed(ctx, pk)?;
    let (m, z, t3) = if let ([b], [c]) = (blinded, evaluated) {
        // One element: M = d·B, Z = k·M = (k·d)·B and t3 = t·M = (t·d)·B are
        // three multiples of B, computed from the precomputation for B that
        // also gave C = k·B. The scalars k·d and t·d are secret: constant-time
        // multiplications, wiped after use.
        let prepared_here;
        let prepared = match base {
            Some(prepared) => prepared,
            None => {
                prepared_here = S::prepare(b.point())?;
                &prepared_here
            }
        };
        let d = composite_scalar(ctx, &seed, 0, b.as_bytes(), c)?;
        let scalars = Zeroizing::new([d, d * *k, d * **nonce]);
        let mut out = [S::Point::default(); 3];
        S::prepared_mul(prepared, scalars.as_ref(), &mut out)?;
        let [m, z, t3] = out;
        (m, z, t3)
    } else {
        let mut m = LincombVartime::<S>::new();
        for (i, (c, d)) in blinded.iter().zip(evaluated).enumerate() {
            let di = composite_scalar(ctx, &seed, i, c.as_bytes(), d)?;
            m.push(*c.point(), di)?;
        }
        let m = m.finish()?;
        // Z = k·M and t3 = t·M share the precomputation for M.
        let scalars = Zeroizing::new([*k, **nonce]);
        let mut out = [S::Point::default(); 2];
        S::prepared_mul(&S::prepare(&m)?, scalars.as_ref(), &mut out)?;
        let [z, t3] = out;
        (m, z, t3)
    };
    finish_proof(ctx, key, nonce, [m, z, t3])
}

/// The end of `GenerateProof` (RFC 9497 §2.2.1) once the composites and
/// `t3 = r·M` are known: `t2 = r·G`, the challenge over `[M, Z, t2, t3]`
/// (serialized together, one batch normalization) and `s = r − c·k`.
fn finish_proof<S: Suite>(
    ctx: &Context<S>,
    key: &KeyPair<S>,
    nonce: &Zeroizing<S::Scalar>,
    [m, z, t3]: [S::Point; 3],
) -> Result<Proof<S>> {
    let (mut m, mut z, mut t3) = (m, z, t3);
    let mut t2 = S::mul_base(nonce);
    // M, Z = k·M, t2 = r·G and t3 = r·M are public: the verifier recomputes
    // them as Σ d_i·C_i, Σ d_i·D_i, s·G + c·pk and s·M + c·Z.
    for p in [&mut m, &mut z, &mut t2, &mut t3] {
        crate::ct::declassify(p);
    }
    let pk = key.public_key().as_bytes();
    let mut transcript = [S::ElementBytes::ZERO; 4];
    S::serialize_elements(&[m, z, t2, t3], &mut transcript)?;
    let c = challenge(ctx, pk, &transcript)?;
    let mut s = **nonce - c * *key.secret_key().scalar();
    crate::ct::declassify(&mut s); // the proof (c, s) is sent to the client
    Ok(Proof { c, s })
}

/// `GenerateProof(t, G, T, C, D)` for the POPRF mode (RFC 9497 §3.3.3),
/// where `C_i = t⁻¹·D_i` are the evaluated elements (serialized in
/// `evaluated`) and `D_i` the blinded ones: `key` is `(t, T = t·G)`.
///
/// `Z = Σ d_i·D_i` is a variable-time multi-scalar multiplication over the
/// public blinded elements, and `M = Σ d_i·C_i = t⁻¹·Z` and `t3 = r·M` are
/// two constant-time multiples of `Z` sharing one precomputation: the
/// evaluated elements are hashed from their encodings and never decoded.
pub(crate) fn generate_proof_inverse<S: Suite>(
    ctx: &Context<S>,
    key: &KeyPair<S>,
    t_inv: &S::Scalar,
    blinded: &[Element<S>],
    evaluated: &[S::ElementBytes],
    nonce: &Zeroizing<S::Scalar>,
) -> Result<Proof<S>> {
    if blinded.len() != evaluated.len() {
        return Err(Error::InvalidLength(Field::Batch));
    }
    let pk = key.public_key().as_bytes();
    let seed = composite_seed(ctx, pk)?;
    let mut z = LincombVartime::<S>::new();
    for (i, (c, d)) in evaluated.iter().zip(blinded).enumerate() {
        let di = composite_scalar(ctx, &seed, i, c, d.as_bytes())?;
        z.push(*d.point(), di)?;
    }
    let z = z.finish()?;
    let scalars = Zeroizing::new([*t_inv, *t_inv * **nonce]);
    let mut out = [S::Point::default(); 2];
    S::prepared_mul(&S::prepare(&z)?, scalars.as_ref(), &mut out)?;
    let [m, t3] = out;
    finish_proof(ctx, key, nonce, [m, z, t3])
}

/// `VerifyProof(G, pkS, C, D, proof)` with `ComputeComposites`
/// (RFC 9497 §2.2.1, §2.2.2). Every failure is [`Error::Verification`].
///
/// All inputs are public, so everything is variable time:
/// `M = Σ d_i·C_i` and `Z = Σ d_i·D_i` are multi-scalar multiplications,
/// `t2 = s·G + c·pkS` and `t3 = s·M + c·Z` are one double-scalar
/// multiplication each, and `M, Z, t2, t3` are serialized together.
pub(crate) fn verify_proof<S: Suite>(
    ctx: &Context<S>,
    pk: &PublicKey<S>,
    blinded: &[Element<S>],
    evaluated: &[Element<S>],
    proof: &Proof<S>,
) -> Result<()> {
    if blinded.len() != evaluated.len() {
        return Err(Error::InvalidLength(Field::Batch));
    }
    let pk_bytes = pk.as_bytes();
    let seed = composite_seed(ctx, pk_bytes)?;
    let mut m = LincombVartime::<S>::new();
    let mut z = LincombVartime::<S>::new();
    for (i, (c, d)) in blinded.iter().zip(evaluated).enumerate() {
        let di = composite_scalar(ctx, &seed, i, c.as_bytes(), d.as_bytes())?;
        m.push(*c.point(), di)?;
        z.push(*d.point(), di)?;
    }
    let m = m.finish()?;
    let z = z.finish()?;

    let t2 = S::mul_base_add_vartime(&proof.s, &proof.c, pk.as_element().point());
    let t3 = S::lincomb_vartime(&[(m, proof.s), (z, proof.c)])?;

    let mut transcript = [S::ElementBytes::ZERO; 4];
    S::serialize_elements(&[m, z, t2, t3], &mut transcript).map_err(|_| Error::Verification)?;
    let expected = challenge(ctx, pk_bytes, &transcript)?;
    if bool::from(expected.ct_eq(&proof.c)) { Ok(()) } else { Err(Error::Verification) }
}
