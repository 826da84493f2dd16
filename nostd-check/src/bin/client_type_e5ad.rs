//! Flash footprint of the type 0xE5AD (ACT) client role alone: a credential
//! request for a challenge, the credential's finalize (the issuer's proof
//! checked), a spend proof with its range proof, and the next credential
//! rebuilt from a refund, on the appendix vectors of
//! draft-schlesinger-cfrg-act-01 (the request state imported from them).
#![no_std]
#![no_main]

use pat::crypto::act::{IssuanceResponse, Params, PreRefund, PublicKey, Refund, SpendProof};
use pat::tokens::act::{ActChallenge, Client, RequestState, TokenResponse};
use pat_nostd_check::{TestRng, check, vectors};

fn run() -> Result<(), pat::Error> {
    const L: usize = vectors::ACT_L;
    let case = core::hint::black_box(vectors::ACT).first().ok_or(pat::Error::Verification)?;
    let params = Params::from_domain_separator(case.domain_separator);
    let public = PublicKey::from_cbor(case.pk)?;
    let client = Client::<L>::from_token_key(params.clone(), &public.to_bytes())?;
    let challenge = ActChallenge::new(b"issuer.example", &[], b"origin.example", &[])?;
    let mut rng = TestRng::new(0xe5ad);
    let (_state, _request) = client.request(&challenge, &mut rng)?;
    // The vectors' request as a stored state: pre-issuance ‖ request ‖ ctx.
    let mut stored = [0u8; RequestState::LEN];
    let (pre, rest) = stored.split_at_mut(case.pre_issuance.len());
    let (request, ctx) = rest.split_at_mut(case.request.len());
    pre.copy_from_slice(case.pre_issuance);
    request.copy_from_slice(case.request);
    ctx.copy_from_slice(&case.ctx);
    let state = RequestState::from_bytes(&stored)?;
    let response = TokenResponse { response: IssuanceResponse::from_cbor(case.response)? };
    let credential = client.finalize(&state, &response)?;
    check(credential.to_cbor().as_slice() == case.credit_token)?;
    // A spend of the credential (its context is the vectors', not a
    // challenge's, so the crypto layer's spend), then the vectors' refund.
    let (_proof, _pre_refund) = credential.prove_spend::<L, _>(&params, case.s, &mut rng)?;
    let proof = SpendProof::<L>::from_cbor(case.spend_proof)?;
    let pre_refund = PreRefund::from_cbor(case.pre_refund)?;
    let next = pre_refund.to_credit_token::<L>(&params, &proof, &Refund::from_cbor(case.refund)?, &public)?;
    check(next.credits::<L>()? == case.remaining)
}

pat_nostd_check::footprint_main!(|| run().is_ok());
