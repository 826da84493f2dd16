//! Where ARC's random scalars come from.
//!
//! The protocol draws two kinds: `RandomScalar` values of the protocol
//! (keys, client secrets, blinds) and the nonces of the sigma proofs. Both
//! come from a [`ScalarSource`]: [`FromRng`] over the caller's generator in
//! every normal entry point, or the sigma-protocols draft's test generator
//! ([`TestDrng`](super::deterministic::TestDrng), `hazmat` only) that the published
//! vectors were made with. The vectors list the protocol scalars but not the
//! proof nonces, so reproducing their proofs byte for byte needs the same
//! generator drawn in the same order; nothing else depends on draw order.

use p256::Scalar;
use p256::elliptic_curve::Field;
use rand_core::TryCryptoRng;
use zeroize::Zeroize;

use super::group::reduce_wide;
use crate::error::{Error, Result, RngCode};

pub(crate) mod sealed {
    pub trait Sealed {}
}

/// A source of ARC's random scalars (sealed: [`FromRng`], or the `hazmat`
/// test generator).
pub(crate) trait ScalarSource: sealed::Sealed {
    /// `G.RandomScalar()` of the protocol: uniform in [1, n − 1] from
    /// [`FromRng`]; the test generator follows the reference code (below
    /// n − 1, zero included).
    #[doc(hidden)]
    fn random_scalar(&mut self) -> Result<Scalar>;
    /// A sigma-proof nonce (`rng.random_scalar()` of the sigma draft).
    #[doc(hidden)]
    fn proof_nonce(&mut self) -> Result<Scalar>;
}

/// The caller's cryptographic generator as a [`ScalarSource`]: 48 bytes
/// reduced modulo n (statistical distance 2^-128 from uniform, the draft's
/// "extra random bits" method, §6.2.2), redrawn in the 2^-256 event of zero.
/// A generator that gives zero [`MAX_DRAWS`] times in a row is stuck (a
/// driver that fills nothing): [`Error::Rng`] with [`RngCode::EXHAUSTED`],
/// as every other sampler of the library answers.
pub(crate) struct FromRng<'a, R: ?Sized>(pub(crate) &'a mut R);

/// Draws before [`FromRng`] gives up: an honest generator needs a second
/// one with probability 2^-256.
const MAX_DRAWS: usize = 64;

impl<R: TryCryptoRng<Error: 'static> + ?Sized> FromRng<'_, R> {
    fn draw(&mut self) -> Result<Scalar> {
        for _ in 0..MAX_DRAWS {
            let mut wide = [0u8; 48];
            crate::rng::fill(self.0, &mut wide)?;
            let s = reduce_wide(&wide);
            wide.zeroize();
            let mut zero = s.is_zero();
            crate::ct::declassify(&mut zero);
            if !bool::from(zero) {
                return Ok(s);
            }
        }
        Err(Error::Rng(RngCode::EXHAUSTED))
    }
}

impl<R: ?Sized> sealed::Sealed for FromRng<'_, R> {}

impl<R: TryCryptoRng<Error: 'static> + ?Sized> ScalarSource for FromRng<'_, R> {
    fn random_scalar(&mut self) -> Result<Scalar> {
        self.draw()
    }
    fn proof_nonce(&mut self) -> Result<Scalar> {
        self.draw()
    }
}
