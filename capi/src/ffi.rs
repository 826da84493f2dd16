//! The one place where the caller's pointers become Rust references.
//!
//! Every exported function takes its buffers as `(pointer, length)` pairs.
//! Before any slice exists, [`Regions`] checks what Rust's rules need and C
//! does not promise: no NULL pointer with a non-zero length, no region that
//! wraps around the address space or exceeds `isize::MAX`, and no output
//! that overlaps another buffer of the same call (a `&mut` slice must not
//! alias anything). A refused call may still clear an output, through a
//! raw pointer, but only one that [`Regions::apart`] finds apart from every
//! other buffer. What cannot be checked (that the memory is really there,
//! readable or writable, for the whole call, and not written by another
//! thread meanwhile) is the caller's side of the contract, stated in the
//! header.

use pat::Error;
use zeroize::Zeroize as _;

use crate::codes::{PAT_E_ADDRESS_RANGE, PAT_E_MISALIGNED, PAT_E_NULL_POINTER, PAT_E_OVERLAP};

/// Why a call failed: a library error, or a fault of the call itself that
/// the library cannot have (its codes start at 100, [`crate::status`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Fail {
    /// The library's error.
    Lib(Error),
    /// A NULL pointer where a buffer of non-zero length (or a required
    /// output) was expected.
    Null,
    /// An output buffer overlaps another buffer of the call.
    Overlap,
    /// A pointer to a struct is not aligned for its type.
    Misaligned,
    /// A buffer's length runs past the end of the address space, or over
    /// `isize::MAX` bytes.
    AddressRange,
}

impl From<Error> for Fail {
    fn from(e: Error) -> Self {
        Fail::Lib(e)
    }
}

impl Fail {
    /// The integer the C caller sees (negative).
    pub(crate) const fn code(self) -> i32 {
        match self {
            Fail::Lib(e) => e.code(),
            Fail::Null => -PAT_E_NULL_POINTER,
            Fail::Overlap => -PAT_E_OVERLAP,
            Fail::Misaligned => -PAT_E_MISALIGNED,
            Fail::AddressRange => -PAT_E_ADDRESS_RANGE,
        }
    }
}

/// A call's result as the C caller sees it: a non-negative count or length,
/// or a negative error code.
pub(crate) fn status(result: Result<usize, Fail>) -> i32 {
    match result {
        Ok(n) => i32::try_from(n).unwrap_or(Error::ValueTooLarge.code()),
        Err(f) => f.code(),
    }
}

/// An address range `[start, end)` of one buffer. A range that runs past
/// the end of the address space is kept as far as it reaches, so that a
/// refused call does not write into what it claims.
#[derive(Clone, Copy, Debug)]
struct Region {
    start: usize,
    end: usize,
    output: bool,
}

impl Region {
    fn new(addr: usize, len: usize, output: bool) -> Self {
        Self { start: addr, end: addr.saturating_add(len), output }
    }

    fn overlaps(&self, other: &Region) -> bool {
        self.start < self.end && other.start < other.end && self.start < other.end && other.start < self.end
    }
}

/// The buffers of one call. Each is recorded as it is added, with its own
/// fault (NULL, out of range, misaligned); [`Regions::check`] then reports
/// the first fault, or an output that overlaps any other buffer, and
/// [`Regions::apart`] tells a refused call which outputs it may still clear.
pub(crate) struct Regions<const C: usize> {
    list: heapless::Vec<Region, C>,
    fault: Option<Fail>,
    /// A buffer did not fit the list: no output can be shown apart then.
    full: bool,
}

impl<const C: usize> Regions<C> {
    pub(crate) const fn new() -> Self {
        Self { list: heapless::Vec::new(), fault: None, full: false }
    }

    fn fail(&mut self, fault: Fail) {
        self.fault = self.fault.or(Some(fault));
    }

    fn add(&mut self, addr: usize, is_null: bool, len: usize, output: bool) {
        if is_null {
            if len != 0 {
                self.fail(Fail::Null);
            }
            return;
        }
        if !in_range(addr, len) {
            self.fail(Fail::AddressRange);
        }
        if self.list.push(Region::new(addr, len, output)).is_err() {
            self.full = true;
            self.fail(Fail::Lib(Error::CapacityExceeded));
        }
    }

    /// An input buffer; NULL is allowed with length 0.
    pub(crate) fn input(&mut self, ptr: *const u8, len: usize) {
        self.add(ptr.addr(), ptr.is_null(), len, false);
    }

    /// An input array of `count` structs `T` (a generic batch's entries):
    /// not NULL unless empty, aligned for `T`, within the address space.
    pub(crate) fn input_array<T>(&mut self, ptr: *const T, count: usize) {
        if !ptr.is_null() && !ptr.is_aligned() {
            self.fail(Fail::Misaligned);
        }
        match count.checked_mul(size_of::<T>()) {
            Some(len) => self.add(ptr.addr(), ptr.is_null(), len, false),
            None => self.fail(Fail::AddressRange),
        }
    }

    /// Records that an output is not aligned for its type.
    pub(crate) fn misaligned(&mut self) {
        self.fail(Fail::Misaligned);
    }

    /// An output buffer; NULL is allowed with capacity 0.
    pub(crate) fn output(&mut self, ptr: *mut u8, len: usize) {
        self.add(ptr.addr(), ptr.is_null(), len, true);
    }

    /// An output buffer that may not be NULL even with capacity 0 (one the
    /// call always writes something into, such as a text's NUL).
    pub(crate) fn required_output(&mut self, ptr: *mut u8, len: usize) {
        if ptr.is_null() {
            self.fail(Fail::Null);
            return;
        }
        self.output(ptr, len);
    }

    /// A required output object of type `T` (a struct, a `size_t`): not
    /// NULL, aligned for `T`.
    pub(crate) fn object<T>(&mut self, ptr: *mut T) {
        if ptr.is_null() {
            self.fail(Fail::Null);
            return;
        }
        if !ptr.is_aligned() {
            self.fail(Fail::Misaligned);
        }
        self.add(ptr.addr(), false, size_of::<T>(), true);
    }

    /// The first fault of a buffer on its own, in the order they were
    /// added; else refuses an output that overlaps another buffer.
    pub(crate) fn check(&self) -> Result<(), Fail> {
        if let Some(fault) = self.fault {
            return Err(fault);
        }
        for (i, a) in self.list.iter().enumerate() {
            for b in self.list.iter().skip(i + 1) {
                if (a.output || b.output) && a.overlaps(b) {
                    return Err(Fail::Overlap);
                }
            }
        }
        Ok(())
    }

    /// Whether the recorded buffer `[ptr, ptr + len)` is real (not NULL,
    /// not empty, within the address space) and overlaps no other buffer
    /// of the call, so that writing it touches nothing but itself. A range
    /// that was never recorded, or was recorded twice, is not apart.
    pub(crate) fn apart(&self, ptr: *const u8, len: usize) -> bool {
        if self.full || ptr.is_null() || len == 0 || !in_range(ptr.addr(), len) {
            return false;
        }
        let this = Region::new(ptr.addr(), len, true);
        // The buffer overlaps its own record, and nothing else.
        self.list.iter().filter(|r| r.overlaps(&this)).count() == 1
    }

    /// [`Regions::apart`] for an output object, which must also be aligned.
    pub(crate) fn apart_object<T>(&self, ptr: *mut T) -> bool {
        ptr.is_aligned() && self.apart(ptr.cast::<u8>(), size_of::<T>())
    }
}

/// Whether `[addr, addr + len)` fits the address space and `isize`, as a
/// slice needs.
fn in_range(addr: usize, len: usize) -> bool {
    isize::try_from(len).is_ok() && addr.checked_add(len).is_some()
}

/// Zeroes the output `[ptr, ptr + len)` through the raw pointer, before any
/// slice of it exists: a slice needs initialized memory, and the header
/// does not ask the caller to initialize outputs. A refused call calls it
/// only on the outputs [`Regions::apart`] accepts. A NULL pointer or an
/// impossible range is left alone.
///
/// # Safety
/// The caller of the exported function lends `len` writable bytes at `ptr`
/// (any NULL or out-of-range pair is skipped, so a refused call may pass
/// what it was given), and no other buffer of the call lies in them.
pub(crate) unsafe fn zero_raw(ptr: *mut u8, len: usize) {
    if ptr.is_null() || len == 0 || !in_range(ptr.addr(), len) {
        return;
    }
    // SAFETY: non-NULL, in range, writable and the call's alone per the
    // contract; raw bytes, written before any reference to them exists.
    unsafe { core::ptr::write_bytes(ptr, 0, len) };
}

/// The input buffer `[ptr, ptr + len)` as a slice.
///
/// # Safety
/// `ptr` was accepted by [`Regions::input`] with `len`, and the caller of
/// the exported function guarantees the memory is readable and not written
/// for the lifetime `'a`, which must not outlive that call.
pub(crate) unsafe fn read<'a>(ptr: *const u8, len: usize) -> &'a [u8] {
    if len == 0 || ptr.is_null() {
        return &[];
    }
    // SAFETY: non-NULL, `len` bytes that do not wrap and fit `isize`
    // (Regions::input); readable and unaliased by writes per the contract.
    unsafe { core::slice::from_raw_parts(ptr, len) }
}

/// The input array `[ptr, ptr + count)` of structs as a slice.
///
/// # Safety
/// `ptr` was accepted by [`Regions::input_array`] with `count` (not NULL
/// unless empty, aligned, in range), and the caller of the exported
/// function guarantees `count` initialized `T`s there, not written for the
/// lifetime `'a`, which must not outlive that call.
pub(crate) unsafe fn read_array<'a, T>(ptr: *const T, count: usize) -> &'a [T] {
    if count == 0 || ptr.is_null() {
        return &[];
    }
    // SAFETY: non-NULL, aligned, `count` values that do not wrap and fit
    // `isize` (Regions::input_array); initialized, readable and unaliased by
    // writes per the contract.
    unsafe { core::slice::from_raw_parts(ptr, count) }
}

/// The output buffer `[ptr, ptr + len)` as a mutable slice.
///
/// # Safety
/// `ptr` was accepted by [`Regions::output`] with `len` and
/// [`Regions::check`] found it disjoint from every other buffer of the call;
/// its bytes are initialized (zeroed by [`zero_raw`], or a client state the
/// caller passes in); the caller of the exported function guarantees the
/// memory is writable and not accessed by anyone else for `'a`, which must
/// not outlive that call.
pub(crate) unsafe fn write<'a>(ptr: *mut u8, len: usize) -> &'a mut [u8] {
    if len == 0 || ptr.is_null() {
        return &mut [];
    }
    // SAFETY: non-NULL, `len` bytes that do not wrap and fit `isize`, and no
    // other slice of this call covers them (Regions::check); writable and
    // unshared per the contract.
    unsafe { core::slice::from_raw_parts_mut(ptr, len) }
}

/// Writes `value` to the output object at `ptr`.
///
/// # Safety
/// `ptr` was accepted by [`Regions::object`] and [`Regions::check`], or on a
/// refused call by [`Regions::apart_object`] (either way non-NULL, aligned
/// and apart from every other buffer); the caller guarantees it points to
/// writable memory of a `T`.
pub(crate) unsafe fn put<T>(ptr: *mut T, value: T) {
    // SAFETY: non-NULL and aligned (checked by Regions), writable per the
    // contract; `T` is a plain C struct or integer, so nothing is dropped.
    unsafe { ptr.write(value) }
}

/// Zeroes `buf` in a way the compiler keeps (it is about to be handed back
/// to the caller holding no secret, or nothing at all).
pub(crate) fn wipe(buf: &mut [u8]) {
    buf.zeroize();
}

// The library's kinds stay below the C API's own (100 and up).
const _: () = assert!(Error::ReplayWindowExpired.kind_code() < 100);
