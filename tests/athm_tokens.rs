//! Token type 0xC07E (draft-yun-privacypass-athm-00): issuance and
//! redemption through the wire messages, the reference's vectors framed as
//! Privacy Pass messages, replay refused by t (also for a rescaled token),
//! a replay store that fails closed, and every way a message, state or key
//! can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::athm::{Params, PrivateKey, PublicKeyProof, TokenResponse};
use pat::deploy::replay::{MemoryReplayStore, ReplayStore, Spend};
use pat::tokens::athm::{Client, Issuer, REQUEST_LEN, RequestState, TOKEN_KEY_LEN, TOKEN_LEN, Token, TokenRequest};
use pat::wire::codec::Decode;
use pat::{Error, Field};

mod common;
use common::{encode, hex, load, rng};

const NOW: u64 = 1_700_000_000;
const EXPIRES: u64 = NOW + 3_600;

fn setup(params: Params<'_, 4>) -> (Issuer<'_, 4>, Client<'_, 4>) {
    let issuer = Issuer::new(params, PrivateKey::generate(&params, &mut rng()).unwrap().0).unwrap();
    let client = Client::from_token_key(params, &issuer.token_key()).unwrap();
    (issuer, client)
}

fn token(issuer: &Issuer<'_, 4>, client: &Client<'_, 4>, m: u8) -> Token {
    let (state, request) = client.request(&mut rng()).unwrap();
    let wire = encode(&request);
    assert_eq!(wire.len(), REQUEST_LEN);
    assert_eq!(wire[..3], [0xc0, 0x7e, issuer.key_id()[31]]);
    let response = issuer.issue(&TokenRequest::decode(&wire).unwrap(), m, &mut rng()).unwrap();
    let mut bytes = [0u8; TokenResponse::<4>::LEN];
    response.encode(&mut bytes).unwrap();
    let token = client.finalize(&state, &TokenResponse::from_bytes(&bytes).unwrap(), &mut rng()).unwrap();
    let wire = encode(&token);
    assert_eq!(wire.len(), TOKEN_LEN);
    Token::decode(&wire).unwrap()
}

#[test]
fn issued_redeemed_once_with_the_hidden_value() {
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, client) = setup(params);
    let mut store = MemoryReplayStore::<16>::new([7; 32]);
    for m in 0..4 {
        let t = token(&issuer, &client, m);
        assert_eq!(issuer.verify(&t), Ok(m));
        assert_eq!(issuer.redeem(&t, &mut store, EXPIRES, NOW), Ok(m));
        assert_eq!(issuer.redeem(&t, &mut store, EXPIRES, NOW), Err(Error::Replayed));
    }
    assert_eq!(
        issuer.issue(&client.request(&mut rng()).unwrap().1, 4, &mut rng()).err(),
        Some(Error::InvalidValue(Field::HiddenMetadata))
    );
}

/// The replay entry is t: a token rescaled to other P, Q bytes is the same
/// token to the store.
#[test]
fn a_rescaled_token_is_a_replay() {
    use p256::elliptic_curve::group::GroupEncoding;
    use p256::{AffinePoint, ProjectivePoint, Scalar};
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, client) = setup(params);
    let t = token(&issuer, &client, 1);
    let mut store = MemoryReplayStore::<16>::new([7; 32]);
    assert_eq!(issuer.redeem(&t, &mut store, EXPIRES, NOW), Ok(1));
    let mut bytes = encode(&t);
    for range in [2 + 32 + 32..2 + 32 + 65, 2 + 32 + 65..TOKEN_LEN] {
        let arr: [u8; 33] = bytes[range.clone()].try_into().unwrap();
        let p = ProjectivePoint::from(Option::<AffinePoint>::from(AffinePoint::from_bytes(&arr.into())).unwrap());
        bytes[range].copy_from_slice(&(p * Scalar::from(5u64)).to_affine().to_bytes());
    }
    let rescaled = Token::decode(&bytes).unwrap();
    assert_ne!(rescaled, t);
    assert_eq!(issuer.verify(&rescaled), Ok(1));
    assert_eq!(issuer.redeem(&rescaled, &mut store, EXPIRES, NOW), Err(Error::Replayed));
}

/// A store that cannot record, or a window already over, never lets a token
/// through, and a refused token is not recorded.
#[test]
fn the_replay_store_fails_closed() {
    struct Broken(Spend);
    impl ReplayStore for Broken {
        fn spend(&mut self, _: &[u8; 32], _: &[u8; 32], _: u64, _: u64) -> Spend {
            self.0
        }
    }
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, client) = setup(params);
    let t = token(&issuer, &client, 0);
    assert_eq!(issuer.redeem(&t, &mut Broken(Spend::Full), EXPIRES, NOW), Err(Error::ReplayStoreFull));
    assert_eq!(issuer.redeem(&t, &mut Broken(Spend::Expired), EXPIRES, NOW), Err(Error::ReplayWindowExpired));
    let mut store = MemoryReplayStore::<16>::new([7; 32]);
    assert_eq!(issuer.redeem(&t, &mut store, NOW, NOW), Err(Error::ReplayWindowExpired));
    // A forged token is refused before the store sees it.
    let mut forged = encode(&t);
    forged[2 + 32 + 31] ^= 1;
    let forged = Token::decode(&forged).unwrap();
    assert_eq!(issuer.redeem(&forged, &mut store, EXPIRES, NOW), Err(Error::Verification));
    assert_eq!(issuer.redeem(&t, &mut store, EXPIRES, NOW), Ok(0));
}

#[test]
fn another_key_is_refused() {
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, client) = setup(params);
    let (other, other_client) = setup(params);
    let (_, request) = client.request(&mut rng()).unwrap();
    if issuer.key_id()[31] != other.key_id()[31] {
        assert_eq!(other.issue(&request, 0, &mut rng()).err(), Some(Error::KeyIdMismatch));
    }
    let t = token(&issuer, &client, 0);
    assert_eq!(other.verify(&t), Err(Error::KeyIdMismatch));
    // A state made for another key.
    let (state, request) = other_client.request(&mut rng()).unwrap();
    let response = other.issue(&request, 0, &mut rng()).unwrap();
    assert_eq!(client.finalize(&state, &response, &mut rng()).err(), Some(Error::KeyIdMismatch));
    // A response from another key under the right state.
    let (state, _) = client.request(&mut rng()).unwrap();
    let mut wrong = request;
    wrong.truncated_key_id = other.key_id()[31];
    let response = other.issue(&wrong, 0, &mut rng()).unwrap();
    assert_eq!(client.finalize(&state, &response, &mut rng()).err(), Some(Error::Verification));
}

#[test]
fn token_keys_are_checked_once() {
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, _) = setup(params);
    let key = issuer.token_key();
    assert_eq!(key.len(), TOKEN_KEY_LEN);
    assert_eq!(Client::from_token_key(params, &key[..162]).err(), Some(Error::InvalidLength(Field::TokenKey)));
    assert_eq!(
        Client::from_token_key(params, &[&key[..], &[0]].concat()).err(),
        Some(Error::InvalidLength(Field::TokenKey))
    );
    let mut bad = key;
    bad[TOKEN_KEY_LEN - 1] ^= 1;
    assert_eq!(Client::from_token_key(params, &bad).err(), Some(Error::Verification));
    let other = Params::<4>::new(b"another").unwrap();
    assert_eq!(Client::from_token_key(other, &key).err(), Some(Error::Verification));
    // An issuer refuses a proof that is not its key's.
    let (sk, _, _) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let foreign = PublicKeyProof::from_bytes(&key[99..]).unwrap();
    assert_eq!(Issuer::with_proof(params, sk, foreign).err(), Some(Error::Verification));
}

#[test]
fn request_state_exports_and_imports() {
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, client) = setup(params);
    let (state, request) = client.request(&mut rng()).unwrap();
    let exported = state.export();
    assert_eq!(exported.len(), RequestState::LEN);
    let imported = RequestState::import(&exported[..]).unwrap();
    let response = issuer.issue(&request, 3, &mut rng()).unwrap();
    let t = client.finalize(&imported, &response, &mut rng()).unwrap();
    assert_eq!(issuer.verify(&t), Ok(3));
    // The format of pat::tokens::state: version 1, shape 4, the type, then
    // r ‖ tc (64 bytes), T (33) and the key id (32).
    assert_eq!(RequestState::LEN, 133);
    assert_eq!(exported[..4], [1, 4, 0xC0, 0x7E]);
    assert_eq!(exported[101..], issuer.key_id()[..]);
    let state_len = Some(Error::InvalidLength(Field::State));
    assert_eq!(RequestState::import(&exported[..RequestState::LEN - 1]).err(), state_len);
    assert_eq!(RequestState::import(&[&exported[..], &[0]].concat()).err(), state_len);
    assert_eq!(RequestState::import(&[0u8; RequestState::LEN]).err(), Some(Error::UnknownStateVersion(0)));
    let mut bad = *exported;
    bad[0] = 2;
    assert_eq!(RequestState::import(&bad).err(), Some(Error::UnknownStateVersion(2)));
    let mut bad = *exported;
    bad[1] = 1;
    assert_eq!(RequestState::import(&bad).err(), Some(Error::InvalidValue(Field::State)));
    let mut bad = *exported;
    bad[2..4].copy_from_slice(&[0xDA, 0x7B]);
    assert_eq!(RequestState::import(&bad).err(), Some(Error::WrongTokenType { expected: 0xC07E, found: 0xDA7B }));
    let mut bad = *exported;
    bad[68..101].fill(0);
    assert_eq!(RequestState::import(&bad).err(), Some(Error::InvalidElement));
    let mut bad = *exported;
    bad[4..36].fill(0xff);
    assert_eq!(RequestState::import(&bad).err(), Some(Error::InvalidScalar));
    assert!(!format!("{state:?}").contains(&common::hex_of(&exported[..8])));
}

#[test]
fn messages_refuse_wrong_types_lengths_and_points() {
    let params = Params::<4>::new(b"deployment").unwrap();
    let (issuer, client) = setup(params);
    let request = encode(&client.request(&mut rng()).unwrap().1);
    let t = encode(&token(&issuer, &client, 2));
    for (name, good) in [("request", &request), ("token", &t)] {
        let decode = |b: &[u8]| match name {
            "request" => TokenRequest::decode(b).map(drop),
            _ => Token::decode(b).map(drop),
        };
        assert_eq!(decode(good), Ok(()));
        assert_eq!(decode(&good[..good.len() - 1]), Err(Error::Truncated), "{name}");
        assert_eq!(decode(&good[..1]), Err(Error::Truncated), "{name}");
        assert_eq!(decode(&[&good[..], &[0]].concat()), Err(Error::TrailingBytes), "{name}");
        let mut other = good.clone();
        other[..2].copy_from_slice(&0xE5ACu16.to_be_bytes());
        assert_eq!(decode(&other), Err(Error::WrongTokenType { expected: 0xC07E, found: 0xE5AC }), "{name}");
        let mut identity = good.clone();
        let end = identity.len();
        identity[end - 33..].fill(0);
        assert_eq!(decode(&identity), Err(Error::InvalidElement), "{name}");
    }
}

/// The reference's vectors as Privacy Pass messages: `0xC07E ‖ last byte of
/// the key id ‖ T` and `0xC07E ‖ key id ‖ token`, which the issuer of the
/// vectors' key reads back as 3.
#[test]
fn the_reference_vectors_frame_as_privacy_pass_messages() {
    let file = load("athm/test_vectors.json");
    let proc = |name: &str| file.as_array().unwrap().iter().find(|p| p["procedure"] == name).unwrap().clone();
    let key_gen = proc("key_gen");
    let out = |p: &serde_json::Value, f: &str| hex(p["output"][f].as_str().unwrap());
    let id = proc("params")["output"]["deployment_id"].as_str().unwrap().to_owned();
    let params = Params::<4>::new(id.as_bytes()).unwrap();
    let sk = PrivateKey::from_bytes(&out(&key_gen, "private_key")).unwrap();
    let proof = PublicKeyProof::from_bytes(&out(&key_gen, "public_key_proof")).unwrap();
    let issuer = Issuer::with_proof(params, sk, proof).unwrap();
    let key_id = out(&key_gen, "key_id");
    assert_eq!(issuer.key_id()[..], key_id[..]);
    let request = [&[0xc0, 0x7e, key_id[31]][..], &out(&proc("token_request"), "token_request")].concat();
    assert_eq!(pat::wire::codec::Encode::encoded_len(&TokenRequest::decode(&request).unwrap()), 36);
    assert_eq!(common::hex_of(&request[..3]), "c07e1c");
    let token = [&[0xc0, 0x7e][..], &key_id, &out(&proc("finalize_token"), "token")].concat();
    let token = Token::decode(&token).unwrap();
    let mut store = MemoryReplayStore::<4>::new([1; 32]);
    assert_eq!(issuer.redeem(&token, &mut store, EXPIRES, NOW), Ok(3));
    assert_eq!(issuer.redeem(&token, &mut store, EXPIRES, NOW), Err(Error::Replayed));
    // The key a client loads is the key and its proof.
    let client = Client::from_token_key(params, &issuer.token_key()).unwrap();
    assert_eq!(client.key_id()[..], key_id[..]);
}
