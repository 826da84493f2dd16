//! RFC 9497 Appendix A known-answer tests for `pat::crypto::voprf`, plus negative tests.
//!
//! The known-answer tests need the explicit-blind and explicit-nonce entry
//! points of `pat::hazmat::crypto::voprf`: the `hazmat` feature, which the crate's
//! dev-dependency on itself turns on for every `cargo test`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, clippy::indexing_slicing)]

use pat_testkit::{FailingRng, TestRng};

use pat::crypto::voprf::{
    self, Blind, ByteArray, Element, KeyPair, P384Sha384, Proof, PublicKey, Ristretto255Sha512, SecretKey, Suite,
};
use pat::{Error, Field, RngCode};
use serde_json::Value;

mod common;
use common::hex;

const VECTORS: &str = include_str!("vectors/rfc/rfc9497-voprf.json");

fn arr<A: ByteArray>(s: &str) -> A {
    A::from_slice(&hex(s)).expect("length")
}

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v[key].as_str().unwrap_or_else(|| panic!("missing {key}"))
}

fn strs<'a>(v: &'a Value, key: &str) -> Vec<&'a str> {
    v[key].as_array().unwrap_or_else(|| panic!("missing {key}")).iter().map(|x| x.as_str().unwrap()).collect()
}

/// Runs one VOPRF-mode vector (any batch size); returns 1.
fn run_voprf_vector<S: Suite>(block: &Value, v: &Value) -> usize {
    let name = format!("{} {}", str_of(block, "suite"), str_of(v, "rfc_section"));
    let seed = hex(str_of(block, "seed"));
    let info = hex(str_of(block, "key_info"));

    // DeriveKeyPair
    let kp = voprf::derive_key_pair::<S>(&seed, &info).unwrap();
    assert_eq!(kp.secret_key().to_bytes().as_ref(), &hex(str_of(block, "skSm"))[..], "{name} skSm");
    assert_eq!(kp.public_key().as_bytes().as_ref(), &hex(str_of(block, "pkSm"))[..], "{name} pkSm");

    let inputs_hex = strs(v, "input");
    let inputs: Vec<Vec<u8>> = inputs_hex.iter().map(|s| hex(s)).collect();
    let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let n = usize::try_from(v["batch_size"].as_u64().unwrap()).unwrap();
    assert_eq!(inputs.len(), n, "{name} batch size");

    // Blind (explicit blind)
    let mut blinds: Vec<Blind<S>> = Vec::new();
    let mut blinded: Vec<Element<S>> = Vec::new();
    for ((input, b), expected) in inputs.iter().zip(strs(v, "blind")).zip(strs(v, "blinded_element")) {
        let (blind, elem) = pat::hazmat::crypto::voprf::blind_with::<S>(input, &arr(b)).unwrap();
        assert_eq!(elem.as_bytes().as_ref(), &hex(expected)[..], "{name} blinded_element");
        blinds.push(blind);
        blinded.push(elem);
    }

    // BlindEvaluate with the given proof nonce: evaluation elements and proof byte for byte.
    let mut evaluated = vec![S::ElementBytes::ZERO; n];
    let proof = pat::hazmat::crypto::voprf::blind_evaluate_with_nonce(
        &kp,
        &blinded,
        &mut evaluated,
        &arr(str_of(v, "proof_random_scalar")),
    )
    .unwrap();
    for (got, expected) in evaluated.iter().zip(strs(v, "evaluation_element")) {
        assert_eq!(got.as_ref(), &hex(expected)[..], "{name} evaluation_element");
    }
    assert_eq!(proof.to_bytes().as_ref(), &hex(str_of(v, "proof"))[..], "{name} proof");

    // Finalize on the client side, from the wire encodings.
    let pk = PublicKey::<S>::from_bytes(&arr(str_of(block, "pkSm"))).unwrap();
    let ev: Vec<Element<S>> =
        strs(v, "evaluation_element").iter().map(|e| Element::from_bytes(&arr(e)).unwrap()).collect();
    let wire_proof = Proof::<S>::from_slice(&hex(str_of(v, "proof"))).unwrap();
    assert_eq!(wire_proof, proof);
    let mut outputs = vec![S::Output::ZERO; n];
    voprf::finalize(&pk, &input_refs, &blinds, &blinded, &ev, &wire_proof, &mut outputs).unwrap();
    let expected_outputs = strs(v, "output");
    for (got, expected) in outputs.iter().zip(&expected_outputs) {
        assert_eq!(got.as_ref(), &hex(expected)[..], "{name} output");
    }

    // Evaluate (server-side full evaluation) and the constant-time check.
    for (input, expected) in inputs.iter().zip(&expected_outputs) {
        let out = voprf::evaluate(kp.secret_key(), input).unwrap();
        assert_eq!(out.as_ref(), &hex(expected)[..], "{name} evaluate");
        voprf::verify_output(kp.secret_key(), input, &out).unwrap();
    }

    // Randomized BlindEvaluate: same evaluations, a different proof that verifies.
    let mut evaluated2 = vec![S::ElementBytes::ZERO; n];
    let proof2 = voprf::blind_evaluate(&kp, &blinded, &mut evaluated2, &mut TestRng::new(7)).unwrap();
    assert_eq!(evaluated, evaluated2);
    assert_ne!(proof2, proof, "{name}: random nonce gave the KAT proof");
    let mut outputs2 = vec![S::Output::ZERO; n];
    voprf::finalize(&pk, &input_refs, &blinds, &blinded, &ev, &proof2, &mut outputs2).unwrap();
    assert_eq!(outputs, outputs2);
    1
}

/// Runs one OPRF-mode vector: DeriveKeyPair, Blind, BlindEvaluate, Finalize,
/// Evaluate (no proof in this mode); returns 1.
fn run_oprf_vector<S: Suite>(block: &Value, v: &Value) -> usize {
    let name = format!("{} {}", str_of(block, "suite"), str_of(v, "rfc_section"));
    let seed = hex(str_of(block, "seed"));
    let info = hex(str_of(block, "key_info"));
    let kp = voprf::oprf::derive_key_pair::<S>(&seed, &info).unwrap();
    assert_eq!(kp.secret_key().to_bytes().as_ref(), &hex(str_of(block, "skSm"))[..], "{name} skSm");

    let inputs: Vec<Vec<u8>> = strs(v, "input").iter().map(|s| hex(s)).collect();
    let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let n = inputs.len();
    let mut blinds = Vec::new();
    let mut blinded = Vec::new();
    for ((input, b), expected) in inputs.iter().zip(strs(v, "blind")).zip(strs(v, "blinded_element")) {
        let (blind, elem) = pat::hazmat::crypto::voprf::oprf_blind_with::<S>(input, &arr(b)).unwrap();
        assert_eq!(elem.as_bytes().as_ref(), &hex(expected)[..], "{name} blinded_element");
        blinds.push(blind);
        blinded.push(elem);
    }
    let mut evaluated = vec![S::ElementBytes::ZERO; n];
    voprf::oprf::blind_evaluate(kp.secret_key(), &blinded, &mut evaluated).unwrap();
    for (got, expected) in evaluated.iter().zip(strs(v, "evaluation_element")) {
        assert_eq!(got.as_ref(), &hex(expected)[..], "{name} evaluation_element");
    }
    let ev: Vec<Element<S>> = evaluated.iter().map(|e| Element::from_bytes(e).unwrap()).collect();
    let mut outputs = vec![S::Output::ZERO; n];
    voprf::oprf::finalize(&input_refs, &blinds, &ev, &mut outputs).unwrap();
    for ((got, expected), input) in outputs.iter().zip(strs(v, "output")).zip(&inputs) {
        assert_eq!(got.as_ref(), &hex(expected)[..], "{name} output");
        let direct = voprf::oprf::evaluate(kp.secret_key(), input).unwrap();
        assert_eq!(direct.as_ref(), &hex(expected)[..], "{name} evaluate");
    }
    1
}

/// Runs one POPRF-mode vector (RFC 9497 §3.3.3, Appendix A.x.3): key
/// derivation, Blind with the tweaked key, BlindEvaluate byte for byte,
/// Finalize from the wire encodings, Evaluate; returns 1.
fn run_poprf_vector<S: Suite>(block: &Value, v: &Value) -> usize {
    use pat::crypto::voprf::poprf;
    use pat::hazmat::crypto::voprf::{poprf_blind_evaluate_with_nonce, poprf_blind_with};
    let name = format!("{} {}", str_of(block, "suite"), str_of(v, "rfc_section"));
    let seed = hex(str_of(block, "seed"));
    let kp = poprf::derive_key_pair::<S>(&seed, &hex(str_of(block, "key_info"))).unwrap();
    assert_eq!(kp.secret_key().to_bytes().as_ref(), &hex(str_of(block, "skSm"))[..], "{name} skSm");
    assert_eq!(kp.public_key().as_bytes().as_ref(), &hex(str_of(block, "pkSm"))[..], "{name} pkSm");
    // The POPRF key differs from the VOPRF key of the same seed: the mode is
    // in the context string.
    let voprf_kp = voprf::derive_key_pair::<S>(&seed, &hex(str_of(block, "key_info"))).unwrap();
    assert_ne!(voprf_kp.public_key(), kp.public_key(), "{name}: mode not in the DST");

    let info = hex(str_of(v, "info"));
    let inputs: Vec<Vec<u8>> = strs(v, "input").iter().map(|s| hex(s)).collect();
    let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let n = inputs.len();
    assert_eq!(n, usize::try_from(v["batch_size"].as_u64().unwrap()).unwrap(), "{name} batch size");
    let pk = PublicKey::<S>::from_bytes(&arr(str_of(block, "pkSm"))).unwrap();

    let mut blinds = Vec::new();
    let mut blinded = Vec::new();
    let mut tweaked = None;
    for ((input, b), expected) in inputs.iter().zip(strs(v, "blind")).zip(strs(v, "blinded_element")) {
        let (blind, elem, t) = poprf_blind_with::<S>(input, &info, &pk, &arr(b)).unwrap();
        assert_eq!(elem.as_bytes().as_ref(), &hex(expected)[..], "{name} blinded_element");
        assert_eq!(t, poprf::TweakedKey::new(&pk, &info).unwrap(), "{name} tweaked key");
        tweaked = Some(t);
        blinds.push(blind);
        blinded.push(elem);
    }
    let tweaked = tweaked.unwrap();

    let mut evaluated = vec![S::ElementBytes::ZERO; n];
    let proof = poprf_blind_evaluate_with_nonce(
        kp.secret_key(),
        &blinded,
        &info,
        &mut evaluated,
        &arr(str_of(v, "proof_random_scalar")),
    )
    .unwrap();
    for (got, expected) in evaluated.iter().zip(strs(v, "evaluation_element")) {
        assert_eq!(got.as_ref(), &hex(expected)[..], "{name} evaluation_element");
    }
    assert_eq!(proof.to_bytes().as_ref(), &hex(str_of(v, "proof"))[..], "{name} proof");

    let ev: Vec<Element<S>> =
        strs(v, "evaluation_element").iter().map(|e| Element::from_bytes(&arr(e)).unwrap()).collect();
    let wire_proof = Proof::<S>::from_slice(&hex(str_of(v, "proof"))).unwrap();
    let mut outputs = vec![S::Output::ZERO; n];
    poprf::finalize(&tweaked, &input_refs, &blinds, &blinded, &ev, &wire_proof, &info, &mut outputs).unwrap();
    let expected_outputs = strs(v, "output");
    for (got, expected) in outputs.iter().zip(&expected_outputs) {
        assert_eq!(got.as_ref(), &hex(expected)[..], "{name} output");
    }
    for (input, expected) in inputs.iter().zip(&expected_outputs) {
        let out = poprf::evaluate(kp.secret_key(), input, &info).unwrap();
        assert_eq!(out.as_ref(), &hex(expected)[..], "{name} evaluate");
        poprf::verify_output(kp.secret_key(), input, &info, &out).unwrap();
        // Another info gives another output.
        assert_eq!(
            poprf::verify_output(kp.secret_key(), input, b"other info", &out),
            Err(Error::Verification),
            "{name} info binding"
        );
    }

    // Finalize refuses the proof under another info (another tweaked key),
    // and leaves the outputs untouched.
    let other = poprf::TweakedKey::new(&pk, b"other info").unwrap();
    let mut untouched = vec![S::Output::ZERO; n];
    assert_eq!(
        poprf::finalize(&other, &input_refs, &blinds, &blinded, &ev, &wire_proof, &info, &mut untouched),
        Err(Error::Verification),
        "{name} tweaked key"
    );
    assert!(untouched.iter().all(|o| *o == S::Output::ZERO));

    // Randomized BlindEvaluate: same evaluations, another proof that verifies.
    let mut evaluated2 = vec![S::ElementBytes::ZERO; n];
    let proof2 =
        poprf::blind_evaluate(kp.secret_key(), &blinded, &info, &mut evaluated2, &mut TestRng::new(9)).unwrap();
    assert_eq!(evaluated, evaluated2);
    assert_ne!(proof2, proof);
    let mut outputs2 = vec![S::Output::ZERO; n];
    poprf::finalize(&tweaked, &input_refs, &blinds, &blinded, &ev, &proof2, &info, &mut outputs2).unwrap();
    assert_eq!(outputs, outputs2);
    1
}

fn run_block<S: Suite>(block: &Value) -> usize {
    assert_eq!(str_of(block, "suite"), S::ID);
    let vectors = block["vectors"].as_array().unwrap();
    match block["mode"].as_u64().unwrap() {
        0 => vectors.iter().map(|v| run_oprf_vector::<S>(block, v)).sum(),
        1 => vectors.iter().map(|v| run_voprf_vector::<S>(block, v)).sum(),
        2 => vectors.iter().map(|v| run_poprf_vector::<S>(block, v)).sum(),
        m => panic!("unknown mode {m}"),
    }
}

#[test]
fn rfc9497_appendix_a_vectors() {
    let doc: Value = serde_json::from_str(VECTORS).unwrap();
    let mut expected = [0usize; 3]; // [OPRF, VOPRF, POPRF] vectors in the file
    let mut executed = [0usize; 3];
    let mut voprf_batch2 = 0;
    for block in doc["suites"].as_array().unwrap() {
        let mode = block["mode"].as_u64().unwrap();
        let count = block["vectors"].as_array().unwrap().len();
        let slot = usize::try_from(mode).unwrap();
        expected[slot] += count;
        if mode == 1 {
            voprf_batch2 +=
                block["vectors"].as_array().unwrap().iter().filter(|v| v["batch_size"].as_u64() == Some(2)).count();
        }
        executed[slot] += match str_of(block, "suite") {
            "P384-SHA384" => run_block::<P384Sha384>(block),
            "ristretto255-SHA512" => run_block::<Ristretto255Sha512>(block),
            other => panic!("unknown suite {other}"),
        };
    }
    assert_eq!(executed, expected, "executed [OPRF, VOPRF, POPRF] vectors");
    // The file's README: 4 OPRF vectors, 6 VOPRF vectors (2 of batch size 2)
    // and 6 POPRF vectors (3 per suite, P384-SHA384 among them).
    assert_eq!(executed, [4, 6, 6]);
    assert_eq!(voprf_batch2, 2);
}

// ---- negative tests ---------------------------------------------------------

/// A key pair, two blinded inputs and their evaluation with a proof.
struct Fixture<S: Suite> {
    kp: KeyPair<S>,
    inputs: [&'static [u8]; 2],
    blinds: Vec<Blind<S>>,
    blinded: Vec<Element<S>>,
    evaluated: Vec<Element<S>>,
    proof: Proof<S>,
}

fn fixture<S: Suite>() -> Fixture<S> {
    let kp = voprf::derive_key_pair::<S>(&[0xa3; 32], b"test key").unwrap();
    let inputs: [&'static [u8]; 2] = [b"first input", b"second input"];
    let mut rng = TestRng::new(1);
    let (b0, e0) = voprf::blind::<S, _>(inputs[0], &mut rng).unwrap();
    let (b1, e1) = voprf::blind::<S, _>(inputs[1], &mut rng).unwrap();
    let blinded = vec![e0, e1];
    let mut ev = [S::ElementBytes::ZERO; 2];
    let proof = voprf::blind_evaluate(&kp, &blinded, &mut ev, &mut rng).unwrap();
    let evaluated = ev.iter().map(|e| Element::from_bytes(e).unwrap()).collect();
    Fixture { kp, inputs, blinds: vec![b0, b1], blinded, evaluated, proof }
}

impl<S: Suite> Fixture<S> {
    fn finalize_with(
        &self,
        pk: &PublicKey<S>,
        evaluated: &[Element<S>],
        proof: &Proof<S>,
    ) -> Result<Vec<S::Output>, Error> {
        let mut out = vec![S::Output::ZERO; 2];
        voprf::finalize(pk, &self.inputs, &self.blinds, &self.blinded, evaluated, proof, &mut out).map(|()| out)
    }
}

fn negative_proofs<S: Suite>() {
    let f = fixture::<S>();
    let pk = *f.kp.public_key();
    let outputs = f.finalize_with(&pk, &f.evaluated, &f.proof).unwrap();
    for (out, input) in outputs.iter().zip(f.inputs) {
        voprf::verify_output(f.kp.secret_key(), input, out).unwrap();
    }
    // A different output does not verify.
    let mut wrong = outputs[0];
    wrong.as_mut()[0] ^= 1;
    assert_eq!(voprf::verify_output(f.kp.secret_key(), f.inputs[0], &wrong), Err(Error::Verification));

    // Tampered c and tampered s (a low-order byte of each half, so that the
    // scalar stays canonical and the proof still parses).
    let bytes = f.proof.to_bytes();
    for half in 0..2 {
        let mut t = bytes;
        t.as_mut()[half * S::NS + S::NS / 2] ^= 0x01;
        let tampered = Proof::<S>::from_bytes(&t).expect("tampered scalar still canonical");
        assert_eq!(f.finalize_with(&pk, &f.evaluated, &tampered), Err(Error::Verification), "tampered half {half}");
    }

    // Wrong public key.
    let other = voprf::derive_key_pair::<S>(&[0x5a; 32], b"other key").unwrap();
    assert_eq!(f.finalize_with(other.public_key(), &f.evaluated, &f.proof), Err(Error::Verification));

    // Swapped evaluated elements.
    let swapped = [f.evaluated[1], f.evaluated[0]];
    assert_eq!(f.finalize_with(&pk, &swapped, &f.proof), Err(Error::Verification));

    // An evaluation under another key, with the honest proof.
    let mut ev = [S::ElementBytes::ZERO; 2];
    voprf::blind_evaluate(&other, &f.blinded, &mut ev, &mut TestRng::new(9)).unwrap();
    let forged = [f.evaluated[0], Element::from_bytes(&ev[1]).unwrap()];
    assert_eq!(f.finalize_with(&pk, &forged, &f.proof), Err(Error::Verification));
}

fn negative_lengths<S: Suite>() {
    let f = fixture::<S>();
    let pk = *f.kp.public_key();
    let batch = Err(Error::InvalidLength(Field::Batch));
    let mut rng = TestRng::new(3);

    let mut three = [S::ElementBytes::ZERO; 3];
    let r = voprf::blind_evaluate(&f.kp, &f.blinded, &mut three, &mut rng);
    assert_eq!(r.map(|_| ()), batch);
    let r = voprf::blind_evaluate(&f.kp, &[], &mut [], &mut rng);
    assert_eq!(r.map(|_| ()), batch);
    let mut one = [S::ElementBytes::ZERO; 1];
    let r = pat::hazmat::crypto::voprf::blind_evaluate_with_nonce(&f.kp, &f.blinded, &mut one, &S::ScalarBytes::ZERO);
    assert_eq!(r.map(|_| ()), batch);

    let mut out1 = vec![S::Output::ZERO; 1];
    let r = voprf::finalize(&pk, &f.inputs, &f.blinds, &f.blinded, &f.evaluated, &f.proof, &mut out1);
    assert_eq!(r, batch);
    let mut out2 = vec![S::Output::ZERO; 2];
    let r = voprf::finalize(&pk, &f.inputs, &f.blinds, &f.blinded, &f.evaluated[..1], &f.proof, &mut out2);
    assert_eq!(r, batch);
    let r = voprf::finalize(&pk, &f.inputs[..1], &f.blinds, &f.blinded, &f.evaluated, &f.proof, &mut out2);
    assert_eq!(r, batch);
    let r = voprf::oprf::finalize(&f.inputs, &f.blinds[..1], &f.evaluated, &mut out2);
    assert_eq!(r, batch);

    // Inputs that Finalize cannot frame.
    let long = vec![0u8; 65536];
    assert_eq!(voprf::blind::<S, _>(&long, &mut rng).map(|_| ()), Err(Error::InvalidLength(Field::Message)));
    assert_eq!(voprf::evaluate(f.kp.secret_key(), &long).map(|_| ()), Err(Error::InvalidLength(Field::Message)));

    // Wrong slice lengths for encodings.
    assert_eq!(Element::<S>::from_slice(&[2u8; 5]), Err(Error::InvalidElement));
    assert_eq!(Proof::<S>::from_slice(&[0u8; 5]).map(|_| ()), Err(Error::InvalidScalar));
}

fn negative_scalars<S: Suite>(non_canonical: &[S::ScalarBytes]) {
    let f = fixture::<S>();
    let zero = S::ScalarBytes::ZERO;
    assert_eq!(SecretKey::<S>::from_bytes(&zero).map(|_| ()), Err(Error::InvalidScalar));
    assert_eq!(pat::hazmat::crypto::voprf::blind_with::<S>(b"x", &zero).map(|_| ()), Err(Error::InvalidScalar));
    let mut ev = [S::ElementBytes::ZERO; 2];
    assert_eq!(
        pat::hazmat::crypto::voprf::blind_evaluate_with_nonce(&f.kp, &f.blinded, &mut ev, &zero).map(|_| ()),
        Err(Error::InvalidScalar)
    );
    for bad in non_canonical {
        assert_eq!(SecretKey::<S>::from_bytes(bad).map(|_| ()), Err(Error::InvalidScalar));
        assert_eq!(pat::hazmat::crypto::voprf::blind_with::<S>(b"x", bad).map(|_| ()), Err(Error::InvalidScalar));
        assert_eq!(
            pat::hazmat::crypto::voprf::blind_evaluate_with_nonce(&f.kp, &f.blinded, &mut ev, bad).map(|_| ()),
            Err(Error::InvalidScalar)
        );
        // As c and as s of a proof.
        let good = f.proof.to_bytes();
        for half in 0..2 {
            let mut t = good;
            t.as_mut()[half * S::NS..(half + 1) * S::NS].copy_from_slice(bad.as_ref());
            assert_eq!(Proof::<S>::from_bytes(&t).map(|_| ()), Err(Error::InvalidScalar));
        }
    }
    // A zero proof scalar is canonical but does not verify.
    let mut t = f.proof.to_bytes();
    t.as_mut()[S::NS..].fill(0);
    let p = Proof::<S>::from_bytes(&t).unwrap();
    assert_eq!(f.finalize_with(f.kp.public_key(), &f.evaluated, &p), Err(Error::Verification));
    // Key round trip.
    let sk = SecretKey::<S>::from_bytes(&f.kp.secret_key().to_bytes()).unwrap();
    let kp2 = KeyPair::from_secret_key(sk).unwrap();
    assert_eq!(kp2.public_key(), f.kp.public_key());
}

fn negative_elements<S: Suite>(bad: &[(S::ElementBytes, &str)]) {
    for (bytes, what) in bad {
        assert_eq!(Element::<S>::from_bytes(bytes).map(|_| ()), Err(Error::InvalidElement), "{what}");
        assert_eq!(PublicKey::<S>::from_bytes(bytes).map(|_| ()), Err(Error::InvalidElement), "{what}");
    }
    // The identity (all-zero encoding in both suites).
    assert_eq!(Element::<S>::from_bytes(&S::ElementBytes::ZERO).map(|_| ()), Err(Error::InvalidElement));
}

fn secrets_and_rng<S: Suite>() {
    let f = fixture::<S>();
    assert_eq!(format!("{:?}", f.kp.secret_key()), "SecretKey");
    assert_eq!(format!("{:?}", f.blinds[0]), "Blind");
    assert!(!format!("{:?}", f.kp).contains("SecretKey("));
    assert_eq!(voprf::blind::<S, _>(b"x", &mut FailingRng).map(|_| ()), Err(Error::Rng(RngCode::UNKNOWN)));
    let mut ev = [S::ElementBytes::ZERO; 2];
    assert_eq!(
        voprf::blind_evaluate(&f.kp, &f.blinded, &mut ev, &mut FailingRng).map(|_| ()),
        Err(Error::Rng(RngCode::UNKNOWN))
    );
    assert_eq!(voprf::generate_key_pair::<S, _>(&mut FailingRng).map(|_| ()), Err(Error::Rng(RngCode::UNKNOWN)));
    // A generated key works end to end.
    let kp = voprf::generate_key_pair::<S, _>(&mut TestRng::new(11)).unwrap();
    let (b, e) = voprf::blind::<S, _>(b"token input", &mut TestRng::new(12)).unwrap();
    let mut ev = [S::ElementBytes::ZERO];
    let proof = voprf::blind_evaluate(&kp, &[e], &mut ev, &mut TestRng::new(13)).unwrap();
    let ev = [Element::from_bytes(&ev[0]).unwrap()];
    let mut out = [S::Output::ZERO];
    voprf::finalize(kp.public_key(), &[b"token input"], &[b], &[e], &ev, &proof, &mut out).unwrap();
    voprf::verify_output(kp.secret_key(), b"token input", &out[0]).unwrap();
}

/// A larger batch than the internal chunk sizes (8 and 2), odd length.
fn large_batch<S: Suite>() {
    let kp = voprf::derive_key_pair::<S>(&[7; 32], b"").unwrap();
    let mut rng = TestRng::new(21);
    let inputs: Vec<Vec<u8>> = (0u8..19).map(|i| vec![i; usize::from(i)]).collect();
    let input_refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let (blinds, blinded): (Vec<_>, Vec<_>) = inputs.iter().map(|i| voprf::blind::<S, _>(i, &mut rng).unwrap()).unzip();
    let mut ev = vec![S::ElementBytes::ZERO; inputs.len()];
    let proof = voprf::blind_evaluate(&kp, &blinded, &mut ev, &mut rng).unwrap();
    let ev: Vec<Element<S>> = ev.iter().map(|e| Element::from_bytes(e).unwrap()).collect();
    let mut out = vec![S::Output::ZERO; inputs.len()];
    voprf::finalize(kp.public_key(), &input_refs, &blinds, &blinded, &ev, &proof, &mut out).unwrap();
    for (o, i) in out.iter().zip(&inputs) {
        assert_eq!(*o, voprf::evaluate(kp.secret_key(), i).unwrap());
    }
}

fn p384_bad_elements() -> Vec<([u8; 49], &'static str)> {
    let mut v = Vec::new();
    let g = hex("03aa87ca22be8b05378eb1c71ef320ad746e1d3b628ba79b9859f741e082542a385502f25dbf55296c3a545e3872760ab7");
    let mut t = [0u8; 49];
    t.copy_from_slice(&g);
    // Sanity: the generator parses.
    Element::<P384Sha384>::from_bytes(&t).unwrap();
    let mut bad_tag = t;
    bad_tag[0] = 0x04;
    v.push((bad_tag, "uncompressed tag with 49 bytes"));
    let mut compact = t;
    compact[0] = 0x05;
    v.push((compact, "compact tag"));
    let mut zero_tag = t;
    zero_tag[0] = 0x00;
    v.push((zero_tag, "identity tag"));
    let mut big_x = [0xffu8; 49];
    big_x[0] = 0x02;
    v.push((big_x, "x >= p"));
    // x = p exactly (non-canonical encoding of x = 0).
    let p = hex("fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff");
    let mut x_eq_p = [0u8; 49];
    x_eq_p[0] = 0x02;
    x_eq_p[1..].copy_from_slice(&p);
    v.push((x_eq_p, "x = p"));
    // Off-curve: find small x with x^3 - 3x + b a non-residue.
    let mut off = 0;
    for x in 1u8..=40 {
        let mut e = [0u8; 49];
        e[0] = 0x02;
        e[48] = x;
        match Element::<P384Sha384>::from_bytes(&e) {
            Ok(_) => {}
            Err(err) => {
                assert_eq!(err, Error::InvalidElement);
                if off < 3 {
                    v.push((e, "x not on the curve"));
                }
                off += 1;
            }
        }
    }
    assert!(off > 0, "no off-curve x found");
    v
}

fn ristretto_bad_elements() -> Vec<([u8; 32], &'static str)> {
    let mut v = Vec::new();
    // p = 2^255 - 19 (s >= p is non-canonical).
    let mut p = [0xffu8; 32];
    p[0] = 0xed;
    p[31] = 0x7f;
    v.push((p, "s = p"));
    let mut high = [0u8; 32];
    high[31] = 0x80;
    v.push((high, "high bit set"));
    let mut neg = [0u8; 32];
    neg[0] = 0x01;
    v.push((neg, "negative s"));
    // Non-canonical / invalid encodings from RFC 9496 §A.2.
    for h in [
        "00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
        "ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
        "26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
        "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    ] {
        let mut e = [0u8; 32];
        e.copy_from_slice(&hex(h));
        v.push((e, "RFC 9496 A.2 bad encoding"));
    }
    v
}

/// POPRF (mode 0x02): a two-element batch, then every way its proof, its
/// elements, its info or its lengths can be wrong.
fn negative_poprf<S: Suite>() {
    use pat::crypto::voprf::poprf::{self, TweakedKey};
    let kp = poprf::derive_key_pair::<S>(&[0xa3; 32], b"test key").unwrap();
    let (sk, pk) = (kp.secret_key(), kp.public_key());
    let info: &[u8] = b"public metadata";
    let inputs: [&[u8]; 2] = [b"first input", b"second input"];
    let mut rng = TestRng::new(11);
    let mut blinds = Vec::new();
    let mut blinded = Vec::new();
    for input in inputs {
        let (b, e, _) = poprf::blind::<S, _>(input, info, pk, &mut rng).unwrap();
        blinds.push(b);
        blinded.push(e);
    }
    let tweaked = TweakedKey::new(pk, info).unwrap();
    let mut ev = [S::ElementBytes::ZERO; 2];
    let proof = poprf::blind_evaluate(sk, &blinded, info, &mut ev, &mut rng).unwrap();
    let evaluated: Vec<Element<S>> = ev.iter().map(|e| Element::from_bytes(e).unwrap()).collect();
    let fin = |t: &TweakedKey<S>, ev: &[Element<S>], proof: &Proof<S>, info: &[u8]| {
        let mut out = vec![S::Output::ZERO; 2];
        poprf::finalize(t, &inputs, &blinds, &blinded, ev, proof, info, &mut out).map(|()| out)
    };
    let outputs = fin(&tweaked, &evaluated, &proof, info).unwrap();
    for (out, input) in outputs.iter().zip(inputs) {
        poprf::verify_output(sk, input, info, out).unwrap();
        assert_eq!(poprf::verify_output(sk, input, b"", out), Err(Error::Verification));
    }
    // The VOPRF mode's output for the same key and input differs.
    assert_ne!(voprf::evaluate(sk, inputs[0]).unwrap(), outputs[0]);

    // Tampered c and s (a middle byte of each half keeps the scalar canonical).
    let bytes = proof.to_bytes();
    for half in 0..2 {
        let mut t = bytes;
        t.as_mut()[half * S::NS + S::NS / 2] ^= 0x01;
        let tampered = Proof::<S>::from_bytes(&t).unwrap();
        assert_eq!(fin(&tweaked, &evaluated, &tampered, info), Err(Error::Verification), "half {half}");
    }
    // Swapped evaluated elements; the proof of another batch; the untweaked
    // key; the tweak of another info (checked with the right info).
    let swapped = [evaluated[1], evaluated[0]];
    assert_eq!(fin(&tweaked, &swapped, &proof, info), Err(Error::Verification));
    let mut ev2 = [S::ElementBytes::ZERO; 2];
    let other_batch = [blinded[1], blinded[0]];
    let other_proof = poprf::blind_evaluate(sk, &other_batch, info, &mut ev2, &mut rng).unwrap();
    assert_eq!(fin(&tweaked, &evaluated, &other_proof, info), Err(Error::Verification));
    let untweaked = TweakedKey::from_bytes(pk.as_bytes()).unwrap();
    assert_eq!(fin(&untweaked, &evaluated, &proof, info), Err(Error::Verification));
    let other = TweakedKey::new(pk, b"other").unwrap();
    assert_eq!(fin(&other, &evaluated, &proof, info), Err(Error::Verification));
    // Right tweak and proof, but the output framed with another info: the
    // outputs differ from the honest ones.
    assert_ne!(fin(&tweaked, &evaluated, &proof, b"other").unwrap(), outputs);

    // Lengths: batches, an info or an input over 65535 bytes.
    let batch = Err(Error::InvalidLength(Field::Batch));
    let mut three = [S::ElementBytes::ZERO; 3];
    assert_eq!(poprf::blind_evaluate(sk, &blinded, info, &mut three, &mut rng).map(|_| ()), batch);
    assert_eq!(poprf::blind_evaluate(sk, &[], info, &mut [], &mut rng).map(|_| ()), batch);
    let mut out1 = vec![S::Output::ZERO; 1];
    assert_eq!(poprf::finalize(&tweaked, &inputs, &blinds, &blinded, &evaluated, &proof, info, &mut out1), batch);
    let long = vec![0u8; 65536];
    let info_len = Err(Error::InvalidLength(Field::Info));
    assert_eq!(poprf::blind::<S, _>(b"x", &long, pk, &mut rng).map(|_| ()), info_len);
    assert_eq!(poprf::blind_evaluate(sk, &blinded, &long, &mut ev2, &mut rng).map(|_| ()), info_len);
    assert_eq!(fin(&tweaked, &evaluated, &proof, &long).map(|_| ()), info_len);
    assert_eq!(poprf::evaluate(sk, b"x", &long).map(|_| ()), info_len);
    let message = Err(Error::InvalidLength(Field::Message));
    assert_eq!(poprf::blind::<S, _>(&long, info, pk, &mut rng).map(|_| ()), message);
    assert_eq!(poprf::evaluate(sk, &long, info).map(|_| ()), message);
    // The largest info works.
    assert!(poprf::evaluate(sk, b"x", &long[..65535]).is_ok());
}

#[test]
fn p384_negative() {
    negative_poprf::<P384Sha384>();
    negative_proofs::<P384Sha384>();
    negative_lengths::<P384Sha384>();
    let n = hex("ffffffffffffffffffffffffffffffffffffffffffffffffc7634d81f4372ddf581a0db248b0a77aecec196accc52973");
    let mut order = [0u8; 48];
    order.copy_from_slice(&n);
    negative_scalars::<P384Sha384>(&[order, [0xff; 48]]);
    negative_elements::<P384Sha384>(&p384_bad_elements());
    secrets_and_rng::<P384Sha384>();
    large_batch::<P384Sha384>();
}

#[test]
fn ristretto255_negative() {
    negative_poprf::<Ristretto255Sha512>();
    negative_proofs::<Ristretto255Sha512>();
    negative_lengths::<Ristretto255Sha512>();
    let l = hex("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010");
    let mut order = [0u8; 32];
    order.copy_from_slice(&l);
    negative_scalars::<Ristretto255Sha512>(&[order, [0xff; 32]]);
    negative_elements::<Ristretto255Sha512>(&ristretto_bad_elements());
    secrets_and_rng::<Ristretto255Sha512>();
    large_batch::<Ristretto255Sha512>();
}

#[test]
fn context_strings() {
    assert_eq!(P384Sha384::CONTEXT_STRING, b"OPRFV1-\x01-P384-SHA384");
    assert_eq!(Ristretto255Sha512::CONTEXT_STRING, b"OPRFV1-\x01-ristretto255-SHA512");
    assert_eq!((P384Sha384::NE, P384Sha384::NS, P384Sha384::NH), (49, 48, 48));
    assert_eq!((Ristretto255Sha512::NE, Ristretto255Sha512::NS, Ristretto255Sha512::NH), (32, 32, 64));
}
