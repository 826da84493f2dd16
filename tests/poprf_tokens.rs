//! Type 0xDA7B (POPRF(P-384, SHA-384) with public metadata): every role with
//! real randomness, the binding of the token to its extensions, state export
//! and import, and every way a request, response or token can be wrong.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use pat::crypto::voprf::{self, P384Sha384, poprf};
use pat::tokens::poprf::{Client, DERIVE_INFO, Issuer, Origin, RequestState, Token, TokenRequest, TokenResponse};
use pat::wire::codec::Decode;
use pat::wire::extensions::{Extensions, ExtensionsWriter};
use pat::wire::token_type::{PublicMetadataP384, TokenKind, TokenType};
use pat::{Error, Field, TokenChallenge};

mod common;
use common::{encode, rng};

fn issuer() -> Issuer {
    Issuer::derive(&[0x5a; 48]).unwrap()
}

fn challenge() -> TokenChallenge<'static> {
    TokenChallenge::new(0xDA7B, b"issuer.example", &[7; 32], b"origin.example").unwrap()
}

/// Two extensions: type 1 and type 2 (the expiration and geolocation codes).
fn two_extensions(buf: &mut [u8]) -> Extensions<'_> {
    let mut w = ExtensionsWriter::new(buf);
    w.push(1, &[0, 0, 0, 0, 0, 0, 0, 60, 0, 0, 0, 0, 0x66, 0, 0, 0]).unwrap();
    w.push(2, b"\x02US").unwrap();
    w.finish().unwrap()
}

#[test]
fn registry_entry() {
    let kind = TokenKind::from_code(0xDA7B).unwrap();
    assert_eq!(kind, TokenKind::PublicMetadataP384);
    assert_eq!(PublicMetadataP384::CODE, 0xDA7B);
    // The draft's IANA entry: Nk 48, Nid 32.
    assert_eq!(kind.nk(), 48);
    assert_eq!(kind.nid(), 32);
    assert_eq!(kind.token_len(), 2 + 32 + 32 + 32 + 48);
    assert_eq!(kind.response_len().max(), 49 + 48 + 48);
    assert_eq!(kind.request_len().min(), 2 + 1 + 49 + 2);
    assert_eq!(kind.request_len().max(), 2 + 1 + 49 + 2 + 65535);
}

#[test]
fn key_derivation_is_the_poprf_mode_with_the_draft_info() {
    let issuer = issuer();
    assert_eq!(DERIVE_INFO, b"PrivacyPass-TypeDA7B");
    let kp = poprf::derive_key_pair::<P384Sha384>(&[0x5a; 48], b"PrivacyPass-TypeDA7B").unwrap();
    assert_eq!(issuer.token_key(), kp.public_key().as_bytes());
    // Not the VOPRF mode's key for the same seed and info.
    let voprf_kp = voprf::derive_key_pair::<P384Sha384>(&[0x5a; 48], b"PrivacyPass-TypeDA7B").unwrap();
    assert_ne!(issuer.token_key(), voprf_kp.public_key().as_bytes());
    // token_key_id = SHA-256(SerializeElement(pkI)).
    use sha2::Digest as _;
    let id: [u8; 32] = sha2::Sha256::digest(issuer.token_key()).into();
    assert_eq!(issuer.key_id(), &id);
    assert_eq!(issuer.client().key_id(), &id);
}

#[test]
fn roles_with_real_randomness() {
    let issuer = Issuer::generate(&mut rng()).unwrap();
    let client = Client::from_token_key(issuer.token_key()).unwrap();
    assert_eq!(client.key_id(), issuer.key_id());
    let challenge = challenge();
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, mut state) = client.request(&challenge, extensions, &mut rng()).unwrap();
    let req_bytes = encode(&req);
    assert_eq!(req_bytes.len(), 52 + extensions.as_bytes().len());
    assert!(PublicMetadataP384::REQUEST_LEN.admits(req_bytes.len()));
    assert_eq!(&req_bytes[..2], &[0xDA, 0x7B]);
    let parsed = TokenRequest::decode(&req_bytes).unwrap();
    assert_eq!(parsed, req);
    let resp = issuer.evaluate(&parsed, &mut rng()).unwrap();
    let resp_bytes = encode(&resp);
    assert_eq!(resp_bytes.len(), 145);
    let token = client.finalize(&mut state, &extensions, &TokenResponse::decode(&resp_bytes).unwrap()).unwrap();
    assert!(state.is_spent());
    let token_bytes = encode(&token);
    assert_eq!(token_bytes.len(), PublicMetadataP384::TOKEN_LEN);
    assert_eq!(token.input().kind(), TokenKind::PublicMetadataP384);
    let origin: &Origin = &issuer;
    origin.verify(&token, &challenge, &extensions).unwrap();
    // The authenticator is the POPRF output under the extensions.
    let direct =
        poprf::evaluate(issuer.key_pair().secret_key(), token.input().as_bytes(), extensions.as_bytes()).unwrap();
    assert_eq!(token.authenticator(), &direct);

    // Other extensions, another challenge, a flipped bit, another key: refused.
    assert_eq!(origin.verify(&token, &challenge, &Extensions::EMPTY), Err(Error::Verification));
    let other = TokenChallenge::new(0xDA7B, b"issuer.example", &[], b"origin.example").unwrap();
    assert_eq!(origin.verify(&token, &other, &extensions), Err(Error::ChallengeMismatch));
    // A flipped bit (nonce 2..34, challenge digest 34..66, key id 66..98,
    // authenticator 98..146): the cheap checks refuse the middle fields, the
    // output comparison the others.
    for (i, expected) in [
        (2, Error::Verification),
        (40, Error::ChallengeMismatch),
        (70, Error::KeyIdMismatch),
        (100, Error::Verification),
        (145, Error::Verification),
    ] {
        let mut forged = token_bytes.clone();
        forged[i] ^= 1;
        let forged = Token::decode(&forged).unwrap();
        assert_eq!(origin.verify(&forged, &challenge, &extensions), Err(expected), "byte {i}");
    }
    assert_eq!(
        Issuer::generate(&mut rng()).unwrap().verify(&token, &challenge, &extensions),
        Err(Error::KeyIdMismatch)
    );
    // A type 0x0001 challenge: the client refuses it, the origin too.
    let t1 = TokenChallenge::new(1, b"issuer.example", &[7; 32], b"origin.example").unwrap();
    assert_eq!(origin.verify(&token, &t1, &extensions), Err(Error::ChallengeMismatch));
    assert!(matches!(
        client.request(&t1, extensions, &mut rng()),
        Err(Error::WrongTokenType { expected: 0xDA7B, found: 1 })
    ));
    // A type 0x0001 token from the same key bytes is not a 0xDA7B token.
    let t1_issuer = pat::tokens::private::Issuer::<pat::wire::token_type::PrivateP384>::derive(&[1; 32], b"x").unwrap();
    let t1_client = t1_issuer.client();
    let (t1_req, mut t1_state) = t1_client.request(&t1, &mut rng()).unwrap();
    let t1_token = t1_client.finalize(&mut t1_state, &t1_issuer.evaluate(&t1_req, &mut rng()).unwrap()).unwrap();
    let as_da7b = Token::decode(&encode(&t1_token)).unwrap();
    assert_eq!(
        origin.verify(&as_da7b, &challenge, &extensions),
        Err(Error::WrongTokenType { expected: 0xDA7B, found: 1 })
    );
}

#[test]
fn empty_extensions_are_metadata_too() {
    let issuer = issuer();
    let client = issuer.client();
    let (req, mut state) = client.request(&challenge(), Extensions::EMPTY, &mut rng()).unwrap();
    assert_eq!(encode(&req).len(), PublicMetadataP384::REQUEST_LEN.min());
    let token = client.finalize(&mut state, &Extensions::EMPTY, &issuer.evaluate(&req, &mut rng()).unwrap()).unwrap();
    issuer.verify(&token, &challenge(), &Extensions::EMPTY).unwrap();
    let mut buf = [0u8; 64];
    assert_eq!(issuer.verify(&token, &challenge(), &two_extensions(&mut buf)), Err(Error::Verification));
}

#[test]
fn finalize_checks_extensions_state_and_response() {
    let issuer = issuer();
    let client = issuer.client();
    let challenge = challenge();
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, mut state) = client.request(&challenge, extensions, &mut rng()).unwrap();
    let resp = issuer.evaluate(&req, &mut rng()).unwrap();
    // Other extensions at finalize: refused before any arithmetic, state kept.
    assert_eq!(client.finalize(&mut state, &Extensions::EMPTY, &resp).err(), Some(Error::ExtensionsMismatch));
    // A response evaluated under other extensions: its proof is for another
    // tweaked key.
    let mut wrong_req = req.clone();
    wrong_req.extensions = Extensions::EMPTY;
    let wrong = issuer.evaluate(&wrong_req, &mut rng()).unwrap();
    assert_eq!(client.finalize(&mut state, &extensions, &wrong).err(), Some(Error::Verification));
    // A response from another key.
    let other = Issuer::generate(&mut rng()).unwrap();
    let mut other_req = req.clone();
    other_req.truncated_token_key_id = other.key_id()[31];
    let foreign = other.evaluate(&other_req, &mut rng()).unwrap();
    assert_eq!(client.finalize(&mut state, &extensions, &foreign).err(), Some(Error::Verification));
    // Tampered proof or element.
    let mut tampered = resp;
    tampered.evaluate_proof[90] ^= 4;
    assert_eq!(client.finalize(&mut state, &extensions, &tampered).err(), Some(Error::Verification));
    // The response to another request of the same client and extensions: its
    // proof is for another blinded element.
    let (req_b, _) = client.request(&challenge, extensions, &mut rng()).unwrap();
    let resp_b = issuer.evaluate(&req_b, &mut rng()).unwrap();
    assert_eq!(client.finalize(&mut state, &extensions, &resp_b).err(), Some(Error::Verification));
    // A state made by another issuer's client: refused before any arithmetic.
    assert_eq!(other.client().finalize(&mut state, &extensions, &resp).err(), Some(Error::KeyIdMismatch));
    let mut tampered = resp;
    tampered.evaluate_msg[0] = 0x04;
    assert_eq!(client.finalize(&mut state, &extensions, &tampered).err(), Some(Error::InvalidElement));
    assert!(!state.is_spent());

    // The state survives export and import, then finalizes once.
    let exported = state.export().unwrap();
    assert_eq!(exported.as_bytes().len(), RequestState::STATE_LEN);
    assert_eq!(RequestState::STATE_LEN, 2 + 98 + 48 + 49 + 32);
    let mut imported = RequestState::import(&client, exported.as_bytes()).unwrap();
    assert_eq!(imported.input(), state.input());
    let token = client.finalize(&mut imported, &extensions, &resp).unwrap();
    issuer.verify(&token, &challenge, &extensions).unwrap();
    assert_eq!(client.finalize(&mut imported, &extensions, &resp).err(), Some(Error::StateSpent));
    assert_eq!(imported.export().err(), Some(Error::StateSpent));
    // The original state finalizes to the same token (same blind, same input).
    assert_eq!(client.finalize(&mut state, &extensions, &resp).unwrap(), token);
    // An imported state with another extensions digest refuses these extensions.
    let mut bad = exported.as_bytes().to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    let mut wrong_digest = RequestState::import(&client, &bad).unwrap();
    assert_eq!(client.finalize(&mut wrong_digest, &extensions, &resp).err(), Some(Error::ExtensionsMismatch));
    // Another type, cut short, a zero blind, an identity element, another key.
    let mut bad = exported.as_bytes().to_vec();
    bad[2] = 0x00;
    bad[3] = 0x01;
    assert!(matches!(RequestState::import(&client, &bad), Err(Error::WrongTokenType { .. })));
    let n = RequestState::STATE_LEN;
    assert_eq!(
        RequestState::import(&client, &exported.as_bytes()[..n - 1]).err(),
        Some(Error::InvalidLength(Field::State))
    );
    let mut zero_blind = exported.as_bytes().to_vec();
    zero_blind[100..148].fill(0);
    assert_eq!(RequestState::import(&client, &zero_blind).err(), Some(Error::InvalidScalar));
    let mut bad_elem = exported.as_bytes().to_vec();
    bad_elem[148..197].fill(0);
    assert_eq!(RequestState::import(&client, &bad_elem).err(), Some(Error::InvalidElement));
    assert_eq!(RequestState::import(&other.client(), exported.as_bytes()).err(), Some(Error::KeyIdMismatch));
    // The issuer checks the truncated key id and the element.
    let mut bad = req.clone();
    bad.truncated_token_key_id ^= 1;
    assert_eq!(issuer.evaluate(&bad, &mut rng()).err(), Some(Error::KeyIdMismatch));
    let mut bad = req;
    bad.blinded_msg[0] = 0x05;
    assert_eq!(issuer.evaluate(&bad, &mut rng()).err(), Some(Error::InvalidElement));
}

#[test]
fn request_response_and_token_parsing() {
    let issuer = issuer();
    let client = issuer.client();
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let (req, mut state) = client.request(&challenge(), extensions, &mut rng()).unwrap();
    let bytes = encode(&req);
    // Every truncation fails: inside the fixed part or the extensions.
    for cut in 0..bytes.len() {
        assert!(TokenRequest::decode(&bytes[..cut]).is_err(), "cut at {cut}");
    }
    assert_eq!(TokenRequest::decode(&bytes[..10]).err(), Some(Error::Truncated));
    let mut trailing = bytes.clone();
    trailing.push(0);
    assert_eq!(TokenRequest::decode(&trailing).err(), Some(Error::TrailingBytes));
    let mut wrong_type = bytes.clone();
    wrong_type[..2].copy_from_slice(&[0xDA, 0x7A]);
    assert_eq!(
        TokenRequest::decode(&wrong_type).err(),
        Some(Error::WrongTokenType { expected: 0xDA7B, found: 0xDA7A })
    );
    // A type 0x0001 request (no extensions) is not a 0xDA7B request.
    let mut t1 = bytes[..52].to_vec();
    t1[..2].copy_from_slice(&[0, 1]);
    assert_eq!(TokenRequest::decode(&t1).err(), Some(Error::WrongTokenType { expected: 0xDA7B, found: 1 }));
    // Extensions out of order, or a length prefix past the end.
    let mut unsorted = bytes[..52].to_vec();
    unsorted.extend_from_slice(&[0, 8, 0, 2, 0, 0, 0, 1, 0, 0]);
    assert_eq!(TokenRequest::decode(&unsorted).err(), Some(Error::UnsortedExtensions));
    let mut long = bytes[..52].to_vec();
    long.extend_from_slice(&[0, 9, 0, 1, 0, 0]);
    assert_eq!(TokenRequest::decode(&long).err(), Some(Error::Truncated));
    // The largest Extensions list the format allows (one extension of 65531
    // bytes, 65537 encoded) decodes in a request, but it is over the POPRF
    // info limit of 65535 bytes: the client refuses to make it, and the
    // issuer to evaluate it.
    let mut big = vec![0u8; 65537];
    let mut w = ExtensionsWriter::new(&mut big);
    w.push(9, &vec![0xab; 65531]).unwrap();
    let big_ext = w.finish().unwrap();
    assert_eq!(client.request(&challenge(), big_ext, &mut rng()).err(), Some(Error::InvalidLength(Field::Info)));
    let big_req = TokenRequest {
        truncated_token_key_id: req.truncated_token_key_id,
        blinded_msg: req.blinded_msg,
        extensions: big_ext,
    };
    let big_bytes = encode(&big_req);
    assert_eq!(big_bytes.len(), PublicMetadataP384::REQUEST_LEN.max());
    assert_eq!(TokenRequest::decode(&big_bytes).unwrap(), big_req);
    assert_eq!(issuer.evaluate(&big_req, &mut rng()).err(), Some(Error::InvalidLength(Field::Info)));
    // The largest usable list: 65535 bytes encoded, 65529 bytes of data.
    let mut w = ExtensionsWriter::new(&mut big);
    w.push(9, &vec![0xab; 65529]).unwrap();
    let usable = w.finish().unwrap();
    assert_eq!(usable.as_bytes().len(), 65535);
    let (usable_req, mut usable_state) = client.request(&challenge(), usable, &mut rng()).unwrap();
    let usable_resp = issuer.evaluate(&usable_req, &mut rng()).unwrap();
    let usable_token = client.finalize(&mut usable_state, &usable, &usable_resp).unwrap();
    issuer.verify(&usable_token, &challenge(), &usable).unwrap();
    // Responses are exactly 145 bytes; a non-canonical proof scalar is refused.
    assert_eq!(TokenResponse::decode(&[0; 144]).err(), Some(Error::Truncated));
    assert_eq!(TokenResponse::decode(&[0; 146]).err(), Some(Error::TrailingBytes));
    let resp = issuer.evaluate(&req, &mut rng()).unwrap();
    let mut bad = resp;
    bad.evaluate_proof[..48].fill(0xff);
    assert_eq!(client.finalize(&mut state, &extensions, &bad).err(), Some(Error::InvalidScalar));
    // Tokens are exactly 146 bytes.
    let token = client.finalize(&mut state, &extensions, &resp).unwrap();
    let tb = encode(&token);
    assert_eq!(Token::decode(&tb[..145]).err(), Some(Error::Truncated));
    let mut long = tb.clone();
    long.push(0);
    assert_eq!(Token::decode(&long).err(), Some(Error::TrailingBytes));
    assert_eq!(Token::decode(&tb).unwrap(), token);
    // A token key of the wrong length (the uncompressed 97-byte form
    // included) or off the curve.
    for len in [0, 48, 50, 97] {
        assert_eq!(Client::from_token_key(&vec![2u8; len]).err(), Some(Error::InvalidLength(Field::Key)), "{len}");
    }
    assert_eq!(Client::from_token_key(&issuer.token_key()[..48]).err(), Some(Error::InvalidLength(Field::Key)));
    assert_eq!(Client::from_token_key(&[0u8; 49]).err(), Some(Error::InvalidElement));
}

#[test]
fn deterministic_entry_points_reproduce() {
    use pat::hazmat::tokens::poprf::{evaluate_with_nonce, request_with};
    let issuer = issuer();
    let client = issuer.client();
    let mut buf = [0u8; 64];
    let extensions = two_extensions(&mut buf);
    let blind = [0x11u8; 48];
    let nonce = [0x22u8; 48];
    let (a, mut sa) = request_with(&client, &challenge(), extensions, &[3; 32], &blind).unwrap();
    let (b, _) = request_with(&client, &challenge(), extensions, &[3; 32], &blind).unwrap();
    assert_eq!(a, b);
    let ra = evaluate_with_nonce(&issuer, &a, &nonce).unwrap();
    assert_eq!(ra, evaluate_with_nonce(&issuer, &b, &nonce).unwrap());
    let token = client.finalize(&mut sa, &extensions, &ra).unwrap();
    issuer.verify(&token, &challenge(), &extensions).unwrap();
    assert_eq!(evaluate_with_nonce(&issuer, &a, &[0u8; 48]).err(), Some(Error::InvalidScalar));
    assert_eq!(request_with(&client, &challenge(), extensions, &[3; 32], &[0u8; 48]).err(), Some(Error::InvalidScalar));
}
