//! Flash footprint of the type 0xDA7B client role alone: request (random
//! nonce and blind: the tweaked key's check, hash to the curve, one
//! multiplication) and finalize (the tweaked key, proof verification,
//! unblinding), on one vector case.
#![no_std]
#![no_main]

use pat::TokenChallenge;
use pat::tokens::poprf::{Client, TokenResponse};
use pat::wire::codec::Decode;
use pat::wire::extensions::Extensions;
use pat_nostd_check::{TestRng, same, vectors};

fn run() -> Result<(), pat::Error> {
    let case = core::hint::black_box(&vectors::TYPE_DA7B[0]);
    let client = Client::from_token_key(&case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let extensions = Extensions::decode(case.extensions)?;
    let (_request, _state) = client.request(&challenge, extensions, &mut TestRng::new(7))?;
    let (_, mut state) =
        pat::hazmat::tokens::poprf::request_with(&client, &challenge, extensions, &case.nonce, &case.blind)?;
    let token = client.finalize(&mut state, &extensions, &TokenResponse::decode(case.response)?)?;
    same(&token, case.token)
}

pat_nostd_check::footprint_main!(|| run().is_ok());
