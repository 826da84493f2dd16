//! The partially oblivious mode (modePOPRF = 0x02, RFC 9497 §3.3.3): a VOPRF
//! whose output also depends on a public `info` string that both sides know.
//!
//! The server does not multiply by its key `skS` but by the inverse of a
//! tweaked key `t = skS + m`, where `m = HashToScalar("Info" ||
//! I2OSP(len(info), 2) || info)`; the client checks the proof against the
//! tweaked public key `T = m·G + pkS` it computes itself. Privacy Pass token
//! type 0xDA7B (draft-ietf-privacypass-public-metadata-issuance-03 §5) runs
//! it with P-384 and the serialized token extensions as `info`.
//!
//! | step | client | server |
//! |---|---|---|
//! | setup (§3.2) | – | [`derive_key_pair`] (or the VOPRF [`generate_key_pair`](super::generate_key_pair)) |
//! | request | [`blind`] → ([`Blind`], [`Element`], [`TweakedKey`]) | – |
//! | response | – | [`blind_evaluate`] → evaluated elements + [`Proof`] |
//! | output | [`finalize`] (verifies the proof) | – |
//! | redemption | – | [`evaluate`] / [`verify_output`] |
//!
//! # Constant time
//!
//! The tweaked secret `t`, its inverse and the products with them are secret
//! and handled in constant time; `m` and the tweaked public key depend only
//! on public data. The one branch on `t` is the abort when it is zero
//! (`InverseError` in the RFC), which only an `info` built from the secret
//! key can reach.
//!
//! # Proof
//!
//! The proof is RFC 9497's DLEQ with the roles of the two lists swapped: it
//! shows `T = t·G` and `blinded_i = t·evaluated_i`. The prover computes
//! `Z = Σ d_i·blinded_i` over public points and `M = t⁻¹·Z`, so no evaluated
//! element has to be decoded again.

use rand_core::TryCryptoRng;
use zeroize::{Zeroize, Zeroizing};

use super::protocol::{blind_in, check_batch, derive_key_pair_in, finalize_hash, random_blind, unblind_and_hash};
use super::suite::{Context, Mode, Suite, len2};
use super::{Blind, Element, KeyPair, Proof, PublicKey, SecretKey, dleq, output_ct_eq};
use crate::error::{Error, Field, Result};

/// The client's tweaked public key `T = m·G + pkS` (RFC 9497 §3.3.3
/// `Blind`), kept with the blind until [`finalize`]. Public: it depends only
/// on the server's public key and the `info`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct TweakedKey<S: Suite>(PublicKey<S>);

impl<S: Suite> TweakedKey<S> {
    /// `T = m·G + pkS` for this `info`: what [`blind`] returns, computed on
    /// its own (an exported client state keeps the blind and recomputes this).
    /// Errors: [`Error::InvalidLength`]`(Field::Info)` for an `info` over
    /// 65535 bytes, [`Error::InvalidElement`] if `T` is the identity (the
    /// RFC's `InvalidInputError`).
    pub fn new(pk: &PublicKey<S>, info: &[u8]) -> Result<Self> {
        let m = info_scalar::<S>(info)?;
        let tweaked = S::mul_base(&m) + *pk.as_element().point();
        // `from_point` refuses the identity (InvalidElement).
        Element::from_point(tweaked).map(|e| Self(PublicKey(e)))
    }

    /// `SerializeElement(T)` (RFC 9497 §2.1).
    pub fn as_bytes(&self) -> &S::ElementBytes {
        self.0.as_bytes()
    }

    /// Parses a serialized tweaked key (RFC 9497 §2.1 `DeserializeElement`).
    pub fn from_bytes(bytes: &S::ElementBytes) -> Result<Self> {
        PublicKey::from_bytes(bytes).map(Self)
    }
}

impl<S: Suite> core::fmt::Debug for TweakedKey<S> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        crate::hex::debug_bytes(f, "TweakedKey", self.as_bytes().as_ref())
    }
}

/// `m = G.HashToScalar("Info" || I2OSP(len(info), 2) || info)` with the
/// POPRF context string (RFC 9497 §3.3.3).
fn info_scalar<S: Suite>(info: &[u8]) -> Result<S::Scalar> {
    let ctx = Context::<S>::new(Mode::Poprf);
    let info_len = len2(info.len(), Field::Info)?;
    S::hash_to_scalar(&[b"Info", &info_len, info], &ctx.with_prefix(b"HashToScalar-"))
}

/// The server's tweaked key `t = skS + m` and its inverse (RFC 9497 §3.3.3
/// `BlindEvaluate`, `Evaluate`); [`Error::InvalidScalar`] if `t` is zero.
fn tweak_secret<S: Suite>(key: &SecretKey<S>, info: &[u8]) -> Result<(SecretKey<S>, Zeroizing<S::Scalar>)> {
    let m = info_scalar::<S>(info)?;
    let t = SecretKey(*key.scalar() + m);
    let mut zero = S::scalar_is_zero(t.scalar());
    // Verdict only: t = 0 needs an info whose hash is -skS, i.e. knowledge of
    // the key; the RFC aborts (InverseError).
    crate::ct::declassify(&mut zero);
    if bool::from(zero) {
        return Err(Error::InvalidScalar);
    }
    let inverse = Zeroizing::new(S::invert(t.scalar())?);
    Ok((t, inverse))
}

/// `DeriveKeyPair(seed, info)` (RFC 9497 §3.2.1) with the POPRF context
/// string. Privacy Pass type 0xDA7B derives its keys with the `info`
/// `"PrivacyPass-TypeDA7B"`. Errors as for the VOPRF
/// [`derive_key_pair`](super::derive_key_pair).
pub fn derive_key_pair<S: Suite>(seed: &[u8], info: &[u8]) -> Result<KeyPair<S>> {
    derive_key_pair_in(Mode::Poprf, seed, info)
}

/// `Blind(input, info, pkS)` with the blind already chosen.
pub(crate) fn blind_in_poprf<S: Suite>(
    input: &[u8],
    info: &[u8],
    pk: &PublicKey<S>,
    blind: Blind<S>,
) -> Result<(Blind<S>, Element<S>, TweakedKey<S>)> {
    let tweaked = TweakedKey::new(pk, info)?;
    let (blind, blinded) = blind_in(Mode::Poprf, input, blind)?;
    Ok((blind, blinded, tweaked))
}

/// The blinding half of `Blind` (RFC 9497 §3.3.3) with the blind chosen:
/// `blind·HashToGroup(input)` under the POPRF context string, without the
/// tweaked key (a token client computes that at finalize, from the
/// extensions it finalizes with).
pub(crate) fn blind_input<S: Suite>(input: &[u8], blind: Blind<S>) -> Result<(Blind<S>, Element<S>)> {
    blind_in(Mode::Poprf, input, blind)
}

/// [`blind_input`] with a fresh random blind.
pub(crate) fn blind_input_random<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(
    input: &[u8],
    rng: &mut R,
) -> Result<(Blind<S>, Element<S>)> {
    blind_input(input, random_blind(rng)?)
}

/// `Blind(input, info, pkS)` (RFC 9497 §3.3.3): a random non-zero blind `r`,
/// `blindedElement = r·HashToGroup(input)` and the tweaked key `T` that the
/// proof will be checked against.
///
/// Keep the [`Blind`], the blinded [`Element`] and the [`TweakedKey`] for
/// [`finalize`]; send [`Element::as_bytes`]. Errors:
/// [`Error::InvalidLength`] for an input or `info` over 65535 bytes,
/// [`Error::InvalidElement`] if the input hashes to the identity or `T` is
/// the identity, [`Error::Rng`].
pub fn blind<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(
    input: &[u8],
    info: &[u8],
    pk: &PublicKey<S>,
    rng: &mut R,
) -> Result<(Blind<S>, Element<S>, TweakedKey<S>)> {
    blind_in_poprf(input, info, pk, random_blind(rng)?)
}

/// `BlindEvaluateBatch` (RFC 9497 §3.3.3 with the batched proof of §2.2):
/// writes `SerializeElement(t⁻¹·C_i)` into `evaluated[i]`, with
/// `t = skS + HashToScalar(framed info)`, and returns one DLEQ proof for the
/// whole batch, made with a fresh random nonce.
///
/// `blinded` and `evaluated` must have the same length, from 1 to 65535
/// ([`Error::InvalidLength`]`(Field::Batch)`). Errors:
/// [`Error::InvalidLength`]`(Field::Info)`, [`Error::InvalidScalar`] if `t`
/// is zero, [`Error::Rng`].
pub fn blind_evaluate<S: Suite, R: TryCryptoRng<Error: 'static> + ?Sized>(
    key: &SecretKey<S>,
    blinded: &[Element<S>],
    info: &[u8],
    evaluated: &mut [S::ElementBytes],
    rng: &mut R,
) -> Result<Proof<S>> {
    check_batch(blinded.len(), &[evaluated.len()])?;
    let nonce = Zeroizing::new(S::random_scalar(rng)?);
    evaluate_and_prove(key, blinded, info, evaluated, &nonce)
}

/// `BlindEvaluateBatch` and `GenerateProof` for a checked batch.
pub(super) fn evaluate_and_prove<S: Suite>(
    key: &SecretKey<S>,
    blinded: &[Element<S>],
    info: &[u8],
    evaluated: &mut [S::ElementBytes],
    nonce: &Zeroizing<S::Scalar>,
) -> Result<Proof<S>> {
    let (t, t_inv) = tweak_secret(key, info)?;
    // evaluated_i = t⁻¹·blinded_i, sent to the client.
    let points_inv = SecretKey(*t_inv);
    super::protocol::evaluate_elements(&points_inv, blinded, evaluated)?;
    // The tweaked key pair (t, T = t·G): T is public, the client computes it.
    let tweaked = KeyPair::from_secret_key(t)?;
    let ctx = Context::new(Mode::Poprf);
    dleq::generate_proof_inverse(&ctx, &tweaked, &t_inv, blinded, evaluated, nonce)
}

/// `FinalizeBatch` (RFC 9497 §3.3.3): verifies the proof against the tweaked
/// key over the whole batch, then writes
/// `Hash(len2(input_i) || input_i || len2(info) || info || len2(N_i) || N_i ||
/// "Finalize")` with `N_i = blind_i⁻¹·evaluated_i` into `outputs[i]`.
///
/// All slices must have the same length, from 1 to 65535
/// ([`Error::InvalidLength`]`(Field::Batch)`). A proof that does not verify
/// gives [`Error::Verification`] and leaves `outputs` untouched.
#[allow(clippy::too_many_arguments)] // the RFC's Finalize arguments, plus the output slice
pub fn finalize<S: Suite>(
    tweaked: &TweakedKey<S>,
    inputs: &[&[u8]],
    blinds: &[Blind<S>],
    blinded: &[Element<S>],
    evaluated: &[Element<S>],
    proof: &Proof<S>,
    info: &[u8],
    outputs: &mut [S::Output],
) -> Result<()> {
    check_batch(inputs.len(), &[blinds.len(), blinded.len(), evaluated.len(), outputs.len()])?;
    len2(info.len(), Field::Info)?;
    // The proof shows T = t·G and blinded_i = t·evaluated_i: the evaluated
    // elements are the proof's C list and the blinded ones its D list.
    dleq::verify_proof(&Context::new(Mode::Poprf), &tweaked.0, evaluated, blinded, proof)?;
    unblind_and_hash(inputs, Some(info), blinds, evaluated, outputs)
}

/// `Evaluate(skS, input, info)` (RFC 9497 §3.3.3): the PRF output computed
/// directly by the server from `t⁻¹·HashToGroup(input)`. Privacy Pass
/// issuers of type 0xDA7B use it to check a token's authenticator; see
/// [`verify_output`]. Errors: [`Error::InvalidLength`] for an input or `info`
/// over 65535 bytes, [`Error::InvalidElement`] if the input hashes to the
/// identity, [`Error::InvalidScalar`] if `t` is zero.
pub fn evaluate<S: Suite>(key: &SecretKey<S>, input: &[u8], info: &[u8]) -> Result<S::Output> {
    let ctx = Context::<S>::new(Mode::Poprf);
    len2(input.len(), Field::Message)?;
    let (t, t_inv) = tweak_secret(key, info)?;
    drop(t); // wiped: only the inverse is needed
    let (mut n, mut e) = S::hash_mul(&[input], &ctx.with_prefix(b"HashToGroup-"), &t_inv)?;
    let result = finalize_hash::<S>(input, Some(info), &e);
    e.zeroize();
    n.zeroize();
    result
}

/// Recomputes [`evaluate`] and compares it with `output` in constant time;
/// [`Error::Verification`] on mismatch.
pub fn verify_output<S: Suite>(key: &SecretKey<S>, input: &[u8], info: &[u8], output: &S::Output) -> Result<()> {
    let expected = Zeroizing::new(evaluate(key, input, info)?);
    let mut ok = output_ct_eq::<S>(&expected, output);
    crate::ct::declassify(&mut ok); // the verification verdict: the token is accepted or not
    if bool::from(ok) { Ok(()) } else { Err(Error::Verification) }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;
    use crate::crypto::voprf::P384Sha384;

    /// An `info` whose hash is minus the key: t = 0 is refused everywhere
    /// (the RFC's InverseError), and the tweaked public key is the identity.
    #[test]
    fn a_key_tweaked_to_zero_is_refused() {
        let info = b"some info";
        let m = info_scalar::<P384Sha384>(info).unwrap();
        let key = SecretKey::<P384Sha384>(<P384Sha384 as Suite>::Scalar::default() - m);
        let pair = KeyPair::from_secret_key(key).unwrap();
        let sk = pair.secret_key();
        assert_eq!(evaluate(sk, b"input", info).err(), Some(Error::InvalidScalar));
        assert_eq!(TweakedKey::new(pair.public_key(), info).err(), Some(Error::InvalidElement));
        let (_, blinded) = blind_input::<P384Sha384>(b"input", Blind::new(m).unwrap()).unwrap();
        let mut out = [[0u8; 49]];
        let mut rng = rand_core::UnwrapErr(crate::OsRng);
        assert_eq!(blind_evaluate(sk, &[blinded], info, &mut out, &mut rng).err(), Some(Error::InvalidScalar));
        // Any other info works with that key.
        assert!(evaluate(sk, b"input", b"other").is_ok());
    }

    /// An `info` of 65536 bytes is over the limit of its 2-byte length.
    #[test]
    fn info_over_65535_bytes_is_refused() {
        let pair = derive_key_pair::<P384Sha384>(&[1; 32], b"k").unwrap();
        let long = [0u8; 65536];
        assert_eq!(evaluate(pair.secret_key(), b"x", &long).err(), Some(Error::InvalidLength(Field::Info)));
        assert_eq!(TweakedKey::new(pair.public_key(), &long).err(), Some(Error::InvalidLength(Field::Info)));
        assert!(evaluate(pair.secret_key(), b"x", &long[..65535]).is_ok());
    }
}
