//! ARC(P-256), draft-ietf-privacypass-arc-crypto-01: the published vectors
//! byte for byte (every intermediate value and all three proofs, through the
//! draft's test generator), the proofs of the vectors checked from their
//! bytes alone, a presentation limit enforced end to end with real
//! randomness, and what each decoder and verifier refuses.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::arc::messages::{REQUEST_LEN, RESPONSE_LEN, presentation_len};
use pat::crypto::arc::{
    Credential, CredentialRequest, CredentialRequestState, CredentialResponse, PresentationRef, PresentationState,
    ServerPrivateKey, ServerPublicKey,
};
use pat::hazmat::crypto::arc::{self as hazmat, TestDrng};
use pat::{Error, Field};
use serde_json::Value;

mod common;
use common::{hex, load, rng};

fn suite() -> Value {
    load("arc/draft-ietf-privacypass-arc-crypto-01.json")["ARCV1-P256"].clone()
}

fn f(v: &Value, group: &str, key: &str) -> Vec<u8> {
    hex(v[group][key].as_str().unwrap_or_else(|| panic!("{group}.{key}")))
}

fn seed() -> [u8; 32] {
    let mut s = [0u8; 32];
    s[..16].copy_from_slice(b"test vector seed");
    s
}

const LIMIT: u64 = 2;

#[test]
fn published_vectors_byte_for_byte() {
    let v = suite();
    let mut drng = TestDrng::new(&seed());

    // ServerKey
    let key = hazmat::server_keygen(&mut drng).unwrap();
    let sk = key.to_bytes();
    for (i, name) in ["x0", "x1", "x2", "xb"].iter().enumerate() {
        assert_eq!(sk[32 * i..32 * (i + 1)], f(&v, "ServerKey", name)[..], "ServerKey.{name}");
    }
    let pk = key.public_key().to_bytes();
    for (i, name) in ["X0", "X1", "X2"].iter().enumerate() {
        assert_eq!(pk[33 * i..33 * (i + 1)], f(&v, "ServerKey", name)[..], "ServerKey.{name}");
    }

    // CredentialRequest
    let ctx = f(&v, "CredentialRequest", "request_context");
    let (state, request) = hazmat::credential_request(&[&ctx], &mut drng).unwrap();
    let st = state.export();
    assert_eq!(st[..32], f(&v, "CredentialRequest", "m1")[..]);
    assert_eq!(st[32..64], f(&v, "CredentialRequest", "r1")[..]);
    assert_eq!(st[64..96], f(&v, "CredentialRequest", "r2")[..]);
    let req = request.to_bytes();
    assert_eq!(req[..33], f(&v, "CredentialRequest", "m1_enc")[..]);
    assert_eq!(req[33..66], f(&v, "CredentialRequest", "m2_enc")[..]);
    assert_eq!(req[66..], f(&v, "CredentialRequest", "proof")[..], "request proof");

    // CredentialResponse
    let response = hazmat::credential_response(&key, &request, &mut drng).unwrap();
    let resp = response.to_bytes();
    for (i, name) in ["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux"].iter().enumerate() {
        assert_eq!(resp[33 * i..33 * (i + 1)], f(&v, "CredentialResponse", name)[..], "CredentialResponse.{name}");
    }
    assert_eq!(resp[198..], f(&v, "CredentialResponse", "proof")[..], "response proof");

    // Credential
    let credential = state.finalize(key.public_key(), &response).unwrap();
    let c = credential.export();
    assert_eq!(c[..32], f(&v, "Credential", "m1")[..]);
    assert_eq!(c[32..65], f(&v, "Credential", "U")[..]);
    assert_eq!(c[65..98], f(&v, "Credential", "U_prime")[..]);
    assert_eq!(c[98..], f(&v, "Credential", "X1")[..]);

    // Presentation1, Presentation2
    let pctx = f(&v, "Presentation1", "presentation_context");
    let mut pstate = PresentationState::new(&credential, &[&pctx], LIMIT).unwrap();
    for (n, group) in ["Presentation1", "Presentation2"].iter().enumerate() {
        let mut out = [0u8; 512];
        let p = hazmat::present(&mut pstate, &mut drng, &mut out).unwrap();
        assert_eq!(p.nonce as usize, n);
        assert_eq!(format!("{:#x}", p.nonce), v[group]["nonce"].as_str().unwrap());
        let bytes = &out[..p.len];
        for (i, name) in ["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit"].iter().enumerate() {
            assert_eq!(bytes[33 * i..33 * (i + 1)], f(&v, group, name)[..], "{group}.{name}");
        }
        assert_eq!(bytes[165..198], f(&v, group, "D_0")[..], "{group}.D_0");
        assert_eq!(bytes[165..], f(&v, group, "proof")[..], "{group}.proof");
        let parsed = PresentationRef::decode(bytes, LIMIT).unwrap();
        key.verify_presentation(&[&ctx], &[&pctx], &parsed, LIMIT).unwrap();
    }
    let mut out = [0u8; 512];
    assert_eq!(hazmat::present(&mut pstate, &mut drng, &mut out), Err(Error::PresentationLimitReached));
}

/// The vectors' messages, decoded from their bytes and checked by the
/// receiving role, with no generator involved.
#[test]
fn published_messages_verify_from_bytes() {
    let v = suite();
    let mut sk = Vec::new();
    for name in ["x0", "x1", "x2", "xb"] {
        sk.extend(f(&v, "ServerKey", name));
    }
    let key = ServerPrivateKey::from_bytes(&sk).unwrap();
    let mut pk = Vec::new();
    for name in ["X0", "X1", "X2"] {
        pk.extend(f(&v, "ServerKey", name));
    }
    assert_eq!(ServerPublicKey::decode(&pk).unwrap(), *key.public_key());

    let mut req = Vec::new();
    for name in ["m1_enc", "m2_enc", "proof"] {
        req.extend(f(&v, "CredentialRequest", name));
    }
    let request = CredentialRequest::decode(&req).unwrap();
    // The server accepts the request (its proof verifies).
    key.respond(&request, &mut rng()).unwrap();

    let mut resp = Vec::new();
    for name in ["U", "enc_U_prime", "X0_aux", "X1_aux", "X2_aux", "H_aux", "proof"] {
        resp.extend(f(&v, "CredentialResponse", name));
    }
    let response = CredentialResponse::decode(&resp).unwrap();
    let mut state = Vec::new();
    for name in ["m1", "r1", "r2", "m1_enc", "m2_enc"] {
        state.extend(f(&v, "CredentialRequest", name));
    }
    let state = CredentialRequestState::import(&state).unwrap();
    let credential = state.finalize(&ServerPublicKey::decode(&pk).unwrap(), &response).unwrap();
    assert_eq!(credential.u_prime()[..], f(&v, "Credential", "U_prime")[..]);

    let ctx = f(&v, "CredentialRequest", "request_context");
    for group in ["Presentation1", "Presentation2"] {
        let pctx = f(&v, group, "presentation_context");
        let mut p = Vec::new();
        for name in ["U", "U_prime_commit", "m1_commit", "tag", "nonce_commit", "proof"] {
            p.extend(f(&v, group, name));
        }
        assert_eq!(p.len(), presentation_len(LIMIT).unwrap());
        let parsed = PresentationRef::decode(&p, LIMIT).unwrap();
        key.verify_presentation(&[&ctx], &[&pctx], &parsed, LIMIT).unwrap();
        assert_eq!(parsed.tag()[..], f(&v, group, "tag")[..]);
        // Another context, another limit or one flipped bit: refused.
        assert_eq!(key.verify_presentation(&[b"other"], &[&pctx], &parsed, LIMIT), Err(Error::Verification));
        assert_eq!(key.verify_presentation(&[&ctx], &[b"other"], &parsed, LIMIT), Err(Error::Verification));
        assert!(PresentationRef::decode(&p, 3).is_err());
        let mut bad = p.clone();
        let last = bad.len() - 1;
        bad[last] ^= 1;
        let parsed = PresentationRef::decode(&bad, LIMIT).unwrap();
        assert_eq!(key.verify_presentation(&[&ctx], &[&pctx], &parsed, LIMIT), Err(Error::Verification));
    }
}

/// A limit of N with real randomness: N presentations verify, with distinct
/// tags; the N+1st cannot be made; a replayed presentation is refused by the
/// tag store; the state survives export and import between presentations.
#[test]
fn presentation_limit_end_to_end() {
    let mut r = rng();
    let key = ServerPrivateKey::generate(&mut r).unwrap();
    let ctx: &[&[u8]] = &[b"request", b" context"];
    let (state, request) = CredentialRequestState::new(ctx, &mut r).unwrap();
    let request = CredentialRequest::decode(&request.to_bytes()).unwrap();
    let response = key.respond(&request, &mut r).unwrap();
    let response = CredentialResponse::decode(&response.to_bytes()).unwrap();
    let credential = state.finalize(key.public_key(), &response).unwrap();
    let credential = Credential::import(&credential.export()[..]).unwrap();

    for limit in [2u64, 3, 5, 8] {
        let pctx: &[&[u8]] = &[b"presentation ", b"context"];
        let cred = Credential::import(&credential.export()[..]).unwrap();
        let mut pstate = PresentationState::new(&cred, pctx, limit).unwrap();
        let mut seen: Vec<[u8; 33]> = Vec::new();
        let mut first = Vec::new();
        for i in 0..limit {
            assert_eq!(pstate.remaining(), limit - i);
            let mut out = vec![0u8; presentation_len(limit).unwrap()];
            let p = pstate.present(&mut r, &mut out).unwrap();
            assert_eq!(u64::from(p.nonce), i);
            let parsed = PresentationRef::decode(&out, limit).unwrap();
            key.verify_presentation(ctx, pctx, &parsed, limit).unwrap();
            // The origin's double-spend check: every tag is new.
            assert!(!seen.contains(parsed.tag()), "limit {limit}: tag repeated");
            seen.push(*parsed.tag());
            if i == 0 {
                first = out.clone();
            }
            // A device keeps the state between presentations.
            pstate = PresentationState::import(&pstate.export()[..]).unwrap();
        }
        let mut out = vec![0u8; presentation_len(limit).unwrap()];
        assert_eq!(pstate.present(&mut r, &mut out), Err(Error::PresentationLimitReached));
        assert_eq!(pstate.remaining(), 0);
        // A replay verifies cryptographically; its tag is the one seen first.
        let replay = PresentationRef::decode(&first, limit).unwrap();
        key.verify_presentation(ctx, pctx, &replay, limit).unwrap();
        assert!(seen.contains(replay.tag()));
        // Under another limit the same bytes do not even parse, or do not verify.
        match PresentationRef::decode(&first, limit + 1) {
            Ok(p) => assert_eq!(key.verify_presentation(ctx, pctx, &p, limit + 1), Err(Error::Verification)),
            Err(e) => assert!(matches!(e, Error::Truncated | Error::TrailingBytes), "{e:?}"),
        }
    }
}

#[test]
fn limits_out_of_range_are_refused() {
    let mut r = rng();
    let key = ServerPrivateKey::generate(&mut r).unwrap();
    let (state, request) = CredentialRequestState::new(&[b"c"], &mut r).unwrap();
    let response = key.respond(&request, &mut r).unwrap();
    let credential = state.finalize(key.public_key(), &response).unwrap();
    for limit in [0u64, 1, (1 << 32) + 1, u64::MAX] {
        let c = Credential::import(&credential.export()[..]).unwrap();
        assert_eq!(
            PresentationState::new(&c, &[b"p"], limit).unwrap_err(),
            Error::InvalidValue(Field::PresentationLimit)
        );
        assert_eq!(presentation_len(limit), Err(Error::InvalidValue(Field::PresentationLimit)));
    }
    // The widest range proof: 2^32.
    let c = Credential::import(&credential.export()[..]).unwrap();
    let mut pstate = PresentationState::new(&c, &[b"p"], 1 << 32).unwrap();
    let mut out = vec![0u8; presentation_len(1 << 32).unwrap()];
    assert_eq!(out.len(), pat::crypto::arc::messages::PRESENTATION_MAX_LEN);
    pstate.present(&mut r, &mut out).unwrap();
    let parsed = PresentationRef::decode(&out, 1 << 32).unwrap();
    key.verify_presentation(&[b"c"], &[b"p"], &parsed, 1 << 32).unwrap();
}

#[test]
fn decoders_refuse_bad_lengths_and_points() {
    let mut r = rng();
    let key = ServerPrivateKey::generate(&mut r).unwrap();
    let (state, request) = CredentialRequestState::new(&[b"c"], &mut r).unwrap();
    let req = request.to_bytes();
    assert_eq!(req.len(), REQUEST_LEN);
    assert_eq!(CredentialRequest::decode(&req[..REQUEST_LEN - 1]), Err(Error::Truncated));
    let mut long = req.to_vec();
    long.push(0);
    assert_eq!(CredentialRequest::decode(&long), Err(Error::TrailingBytes));
    let mut bad = req;
    bad[0] = 0x04;
    assert_eq!(CredentialRequest::decode(&bad), Err(Error::InvalidElement));
    let mut bad = req;
    bad[1..33].fill(0xff);
    assert_eq!(CredentialRequest::decode(&bad), Err(Error::InvalidElement));
    // A request whose proof does not verify is refused by the server.
    let mut bad = req;
    bad[100] ^= 1;
    let bad = CredentialRequest::decode(&bad).unwrap();
    assert_eq!(key.respond(&bad, &mut r).unwrap_err(), Error::Verification);

    let response = key.respond(&request, &mut r).unwrap();
    let resp = response.to_bytes();
    assert_eq!(resp.len(), RESPONSE_LEN);
    assert_eq!(CredentialResponse::decode(&resp[..RESPONSE_LEN - 1]), Err(Error::Truncated));
    let mut long = resp.to_vec();
    long.push(0);
    assert_eq!(CredentialResponse::decode(&long), Err(Error::TrailingBytes));
    // A response from another key, or altered, is refused by the client.
    let other = ServerPrivateKey::generate(&mut r).unwrap();
    assert_eq!(state.finalize(other.public_key(), &response).unwrap_err(), Error::Verification);
    let mut bad = resp;
    bad[RESPONSE_LEN - 1] ^= 1;
    let bad = CredentialResponse::decode(&bad).unwrap();
    assert_eq!(state.finalize(key.public_key(), &bad).unwrap_err(), Error::Verification);
    // A scalar at or above the order in a proof is a failed proof.
    let mut bad = resp;
    bad[198..230].fill(0xff);
    let bad = CredentialResponse::decode(&bad).unwrap();
    assert_eq!(state.finalize(key.public_key(), &bad).unwrap_err(), Error::Verification);

    // Keys.
    assert_eq!(ServerPublicKey::decode(&[2; 98]), Err(Error::Truncated));
    assert_eq!(ServerPrivateKey::from_bytes(&[0; 128]).unwrap_err(), Error::InvalidKey);
    assert_eq!(ServerPrivateKey::from_bytes(&[0xff; 128]).unwrap_err(), Error::InvalidKey);
    assert_eq!(ServerPrivateKey::from_bytes(&[1; 127]).unwrap_err(), Error::InvalidLength(Field::Key));
    assert!(bool::from(subtle::ConstantTimeEq::ct_eq(
        &ServerPrivateKey::from_bytes(&key.to_bytes()[..]).unwrap(),
        &key
    )));
    let debug = format!("{key:?}");
    let secret: String = key.to_bytes()[..32].iter().map(|b| format!("{b:02x}")).collect();
    assert!(!debug.contains(&secret) && debug.starts_with("ServerPrivateKey { public: ServerPublicKey("), "{debug}");
}

/// A presentation is bound to the bases of its limit: made under the limit
/// 8, it verifies under 8 and under no other limit of the same length (5,
/// 6, 7 have other bases, so the sum check fails), whatever its nonce.
#[test]
fn a_presentation_verifies_only_under_its_own_limit() {
    let mut r = rng();
    let key = ServerPrivateKey::generate(&mut r).unwrap();
    let (state, request) = CredentialRequestState::new(&[b"c"], &mut r).unwrap();
    let response = key.respond(&request, &mut r).unwrap();
    let credential = state.finalize(key.public_key(), &response).unwrap();
    let mut pstate = PresentationState::new(&credential, &[b"p"], 8).unwrap();
    assert_eq!(presentation_len(5).unwrap(), presentation_len(8).unwrap());
    for nonce in 0..8u64 {
        let mut out = vec![0u8; presentation_len(8).unwrap()];
        assert_eq!(u64::from(pstate.present(&mut r, &mut out).unwrap().nonce), nonce);
        for limit in 5..=8u64 {
            let parsed = PresentationRef::decode(&out, limit).unwrap();
            let got = key.verify_presentation(&[b"c"], &[b"p"], &parsed, limit);
            let want = if limit == 8 { Ok(()) } else { Err(Error::Verification) };
            assert_eq!(got, want, "nonce {nonce}, limit {limit}");
        }
    }
}
