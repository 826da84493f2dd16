//! Flash footprint of the ARC (P-256) client role alone: a credential
//! request (random m1, r1, r2 and proof), the finalize of the vectors'
//! response (the response proof verified) from the vectors' request state,
//! and one presentation of limit 2 (random blinds, range and presentation
//! proofs).
#![no_std]
#![no_main]

use pat::crypto::arc::messages::{CredentialResponse, presentation_len};
use pat::crypto::arc::{CredentialRequestState, PresentationState, ServerPublicKey};
use pat_nostd_check::{TestRng, check, vectors};

fn run() -> Result<(), pat::Error> {
    let case = core::hint::black_box(&vectors::ARC[0]);
    let mut rng = TestRng::new(0xe5ac);
    let public_key = ServerPublicKey::decode(case.pk)?;
    let (_state, request) = CredentialRequestState::new(&[case.request_context], &mut rng)?;
    check(request.to_bytes().len() == case.request.len())?;
    let state = CredentialRequestState::import(case.state)?;
    let credential = state.finalize(&public_key, &CredentialResponse::decode(case.response)?)?;
    check(credential.export().as_slice() == case.credential)?;
    let presentation = case.presentations.first().ok_or(pat::Error::Verification)?;
    let mut pstate = PresentationState::new(&credential, &[presentation.context], 2)?;
    let mut out = [0u8; 512];
    let p = pstate.present(&mut rng, &mut out)?;
    check(p.nonce == 0 && p.len == presentation_len(2)?)
}

pat_nostd_check::footprint_main!(|| run().is_ok());
