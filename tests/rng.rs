//! The random number generator seen from the library: a failure keeps its
//! code ([`Error::Rng`]), the adapter example of `examples/rng_adapter.rs`
//! runs, and every operation draws exactly the number of bytes that
//! docs/embedded.md lists.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core
)]

use pat::crypto::blind_rsa::SecretKey;
use pat::crypto::key_blinding::ecdsa_p384 as ecdsa;
use pat::crypto::rate_limited::encap::EncapSecretKey;
use pat::rand_core::{TryCryptoRng, TryRng};
use pat::tokens::batched::{self, BatchState, GenericBatchTokenRequest};
use pat::tokens::{amortized, private, public, rate_limited as t3};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
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
    // A generator stuck at zero fails every request at its nonce, before
    // anything is blinded with what it gives (type 0x0001 would otherwise
    // reduce the zeros to the blind 1).
    let c1 = TokenChallenge::new(1, b"issuer.example", &[], &[]).unwrap();
    let client1 = private::Issuer::<PrivateP384>::derive(b"a stuck generator", b"").unwrap().client();
    assert_eq!(client1.request(&c1, &mut Constant(0)).err(), exhausted);
    assert_eq!(client2.request(&c2, &mut Constant(0)).err(), exhausted);
    // One non-zero byte is a nonce like any other.
    assert!(client1.request(&c1, &mut Constant(1)).is_ok());
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

// ---- how many bytes each operation draws ------------------------------------

/// Records the length of every `try_fill_bytes` draw and counts word draws
/// (`try_next_u32`, `try_next_u64`). Fills with 0x5a, which no sampler
/// rejects (it is below every RSA-2048 modulus and every group order), except
/// that the first `bad` draws of `bad_len` bytes get `bad_byte`, to force
/// retries.
struct CountingRng {
    draws: Vec<usize>,
    words: usize,
    bad_len: usize,
    bad_byte: u8,
    bad: usize,
}

impl CountingRng {
    fn new() -> Self {
        Self::rejecting(0, 0, 0)
    }

    /// The first `bad` draws of `len` bytes are all `byte`.
    fn rejecting(len: usize, byte: u8, bad: usize) -> Self {
        Self { draws: Vec::new(), words: 0, bad_len: len, bad_byte: byte, bad }
    }

    /// The lengths of the draws so far; starts a new record.
    fn take(&mut self) -> Vec<usize> {
        core::mem::take(&mut self.draws)
    }

    /// The number of bytes drawn so far; starts a new record.
    fn take_bytes(&mut self) -> usize {
        self.take().iter().sum()
    }
}

impl TryRng for CountingRng {
    type Error = core::convert::Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        self.words += 1;
        Ok(0x5a5a_5a5a)
    }

    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        self.words += 1;
        Ok(0x5a5a_5a5a_5a5a_5a5a)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        self.draws.push(dst.len());
        if self.bad > 0 && dst.len() == self.bad_len {
            self.bad -= 1;
            dst.fill(self.bad_byte);
        } else {
            dst.fill(0x5a);
        }
        Ok(())
    }
}

impl TryCryptoRng for CountingRng {}

/// The table of docs/embedded.md ("Random bytes per operation"), measured.
#[test]
fn random_bytes_per_operation() {
    let mut count = CountingRng::new();
    let mut rng = pat_testkit::TestRng::new(3);

    // Key generation.
    let issuer1 = private::Issuer::<PrivateP384>::generate(&mut count).unwrap();
    assert_eq!(count.take(), [48], "type 1 issuer key");
    let issuer5 = private::Issuer::<PrivateRistretto255>::generate(&mut count).unwrap();
    assert_eq!(count.take(), [64], "type 5 issuer key");
    ecdsa::SecretKey::random(&mut count).unwrap();
    assert_eq!(count.take(), [48], "ECDSA P-384 key (type 3 client and origin keys)");
    EncapSecretKey::random(1, &mut count).unwrap();
    assert_eq!(count.take(), [32], "type 3 issuer encapsulation key");

    // Type 0x0001.
    let c1 = TokenChallenge::new(1, b"issuer.example", &[], &[]).unwrap();
    let (req1, _) = issuer1.client().request(&c1, &mut count).unwrap();
    assert_eq!(count.take(), [32, 48], "type 1 request: nonce, blind");
    issuer1.evaluate(&req1, &mut count).unwrap();
    assert_eq!(count.take(), [48], "type 1 evaluate: proof scalar");

    // Type 0x0005.
    let c5 = TokenChallenge::new(5, b"issuer.example", &[], &[]).unwrap();
    let (req5, _) = issuer5.client().request(&c5, &mut count).unwrap();
    assert_eq!(count.take(), [32, 64], "type 5 request: nonce, blind");
    issuer5.evaluate(&req5, &mut count).unwrap();
    assert_eq!(count.take(), [64], "type 5 evaluate: proof scalar");

    // Type 0x0002 (its issuer draws nothing).
    let c2 = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let issuer2 = public::Issuer::new(rsa_secret_key());
    let client2 = public::Client::from_token_key(&issuer2.token_key()).unwrap();
    let (req2, _) = client2.request(&c2, &mut count).unwrap();
    assert_eq!(count.take(), [32, 48, 256, 256], "type 2 request: nonce, salt, r, u");
    issuer2.evaluate(&req2).unwrap();

    // Type 0x0003.
    let issuer3 = t3::Issuer::new(
        EncapSecretKey::derive(1, &[7; 32]),
        t3::TokenKey::from_pkcs8_pem(&rsa_pem()).unwrap(),
        [t3::OriginKey::new(b"origin.example", ecdsa::SecretKey::random(&mut rng).unwrap())],
    );
    let client3 = t3::Client::new(
        ecdsa::SecretKey::random(&mut rng).unwrap(),
        *issuer3.encap_key(),
        issuer3.public_key().clone(),
    );
    let c3 = TokenChallenge::new(3, b"issuer.example", &[], b"origin.example").unwrap();
    let mut out = [0u8; 520];
    let (_, state3) = client3.request(&c3, b"origin.example", &mut count, &mut out).unwrap();
    // Nonce, salt, r, u, request_blind, the HPKE key seed, the ECDSA hedge.
    assert_eq!(count.take(), [32, 48, 256, 256, 48, 32, 48], "type 3 request");
    let req3 = t3::TokenRequest::decode(&out).unwrap();
    // The attester draws nothing (it takes no generator).
    let mut attester = t3::Attester::<4>::new(t3::Policy { max_tokens: 3, window: 3600 });
    attester.process(&req3, client3.client_key(), state3.request_blind(), &[1; 32], 0).unwrap();
    let resp3 = issuer3.evaluate(&req3, &mut [0u8; 512], &mut count).unwrap();
    assert_eq!(count.take(), [16], "type 3 evaluate: response nonce");
    attester
        .finalize_index(client3.client_key(), state3.request_blind(), &resp3.blinded_request_key, &[1; 32], 0)
        .unwrap();

    // Amortized batches of 3: per token a nonce and a blind; one proof scalar.
    let state = issuer1.client().request_batch::<3, _>(&c1, 3, &mut count).unwrap();
    assert_eq!(count.take(), [32, 48].repeat(3), "amortized type 1 request, 3 tokens");
    let mut bytes = [0u8; 400];
    let len = state.request().encode(&mut bytes).unwrap();
    let parsed = amortized::AmortizedTokenRequest::<PrivateP384>::decode(&bytes[..len]).unwrap();
    issuer1.evaluate_batch::<3, _>(&parsed, &mut [0u8; 300], &mut count).unwrap();
    assert_eq!(count.take(), [48], "amortized type 1 evaluate, 3 tokens");
    let state = issuer5.client().request_batch::<3, _>(&c5, 3, &mut count).unwrap();
    assert_eq!(count.take(), [32, 64].repeat(3), "amortized type 5 request, 3 tokens");
    let len = state.request().encode(&mut bytes).unwrap();
    let parsed = amortized::AmortizedTokenRequest::<PrivateRistretto255>::decode(&bytes[..len]).unwrap();
    issuer5.evaluate_batch::<3, _>(&parsed, &mut [0u8; 300], &mut count).unwrap();
    assert_eq!(count.take(), [64], "amortized type 5 evaluate, 3 tokens");

    // A generic batch of types 1, 2, 5: the entries' requests are made by the
    // per-type clients above; the issuer draws for the VOPRF entries only.
    let p384 = [issuer1];
    let r255 = [issuer5];
    let rsa = [issuer2];
    let batch_issuer = batched::Issuer::new(&p384, &rsa, &r255).unwrap();
    let (client1, client5) = (p384[0].client(), r255[0].client());
    let mut batch = BatchState::<3>::new();
    batch.push(&client1, client1.request(&c1, &mut count).unwrap()).unwrap();
    batch.push(&client2, client2.request(&c2, &mut count).unwrap()).unwrap();
    batch.push(&client5, client5.request(&c5, &mut count).unwrap()).unwrap();
    assert_eq!(count.take(), [32, 48, 32, 48, 256, 256, 32, 64], "generic batch request");
    let len = batch.request().encode(&mut bytes).unwrap();
    let parsed = GenericBatchTokenRequest::decode(&bytes[..len]).unwrap();
    batch_issuer.evaluate::<3, _>(&parsed, &mut [0u8; 600], &mut count).unwrap();
    assert_eq!(count.take(), [48, 64], "generic batch evaluate");
    // Every draw was a `try_fill_bytes`.
    assert_eq!(count.words, 0);
}

/// Each rejected candidate costs one more draw of its size.
#[test]
fn random_bytes_per_retry() {
    let c2 = TokenChallenge::new(2, b"issuer.example", &[], &[]).unwrap();
    let client2 = public::Client::from_token_key(&public::Issuer::new(rsa_secret_key()).token_key()).unwrap();
    for bad in [1, 2, 5] {
        // 0xff… is above the modulus: the blind sampler draws again.
        let mut count = CountingRng::rejecting(256, 0xff, bad);
        client2.request(&c2, &mut count).unwrap();
        assert_eq!(count.take_bytes(), 592 + 256 * bad, "type 2 request, {bad} rejected candidates");
    }
    // Zero is not a scalar: ristretto255 and ECDSA key sampling draw again.
    let mut count = CountingRng::rejecting(64, 0, 2);
    let issuer5 = private::Issuer::<PrivateRistretto255>::generate(&mut count).unwrap();
    assert_eq!(count.take(), [64, 64, 64]);
    let c5 = TokenChallenge::new(5, b"issuer.example", &[], &[]).unwrap();
    let mut count = CountingRng::rejecting(64, 0, 1);
    issuer5.client().request(&c5, &mut count).unwrap();
    assert_eq!(count.take(), [32, 64, 64], "type 5 request, one zero blind");
    let mut count = CountingRng::rejecting(48, 0, 3);
    ecdsa::SecretKey::random(&mut count).unwrap();
    assert_eq!(count.take(), [48, 48, 48, 48]);
    // P-384 VOPRF scalars are reduced, never rejected: zero bytes cost nothing more.
    let mut count = CountingRng::rejecting(48, 0, 3);
    private::Issuer::<PrivateP384>::generate(&mut count).unwrap();
    assert_eq!(count.take(), [48]);
}
