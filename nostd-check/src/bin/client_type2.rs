//! Flash footprint of the type 0x0002 client role alone: request (random salt
//! and blind) and finalize (unblind and RSA-PSS verify), on one vector case.
#![no_std]
#![no_main]

use pat::TokenChallenge;
use pat::tokens::public::{Client, TokenResponse};
use pat::wire::codec::Decode;
use pat_nostd_check::{TestRng, same, vectors};

fn run() -> Result<(), pat::Error> {
    let case = core::hint::black_box(&vectors::TYPE2[0]);
    let client = Client::from_token_key(case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    let (_request, _state) = client.request(&challenge, &mut TestRng::new(7))?;
    let (_, mut state) =
        pat::hazmat::tokens::public::request_with(&client, &challenge, &case.nonce, &case.salt, &case.blind)?;
    let token = client.finalize(&mut state, &TokenResponse::decode(case.response)?)?;
    same(&token, case.token)
}

pat_nostd_check::footprint_main!(|| run().is_ok());
