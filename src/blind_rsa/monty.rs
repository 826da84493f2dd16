//! Montgomery arithmetic for the RSA private operation: squaring as a
//! Karatsuba square plus a separate Montgomery reduction, a division-free
//! reduction of double-width values, a fixed-window exponentiation and the
//! public-exponent power x^65537.
//!
//! Everything works modulo an odd `N`-limb modulus m with the Montgomery
//! parameters of `FixedMontyParams` (R = 2^(N·Word::BITS), `mod_neg_inv` =
//! −m⁻¹ mod 2^W). Double-width values are `Uint<L>` with `L = 2·N`.
//!
//! # Why not `FixedMontyForm::pow`
//!
//! crypto-bigint 0.7 exponentiates with a 4-bit window and computes every
//! squaring with the general interleaved (CIOS) Montgomery multiplication.
//! Here a squaring is `Uint::widening_square` (Karatsuba, about 1.6 k
//! instructions for 1024 bits on x86-64) followed by [`redc`] (an
//! operand-scanning reduction whose inner loop has the constant trip count N,
//! so the compiler unrolls it), about 4.7 k instructions against 5.7 k; the
//! window is 5 bits (204 instead of 256 window products for a 1024-bit
//! exponent, for 16 more table entries). Products other than squarings use
//! crypto-bigint's `FixedMontyForm::mul`.
//!
//! # Constant time
//!
//! Every function here executes the same instruction and memory-access
//! sequence for all values of its integer arguments: loop bounds, limb indices
//! and exponent-window positions depend only on `N`, the window size and loop
//! counters, never on data. Limb products use the full-width `WideWord`
//! multiplication with carries propagated arithmetically (no branch). The
//! data-dependent final subtraction of a reduction is a `subtle` conditional
//! select, and crypto-bigint's `widening_square`, `borrowing_sub` and
//! `FixedMontyForm::mul`/`square` are its constant-time operations (no
//! `_vartime` function is called). The window table of [`pow`] is read in
//! full for every lookup, each entry ANDed with an all-zeros/all-ones mask
//! from a `subtle::ConstantTimeEq` comparison of its index with the window, so
//! no memory address depends on the secret exponent.
//!
//! None of it allocates, panics (slices are walked with iterators and `get`)
//! or uses `unsafe`. The window table is wiped after each exponentiation; the
//! stack temporaries of individual products are not (as in crypto-bigint),
//! which keeps the 2 000 squarings of a signature free of extra stores.

use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use crypto_bigint::{Limb, Uint, WideWord, Word};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

/// The window table size of the private operation: 2^5 entries, a 5-bit
/// fixed window (4 KiB of stack for a 1024-bit modulus).
pub(crate) const WINDOW_TABLE: usize = 32;

/// `carry·R + t`, known to be below 2m, reduced below m: subtracts m once if
/// `carry·R + t ≥ m`, in constant time (`subtle` select on the borrow).
#[inline(always)]
fn finish<const N: usize>(t: &Uint<N>, carry: Word, m: &Uint<N>) -> Uint<N> {
    let (d, borrow) = t.borrowing_sub(m, Limb::ZERO);
    // carry·R + t ≥ m ⇔ carry = 1 or the subtraction did not borrow.
    // `borrow` is 0 or Word::MAX, so `borrow + 1` is 1 or 0.
    let ge = (carry | borrow.0.wrapping_add(1)) & 1;
    #[allow(clippy::cast_possible_truncation)] // 0 or 1
    let ge = Choice::from(ge as u8);
    Uint::conditional_select(t, &d, ge)
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

/// The Montgomery square a²·R⁻¹ mod m for a < m, fully reduced.
pub(crate) fn square<const N: usize, const L: usize>(a: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let (lo, hi) = a.widening_square();
    redc::<N, L>(&lo.concat_resize(&hi), params)
}

/// The Montgomery product a·b·R⁻¹ mod m for a·b < R·m (e.g. a < R, b < m),
/// fully reduced: crypto-bigint's constant-time `FixedMontyForm::mul`.
pub(crate) fn mul<const N: usize>(a: &Uint<N>, b: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let a = FixedMontyForm::from_montgomery(*a, params);
    let b = FixedMontyForm::from_montgomery(*b, params);
    *a.mul(&b).as_montgomery()
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
            table.get(i / 2).map(|h| square::<N, L>(h, params))
        } else {
            table.get(i - 1).map(|prev| mul(prev, x_mont, params))
        };
        if let (Some(slot), Some(v)) = (table.get_mut(i), next) {
            *slot = v;
        }
    }

    let e = e.as_words();
    let windows = Uint::<N>::BITS.div_ceil(w);
    let mut acc = lookup(&table, window(e, (windows - 1) * w, w));
    for j in (0..windows - 1).rev() {
        for _ in 0..w {
            acc = square::<N, L>(&acc, params);
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
    let y = FixedMontyForm::new(x, params);
    mul(&pow_65536_mont(y.as_montgomery(), params), x, params)
}

/// y^65536 in Montgomery form, for y in Montgomery form: sixteen squarings.
pub(crate) fn pow_65536_mont<const N: usize>(y: &Uint<N>, params: &FixedMontyParams<N>) -> Uint<N> {
    let mut y = FixedMontyForm::from_montgomery(*y, params);
    for _ in 0..16 {
        y = y.square();
    }
    *y.as_montgomery()
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crypto_bigint::{NonZero, Odd, U256, U1024, U2048};

    /// xorshift64 (test only: reproducible inputs).
    struct XorShift(u64);

    impl XorShift {
        fn next(&mut self) -> u64 {
            let mut x = self.0;
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            self.0 = x;
            x
        }

        fn uint<const N: usize>(&mut self) -> Uint<N> {
            let mut limbs = [Limb::ZERO; N];
            for l in &mut limbs {
                l.0 = self.next() as Word;
            }
            Uint::new(limbs)
        }

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

    fn check_square<const N: usize, const L: usize>(rng: &mut XorShift, full: bool, rounds: usize) {
        for _ in 0..rounds {
            let params = rng.modulus::<N>(full);
            let max = params.modulus().as_ref().wrapping_sub(&Uint::ONE);
            for a in [Uint::ZERO, Uint::ONE, max, *params.one(), rng.below(&params), rng.below(&params)] {
                assert_eq!(square::<N, L>(&a, &params), reference_mul(&a, &a, &params));
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
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        check_square::<{ U256::LIMBS }, { 2 * U256::LIMBS }>(&mut rng, true, 200);
        check_square::<{ U256::LIMBS }, { 2 * U256::LIMBS }>(&mut rng, false, 200);
        check_square::<1, 2>(&mut rng, true, 100);
        check_square::<3, 6>(&mut rng, true, 100);
        check_square::<{ U1024::LIMBS }, { 2 * U1024::LIMBS }>(&mut rng, true, 8);
        check_square::<{ U2048::LIMBS }, { 2 * U2048::LIMBS }>(&mut rng, true, 2);
    }

    fn check_redc<const N: usize, const L: usize>(rng: &mut XorShift, rounds: usize) {
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
        let mut rng = XorShift(0x0123_4567_89ab_cdef);
        check_redc::<{ U256::LIMBS }, { 2 * U256::LIMBS }>(&mut rng, 200);
        check_redc::<3, 6>(&mut rng, 100);
        check_redc::<{ U1024::LIMBS }, { 2 * U1024::LIMBS }>(&mut rng, 4);
    }

    fn check_pow<const N: usize, const L: usize, const T: usize>(rng: &mut XorShift, rounds: usize) {
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
        let mut rng = XorShift(0x5555_aaaa_1234_4321);
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
        let mut rng = XorShift(0xdead_beef_cafe_f00d);
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
