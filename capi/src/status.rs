//! Status codes: what every function returns, and how to read it.
//!
//! A negative return value is an error code `-(kind + 256 × detail)`
//! (`pat::Error::code`): `kind` names the library's error variant
//! ([`PAT_E_TRUNCATED`] to [`PAT_E_REPLAY_WINDOW_EXPIRED`], one per variant) and
//! `detail` what it carries (a field, a token type, an RNG code). Kinds from
//! 100 up are faults of the call that the library cannot have: a NULL
//! pointer, overlapping buffers, a misaligned struct. [`pat_error_kind`],
//! [`pat_error_detail`] and [`pat_error_message`] take a code apart.
//!
//! The numbers themselves live in a module of their own that imports
//! nothing of this crate (the call machinery needs them too); they are
//! re-exported here, their public home.

use core::ffi::c_char;

use pat::Error;

use crate::call::{Out, call};
pub use crate::codes::*;
use crate::ffi::Fail;

/// The call faults of this API (kinds from 100), by their code.
fn call_fault(code: i32) -> Option<Fail> {
    [Fail::Null, Fail::Overlap, Fail::Misaligned, Fail::AddressRange].into_iter().find(|f| f.code() == code)
}

/// The kind of a status code: `PAT_OK` (0) for success or any non-negative
/// count, else one of the `PAT_E_*` numbers (positive), or -1 for a negative
/// value that is no code of this library.
#[unsafe(no_mangle)]
pub extern "C" fn pat_error_kind(code: i32) -> i32 {
    if code >= 0 {
        return PAT_OK;
    }
    if let Some(e) = Error::from_code(code) {
        return i32::from(e.kind_code());
    }
    match call_fault(code) {
        Some(f) => -f.code(),
        None => -1,
    }
}

/// The detail of an error code (a `PAT_FIELD_*`, a token type, an RNG code,
/// ...; see each `PAT_E_*`), or 0 when it carries none or is no code of
/// this library.
#[unsafe(no_mangle)]
pub extern "C" fn pat_error_detail(code: i32) -> u32 {
    Error::from_code(code).map_or(0, Error::detail)
}

/// A one-line English description of `code`, without secrets, written into
/// `out` (`out_cap` bytes) and NUL-terminated. Returns its length without
/// the NUL, or `-PAT_E_BUFFER_TOO_SMALL` (then `out` is all zeros:
/// `PAT_ERROR_MESSAGE_SIZE` bytes are always enough), `-PAT_E_NULL_POINTER`
/// or `-PAT_E_ADDRESS_RANGE`.
///
/// # Safety
/// `out` points to `out_cap` writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn pat_error_message(code: i32, out: *mut c_char, out_cap: usize) -> i32 {
    // A required output: `call` refuses a NULL `out` even with `out_cap` 0
    // (the text always has its NUL), so that is `-PAT_E_NULL_POINTER`, not
    // `-PAT_E_BUFFER_TOO_SMALL`.
    let out = Out::wiped(out.cast::<u8>(), out_cap).required();
    // SAFETY: the caller's contract for this buffer. On a failure `call`
    // zeroes it: no unterminated partial text for a caller who ignores it.
    unsafe { call([], [out], |[], [buf]| message(code, buf).map_err(Fail::from)) }
}

/// The message of `code` into `buf`, NUL-terminated.
pub(crate) fn message(code: i32, buf: &mut [u8]) -> Result<usize, Error> {
    use core::fmt::Write as _;
    let mut w = Cursor { buf, len: 0 };
    let written = if code >= 0 {
        w.write_str("success")
    } else if let Some(e) = Error::from_code(code) {
        write!(w, "{e}")
    } else {
        w.write_str(match call_fault(code) {
            Some(Fail::Null) => "a required pointer is NULL",
            Some(Fail::Overlap) => "an output buffer overlaps another buffer",
            Some(Fail::Misaligned) => "a pointer is not aligned for its type",
            Some(Fail::AddressRange) => "a buffer runs past the end of the address space",
            _ => "not a pat status code",
        })
    };
    let Cursor { buf, len } = w;
    written.map_err(|_| Error::BufferTooSmall)?;
    *buf.get_mut(len).ok_or(Error::BufferTooSmall)? = 0;
    Ok(len)
}

/// A `fmt::Write` into a byte buffer that fails when it is full (one byte is
/// kept for the NUL).
struct Cursor<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl core::fmt::Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> core::fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(core::fmt::Error)?;
        if end >= self.buf.len() {
            return Err(core::fmt::Error);
        }
        self.buf.get_mut(self.len..end).ok_or(core::fmt::Error)?.copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use core::ptr;

    use super::*;

    /// `pat_error_message`'s contract at the edges of its one buffer, as it
    /// was before it went through `call`: a NULL `out` is refused whatever
    /// its capacity, an impossible capacity is refused without a write, a
    /// short buffer is left all zeros, and the text fits when it and its
    /// NUL do.
    #[test]
    fn message_buffer_edges() {
        // SAFETY: each call below passes NULL, or `buf` with at most its 8
        // bytes, except the one with `usize::MAX`, which `call` refuses
        // before any access (out of range, so never written or read).
        let message = |code, out: *mut u8, cap| unsafe { pat_error_message(code, out.cast::<c_char>(), cap) };
        assert_eq!(message(0, ptr::null_mut(), 0), -PAT_E_NULL_POINTER);
        assert_eq!(message(0, ptr::null_mut(), 8), -PAT_E_NULL_POINTER);

        let mut buf = [0xAAu8; 8];
        assert_eq!(message(0, buf.as_mut_ptr(), 0), -PAT_E_BUFFER_TOO_SMALL);
        assert_eq!(buf, [0xAA; 8]);
        assert_eq!(message(0, buf.as_mut_ptr(), usize::MAX), -PAT_E_ADDRESS_RANGE);
        assert_eq!(buf, [0xAA; 8], "a refused buffer is not written");

        // "success" is 7 bytes: 7 are too few (no room for the NUL), 8 fit.
        assert_eq!(message(0, buf.as_mut_ptr(), 7), -PAT_E_BUFFER_TOO_SMALL);
        assert_eq!(buf, [0, 0, 0, 0, 0, 0, 0, 0xAA], "no unterminated partial text");
        assert_eq!(message(0, buf.as_mut_ptr(), 8), 7);
        assert_eq!(&buf, b"success\0");
    }
}
