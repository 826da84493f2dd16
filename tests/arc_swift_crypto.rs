//! swift-crypto's ARC vectors (`tests/vectors/swift-crypto/`), which follow
//! draft-yun-cfrg-arc-00, against pat's ARC, pinned to
//! draft-ietf-privacypass-arc-crypto-01. The assertions state what agrees
//! and what does not:
//!
//! - agrees: the server key algebra and the generators (X0 = x0·G + xb·H,
//!   X1 = x1·H, X2 = x2·H through `ServerPrivateKey::from_bytes`), m2 =
//!   HashToScalar(request_context) (the -01 vectors have the same m2 for the
//!   same context), and the algebra of every message, computed here with the
//!   `p256` crate (the commitments, the MAC, its unblinding and the
//!   presentation's randomization);
//! - does not agree: every proof. The request and response proofs have the
//!   lengths of -01's but are refused by pat's verifiers
//!   (`Error::Verification`): -00 derives the challenge with another
//!   transcript. The presentations are shorter than any -01 presentation
//!   (no nonce commitment, no range proof: -00 reveals the nonce), so they
//!   do not decode.
//!
//! The P-384 suite is counted and left out: pat implements ARC(P-256) only.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use p256::elliptic_curve::PrimeField;
use p256::elliptic_curve::array::Array;
use p256::elliptic_curve::group::GroupEncoding;
use p256::{AffinePoint, ProjectivePoint, Scalar};
use pat::Error;
use pat::crypto::arc::messages::{REQUEST_LEN, RESPONSE_LEN, presentation_len};
use pat::crypto::arc::{
    CredentialRequest, CredentialRequestState, CredentialResponse, PresentationRef, ServerPrivateKey, ServerPublicKey,
};
use serde_json::Value;

mod common;
use common::{hex, load, rng, vector_path};

const FILE: &str = "swift-crypto/arc-draft-yun-cfrg-arc-00.json";
const GROUPS: [&str; 6] =
    ["ServerKey", "CredentialRequest", "CredentialResponse", "Credential", "Presentation1", "Presentation2"];

/// The file as copied: the JSON text of a Swift string literal, with a
/// comma after the last member of each suite, which Swift's decoder takes
/// and strict JSON does not. Exactly those two commas are removed.
fn suites() -> Vec<Value> {
    let text = std::fs::read_to_string(vector_path(FILE)).unwrap();
    assert!(serde_json::from_str::<Value>(&text).is_err(), "the copy is verbatim, trailing commas included");
    let trailing = ",\n  }";
    assert_eq!(text.matches(trailing).count(), 2);
    let value: Value = serde_json::from_str(&text.replace(trailing, "\n  }")).unwrap();
    value.as_array().unwrap().clone()
}

fn p256_suite() -> Value {
    let all = suites();
    let names: Vec<&str> = all.iter().map(|s| s["suite"].as_str().unwrap()).collect();
    assert_eq!(names, ["ARCV1-P256", "ARCV1-P384"]);
    for suite in &all {
        let mut keys: Vec<&str> = suite.as_object().unwrap().keys().map(String::as_str).collect();
        keys.sort_unstable();
        let mut expected = GROUPS.to_vec();
        expected.push("suite");
        expected.sort_unstable();
        assert_eq!(keys, expected);
    }
    all[0].clone()
}

fn f(v: &Value, group: &str, key: &str) -> Vec<u8> {
    hex(v[group][key].as_str().unwrap_or_else(|| panic!("{group}.{key}")))
}

fn cat(v: &Value, group: &str, keys: &[&str]) -> Vec<u8> {
    keys.iter().flat_map(|k| f(v, group, k)).collect()
}

fn scalar(v: &Value, group: &str, key: &str) -> Scalar {
    let bytes: [u8; 32] = f(v, group, key).try_into().unwrap();
    Option::from(Scalar::from_repr(Array::from(bytes))).unwrap()
}

fn point(v: &Value, group: &str, key: &str) -> ProjectivePoint {
    let bytes: [u8; 33] = f(v, group, key).try_into().unwrap();
    ProjectivePoint::from(Option::<AffinePoint>::from(AffinePoint::from_bytes(&Array::from(bytes))).unwrap())
}

const LIMIT: u64 = 2;

#[test]
fn swift_crypto_vectors_against_draft_01() {
    let v = p256_suite();
    // What each of the P-256 suite's six groups shows.
    let (mut agree, mut refused, mut algebra_only) = (0, 0, 0);

    // ServerKey: agrees. pat's key from x0 ‖ x1 ‖ x2 ‖ xb has their public
    // key: the same generators G and H and the same key algebra.
    let key = ServerPrivateKey::from_bytes(&cat(&v, "ServerKey", &["x0", "x1", "x2", "xb"])).unwrap();
    let pk = ServerPublicKey::decode(&cat(&v, "ServerKey", &["X0", "X1", "X2"])).unwrap();
    assert_eq!(*key.public_key(), pk);
    agree += 1;

    // CredentialRequest: m2 and the commitments agree, the proof does not.
    let draft = load("arc/draft-ietf-privacypass-arc-crypto-01.json")["ARCV1-P256"].clone();
    assert_eq!(f(&v, "CredentialRequest", "request_context"), f(&draft, "CredentialRequest", "request_context"));
    assert_eq!(f(&v, "CredentialRequest", "m2"), f(&draft, "CredentialRequest", "m2"));
    let req = cat(&v, "CredentialRequest", &["m1_enc", "m2_enc", "proof"]);
    assert_eq!(req.len(), REQUEST_LEN);
    let request = CredentialRequest::decode(&req).unwrap();
    assert_eq!(key.respond(&request, &mut rng()).unwrap_err(), Error::Verification);
    refused += 1;

    // CredentialResponse: the elements decode, the proof is refused by the
    // client (their state, their public key).
    let resp = cat(&v, "CredentialResponse", &["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof"]);
    assert_eq!(resp.len(), RESPONSE_LEN);
    let response = CredentialResponse::decode(&resp).unwrap();
    let state =
        CredentialRequestState::import(&cat(&v, "CredentialRequest", &["m1", "r1", "r2", "m1_enc", "m2_enc"])).unwrap();
    assert_eq!(state.finalize(&pk, &response).unwrap_err(), Error::Verification);
    refused += 1;

    // Credential: pat's client never gets there (the response proof is
    // refused); the unblinding is checked below with the algebra.
    algebra_only += 1;

    // Presentation1, Presentation2: U ‖ UPrimeCommit ‖ m1Commit ‖ tag ‖
    // proof, the nonce in the clear. Shorter than a -01 presentation of
    // limit 2 (which adds nonceCommit, D[0] and the range proof's scalars):
    // it does not decode.
    let want = presentation_len(LIMIT).unwrap();
    assert_eq!(want, 5 * 33 + 33 + 9 * 32);
    for group in ["Presentation1", "Presentation2"] {
        let p = cat(&v, group, &["U", "U_prime_commit", "m1_commit", "tag", "proof"]);
        assert_eq!(p.len(), 4 * 33 + 5 * 32, "{group}");
        assert!(p.len() < want, "{group}");
        assert_eq!(PresentationRef::decode(&p, LIMIT).unwrap_err(), Error::Truncated, "{group}");
        // No field for what -01 adds.
        assert!(v[group].get("nonce_commit").is_none() && v[group].get("D_0").is_none());
        refused += 1;
    }

    assert_eq!((agree, refused, algebra_only), (1, 4, 1));
    assert_eq!(agree + refused + algebra_only, GROUPS.len());
}

/// The algebra of every message agrees with -01's (computed with the `p256`
/// crate, pat's H taken from `ServerPrivateKey`: X1 = x1·H): only the proofs
/// differ.
#[test]
fn swift_crypto_message_algebra_agrees() {
    let v = p256_suite();
    let g = ProjectivePoint::GENERATOR;
    // H from pat's key algebra: H = x1⁻¹·X1, X1 from pat's from_bytes.
    let key = ServerPrivateKey::from_bytes(&cat(&v, "ServerKey", &["x0", "x1", "x2", "xb"])).unwrap();
    let x1_point = {
        let bytes: [u8; 33] = key.public_key().to_bytes()[33..66].try_into().unwrap();
        ProjectivePoint::from(Option::<AffinePoint>::from(AffinePoint::from_bytes(&Array::from(bytes))).unwrap())
    };
    let h = x1_point * Option::<Scalar>::from(scalar(&v, "ServerKey", "x1").invert()).unwrap();

    let s = |group, key| scalar(&v, group, key);
    let p = |group, key| point(&v, group, key);
    let (m1, r1, m2, r2) = (
        s("CredentialRequest", "m1"),
        s("CredentialRequest", "r1"),
        s("CredentialRequest", "m2"),
        s("CredentialRequest", "r2"),
    );
    assert_eq!(p("CredentialRequest", "m1_enc"), g * m1 + h * r1);
    assert_eq!(p("CredentialRequest", "m2_enc"), g * m2 + h * r2);

    let (x0, x1, x2, xb) = (s("ServerKey", "x0"), s("ServerKey", "x1"), s("ServerKey", "x2"), s("ServerKey", "xb"));
    let b = s("CredentialResponse", "b");
    let (m1_enc, m2_enc) = (p("CredentialRequest", "m1_enc"), p("CredentialRequest", "m2_enc"));
    assert_eq!(p("CredentialResponse", "U"), g * b);
    assert_eq!(p("CredentialResponse", "enc_U_prime"), (p("ServerKey", "X0") + m1_enc * x1 + m2_enc * x2) * b);
    assert_eq!(p("CredentialResponse", "X0_aux"), h * (b * xb));
    assert_eq!(p("CredentialResponse", "X1_aux"), h * (b * x1));
    assert_eq!(p("CredentialResponse", "X2_aux"), h * (b * x2));
    assert_eq!(p("CredentialResponse", "H_aux"), h * b);
    // The unblinding: UPrime = encUPrime − X0Aux − r1·X1Aux − r2·X2Aux = (x0 + x1·m1 + x2·m2)·U.
    let u_prime = p("CredentialResponse", "enc_U_prime")
        - p("CredentialResponse", "X0_aux")
        - p("CredentialResponse", "X1_aux") * r1
        - p("CredentialResponse", "X2_aux") * r2;
    assert_eq!(p("Credential", "U_prime"), u_prime);
    assert_eq!(u_prime, p("CredentialResponse", "U") * (x0 + x1 * m1 + x2 * m2));
    assert_eq!(f(&v, "Credential", "U"), f(&v, "CredentialResponse", "U"));
    assert_eq!(f(&v, "Credential", "m1"), f(&v, "CredentialRequest", "m1"));
    assert_eq!(f(&v, "Credential", "X1"), f(&v, "ServerKey", "X1"));

    for group in ["Presentation1", "Presentation2"] {
        let (a, r, z) = (s(group, "a"), s(group, "r"), s(group, "z"));
        let u = p(group, "U");
        assert_eq!(u, p("Credential", "U") * a, "{group}");
        assert_eq!(p(group, "U_prime_commit"), p("Credential", "U_prime") * a + g * r, "{group}");
        assert_eq!(p(group, "m1_commit"), u * m1 + h * z, "{group}");
    }
}
