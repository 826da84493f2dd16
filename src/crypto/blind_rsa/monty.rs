//! Montgomery arithmetic for RSA: product-scanning Montgomery products and
//! squares, a division-free reduction of double-width values, a fixed-window
//! exponentiation (the private operation) and the public-exponent power
//! x^65537 (verification, blinding, the signer's fault check).
//!
//! Everything works modulo an odd `N`-limb modulus m with the Montgomery
//! parameters of `FixedMontyParams` (R = 2^(N·Word::BITS), `mod_neg_inv` =
//! −m⁻¹ mod 2^W). Double-width values are `Uint<L>` with `L = 2·N`.
//!
//! # Why not `FixedMontyForm::pow` and `mul`
//!
//! crypto-bigint's `FixedMontyForm` (already a dependency) would do the job:
//! `mul`, `square` and a constant-time `pow`. It exponentiates with a 4-bit
//! window and computes every product and squaring with an interleaved
//! operand-scanning Montgomery multiplication, whose partial-product row goes
//! through memory. Here [`mul`] and [`square`] scan columns instead (FIPS):
//! each column's limb products and reduction products go into a register
//! accumulator, squares compute each cross product once, and every column is
//! expanded with a literal index so its loops unroll completely. The window
//! is 5 bits (204 instead of 256 window products for a 1024-bit exponent, for
//! 16 more table entries).
//!
//! The instruction counts of this kernel against `FixedMontyForm` and the
//! earlier accumulator, the wall times and the variants tried and dropped
//! are in `docs/reports/2026-12-01-crypto-design-measurements.md`.
//!
//! # Constant time
//!
//! Every function here executes the same instruction and memory-access
//! sequence for all values of its integer arguments: loop bounds, limb indices
//! and exponent-window positions depend only on `N`, the window size and loop
//! counters, never on data. Limb products use the full-width `WideWord`
//! multiplication with carries propagated arithmetically: every carry is the
//! high word of a `WideWord` sum, used as a value and never branched on. The
//! data-dependent final subtraction of a reduction is a borrow chain computed
//! in full, then a mask from one `subtle` conditional select and a
//! mask-select of every limb (no `_vartime` function is called). The window table of [`pow`] is read in
//! full for every lookup, each entry ANDed with an all-zeros/all-ones mask
//! from a `subtle::ConstantTimeEq` comparison of its index with the window, so
//! no memory address depends on the secret exponent.
//!
//! None of it allocates, panics (slices are walked with iterators and `get`)
//! or uses `unsafe`. The window table is wiped after each exponentiation; the
//! stack temporaries of individual products are not (as in crypto-bigint),
//! which keeps the 2 000 squarings of a signature free of extra stores.

use crypto_bigint::modular::FixedMontyParams;
use crypto_bigint::{Uint, WideWord, Word};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// The window table size of the private operation: 2^5 entries, a 5-bit
/// fixed window (4 KiB of stack for a 1024-bit modulus).
pub(crate) const WINDOW_TABLE: usize = 32;

/// `carry·R + t`, known to be below 2m, reduced below m: subtracts m once if
/// `carry·R + t ≥ m`, in constant time. The subtraction is a borrow chain of
/// `WideWord` differences (compiled to sub/sbb); the choice becomes one
/// all-zeros/all-ones mask through a single `subtle` select, and each limb
/// is picked as t ⊕ ((t ⊕ d) ∧ mask).
#[inline(always)]
fn finish<const N: usize>(t: &Uint<N>, carry: Word, m: &Uint<N>) -> Uint<N> {
    let t = t.as_words();
    let mut d = [0 as Word; N];
    let mut borrow: Word = 0;
    for ((o, x), y) in d.iter_mut().zip(t).zip(m.as_words()) {
        let diff = WideWord::from(*x).wrapping_sub(WideWord::from(*y) + WideWord::from(borrow));
        #[allow(clippy::cast_possible_truncation)] // the low word, by design
        {
            *o = diff as Word;
        }
        // The high word is all ones exactly when the limb borrowed.
        borrow = (diff >> (2 * Word::BITS - 1)) as Word;
    }
    // carry·R + t ≥ m ⇔ carry = 1 or the subtraction did not borrow.
    let ge = (carry | (borrow ^ 1)) & 1;
    #[allow(clippy::cast_possible_truncation)] // 0 or 1
    let mask = Word::conditional_select(&0, &Word::MAX, Choice::from(ge as u8));
    let mut out = *t;
    for (o, x) in out.iter_mut().zip(d) {
        *o ^= (*o ^ x) & mask;
    }
    Uint::from_words(out)
}

/// Montgomery reduction of a double-width value: t·R⁻¹ mod m, fully reduced,
/// for t < R·m (`L = 2·N`).
///
/// Operand scanning: row i adds u_i·m to the window t[i..i + N] with
/// u_i = t_i·(−m⁻¹) mod 2^W, which clears t_i, and its carry at t[i + N]; a
/// carry out of t[i + N] is kept in `extra` and added one row later. The
/// result t[N..2N] + extra·R is below 2m.
pub(crate) fn redc<const N: usize, const L: usize>(t: &Uint<L>, params: &FixedMontyParams<N>) -> Uint<N> {
    const { assert!(L == 2 * N, "redc takes a double-width value") };
    let m = params.modulus().as_ref().as_words();
    let neg_inv = params.mod_neg_inv().0;
    let mut t = *t.as_words();
    let mut extra: Word = 0;
    for i in 0..N {
        let mut carry: Word = 0;
        if let Some((top, window)) = t.get_mut(i..=i + N).and_then(|row| row.split_last_mut()) {
            let u = window.first().copied().unwrap_or(0).wrapping_mul(neg_inv);
            for (tj, mj) in window.iter_mut().zip(m) {
                let x = WideWord::from(u) * WideWord::from(*mj) + WideWord::from(*tj) + WideWord::from(carry);
                #[allow(clippy::cast_possible_truncation)] // the low word, by design
                {
                    *tj = x as Word;
                    carry = (x >> Word::BITS) as Word;
                }
            }
            let x = WideWord::from(*top) + WideWord::from(carry) + WideWord::from(extra);
            #[allow(clippy::cast_possible_truncation)] // the low word, by design
            {
                *top = x as Word;
                extra = (x >> Word::BITS) as Word;
            }
        }
    }
    let mut hi = Uint::<N>::ZERO;
    for (o, x) in hi.as_mut_words().iter_mut().zip(t.iter().skip(N)) {
        *o = *x;
    }
    finish(&hi, extra, params.modulus().as_ref())
}

/// A column accumulator for product scanning: the three-word value
/// c0 + c1·W + c2·W² (W = 2^Word::BITS). A limb product is below W², so
/// adding it is an add/adc/adc chain (`WideWord` sums whose high word is the
/// carry, which compilers lower to the carry flag), three instructions per
/// product on 64-bit targets. A column has at most 2N + 2 terms below W² and
/// N ≤ 128, so `c2` stays far below W.
#[derive(Clone, Copy)]
struct Acc {
    c0: Word,
    c1: Word,
    c2: Word,
}

/// The low word and the high word (the carry) of a double-word sum.
#[inline(always)]
fn split(x: WideWord) -> (Word, Word) {
    #[allow(clippy::cast_possible_truncation)] // the two halves, by design
    (x as Word, (x >> Word::BITS) as Word)
}

impl Acc {
    const ZERO: Self = Self { c0: 0, c1: 0, c2: 0 };

    /// acc += a·b.
    #[inline(always)]
    fn mac(&mut self, a: Word, b: Word) {
        let (p0, p1) = split(WideWord::from(a) * WideWord::from(b));
        let (c0, carry) = split(WideWord::from(self.c0) + WideWord::from(p0));
        let (c1, carry) = split(WideWord::from(self.c1) + WideWord::from(p1) + WideWord::from(carry));
        self.c0 = c0;
        self.c1 = c1;
        self.c2 = self.c2.wrapping_add(carry);
    }

    /// acc += 2·other (the cross products of a square count twice).
    #[inline(always)]
    fn add_double(&mut self, other: &Self) {
        let d0 = other.c0 << 1;
        let d1 = (other.c1 << 1) | (other.c0 >> (Word::BITS - 1));
        let d2 = (other.c2 << 1) | (other.c1 >> (Word::BITS - 1));
        let (c0, carry) = split(WideWord::from(self.c0) + WideWord::from(d0));
        let (c1, carry) = split(WideWord::from(self.c1) + WideWord::from(d1) + WideWord::from(carry));
        self.c0 = c0;
        self.c1 = c1;
        self.c2 = self.c2.wrapping_add(d2).wrapping_add(carry);
    }

    /// The low word of the column value.
    #[inline(always)]
    fn low(&self) -> Word {
        self.c0
    }

    /// Drops the low word: the rest of the column value is the next column's
    /// starting carry.
    #[inline(always)]
    fn shift(&mut self) {
        self.c0 = self.c1;
        self.c1 = self.c2;
        self.c2 = 0;
    }
}

/// `x` with its limbs in reverse order, so that the products x_j·y_{i−j} of
/// one column walk both operands forwards.
#[inline(always)]
fn reversed<const N: usize>(x: &[Word; N]) -> [Word; N] {
    let mut out = *x;
    out.reverse();
    out
}

/// acc += Σ xs[j]·ys[j] over the common (public) length.
#[inline(always)]
fn dot(acc: &mut Acc, xs: Option<&[Word]>, ys: Option<&[Word]>) {
    if let (Some(xs), Some(ys)) = (xs, ys) {
        for (x, y) in xs.iter().zip(ys) {
            acc.mac(*x, *y);
        }
    }
}

/// Runs `$body` with `$i` bound to every column 0 ≤ i < 2N − 1 of a product
/// of two N-limb numbers. The body is pasted once per column (no closure for
/// the inliner to decide about) and the first 128 indices are literals, so
/// that every loop inside a column has a constant trip count and unrolls: no
/// loop or bounds bookkeeping is left between the limb products. Wider
/// operands (N > 64, only RSA-4096 on 32-bit targets) finish in an ordinary
/// loop.
#[cfg(not(target_os = "none"))]
macro_rules! for_each_column {
    ($n:expr, |$i:ident| $body:block) => {
        for_each_column!(@ $n, $i, $body;
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120
            121 122 123 124 125 126 127);
        for $i in 128..2 * $n - 1 {
            $body
        }
    };
    (@ $n:expr, $i:ident, $body:block; $($lit:literal)*) => {
        $(
            if $lit < 2 * $n - 1 {
                let $i: usize = $lit;
                $body
            }
        )*
    };
}

/// On bare-metal targets the columns are an ordinary loop: pasting the body
/// 2N − 1 times put the Cortex-M4 type-2 client far over its flash budget
/// (`scripts/footprint`) and deepened the origin's stack. Hosts (64- and
/// 32-bit) keep the unrolled columns.
#[cfg(target_os = "none")]
macro_rules! for_each_column {
    ($n:expr, |$i:ident| $body:block) => {
        for $i in 0..2 * $n - 1 $body
    };
}

/// The state of a product-scanning Montgomery product: the accumulator, the
/// reduction multipliers u_0 … u_{N−1} and the result limbs.
struct Columns<const N: usize> {
    acc: Acc,
    u: [Word; N],
    r: [Word; N],
}

impl<const N: usize> Columns<N> {
    const NEW: Self = Self { acc: Acc::ZERO, u: [0; N], r: [0; N] };

    /// The reduction half of column i: adds u_j·m_{i−j} for the u_j known so
    /// far (`m_rev` is m reversed). For i < N it then picks
    /// u_i = acc·(−m⁻¹) mod W, which makes the low word of acc + u_i·m_0 zero;
    /// for i ≥ N the low word is result limb i − N. Then on to column i + 1.
    #[inline(always)]
    fn reduce(&mut self, i: usize, m_rev: &[Word; N], neg_inv: Word) {
        if i < N {
            let k = N - 1 - i;
            dot(&mut self.acc, self.u.get(..i), m_rev.get(k..N - 1));
            let ui = self.acc.low().wrapping_mul(neg_inv);
            if let Some(slot) = self.u.get_mut(i) {
                *slot = ui;
            }
            self.acc.mac(ui, m_rev.last().copied().unwrap_or(0));
        } else {
            let lo = i + 1 - N;
            dot(&mut self.acc, self.u.get(lo..), m_rev.get(..2 * N - 1 - i));
            if let Some(slot) = self.r.get_mut(i - N) {
                *slot = self.acc.low();
            }
        }
        self.acc.shift();
    }

    /// The last limb and the carry, then one constant-time conditional
    /// subtraction (see [`finish`]): (a·b + U·m)/R < 2m becomes < m.
    #[inline(always)]
    fn finish(mut self, m: &[Word; N]) -> Uint<N> {
        if let Some(last) = self.r.last_mut() {
            *last = self.acc.low();
        }
        self.acc.shift();
        // 0 or 1: the sum is below 2m < 2R.
        let carry = self.acc.c0;
        finish(&Uint::from_words(self.r), carry, &Uint::from_words(*m))
    }
}

/// The Montgomery product a·b·R⁻¹ mod m for a·b < R·m (e.g. a < R, b < m),
/// fully reduced.
///
/// Product scanning with the reduction interleaved column by column (FIPS in
/// Koç, Acar and Kaliski's 1996 survey of Montgomery multiplication): column
/// i adds every a_j·b_{i−j} and u_j·m_{i−j} into a three-word accumulator
/// held in registers, so no partial-product row is stored and reloaded, and
/// u_i is chosen in column i to clear its low word. 2N² limb products.
pub(crate) fn mul<const N: usize>(a: &Uint<N>, b: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let a = a.as_words();
    let m = params.modulus().as_ref().as_words();
    let (b_rev, m_rev) = (reversed(b.as_words()), reversed(m));
    let neg_inv = params.mod_neg_inv().0;
    let mut c = Columns::<N>::NEW;
    for_each_column!(N, |i| {
        // a_j·b_{i−j} for max(0, i + 1 − N) ≤ j ≤ min(i, N − 1); b_{i−j} = b_rev[N − 1 − i + j].
        let (lo, k) = ((i + 1).saturating_sub(N), (N - 1).saturating_sub(i));
        dot(&mut c.acc, a.get(lo..=i.min(N - 1)), b_rev.get(k..));
        c.reduce(i, &m_rev, neg_inv);
    });
    c.finish(m)
}

/// The Montgomery square a²·R⁻¹ mod m for a < m, fully reduced.
///
/// As [`mul`], but column i sums its cross products a_j·a_{i−j}, j < i − j,
/// once and adds them twice, plus a_{i/2}² for even i: N(N + 1)/2 + N² limb
/// products instead of 2N².
pub(crate) fn square<const N: usize>(a: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let a = a.as_words();
    let m = params.modulus().as_ref().as_words();
    let (a_rev, m_rev) = (reversed(a), reversed(m));
    let neg_inv = params.mod_neg_inv().0;
    let mut c = Columns::<N>::NEW;
    for_each_column!(N, |i| {
        // Cross products: max(0, i + 1 − N) ≤ j < ⌈i/2⌉, a_{i−j} = a_rev[N − 1 − i + j].
        let (lo, half, k) = ((i + 1).saturating_sub(N), i.div_ceil(2), (N - 1).saturating_sub(i));
        let mut cross = Acc::ZERO;
        dot(&mut cross, a.get(lo..half), a_rev.get(k..));
        c.acc.add_double(&cross);
        if i.is_multiple_of(2) {
            let x = a.get(i / 2).copied().unwrap_or(0);
            c.acc.mac(x, x);
        }
        c.reduce(i, &m_rev, neg_inv);
    });
    c.finish(m)
}

/// Bits `[pos, pos + w)` of `e` (bits above the top of `e` read as zero).
/// `pos` and `w` are public; the result is computed without branching on `e`.
#[inline(always)]
fn window<const N: usize>(e: &[Word; N], pos: u32, w: u32) -> Word {
    let limb = (pos / Word::BITS) as usize;
    let shift = pos % Word::BITS;
    let mut bits = e.get(limb).map_or(0, |x| x >> shift);
    if shift + w > Word::BITS {
        bits |= e.get(limb + 1).map_or(0, |x| x << (Word::BITS - shift));
    }
    bits & ((1 << w) - 1)
}

/// Reads `table[idx]` touching every entry: each entry is ANDed with a mask
/// that is all ones only for the entry whose index equals `idx`
/// (`subtle::ConstantTimeEq`, `ConditionallySelectable`), and the masked
/// entries are ORed together. The masks are computed first, in their own
/// loop, so that the `subtle` optimization barrier (an opaque call) does not
/// sit inside the vectorized AND/OR loop.
#[inline(always)]
fn lookup<const N: usize, const T: usize>(table: &[Uint<N>; T], idx: Word) -> Uint<N> {
    let mut masks = [0 as Word; T];
    let mut i: Word = 0;
    for mask in &mut masks {
        *mask = Word::conditional_select(&0, &Word::MAX, i.ct_eq(&idx));
        i = i.wrapping_add(1);
    }
    let mut out = Uint::<N>::ZERO;
    for (entry, mask) in table.iter().zip(masks) {
        for (o, x) in out.as_mut_words().iter_mut().zip(entry.as_words()) {
            *o |= x & mask;
        }
    }
    out
}

/// Fixed-window exponentiation in Montgomery form: returns xᵉ·R mod m for
/// `x_mont` = x·R mod m (< m), scanning all `N·Word::BITS` bits of `e` in
/// windows of log2(T) bits from the top, whatever the bit length of `e`.
///
/// Cost: T − 2 products or squarings for the table, then per window log2(T)
/// squarings, one lookup reading all T entries and one product. Stack: the
/// table, T·N words (T = 32 with a 1024-bit modulus is 4 KiB; 8 KiB for
/// RSA-4096's 2048-bit primes). Constant time in `x_mont` and `e` (see the
/// module docs); the table is wiped before returning.
pub(crate) fn pow<const N: usize, const L: usize, const T: usize>(
    x_mont: &Uint<N>,
    e: &Uint<N>,
    params: &FixedMontyParams<N>,
) -> Uint<N> {
    pow_exp::<N, N, T>(x_mont, e, params)
}

/// [`pow`] with an exponent of `E` limbs, whatever the modulus size: the
/// `E·Word::BITS` bits of `e` are scanned from the top. The partially blind
/// RSA exponents e′ (`partial`) are half the modulus length, so a power of
/// a 2048-bit residue scans 1024 exponent bits instead of 2048.
pub(crate) fn pow_exp<const N: usize, const E: usize, const T: usize>(
    x_mont: &Uint<N>,
    e: &Uint<E>,
    params: &FixedMontyParams<N>,
) -> Uint<N> {
    const { assert!(T.is_power_of_two() && T >= 2 && T <= 1 << 8, "window table size must be 2^w, 1 ≤ w ≤ 8") };
    let w = T.trailing_zeros();

    // table[i] = x^i·R mod m: table[2k] = table[k]², table[2k+1] = table[2k]·x.
    let mut table = [Uint::<N>::ZERO; T];
    for (i, slot) in (0..T).zip(table.iter_mut()) {
        *slot = match i {
            0 => *params.one(),
            1 => *x_mont,
            _ => Uint::ZERO,
        };
    }
    for i in 2..T {
        let next = if i % 2 == 0 {
            table.get(i / 2).map(|h| square(h, params))
        } else {
            table.get(i - 1).map(|prev| mul(prev, x_mont, params))
        };
        if let (Some(slot), Some(v)) = (table.get_mut(i), next) {
            *slot = v;
        }
    }

    let e = e.as_words();
    let windows = Uint::<E>::BITS.div_ceil(w);
    let mut acc = lookup(&table, window(e, (windows - 1) * w, w));
    for j in (0..windows - 1).rev() {
        for _ in 0..w {
            acc = square(&acc, params);
        }
        acc = mul(&acc, &lookup(&table, window(e, j * w, w)), params);
    }
    table.zeroize();
    acc
}

/// x^65537 mod m for x < m, plain in and out: x·R by one product with R²,
/// sixteen Montgomery squarings, and a last product with the plain x, which
/// also leaves Montgomery form (x^65536·R · x · R⁻¹). The exponent is a
/// constant, so this is constant time in x (not only acceptable for public x).
/// 18 Montgomery products in all, against about 36 for crypto-bigint's
/// windowed `pow_bounded_exp` with a 17-bit exponent.
pub(crate) fn pow_65537<const N: usize>(x: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let y = mul(x, params.r2(), params);
    mul(&pow_65536_mont(&y, params), x, params)
}

/// y^65536 in Montgomery form, for y in Montgomery form: sixteen squarings.
pub(crate) fn pow_65536_mont<const N: usize>(y: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let mut y = *y;
    for _ in 0..16 {
        y = square(&y, params);
    }
    y
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crypto_bigint::modular::FixedMontyForm;
    use crypto_bigint::{NonZero, Odd, U256, U1024, U2048};

    use super::super::test_rng::TestInts;

    impl TestInts {
        /// An odd modulus; `full` sets the top bit (like an RSA prime),
        /// otherwise the top limb is small.
        fn modulus<const N: usize>(&mut self, full: bool) -> FixedMontyParams<N> {
            let mut m = self.uint::<N>();
            let top = m.as_mut_limbs().last_mut().unwrap();
            if full {
                top.0 |= 1 << (Word::BITS - 1);
            } else {
                top.0 >>= Word::BITS - 5;
                top.0 |= 1;
            }
            m.as_mut_limbs()[0].0 |= 1;
            FixedMontyParams::new(Odd::new(m).unwrap())
        }

        fn below<const N: usize>(&mut self, params: &FixedMontyParams<N>) -> Uint<N> {
            self.uint::<N>().rem(params.modulus().as_nz_ref())
        }
    }

    fn reference_mul<const N: usize>(a: &Uint<N>, b: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
        let a = FixedMontyForm::from_montgomery(*a, params);
        let b = FixedMontyForm::from_montgomery(*b, params);
        *a.mul(&b).as_montgomery()
    }

    fn check_square<const N: usize, const L: usize>(rng: &mut TestInts, full: bool, rounds: usize) {
        for _ in 0..rounds {
            let params = rng.modulus::<N>(full);
            let max = params.modulus().as_ref().wrapping_sub(&Uint::ONE);
            for a in [Uint::ZERO, Uint::ONE, max, *params.one(), rng.below(&params), rng.below(&params)] {
                assert_eq!(square(&a, &params), reference_mul(&a, &a, &params));
            }
            for _ in 0..4 {
                let (a, b) = (rng.below(&params), rng.below(&params));
                assert_eq!(mul(&a, &b, &params), reference_mul(&a, &b, &params));
            }
            // mul with a < R (not reduced), b < m: a·b < R·m is fully reduced.
            for a in [Uint::MAX, rng.uint::<N>()] {
                let expected = reference_mul(&a.rem(params.modulus().as_nz_ref()), &max, &params);
                assert_eq!(mul(&a, &max, &params), expected);
            }
        }
    }

    #[test]
    fn square_matches_crypto_bigint() {
        let mut rng = TestInts::new(0x9e37_79b9_7f4a_7c15);
        check_square::<{ U256::LIMBS }, { 2 * U256::LIMBS }>(&mut rng, true, 200);
        check_square::<{ U256::LIMBS }, { 2 * U256::LIMBS }>(&mut rng, false, 200);
        check_square::<1, 2>(&mut rng, true, 100);
        check_square::<3, 6>(&mut rng, true, 100);
        check_square::<{ U1024::LIMBS }, { 2 * U1024::LIMBS }>(&mut rng, true, 8);
        check_square::<{ U2048::LIMBS }, { 2 * U2048::LIMBS }>(&mut rng, true, 2);
    }

    fn check_redc<const N: usize, const L: usize>(rng: &mut TestInts, rounds: usize) {
        for _ in 0..rounds {
            let params = rng.modulus::<N>(true);
            let m = *params.modulus().as_ref();
            let nz = NonZero::new(m).unwrap();
            for (lo, hi) in [
                (rng.uint::<N>(), rng.below(&params)),
                (Uint::MAX, m.wrapping_sub(&Uint::ONE)),
                (Uint::ZERO, Uint::ZERO),
                (Uint::ONE, Uint::ZERO),
                (m, Uint::ZERO),
            ] {
                let wide: Uint<L> = lo.concat_resize(&hi);
                let expected = FixedMontyForm::from_montgomery(wide.rem(&nz), &params).retrieve();
                assert_eq!(redc::<N, L>(&wide, &params), expected);
            }
        }
    }

    #[test]
    fn redc_matches_division() {
        let mut rng = TestInts::new(0x0123_4567_89ab_cdef);
        check_redc::<{ U256::LIMBS }, { 2 * U256::LIMBS }>(&mut rng, 200);
        check_redc::<3, 6>(&mut rng, 100);
        check_redc::<{ U1024::LIMBS }, { 2 * U1024::LIMBS }>(&mut rng, 4);
    }

    fn check_pow<const N: usize, const L: usize, const T: usize>(rng: &mut TestInts, rounds: usize) {
        for _ in 0..rounds {
            let params = rng.modulus::<N>(true);
            let x = FixedMontyForm::new(&rng.below(&params), &params);
            let mut top = Uint::<N>::ZERO;
            top.as_mut_limbs().last_mut().unwrap().0 = 1 << (Word::BITS - 1);
            for e in [Uint::ZERO, Uint::ONE, Uint::from_u8(2), Uint::from_u8(31), Uint::MAX, top, rng.uint::<N>()] {
                let expected = x.pow(&e);
                assert_eq!(&pow::<N, L, T>(x.as_montgomery(), &e, &params), expected.as_montgomery(), "T = {T}");
            }
            // The bases 0, 1 and m − 1.
            let minus_one = FixedMontyForm::one(&params).neg();
            for base in [FixedMontyForm::zero(&params), FixedMontyForm::one(&params), minus_one] {
                let e = rng.uint::<N>();
                assert_eq!(&pow::<N, L, T>(base.as_montgomery(), &e, &params), base.pow(&e).as_montgomery());
            }
        }
    }

    #[test]
    fn fixed_window_pow_matches_crypto_bigint() {
        let mut rng = TestInts::new(0x5555_aaaa_1234_4321);
        check_pow::<{ U256::LIMBS }, { 2 * U256::LIMBS }, 2>(&mut rng, 10);
        check_pow::<{ U256::LIMBS }, { 2 * U256::LIMBS }, 8>(&mut rng, 10);
        check_pow::<{ U256::LIMBS }, { 2 * U256::LIMBS }, 16>(&mut rng, 10);
        check_pow::<{ U256::LIMBS }, { 2 * U256::LIMBS }, WINDOW_TABLE>(&mut rng, 10);
        check_pow::<{ U256::LIMBS }, { 2 * U256::LIMBS }, 64>(&mut rng, 10);
        check_pow::<3, 6, WINDOW_TABLE>(&mut rng, 10);
        check_pow::<{ U1024::LIMBS }, { 2 * U1024::LIMBS }, WINDOW_TABLE>(&mut rng, 1);
    }

    #[test]
    fn pow_65537_matches_crypto_bigint() {
        let mut rng = TestInts::new(0xdead_beef_cafe_f00d);
        let e = Uint::<1>::from_u32(65537);
        for _ in 0..20 {
            let params = rng.modulus::<{ U256::LIMBS }>(true);
            let m = params.modulus().as_ref();
            for x in [Uint::ZERO, Uint::ONE, m.wrapping_sub(&Uint::ONE), rng.below(&params)] {
                let expected = FixedMontyForm::new(&x, &params).pow(&e).retrieve();
                assert_eq!(pow_65537(&x, &params), expected);
            }
        }
        let params = rng.modulus::<{ U2048::LIMBS }>(true);
        let x = rng.below(&params);
        assert_eq!(pow_65537(&x, &params), FixedMontyForm::new(&x, &params).pow(&e).retrieve());
    }
}
