//! Flash footprint of the type 0x0005 client role alone: request (random
//! blind) and finalize (proof verification, unblinding), on one vector case.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::debug;
use pat::TokenChallenge;
use pat::codec::Decode;
use pat::token_type::PrivateRistretto255;
use pat::types::private::{Client, TokenResponse};
use pat::voprf::{ByteArray, Suite};
use pat_nostd_check::{TestRng, same, vectors};

fn run() -> Result<(), pat::Error> {
    let case = core::hint::black_box(&vectors::TYPE5[0]);
    let client = Client::<PrivateRistretto255>::from_token_key(case.pk)?;
    let challenge = TokenChallenge::decode(case.challenge)?;
    // The random path (what a device runs) and then the known answer.
    let (_request, _state) = client.request(&challenge, &mut TestRng(7))?;
    type Blind = <<PrivateRistretto255 as pat::types::private::PrivateTokenType>::Suite as Suite>::ScalarBytes;
    let blind = Blind::from_slice(case.blind).ok_or(pat::Error::InvalidScalar)?;
    let (_, state) = client.request_with(&challenge, &case.nonce, &blind)?;
    let token = client.finalize(state, &TokenResponse::decode(case.response)?)?;
    same(&token, case.token)
}

#[entry]
fn main() -> ! {
    debug::exit(if run().is_ok() { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
