//! The random number generator seen from the library: a failure keeps its
//! code ([`Error::Rng`]), and the adapter example of
//! `examples/rng_adapter.rs` runs.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::blind_rsa::SecretKey;
use pat::codec::Decode;
use pat::key_blinding::ecdsa_p384 as ecdsa;
use pat::rand_core::{TryCryptoRng, TryRng};
use pat::rate_limited::encap::EncapSecretKey;
use pat::token_type::{PrivateP384, PrivateRistretto255};
use pat::types::{private, public, rate_limited as t3};
use pat::{Error, RngCode, TokenChallenge};
use pat_testkit::FailingRng;

mod common;
use common::{field, load};

#[path = "../examples/rng_adapter.rs"]
mod rng_adapter;

const TYPE2: &str = "pat-go/tokens/type2/type2-issuance-test-vectors.json";

/// The adapter example: a working draw, then the driver's error code as
/// `Error::Rng`.
#[test]
fn adapter_example_runs() {
    rng_adapter::main().unwrap();
}

/// Succeeds for the first `ok` draws (bytes of 0x5a), then fails with `code`.
struct FailAfter {
    ok: usize,
    code: u32,
}

impl FailAfter {
    fn now(code: u32) -> Self {
        Self { ok: 0, code }
    }

    fn draw(&mut self) -> Result<(), RngCode> {
        if self.ok == 0 {
            return Err(RngCode::new(self.code));
        }
        self.ok -= 1;
        Ok(())
    }
}

impl TryRng for FailAfter {
    type Error = RngCode;

    fn try_next_u32(&mut self) -> Result<u32, RngCode> {
        self.draw().map(|()| 0x5a5a_5a5a)
    }

    fn try_next_u64(&mut self) -> Result<u64, RngCode> {
        self.draw().map(|()| 0x5a5a_5a5a_5a5a_5a5a)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngCode> {
        self.draw()?;
        dst.fill(0x5a);
        Ok(())
    }
}

impl TryCryptoRng for FailAfter {}

fn rsa_pem() -> String {
    String::from_utf8(field(&load(TYPE2)[0], "skS")).unwrap()
}

fn rsa_secret_key() -> SecretKey {
    SecretKey::from_pkcs8_pem(&rsa_pem()).unwrap()
}

const CODE: RngCode = RngCode::new(0x1234);

#[test]
fn codes_survive_client_requests() {
    let mut rng = pat_testkit::TestRng::new(1);
    let c5 = TokenChallenge::new(5, b"issuer.example", &[], &[]).unwrap();
    let issuer5 = private::Issuer::<PrivateRistretto255>::generate(&mut rng).unwrap();
    assert_eq!(issuer5.client().request(&c5, &mut FailAfter::now(0x1234)).err(), Some(Error::Rng(CODE)));
    // Failing at the second draw (the blind, after the nonce) as well.
    let mut second = FailAfter { ok: 1, code: 0x1234 };
    assert_eq!(issuer5.client().request(&c5, &mut second).err(), Some(Error::Rng(CODE)));

    let c2 = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let issuer2 = public::Issuer::new(rsa_secret_key());
    let client2 = public::Client::from_token_key(&issuer2.token_key()).unwrap();
    // Nonce, salt, the blind r, the blind u: a failure at each keeps the code.
    for ok in 0..4 {
        let mut rng = FailAfter { ok, code: 0x1234 };
        assert_eq!(client2.request(&c2, &mut rng).err(), Some(Error::Rng(CODE)), "failure at draw {ok}");
    }

    let c1 = TokenChallenge::new(1, b"issuer.example", &[], &[]).unwrap();
    let issuer1 = private::Issuer::<PrivateP384>::generate(&mut rng).unwrap();
    assert_eq!(issuer1.client().request(&c1, &mut FailAfter::now(0x1234)).err(), Some(Error::Rng(CODE)));
    // Issuers that draw keep the code too.
    let (req, _) = issuer1.client().request(&c1, &mut rng).unwrap();
    assert_eq!(issuer1.evaluate(&req, &mut FailAfter::now(7)).err(), Some(Error::Rng(RngCode::new(7))));

    // Another error type carries no code the library can read.
    assert_eq!(issuer5.client().request(&c5, &mut FailingRng).err(), Some(Error::Rng(RngCode::UNKNOWN)));
    assert_eq!(client2.request(&c2, &mut FailingRng).err(), Some(Error::Rng(RngCode::UNKNOWN)));
}

/// Type 0x0003 draws seven times; the last draw is the ECDSA hedge, which
/// goes through the `ecdsa` crate, whose error drops the generator's.
#[test]
fn codes_survive_a_rate_limited_request() {
    let mut rng = pat_testkit::TestRng::new(2);
    let issuer = t3::Issuer::new(
        EncapSecretKey::derive(1, &[7; 32]),
        t3::TokenKey::from_pkcs8_pem(&rsa_pem()).unwrap(),
        [t3::OriginKey::new(b"origin.example", ecdsa::SecretKey::random(&mut rng).unwrap())],
    );
    let client =
        t3::Client::new(ecdsa::SecretKey::random(&mut rng).unwrap(), *issuer.encap_key(), issuer.public_key().clone());
    let challenge = TokenChallenge::new(3, b"issuer.example", &[], b"origin.example").unwrap();
    let mut out = [0u8; 520];
    for ok in 0..7 {
        let mut failing = FailAfter { ok, code: 0xbeef };
        let result = client.request(&challenge, b"origin.example", &mut failing, &mut out);
        assert_eq!(result.err(), Some(Error::Rng(RngCode::new(0xbeef))), "failure at draw {ok}");
        assert_eq!(out, [0; 520], "nothing of a failed request is left in the buffer");
    }
    let mut enough = FailAfter { ok: 7, code: 0xbeef };
    let (len, _) = client.request(&challenge, b"origin.example", &mut enough, &mut out).unwrap();
    assert_eq!(len, 520);
    // The issuer draws once, for the response nonce.
    let request = t3::TokenRequest::decode(&out).unwrap();
    let mut scratch = [0u8; 512];
    let result = issuer.evaluate(&request, &mut scratch, &mut FailAfter::now(0xbeef));
    assert_eq!(result.err(), Some(Error::Rng(RngCode::new(0xbeef))));
}

/// Sampling that never succeeds reports `RngCode::EXHAUSTED`.
#[test]
fn stuck_generators_are_exhausted() {
    /// Every byte is `self.0`.
    struct Constant(u8);
    impl TryRng for Constant {
        type Error = core::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(u32::from_le_bytes([self.0; 4]))
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            Ok(u64::from_le_bytes([self.0; 8]))
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            dst.fill(self.0);
            Ok(())
        }
    }
    impl TryCryptoRng for Constant {}

    let exhausted = Some(Error::Rng(RngCode::EXHAUSTED));
    // 0xff… is never below the RSA modulus; zero is never a valid scalar.
    let c2 = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let client2 = public::Client::from_token_key(&public::Issuer::new(rsa_secret_key()).token_key()).unwrap();
    assert_eq!(client2.request(&c2, &mut Constant(0xff)).err(), exhausted);
    assert_eq!(private::Issuer::<PrivateRistretto255>::generate(&mut Constant(0)).err(), exhausted);
    assert_eq!(ecdsa::SecretKey::random(&mut Constant(0)).err(), exhausted);
    assert_eq!(ecdsa::SecretKey::random(&mut Constant(0xff)).err(), exhausted);
}

#[test]
fn codes_display() {
    assert_eq!(Error::Rng(CODE).to_string(), "random number generator failed (code 0x00001234)");
    assert_eq!(Error::Rng(RngCode::UNKNOWN).to_string(), "random number generator failed (code 0xffffffff)");
    assert_eq!(CODE.to_string(), "RNG error code 0x00001234");
    assert_eq!(RngCode::EXHAUSTED.to_string(), "RNG output rejected too often");
    assert_eq!(CODE.get(), 0x1234);
    let as_error: &dyn core::error::Error = &CODE;
    assert_eq!(as_error.to_string(), "RNG error code 0x00001234");
}
