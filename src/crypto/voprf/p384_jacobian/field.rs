//! The P-384 base field, `p = 2^384 − 2^128 − 2^96 + 2^32 − 1`, in
//! Montgomery form (`R = 2^384`) on crypto-bigint's machine words: six
//! 64-bit limbs on 64-bit targets, twelve 32-bit limbs on 32-bit ones (the
//! code is the same; only `Word` changes). Everything the Jacobian formulas,
//! the batch normalization and `hash_to_curve`'s `sqrt_ratio` need, and
//! nothing else.
//!
//! # Why not `p384`'s `FieldElement`
//!
//! `p384::FieldElement` (through `hazmat::FieldArithmetic`) does this job and
//! was used here before: it is constant time and correct. Its product is
//! crypto-bigint's generic `mul_montgomery_form`, an operand-scanning loop
//! over a runtime modulus whose partial-product row goes through memory, and
//! its addition and subtraction are generic too. In a P-384 scalar
//! multiplication almost every instruction is one of these (doublings, 3M +
//! 5S each, are three quarters of it).
//!
//! Here the product scans columns instead (FIPS, as `blind_rsa::monty` does
//! for RSA): every limb product of a column and every reduction product
//! `u_j·p_k` go into a register accumulator, the modulus is a constant (so
//! its all-ones and zero limbs fold), `−p⁻¹ mod 2^64 = 2^32 + 1` (`1` for
//! 32-bit words) is a constant, the columns are expanded with literal
//! indices so nothing is looped over, and the square computes each cross
//! product once. The instruction counts against `p384::FieldElement` and the
//! variants tried (mask selects, a three-word accumulator) are in
//! `docs/reports/2026-12-01-crypto-design-measurements.md`.
//!
//! Inversion is `p384`'s safegcd through the encoding (half the cost of
//! Fermat's on this field, see [`Fe::invert`]); a batch of values shares one
//! (`crypto::jacobian::Coord::batch_invert`). The power `(p − 3)/4` of the square root is an
//! addition chain ([`Fe::pow_c1`]).
//!
//! # Constant time
//!
//! No branch and no memory index depends on a value: the loops have constant
//! bounds, the limb products are full `WideWord` multiplications, carries and
//! borrows are propagated arithmetically, and the final conditional
//! subtraction (or addition of `p`) is an AND/OR selection with a mask that
//! comes out of `subtle`'s optimization barrier ([`mask`]). Mask arithmetic on
//! the carry bit itself was compiled into conditional moves, which
//! `scripts/ctgrind` flags; through the barrier the compiler cannot tell the
//! mask has two values, so the selection stays arithmetic. Comparison is
//! `subtle`'s.

use core::ops::{Add, Mul, Neg, Sub};

use crypto_bigint::{U384, WideWord, Word};
use p384::NistP384;
use p384::elliptic_curve::ff::PrimeField;
use p384::elliptic_curve::hazmat::FieldArithmetic;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq, CtOption};

/// `p384`'s base field element (through the `hazmat` trait), which
/// `hash_to_field` produces.
pub(super) type P384Fe = <NistP384 as FieldArithmetic>::FieldElement;

/// Limbs of a field element.
const LIMBS: usize = U384::LIMBS;
/// Bytes per limb.
const WORD_BYTES: usize = (Word::BITS / 8) as usize;
/// The modulus, least significant limb first.
const P: [Word; LIMBS] = U384::from_be_hex(
    "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff",
)
.to_words();
/// `R² mod p`, to enter Montgomery form.
const R2: [Word; LIMBS] = U384::from_be_hex(
    "000000000000000000000000000000010000000200000000fffffffe000000000000000200000000fffffffe00000001",
)
.to_words();
/// `−p⁻¹ mod 2^W`: `p ≡ 2^32 − 1 (mod 2^64)`, so `2^32 + 1` for 64-bit
/// words and `1` for 32-bit words. Computed by Newton's iteration.
const NEG_INV: Word = {
    let p0 = P[0];
    let mut inv: Word = 1;
    let mut i = 0;
    while i < 7 {
        inv = inv.wrapping_mul((2 as Word).wrapping_sub(p0.wrapping_mul(inv)));
        i += 1;
    }
    inv.wrapping_neg()
};

/// An element of the P-384 base field in Montgomery form, `x·R mod p`,
/// always fully reduced (below `p`), so equal values have equal limbs.
#[derive(Clone, Copy, Default)]
pub(super) struct Fe([Word; LIMBS]);

impl zeroize::Zeroize for Fe {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl core::fmt::Debug for Fe {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // Coordinates of secret multiples: the value is not printed.
        f.write_str("Fe")
    }
}

/// `x[i]`, or 0 past the end (never reached: every index below is bounded by
/// a constant, so the check folds away).
#[inline(always)]
fn get(x: &[Word; LIMBS], i: usize) -> Word {
    x.get(i).copied().unwrap_or(0)
}

/// The low word of a double word.
#[inline(always)]
fn lo(x: WideWord) -> Word {
    #[allow(clippy::cast_possible_truncation)] // the low word, by design
    let w = x as Word;
    w
}

/// `a − b` and the borrow (0 or 1), limb by limb with the borrow carried
/// arithmetically (no branch).
#[inline(always)]
fn sub_borrow(a: &[Word; LIMBS], b: &[Word; LIMBS]) -> ([Word; LIMBS], Word) {
    let mut d = [0; LIMBS];
    let mut borrow: Word = 0;
    for ((o, x), y) in d.iter_mut().zip(a).zip(b) {
        let t = WideWord::from(*x).wrapping_sub(WideWord::from(*y)).wrapping_sub(WideWord::from(borrow));
        *o = lo(t);
        // The high word is all ones after an underflow, zero otherwise.
        borrow = lo(t >> Word::BITS) & 1;
    }
    (d, borrow)
}

/// `bit` (0 or 1) as a `subtle` choice, whose optimization barrier keeps the
/// compiler from turning the selections below into branches or conditional
/// moves (an earlier version with plain mask arithmetic got `cmov`s, which
/// `scripts/ctgrind` flagged).
#[inline(always)]
fn choice(bit: Word) -> Choice {
    #[allow(clippy::cast_possible_truncation)] // one bit
    let bit = (bit & 1) as u8;
    Choice::from(bit)
}

/// `bit` (0 or 1) as an all-zeros or all-ones word, through `subtle`'s
/// optimization barrier: the compiler cannot see that the mask has only two
/// values, so the AND/OR selections with it stay arithmetic (no `cmov`, no
/// branch), and the selection costs no call into crypto-bigint.
#[inline(always)]
fn mask(bit: Word) -> Word {
    Word::conditional_select(&0, &Word::MAX, choice(bit))
}

/// `a` where `m = 0`, `b` where `m` is all ones.
#[inline(always)]
fn select(a: &[Word; LIMBS], b: &[Word; LIMBS], m: Word) -> [Word; LIMBS] {
    let mut out = *a;
    for (o, y) in out.iter_mut().zip(b) {
        *o ^= m & (*o ^ y);
    }
    out
}

/// `carry·R + t` reduced below `p`, for `carry·R + t < 2p`: subtracts `p`
/// unless that borrows out of the carry word (as `blind_rsa::monty`).
#[inline(always)]
fn reduce_once(t: &[Word; LIMBS], carry: Word) -> [Word; LIMBS] {
    let (d, borrow) = sub_borrow(t, &P);
    // carry·R + t ≥ p ⇔ carry = 1 or the subtraction did not borrow.
    select(t, &d, mask(carry | (borrow ^ 1)))
}

/// A column accumulator for product scanning (as in `blind_rsa::monty`):
/// `lo` sums the low words of the limb products, `hi` their high words, so no
/// addition can overflow (a column has at most 2·LIMBS + 2 terms) and no
/// carry flag has to be recovered.
#[derive(Clone, Copy)]
struct Acc {
    lo: WideWord,
    hi: WideWord,
}

impl Acc {
    const ZERO: Self = Self { lo: 0, hi: 0 };

    /// acc += a·b.
    #[inline(always)]
    fn mac(&mut self, a: Word, b: Word) {
        let p = WideWord::from(a) * WideWord::from(b);
        self.lo += p & WideWord::from(Word::MAX);
        self.hi += p >> Word::BITS;
    }

    /// acc += 2·other (the cross products of a square count twice).
    #[inline(always)]
    fn add_double(&mut self, other: &Self) {
        self.lo += other.lo << 1;
        self.hi += other.hi << 1;
    }

    /// Moves on to the next column: the low word is dropped, the rest is the
    /// next column's carry.
    #[inline(always)]
    fn shift(&mut self) {
        self.lo = (self.lo >> Word::BITS) + self.hi;
        self.hi = 0;
    }
}

/// The reduction half of a product-scanning Montgomery multiplication: the
/// accumulator, the multipliers `u_0 … u_(L−1)` and the result limbs.
struct Columns {
    acc: Acc,
    u: [Word; LIMBS],
    r: [Word; LIMBS],
}

impl Columns {
    const NEW: Self = Self { acc: Acc::ZERO, u: [0; LIMBS], r: [0; LIMBS] };

    /// Column `i` after its operand products: adds `u_j·p_(i−j)` for the
    /// `u_j` known so far; for `i < LIMBS` picks `u_i = acc·(−p⁻¹) mod W`,
    /// which clears the column's low word once `u_i·p_0` is added; for
    /// `i ≥ LIMBS` the low word is result limb `i − LIMBS`.
    #[inline(always)]
    fn reduce(&mut self, i: usize) {
        if i < LIMBS {
            for j in 0..i {
                self.acc.mac(get(&self.u, j), get(&P, i - j));
            }
            let ui = lo(self.acc.lo).wrapping_mul(NEG_INV);
            if let Some(slot) = self.u.get_mut(i) {
                *slot = ui;
            }
            self.acc.mac(ui, get(&P, 0));
        } else {
            for j in i + 1 - LIMBS..LIMBS {
                self.acc.mac(get(&self.u, j), get(&P, i - j));
            }
            if let Some(slot) = self.r.get_mut(i - LIMBS) {
                *slot = lo(self.acc.lo);
            }
        }
        self.acc.shift();
    }

    /// The last limb and the carry, then the conditional subtraction:
    /// `(a·b + U·p)/R < 2p` becomes `< p`.
    #[inline(always)]
    fn finish(mut self) -> Fe {
        if let Some(last) = self.r.last_mut() {
            *last = lo(self.acc.lo);
        }
        self.acc.shift();
        Fe(reduce_once(&self.r, lo(self.acc.lo)))
    }
}

/// Runs `$column` for every column `0 ≤ i < 2·LIMBS − 1`. On hosts each
/// call gets a literal index (11 columns of six 64-bit limbs, or 23 of twelve
/// 32-bit limbs on i686), so that every inner loop has a constant trip count
/// after inlining and unrolls completely. On 32-bit bare-metal targets
/// (microcontrollers) the columns stay a loop: fully unrolled, a product
/// alone is several KiB of Thumb code, and the Cortex-M4 flash budget of the
/// type-1 client (`scripts/footprint`) does not have room for it.
#[cfg(any(target_pointer_width = "64", not(target_os = "none")))]
macro_rules! for_each_column {
    ($column:expr) => {
        for_each_column!(@ $column; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22)
    };
    (@ $column:expr; $($i:literal)*) => {
        $(
            if $i < 2 * LIMBS - 1 {
                $column($i);
            }
        )*
    };
}

#[cfg(not(any(target_pointer_width = "64", not(target_os = "none"))))]
macro_rules! for_each_column {
    ($column:expr) => {
        for i in 0..2 * LIMBS - 1 {
            $column(i);
        }
    };
}

impl Fe {
    /// Zero.
    pub(super) const ZERO: Self = Self([0; LIMBS]);
    /// One, `R mod p`.
    pub(super) const ONE: Self = Self::from_montgomery_hex(
        "000000000000000000000000000000000000000000000000000000000000000100000000ffffffffffffffff00000001",
    );

    /// The element whose Montgomery form `x·R mod p` is the given big-endian
    /// hex (for constants, checked in the tests; must be below `p`).
    pub(super) const fn from_montgomery_hex(hex: &str) -> Self {
        Self(U384::from_be_hex(hex).to_words())
    }

    /// `a·b·R⁻¹ mod p` on raw limbs, for `a·b < R·p`: product scanning with
    /// the reduction interleaved column by column, 2·L² limb products.
    #[inline(always)]
    fn mont_mul(a: &[Word; LIMBS], b: &[Word; LIMBS]) -> Self {
        let mut c = Columns::NEW;
        let mut column = |i: usize| {
            // a_j·b_(i−j) for max(0, i + 1 − L) ≤ j ≤ min(i, L − 1).
            for j in (i + 1).saturating_sub(LIMBS)..=i.min(LIMBS - 1) {
                c.acc.mac(get(a, j), get(b, i - j));
            }
            c.reduce(i);
        };
        for_each_column!(column);
        c.finish()
    }

    /// `self·rhs`. Inlined into the point formulas on hosts; one out-of-line
    /// copy on 32-bit bare-metal targets (flash).
    #[cfg_attr(any(target_pointer_width = "64", not(target_os = "none")), inline)]
    #[cfg_attr(not(any(target_pointer_width = "64", not(target_os = "none"))), inline(never))]
    pub(super) fn mul(&self, rhs: &Self) -> Self {
        Self::mont_mul(&self.0, &rhs.0)
    }

    /// `self²`: as [`Fe::mul`], but each column sums its cross products
    /// `a_j·a_(i−j)`, `j < i − j`, once and adds them twice, plus `a_(i/2)²`
    /// for even `i`: L(L + 1)/2 + L² limb products instead of 2·L².
    #[cfg_attr(any(target_pointer_width = "64", not(target_os = "none")), inline)]
    #[cfg_attr(not(any(target_pointer_width = "64", not(target_os = "none"))), inline(never))]
    pub(super) fn square(&self) -> Self {
        let a = &self.0;
        let mut c = Columns::NEW;
        let mut column = |i: usize| {
            let mut cross = Acc::ZERO;
            for j in (i + 1).saturating_sub(LIMBS)..i.div_ceil(2) {
                cross.mac(get(a, j), get(a, i - j));
            }
            c.acc.add_double(&cross);
            if i.is_multiple_of(2) {
                let x = get(a, i / 2);
                c.acc.mac(x, x);
            }
            c.reduce(i);
        };
        for_each_column!(column);
        c.finish()
    }

    /// `self + rhs`.
    #[inline]
    pub(super) fn add(&self, rhs: &Self) -> Self {
        let mut sum = [0; LIMBS];
        let mut carry: Word = 0;
        for ((o, x), y) in sum.iter_mut().zip(&self.0).zip(&rhs.0) {
            let s = WideWord::from(*x) + WideWord::from(*y) + WideWord::from(carry);
            *o = lo(s);
            carry = lo(s >> Word::BITS);
        }
        Self(reduce_once(&sum, carry))
    }

    /// `self − rhs`: the difference, plus `p` if it borrowed (selected).
    #[inline]
    pub(super) fn sub(&self, rhs: &Self) -> Self {
        let (d, borrow) = sub_borrow(&self.0, &rhs.0);
        let m = mask(borrow);
        let mut out = [0; LIMBS];
        let mut carry: Word = 0;
        for ((o, x), p) in out.iter_mut().zip(&d).zip(&P) {
            let s = WideWord::from(*x) + WideWord::from(p & m) + WideWord::from(carry);
            *o = lo(s);
            carry = lo(s >> Word::BITS);
        }
        Self(out)
    }

    /// `2·self`.
    #[inline]
    pub(super) fn double(&self) -> Self {
        self.add(self)
    }

    /// `−self` (`0 − self`, so zero stays zero).
    #[inline]
    pub(super) fn neg(&self) -> Self {
        Self::sub(&Self::ZERO, self)
    }

    /// Whether `self = 0`, in constant time.
    pub(super) fn is_zero(&self) -> Choice {
        self.ct_eq(&Self::ZERO)
    }

    /// The canonical value `x` (out of Montgomery form), limbs.
    fn canonical(&self) -> [Word; LIMBS] {
        // The plain 1 (whose Montgomery form this is not).
        const PLAIN_ONE: Fe = Fe::from_montgomery_hex(
            "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000001",
        );
        self.mul(&PLAIN_ONE).0
    }

    /// Whether the canonical value is odd (`sgn0`, RFC 9380 §4.1).
    pub(super) fn is_odd(&self) -> Choice {
        #[allow(clippy::cast_possible_truncation)] // one bit
        let bit = (self.canonical().first().copied().unwrap_or(0) & 1) as u8;
        Choice::from(bit)
    }

    /// The big-endian 48-byte encoding of the canonical value (SEC1 field
    /// element encoding).
    pub(super) fn to_bytes(self) -> [u8; 48] {
        let mut out = [0u8; 48];
        for (chunk, limb) in out.rchunks_exact_mut(WORD_BYTES).zip(self.canonical()) {
            chunk.copy_from_slice(&limb.to_be_bytes());
        }
        out
    }

    /// The element with the given big-endian 48-byte encoding, if it is
    /// canonical (below `p`); decided in constant time.
    pub(super) fn from_bytes(bytes: &[u8; 48]) -> CtOption<Self> {
        let mut x = [0; LIMBS];
        for (limb, chunk) in x.iter_mut().zip(bytes.rchunks_exact(WORD_BYTES)) {
            let mut word = [0u8; WORD_BYTES];
            word.copy_from_slice(chunk);
            *limb = Word::from_be_bytes(word);
        }
        // x < p ⇔ x − p borrows.
        let (_, borrow) = sub_borrow(&x, &P);
        let canonical = choice(borrow);
        // x·R² ·R⁻¹ = x·R; x < R and R² < p, so the product bound holds.
        CtOption::new(Self::mul(&Self(x), &Self(R2)), canonical)
    }

    /// The same element as `p384`'s. Its encoding is always canonical, so
    /// the zero fallback is never taken (and costs no branch).
    pub(super) fn from_p384(x: &P384Fe) -> Self {
        Self::from_bytes(&x.to_repr().into()).unwrap_or(Self::ZERO)
    }

    /// `x^(2^n)`.
    pub(super) fn sqn(&self, n: usize) -> Self {
        let mut y = *self;
        for _ in 0..n {
            y = y.square();
        }
        y
    }

    /// `x^c1` with `c1 = (p − 3)/4 = 2^382 − 2^126 − 2^94 + 2^30 − 1`, whose
    /// bits are: 255 ones (bits 127 to 381), a zero, 32 ones (94 to 125), 64
    /// zeros and 30 ones (0 to 29). `x_k = x^(2^k − 1)` is built for k = 2,
    /// 3, 6, 12, 15, 30, 32, 60, 120, 240, 255, then the three runs are
    /// shifted into place: 383 squarings and 13 multiplications, a fixed
    /// sequence (constant time). The square root of RFC 9380's `sqrt_ratio`
    /// for `q ≡ 3 (mod 4)`.
    pub(super) fn pow_c1(&self) -> Self {
        let x = *self;
        let x2 = x.sqn(1) * x;
        let x3 = x2.sqn(1) * x;
        let x6 = x3.sqn(3) * x3;
        let x12 = x6.sqn(6) * x6;
        let x15 = x12.sqn(3) * x3;
        let x30 = x15.sqn(15) * x15;
        let x32 = x30.sqn(2) * x2;
        let x60 = x30.sqn(30) * x30;
        let x120 = x60.sqn(60) * x60;
        let x240 = x120.sqn(120) * x120;
        let x255 = x240.sqn(15) * x15;
        // x255·2^127 + x32·2^94 + x30.
        let t = x255.sqn(1 + 32) * x32;
        t.sqn(64 + 30) * x30
    }

    /// `1/x` (zero gives zero), by `p384`'s constant-time safegcd inversion
    /// (crypto-bigint's Bernstein–Yang), through the canonical encoding: about
    /// half the instructions of Fermat's `x^(p − 2) = (x^c1)^4·x` on this
    /// field's squares (385 squarings, 14 products; the counts are in
    /// `docs/reports/2026-12-01-crypto-design-measurements.md`). The two conversions cost two products.
    pub(super) fn invert(&self) -> Self {
        let x = P384Fe::from_repr(self.to_bytes().into()).unwrap_or(P384Fe::ZERO);
        Self::from_p384(&x.invert().unwrap_or(P384Fe::ZERO))
    }
}

impl ConditionallySelectable for Fe {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        let mut out = [0; LIMBS];
        for ((o, x), y) in out.iter_mut().zip(&a.0).zip(&b.0) {
            *o = Word::conditional_select(x, y, choice);
        }
        Self(out)
    }
}

impl ConstantTimeEq for Fe {
    fn ct_eq(&self, other: &Self) -> Choice {
        self.0.ct_eq(&other.0)
    }
}

impl Mul for Fe {
    type Output = Self;
    #[inline]
    fn mul(self, rhs: Self) -> Self {
        Fe::mul(&self, &rhs)
    }
}

impl Add for Fe {
    type Output = Self;
    #[inline]
    fn add(self, rhs: Self) -> Self {
        Fe::add(&self, &rhs)
    }
}

impl Sub for Fe {
    type Output = Self;
    #[inline]
    fn sub(self, rhs: Self) -> Self {
        Fe::sub(&self, &rhs)
    }
}

impl Neg for Fe {
    type Output = Self;
    #[inline]
    fn neg(self) -> Self {
        Fe::neg(&self)
    }
}

impl crate::crypto::jacobian::Coord for Fe {
    const ZERO: Self = Self::ZERO;
    const ONE: Self = Self::ONE;

    #[inline]
    fn square(&self) -> Self {
        Fe::square(self)
    }

    #[inline]
    fn double(&self) -> Self {
        Fe::double(self)
    }

    #[inline]
    fn is_zero(&self) -> Choice {
        Fe::is_zero(self)
    }

    fn invert(&self) -> Self {
        Fe::invert(self)
    }
}
