//! Flash baseline: the runtime, semihosting exit and panic handler with no
//! `pat` code. `scripts/footprint` subtracts its size from each role binary.
#![no_std]
#![no_main]

pat_nostd_check::footprint_main!(|| core::hint::black_box(true));
