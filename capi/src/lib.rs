//! A C API for the client roles of `pat`: token types 0x0001 (VOPRF
//! P-384), 0x0002 (blind RSA), 0x0003 (rate-limited blind RSA), 0x0005
//! (VOPRF ristretto255), 0xDA7A (public metadata), 0xDA7B (public
//! metadata on POPRF P-384), 0xE5AC (ARC), 0xE5AD (ACT) and 0xC07E (ATHM),
//! amortized and generic batches, the origin's side of the publicly
//! verifiable types (0x0002, 0x0003, 0xDA7A: the challenge, its
//! `WWW-Authenticate` value, the `Authorization` value read back, the
//! token verified), the
//! `WWW-Authenticate` challenge, the `Authorization` value, the issuer
//! directory's key choice and the power-on self-test.
//!
//! The header is `include/pat.h`, generated from this crate by `cbindgen`
//! (`tests/header.rs` fails when the checked-in copy is stale; run it with
//! `PAT_BLESS_HEADER=1` to rewrite it). The static library is built from
//! this crate with `cargo rustc --lib --crate-type staticlib` (not `cargo
//! build`, which drops link-time optimization; docs/capi.md) for the host
//! (`--release`, with `std`) and for bare-metal targets
//! (`--no-default-features --target thumbv7em-none-eabihf --profile
//! embedded`), where it needs no allocator
//! and no C library: the caller lends every buffer, the sizes are
//! `#define`s, and randomness comes from a callback.
//!
//! The exported functions are written out one per token type, each a line
//! or two over a generic body: cbindgen reads the source, not macro output,
//! so a macro that stamped them out would leave them out of the header.
//!
//! Every function returns an `int32_t`: a non-negative length or count, or
//! a negative status code that maps one-to-one to the library's errors
//! ([`status`]). This crate is the only one of the workspace with `unsafe`:
//! the pointers become slices in [`ffi`] alone, after checks for NULL,
//! wrap-around, alignment and overlapping outputs, and each block says why
//! it is sound (`clippy::undocumented_unsafe_blocks` is denied).
#![no_std]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "std")]
extern crate std;

pub mod act;
pub mod amortized;
pub mod arc;
pub mod athm;
pub mod batched;
mod call;
pub mod directory;
mod ffi;
#[cfg(feature = "hazmat")]
pub mod hazmat;
pub mod http;
pub mod metadata;
pub mod misc;
pub mod origin;
pub mod poprf;
pub mod private;
pub mod public;
pub mod rate_limited;
pub mod rng;
pub mod sizes;
pub mod status;

// After `sizes`: cbindgen writes the header's constants in the order it
// reads the modules, and the status codes follow the sizes in `pat.h`.
mod codes;

/// A panic would be a bug: the library returns an error for every bad
/// input. Without the standard library (a bare-metal static library) the
/// core spins here, where a debugger or the watchdog finds it.
#[cfg(all(not(feature = "std"), not(test), target_os = "none"))]
#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {
        core::hint::spin_loop();
    }
}
