//! Which Montgomery kernel runs the RSA private operation: chosen once at
//! run time from the CPU, with an override for tests and benchmarks
//! (`deterministic::force_kernel`, behind the hazmat fence).
//!
//! - IFMA (`monty_ifma`): AVX-512 IFMA, both CRT halves interleaved; x86_64
//!   with the `std` feature (the detection needs the OS's word that it saves
//!   the AVX-512 registers), RSA-2048 keys.
//! - Portable (`monty`): every target, every key size.
//!
//! Both compute the same values; the choice changes only the time.

#[cfg(all(target_arch = "x86_64", feature = "std"))]
mod select {
    use core::sync::atomic::{AtomicBool, Ordering};

    use super::super::monty_ifma::Ifma;

    /// Set to run the portable kernel even where IFMA exists.
    static FORCED_PORTABLE: AtomicBool = AtomicBool::new(false);

    /// The IFMA token when that kernel is in use (the CPU check runs once;
    /// `pulp` caches it).
    pub(crate) fn ifma() -> Option<Ifma> {
        if FORCED_PORTABLE.load(Ordering::Relaxed) {
            return None;
        }
        Ifma::try_new()
    }

    /// Whether this CPU can run the IFMA kernel.
    pub(crate) fn ifma_available() -> bool {
        Ifma::is_available()
    }

    pub(crate) fn force_portable(on: bool) {
        FORCED_PORTABLE.store(on, Ordering::Relaxed);
    }
}

#[cfg(all(target_arch = "x86_64", feature = "std"))]
pub(crate) use select::{force_portable, ifma, ifma_available};

/// Without the IFMA kernel in the build, the portable kernel always runs.
#[cfg(not(all(target_arch = "x86_64", feature = "std")))]
pub(crate) const fn ifma_available() -> bool {
    false
}

/// Nothing to force without the IFMA kernel in the build.
#[cfg(not(all(target_arch = "x86_64", feature = "std")))]
pub(crate) const fn force_portable(_on: bool) {}

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
