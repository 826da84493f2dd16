//! Type 0x0002 through every role, and every way a request, response or token
//! can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use std::sync::OnceLock;

use pat::crypto::blind_rsa::SecretKey;
use pat::tokens::public::{Client, Issuer, Origin, TokenRequest, TokenResponse};
use pat::wire::codec::Decode;
use pat::{Error, TokenChallenge};

mod common;
use common::{encode, rng};

fn issuer() -> &'static Issuer {
    static ISSUER: OnceLock<Issuer> = OnceLock::new();
    ISSUER.get_or_init(|| Issuer::new(SecretKey::generate(&mut rng()).unwrap()))
}

#[test]
fn roles() {
    let issuer = issuer();
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    assert_eq!(client.key_id(), issuer.key_id());
    let challenge = TokenChallenge::new(2, b"issuer.example", &[1; 32], b"a.example,b.example").unwrap();
    let (req, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let req_bytes = encode(&req);
    assert_eq!(req_bytes.len(), 259);
    let resp = issuer.evaluate(&TokenRequest::decode(&req_bytes).unwrap()).unwrap();
    let resp_bytes = encode(&resp);
    assert_eq!(resp_bytes.len(), 256);
    let token = client.finalize(&mut state, &TokenResponse::decode(&resp_bytes).unwrap()).unwrap();
    assert_eq!(encode(&token).len(), 354);
    let origin = Origin::new(issuer.public_key().clone());
    origin.verify(&token, &challenge).unwrap();

    let other = TokenChallenge::new(2, b"issuer.example", &[], b"a.example").unwrap();
    assert_eq!(origin.verify(&token, &other), Err(Error::ChallengeMismatch));
    let mut bytes = encode(&token);
    bytes[200] ^= 1;
    let forged = pat::tokens::public::PublicToken::decode(&bytes).unwrap();
    assert_eq!(origin.verify(&forged, &challenge), Err(Error::Verification));

    // A tampered blind signature is caught by the client before it returns a token.
    let (req, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let mut resp = issuer.evaluate(&req).unwrap();
    resp.blind_sig[17] ^= 0x40;
    assert_eq!(client.finalize(&mut state, &resp).err(), Some(Error::Verification));

    // Key id and range checks on the issuer side.
    let mut bad = req.clone();
    bad.truncated_token_key_id ^= 1;
    assert_eq!(issuer.evaluate(&bad).err(), Some(Error::KeyIdMismatch));
    let mut bad = req;
    bad.blinded_msg = [0xff; 256];
    assert!(matches!(issuer.evaluate(&bad), Err(Error::InvalidValue(_))));

    let wrong_type = TokenChallenge::new(1, b"issuer.example", &[], &[]).unwrap();
    assert_eq!(client.request(&wrong_type, &mut rng()).err(), Some(Error::WrongTokenType { expected: 2, found: 1 }));
}

#[test]
fn parsing() {
    let issuer = issuer();
    let challenge = TokenChallenge::new(2, b"i", &[], &[]).unwrap();
    let client = Client::new(issuer.public_key().clone());
    let (req, _) = client.request(&challenge, &mut rng()).unwrap();
    let bytes = encode(&req);
    for n in 0..bytes.len() {
        assert_eq!(TokenRequest::decode(&bytes[..n]).err(), Some(Error::Truncated), "prefix {n}");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert_eq!(TokenRequest::decode(&long).err(), Some(Error::TrailingBytes));
    let mut other = bytes;
    other[1] = 3;
    assert_eq!(TokenRequest::decode(&other).err(), Some(Error::WrongTokenType { expected: 2, found: 3 }));
    assert_eq!(TokenResponse::decode(&[0u8; 255]).err(), Some(Error::Truncated));
    assert_eq!(TokenResponse::decode(&[0u8; 257]).err(), Some(Error::TrailingBytes));
    assert!(Client::from_token_key(&issuer.token_key()[..341]).is_err());
}
