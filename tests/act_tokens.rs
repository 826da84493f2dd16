//! Token type 0xE5AD (draft-schlesinger-privacypass-act-01 on
//! draft-schlesinger-cfrg-act-01): a credential of 100 spent three times
//! with refunds through the wire messages, an overspend, a replay, a replay
//! store that fails closed, every way a spend can be for something else,
//! the decoders' negative cases, the request context rule, and the client
//! states exported and imported between steps.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::act::{CreditToken, Params, PreRefund, PrivateKey, Refund};
use pat::deploy::replay::{MemoryReplayStore, ReplayStore, Spend};
use pat::tokens::act::{
    ActChallenge, Client, Issuer, REFUND_LEN, REQUEST_LEN, RESPONSE_LEN, RequestState, TOKEN_TYPE, Token, TokenRequest,
    TokenResponse, token_len,
};
use pat::wire::codec::Decode;
use pat::{Error, Field};

mod common;
use common::{encode, rng};

const L: usize = 8;
const NOW: u64 = 1_700_000_000;
const EXPIRES: u64 = NOW + 3_600;

fn params() -> Params {
    Params::new("example", "tests", "act-tokens", "2026-01-01").unwrap()
}

fn setup() -> (Issuer<L>, Client<L>) {
    let issuer = Issuer::<L>::new(params(), PrivateKey::generate(&mut rng()).unwrap());
    let client = Client::<L>::from_token_key(params(), &issuer.token_key()).unwrap();
    (issuer, client)
}

fn challenge() -> ActChallenge<'static> {
    ActChallenge::new(b"issuer.example", &[7; 32], b"origin.example", &[9; 32]).unwrap()
}

/// Issuance through the wire: request, response, finalize.
fn issue(issuer: &Issuer<L>, client: &Client<L>, challenge: &ActChallenge<'_>, credits: u128) -> CreditToken {
    let (state, request) = client.request(challenge, &mut rng()).unwrap();
    let wire = encode(&request);
    assert_eq!(wire.len(), REQUEST_LEN);
    assert_eq!(wire[..3], [0xe5, 0xad, issuer.key_id()[31]]);
    let response = issuer.issue(&TokenRequest::decode(&wire).unwrap(), credits, challenge, &mut rng()).unwrap();
    let wire = encode(&response);
    assert_eq!(wire.len(), RESPONSE_LEN);
    client.finalize(&state, &TokenResponse::decode(&wire).unwrap()).unwrap()
}

/// A spend through the wire.
fn spend(client: &Client<L>, credit: &CreditToken, challenge: &ActChallenge<'_>, cost: u128) -> (Token<L>, PreRefund) {
    let (token, state) = client.spend(credit, challenge, cost, &mut rng()).unwrap();
    let wire = encode(&token);
    assert_eq!(wire.len(), token_len(L));
    assert_eq!(wire.len(), Token::<L>::LEN);
    assert_eq!(wire[..2], TOKEN_TYPE.to_be_bytes());
    let decoded = Token::<L>::decode(&wire).unwrap();
    assert_eq!(decoded, token);
    (decoded, state)
}

#[test]
fn a_credential_of_100_spent_three_times_with_refunds() {
    let (issuer, client) = setup();
    let challenge = challenge();
    let mut credit = issue(&issuer, &client, &challenge, 100);
    assert_eq!(credit.credits::<L>().unwrap(), 100);
    let mut store = MemoryReplayStore::<16>::new([1; 32]);
    for (cost, back, balance) in [(30, 5, 75), (20, 0, 55), (55, 10, 10)] {
        let (token, state) = spend(&client, &credit, &challenge, cost);
        let refund = issuer.redeem(&token, &challenge, cost, back, &mut store, EXPIRES, NOW, &mut rng()).unwrap();
        let wire = refund.to_cbor();
        assert_eq!(wire.len(), REFUND_LEN);
        assert_eq!(Refund::from_cbor(&wire).unwrap().partial_return::<L>().unwrap(), back);
        let next = client.refund(&state, &token, &Refund::from_cbor(&wire).unwrap()).unwrap();
        assert_eq!(next.credits::<L>().unwrap(), balance);
        assert_ne!(next.nullifier(), credit.nullifier());
        credit = next;
    }
    // The balance of 10 cannot pay 11; it can pay 10, down to 0.
    assert_eq!(client.spend(&credit, &challenge, 11, &mut rng()).unwrap_err(), Error::ValueTooLarge);
    let (token, state) = spend(&client, &credit, &challenge, 10);
    let refund = issuer.redeem(&token, &challenge, 10, 0, &mut store, EXPIRES, NOW, &mut rng()).unwrap();
    assert_eq!(client.refund(&state, &token, &refund).unwrap().credits::<L>().unwrap(), 0);
}

#[test]
fn an_overspend_is_refused() {
    let (issuer, client) = setup();
    let challenge = challenge();
    let credit = issue(&issuer, &client, &challenge, 100);
    assert_eq!(client.spend(&credit, &challenge, 101, &mut rng()).unwrap_err(), Error::ValueTooLarge);
    // Amounts of 2^L or more, on either side.
    assert_eq!(client.spend(&credit, &challenge, 256, &mut rng()).unwrap_err(), Error::ValueTooLarge);
    let (state, request) = client.request(&challenge, &mut rng()).unwrap();
    drop(state);
    assert_eq!(issuer.issue(&request, 256, &challenge, &mut rng()).unwrap_err(), Error::ValueTooLarge);
    // A refund above the cost is refused, and nothing is recorded.
    let (token, _) = spend(&client, &credit, &challenge, 30);
    let mut store = MemoryReplayStore::<16>::new([1; 32]);
    assert_eq!(
        issuer.redeem(&token, &challenge, 30, 31, &mut store, EXPIRES, NOW, &mut rng()),
        Err(Error::ValueTooLarge)
    );
    assert!(issuer.redeem(&token, &challenge, 30, 30, &mut store, EXPIRES, NOW, &mut rng()).is_ok());
}

#[test]
fn a_replayed_spend_is_refused() {
    let (issuer, client) = setup();
    let challenge = challenge();
    let credit = issue(&issuer, &client, &challenge, 100);
    let mut store = MemoryReplayStore::<16>::new([1; 32]);
    let (token, _) = spend(&client, &credit, &challenge, 10);
    assert!(issuer.redeem(&token, &challenge, 10, 0, &mut store, EXPIRES, NOW, &mut rng()).is_ok());
    assert_eq!(issuer.redeem(&token, &challenge, 10, 0, &mut store, EXPIRES, NOW, &mut rng()), Err(Error::Replayed));
    // A second, different spend of the same credit token shows the same
    // nullifier: refused as well.
    let (again, _) = spend(&client, &credit, &challenge, 10);
    assert_ne!(again, token);
    assert_eq!(again.nullifier(), token.nullifier());
    assert_eq!(issuer.redeem(&again, &challenge, 10, 0, &mut store, EXPIRES, NOW, &mut rng()), Err(Error::Replayed));
}

/// A store that cannot record, or a window already over, never releases a
/// refund, and a refused spend is not recorded.
#[test]
fn the_replay_store_fails_closed() {
    struct Broken(Spend);
    impl ReplayStore for Broken {
        fn spend(&mut self, _: &[u8; 32], _: &[u8; 32], _: u64, _: u64) -> Spend {
            self.0
        }
    }
    let (issuer, client) = setup();
    let challenge = challenge();
    let credit = issue(&issuer, &client, &challenge, 100);
    let (token, state) = spend(&client, &credit, &challenge, 10);
    let mut full = Broken(Spend::Full);
    assert_eq!(
        issuer.redeem(&token, &challenge, 10, 1, &mut full, EXPIRES, NOW, &mut rng()),
        Err(Error::ReplayStoreFull)
    );
    let mut expired = Broken(Spend::Expired);
    assert_eq!(
        issuer.redeem(&token, &challenge, 10, 1, &mut expired, EXPIRES, NOW, &mut rng()),
        Err(Error::ReplayWindowExpired)
    );
    let mut store = MemoryReplayStore::<16>::new([1; 32]);
    assert_eq!(
        issuer.redeem(&token, &challenge, 10, 1, &mut store, NOW, NOW, &mut rng()),
        Err(Error::ReplayWindowExpired)
    );
    // A forged proof is refused before the store sees it.
    let mut forged = encode(&token);
    let at = forged.len() - 32 - 3 - 16; // inside s̄, the field before ctx
    forged[at] ^= 1;
    let forged = Token::<L>::decode(&forged).unwrap();
    assert_eq!(
        issuer.redeem(&forged, &challenge, 10, 1, &mut store, EXPIRES, NOW, &mut rng()),
        Err(Error::Verification)
    );
    // None of the refusals recorded the nullifier.
    let refund = issuer.redeem(&token, &challenge, 10, 1, &mut store, EXPIRES, NOW, &mut rng()).unwrap();
    assert_eq!(client.refund(&state, &token, &refund).unwrap().credits::<L>().unwrap(), 91);
}

#[test]
fn a_spend_for_another_challenge_key_cost_or_context_is_refused() {
    let (issuer, client) = setup();
    let challenge = challenge();
    let credit = issue(&issuer, &client, &challenge, 100);
    let (token, _) = spend(&client, &credit, &challenge, 10);

    // Another challenge (another redemption context: the same ctx, another digest).
    let other = ActChallenge::new(b"issuer.example", &[8; 32], b"origin.example", &[9; 32]).unwrap();
    assert_eq!(issuer.verify(&token, &other, 10, 0, &mut rng()), Err(Error::ChallengeMismatch));

    // Another key.
    let (issuer2, _) = setup();
    assert_eq!(issuer2.verify(&token, &challenge, 10, 0, &mut rng()), Err(Error::KeyIdMismatch));
    let (_, request) = client.request(&challenge, &mut rng()).unwrap();
    if issuer2.key_id()[31] != issuer.key_id()[31] {
        assert_eq!(issuer2.issue(&request, 100, &challenge, &mut rng()), Err(Error::KeyIdMismatch));
    }

    // Another cost.
    assert_eq!(issuer.verify(&token, &challenge, 11, 0, &mut rng()), Err(Error::InvalidValue(Field::Token)));

    // Another request context: a credential for another origin, its token
    // relabelled with this challenge's digest.
    let elsewhere = ActChallenge::new(b"issuer.example", &[7; 32], b"other.example", &[9; 32]).unwrap();
    assert_eq!(client.spend(&credit, &elsewhere, 10, &mut rng()).unwrap_err(), Error::ChallengeMismatch);
    let credit_elsewhere = issue(&issuer, &client, &elsewhere, 100);
    let (mut relabelled, _) = spend(&client, &credit_elsewhere, &elsewhere, 10);
    relabelled.challenge_digest = challenge.digest();
    assert_eq!(issuer.verify(&relabelled, &challenge, 10, 0, &mut rng()), Err(Error::ChallengeMismatch));
    // Another credential context changes ctx too.
    let epoch2 = ActChallenge::new(b"issuer.example", &[7; 32], b"origin.example", &[10; 32]).unwrap();
    assert_ne!(epoch2.request_context(issuer.key_id()), challenge.request_context(issuer.key_id()));

    // A response for another context is refused at finalize.
    let (state, request) = client.request(&challenge, &mut rng()).unwrap();
    let response = issuer.issue(&request, 100, &elsewhere, &mut rng()).unwrap();
    assert_eq!(client.finalize(&state, &response).unwrap_err(), Error::ChallengeMismatch);

    // The right one passes.
    assert!(issuer.verify(&token, &challenge, 10, 0, &mut rng()).is_ok());
}

/// ctx = HashToScalar(concat(issuer_name, origin_info, credential_context,
/// issuer_key_id)) with 2-byte lengths, SHAKE128 64 bytes mod q (-02 §5.2),
/// and the key id is SHA-256 of the raw public key.
#[test]
fn the_request_context_follows_the_02_rule() {
    use sha2::Digest;
    use sha3::digest::{ExtendableOutput, Update, XofReader};
    let (issuer, client) = setup();
    let key_id: [u8; 32] = sha2::Sha256::digest(issuer.token_key()).into();
    assert_eq!(issuer.key_id(), &key_id);
    assert_eq!(client.key_id(), &key_id);
    let challenge = challenge();
    let mut input = Vec::new();
    for part in [&b"issuer.example"[..], b"origin.example", &[9; 32], &key_id] {
        input.extend_from_slice(&u16::try_from(part.len()).unwrap().to_be_bytes());
        input.extend_from_slice(part);
    }
    let mut h = sha3::Shake128::default();
    h.update(&input);
    let mut wide = [0u8; 64];
    h.finalize_xof().read(&mut wide);
    let want = curve25519_dalek::Scalar::from_bytes_mod_order_wide(&wide).to_bytes();
    assert_eq!(challenge.request_context(&key_id), want);
    let credit = issue(&issuer, &client, &challenge, 5);
    assert_eq!(credit.context(), want);
    let (token, _) = spend(&client, &credit, &challenge, 1);
    assert_eq!(token.proof.context(), want);
    // An empty credential context is a zero-length item.
    let bare = ActChallenge::new(b"issuer.example", &[], b"origin.example", &[]).unwrap();
    assert_ne!(bare.request_context(&key_id), want);
}

#[test]
fn decoders_refuse_truncated_trailing_and_wrong_types() {
    let (issuer, client) = setup();
    let challenge = challenge();
    let credit = issue(&issuer, &client, &challenge, 100);

    // Challenge.
    let wire = encode(&challenge);
    assert_eq!(ActChallenge::decode(&wire).unwrap(), challenge);
    assert_eq!(ActChallenge::decode(&wire[..wire.len() - 1]), Err(Error::Truncated));
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(ActChallenge::decode(&long), Err(Error::TrailingBytes));
    let mut arc = wire.clone();
    arc[1] = 0xac;
    assert_eq!(ActChallenge::decode(&arc), Err(Error::WrongTokenType { expected: 0xE5AD, found: 0xE5AC }));
    assert_eq!(
        ActChallenge::new(b"issuer.example", &[], b"origin.example", &[0; 5]),
        Err(Error::InvalidLength(Field::CredentialContext))
    );

    // TokenRequest.
    let (_, request) = client.request(&challenge, &mut rng()).unwrap();
    let wire = encode(&request);
    assert_eq!(TokenRequest::decode(&wire).unwrap(), request);
    assert_eq!(TokenRequest::decode(&wire[..wire.len() - 1]), Err(Error::Truncated));
    assert_eq!(TokenRequest::decode(&wire[..2]), Err(Error::Truncated));
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(TokenRequest::decode(&long), Err(Error::TrailingBytes));
    let mut wrong = wire.clone();
    wrong[1] = 0xac;
    assert_eq!(TokenRequest::decode(&wrong), Err(Error::WrongTokenType { expected: 0xE5AD, found: 0xE5AC }));
    let mut bad = wire.clone();
    bad[3] ^= 0xff; // the CBOR map head
    assert!(TokenRequest::decode(&bad).is_err());

    // TokenResponse (no type code).
    let response = issuer.issue(&request, 100, &challenge, &mut rng()).unwrap();
    let wire = encode(&response);
    assert_eq!(TokenResponse::decode(&wire).unwrap(), response);
    assert_eq!(TokenResponse::decode(&wire[..wire.len() - 1]), Err(Error::Truncated));
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(TokenResponse::decode(&long), Err(Error::TrailingBytes));
    let mut bad = wire.clone();
    bad[0] ^= 0xff;
    assert!(TokenResponse::decode(&bad).is_err());

    // Token.
    let (token, state) = spend(&client, &credit, &challenge, 10);
    let wire = encode(&token);
    assert_eq!(Token::<L>::decode(&wire[..wire.len() - 1]), Err(Error::Truncated));
    assert_eq!(Token::<L>::decode(&wire[..40]), Err(Error::Truncated));
    let mut long = wire.clone();
    long.push(0);
    assert_eq!(Token::<L>::decode(&long), Err(Error::TrailingBytes));
    let mut wrong = wire.clone();
    wrong[1] = 0xac;
    assert_eq!(Token::<L>::decode(&wrong), Err(Error::WrongTokenType { expected: 0xE5AD, found: 0xE5AC }));
    // A token for another bit length is another length.
    assert!(Token::<16>::decode(&wire).is_err());
    let mut out = [0u8; 10];
    assert_eq!(pat::wire::codec::Encode::encode(&token, &mut out), Err(Error::BufferTooSmall));

    // Refund (no type code).
    let mut store = MemoryReplayStore::<16>::new([1; 32]);
    let refund = issuer.redeem(&token, &challenge, 10, 3, &mut store, EXPIRES, NOW, &mut rng()).unwrap();
    let wire = refund.to_cbor();
    assert_eq!(Refund::from_cbor(&wire).unwrap(), refund);
    assert!(Refund::from_cbor(&wire[..wire.len() - 1]).is_err());
    let mut long = wire.to_vec();
    long.push(0);
    assert!(Refund::from_cbor(&long).is_err());
    assert_eq!(client.refund(&state, &token, &refund).unwrap().credits::<L>().unwrap(), 93);
}

#[test]
fn client_states_export_and_import() {
    let (issuer, client) = setup();
    let challenge = challenge();

    // The request state, between request and response.
    let (state, request) = client.request(&challenge, &mut rng()).unwrap();
    let bytes = state.to_bytes();
    assert_eq!(bytes.len(), RequestState::LEN);
    drop(state);
    let state = RequestState::from_bytes(&*bytes).unwrap();
    assert_eq!(state.context(), challenge.request_context(issuer.key_id()));
    assert_eq!(RequestState::from_bytes(&bytes[1..]).unwrap_err(), Error::InvalidLength(Field::State));
    let mut long = bytes.to_vec();
    long.push(0);
    assert_eq!(RequestState::from_bytes(&long).unwrap_err(), Error::InvalidLength(Field::State));
    let response = issuer.issue(&request, 50, &challenge, &mut rng()).unwrap();
    let credit = client.finalize(&state, &response).unwrap();

    // The credit token, between spends.
    let credit = CreditToken::from_cbor(&*credit.to_cbor()).unwrap();
    let (token, pre_refund) = spend(&client, &credit, &challenge, 20);

    // The pre-refund state and the token, between spend and refund.
    let pre_refund = PreRefund::from_cbor(&*pre_refund.to_cbor()).unwrap();
    let token = Token::<L>::decode(&encode(&token)).unwrap();
    let mut store = MemoryReplayStore::<16>::new([1; 32]);
    let refund = issuer.redeem(&token, &challenge, 20, 4, &mut store, EXPIRES, NOW, &mut rng()).unwrap();
    assert_eq!(client.refund(&pre_refund, &token, &refund).unwrap().credits::<L>().unwrap(), 34);

    // A refund for another spend does not verify.
    let (other, other_state) = spend(&client, &credit, &challenge, 20);
    assert_eq!(client.refund(&other_state, &other, &refund).unwrap_err(), Error::Verification);
}
