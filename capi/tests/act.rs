//! Type 0xE5AD (ACT) through the C API, called as C calls it: the appendix
//! run of draft-schlesinger-cfrg-act-01 byte for byte
//! (`pat_act_run_with`), the client's whole cycle (request, credential,
//! spends and refunds) against the library's issuer at several bit lengths,
//! the `Authorization` value, and the ways a call can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation,
    clippy::cast_possible_wrap,
    clippy::undocumented_unsafe_blocks,
    clippy::multiple_unsafe_ops_per_block
)]

use core::ffi::c_void;

use pat::crypto::act::{Params, PrivateKey};
use pat::tokens::act::{ActChallenge, Issuer, Token, TokenRequest};
use pat::wire::codec::{Decode, Encode};
use pat::{Error, Field};
use pat_capi::act::*;
use pat_capi::hazmat::pat_act_run_with;
use pat_capi::http::{pat_authorization, pat_authorization_with_extensions};
use pat_capi::sizes::*;
use serde_json::Value;

mod common;
use common::{hex, test_rng};

const DS: &[u8] = b"ACT-v1:pat:capi-test:test:2026-12-05";

fn rng_ptr(rng: &mut pat_testkit::TestRng) -> *mut c_void {
    (rng as *mut pat_testkit::TestRng).cast()
}

#[test]
fn the_appendix_run_byte_for_byte() {
    let path = format!("{}/../tests/vectors/act/draft-schlesinger-cfrg-act-01.json", env!("CARGO_MANIFEST_DIR"));
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let v = &all[0];
    let h = |k: &str| hex(v[k].as_str().unwrap());
    let n = |k: &str| v[k].as_u64().unwrap();
    let (seed, ds, ctx) = (h("rng_seed"), v["domain_separator"].as_str().unwrap().as_bytes().to_vec(), h("ctx"));
    let bits = n("L") as usize;
    let fields = [
        "sk_cbor",
        "pk_cbor",
        "preissuance_cbor",
        "issuance_request_cbor",
        "issuance_response_cbor",
        "credit_token_cbor",
        "spend_proof_cbor",
        "prerefund_cbor",
        "refund_cbor",
        "refund_token_cbor",
    ];
    let expected: Vec<u8> = fields.iter().flat_map(|f| h(f)).collect();
    let run = |out: &mut [u8]| unsafe {
        pat_act_run_with(
            seed.as_ptr(),
            seed.len(),
            ds.as_ptr(),
            ds.len(),
            bits,
            ctx.as_ptr(),
            ctx.len(),
            n("c"),
            n("s"),
            n("t"),
            out.as_mut_ptr(),
            out.len(),
        )
    };
    let mut out = vec![0xAAu8; expected.len() + 16];
    assert_eq!(run(&mut out) as usize, expected.len());
    // Field by field, to name the first that differs.
    let mut at = 0;
    for f in fields {
        let want = h(f);
        assert_eq!(out[at..at + want.len()], want, "{f}");
        at += want.len();
    }
    // The next credential's balance through pat_act_credits.
    let next = h("refund_token_cbor");
    let mut credits = u64::MAX;
    assert_eq!(unsafe { pat_act_credits(next.as_ptr(), next.len(), bits, &mut credits) }, 0);
    assert_eq!(credits, n("remaining_balance"));
    // A buffer one byte short: refused.
    assert_eq!(run(&mut out[..expected.len() - 1]), Error::BufferTooSmall.code());
}

/// The client's calls for one key, challenge and bit length.
struct Act<'a> {
    key: [u8; 32],
    challenge: &'a [u8],
    bits: usize,
}

impl Act<'_> {
    fn request(&self, rng: &mut pat_testkit::TestRng, req: &mut [u8], state: &mut [u8]) -> i32 {
        unsafe {
            pat_act_request(
                DS.as_ptr(),
                DS.len(),
                self.key.as_ptr(),
                self.key.len(),
                self.challenge.as_ptr(),
                self.challenge.len(),
                Some(test_rng),
                rng_ptr(rng),
                req.as_mut_ptr(),
                req.len(),
                state.as_mut_ptr(),
                state.len(),
            )
        }
    }

    fn finalize(&self, state: &mut [u8], response: &[u8], credential: &mut [u8]) -> i32 {
        unsafe {
            pat_act_finalize(
                DS.as_ptr(),
                DS.len(),
                self.key.as_ptr(),
                self.key.len(),
                self.bits,
                state.as_mut_ptr(),
                state.len(),
                response.as_ptr(),
                response.len(),
                credential.as_mut_ptr(),
                credential.len(),
            )
        }
    }

    fn spend(
        &self,
        credential: &mut [u8],
        challenge: &[u8],
        cost: u64,
        rng: &mut pat_testkit::TestRng,
        token: &mut [u8],
        refund_state: &mut [u8],
    ) -> i32 {
        unsafe {
            pat_act_spend(
                DS.as_ptr(),
                DS.len(),
                self.key.as_ptr(),
                self.key.len(),
                self.bits,
                credential.as_mut_ptr(),
                credential.len(),
                challenge.as_ptr(),
                challenge.len(),
                cost,
                Some(test_rng),
                rng_ptr(rng),
                token.as_mut_ptr(),
                token.len(),
                refund_state.as_mut_ptr(),
                refund_state.len(),
            )
        }
    }

    fn refund(&self, refund_state: &mut [u8], token: &[u8], refund: &[u8], credential: &mut [u8]) -> i32 {
        unsafe {
            pat_act_refund(
                DS.as_ptr(),
                DS.len(),
                self.key.as_ptr(),
                self.key.len(),
                self.bits,
                refund_state.as_mut_ptr(),
                refund_state.len(),
                token.as_ptr(),
                token.len(),
                refund.as_ptr(),
                refund.len(),
                credential.as_mut_ptr(),
                credential.len(),
            )
        }
    }

    fn credits(&self, credential: &[u8]) -> u64 {
        let mut out = u64::MAX;
        assert_eq!(unsafe { pat_act_credits(credential.as_ptr(), credential.len(), self.bits, &mut out) }, 0);
        out
    }
}

fn challenge_bytes(origin: &[u8]) -> Vec<u8> {
    let c = ActChallenge::new(b"issuer.example", &[], origin, &[5; 32]).unwrap();
    let mut out = vec![0u8; c.encoded_len()];
    c.encode(&mut out).unwrap();
    out
}

fn params() -> Params {
    Params::from_domain_separator(DS)
}

/// Issuance of `credits`, then spends of `costs` each refunded `refund`,
/// checking every balance; returns the last credential.
fn cycle<const L: usize>(credits: u64, steps: &[(u64, u64)]) -> Vec<u8> {
    let mut rng = pat_testkit::TestRng::new(L as u64);
    let issuer = Issuer::<L>::new(params(), PrivateKey::generate(&mut rng).unwrap());
    let challenge = challenge_bytes(b"origin.example");
    let parsed = ActChallenge::decode(&challenge).unwrap();
    let act = Act { key: issuer.token_key(), challenge: &challenge, bits: L };
    let mut req = vec![0xAAu8; PAT_ACT_REQUEST_LEN];
    let mut state = vec![0xAAu8; PAT_ACT_REQUEST_STATE_LEN];
    assert_eq!(act.request(&mut rng, &mut req, &mut state), PAT_ACT_REQUEST_LEN as i32);
    let response = issuer.issue(&TokenRequest::decode(&req).unwrap(), u128::from(credits), &parsed, &mut rng).unwrap();
    let mut response_bytes = vec![0u8; PAT_ACT_RESPONSE_LEN];
    response.encode(&mut response_bytes).unwrap();
    let mut credential = vec![0xAAu8; PAT_ACT_CREDENTIAL_LEN];
    assert_eq!(act.finalize(&mut state, &response_bytes, &mut credential), PAT_ACT_CREDENTIAL_LEN as i32);
    assert!(state.iter().all(|&b| b == 0), "the request state is wiped");
    let mut balance = credits;
    assert_eq!(act.credits(&credential), balance);
    let token_len = pat_act_token_len(L) as usize;
    for &(cost, back) in steps {
        let mut token = vec![0xAAu8; token_len];
        let mut refund_state = vec![0xAAu8; PAT_ACT_REFUND_STATE_LEN];
        assert_eq!(
            act.spend(&mut credential, &challenge, cost, &mut rng, &mut token, &mut refund_state),
            token_len as i32
        );
        assert!(credential.iter().all(|&b| b == 0), "a spend wipes the credential");
        let verified = issuer
            .verify(&Token::<L>::decode(&token).unwrap(), &parsed, u128::from(cost), u128::from(back), &mut rng)
            .unwrap();
        // The token as an Authorization value.
        let size = pat_act_authorization_size(L) as usize;
        let mut auth = vec![0u8; size];
        let rc = unsafe { pat_authorization(token.as_ptr(), token.len(), auth.as_mut_ptr().cast(), auth.len()) };
        assert_eq!(rc as usize, size - 1);
        let value = std::str::from_utf8(&auth[..size - 1]).unwrap();
        let mut decoded = vec![0u8; token_len];
        assert_eq!(
            pat::wire::auth::parse_authorization(value).unwrap().decode_base64url(&mut decoded).unwrap(),
            &token[..]
        );
        let refund = verified.refund.to_cbor();
        assert_eq!(refund.len(), PAT_ACT_REFUND_LEN);
        let mut next = vec![0xAAu8; PAT_ACT_CREDENTIAL_LEN];
        assert_eq!(act.refund(&mut refund_state, &token, &refund, &mut next), PAT_ACT_CREDENTIAL_LEN as i32);
        assert!(refund_state.iter().all(|&b| b == 0), "the refund state is wiped");
        balance = balance - cost + back;
        assert_eq!(act.credits(&next), balance);
        credential = next;
    }
    credential
}

#[test]
fn credentials_spend_and_refund_against_the_library_issuer() {
    cycle::<8>(100, &[(30, 10), (80, 0)]);
    cycle::<16>(1000, &[(999, 999), (1, 0)]);
    cycle::<64>(u64::from(u32::MAX), &[(7, 3)]);
    let last = cycle::<128>(5, &[(5, 5)]);
    assert_eq!(last.len(), PAT_ACT_CREDENTIAL_LEN);
}

#[test]
fn bad_calls_are_refused_with_typed_errors() {
    const L: usize = 16;
    let mut rng = pat_testkit::TestRng::new(77);
    let issuer = Issuer::<L>::new(params(), PrivateKey::generate(&mut rng).unwrap());
    let challenge = challenge_bytes(b"origin.example");
    let parsed = ActChallenge::decode(&challenge).unwrap();
    let act = Act { key: issuer.token_key(), challenge: &challenge, bits: L };
    let zeroed = |a: &[u8]| a.iter().all(|&b| b == 0);

    // Bit lengths this API does not serve.
    for bits in [0, 1, 12, 127, 129, 256] {
        assert_eq!(pat_act_token_len(bits), Error::InvalidLength(Field::Message).code(), "{bits}");
        assert_eq!(pat_act_authorization_size(bits), Error::InvalidLength(Field::Message).code(), "{bits}");
    }
    // A challenge of another type; a key of another length; short buffers.
    let mut req = vec![0xAAu8; PAT_ACT_REQUEST_LEN];
    let mut state = vec![0xAAu8; PAT_ACT_REQUEST_STATE_LEN];
    let arc_challenge = {
        let c = pat::tokens::arc::ArcChallenge::new(b"issuer.example", &[], b"origin.example", &[]).unwrap();
        let mut out = vec![0u8; c.encoded_len()];
        c.encode(&mut out).unwrap();
        out
    };
    let wrong = Act { key: act.key, challenge: &arc_challenge, bits: L };
    assert_eq!(
        wrong.request(&mut rng, &mut req, &mut state),
        Error::WrongTokenType { expected: 0xE5AD, found: 0xE5AC }.code()
    );
    assert!(zeroed(&req) && zeroed(&state));
    let mut short = vec![0u8; PAT_ACT_REQUEST_LEN - 1];
    assert_eq!(act.request(&mut rng, &mut short, &mut state), Error::BufferTooSmall.code());
    let mut short_state = vec![0u8; PAT_ACT_REQUEST_STATE_LEN - 1];
    assert_eq!(act.request(&mut rng, &mut req, &mut short_state), Error::BufferTooSmall.code());

    // Issuance; refused responses keep the state.
    assert_eq!(act.request(&mut rng, &mut req, &mut state), PAT_ACT_REQUEST_LEN as i32);
    let response = issuer.issue(&TokenRequest::decode(&req).unwrap(), 50, &parsed, &mut rng).unwrap();
    let mut response_bytes = vec![0u8; PAT_ACT_RESPONSE_LEN];
    response.encode(&mut response_bytes).unwrap();
    let kept = state.clone();
    let mut credential = vec![0xAAu8; PAT_ACT_CREDENTIAL_LEN];
    let mut forged = response_bytes.clone();
    forged[PAT_ACT_RESPONSE_LEN - 2] ^= 1;
    assert_eq!(act.finalize(&mut state, &forged, &mut credential), Error::ChallengeMismatch.code());
    assert!(zeroed(&credential));
    assert_eq!(
        act.finalize(&mut state, &response_bytes[..PAT_ACT_RESPONSE_LEN - 1], &mut credential),
        Error::Truncated.code()
    );
    let twelve = Act { key: act.key, challenge: &challenge, bits: 12 };
    assert_eq!(
        twelve.finalize(&mut state, &response_bytes, &mut credential),
        Error::InvalidLength(Field::Message).code()
    );
    assert_eq!(state, kept);
    assert_eq!(act.finalize(&mut state, &response_bytes, &mut credential), PAT_ACT_CREDENTIAL_LEN as i32);
    // The wiped request state is refused as every family's spent state is.
    let mut again = vec![0xAAu8; PAT_ACT_CREDENTIAL_LEN];
    assert_eq!(act.finalize(&mut state, &response_bytes, &mut again), Error::UnknownStateVersion(0).code());
    assert!(zeroed(&again));

    // Spends refused: over the balance, for another origin; the credential kept.
    let token_len = pat_act_token_len(L) as usize;
    let mut token = vec![0xAAu8; token_len];
    let mut refund_state = vec![0xAAu8; PAT_ACT_REFUND_STATE_LEN];
    let kept = credential.clone();
    assert_eq!(
        act.spend(&mut credential, &challenge, 51, &mut rng, &mut token, &mut refund_state),
        Error::ValueTooLarge.code()
    );
    assert!(zeroed(&token) && zeroed(&refund_state));
    assert_eq!(
        act.spend(&mut credential, &challenge_bytes(b"other.example"), 5, &mut rng, &mut token, &mut refund_state),
        Error::ChallengeMismatch.code()
    );
    assert_eq!(
        act.spend(&mut credential, &challenge, 5, &mut rng, &mut token[..token_len - 1], &mut refund_state),
        Error::BufferTooSmall.code()
    );
    assert_eq!(
        act.spend(
            &mut credential[..PAT_ACT_CREDENTIAL_LEN - 1],
            &challenge,
            5,
            &mut rng,
            &mut token,
            &mut refund_state
        ),
        Error::Truncated.code()
    );
    assert_eq!(credential, kept, "every refused spend keeps the credential");
    // A wiped credential spends nothing and has no balance.
    let mut wiped = vec![0u8; PAT_ACT_CREDENTIAL_LEN];
    assert_eq!(
        act.spend(&mut wiped, &challenge, 5, &mut rng, &mut token, &mut refund_state),
        Error::UnknownStateVersion(0).code()
    );
    let mut out = u64::MAX;
    assert_eq!(
        unsafe { pat_act_credits(wiped.as_ptr(), wiped.len(), L, &mut out) },
        Error::UnknownStateVersion(0).code()
    );
    assert_eq!(out, 0, "a refused call empties the balance");
    // Zeros of another length are not a spent credential: the decoder
    // refuses them (a zero byte is no CBOR header it accepts).
    let mut short = vec![0u8; PAT_ACT_CREDENTIAL_LEN - 1];
    let rc = act.spend(&mut short, &challenge, 5, &mut rng, &mut token, &mut refund_state);
    assert_eq!(rc, Error::InvalidValue(Field::Message).code());

    // A spend, then refused refunds that keep the refund state.
    assert_eq!(act.spend(&mut credential, &challenge, 20, &mut rng, &mut token, &mut refund_state), token_len as i32);
    let verified = issuer.verify(&Token::<L>::decode(&token).unwrap(), &parsed, 20, 4, &mut rng).unwrap();
    let refund = verified.refund.to_cbor();
    let kept = refund_state.clone();
    let mut next = vec![0xAAu8; PAT_ACT_CREDENTIAL_LEN];
    let mut forged = refund.to_vec();
    forged[PAT_ACT_REFUND_LEN - 2] ^= 1;
    assert_eq!(act.refund(&mut refund_state, &token, &forged, &mut next), Error::Verification.code());
    assert!(zeroed(&next));
    assert_eq!(
        act.refund(&mut refund_state, &token, &refund[..PAT_ACT_REFUND_LEN - 1], &mut next),
        Error::Truncated.code()
    );
    assert_eq!(act.refund(&mut refund_state, &token[..token_len - 1], &refund, &mut next), Error::Truncated.code());
    assert_eq!(refund_state, kept);
    assert_eq!(act.refund(&mut refund_state, &token, &refund, &mut next), PAT_ACT_CREDENTIAL_LEN as i32);
    assert_eq!(act.credits(&next), 34);
    // The wiped refund state is refused as every family's spent state is.
    let mut again = vec![0xAAu8; PAT_ACT_CREDENTIAL_LEN];
    assert_eq!(act.refund(&mut refund_state, &token, &refund, &mut again), Error::UnknownStateVersion(0).code());
    assert!(zeroed(&again));

    // ACT tokens take no extensions; a token of no served length is refused.
    let ext = [0u8, 0];
    let mut auth = vec![0u8; 8192];
    let rc = unsafe {
        pat_authorization_with_extensions(
            token.as_ptr(),
            token.len(),
            ext.as_ptr(),
            ext.len(),
            auth.as_mut_ptr().cast(),
            auth.len(),
        )
    };
    assert_eq!(rc, Error::InvalidValue(Field::Extensions).code());
    let rc = unsafe { pat_authorization(token.as_ptr(), token.len() - 1, auth.as_mut_ptr().cast(), auth.len()) };
    assert_eq!(rc, Error::InvalidLength(Field::Token).code());
    // pat_act_credits: a malformed credential, an unserved bit length.
    let mut out = 7u64;
    assert_eq!(unsafe { pat_act_credits(next.as_ptr(), next.len() - 1, L, &mut out) }, Error::Truncated.code());
    assert_eq!(out, 0, "the output is emptied on failure");
    assert_eq!(
        unsafe { pat_act_credits(next.as_ptr(), next.len(), 12, &mut out) },
        Error::InvalidLength(Field::Message).code()
    );
}
