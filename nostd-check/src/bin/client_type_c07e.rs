//! Flash footprint of the type 0xC07E client role alone: the token key's
//! proof checked once, a request (r and tc from the generator,
//! T = r·G + tc·Z) and finalize (the issuance proof, c from the generator,
//! unblinding), on the reference's ATHM vectors.
#![no_std]
#![no_main]

use pat::crypto::athm::{PublicKey, TokenContext, TokenRequest as AthmRequest, TokenResponse};
use pat::tokens::athm::{Client, RequestState, TOKEN_KEY_LEN};
use pat_nostd_check::{AthmCase, TestRng, athm_rng, check, vectors};

fn run() -> Result<(), pat::Error> {
    const N: usize = vectors::ATHM_BUCKETS;
    let params = pat::crypto::athm::Params::<N>::new(vectors::ATHM_DEPLOYMENT_ID)?;
    let Some(AthmCase::FinalizeToken { public_key, proof, seed, context, request, response, token }) =
        core::hint::black_box(vectors::ATHM).iter().find(|c| matches!(c, AthmCase::FinalizeToken { .. }))
    else {
        return Err(pat::Error::Verification);
    };
    let mut token_key = [0u8; TOKEN_KEY_LEN];
    let (key, key_proof) = token_key.split_at_mut(PublicKey::LEN);
    key.copy_from_slice(public_key);
    key_proof.copy_from_slice(proof);
    let client = Client::from_token_key(params, &token_key)?;
    let (_state, _request) = client.request(&mut TestRng::new(7))?;
    // The vectors' request as a stored state: pat's header (version 1,
    // shape 4, the type), r ‖ tc ‖ T ‖ key id.
    let mut stored = [0u8; RequestState::LEN];
    let (header, rest) = stored.split_at_mut(4);
    header.copy_from_slice(&[1, 4, 0xC0, 0x7E]);
    let (ctx, rest) = rest.split_at_mut(TokenContext::LEN);
    let (req, key_id) = rest.split_at_mut(AthmRequest::LEN);
    ctx.copy_from_slice(context);
    req.copy_from_slice(request);
    key_id.copy_from_slice(client.key_id());
    let state = RequestState::import(&stored)?;
    let got = client.finalize(&state, &TokenResponse::<N>::from_bytes(response)?, &mut athm_rng(*seed))?;
    check(got.token.to_bytes() == *token)
}

pat_nostd_check::footprint_main!(|| run().is_ok());
