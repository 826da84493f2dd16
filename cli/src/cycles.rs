//! The cycle-count harness of `pat bench` and `benches/ace_ntor.rs`: the
//! method of the 2013 tor-dev "Ace vs ntor" measurements.
//!
//! For each operation: inputs are built outside the timed region (a fresh one
//! before every call, for operations that consume theirs), `warmup` calls run
//! untimed, then `iters` calls are timed one at a time between two counter
//! reads; the mean and the median are reported.
//!
//! The counter is the time-stamp counter on x86 and x86_64, read with
//! `rdtscp` (which waits for the preceding instructions) through `safe_arch`,
//! so the crate keeps `unsafe_code = "forbid"`. `quanta` was not used: its
//! `Clock::raw()` reads the TSC only on x86_64 and falls back to
//! `clock_gettime` nanoseconds on i686, where the 32-bit cycle counts are
//! wanted. The TSC ticks at the nominal frequency whatever the core's current
//! clock; its rate against the monotonic clock, measured over the whole run,
//! gives the nanosecond column. On other architectures the counter is the
//! monotonic clock itself, in nanoseconds.
//!
//! Allocations are counted by the caller's function (the binaries install
//! `stats_alloc`'s instrumented allocator), read just outside the two counter
//! reads, so the setup is never counted.

use std::hint::black_box;
use std::time::Instant;

/// What the counter counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Time-stamp counter ticks (x86, x86_64).
    Cycles,
    /// Nanoseconds of the monotonic clock.
    Nanos,
}

impl Unit {
    /// The column label.
    pub const fn label(self) -> &'static str {
        match self {
            Unit::Cycles => "cycles",
            Unit::Nanos => "ns",
        }
    }
}

/// The run's counter and its calibration against the monotonic clock.
pub struct Counter {
    start_ticks: u64,
    start: Instant,
}

impl Default for Counter {
    fn default() -> Self {
        Self::new()
    }
}

impl Counter {
    /// What [`Counter::read`] counts on this target.
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    pub const UNIT: Unit = Unit::Cycles;
    /// What [`Counter::read`] counts on this target.
    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    pub const UNIT: Unit = Unit::Nanos;

    /// Starts the calibration interval.
    pub fn new() -> Self {
        let start = Instant::now();
        let start_ticks = Self::read_at(start);
        Self { start_ticks, start }
    }

    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    fn read_at(_origin: Instant) -> u64 {
        let mut aux = 0u32;
        safe_arch::read_timestamp_counter_p(&mut aux)
    }

    #[cfg(not(any(target_arch = "x86", target_arch = "x86_64")))]
    fn read_at(origin: Instant) -> u64 {
        u64::try_from(origin.elapsed().as_nanos()).unwrap_or(u64::MAX)
    }

    /// The counter now.
    #[inline(always)]
    pub fn read(&self) -> u64 {
        Self::read_at(self.start)
    }

    /// Counter ticks per nanosecond since [`Counter::new`] (1 for
    /// [`Unit::Nanos`]); the longer the run, the better the estimate.
    pub fn ticks_per_ns(&self) -> f64 {
        if Self::UNIT == Unit::Nanos {
            return 1.0;
        }
        let ticks = self.read().wrapping_sub(self.start_ticks) as f64;
        let ns = self.start.elapsed().as_nanos() as f64;
        if ns > 0.0 { ticks / ns } else { 1.0 }
    }
}

/// Warm-up and measured call counts (the 2013 tor-dev comparison of Ace and ntor: 1000 and 5000).
#[derive(Clone, Copy, Debug)]
pub struct Config {
    /// Untimed calls first.
    pub warmup: usize,
    /// Timed calls.
    pub iters: usize,
}

/// One operation's figures, in counter units.
#[derive(Clone, Debug)]
pub struct Measurement {
    /// Mean over the timed calls.
    pub mean: f64,
    /// Median over the timed calls.
    pub median: u64,
    /// Heap allocations (and reallocations) per call, mean.
    pub allocs: f64,
    /// Timed calls.
    pub iters: usize,
}

/// Runs `op` on fresh inputs from `setup`: `cfg.warmup` untimed calls, then
/// `cfg.iters` calls each timed between two counter reads. `allocations`
/// returns the process's allocation count so far. The first error from
/// `setup` or `op` ends the measurement.
pub fn measure<I, O, E>(
    counter: &Counter,
    cfg: Config,
    allocations: &dyn Fn() -> usize,
    mut setup: impl FnMut() -> Result<I, E>,
    mut op: impl FnMut(I) -> Result<O, E>,
) -> Result<Measurement, E> {
    for _ in 0..cfg.warmup {
        let input = setup()?;
        black_box(op(black_box(input))?);
    }
    let mut samples = Vec::with_capacity(cfg.iters);
    let mut allocs = 0usize;
    for _ in 0..cfg.iters {
        let input = black_box(setup()?);
        let a0 = allocations();
        let t0 = counter.read();
        let out = op(input);
        let t1 = counter.read();
        let a1 = allocations();
        black_box(out?);
        samples.push(t1.saturating_sub(t0));
        allocs = allocs.saturating_add(a1.saturating_sub(a0));
    }
    samples.sort_unstable();
    let n = samples.len().max(1) as f64;
    Ok(Measurement {
        mean: samples.iter().map(|&s| s as f64).sum::<f64>() / n,
        median: samples.get(samples.len() / 2).copied().unwrap_or_default(),
        allocs: allocs as f64 / n,
        iters: cfg.iters,
    })
}

/// `1234567.4` as `1,234,567` (rounded; the style of the 2013 tor-dev tables).
pub fn thousands(v: f64) -> String {
    let digits = format!("{:.0}", v.max(0.0));
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}
