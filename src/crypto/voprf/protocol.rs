//! The VOPRF protocol functions (RFC 9497 §3.2, §3.3.1, §3.3.2), shared with
//! the base OPRF mode through a private `Mode` argument.

use rand_core::TryCryptoRng;
use zeroize::{Zeroize, Zeroizing};

use super::suite::{ByteArray, Context, Mode, Suite, len2};
use super::{Blind, Element, KeyPair, Proof, PublicKey, SecretKey, dleq, output_ct_eq};
use crate::error::{Error, Field, Result};

/// Blinded elements are evaluated and serialized this many at a time, so
/// that the suite can normalize them with one field inversion (a client
/// unblinds one element at a time: each has its own scalar).
const CHUNK: usize = 8;

/// Checks that a batch has between 1 and 65535 elements (the composite index
/// is `I2OSP(i, 2)`, RFC 9497 §2.2.1) and that every companion slice has the
/// same length.
pub(crate) fn check_batch(len: usize, others: &[usize]) -> Result<()> {
    if len == 0 || len > usize::from(u16::MAX) || others.iter().any(|&o| o != len) {
        return Err(Error::InvalidLength(Field::Batch));
    }
    Ok(())
}

/// `DeriveKeyPair(seed, info)` (RFC 9497 §3.2.1) in the given mode.
pub(crate) fn derive_key_pair_in<S: Suite>(mode: Mode, seed: &[u8], info: &[u8]) -> Result<KeyPair<S>> {
    let ctx = Context::<S>::new(mode);
    let info_len = len2(info.len(), Field::Key)?;
    // DST = "DeriveKeyPair" || contextString (no dash).
    let dst = ctx.with_prefix(b"DeriveKeyPair");
    for counter in 0u8..=u8::MAX {
        let sk = S::hash_to_scalar(&[seed, &info_len, info, &[counter]], &dst)?;
        if !bool::from(S::scalar_is_zero(&sk)) {
            return KeyPair::from_secret_key(SecretKey(sk));
        }
    }
    Err(Error::DeriveKeyPair)
}

/// `Blind(input)` with the blind already chosen (RFC 9497 §3.3.1).
pub(crate) fn blind_in<S: Suite>(mode: Mode, input: &[u8], blind: Blind<S>) -> Result<(Blind<S>, Element<S>)> {
    let ctx = Context::<S>::new(mode);
    len2(input.len(), Field::Message)?;
    let (mut point, mut bytes) = S::hash_mul(&[input], &ctx.with_prefix(b"HashToGroup-"), blind.scalar())?;
    // The blinded element is sent to the server.
    crate::ct::declassify(&mut point);
    crate::ct::declassify(&mut bytes);
    Ok((blind, Element::from_parts(point, bytes)))
}

/// A random non-zero blind (RFC 9497 §3.3.1 `G.RandomScalar()`).
pub(crate) fn random_blind<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<Blind<S>> {
    Blind::new(S::random_scalar(rng)?)
}

/// `evaluatedElement_i = skS·blindedElement_i`, serialized into `evaluated`
/// (RFC 9497 §3.3.1 `BlindEvaluate`), normalized [`CHUNK`] at a time.
pub(crate) fn evaluate_elements<S: Suite>(
    key: &SecretKey<S>,
    blinded: &[Element<S>],
    evaluated: &mut [S::ElementBytes],
) -> Result<()> {
    check_batch(blinded.len(), &[evaluated.len()])?;
    let k = key.scalar();
    for (inp, out) in blinded.chunks(CHUNK).zip(evaluated.chunks_mut(CHUNK)) {
        let mut points = [S::Point::default(); CHUNK];
        for (p, c) in points.iter_mut().zip(inp) {
            *p = *c.point();
        }
        let points = points.get(..inp.len()).ok_or(Error::InvalidLength(Field::Batch))?;
        S::mul_serialize(k, points, out)?;
        crate::ct::declassify(out); // the evaluated elements are sent to the client
    }
    Ok(())
}

/// `Hash(I2OSP(len(input), 2) || input || I2OSP(len(element), 2) || element ||
/// "Finalize")` (RFC 9497 §3.3.1 `Finalize`, §3.3.2 `Evaluate`); with `info`
/// (the POPRF mode, §3.3.3), `I2OSP(len(info), 2) || info` comes between the
/// input and the element.
pub(crate) fn finalize_hash<S: Suite>(
    input: &[u8],
    info: Option<&[u8]>,
    element: &S::ElementBytes,
) -> Result<S::Output> {
    let input_len = len2(input.len(), Field::Message)?;
    let elem_len = len2(S::NE, Field::Message)?;
    Ok(match info {
        None => S::hash_parts(&[&input_len, input, &elem_len, element.as_ref(), b"Finalize"]),
        Some(info) => {
            let info_len = len2(info.len(), Field::Info)?;
            S::hash_parts(&[&input_len, input, &info_len, info, &elem_len, element.as_ref(), b"Finalize"])
        }
    })
}

/// The unblinding half of `Finalize` (RFC 9497 §3.3.1): for each `i`,
/// `N = blind_i⁻¹·evaluatedElement_i` and the `Finalize` hash (with the POPRF
/// `info` if there is one, §3.3.3). Lengths are checked by the caller.
pub(crate) fn unblind_and_hash<S: Suite>(
    inputs: &[&[u8]],
    info: Option<&[u8]>,
    blinds: &[Blind<S>],
    evaluated: &[Element<S>],
    outputs: &mut [S::Output],
) -> Result<()> {
    let mut encoded = S::ElementBytes::ZERO;
    let result = (|| {
        for (((input, b), e), out) in inputs.iter().zip(blinds).zip(evaluated).zip(outputs.iter_mut()) {
            // Each element has its own scalar, so each is one product: for
            // P-384 the Jacobian path (table, constant-time multiplication,
            // one inversion), cheaper than a projective product normalized
            // in a batch.
            let inverse = Zeroizing::new(S::invert(b.scalar())?);
            S::unblind_serialize(&inverse, e.point(), &mut encoded)?;
            *out = finalize_hash::<S>(input, info, &encoded)?;
        }
        Ok(())
    })();
    // The unblinded element determines the output: wipe it.
    encoded.zeroize();
    result
}

/// `Evaluate(skS, input)` (RFC 9497 §3.3.2) in the given mode.
pub(crate) fn evaluate_in<S: Suite>(mode: Mode, key: &SecretKey<S>, input: &[u8]) -> Result<S::Output> {
    let ctx = Context::<S>::new(mode);
    len2(input.len(), Field::Message)?;
    let (mut n, mut e) = S::hash_mul(&[input], &ctx.with_prefix(b"HashToGroup-"), key.scalar())?;
    let result = finalize_hash::<S>(input, None, &e);
    e.zeroize();
    n.zeroize();
    result
}

// ---- VOPRF (mode 0x01) ------------------------------------------------------

/// `DeriveKeyPair(seed, info)` (RFC 9497 §3.2.1) for the VOPRF mode: hashes
/// `seed || I2OSP(len(info), 2) || info || I2OSP(counter, 1)` to a scalar with
/// DST `"DeriveKeyPair" || contextString` until it is non-zero.
///
/// RFC 9497 specifies a 32-byte uniformly random `seed`; other lengths are
/// accepted for interoperability (pat-go derives test keys from shorter
/// seeds). Errors: [`Error::InvalidLength`] if `info` exceeds 65535 bytes,
/// [`Error::DeriveKeyPair`] if 256 counters all give zero.
pub fn derive_key_pair<S: Suite>(seed: &[u8], info: &[u8]) -> Result<KeyPair<S>> {
    derive_key_pair_in(Mode::Voprf, seed, info)
}

/// `GenerateKeyPair()` (RFC 9497 §3.2): a random non-zero `skS` and
/// `pkS = skS·G`. [`Error::Rng`] if the generator fails.
pub fn generate_key_pair<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R) -> Result<KeyPair<S>> {
    KeyPair::from_secret_key(SecretKey(S::random_scalar(rng)?))
}

/// `Blind(input)` (RFC 9497 §3.3.1, used by the VOPRF client of §3.3.2):
/// a random non-zero blind `r` and `blindedElement = r·HashToGroup(input)`.
///
/// Keep the [`Blind`] and the blinded [`Element`] for [`finalize`]; send
/// [`Element::as_bytes`]. Errors: [`Error::InvalidLength`] for inputs over
/// 65535 bytes, [`Error::InvalidElement`] if the input hashes to the identity,
/// [`Error::Rng`].
pub fn blind<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(
    input: &[u8],
    rng: &mut R,
) -> Result<(Blind<S>, Element<S>)> {
    blind_in(Mode::Voprf, input, random_blind(rng)?)
}

/// `BlindEvaluateBatch` (RFC 9497 §3.3.2, with the batched proof of §2.2):
/// writes `SerializeElement(skS·C_i)` into `evaluated[i]` and returns one DLEQ
/// proof for the whole batch, made with a fresh random nonce.
///
/// `blinded` and `evaluated` must have the same length, from 1 to 65535
/// ([`Error::InvalidLength`]`(Field::Batch)`). The blinded elements were
/// validated when they were parsed ([`Element::from_bytes`]).
pub fn blind_evaluate<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(
    key: &KeyPair<S>,
    blinded: &[Element<S>],
    evaluated: &mut [S::ElementBytes],
    rng: &mut R,
) -> Result<Proof<S>> {
    check_batch(blinded.len(), &[evaluated.len()])?;
    let nonce = Zeroizing::new(S::random_scalar(rng)?);
    evaluate_and_prove(key, blinded, evaluated, &nonce)
}

/// `BlindEvaluateBatch` and `GenerateProof` for a checked batch. A single
/// element is prepared once ([`Suite::prepare`]) for `k·B` and for the three
/// proof multiplications of `B`; larger batches evaluate each element once.
pub(super) fn evaluate_and_prove<S: Suite>(
    key: &KeyPair<S>,
    blinded: &[Element<S>],
    evaluated: &mut [S::ElementBytes],
    nonce: &Zeroizing<S::Scalar>,
) -> Result<Proof<S>> {
    let ctx = Context::new(Mode::Voprf);
    if let ([b], [out]) = (blinded, &mut *evaluated) {
        let prepared = S::prepare(b.point())?;
        let mut c = [S::Point::default()];
        S::prepared_mul(&prepared, core::slice::from_ref(key.secret_key().scalar()), &mut c)?;
        S::serialize_elements(&c, core::slice::from_mut(out))?;
        // C = k·B is sent to the client.
        crate::ct::declassify(out);
        return dleq::generate_proof(&ctx, key, blinded, evaluated, nonce, Some(&prepared));
    }
    evaluate_elements(key.secret_key(), blinded, evaluated)?;
    dleq::generate_proof(&ctx, key, blinded, evaluated, nonce, None)
}

/// `FinalizeBatch` (RFC 9497 §3.3.2): verifies the proof over the whole batch,
/// then writes `Hash(len2(input_i) || input_i || len2(N_i) || N_i || "Finalize")`
/// with `N_i = blind_i⁻¹·evaluated_i` into `outputs[i]`.
///
/// All slices must have the same length, from 1 to 65535
/// ([`Error::InvalidLength`]`(Field::Batch)`). A proof that does not verify
/// gives [`Error::Verification`] and leaves `outputs` untouched.
pub fn finalize<S: Suite>(
    pk: &PublicKey<S>,
    inputs: &[&[u8]],
    blinds: &[Blind<S>],
    blinded: &[Element<S>],
    evaluated: &[Element<S>],
    proof: &Proof<S>,
    outputs: &mut [S::Output],
) -> Result<()> {
    check_batch(inputs.len(), &[blinds.len(), blinded.len(), evaluated.len(), outputs.len()])?;
    dleq::verify_proof(&Context::new(Mode::Voprf), pk, blinded, evaluated, proof)?;
    unblind_and_hash(inputs, None, blinds, evaluated, outputs)
}

/// `Evaluate(skS, input)` (RFC 9497 §3.3.2): the PRF output computed directly
/// by the server, `Hash(len2(input) || input || len2(Ser(skS·HashToGroup(input)))
/// || Ser(skS·HashToGroup(input)) || "Finalize")`. Privacy Pass issuers use it
/// to check a token's authenticator (RFC 9578 §5.4); see [`verify_output`].
pub fn evaluate<S: Suite>(key: &SecretKey<S>, input: &[u8]) -> Result<S::Output> {
    evaluate_in(Mode::Voprf, key, input)
}

/// Recomputes [`evaluate`] and compares it with `output` in constant time
/// (RFC 9578 §5.4 token verification); [`Error::Verification`] on mismatch.
pub fn verify_output<S: Suite>(key: &SecretKey<S>, input: &[u8], output: &S::Output) -> Result<()> {
    let expected = Zeroizing::new(evaluate(key, input)?);
    let mut ok = output_ct_eq::<S>(&expected, output);
    crate::ct::declassify(&mut ok); // the verification verdict: the token is accepted or not
    if bool::from(ok) { Ok(()) } else { Err(Error::Verification) }
}
