//! Types 0x0001 and 0x0005 through every role, and every way a request,
//! response or token can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::tokens::private::{Issuer, PrivateTokenType, TokenRequest, TokenResponse};
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field, TokenChallenge};

mod common;
use common::{encode, rng};

fn roles<T: PrivateTokenType>() {
    let issuer = Issuer::<T>::generate(&mut rng()).unwrap();
    let ctx = [5u8; 32];
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &ctx, b"origin.example").unwrap();
    let client = pat::tokens::private::Client::<T>::from_token_key(issuer.token_key().as_ref()).unwrap();
    assert_eq!(client.key_id(), issuer.key_id());

    let (req, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let req_bytes = encode(&req);
    assert!(T::REQUEST_LEN.admits(req_bytes.len()));
    let parsed = TokenRequest::<T>::decode(&req_bytes).unwrap();
    let resp = issuer.evaluate(&parsed, &mut rng()).unwrap();
    let resp_bytes = encode(&resp);
    assert!(T::RESPONSE_LEN.admits(resp_bytes.len()));
    let token = client.finalize(&mut state, &TokenResponse::decode(&resp_bytes).unwrap()).unwrap();
    assert_eq!(encode(&token).len(), T::TOKEN_LEN);
    issuer.verify(&token, &challenge).unwrap();

    // A token for another challenge, a tampered authenticator, another issuer.
    let other = TokenChallenge::new(T::CODE, b"issuer.example", &[], b"origin.example").unwrap();
    assert_eq!(issuer.verify(&token, &other), Err(Error::ChallengeMismatch));
    let mut bytes = encode(&token);
    *bytes.last_mut().unwrap() ^= 1;
    let forged = <T::Token as Decode>::decode(&bytes).unwrap();
    assert_eq!(issuer.verify(&forged, &challenge), Err(Error::Verification));
    let stranger = Issuer::<T>::generate(&mut rng()).unwrap();
    assert_eq!(stranger.verify(&token, &challenge), Err(Error::KeyIdMismatch));

    // A response from another key fails the proof; a tampered proof too.
    let (req, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let mut req_other = req;
    req_other.truncated_token_key_id = *stranger.key_id().last().unwrap();
    let wrong = stranger.evaluate(&req_other, &mut rng()).unwrap();
    assert_eq!(client.finalize(&mut state, &wrong).err(), Some(Error::Verification));
    let (req, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let mut resp = issuer.evaluate(&req, &mut rng()).unwrap();
    resp.evaluate_proof.as_mut()[5] ^= 1;
    assert!(client.finalize(&mut state, &resp).is_err());

    // The issuer checks the truncated key id and the element.
    let mut bad = req;
    bad.truncated_token_key_id ^= 0xff;
    assert_eq!(issuer.evaluate(&bad, &mut rng()).err(), Some(Error::KeyIdMismatch));
    let mut bad = req;
    bad.blinded_msg.as_mut().fill(0);
    assert_eq!(issuer.evaluate(&bad, &mut rng()).err(), Some(Error::InvalidElement));

    // The client refuses a challenge of another type.
    let wrong_type = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    assert_eq!(
        client.request(&wrong_type, &mut rng()).err(),
        Some(Error::WrongTokenType { expected: T::CODE, found: 2 })
    );
}

fn parsing<T: PrivateTokenType>() {
    let issuer = Issuer::<T>::generate(&mut rng()).unwrap();
    let challenge = TokenChallenge::new(T::CODE, b"i", &[], &[]).unwrap();
    let (req, _) = issuer.client().request(&challenge, &mut rng()).unwrap();
    let bytes = encode(&req);
    for n in 0..bytes.len() {
        assert_eq!(TokenRequest::<T>::decode(&bytes[..n]).err(), Some(Error::Truncated), "prefix {n}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(TokenRequest::<T>::decode(&long).err(), Some(Error::TrailingBytes));
    let mut other = bytes.clone();
    other[1] = 9;
    assert_eq!(TokenRequest::<T>::decode(&other).err(), Some(Error::WrongTokenType { expected: T::CODE, found: 9 }));

    let resp = issuer.evaluate(&req, &mut rng()).unwrap();
    let bytes = encode(&resp);
    for n in 0..bytes.len() {
        assert_eq!(TokenResponse::<T>::decode(&bytes[..n]).err(), Some(Error::Truncated), "prefix {n}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(TokenResponse::<T>::decode(&long).err(), Some(Error::TrailingBytes));

    assert_eq!(
        pat::tokens::private::Client::<T>::from_token_key(&[2u8; 3]).err(),
        Some(Error::InvalidLength(Field::Key))
    );
}

#[test]
fn type1_roles() {
    roles::<PrivateP384>();
}

#[test]
fn type5_roles() {
    roles::<PrivateRistretto255>();
}

#[test]
fn type1_parsing() {
    parsing::<PrivateP384>();
}

#[test]
fn type5_parsing() {
    parsing::<PrivateRistretto255>();
}

#[test]
fn secrets_are_not_printed() {
    let issuer = Issuer::<PrivateP384>::generate(&mut rng()).unwrap();
    let sk = issuer.key_pair().secret_key().to_bytes();
    let hex: String = sk.iter().map(|b| format!("{b:02x}")).collect();
    let challenge = TokenChallenge::new(1, b"i", &[], &[]).unwrap();
    let (_, state) = issuer.client().request(&challenge, &mut rng()).unwrap();
    for text in [format!("{issuer:?}"), format!("{state:?}"), format!("{:?}", issuer.key_pair())] {
        assert!(!text.contains(&hex), "{text}");
    }
}
