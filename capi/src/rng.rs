//! The caller's randomness callback as a `rand_core` generator.

use core::ffi::c_void;

use pat::RngCode;
use pat::rand_core::{TryCryptoRng, TryRng};

use crate::ffi::Fail;

/// The randomness callback: fills `buf` with `len` bytes from a
/// cryptographically secure generator (a hardware TRNG, a DRBG seeded from
/// one, `getrandom`) and returns 0, or returns a non-zero status code (the
/// bytes are then discarded). It writes nowhere but `buf[0..len]`, keeps no
/// pointer to it, does not call into this library, and returns normally.
/// `ctx` is the pointer the caller passed along with the callback. A code
/// from 1 to 0x7FFFFC reaches the caller as the detail of `PAT_E_RNG`;
/// others (negative ones included) are reported as `PAT_RNG_UNKNOWN`. It may
/// be called several times per operation, with `len` up to 256.
#[allow(non_camel_case_types)]
pub type pat_rng_fn = Option<unsafe extern "C" fn(ctx: *mut c_void, buf: *mut u8, len: usize) -> i32>;

/// The callback with its context, as a `TryCryptoRng` whose errors are the
/// library's [`RngCode`].
pub(crate) struct CallbackRng {
    fill: unsafe extern "C" fn(*mut c_void, *mut u8, usize) -> i32,
    ctx: *mut c_void,
}

impl CallbackRng {
    /// The generator of `fill` and `ctx`; a NULL callback is [`Fail::Null`].
    pub(crate) fn new(fill: pat_rng_fn, ctx: *mut c_void) -> Result<Self, Fail> {
        Ok(Self { fill: fill.ok_or(Fail::Null)?, ctx })
    }
}

impl TryRng for CallbackRng {
    type Error = RngCode;

    fn try_next_u32(&mut self) -> Result<u32, RngCode> {
        pat::rand_core::utils::next_word_via_fill(self)
    }

    fn try_next_u64(&mut self) -> Result<u64, RngCode> {
        pat::rand_core::utils::next_word_via_fill(self)
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), RngCode> {
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: `dst` is a live, writable buffer of `dst.len()` bytes that
        // nothing else accesses during the call; the callback's contract is
        // to write at most `len` bytes there and keep no pointer to it.
        let rc = unsafe { (self.fill)(self.ctx, dst.as_mut_ptr(), dst.len()) };
        match rc {
            0 => Ok(()),
            // Codes the integer form carries as they are (pat::Error::code).
            1..=0x7F_FFFC => Err(RngCode::new(rc.unsigned_abs())),
            _ => Err(RngCode::UNKNOWN),
        }
    }
}

impl TryCryptoRng for CallbackRng {}
