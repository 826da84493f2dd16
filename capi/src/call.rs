//! One way to run an exported function: check the buffers, turn them into
//! slices, run the safe body, and on failure wipe every output buffer so
//! that no partial request, state or token is left behind.
//!
//! What a failed call leaves, as the header states it:
//! - a call whose buffers were accepted and whose body failed zeroes every
//!   output made with [`Out::wiped`] and sets its output object to the
//!   object's empty value;
//! - a call refused by [`Regions::check`] (a NULL, out-of-range, misaligned
//!   or overlapping buffer) does the same only for the outputs that are
//!   [`Regions::apart`]: real memory that overlaps no other buffer of the
//!   call, a buffer past the end of memory counting as reaching to it (and
//!   for an object, aligned). An output that overlaps another buffer may
//!   hold the caller's input or other data, so a refusal never writes it,
//!   nor a NULL, misaligned or out-of-range one.

use crate::ffi::{self, Fail, Regions};

/// A writable buffer of a call: where it is, whether a failure wipes it,
/// and whether NULL is refused even with length 0.
#[derive(Clone, Copy)]
pub(crate) struct Out {
    ptr: *mut u8,
    len: usize,
    wipe_on_error: bool,
    required: bool,
    /// The alignment the output must have (1 for bytes).
    align: usize,
}

impl Out {
    /// An output that a failed call leaves zeroed.
    pub(crate) const fn wiped(ptr: *mut u8, len: usize) -> Self {
        Self { ptr, len, wipe_on_error: true, required: false, align: 1 }
    }

    /// A buffer read and written by the call that a failure leaves as it
    /// was (a client state, kept for the genuine response).
    pub(crate) const fn kept(ptr: *mut u8, len: usize) -> Self {
        Self { ptr, len, wipe_on_error: false, required: false, align: 1 }
    }

    /// An output array of `T` (a `size_t` list) seen as its bytes: refused
    /// with [`Fail::Misaligned`] unless aligned for `T`, and then never
    /// written by a refusal.
    pub(crate) const fn array_of<T>(self) -> Self {
        Self { align: align_of::<T>(), ..self }
    }

    /// Whether the output has its alignment (a NULL one has any).
    fn aligned(&self) -> bool {
        self.ptr.addr().is_multiple_of(self.align)
    }

    /// This output, refused when NULL even with length 0 (an output the
    /// call always writes, such as a NUL-terminated text):
    /// [`Regions::required_output`].
    pub(crate) const fn required(self) -> Self {
        Self { required: true, ..self }
    }
}

/// An output struct of a call (a `pat_challenge`), and the value it holds
/// after a failure.
#[derive(Clone, Copy)]
pub(crate) struct Object<T> {
    ptr: *mut T,
    empty: T,
}

impl<T> Object<T> {
    pub(crate) const fn new(ptr: *mut T, empty: T) -> Self {
        Self { ptr, empty }
    }
}

/// Runs `body` over `N` input and `M` output buffers, after [`Regions`]
/// accepted all of them. Returns the body's count, or the error code; on
/// error the outputs made with [`Out::wiped`] are zeroed, as the module
/// header says.
///
/// # Safety
/// Every buffer is lent by the C caller for this call: inputs readable,
/// outputs writable, as the header states for the function.
pub(crate) unsafe fn call<const N: usize, const M: usize>(
    inputs: [(*const u8, usize); N],
    outputs: [Out; M],
    body: impl FnOnce([&[u8]; N], &mut [&mut [u8]; M]) -> Result<usize, Fail>,
) -> i32 {
    // SAFETY: the caller's contract for these buffers, forwarded.
    unsafe { call_into(inputs, outputs, None::<Object<()>>, |ins, outs| body(ins, outs).map(|n| (n, ()))) }
}

/// [`call`] with an output struct: `body` returns the count and the value
/// `object` receives; any failure leaves the object's empty value instead
/// (on a refusal, only where [`Regions::apart_object`] allows).
///
/// # Safety
/// As [`call`]; `object`, when given, points to a writable `T`.
pub(crate) unsafe fn call_into<T: Copy, const N: usize, const M: usize>(
    inputs: [(*const u8, usize); N],
    outputs: [Out; M],
    object: Option<Object<T>>,
    body: impl FnOnce([&[u8]; N], &mut [&mut [u8]; M]) -> Result<(usize, T), Fail>,
) -> i32 {
    // SAFETY: the caller's contract for these buffers, forwarded.
    unsafe { run(Regions::<12>::new(), inputs, outputs, object, body) }
}

/// [`call_into`] with `regions` holding buffers recorded before (a generic
/// batch's entries), checked with the call's own.
///
/// # Safety
/// As [`call_into`]; the buffers already in `regions` are lent as well.
pub(crate) unsafe fn run<T: Copy, const N: usize, const M: usize, const C: usize>(
    mut regions: Regions<C>,
    inputs: [(*const u8, usize); N],
    outputs: [Out; M],
    object: Option<Object<T>>,
    body: impl FnOnce([&[u8]; N], &mut [&mut [u8]; M]) -> Result<(usize, T), Fail>,
) -> i32 {
    for (ptr, len) in inputs {
        regions.input(ptr, len);
    }
    for out in outputs {
        if !out.aligned() {
            regions.misaligned();
        }
        if out.required {
            regions.required_output(out.ptr, out.len);
        } else {
            regions.output(out.ptr, out.len);
        }
    }
    if let Some(o) = object {
        regions.object(o.ptr);
    }
    if let Err(f) = regions.check() {
        // Refused: clear what belongs to this output alone, nothing else (a
        // kept buffer is an input too, and stays as it is).
        for out in outputs.iter().filter(|o| o.wipe_on_error && o.aligned() && regions.apart(o.ptr, o.len)) {
            // SAFETY: real memory apart from every other buffer of the call
            // (Regions::apart), writable per the contract.
            unsafe { ffi::zero_raw(out.ptr, out.len) };
        }
        if let Some(o) = object.filter(|o| regions.apart_object(o.ptr)) {
            // SAFETY: non-NULL, aligned and apart (Regions::apart_object),
            // writable per the contract.
            unsafe { ffi::put(o.ptr, o.empty) };
        }
        return f.code();
    }
    // Outputs start zeroed (a kept buffer is initialized by the caller).
    for out in outputs.iter().filter(|o| o.wipe_on_error) {
        // SAFETY: accepted by Regions::check, so apart from every other
        // buffer; writable per the contract.
        unsafe { ffi::zero_raw(out.ptr, out.len) };
    }
    // SAFETY: each input passed Regions::input; readable per the contract.
    let ins = inputs.map(|(ptr, len)| unsafe { ffi::read(ptr, len) });
    // SAFETY: each output passed Regions::output (or
    // Regions::required_output, which adds to it) and Regions::check (no
    // overlap with any other buffer); zeroed above or, if kept, initialized
    // by the caller; writable per the contract.
    let mut outs = outputs.map(|out| unsafe { ffi::write(out.ptr, out.len) });
    // A count the caller cannot be told (above `i32::MAX`) is an error, and
    // wipes the outputs as any other.
    let result = body(ins, &mut outs).and_then(|(n, value)| match i32::try_from(n) {
        Ok(_) => Ok((n, value)),
        Err(_) => Err(Fail::Lib(pat::Error::ValueTooLarge)),
    });
    if result.is_err() {
        for (buf, out) in outs.iter_mut().zip(outputs) {
            if out.wipe_on_error {
                ffi::wipe(buf);
            }
        }
    }
    if let Some(o) = object {
        // SAFETY: `o.ptr` passed Regions::object and Regions::check.
        unsafe { ffi::put(o.ptr, result.as_ref().map_or(o.empty, |&(_, value)| value)) };
    }
    ffi::status(result.map(|(n, _)| n))
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
/// peaks, not their maximum (docs/capi.md has the measured frames). A call
/// boundary between the steps makes it their maximum.
#[inline(never)]
pub(crate) fn apart<T>(f: impl FnOnce() -> T) -> T {
    f()
}
