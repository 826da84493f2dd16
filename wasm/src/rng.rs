//! Randomness from the Web Crypto API's `crypto.getRandomValues`, which
//! browsers, workers and Node (≥ 19, as a global) all provide.
//!
//! [`Generator`] adapts a byte [`Source`] to the library's
//! `TryCryptoRng`: every draw is filled by the source in pieces of at most
//! [`MAX_DRAW`] bytes (the Web Crypto limit per call), and a failure becomes
//! the library's `Error::Rng` with the code [`SOURCE_FAILED`], never a panic.
//! The generator keeps the source's first failure (for `getRandomValues`,
//! the JavaScript exception) so that [`with_web_crypto`] can attach it to the
//! thrown error as its `cause`.

use pat::RngCode;
use pat::rand_core::{TryCryptoRng, TryRng};
use wasm_bindgen::prelude::*;

use crate::error;

#[wasm_bindgen]
extern "C" {
    /// `crypto.getRandomValues(dest)`, looked up on every call; an exception
    /// (no `crypto` global, a replaced or failing implementation) comes back
    /// as `Err`.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn get_random_values(dest: &mut [u8]) -> Result<(), JsValue>;
}

/// The most bytes one `getRandomValues` call may fill (Web Crypto API §10.1.1).
pub const MAX_DRAW: usize = 65_536;

/// The `RngCode` of an operation whose random source failed: the source's
/// own error (for `getRandomValues`, the exception) is the thrown error's
/// `cause`.
pub const SOURCE_FAILED: RngCode = RngCode::new(1);

/// Something that fills buffers with cryptographically secure random bytes.
pub trait Source {
    /// What a failed fill reports.
    type Failure;

    /// Fills `dest` (at most [`MAX_DRAW`] bytes) entirely, or fails.
    fn fill(&mut self, dest: &mut [u8]) -> Result<(), Self::Failure>;
}

/// `crypto.getRandomValues`.
#[derive(Debug, Default)]
pub struct GetRandomValues;

impl Source for GetRandomValues {
    type Failure = JsValue;

    fn fill(&mut self, dest: &mut [u8]) -> Result<(), JsValue> {
        get_random_values(dest)
    }
}

/// The library's generator over a [`Source`]; see the module documentation.
#[derive(Debug, Default)]
pub struct Generator<S: Source> {
    source: S,
    failure: Option<S::Failure>,
}

impl<S: Source> Generator<S> {
    /// A generator drawing from `source`.
    pub fn new(source: S) -> Self {
        Self { source, failure: None }
    }

    /// The first failure of the source, if it failed.
    pub fn take_failure(&mut self) -> Option<S::Failure> {
        self.failure.take()
    }
}

impl<S: Source> TryRng for Generator<S> {
    type Error = RngCode;

    fn try_next_u32(&mut self) -> Result<u32, RngCode> {
        pat::rand_core::utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, RngCode> {
        pat::rand_core::utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngCode> {
        for piece in dst.chunks_mut(MAX_DRAW) {
            if let Err(failure) = self.source.fill(piece) {
                self.failure.get_or_insert(failure);
                return Err(SOURCE_FAILED);
            }
        }
        Ok(())
    }
}

/// A `Source` is cryptographically secure by its contract.
impl<S: Source> TryCryptoRng for Generator<S> {}

/// Runs `op` with a generator over `crypto.getRandomValues` and turns its
/// error into the thrown JavaScript error; an RNG error caused by an
/// exception carries it as `cause`.
pub fn with_web_crypto<T>(op: impl FnOnce(&mut Generator<GetRandomValues>) -> pat::Result<T>) -> Result<T, JsValue> {
    let mut rng = Generator::new(GetRandomValues);
    op(&mut rng).map_err(|e| {
        let cause = match e {
            pat::Error::Rng(_) => rng.take_failure(),
            _ => None,
        };
        error::to_js(e, cause)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Counts the bytes and calls it was asked for; fails from call `fail_at` on.
    struct Counting {
        calls: usize,
        sizes: Vec<usize>,
        fail_at: usize,
    }

    impl Source for Counting {
        type Failure = &'static str;

        fn fill(&mut self, dest: &mut [u8]) -> Result<(), &'static str> {
            self.calls += 1;
            if self.calls >= self.fail_at {
                return Err("source failed");
            }
            self.sizes.push(dest.len());
            dest.fill(0xa5);
            Ok(())
        }
    }

    #[test]
    fn draws_are_split_at_the_web_crypto_limit() {
        let mut g = Generator::new(Counting { calls: 0, sizes: Vec::new(), fail_at: usize::MAX });
        let mut big = vec![0u8; 2 * MAX_DRAW + 5];
        g.try_fill_bytes(&mut big).unwrap();
        assert_eq!(g.source.sizes, [MAX_DRAW, MAX_DRAW, 5]);
        assert!(big.iter().all(|&b| b == 0xa5));
        assert_eq!(g.try_next_u32().unwrap(), 0xa5a5_a5a5);
        assert_eq!(g.try_next_u64().unwrap(), 0xa5a5_a5a5_a5a5_a5a5);
        assert!(g.take_failure().is_none());
    }

    #[test]
    fn a_failure_is_an_error_with_the_first_cause_kept() {
        let mut g = Generator::new(Counting { calls: 0, sizes: Vec::new(), fail_at: 2 });
        let mut buf = vec![0u8; MAX_DRAW + 1];
        assert_eq!(g.try_fill_bytes(&mut buf), Err(SOURCE_FAILED));
        assert_eq!(g.try_next_u32(), Err(SOURCE_FAILED));
        assert_eq!(g.take_failure(), Some("source failed"));
        assert_eq!(g.take_failure(), None);
    }

    #[test]
    fn the_library_reports_the_code() {
        // An operation that draws randomness passes the code through as Error::Rng.
        let mut g = Generator::new(Counting { calls: 0, sizes: Vec::new(), fail_at: 1 });
        let issuer = pat::tokens::private::Issuer::<pat::wire::token_type::PrivateRistretto255>::generate(&mut g);
        assert_eq!(issuer.err(), Some(pat::Error::Rng(SOURCE_FAILED)));
    }
}
