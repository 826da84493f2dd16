//! Which Montgomery kernel runs the RSA private operation: chosen once at
//! run time from the CPU, with an override for tests and benchmarks
//! (`deterministic::force_kernel`, behind the hazmat fence).
//!
//! - IFMA (`monty_ifma`): AVX-512 IFMA, both CRT halves interleaved; x86_64
//!   with the `std` feature (the detection needs the OS's word that it saves
//!   the AVX-512 registers), RSA-2048 keys.
//! - AVX2 (`monty_avx2`): 29-bit limbs in 256-bit vectors, the CRT halves
//!   one after the other; x86_64 with `std`, RSA-2048 keys, where the CPU
//!   has AVX2 but not IFMA (and not in the ctgrind build).
//! - Portable (`monty`): every target, every key size.
//!
//! All compute the same values; the choice changes only the time. The order
//! is IFMA, then AVX2, then portable.

#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod select {
    use core::sync::atomic::{AtomicU8, Ordering};

    use super::super::monty_avx2::Avx2;
    use super::super::monty_ifma::Ifma;

    /// No kernel forced: the fastest the CPU has.
    const AUTO: u8 = 0;
    const PORTABLE: u8 = 1;
    const AVX2: u8 = 2;

    /// The forced kernel, if any ([`AUTO`] otherwise).
    static FORCED: AtomicU8 = AtomicU8::new(AUTO);

    /// The IFMA token when that kernel is in use (the CPU check runs once;
    /// `pulp` caches it).
    pub(crate) fn ifma() -> Option<Ifma> {
        if FORCED.load(Ordering::Relaxed) != AUTO {
            return None;
        }
        Ifma::try_new()
    }

    /// The AVX2 token when that kernel is in use: forced, or chosen because
    /// the CPU has AVX2 and not IFMA. Not chosen in the ctgrind build
    /// (`--cfg pat_ctgrind`): valgrind (3.19) reports AVX2 and not AVX-512,
    /// but cannot decode an instruction LLVM emits in this kernel (`vmovq
    /// xmm, xmm`, VEX opcode D6), so the harness would stop on SIGILL there;
    /// it checks the portable kernel in every RSA case instead.
    pub(crate) fn avx2() -> Option<Avx2> {
        match FORCED.load(Ordering::Relaxed) {
            AVX2 => Avx2::try_new(),
            AUTO if !cfg!(pat_ctgrind) && !Ifma::is_available() => Avx2::try_new(),
            _ => None,
        }
    }

    /// Whether this CPU can run the IFMA kernel.
    pub(crate) fn ifma_available() -> bool {
        Ifma::is_available()
    }

    /// Whether this CPU can run the AVX2 kernel.
    pub(crate) fn avx2_available() -> bool {
        Avx2::is_available()
    }

    pub(crate) fn force_portable(on: bool) {
        FORCED.store(if on { PORTABLE } else { AUTO }, Ordering::Relaxed);
    }

    pub(crate) fn force_avx2() {
        FORCED.store(AVX2, Ordering::Relaxed);
    }
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) use select::{avx2, avx2_available, force_avx2, force_portable, ifma, ifma_available};

/// Without the SIMD kernels in the build, the portable kernel always runs.
#[cfg(not(all(target_arch = "x86_64", feature = "std")))]
pub(crate) const fn ifma_available() -> bool {
    false
}

/// Without the SIMD kernels in the build, the portable kernel always runs.
#[cfg(not(all(target_arch = "x86_64", feature = "std")))]
pub(crate) const fn avx2_available() -> bool {
    false
}

/// Nothing to force without the SIMD kernels in the build.
#[cfg(not(all(target_arch = "x86_64", feature = "std")))]
pub(crate) const fn force_portable(_on: bool) {}

/// Nothing to force without the SIMD kernels in the build (callers check
/// [`avx2_available`] first).
#[cfg(not(all(target_arch = "x86_64", feature = "std")))]
pub(crate) const fn force_avx2() {}

/// Whether the IFMA kernel runs now.
pub(crate) fn ifma_active() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        ifma().is_some()
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        false
    }
}

/// Whether the AVX2 kernel runs now.
pub(crate) fn avx2_active() -> bool {
    #[cfg(all(target_arch = "x86_64", feature = "std"))]
    {
        avx2().is_some()
    }
    #[cfg(not(all(target_arch = "x86_64", feature = "std")))]
    {
        false
    }
}
