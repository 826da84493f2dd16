//! A hardware TRNG for `pat`: wrap a HAL driver that implements the older
//! `rand_core` 0.6 traits (`RngCore + CryptoRng`, as most embedded HALs do)
//! into the `rand_core` 0.10 `TryRng + TryCryptoRng` that `pat` takes,
//! keeping the driver's error code.
//!
//! ```text
//! cargo run --example rng_adapter
//! ```
//!
//! The driver here is a stand-in (its output is not random). The adapter,
//! [`Rng06`], is what a firmware copies. `tests/rng.rs` runs this `main`.

use core::num::NonZeroU32;

use pat::rand_core::{TryCryptoRng, TryRng, utils};
use pat::tokens::private::{Client, Issuer};
use pat::wire::token_type::PrivateRistretto255;
use pat::{Error, RngCode, TokenChallenge};

// ---- the adapter -------------------------------------------------------------

/// A `rand_core` 0.6 generator as a `rand_core` 0.10 one. A driver error
/// becomes an [`RngCode`] with the driver's code, which `pat` reports as
/// `Error::Rng(code)`.
///
/// Every draw goes through the driver's fallible `try_fill_bytes`: its
/// infallible `next_u32`, `next_u64` and `fill_bytes` panic on a failure in
/// many HALs.
pub struct Rng06<R>(pub R);

impl<R: rand_core_06::RngCore + rand_core_06::CryptoRng> TryRng for Rng06<R> {
    type Error = RngCode;

    fn try_next_u32(&mut self) -> Result<u32, RngCode> {
        utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, RngCode> {
        utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngCode> {
        // Without its `std` feature, a rand_core 0.6 error is a non-zero code.
        self.0.try_fill_bytes(dst).map_err(|e| e.code().map_or(RngCode::UNKNOWN, |c| RngCode::new(c.get())))
    }
}

/// The driver promises cryptographic quality (`rand_core_06::CryptoRng`),
/// so the adapter passes the promise on.
impl<R: rand_core_06::RngCore + rand_core_06::CryptoRng> TryCryptoRng for Rng06<R> {}

// ---- a stand-in for the HAL's driver -----------------------------------------

/// The code the stand-in driver fails with, in rand_core 0.6's range for
/// custom codes (a real driver documents its own).
pub const SEED_ERROR: NonZeroU32 = match NonZeroU32::new(rand_core_06::Error::CUSTOM_START + 0x1234) {
    Some(code) => code,
    None => NonZeroU32::MAX,
};

/// A TRNG driver as a HAL ships it: `rand_core` 0.6 `RngCore + CryptoRng`.
/// Its output is splitmix64 of a counter, **not random**; after
/// [`HalTrng::fail`] every draw fails with [`SEED_ERROR`], as a TRNG that
/// lost its entropy source does.
pub struct HalTrng {
    state: u64,
    failed: bool,
}

impl HalTrng {
    /// A working driver.
    pub const fn new(seed: u64) -> Self {
        Self { state: seed, failed: false }
    }

    /// From now on every draw fails.
    pub fn fail(&mut self) {
        self.failed = true;
    }
}

impl rand_core_06::RngCore for HalTrng {
    fn next_u32(&mut self) -> u32 {
        rand_core_06::impls::next_u32_via_fill(self)
    }

    fn next_u64(&mut self) -> u64 {
        rand_core_06::impls::next_u64_via_fill(self)
    }

    // The infallible call of many HALs: it panics on a failure. The adapter
    // never calls it.
    #[allow(clippy::panic)]
    fn fill_bytes(&mut self, dst: &mut [u8]) {
        if let Err(e) = self.try_fill_bytes(dst) {
            panic!("TRNG failure: {e}");
        }
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), rand_core_06::Error> {
        if self.failed {
            return Err(rand_core_06::Error::from(SEED_ERROR));
        }
        for chunk in dst.chunks_mut(8) {
            self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            let word = (z ^ (z >> 31)).to_le_bytes();
            chunk.copy_from_slice(word.get(..chunk.len()).unwrap_or_default());
        }
        Ok(())
    }
}

impl rand_core_06::CryptoRng for HalTrng {}

// ---- a firmware's use --------------------------------------------------------

/// A type 0x0005 request with the working driver, then with the failing one.
pub fn main() -> Result<(), Error> {
    let mut trng = Rng06(HalTrng::new(0x5eed));
    // The issuer's side, here only to have a key and a response.
    let issuer = Issuer::<PrivateRistretto255>::generate(&mut trng)?;
    let client = Client::<PrivateRistretto255>::from_token_key(issuer.token_key())?;
    let challenge = TokenChallenge::new(0x0005, b"issuer.example", &[], b"origin.example")?;

    let (request, mut state) = client.request(&challenge, &mut trng)?;
    let response = issuer.evaluate(&request, &mut trng)?;
    client.finalize(&mut state, &response)?;
    println!("working TRNG: request and token made");

    trng.0.fail();
    let error = client.request(&challenge, &mut trng).err();
    if let Some(e) = error {
        println!("failing TRNG: {e}");
    }
    assert_eq!(error, Some(Error::Rng(RngCode::new(SEED_ERROR.get()))));
    assert_eq!(SEED_ERROR.get(), 0xc000_1234);
    Ok(())
}
