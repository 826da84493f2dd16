//! The committed negative vectors (`tests/vectors/negative/malformed.json`,
//! written by `scripts/negative-vectors.py`): every malformed message must be
//! refused with exactly the error the file names (`A|B` allows either), on
//! every architecture the suite runs on. The ARC, ATHM (type 0xC07E) and
//! ACT (type 0xE5AD) kinds also hold their valid message (`"error": "Ok"`),
//! which must decode.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::collections::BTreeMap;

use pat::crypto::act;
use pat::crypto::arc::{
    Credential, CredentialRequestState, CredentialResponse, PresentationRef, PresentationState, ServerPrivateKey,
    ServerPublicKey,
};
use pat::crypto::athm::{self, Params, PrivateKey, PublicKeyProof};
use pat::crypto::blind_rsa::SecretKey;
use pat::crypto::rate_limited::encap::EncapKey;
use pat::crypto::rate_limited::inner_request::InnerTokenRequest;
use pat::crypto::voprf::{ByteArray, KeyPair, Suite};
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::batched::{GenericBatchTokenRequest, GenericBatchTokenResponse};
use pat::tokens::private::{self, PrivateTokenType};
use pat::tokens::{act as e5ad, arc, athm as c07e, metadata, poprf, public, rate_limited};
use pat::wire::auth;
use pat::wire::codec::Decode;
use pat::wire::extensions::{EXTENSIONS_MAX_LEN, Extensions};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, OsRng, TokenChallenge, TokenRef};
use rand_core::UnwrapErr;
use serde_json::Value;

mod common;
use common::{field, load};

/// Issuer and client of case 0 of a private-token file.
fn private_parties<T: PrivateTokenType>(file: &str) -> (private::Issuer<T>, private::Client<T>, Value) {
    let case = load(file)[0].clone();
    let sk = <<T::Suite as Suite>::ScalarBytes>::from_slice(&field(&case, "skS")).unwrap();
    let issuer = private::Issuer::new(
        KeyPair::from_secret_key(pat::crypto::voprf::SecretKey::from_bytes(&sk).unwrap()).unwrap(),
    );
    let client = issuer.client();
    (issuer, client, case)
}

fn evaluate<T: PrivateTokenType>(file: &str, bytes: &[u8]) -> pat::Result<()> {
    let (issuer, _, _) = private_parties::<T>(file);
    let request = private::TokenRequest::<T>::decode(bytes)?;
    issuer.evaluate(&request, &mut UnwrapErr(OsRng)).map(drop)
}

fn finalize<T: PrivateTokenType>(file: &str, bytes: &[u8]) -> pat::Result<()> {
    let (_, client, case) = private_parties::<T>(file);
    let challenge_bytes = field(&case, "token_challenge");
    let challenge = TokenChallenge::decode(&challenge_bytes).unwrap();
    let nonce: [u8; 32] = field(&case, "nonce").try_into().unwrap();
    let blind = <<T::Suite as Suite>::ScalarBytes>::from_slice(&field(&case, "blind")).unwrap();
    let (_, mut state) = pat::hazmat::tokens::private::request_with(&client, &challenge, &nonce, &blind).unwrap();
    client.finalize(&mut state, &private::TokenResponse::<T>::decode(bytes)?).map(drop)
}

fn rsa_issuer() -> (public::Issuer, public::Client, Value) {
    let case = load("pat-go/tokens/type2/type2-issuance-test-vectors.json")[0].clone();
    let pem = String::from_utf8(field(&case, "skS")).unwrap();
    let issuer = public::Issuer::new(SecretKey::from_pkcs8_pem(&pem).unwrap());
    let client = public::Client::new(issuer.public_key().clone());
    (issuer, client, case)
}

/// Issuer, client and case 2 of pat's type 0xDA7B file (three extensions).
fn poprf_parties() -> (poprf::Issuer, poprf::Client, Value) {
    let case = load("pat/type-da7b-issuance-test-vectors.json")[2].clone();
    let sk = <<pat::crypto::voprf::P384Sha384 as Suite>::ScalarBytes>::from_slice(&field(&case, "skS")).unwrap();
    let issuer =
        poprf::Issuer::new(KeyPair::from_secret_key(pat::crypto::voprf::SecretKey::from_bytes(&sk).unwrap()).unwrap());
    let client = issuer.client();
    (issuer, client, case)
}

fn poprf_evaluate(bytes: &[u8]) -> pat::Result<()> {
    let (issuer, _, _) = poprf_parties();
    issuer.evaluate(&poprf::TokenRequest::decode(bytes)?, &mut UnwrapErr(OsRng)).map(drop)
}

/// Finalizes a response with the case's request state and extensions.
fn poprf_finalize(bytes: &[u8]) -> pat::Result<()> {
    let (_, client, case) = poprf_parties();
    let challenge_bytes = field(&case, "token_challenge");
    let challenge = TokenChallenge::decode(&challenge_bytes).unwrap();
    let extensions_bytes = field(&case, "extensions");
    let extensions = Extensions::decode(&extensions_bytes).unwrap();
    let blind = <<pat::crypto::voprf::P384Sha384 as Suite>::ScalarBytes>::from_slice(&field(&case, "blind")).unwrap();
    let nonce: [u8; 32] = field(&case, "nonce").try_into().unwrap();
    let (_, mut state) =
        pat::hazmat::tokens::poprf::request_with(&client, &challenge, extensions, &nonce, &blind).unwrap();
    client.finalize(&mut state, &extensions, &poprf::TokenResponse::decode(bytes)?).map(drop)
}

/// The reference's ATHM vectors (N = 4): their deployment id, private key,
/// key proof and request state (r ‖ tc ‖ T ‖ key id), as bytes.
struct AthmVectors {
    deployment_id: String,
    private_key: Vec<u8>,
    proof: Vec<u8>,
    state: Vec<u8>,
}

fn athm_vectors() -> AthmVectors {
    let file = load("athm/test_vectors.json");
    let proc = |name: &str| file.as_array().unwrap().iter().find(|p| p["procedure"] == name).unwrap().clone();
    let out = |p: &Value, f: &str| common::hex(p["output"][f].as_str().unwrap());
    let (key_gen, request) = (proc("key_gen"), proc("token_request"));
    // pat's state format: version 1, shape 4, type 0xC07E, then the body.
    let state = [
        vec![1, 4, 0xC0, 0x7E],
        out(&request, "token_context"),
        out(&request, "token_request"),
        out(&key_gen, "key_id"),
    ]
    .concat();
    AthmVectors {
        deployment_id: proc("params")["output"]["deployment_id"].as_str().unwrap().to_owned(),
        private_key: out(&key_gen, "private_key"),
        proof: out(&key_gen, "public_key_proof"),
        state,
    }
}

/// The vectors' key as a type 0xC07E issuer, and a client of its token key.
fn athm_parties(v: &AthmVectors) -> (c07e::Issuer<'_, 4>, c07e::Client<'_, 4>) {
    let params = Params::<4>::new(v.deployment_id.as_bytes()).unwrap();
    let sk = PrivateKey::from_bytes(&v.private_key).unwrap();
    let issuer = c07e::Issuer::with_proof(params, sk, PublicKeyProof::from_bytes(&v.proof).unwrap()).unwrap();
    let client = c07e::Client::from_token_key(params, &issuer.token_key()).unwrap();
    (issuer, client)
}

/// The ATHM kinds: the issuer issues (hidden value 3), the client finalizes
/// with the vector's state, the issuer verifies, a client loads a token key.
fn athm_check(kind: &str, bytes: &[u8]) -> pat::Result<()> {
    let v = athm_vectors();
    let (issuer, client) = athm_parties(&v);
    match kind {
        "type_c07e_issue" => issuer.issue(&c07e::TokenRequest::decode(bytes)?, 3, &mut UnwrapErr(OsRng)).map(drop),
        "type_c07e_finalize" => {
            let state = c07e::RequestState::import(&v.state).unwrap();
            let response = athm::TokenResponse::<4>::from_bytes(bytes)?;
            client.finalize(&state, &response, &mut UnwrapErr(OsRng)).map(drop)
        }
        "type_c07e_verify" => issuer.verify(&c07e::Token::decode(bytes)?).map(drop),
        "type_c07e_token_key" => {
            let params = Params::<4>::new(v.deployment_id.as_bytes()).unwrap();
            c07e::Client::from_token_key(params, bytes).map(drop)
        }
        other => panic!("unknown ATHM kind {other}"),
    }
}

/// The ACT kinds' bit length (the appendix vectors').
const ACT_L: usize = 8;

/// The ACT kinds that check after decoding, with the appendix vectors'
/// key, client states and spend proof (L = 8, ctx 0): the issuer checks a
/// request (100 credits) and a spend proof (refunding 10), the client a
/// response and a refund; as type 0xE5AD, for the challenge `ech` of the
/// script, the issuer issues and verifies (cost 30, refund 10), the client
/// finalizes with the vector's state and ctx 0, a client loads a token key.
fn act_check(kind: &str, bytes: &[u8]) -> pat::Result<()> {
    let v = load("act/draft-schlesinger-cfrg-act-01.json")[0].clone();
    let cbor = |name: &str| field(&v, &format!("{name}_cbor"));
    let params = act::Params::from_domain_separator(v["domain_separator"].as_str().unwrap().as_bytes());
    let sk = act::PrivateKey::from_cbor(&cbor("sk")).unwrap();
    let pk = *sk.public_key();
    let redemption: Vec<u8> = (0..32).collect();
    let credential: Vec<u8> = (100..132).collect();
    let challenge = e5ad::ActChallenge::new(b"issuer.example", &redemption, b"origin.example", &credential).unwrap();
    let mut rng = UnwrapErr(OsRng);
    match kind {
        "act_issue" => {
            let request = act::IssuanceRequest::from_cbor(bytes)?;
            sk.issue::<ACT_L, _>(&params, &request, 100, &[0; 32], &mut rng).map(drop)
        }
        "act_finalize" => {
            let pre = act::PreIssuance::from_cbor(&cbor("preissuance")).unwrap();
            let request = act::IssuanceRequest::from_cbor(&cbor("issuance_request")).unwrap();
            let response = act::IssuanceResponse::from_cbor(bytes)?;
            pre.to_credit_token::<ACT_L>(&params, &pk, &request, &response).map(drop)
        }
        "act_spend_proof_verify" => {
            let proof = act::SpendProof::<ACT_L>::from_cbor(bytes)?;
            sk.refund::<ACT_L, _>(&params, &proof, 10, &mut rng).map(drop)
        }
        "act_refund_finalize" => {
            let pre_refund = act::PreRefund::from_cbor(&cbor("prerefund")).unwrap();
            let proof = act::SpendProof::<ACT_L>::from_cbor(&cbor("spend_proof")).unwrap();
            pre_refund.to_credit_token::<ACT_L>(&params, &proof, &act::Refund::from_cbor(bytes)?, &pk).map(drop)
        }
        "type_e5ad_issue" => {
            let issuer = e5ad::Issuer::<ACT_L>::new(params, sk);
            issuer.issue(&e5ad::TokenRequest::decode(bytes)?, 100, &challenge, &mut rng).map(drop)
        }
        "type_e5ad_finalize" => {
            let client = e5ad::Client::<ACT_L>::from_token_key(params, &pk.to_bytes()).unwrap();
            let state = [cbor("preissuance"), cbor("issuance_request"), vec![0; 32]].concat();
            let state = e5ad::RequestState::from_bytes(&state).unwrap();
            client.finalize(&state, &e5ad::TokenResponse::decode(bytes)?).map(drop)
        }
        "type_e5ad_verify" => {
            let issuer = e5ad::Issuer::<ACT_L>::new(params, sk);
            issuer.verify(&e5ad::Token::<ACT_L>::decode(bytes)?, &challenge, 30, 10, &mut rng).map(drop)
        }
        "type_e5ad_token_key" => e5ad::Client::<ACT_L>::from_token_key(params, bytes).map(drop),
        other => panic!("unknown ACT kind {other}"),
    }
}

/// An `Authorization` value with extensions, parsed, its token and its
/// extensions decoded (the first error of the three).
fn authorization_extensions(bytes: &[u8]) -> pat::Result<()> {
    let header = std::str::from_utf8(bytes).unwrap();
    let params = auth::parse_authorization_with_extensions(header)?;
    let mut token = [0u8; 512];
    params.token.decode_base64url(&mut token)?;
    let mut ext = vec![0u8; EXTENSIONS_MAX_LEN];
    params.decode_extensions(&mut ext).map(drop)
}

/// The presentation limit of a case (ARC's limit-taking decoders).
fn limit(case: &Value) -> u64 {
    case["limit"].as_u64().unwrap_or_else(|| panic!("no limit: {case}"))
}

fn check(kind: &str, bytes: &[u8], case: &Value) -> pat::Result<()> {
    const T1: &str = "pat-go/tokens/private/type1-issuance-test-vectors.json";
    const T5: &str = "pat-go/tokens/private/type5-issuance-test-vectors.json";
    match kind {
        "token_challenge" => TokenChallenge::decode(bytes).map(drop),
        "token" => TokenRef::decode(bytes).map(drop),
        "type1_request" => private::TokenRequest::<PrivateP384>::decode(bytes).map(drop),
        "type1_response" => private::TokenResponse::<PrivateP384>::decode(bytes).map(drop),
        "type1_evaluate" => evaluate::<PrivateP384>(T1, bytes),
        "type1_finalize" => finalize::<PrivateP384>(T1, bytes),
        "type5_request" => private::TokenRequest::<PrivateRistretto255>::decode(bytes).map(drop),
        "type5_response" => private::TokenResponse::<PrivateRistretto255>::decode(bytes).map(drop),
        "type5_evaluate" => evaluate::<PrivateRistretto255>(T5, bytes),
        "type5_finalize" => finalize::<PrivateRistretto255>(T5, bytes),
        "type2_request" => public::TokenRequest::decode(bytes).map(drop),
        "type2_response" => public::TokenResponse::decode(bytes).map(drop),
        "type2_evaluate" => {
            let (issuer, _, _) = rsa_issuer();
            issuer.evaluate(&public::TokenRequest::decode(bytes)?).map(drop)
        }
        "type2_finalize" => {
            let (_, client, case) = rsa_issuer();
            let challenge_bytes = field(&case, "token_challenge");
            let challenge = TokenChallenge::decode(&challenge_bytes).unwrap();
            let mut blind = [0u8; 256];
            let r = field(&case, "blind");
            blind[256 - r.len()..].copy_from_slice(&r);
            let (_, mut state) = pat::hazmat::tokens::public::request_with(
                &client,
                &challenge,
                &field(&case, "nonce").try_into().unwrap(),
                &field(&case, "salt").try_into().unwrap(),
                &blind,
            )
            .unwrap();
            client.finalize(&mut state, &public::TokenResponse::decode(bytes)?).map(drop)
        }
        "amortized1_request" => AmortizedTokenRequest::<PrivateP384>::decode(bytes).map(drop),
        "amortized1_response" => AmortizedTokenResponse::<PrivateP384>::decode(bytes).map(drop),
        "batch_request" => GenericBatchTokenRequest::decode(bytes).map(drop),
        "batch_response" => GenericBatchTokenResponse::decode(bytes).map(drop),
        "type3_request" => rate_limited::TokenRequest::decode(bytes).map(drop),
        "encap_key" => EncapKey::decode(bytes).map(drop),
        "inner_request" => InnerTokenRequest::decode(bytes).map(drop),
        "type_da7a_request" => metadata::TokenRequest::decode(bytes).map(drop),
        "type_da7a_response" => metadata::TokenResponse::decode(bytes).map(drop),
        "type_da7b_request" => poprf::TokenRequest::decode(bytes).map(drop),
        "type_da7b_response" => poprf::TokenResponse::decode(bytes).map(drop),
        "type_da7b_evaluate" => poprf_evaluate(bytes),
        "type_da7b_finalize" => poprf_finalize(bytes),
        "extensions" => Extensions::decode(bytes).map(drop),
        "authorization_extensions" => authorization_extensions(bytes),
        "arc_challenge" => arc::ArcChallenge::decode(bytes).map(drop),
        "arc_request" => arc::TokenRequest::decode(bytes).map(drop),
        "arc_response" => CredentialResponse::decode(bytes).map(drop),
        "arc_presentation" => PresentationRef::decode(bytes, limit(case)).map(drop),
        "arc_token" => arc::ArcToken::decode(bytes, limit(case)).map(drop),
        "arc_public_key" => ServerPublicKey::decode(bytes).map(drop),
        "arc_private_key" => ServerPrivateKey::from_bytes(bytes).map(drop),
        "arc_request_state" => CredentialRequestState::import(bytes).map(drop),
        "arc_credential" => Credential::import(bytes).map(drop),
        "arc_presentation_state" => PresentationState::import(bytes).map(drop),
        "type_c07e_request" => c07e::TokenRequest::decode(bytes).map(drop),
        "type_c07e_response" => athm::TokenResponse::<4>::from_bytes(bytes).map(drop),
        "type_c07e_token" => c07e::Token::decode(bytes).map(drop),
        "type_c07e_request_state" => c07e::RequestState::import(bytes).map(drop),
        "type_c07e_issue" | "type_c07e_finalize" | "type_c07e_verify" | "type_c07e_token_key" => {
            athm_check(kind, bytes)
        }
        "athm_private_key" => PrivateKey::from_bytes(bytes).map(drop),
        "athm_public_key" => athm::PublicKey::from_bytes(bytes).map(drop),
        "athm_key_proof" => PublicKeyProof::from_bytes(bytes).map(drop),
        "act_request" => act::IssuanceRequest::from_cbor(bytes).map(drop),
        "act_response" => act::IssuanceResponse::from_cbor(bytes).map(drop),
        "act_spend_proof" => act::SpendProof::<ACT_L>::from_cbor(bytes).map(drop),
        "act_refund" => act::Refund::from_cbor(bytes).map(drop),
        "act_credit_token" => act::CreditToken::from_cbor(bytes).map(drop),
        "act_pre_issuance" => act::PreIssuance::from_cbor(bytes).map(drop),
        "act_pre_refund" => act::PreRefund::from_cbor(bytes).map(drop),
        "act_private_key" => act::PrivateKey::from_cbor(bytes).map(drop),
        "act_public_key" => act::PublicKey::from_cbor(bytes).map(drop),
        "type_e5ad_challenge" => e5ad::ActChallenge::decode(bytes).map(drop),
        "type_e5ad_request" => e5ad::TokenRequest::decode(bytes).map(drop),
        "type_e5ad_response" => e5ad::TokenResponse::decode(bytes).map(drop),
        "type_e5ad_token" => e5ad::Token::<ACT_L>::decode(bytes).map(drop),
        "type_e5ad_request_state" => e5ad::RequestState::from_bytes(bytes).map(drop),
        "act_issue"
        | "act_finalize"
        | "act_spend_proof_verify"
        | "act_refund_finalize"
        | "type_e5ad_issue"
        | "type_e5ad_finalize"
        | "type_e5ad_verify"
        | "type_e5ad_token_key" => act_check(kind, bytes),
        other => panic!("unknown kind {other}"),
    }
}

/// The wire message a kind belongs to (crypto checks count with their message).
fn message(kind: &str) -> String {
    kind.replace("_spend_proof_verify", "_spend_proof")
        .replace("_refund_finalize", "_refund")
        .replace("_evaluate", "_request")
        .replace("_issue", "_request")
        .replace("_finalize", "_response")
        .replace("_verify", "_token")
}

#[test]
fn every_malformed_message_is_refused_with_its_error() {
    let file = load("negative/malformed.json");
    let cases = file.as_array().unwrap();
    let mut per_message: BTreeMap<String, usize> = BTreeMap::new();
    let mut valid: BTreeMap<String, usize> = BTreeMap::new();
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let kind = case["kind"].as_str().unwrap();
        let expected = case["error"].as_str().unwrap();
        let bytes = field(case, "hex");
        if expected == "Ok" {
            *valid.entry(kind.to_string()).or_default() += 1;
        } else {
            *per_message.entry(message(kind)).or_default() += 1;
        }
        let got: Result<(), Error> = check(kind, &bytes, case);
        let ok = match &got {
            Ok(()) => expected == "Ok",
            Err(e) => expected.split('|').any(|alt| alt == format!("{e:?}")),
        };
        if !ok {
            failures.push(format!("#{i} {kind} ({}): expected {expected}, got {got:?}", case["description"]));
        }
    }
    assert!(failures.is_empty(), "{} of {} failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
    for (message, count) in &per_message {
        assert!(*count >= 10, "only {count} malformed {message} messages");
    }
    // Every ARC, ATHM and ACT kind holds at least one valid message; no other kind does.
    let with_valid = |k: &str| ["arc_", "athm_", "type_c07e_", "act_", "type_e5ad_"].iter().any(|p| k.starts_with(p));
    for kind in per_message.keys().filter(|k| with_valid(k)) {
        assert!(valid.contains_key(kind), "no valid {kind} message");
    }
    assert!(valid.keys().all(|k| with_valid(k)), "{valid:?}");
    assert_eq!(
        valid.values().sum::<usize>(),
        84,
        "the committed file has 15 valid ARC, 17 valid ATHM and 52 valid ACT messages"
    );
    assert_eq!(cases.len(), 1530, "the committed file has 1530 cases");
}
