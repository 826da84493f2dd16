//! Amortized batches of types 0x0001 and 0x0005: round trips and every way a
//! batch message can be wrong.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::voprf::Suite;
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::private::{Issuer, PrivateTokenType};
use pat::wire::codec::Decode;
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{Error, Field, RngCode, TokenChallenge};

mod common;
use common::{encode, rng};
use pat_testkit::FailingRng;

/// The minimal QUIC varint encoding of `v`.
fn varint(v: usize) -> Vec<u8> {
    let mut buf = [0u8; 8];
    let mut w = pat::wire::codec::Writer::new(&mut buf);
    w.varint(v as u64).unwrap();
    let n = w.finish();
    buf[..n].to_vec()
}

fn batch<T: PrivateTokenType>() {
    let issuer = Issuer::<T>::generate(&mut rng()).unwrap();
    let client = issuer.client();
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[3; 32], b"origin.example").unwrap();
    let ne = T::Suite::NE;

    let mut state = client.request_batch::<10, _>(&challenge, 10, &mut rng()).unwrap();
    let request = encode(&state.request());
    assert_eq!(request.len(), 3 + 2 + 10 * ne);
    let parsed = AmortizedTokenRequest::<T>::decode(&request).unwrap();
    assert_eq!(parsed.len(), 10);
    assert_eq!(encode(&parsed), request);
    let mut out = [0u8; 1024];
    let n = issuer.evaluate_batch::<10, _>(&parsed, &mut out, &mut rng()).unwrap();
    let response = AmortizedTokenResponse::<T>::decode(&out[..n]).unwrap();
    assert_eq!(encode(&response), &out[..n]);
    let tokens = client.finalize_batch(&mut state, &response).unwrap();
    assert_eq!(tokens.len(), 10);
    for t in &tokens {
        issuer.verify(t, &challenge).unwrap();
    }

    // Capacity and size limits.
    assert_eq!(client.request_batch::<4, _>(&challenge, 5, &mut rng()).err(), Some(Error::CapacityExceeded));
    assert_eq!(client.request_batch::<4, _>(&challenge, 0, &mut rng()).err(), Some(Error::InvalidLength(Field::Batch)));
    let mut scratch = [0u8; 1024];
    assert_eq!(issuer.evaluate_batch::<9, _>(&parsed, &mut scratch, &mut rng()).err(), Some(Error::CapacityExceeded));
    assert_eq!(
        issuer.evaluate_batch::<10, _>(&parsed, &mut scratch[..n - 1], &mut rng()).err(),
        Some(Error::BufferTooSmall)
    );
    // The short buffer is refused before any work: the generator (which the
    // proof nonce would come from) is never asked, so its failure never shows.
    assert_eq!(
        issuer.evaluate_batch::<10, _>(&parsed, &mut scratch[..n - 1], &mut FailingRng).err(),
        Some(Error::BufferTooSmall)
    );
    assert_eq!(
        issuer.evaluate_batch::<10, _>(&parsed, &mut scratch, &mut FailingRng).err(),
        Some(Error::Rng(RngCode::UNKNOWN))
    );

    // A response for a different number of elements.
    let mut state = client.request_batch::<10, _>(&challenge, 9, &mut rng()).unwrap();
    assert_eq!(client.finalize_batch(&mut state, &response).err(), Some(Error::InvalidLength(Field::Batch)));

    // A tampered proof, or an element swapped, fails verification.
    let mut state = client.request_batch::<10, _>(&challenge, 10, &mut rng()).unwrap();
    let request = encode(&state.request());
    let parsed = AmortizedTokenRequest::<T>::decode(&request).unwrap();
    let n = issuer.evaluate_batch::<10, _>(&parsed, &mut out, &mut rng()).unwrap();
    let mut bad = out[..n].to_vec();
    let last = bad.len() - 1;
    bad[last] ^= 1;
    assert!(AmortizedTokenResponse::<T>::decode(&bad).and_then(|r| client.finalize_batch(&mut state, &r)).is_err());
    let mut state = client.request_batch::<10, _>(&challenge, 10, &mut rng()).unwrap();
    let request = encode(&state.request());
    let parsed = AmortizedTokenRequest::<T>::decode(&request).unwrap();
    let n = issuer.evaluate_batch::<10, _>(&parsed, &mut out, &mut rng()).unwrap();
    let mut swapped = out[..n].to_vec();
    let (a, b) = swapped[2..2 + 2 * ne].split_at_mut(ne);
    a.swap_with_slice(b);
    let swapped = AmortizedTokenResponse::<T>::decode(&swapped).unwrap();
    assert_eq!(client.finalize_batch(&mut state, &swapped).err(), Some(Error::Verification));

    // Wrong truncated key id.
    let mut other = request.clone();
    other[2] ^= 1;
    let parsed = AmortizedTokenRequest::<T>::decode(&other).unwrap();
    assert_eq!(issuer.evaluate_batch::<10, _>(&parsed, &mut out, &mut rng()).err(), Some(Error::KeyIdMismatch));
}

fn parsing<T: PrivateTokenType>() {
    let ne = T::Suite::NE;
    let issuer = Issuer::<T>::generate(&mut rng()).unwrap();
    let challenge = TokenChallenge::new(T::CODE, b"i", &[], &[]).unwrap();
    let state = issuer.client().request_batch::<2, _>(&challenge, 2, &mut rng()).unwrap();
    let request = encode(&state.request());
    assert!(AmortizedTokenRequest::<T>::decode(&request).is_ok());
    for n in 0..request.len() {
        assert!(AmortizedTokenRequest::<T>::decode(&request[..n]).is_err(), "prefix {n}");
    }
    let mut long = request.clone();
    long.push(0);
    assert_eq!(AmortizedTokenRequest::<T>::decode(&long).err(), Some(Error::TrailingBytes));
    let mut wrong = request.clone();
    wrong[1] ^= 0x07;
    assert!(matches!(AmortizedTokenRequest::<T>::decode(&wrong), Err(Error::WrongTokenType { .. })));

    // Length prefix: empty batch, not a multiple of Ne, non-minimal varint.
    let empty = [request[0], request[1], request[2], 0x00];
    assert_eq!(AmortizedTokenRequest::<T>::decode(&empty).err(), Some(Error::InvalidLength(Field::Batch)));
    let mut ragged = request[..3].to_vec();
    ragged.extend_from_slice(&varint(2 * ne - 1));
    ragged.extend_from_slice(&request[5..request.len() - 1]);
    assert_eq!(AmortizedTokenRequest::<T>::decode(&ragged).err(), Some(Error::InvalidLength(Field::Batch)));
    let mut padded = request[..3].to_vec();
    padded.extend_from_slice(&(u32::try_from(2 * ne).unwrap() | 0x8000_0000).to_be_bytes());
    padded.extend_from_slice(&request[5..]);
    assert_eq!(AmortizedTokenRequest::<T>::decode(&padded).err(), Some(Error::NonMinimalVarint));
    // A length that claims more bytes than remain.
    let mut short = request[..3].to_vec();
    short.extend_from_slice(&varint(4 * ne));
    short.extend_from_slice(&request[5..]);
    assert_eq!(AmortizedTokenRequest::<T>::decode(&short).err(), Some(Error::Truncated));

    // Responses: a missing proof byte, a trailing byte.
    let mut out = [0u8; 512];
    let parsed = AmortizedTokenRequest::<T>::decode(&request).unwrap();
    let n = issuer.evaluate_batch::<2, _>(&parsed, &mut out, &mut rng()).unwrap();
    assert_eq!(AmortizedTokenResponse::<T>::decode(&out[..n - 1]).err(), Some(Error::Truncated));
    assert_eq!(AmortizedTokenResponse::<T>::decode(&out[..n + 1]).err(), Some(Error::TrailingBytes));
    assert_eq!(AmortizedTokenResponse::<T>::decode(&[0x00]).err(), Some(Error::InvalidLength(Field::Batch)));
}

#[test]
fn type1_batch() {
    batch::<PrivateP384>();
}

#[test]
fn type5_batch() {
    batch::<PrivateRistretto255>();
}

#[test]
fn type1_parsing() {
    parsing::<PrivateP384>();
}

#[test]
fn type5_parsing() {
    parsing::<PrivateRistretto255>();
}
