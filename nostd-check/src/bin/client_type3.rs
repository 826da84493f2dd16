//! Flash footprint of the type 0x0003 client role alone: request (RSA blind,
//! request-key blinding, HPKE origin encryption, ECDSA signature) and finalize
//! (response decryption, unblinding, RSA-PSS verification). No issuer code is
//! linked, so finalize runs on a response it must reject: the binary passes
//! when the request is built and the forged response is refused.
#![no_std]
#![no_main]

use pat::TokenChallenge;
use pat::crypto::blind_rsa::PublicKey;
use pat::crypto::key_blinding::ecdsa_p384;
use pat::crypto::rate_limited::encap::EncapKey;
use pat::tokens::rate_limited::Client;
use pat::wire::codec::Decode;
use pat_nostd_check::{TestRng, vectors};

fn run() -> Result<bool, pat::Error> {
    let case = core::hint::black_box(&vectors::TYPE2[0]);
    let encap = EncapKey::decode(core::hint::black_box(vectors::ENCAP_KEY))?;
    let client = Client::new(ecdsa_p384::SecretKey::from_bytes(&[0x11; 48])?, encap, PublicKey::from_spki(case.pk)?);
    let challenge = TokenChallenge::new(3, b"issuer.example", &[], b"origin.example")?;
    let mut out = [0u8; 600];
    let (_, mut state) = client.request(&challenge, b"origin.example", &mut TestRng::new(7), &mut out)?;
    Ok(client.finalize(&mut state, core::hint::black_box(&[0u8; 288])).is_err())
}

pat_nostd_check::footprint_main!(|| run() == Ok(true));
