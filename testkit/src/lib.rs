//! Deterministic generators for `pat`'s tests, benches and the bare-metal
//! runner. **Not random**: every value follows from the seed, which is what a
//! reproducible test wants and what a real protocol run must never have.
//! Nothing in the library depends on this crate except its tests.
#![no_std]

use core::convert::Infallible;
use core::fmt;

use rand_core::{TryCryptoRng, TryRng};

/// splitmix64 (Steele, Lea and Flood, 2014): a 64-bit state advanced by a
/// constant and mixed on output. Every seed, zero included, gives a full
/// period of 2^64.
///
/// It claims `TryCryptoRng` only so that the library's functions accept it.
#[derive(Clone, Debug)]
pub struct TestRng(u64);

impl TestRng {
    /// The generator for `seed`.
    pub const fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// The next 64-bit output.
    pub const fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A value in `0..n` (`0` for `n = 0`), with the slight bias of a
    /// remainder, which tests do not care about.
    pub fn below(&mut self, n: usize) -> usize {
        let n = u64::try_from(n).unwrap_or(u64::MAX);
        if n == 0 { 0 } else { usize::try_from(self.next() % n).unwrap_or(0) }
    }

    /// An array of outputs.
    pub fn bytes<const N: usize>(&mut self) -> [u8; N] {
        let mut out = [0u8; N];
        self.fill(&mut out);
        out
    }

    /// Fills `dst` with outputs, little-endian.
    pub fn fill(&mut self, dst: &mut [u8]) {
        for chunk in dst.chunks_mut(8) {
            let word = self.next().to_le_bytes();
            chunk.copy_from_slice(word.get(..chunk.len()).unwrap_or_default());
        }
    }
}

impl TryRng for TestRng {
    type Error = Infallible;

    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        Ok((self.next() >> 32) as u32)
    }

    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.next())
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.fill(dst);
        Ok(())
    }
}

impl TryCryptoRng for TestRng {}

/// A generator whose every call fails, to test that a failing RNG surfaces
/// as an error and never as a panic or a weak value.
#[derive(Clone, Copy, Debug, Default)]
pub struct FailingRng;

/// The error of [`FailingRng`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RngFailure;

impl fmt::Display for RngFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the test generator failed on purpose")
    }
}

impl core::error::Error for RngFailure {}

impl TryRng for FailingRng {
    type Error = RngFailure;

    fn try_next_u32(&mut self) -> Result<u32, RngFailure> {
        Err(RngFailure)
    }

    fn try_next_u64(&mut self) -> Result<u64, RngFailure> {
        Err(RngFailure)
    }

    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), RngFailure> {
        Err(RngFailure)
    }
}

impl TryCryptoRng for FailingRng {}

#[cfg(test)]
mod tests {
    use super::TestRng;

    /// splitmix64's published first outputs for seed 0 (the reference
    /// implementation by Vigna, `splitmix64.c`), so that the generator is the
    /// one its documentation names.
    #[test]
    fn splitmix64_reference_outputs() {
        let mut rng = TestRng::new(0);
        assert_eq!(rng.next(), 0xe220_a839_7b1d_cdaf);
        assert_eq!(rng.next(), 0x6e78_9e6a_a1b9_65f4);
        assert_eq!(rng.next(), 0x06c4_5d18_8009_454f);
    }

    #[test]
    fn below_stays_in_range() {
        let mut rng = TestRng::new(9);
        assert!((0..1000).all(|_| rng.below(7) < 7));
        assert_eq!(rng.below(0), 0);
    }
}
