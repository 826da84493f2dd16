//! One way to run an exported function: check the buffers, turn them into
//! slices, run the safe body, and on failure wipe every output buffer so
//! that no partial request, state or token is left behind.

use crate::ffi::{self, Fail, Regions};

/// A writable buffer of a call: where it is, and whether a failure wipes it.
#[derive(Clone, Copy)]
pub(crate) struct Out {
    ptr: *mut u8,
    len: usize,
    wipe_on_error: bool,
}

impl Out {
    /// An output that a failed call leaves zeroed.
    pub(crate) const fn wiped(ptr: *mut u8, len: usize) -> Self {
        Self { ptr, len, wipe_on_error: true }
    }

    /// A buffer read and written by the call that a failure leaves as it
    /// was (a client state, kept for the genuine response).
    pub(crate) const fn kept(ptr: *mut u8, len: usize) -> Self {
        Self { ptr, len, wipe_on_error: false }
    }
}

/// Runs `body` over `N` input and `M` output buffers, after [`Regions`]
/// accepted all of them and whatever `prepare` adds (output objects).
/// Returns the body's count, or the error code; on error the outputs made
/// with [`Out::wiped`] are zeroed.
///
/// # Safety
/// Every buffer is lent by the C caller for this call: inputs readable,
/// outputs writable, as the header states for the function.
pub(crate) unsafe fn call<const N: usize, const M: usize>(
    inputs: [(*const u8, usize); N],
    outputs: [Out; M],
    prepare: impl FnOnce(&mut Regions) -> Result<(), Fail>,
    body: impl FnOnce([&[u8]; N], &mut [&mut [u8]; M]) -> Result<usize, Fail>,
) -> i32 {
    let mut regions = Regions::new();
    let checked = (|| {
        for (ptr, len) in inputs {
            regions.input(ptr, len)?;
        }
        for out in outputs {
            regions.output(out.ptr, out.len)?;
        }
        prepare(&mut regions)?;
        regions.check()
    })();
    // Outputs start zeroed, whether the call runs or is refused (a kept
    // buffer is an input too, and stays as it is).
    for out in outputs.iter().filter(|o| o.wipe_on_error) {
        // SAFETY: the caller lends these bytes as writable; zero_raw skips
        // NULL and impossible ranges.
        unsafe { ffi::zero_raw(out.ptr, out.len) };
    }
    if let Err(f) = checked {
        return f.code();
    }
    // SAFETY: each input passed Regions::input; readable per the contract.
    let ins = inputs.map(|(ptr, len)| unsafe { ffi::read(ptr, len) });
    // SAFETY: each output passed Regions::output and Regions::check (no
    // overlap with any other buffer); zeroed above or, if kept, initialized
    // by the caller; writable per the contract.
    let mut outs = outputs.map(|out| unsafe { ffi::write(out.ptr, out.len) });
    let result = body(ins, &mut outs);
    if result.is_err() {
        for (buf, out) in outs.iter_mut().zip(outputs) {
            if out.wipe_on_error {
                ffi::wipe(buf);
            }
        }
    }
    ffi::status(result)
}

/// The shape of every finalize: the token key and the response in, the
/// client state kept (read, wiped by `body` on success, left as it was on
/// failure), the token out (zeroed on failure).
///
/// # Safety
/// As [`call`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn finalize_call(
    token_key: *const u8,
    token_key_len: usize,
    state: *mut u8,
    state_len: usize,
    response: *const u8,
    response_len: usize,
    token: *mut u8,
    token_cap: usize,
    body: impl FnOnce([&[u8]; 2], &mut [&mut [u8]; 2]) -> Result<usize, Fail>,
) -> i32 {
    // SAFETY: the caller's contract for these buffers, forwarded.
    unsafe {
        call(
            [(token_key, token_key_len), (response, response_len)],
            [Out::kept(state, state_len), Out::wiped(token, token_cap)],
            |_| Ok(()),
            body,
        )
    }
}

/// `buf`'s first `len` bytes, or [`pat::Error::BufferTooSmall`].
pub(crate) fn prefix(buf: &mut [u8], len: usize) -> Result<&mut [u8], Fail> {
    buf.get_mut(..len).ok_or(Fail::Lib(pat::Error::BufferTooSmall))
}

/// `bytes` as an array of exactly `L` bytes, or `InvalidLength(field)`.
pub(crate) fn exact<const L: usize>(bytes: &[u8], field: pat::Field) -> Result<&[u8; L], Fail> {
    bytes.try_into().map_err(|_| Fail::Lib(pat::Error::InvalidLength(field)))
}

/// Runs `f` in a stack frame of its own. The exported functions inline
/// everything they call into one frame, where LLVM keeps each step's
/// buffers in slots of their own: the frame becomes the sum of the steps'
/// peaks (a type-2 request took 19 KB on a Cortex-M4, against 7.9 KB for
/// its deepest step). A call boundary between the steps makes it their
/// maximum.
#[inline(never)]
pub(crate) fn apart<T>(f: impl FnOnce() -> T) -> T {
    f()
}
