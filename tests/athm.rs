//! ATHM(P-256), draft-yun-cfrg-athm-00: every hidden value of several
//! bucket counts comes back at redemption; every altered proof, token or key
//! fails; every message decoder refuses truncated, trailing, identity and
//! out-of-range input with its typed error. The published vectors run in
//! `vectors/tests/vectors.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation
)]

use p256::elliptic_curve::PrimeField;
use pat::crypto::athm::{
    Params, PrivateKey, PublicKey, PublicKeyProof, Token, TokenContext, TokenRequest, TokenResponse, finalize_token,
    response_len, token_request, token_response, verify_token,
};
use pat::{Error, Field};

mod common;
use common::rng;

const ID: &[u8] = b"pat athm tests";

/// Issues and redeems one token with hidden value `m`; returns the parts.
fn issue<const N: usize>(
    params: &Params<'_, N>,
    sk: &PrivateKey,
    pk: &PublicKey,
    proof: &PublicKeyProof,
    m: u8,
) -> (TokenRequest, TokenResponse<N>, Token) {
    let key = pk.verify(params, proof).unwrap();
    let (context, request) = token_request(&key, &mut rng()).unwrap();
    let response = token_response(params, sk, pk, &request, m, &mut rng()).unwrap();
    let token = finalize_token(params, &key, &context, &request, &response, &mut rng()).unwrap();
    (request, response, token)
}

fn round_trips<const N: usize>() {
    let params = Params::<N>::new(ID).unwrap();
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    for m in 0..N as u8 {
        let (_, response, token) = issue(&params, &sk, &pk, &proof, m);
        assert_eq!(verify_token(&params, &sk, &token), Ok(m), "N = {N}, m = {m}");
        // Through the encodings.
        let mut wire = vec![0u8; TokenResponse::<N>::LEN];
        assert_eq!(response.encode(&mut wire), Ok(response_len(N)));
        assert_eq!(TokenResponse::<N>::from_bytes(&wire).unwrap(), response);
        let token = Token::from_bytes(&token.to_bytes()).unwrap();
        assert_eq!(verify_token(&params, &sk, &token), Ok(m));
    }
    assert_eq!(
        token_response(&params, &sk, &pk, &issue(&params, &sk, &pk, &proof, 0).0, N as u8, &mut rng()).err(),
        Some(Error::InvalidValue(Field::HiddenMetadata))
    );
}

#[test]
fn every_hidden_value_comes_back() {
    round_trips::<1>();
    round_trips::<2>();
    round_trips::<4>();
    round_trips::<7>();
    round_trips::<16>();
}

#[test]
fn sizes() {
    assert_eq!(response_len(4), 483);
    assert_eq!(response_len(1), 291);
    assert_eq!(response_len(255), 16_547);
    assert_eq!((PublicKey::LEN, PublicKeyProof::LEN, PrivateKey::LEN), (99, 64, 160));
    assert_eq!((TokenRequest::LEN, Token::LEN, TokenContext::LEN), (33, 98, 64));
}

/// Flips one bit of byte `at`.
fn flip(bytes: &[u8], at: usize) -> Vec<u8> {
    let mut b = bytes.to_vec();
    b[at] ^= 1;
    b
}

#[test]
fn an_altered_response_fails_finalization() {
    let params = Params::<4>::new(ID).unwrap();
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let key = pk.verify(&params, &proof).unwrap();
    let (context, request) = token_request(&key, &mut rng()).unwrap();
    let response = token_response(&params, &sk, &pk, &request, 2, &mut rng()).unwrap();
    let mut wire = vec![0u8; TokenResponse::<4>::LEN];
    response.encode(&mut wire).unwrap();
    // Every field: U, V, ts, C, each e_i, each a_i, a_d, a_rho, a_w (the
    // last byte of each, which keeps scalars below the order almost always).
    let mut ends = vec![33, 66, 98, 131];
    ends.extend((1..=11).map(|k| 131 + 32 * k));
    let mut failed = 0;
    for end in ends {
        let altered = flip(&wire, end - 1);
        match TokenResponse::<4>::from_bytes(&altered) {
            Ok(r) => {
                assert_eq!(
                    finalize_token(&params, &key, &context, &request, &r, &mut rng()).err(),
                    Some(Error::Verification),
                    "byte {}",
                    end - 1
                );
                failed += 1;
            }
            Err(e) => assert_eq!(e, Error::InvalidElement, "byte {}", end - 1),
        }
    }
    assert!(failed >= 11);
    // Another request, another key, another deployment.
    let (_, other_request) = token_request(&key, &mut rng()).unwrap();
    assert_eq!(
        finalize_token(&params, &key, &context, &other_request, &response, &mut rng()).err(),
        Some(Error::Verification)
    );
    let (_, pk2, proof2) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let key2 = pk2.verify(&params, &proof2).unwrap();
    assert_eq!(
        finalize_token(&params, &key2, &context, &request, &response, &mut rng()).err(),
        Some(Error::Verification)
    );
    let other = Params::<4>::new(b"another deployment").unwrap();
    assert_eq!(pk.verify(&other, &proof).err(), Some(Error::Verification));
    // Still fine when nothing is altered.
    assert!(finalize_token(&params, &key, &context, &request, &response, &mut rng()).is_ok());
}

#[test]
fn an_altered_token_or_key_fails_redemption() {
    let params = Params::<4>::new(ID).unwrap();
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let (_, _, token) = issue(&params, &sk, &pk, &proof, 3);
    let bytes = token.to_bytes();
    for at in [31, 40, 97] {
        match Token::from_bytes(&flip(&bytes, at)) {
            Ok(t) => assert_eq!(verify_token(&params, &sk, &t), Err(Error::Verification), "byte {at}"),
            Err(e) => assert_eq!(e, Error::InvalidElement, "byte {at}"),
        }
    }
    let (sk2, _, _) = PrivateKey::generate(&params, &mut rng()).unwrap();
    assert_eq!(verify_token(&params, &sk2, &token), Err(Error::Verification));
    // P and Q swapped.
    let mut swapped = bytes;
    swapped[32..65].copy_from_slice(&bytes[65..98]);
    swapped[65..98].copy_from_slice(&bytes[32..65]);
    assert_eq!(verify_token(&params, &sk, &Token::from_bytes(&swapped).unwrap()), Err(Error::Verification));
}

/// (t, k·P, k·Q) verifies with the same hidden value: a redeemer must key
/// spent tokens on t ([`Token::nonce`]), which the rescaled token keeps.
#[test]
fn rescaled_tokens_verify_and_keep_their_nonce() {
    use p256::elliptic_curve::group::GroupEncoding;
    use p256::{AffinePoint, ProjectivePoint, Scalar};
    let params = Params::<4>::new(ID).unwrap();
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let (_, _, token) = issue(&params, &sk, &pk, &proof, 1);
    let bytes = token.to_bytes();
    let point = |b: &[u8]| {
        let arr: [u8; 33] = b.try_into().unwrap();
        ProjectivePoint::from(Option::<AffinePoint>::from(AffinePoint::from_bytes(&arr.into())).unwrap())
    };
    let k = Scalar::from(7u64);
    let mut rescaled = bytes;
    rescaled[32..65].copy_from_slice(&(point(&bytes[32..65]) * k).to_affine().to_bytes());
    rescaled[65..98].copy_from_slice(&(point(&bytes[65..98]) * k).to_affine().to_bytes());
    let rescaled = Token::from_bytes(&rescaled).unwrap();
    assert_ne!(rescaled.to_bytes(), bytes);
    assert_eq!(verify_token(&params, &sk, &rescaled), Ok(1));
    assert_eq!(rescaled.nonce(), token.nonce());
    assert_eq!(rescaled.nonce()[..], bytes[..32]);
}

#[test]
fn a_tampered_key_proof_fails() {
    let params = Params::<4>::new(ID).unwrap();
    let (_, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let bytes = proof.to_bytes();
    for at in [31, 63] {
        let altered = PublicKeyProof::from_bytes(&flip(&bytes, at)).unwrap();
        assert_eq!(pk.verify(&params, &altered).err(), Some(Error::Verification));
    }
    let (_, pk2, _) = PrivateKey::generate(&params, &mut rng()).unwrap();
    assert_eq!(pk2.verify(&params, &proof).err(), Some(Error::Verification));
    // Another bucket count is another context.
    let four_to_eight = Params::<8>::new(ID).unwrap();
    assert_eq!(pk.verify(&four_to_eight, &proof).err(), Some(Error::Verification));
}

/// The order of P-256, big-endian: not a valid scalar encoding.
fn order() -> [u8; 32] {
    let mut n = (-p256::Scalar::ONE).to_repr();
    // n − 1 + 1, carried from the last byte (n − 1 ends in 0x50).
    n[31] += 1;
    n.into()
}

#[test]
fn decoders_refuse_what_the_format_does_not_allow() {
    let params = Params::<4>::new(ID).unwrap();
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let (request, response, token) = issue(&params, &sk, &pk, &proof, 0);
    let mut response_wire = vec![0u8; TokenResponse::<4>::LEN];
    response.encode(&mut response_wire).unwrap();
    let context = {
        let key = pk.verify(&params, &proof).unwrap();
        token_request(&key, &mut rng()).unwrap().0
    };
    type Decoder = fn(&[u8]) -> Result<(), Error>;
    let cases: [(&str, Vec<u8>, Decoder); 7] = [
        ("private key", sk.to_bytes().to_vec(), |b| PrivateKey::from_bytes(b).map(drop)),
        ("public key", pk.to_bytes().to_vec(), |b| PublicKey::from_bytes(b).map(drop)),
        ("key proof", proof.to_bytes().to_vec(), |b| PublicKeyProof::from_bytes(b).map(drop)),
        ("request", request.to_bytes().to_vec(), |b| TokenRequest::from_bytes(b).map(drop)),
        ("response", response_wire.clone(), |b| TokenResponse::<4>::from_bytes(b).map(drop)),
        ("token", token.to_bytes().to_vec(), |b| Token::from_bytes(b).map(drop)),
        ("context", context.to_bytes().to_vec(), |b| TokenContext::from_bytes(b).map(drop)),
    ];
    for (name, good, decode) in cases {
        assert_eq!(decode(&good), Ok(()), "{name}");
        assert_eq!(decode(&good[..good.len() - 1]), Err(Error::Truncated), "{name}");
        assert_eq!(decode(&[]), Err(Error::Truncated), "{name}");
        let mut long = good.clone();
        long.push(0);
        assert_eq!(decode(&long), Err(Error::TrailingBytes), "{name}");
    }
    // The identity (33 zero bytes, as some encoders write it) and a point
    // off the curve are refused wherever a point is decoded.
    let identity = [0u8; 33];
    let mut off_curve = pk.to_bytes();
    off_curve[0] = 0x04;
    assert_eq!(TokenRequest::from_bytes(&identity), Err(Error::InvalidElement));
    assert_eq!(PublicKey::from_bytes(&[&identity[..], &pk.to_bytes()[33..]].concat()), Err(Error::InvalidElement));
    assert_eq!(PublicKey::from_bytes(&off_curve), Err(Error::InvalidElement));
    let mut t = token.to_bytes();
    t[32..65].copy_from_slice(&identity);
    assert_eq!(Token::from_bytes(&t), Err(Error::InvalidElement));
    let mut r = response_wire.clone();
    r[..33].copy_from_slice(&identity);
    assert_eq!(TokenResponse::<4>::from_bytes(&r), Err(Error::InvalidElement));
    // A scalar not below the order, in each kind of message.
    let n = order();
    let mut t = token.to_bytes();
    t[..32].copy_from_slice(&n);
    assert_eq!(Token::from_bytes(&t), Err(Error::InvalidScalar));
    let mut r = response_wire.clone();
    r[66..98].copy_from_slice(&n);
    assert_eq!(TokenResponse::<4>::from_bytes(&r), Err(Error::InvalidScalar));
    let mut r = response_wire;
    let last = r.len();
    r[last - 32..].copy_from_slice(&n);
    assert_eq!(TokenResponse::<4>::from_bytes(&r), Err(Error::InvalidScalar));
    assert_eq!(PublicKeyProof::from_bytes(&[n, [0; 32]].concat()), Err(Error::InvalidScalar));
    assert_eq!(TokenContext::from_bytes(&[[0; 32], n].concat()).err(), Some(Error::InvalidScalar));
    // A private key with y or z zero.
    let mut zero_y = sk.to_bytes().to_vec();
    zero_y[32..64].fill(0);
    assert_eq!(PrivateKey::from_bytes(&zero_y).err(), Some(Error::InvalidKey));
    let mut zero_z = sk.to_bytes().to_vec();
    zero_z[64..96].fill(0);
    assert_eq!(PrivateKey::from_bytes(&zero_z).err(), Some(Error::InvalidKey));
    // x, r_x, r_y may be zero (the format allows any scalar there).
    let mut zero_x = sk.to_bytes().to_vec();
    zero_x[..32].fill(0);
    assert!(PrivateKey::from_bytes(&zero_x).is_ok());
    // A buffer too small for the response.
    assert_eq!(response.encode(&mut [0u8; 482]), Err(Error::BufferTooSmall));
}

#[test]
fn secrets_are_not_printed() {
    let params = Params::<2>::new(ID).unwrap();
    let (sk, pk, proof) = PrivateKey::generate(&params, &mut rng()).unwrap();
    let key = pk.verify(&params, &proof).unwrap();
    let (context, _) = token_request(&key, &mut rng()).unwrap();
    let hex = |b: &[u8]| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
    let printed = format!("{sk:?} {context:?}");
    assert!(!printed.contains(&hex(&sk.to_bytes()[..8])));
    assert!(!printed.contains(&hex(&context.to_bytes()[..8])));
    assert!(!printed.contains(&format!("{:?}", &sk.to_bytes()[..4])));
}
