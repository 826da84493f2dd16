//! Flash footprint of a type 0x0002 client that starts from the issuer's
//! directory (RFC 9578 §4): parse the directory (a type-1 and a type-2 key),
//! select the type-2 key by not-before, build the client from it, make a
//! random request for a challenge and record the request's nonce in a
//! `MemoryReplayStore<64>` (a client that never spends a nonce twice).
#![no_std]
#![no_main]

use pat::TokenChallenge;
use pat::deploy::directory::IssuerDirectory;
use pat::deploy::replay::{MemoryReplayStore, spend_token};
use pat::tokens::public::Client;
use pat::wire::codec::Decode;
use pat_nostd_check::{TestRng, check, vectors};

/// A time after the type-2 key's not-before.
const NOW: u64 = 1_700_000_000;

fn run() -> Result<(), pat::Error> {
    let json = core::hint::black_box(vectors::DIRECTORY);
    let dir = IssuerDirectory::<4>::parse(json.as_bytes(), &mut [])?;
    let key = dir.select(2, None, NOW)?;
    let mut buf = [0u8; 512];
    let client = Client::from_token_key(key.decode_token_key(&mut buf)?)?;
    let challenge = TokenChallenge::decode(core::hint::black_box(vectors::TYPE2[0].challenge))?;
    let (request, state) = client.request(&challenge, &mut TestRng::new(7))?;
    check(request.truncated_token_key_id == client.key_id()[31])?;
    let mut store = MemoryReplayStore::<64>::new([0x5a; 32]);
    spend_token(&mut store, state.input(), NOW + 3600, NOW)?;
    check(spend_token(&mut store, state.input(), NOW + 3600, NOW) == Err(pat::Error::Replayed))
}

pat_nostd_check::footprint_main!(|| run().is_ok());
