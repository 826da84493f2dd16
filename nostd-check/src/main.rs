//! Runs vector cases on a Cortex-M4 with no allocator: the binary links
//! without a `#[global_allocator]`, which proves the `pat` core never reaches
//! for the heap. Under qemu (`cargo run --release`) it prints
//! `N passed, M failed` over semihosting and exits non-zero on any failure.
#![no_std]
#![no_main]

use cortex_m_rt::entry;
use cortex_m_semihosting::{debug, hprintln};
use pat::auth;
use pat::challenge::TokenChallenge;
use pat::codec::{Decode, Encode};
use pat::token::{TokenInput, TokenRef};
use pat::token_type::TokenKind;

mod vectors {
    include!(concat!(env!("OUT_DIR"), "/vectors.rs"));
}

fn token_case(case: &(u16, &[u8], &[u8], &[u8], [u8; 32], [u8; 32], [u8; 98])) -> Result<(), pat::Error> {
    let (ty, issuer, ctx, origin, nonce, key_id, expected) = case;
    let challenge = TokenChallenge::new(*ty, issuer, ctx, origin)?;
    // Encode, re-parse, and build token_input from the parsed copy.
    let mut buf = [0u8; 256];
    let n = challenge.encode(&mut buf)?;
    let parsed = TokenChallenge::decode(buf.get(..n).ok_or(pat::Error::BufferTooSmall)?)?;
    let input = TokenInput::new(TokenKind::from_code(*ty)?, nonce, &parsed.digest(), key_id);
    if input.as_bytes() != expected {
        return Err(pat::Error::Verification);
    }
    // A whole token round trip and the Authorization header on top.
    let auth_bytes = [0x5au8; 256];
    let token = TokenRef::new(input, auth_bytes.get(..input.kind().nk()).ok_or(pat::Error::BufferTooSmall)?)?;
    let mut tbuf = [0u8; 354];
    let tn = token.encode(&mut tbuf)?;
    let mut hbuf = [0u8; 512];
    let header = auth::write_authorization(tbuf.get(..tn).ok_or(pat::Error::BufferTooSmall)?, &mut hbuf)?;
    let mut dbuf = [0u8; 354];
    let decoded = auth::parse_authorization(header)?.decode_base64url(&mut dbuf)?;
    if TokenRef::decode(decoded)? != token {
        return Err(pat::Error::Verification);
    }
    Ok(())
}

#[entry]
fn main() -> ! {
    let (mut passed, mut failed) = (0u32, 0u32);
    for (i, case) in vectors::TOKEN_CASES.iter().enumerate() {
        match token_case(core::hint::black_box(case)) {
            Ok(()) => passed += 1,
            Err(e) => {
                failed += 1;
                hprintln!("token case {} failed: {}", i, e);
            }
        }
    }
    // Hostile bytes: a truncated challenge must be a typed error.
    match TokenChallenge::decode(core::hint::black_box(&[0u8, 1, 0, 5, b'a'])) {
        Err(pat::Error::Truncated) => passed += 1,
        _ => failed += 1,
    }
    hprintln!("{} passed, {} failed", passed, failed);
    debug::exit(if failed == 0 && passed > 0 { debug::EXIT_SUCCESS } else { debug::EXIT_FAILURE });
    loop {
        cortex_m::asm::wfi();
    }
}

#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    hprintln!("panic: {}", info);
    debug::exit(debug::EXIT_FAILURE);
    loop {
        cortex_m::asm::wfi();
    }
}
