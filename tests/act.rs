//! ACT, draft-schlesinger-cfrg-act-01 (ristretto255, BLAKE3, CBOR): chains
//! of issue → spend → refund → spend again with their balances; amounts out
//! of range and overspending refused with typed errors; every altered
//! message fails; every decoder refuses truncated, trailing, mistyped,
//! non-canonical and identity input; the bounds on L; secrets not printed.
//! The appendix vectors run in `vectors/tests/vectors.rs`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    clippy::cast_possible_truncation
)]

use pat::crypto::act::{
    CreditToken, IssuanceRequest, IssuanceResponse, Params, PreIssuance, PreRefund, PrivateKey, PublicKey, Refund,
    SpendProof, spend_proof_len,
};
use pat::{Error, Field};

mod common;
use common::rng;

fn params() -> Params {
    Params::new("pat", "tests", "act", "2026-02-13").unwrap()
}

const CTX: [u8; 32] = [7; 32];

/// Issues a token of `c` credits.
fn issue<const L: usize>(
    params: &Params,
    sk: &PrivateKey,
    c: u128,
) -> (IssuanceRequest, IssuanceResponse, CreditToken) {
    let pre = PreIssuance::random(&mut rng()).unwrap();
    let request = pre.request(params, &mut rng()).unwrap();
    let response = sk.issue::<L, _>(params, &request, c, &CTX, &mut rng()).unwrap();
    let token = pre.to_credit_token::<L>(params, sk.public_key(), &request, &response).unwrap();
    (request, response, token)
}

/// Spends `s` of `token` and refunds `t`; returns the new token.
fn spend<const L: usize>(params: &Params, sk: &PrivateKey, token: &CreditToken, s: u128, t: u128) -> CreditToken {
    let c = token.credits::<L>().unwrap();
    let (proof, pre_refund) = token.prove_spend::<L, _>(params, s, &mut rng()).unwrap();
    assert_eq!(proof.nullifier(), token.nullifier());
    assert_eq!(proof.context(), CTX);
    assert_eq!(proof.charge().unwrap(), s);
    // The wire form, through the codec.
    let mut bytes = vec![0u8; SpendProof::<L>::LEN];
    assert_eq!(proof.encode(&mut bytes).unwrap(), spend_proof_len(L));
    let proof = SpendProof::<L>::from_cbor(&bytes).unwrap();
    let refund = Refund::from_cbor(&sk.refund::<L, _>(params, &proof, t, &mut rng()).unwrap().to_cbor()).unwrap();
    assert_eq!(refund.partial_return::<L>().unwrap(), t);
    let pre_refund = PreRefund::from_cbor(&*pre_refund.to_cbor()).unwrap();
    let next = pre_refund.to_credit_token::<L>(params, &proof, &refund, sk.public_key()).unwrap();
    assert_eq!(next.credits::<L>().unwrap(), c - s + t);
    assert_eq!(next.nullifier(), pre_refund.nullifier());
    assert_ne!(next.nullifier(), token.nullifier());
    next
}

fn chain<const L: usize>(c: u128, steps: &[(u128, u128)]) {
    let params = params();
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let (_, response, mut token) = issue::<L>(&params, &sk, c);
    assert_eq!(response.credits::<L>().unwrap(), c);
    assert_eq!(token.credits::<L>().unwrap(), c);
    for &(s, t) in steps {
        token = spend::<L>(&params, &sk, &token, s, t);
        // The token survives its export.
        token = CreditToken::from_cbor(&*token.to_cbor()).unwrap();
    }
}

#[test]
fn issue_spend_refund_spend_again() {
    chain::<1>(1, &[(0, 0), (1, 1), (1, 0)]);
    chain::<8>(100, &[(30, 10), (80, 0), (0, 0)]);
    chain::<8>(255, &[(255, 255), (200, 100)]);
    chain::<16>(1000, &[(999, 0), (1, 1)]);
    chain::<64>(u128::from(u64::MAX), &[(1 << 40, 3), (12345, 12345)]);
    chain::<128>(u128::MAX, &[(u128::MAX, 5), (5, 0)]);
}

#[test]
fn amounts_out_of_range_are_refused() {
    let params = params();
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let pre = PreIssuance::random(&mut rng()).unwrap();
    let request = pre.request(&params, &mut rng()).unwrap();
    assert_eq!(sk.issue::<8, _>(&params, &request, 0, &CTX, &mut rng()).err(), Some(Error::InvalidScalar));
    assert_eq!(sk.issue::<8, _>(&params, &request, 256, &CTX, &mut rng()).err(), Some(Error::ValueTooLarge));
    assert_eq!(sk.issue::<8, _>(&params, &request, 1, &[0xff; 32], &mut rng()).err(), Some(Error::InvalidScalar));
    // A response for 2^8 credits (issued under L = 9) is refused by an L = 8 client.
    let response = sk.issue::<9, _>(&params, &request, 256, &CTX, &mut rng()).unwrap();
    assert_eq!(
        pre.to_credit_token::<8>(&params, sk.public_key(), &request, &response).err(),
        Some(Error::ValueTooLarge)
    );
    let (_, _, token) = issue::<8>(&params, &sk, 100);
    // Overspending, and a charge of 2^L or more, at proof time.
    assert_eq!(token.prove_spend::<8, _>(&params, 101, &mut rng()).err(), Some(Error::ValueTooLarge));
    assert_eq!(token.prove_spend::<8, _>(&params, 256, &mut rng()).err(), Some(Error::ValueTooLarge));
    // A token of 100 credits is below 2^7 but a spend under L = 6 sees 100 ≥ 2^6.
    assert_eq!(token.prove_spend::<6, _>(&params, 1, &mut rng()).err(), Some(Error::ValueTooLarge));
    // A refund above the charge, or of 2^L.
    let (proof, _) = token.prove_spend::<8, _>(&params, 30, &mut rng()).unwrap();
    assert_eq!(sk.refund::<8, _>(&params, &proof, 31, &mut rng()).err(), Some(Error::ValueTooLarge));
    assert_eq!(sk.refund::<8, _>(&params, &proof, 256, &mut rng()).err(), Some(Error::ValueTooLarge));
    assert!(sk.refund::<8, _>(&params, &proof, 30, &mut rng()).is_ok());
}

#[test]
fn bit_length_bounds() {
    let params = params();
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let (request, _, token) = issue::<8>(&params, &sk, 100);
    let bad = Some(Error::InvalidLength(Field::Message));
    assert_eq!(sk.issue::<0, _>(&params, &request, 1, &CTX, &mut rng()).err(), bad);
    assert_eq!(sk.issue::<129, _>(&params, &request, 1, &CTX, &mut rng()).err(), bad);
    assert_eq!(token.prove_spend::<0, _>(&params, 0, &mut rng()).err(), bad);
    assert_eq!(token.prove_spend::<129, _>(&params, 0, &mut rng()).err(), bad);
    assert_eq!(token.credits::<0>().err(), bad);
    assert_eq!(SpendProof::<0>::from_cbor(&[0xb2]).err(), bad);
    assert_eq!(SpendProof::<129>::from_cbor(&[0xb2]).err(), bad);
    assert_eq!(
        [spend_proof_len(1), spend_proof_len(8), spend_proof_len(32), spend_proof_len(64), spend_proof_len(128)],
        [669, 1628, 4919, 9303, 18071]
    );
    assert_eq!(
        [IssuanceRequest::LEN, IssuanceResponse::LEN, Refund::LEN, CreditToken::CBOR_LEN, PreRefund::CBOR_LEN],
        [141, 211, 176, 211, 141]
    );
    assert_eq!([PrivateKey::CBOR_LEN, PublicKey::CBOR_LEN, PreIssuance::CBOR_LEN], [71, 34, 71]);
    // A proof for L = 8 is not one for L = 16.
    let (proof, _) = token.prove_spend::<8, _>(&params, 1, &mut rng()).unwrap();
    let mut bytes = vec![0u8; SpendProof::<8>::LEN];
    proof.encode(&mut bytes).unwrap();
    assert_eq!(SpendProof::<16>::from_cbor(&bytes).err(), Some(Error::InvalidLength(Field::Message)));
    let mut short = vec![0u8; SpendProof::<8>::LEN - 1];
    assert_eq!(proof.encode(&mut short).err(), Some(Error::BufferTooSmall));
}

/// The offsets of every 32-byte string's content in a message.
fn payloads(bytes: &[u8]) -> Vec<usize> {
    fn walk(b: &[u8], pos: &mut usize, out: &mut Vec<usize>) {
        let head = b[*pos];
        *pos += 1;
        match head >> 5 {
            5 => {
                for _ in 0..(head & 0x1f) {
                    *pos += 1; // key
                    walk(b, pos, out);
                }
            }
            4 => {
                let n = if head == 0x98 {
                    *pos += 1;
                    b[*pos - 1]
                } else {
                    head & 0x1f
                };
                for _ in 0..n {
                    walk(b, pos, out);
                }
            }
            2 => {
                assert_eq!((head, b[*pos]), (0x58, 0x20));
                out.push(*pos + 1);
                *pos += 33;
            }
            _ => panic!("unexpected head {head:#x}"),
        }
    }
    let mut out = Vec::new();
    let mut pos = 0;
    walk(bytes, &mut pos, &mut out);
    assert_eq!(pos, bytes.len());
    out
}

/// Every 32-byte field of `bytes` replaced (a scalar +1 in its low byte;
/// an element by `other`, another valid element): `check` sees a decodable
/// message and must fail with `Verification`. Returns the number altered.
fn each_altered(bytes: &[u8], other: &[u8; 32], check: impl Fn(&[u8]) -> Option<Error>) -> usize {
    let mut n = 0;
    for at in payloads(bytes) {
        for alteration in 0..2 {
            let mut b = bytes.to_vec();
            if alteration == 0 {
                b[at] ^= 1;
            } else if b[at..at + 32] != other[..] {
                b[at..at + 32].copy_from_slice(other);
            } else {
                continue;
            }
            if let Some(e) = check(&b) {
                assert_eq!(e, Error::Verification, "offset {at}");
                n += 1;
            }
        }
    }
    n
}

#[test]
fn every_altered_message_fails() {
    const L: usize = 8;
    let params = params();
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let pre = PreIssuance::random(&mut rng()).unwrap();
    let request = pre.request(&params, &mut rng()).unwrap();
    // Another valid element whose encoding never decodes as a scalar (its
    // top byte lies above the group order's, 0x10): put in a scalar field it
    // is a decoding error, not another value. Were it a scalar, an amount
    // field (c, t) would fail first as ValueTooLarge, not Verification.
    let other = loop {
        let key = PrivateKey::generate(&mut rng()).unwrap().public_key().to_bytes();
        if key[31] > 0x10 {
            break key;
        }
    };

    // The issuance request: every field is in the issuer's check.
    let n = each_altered(&request.to_cbor(), &other, |b| {
        let r = IssuanceRequest::from_cbor(b).ok()?;
        Some(sk.issue::<L, _>(&params, &r, 100, &CTX, &mut rng()).expect_err("accepted an altered request"))
    });
    assert!(n >= 4, "{n}");

    // The issuance response: every field is in the client's check.
    let response = sk.issue::<L, _>(&params, &request, 100, &CTX, &mut rng()).unwrap();
    let n = each_altered(&response.to_cbor(), &other, |b| {
        let r = IssuanceResponse::from_cbor(b).ok()?;
        Some(
            pre.to_credit_token::<L>(&params, sk.public_key(), &request, &r).expect_err("accepted an altered response"),
        )
    });
    assert!(n >= 6, "{n}");
    // Another key, other parameters, another request.
    let sk2 = PrivateKey::generate(&mut rng()).unwrap();
    assert_eq!(
        pre.to_credit_token::<L>(&params, sk2.public_key(), &request, &response).err(),
        Some(Error::Verification)
    );
    let params2 = Params::new("pat", "tests", "act", "2026-02-14").unwrap();
    assert_eq!(
        pre.to_credit_token::<L>(&params2, sk.public_key(), &request, &response).err(),
        Some(Error::Verification)
    );
    // (A second request of the same pre-issuance has the same K: it passes.)
    let request2 = PreIssuance::random(&mut rng()).unwrap().request(&params, &mut rng()).unwrap();
    assert_eq!(
        pre.to_credit_token::<L>(&params, sk.public_key(), &request2, &response).err(),
        Some(Error::Verification)
    );
    assert_eq!(sk.issue::<L, _>(&params2, &request, 1, &CTX, &mut rng()).err(), Some(Error::Verification));

    // The spend proof: every field (commitments, OR-proof challenges and
    // responses included) is in the issuer's check.
    let token = pre.to_credit_token::<L>(&params, sk.public_key(), &request, &response).unwrap();
    let (proof, pre_refund) = token.prove_spend::<L, _>(&params, 30, &mut rng()).unwrap();
    let mut bytes = vec![0u8; SpendProof::<L>::LEN];
    proof.encode(&mut bytes).unwrap();
    let n = each_altered(&bytes, &other, |b| {
        let p = SpendProof::<L>::from_cbor(b).ok()?;
        Some(sk.refund::<L, _>(&params, &p, 0, &mut rng()).expect_err("accepted an altered spend proof"))
    });
    assert!(n >= 15 + 4 * L, "{n}"); // every field, at least once
    assert_eq!(sk2.refund::<L, _>(&params, &proof, 0, &mut rng()).err(), Some(Error::Verification));
    assert_eq!(sk.refund::<L, _>(&params2, &proof, 0, &mut rng()).err(), Some(Error::Verification));

    // The refund: every field is in the client's check.
    let refund = sk.refund::<L, _>(&params, &proof, 10, &mut rng()).unwrap();
    let n = each_altered(&refund.to_cbor(), &other, |b| {
        let r = Refund::from_cbor(b).ok()?;
        Some(
            pre_refund
                .to_credit_token::<L>(&params, &proof, &r, sk.public_key())
                .expect_err("accepted an altered refund"),
        )
    });
    assert!(n >= 5, "{n}");
    // A refund for another spend proof.
    let (proof2, _) = token.prove_spend::<L, _>(&params, 30, &mut rng()).unwrap();
    assert_eq!(
        pre_refund.to_credit_token::<L>(&params, &proof2, &refund, sk.public_key()).err(),
        Some(Error::Verification)
    );
    assert!(pre_refund.to_credit_token::<L>(&params, &proof, &refund, sk.public_key()).is_ok());
}

/// Runs `decode` over the standard malformations of `good` (a flat map of
/// 32-byte strings or a spend proof) and checks each typed error.
fn decoder_refuses(good: &[u8], decode: impl Fn(&[u8]) -> Result<(), Error>) {
    assert_eq!(decode(good), Ok(()));
    for len in 0..good.len() {
        assert_eq!(decode(&good[..len]), Err(Error::Truncated), "prefix of {len}");
    }
    let mut long = good.to_vec();
    long.push(0);
    assert_eq!(decode(&long), Err(Error::TrailingBytes));
    let set = |at: usize, v: u8| {
        let mut b = good.to_vec();
        b[at] = v;
        b
    };
    let value = Err(Error::InvalidValue(Field::Message));
    let length = Err(Error::InvalidLength(Field::Message));
    // The map head: an array, another count, an indefinite length.
    assert_eq!(decode(&set(0, good[0] - 0x20)), value);
    assert_eq!(decode(&set(0, good[0] + 1)), length);
    assert_eq!(decode(&set(0, good[0] - 1)), length);
    assert_eq!(decode(&set(0, 0xbf)), length);
    // The first key: another, a repeated one later, a text key.
    assert_eq!(decode(&set(1, 2)), value);
    assert_eq!(decode(&set(1, 0x61)), value);
    assert_eq!(decode(&set(36, 1)), value);
    // The first value: a text string, a 31-byte string, a non-minimal length.
    assert_eq!(decode(&set(2, 0x78)), value);
    assert_eq!(decode(&set(3, 0x1f)), length);
    assert_eq!(decode(&set(2, 0x59)), length);
    let mut nonminimal = good[..2].to_vec();
    nonminimal.extend_from_slice(&[0x59, 0x00, 0x20]);
    nonminimal.extend_from_slice(&good[4..]);
    assert_eq!(decode(&nonminimal), length);
}

#[test]
fn decoders_refuse_malformed_input() {
    let params = params();
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let (request, response, token) = issue::<8>(&params, &sk, 100);
    let (proof, pre_refund) = token.prove_spend::<8, _>(&params, 30, &mut rng()).unwrap();
    let refund = sk.refund::<8, _>(&params, &proof, 10, &mut rng()).unwrap();
    let mut proof_bytes = vec![0u8; SpendProof::<8>::LEN];
    proof.encode(&mut proof_bytes).unwrap();

    decoder_refuses(&request.to_cbor(), |b| IssuanceRequest::from_cbor(b).map(|_| ()));
    decoder_refuses(&response.to_cbor(), |b| IssuanceResponse::from_cbor(b).map(|_| ()));
    decoder_refuses(&refund.to_cbor(), |b| Refund::from_cbor(b).map(|_| ()));
    decoder_refuses(&proof_bytes, |b| SpendProof::<8>::from_cbor(b).map(|_| ()));
    decoder_refuses(&*token.to_cbor(), |b| CreditToken::from_cbor(b).map(|_| ()));
    decoder_refuses(&*pre_refund.to_cbor(), |b| PreRefund::from_cbor(b).map(|_| ()));
    decoder_refuses(&*sk.to_cbor(), |b| PrivateKey::from_cbor(b).map(|_| ()));
    let pre = PreIssuance::random(&mut rng()).unwrap();
    decoder_refuses(&*pre.to_cbor(), |b| PreIssuance::from_cbor(b).map(|_| ()));

    // Elements: the identity, a non-canonical or invalid encoding. Scalars:
    // q and 2^256 − 1.
    let q: [u8; 32] = [
        0xed, 0xd3, 0xf5, 0x5c, 0x1a, 0x63, 0x12, 0x58, 0xd6, 0x9c, 0xf7, 0xa2, 0xde, 0xf9, 0xde, 0x14, 0, 0, 0, 0, 0,
        0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10,
    ];
    let with = |bytes: &[u8], at: usize, v: &[u8; 32]| {
        let mut b = bytes.to_vec();
        b[at..at + 32].copy_from_slice(v);
        b
    };
    let req = request.to_cbor();
    assert_eq!(IssuanceRequest::from_cbor(&with(&req, 4, &[0; 32])).err(), Some(Error::InvalidElement));
    assert_eq!(IssuanceRequest::from_cbor(&with(&req, 4, &[0xff; 32])).err(), Some(Error::InvalidElement));
    let mut one = [0u8; 32];
    one[0] = 1; // not canonical (odd)
    assert_eq!(IssuanceRequest::from_cbor(&with(&req, 4, &one)).err(), Some(Error::InvalidElement));
    assert_eq!(IssuanceRequest::from_cbor(&with(&req, 39, &q)).err(), Some(Error::InvalidScalar));
    assert_eq!(IssuanceRequest::from_cbor(&with(&req, 39, &[0xff; 32])).err(), Some(Error::InvalidScalar));
    for at in payloads(&proof_bytes) {
        let e = SpendProof::<8>::from_cbor(&with(&proof_bytes, at, &[0; 32])).err();
        let f = SpendProof::<8>::from_cbor(&with(&proof_bytes, at, &q)).err();
        // Zero is the identity for an element and a valid scalar; q the reverse.
        assert!(
            (e == Some(Error::InvalidElement) && f == Some(Error::InvalidElement))
                || (e.is_none() && f == Some(Error::InvalidScalar)),
            "{at}: {e:?} {f:?}"
        );
    }
    // The spend proof's arrays: another count, a map instead.
    let com = 1 + 4 * 35 + 1; // the head of key 5's array
    assert_eq!(proof_bytes[com], 0x88);
    let mut b = proof_bytes.clone();
    b[com] = 0x87;
    assert_eq!(SpendProof::<8>::from_cbor(&b).err(), Some(Error::InvalidLength(Field::Message)));
    b[com] = 0xa8;
    assert_eq!(SpendProof::<8>::from_cbor(&b).err(), Some(Error::InvalidValue(Field::Message)));
    // The public key: a bare byte string, 32 bytes.
    let pk = sk.public_key().to_cbor();
    assert_eq!(PublicKey::from_cbor(&pk).unwrap(), *sk.public_key());
    assert_eq!(PublicKey::from_cbor(&pk[..33]).err(), Some(Error::Truncated));
    assert_eq!(PublicKey::from_cbor(&[&pk[..], &[0]].concat()).err(), Some(Error::TrailingBytes));
    assert_eq!(PublicKey::from_cbor(&with(&pk, 2, &[0; 32])).err(), Some(Error::InvalidElement));
    assert_eq!(PublicKey::from_bytes(&pk[2..]).unwrap(), *sk.public_key());
    // A private key whose W is not x·G.
    let other = PrivateKey::generate(&mut rng()).unwrap();
    let mixed = with(&*sk.to_cbor(), 39, &other.public_key().to_bytes());
    assert_eq!(PrivateKey::from_cbor(&mixed).err(), Some(Error::InvalidKey));
}

#[test]
fn parameters() {
    let p = Params::new("example-corp", "payment-api", "production", "2024-01-15").unwrap();
    let q = Params::from_domain_separator(b"ACT-v1:example-corp:payment-api:production:2024-01-15");
    assert_eq!(p.generators(), q.generators());
    let g = p.generators();
    assert!(g.iter().enumerate().all(|(i, a)| g[i + 1..].iter().all(|b| a != b)));
    assert_ne!(params().generators(), p.generators());
    for bad in [("a:b", "s", "d", "v"), ("o", "s:", "d", "v"), ("o", "s", ":d", "v"), ("o", "s", "d", "2024:01")] {
        assert_eq!(Params::new(bad.0, bad.1, bad.2, bad.3).err(), Some(Error::InvalidValue(Field::Message)));
    }
}

#[test]
fn secrets_are_not_printed() {
    let params = params();
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let pre = PreIssuance::random(&mut rng()).unwrap();
    let (_, _, token) = issue::<8>(&params, &sk, 100);
    let (_, pre_refund) = token.prove_spend::<8, _>(&params, 1, &mut rng()).unwrap();
    assert_eq!(format!("{sk:?}"), "PrivateKey { .. }");
    assert_eq!(format!("{pre:?}"), "PreIssuance { .. }");
    assert_eq!(format!("{token:?}"), "CreditToken { .. }");
    assert_eq!(format!("{pre_refund:?}"), "PreRefund { .. }");
    use subtle::ConstantTimeEq as _;
    assert!(bool::from(sk.ct_eq(&PrivateKey::from_cbor(&*sk.to_cbor()).unwrap())));
    assert!(bool::from(token.ct_eq(&CreditToken::from_cbor(&*token.to_cbor()).unwrap())));
    assert!(bool::from(pre.ct_eq(&PreIssuance::from_cbor(&*pre.to_cbor()).unwrap())));
    assert!(bool::from(pre_refund.ct_eq(&PreRefund::from_cbor(&*pre_refund.to_cbor()).unwrap())));
    assert!(!bool::from(sk.ct_eq(&PrivateKey::generate(&mut rng()).unwrap())));
}

#[test]
fn failing_generator_is_an_rng_error() {
    let params = params();
    let mut failing = pat_testkit::FailingRng;
    assert!(matches!(PrivateKey::generate(&mut failing), Err(Error::Rng(_))));
    assert!(matches!(PreIssuance::random(&mut failing), Err(Error::Rng(_))));
    let sk = PrivateKey::generate(&mut rng()).unwrap();
    let (request, _, token) = issue::<8>(&params, &sk, 100);
    assert!(matches!(sk.issue::<8, _>(&params, &request, 1, &CTX, &mut failing), Err(Error::Rng(_))));
    assert!(matches!(token.prove_spend::<8, _>(&params, 1, &mut failing), Err(Error::Rng(_))));
}
