//! pat's ACT (`pat::crypto::act`) against the reference implementation,
//! crates.io `anonymous-credit-tokens` 0.4.2, both draft-schlesinger-cfrg-act-01
//! (ristretto255, BLAKE3, CBOR): every message one of them makes, the other
//! accepts, in both directions, for L = 8 and L = 64: issuance request and
//! response, spend proof, refund, and the keys and client states in CBOR.
//! Seeded with the same ChaCha20 stream, both make the same bytes.

use anonymous_credit_tokens as act_ref;
use pat::crypto::act as act_pat;

use act_ref::Scalar;
use rand_core_06::SeedableRng as _;
use rand_core_010::SeedableRng as _;

fn params() -> (act_pat::Params, act_ref::Params) {
    let p = ("pat", "interop", "act", "2026-02-13");
    (act_pat::Params::new(p.0, p.1, p.2, p.3).unwrap(), act_ref::Params::new(p.0, p.1, p.2, p.3))
}

fn rng_pat(seed: u8) -> rand_chacha_010::ChaCha20Rng {
    rand_chacha_010::ChaCha20Rng::from_seed([seed; 32])
}

fn rng_ref(seed: u8) -> rand_chacha_03::ChaCha20Rng {
    rand_chacha_03::ChaCha20Rng::from_seed([seed; 32])
}

fn spend_bytes<const L: usize>(proof: &act_pat::SpendProof<L>) -> Vec<u8> {
    let mut out = vec![0u8; act_pat::SpendProof::<L>::LEN];
    assert_eq!(proof.encode(&mut out).unwrap(), out.len());
    out
}

const CTX: [u8; 32] = [3; 32];

/// pat's client against the reference issuer: request, response, spend
/// proof, refund, twice over.
fn pat_client_reference_issuer<const L: usize>(c: u64, steps: &[(u64, u64)]) {
    let (pp, rp) = params();
    let (mut r, mut q) = (rng_pat(1), rng_ref(2));
    let rsk = act_ref::PrivateKey::random(&mut q);
    // The key through CBOR both ways.
    let psk = act_pat::PrivateKey::from_cbor(&rsk.to_cbor().unwrap()).unwrap();
    assert_eq!(psk.public_key().to_cbor().to_vec(), rsk.public().to_cbor().unwrap());
    let ppk = act_pat::PublicKey::from_cbor(&rsk.public().to_cbor().unwrap()).unwrap();
    let ctx = Scalar::from_canonical_bytes(CTX).unwrap();

    let pre = act_pat::PreIssuance::random(&mut r).unwrap();
    let request = pre.request(&pp, &mut r).unwrap();
    let rreq = act_ref::IssuanceRequest::from_cbor(&request.to_cbor()).unwrap();
    let rresp = rsk.issue::<L>(&rp, &rreq, Scalar::from(c), ctx, &mut q).unwrap();
    let response = act_pat::IssuanceResponse::from_cbor(&rresp.to_cbor().unwrap()).unwrap();
    let mut token = pre.to_credit_token::<L>(&pp, &ppk, &request, &response).unwrap();
    let mut balance = u128::from(c);
    for &(s, t) in steps {
        let (proof, pre_refund) = token.prove_spend::<L, _>(&pp, u128::from(s), &mut r).unwrap();
        let rproof = act_ref::SpendProof::<L>::from_cbor(&spend_bytes(&proof)).unwrap();
        assert_eq!(rproof.nullifier().to_bytes(), token.nullifier());
        assert_eq!(rproof.charge(), Scalar::from(s));
        let rrefund = rsk.refund::<L>(&rp, &rproof, Scalar::from(t), &mut q).unwrap();
        let refund = act_pat::Refund::from_cbor(&rrefund.to_cbor().unwrap()).unwrap();
        token = pre_refund.to_credit_token::<L>(&pp, &proof, &refund, &ppk).unwrap();
        balance = balance - u128::from(s) + u128::from(t);
        assert_eq!(token.credits::<L>().unwrap(), balance);
        // The token and the states through the reference's CBOR.
        let rtoken = act_ref::CreditToken::from_cbor(&*token.to_cbor()).unwrap();
        assert_eq!(rtoken.to_cbor().unwrap(), token.to_cbor().to_vec());
        assert_eq!(
            act_ref::PreRefund::from_cbor(&*pre_refund.to_cbor()).unwrap().to_cbor().unwrap(),
            pre_refund.to_cbor().to_vec()
        );
    }
    // The reference spends pat's last token with its own issuer.
    let rtoken = act_ref::CreditToken::from_cbor(&*token.to_cbor()).unwrap();
    let (rproof, _) = rtoken.prove_spend::<L>(&rp, Scalar::ZERO, &mut q).unwrap();
    rsk.refund::<L>(&rp, &rproof, Scalar::ZERO, &mut q).unwrap();
    assert_eq!(act_ref::PreIssuance::from_cbor(&*pre.to_cbor()).unwrap().to_cbor().unwrap(), pre.to_cbor().to_vec());
}

/// The reference client against pat's issuer.
fn reference_client_pat_issuer<const L: usize>(c: u64, steps: &[(u64, u64)]) {
    let (pp, rp) = params();
    let (mut r, mut q) = (rng_pat(3), rng_ref(4));
    let psk = act_pat::PrivateKey::generate(&mut r).unwrap();
    let rsk = act_ref::PrivateKey::from_cbor(&*psk.to_cbor()).unwrap();
    let rpk = rsk.public();

    let pre = act_ref::PreIssuance::random(&mut q);
    let rreq = pre.request(&rp, &mut q);
    let request = act_pat::IssuanceRequest::from_cbor(&rreq.to_cbor().unwrap()).unwrap();
    let response = psk.issue::<L, _>(&pp, &request, u128::from(c), &CTX, &mut r).unwrap();
    let rresp = act_ref::IssuanceResponse::from_cbor(&response.to_cbor()).unwrap();
    let mut token = pre.to_credit_token::<L>(&rp, rpk, &rreq, &rresp).unwrap();
    assert_eq!(token.credits(), Scalar::from(c));
    let mut balance = c;
    for &(s, t) in steps {
        let (rproof, rpre_refund) = token.prove_spend::<L>(&rp, Scalar::from(s), &mut q).unwrap();
        let proof = act_pat::SpendProof::<L>::from_cbor(&rproof.to_cbor().unwrap()).unwrap();
        assert_eq!(spend_bytes(&proof), rproof.to_cbor().unwrap());
        assert_eq!(proof.charge().unwrap(), u128::from(s));
        let refund = psk.refund::<L, _>(&pp, &proof, u128::from(t), &mut r).unwrap();
        let rrefund = act_ref::Refund::from_cbor(&refund.to_cbor()).unwrap();
        token = rpre_refund.to_credit_token::<L>(&rp, &rproof, &rrefund, rpk).unwrap();
        balance = balance - s + t;
        assert_eq!(token.credits(), Scalar::from(balance));
        // pat reads the reference's token and spends it with its own issuer.
        let ptoken = act_pat::CreditToken::from_cbor(&token.to_cbor().unwrap()).unwrap();
        let (pproof, _) = ptoken.prove_spend::<L, _>(&pp, 0, &mut r).unwrap();
        psk.refund::<L, _>(&pp, &pproof, 0, &mut r).unwrap();
    }
}

#[test]
fn pat_client_with_reference_issuer() {
    pat_client_reference_issuer::<8>(100, &[(30, 10), (80, 0), (0, 0)]);
    pat_client_reference_issuer::<64>(u64::MAX, &[(1 << 40, 7), (123_456_789, 123_456_789)]);
}

#[test]
fn reference_client_with_pat_issuer() {
    reference_client_pat_issuer::<8>(255, &[(255, 200), (200, 0)]);
    reference_client_pat_issuer::<64>(u64::MAX, &[(u64::MAX, 1), (1, 0)]);
}

/// The same ChaCha20 stream drives both through one run: every message is
/// byte-identical (the appendix vectors' claim, here at L = 64 with a
/// context and other amounts).
#[test]
fn same_stream_same_bytes_at_l_64() {
    const L: usize = 64;
    let (pp, rp) = params();
    let (mut r, mut q) = (rng_pat(9), rng_ref(9));
    let psk = act_pat::PrivateKey::generate(&mut r).unwrap();
    let rsk = act_ref::PrivateKey::random(&mut q);
    assert_eq!(psk.to_cbor().to_vec(), rsk.to_cbor().unwrap());
    let ppre = act_pat::PreIssuance::random(&mut r).unwrap();
    let rpre = act_ref::PreIssuance::random(&mut q);
    let preq = ppre.request(&pp, &mut r).unwrap();
    let rreq = rpre.request(&rp, &mut q);
    assert_eq!(preq.to_cbor().to_vec(), rreq.to_cbor().unwrap());
    let c = 1u64 << 50;
    let presp = psk.issue::<L, _>(&pp, &preq, u128::from(c), &CTX, &mut r).unwrap();
    let rresp =
        rsk.issue::<L>(&rp, &rreq, Scalar::from(c), Scalar::from_canonical_bytes(CTX).unwrap(), &mut q).unwrap();
    assert_eq!(presp.to_cbor().to_vec(), rresp.to_cbor().unwrap());
    let ptok = ppre.to_credit_token::<L>(&pp, psk.public_key(), &preq, &presp).unwrap();
    let rtok = rpre.to_credit_token::<L>(&rp, rsk.public(), &rreq, &rresp).unwrap();
    let (pproof, ppr) = ptok.prove_spend::<L, _>(&pp, 12345, &mut r).unwrap();
    let (rproof, rpr) = rtok.prove_spend::<L>(&rp, Scalar::from(12345u64), &mut q).unwrap();
    assert_eq!(spend_bytes(&pproof), rproof.to_cbor().unwrap());
    assert_eq!(ppr.to_cbor().to_vec(), rpr.to_cbor().unwrap());
    let prefund = psk.refund::<L, _>(&pp, &pproof, 45, &mut r).unwrap();
    let rrefund = rsk.refund::<L>(&rp, &rproof, Scalar::from(45u64), &mut q).unwrap();
    assert_eq!(prefund.to_cbor().to_vec(), rrefund.to_cbor().unwrap());
    let pnew = ppr.to_credit_token::<L>(&pp, &pproof, &prefund, psk.public_key()).unwrap();
    let rnew = rpr.to_credit_token::<L>(&rp, &rproof, &rrefund, rsk.public()).unwrap();
    assert_eq!(pnew.to_cbor().to_vec(), rnew.to_cbor().unwrap());
}
