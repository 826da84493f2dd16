//! Drawing from the caller's random number generator.
//!
//! Every draw goes through [`fill`], which turns a failure into
//! [`Error::Rng`] with the code of [`code_of`]. Where the generator is handed
//! to another crate (the `ecdsa` crate's hedged signing), [`KeepCode`] wraps
//! it and remembers the code, since that crate's error does not carry it.

use rand_core::{TryCryptoRng, TryRng};

use crate::error::{Error, Result, RngCode};

/// Fills `buf` from `rng`; a failure is [`Error::Rng`] with its [`code_of`].
pub(crate) fn fill<R: TryCryptoRng<Error: 'static> + ?Sized>(rng: &mut R, buf: &mut [u8]) -> Result<()> {
    rng.try_fill_bytes(buf).map_err(|e| Error::Rng(code_of(&e)))
}

/// The code of a generator's error: an [`RngCode`] as it is; an OS error of
/// `getrandom` (feature `std`) as its error number; anything else
/// [`RngCode::UNKNOWN`].
///
/// The error is recognized through `core::any::Any`, not through
/// `dyn core::error::Error`: a `dyn Error` would keep the error type's
/// `Display` and `Debug` (and with them `core::fmt`) in every firmware that
/// passes a generator with a real error type, some 4 to 8 KB of flash.
pub(crate) fn code_of<E: 'static>(error: &E) -> RngCode {
    let error: &dyn core::any::Any = error;
    if let Some(code) = error.downcast_ref::<RngCode>() {
        return *code;
    }
    #[cfg(feature = "std")]
    if let Some(errno) = error.downcast_ref::<getrandom::Error>().and_then(|e| e.raw_os_error()) {
        return u32::try_from(errno).map_or(RngCode::UNKNOWN, RngCode::new);
    }
    RngCode::UNKNOWN
}

/// A generator that passes every draw on to `rng` and keeps the code of the
/// first failure, for code outside this crate whose error loses it.
pub(crate) struct KeepCode<'a, R: ?Sized> {
    rng: &'a mut R,
    code: Option<RngCode>,
}

impl<'a, R: TryCryptoRng<Error: 'static> + ?Sized> KeepCode<'a, R> {
    pub(crate) fn new(rng: &'a mut R) -> Self {
        Self { rng, code: None }
    }

    /// [`Error::Rng`] with the kept code, or [`RngCode::UNKNOWN`] when the
    /// generator never failed (the caller's operation failed for another
    /// reason it cannot name).
    pub(crate) fn error(&self) -> Error {
        Error::Rng(self.code.unwrap_or(RngCode::UNKNOWN))
    }

    fn keep(&mut self, error: &R::Error) -> RngCode {
        let code = code_of(error);
        self.code.get_or_insert(code);
        code
    }
}

impl<R: TryCryptoRng<Error: 'static> + ?Sized> TryRng for KeepCode<'_, R> {
    type Error = RngCode;

    fn try_next_u32(&mut self) -> core::result::Result<u32, RngCode> {
        self.rng.try_next_u32().map_err(|e| self.keep(&e))
    }

    fn try_next_u64(&mut self) -> core::result::Result<u64, RngCode> {
        self.rng.try_next_u64().map_err(|e| self.keep(&e))
    }

    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> core::result::Result<(), RngCode> {
        self.rng.try_fill_bytes(dst).map_err(|e| self.keep(&e))
    }
}

impl<R: TryCryptoRng<Error: 'static> + ?Sized> TryCryptoRng for KeepCode<'_, R> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_of_errors() {
        assert_eq!(code_of(&RngCode::new(0x1234)), RngCode::new(0x1234));
        assert_eq!(code_of(&RngCode::EXHAUSTED), RngCode::EXHAUSTED);
        assert_eq!(code_of(&core::fmt::Error), RngCode::UNKNOWN);
        // getrandom's own (non-OS) errors carry no OS error number.
        #[cfg(feature = "std")]
        assert_eq!(code_of(&getrandom::Error::new_custom(7)), RngCode::UNKNOWN);
    }
}
