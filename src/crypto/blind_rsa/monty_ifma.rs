//! The RSA-2048 private operation's two half-size powers (and the fault
//! check's two short ones) with AVX-512 IFMA: x86_64 with the `std` feature,
//! chosen at run time (see `kernel`).
//!
//! Both CRT halves run in the same instructions. A number is 20 limbs of 52
//! bits (1040 bits), and a [`Pair`] of numbers, one modulo p and one modulo
//! q, fills five 512-bit vectors exactly: vector r holds p's limbs 4r..4r+3
//! in its low four lanes and q's in its high four. The Montgomery radix is
//! R = 2^1040. `vpmadd52luq`/`vpmadd52huq` add the low and high 52 bits of
//! 52×52-bit lane products to 64-bit accumulators, so one row of an almost
//! Montgomery multiplication (AMM: acc = (acc + a·b_i + y·m)/2^52 with
//! y = acc·(−m⁻¹) mod 2^52) is 21 multiply-adds and a lane shift for both
//! halves at once. Because 4m < R, operands below 2m give a product below
//! 2m, so no product ends in a conditional subtraction; only the final
//! result is reduced below m. The power is the 5-bit fixed window of
//! `monty::pow`. This is the design of the AVX-512 RSA-2048 code in OpenSSL
//! and AWS-LC (Gueron and Krasnov, "Software implementation of modular
//! exponentiation, using advanced vector instructions architectures", WAIFI
//! 2012; Drucker and Gueron, "Fast modular squaring with AVX512IFMA", 2018),
//! written here from the papers with `core::arch` intrinsics.
//!
//! # Why not the portable kernel
//!
//! Running the two halves' portable squares interleaved column by column
//! gains nothing (that kernel is bound by its multiply and add-with-carry
//! throughput, not by latency), so the cheaper alternative to SIMD was
//! dropped. With each half in its own vectors the compiler scheduled the
//! two halves one after the other (to save registers); the pair layout here
//! gives the interleaving to every instruction and uses every lane. The
//! measurements are in
//! `docs/reports/2026-12-04-issue35-rsa-ifma-cluster-type5.md`.
//!
//! # Safety without `unsafe`
//!
//! The crate forbids `unsafe`. The intrinsics are reached through `pulp`: a
//! token type ([`Ifma`], from `pulp::simd_type!`) exists only after run-time
//! CPU detection (`std::is_x86_feature_detected!`, which also checks that the
//! OS saves the AVX-512 state) has succeeded, its methods are the intrinsics,
//! and `vectorize` runs a closure compiled with the token's target features.
//! Everything in between is `#[inline(always)]` and free of closures (a
//! closure is compiled without the target features, and the intrinsics in it
//! stop being inlined), so each power is one function compiled for AVX-512
//! IFMA. Vectors move to and from limb arrays with `bytemuck::cast` (plain
//! moves). The `unsafe` this takes lives in `pulp` (its intrinsic wrappers,
//! and the expansion of its `simd_type!` macro, which rustc attributes to
//! `pulp`: our `forbid(unsafe_code)` does not see it) and in `bytemuck`.
//!
//! # Constant time
//!
//! As in `monty`: the instruction and memory-access sequence depends only on
//! public sizes and loop counters. Carries are propagated with vector shifts
//! and one integer addition on the lanes' compare masks (no branch). The
//! window table is read in full for every lookup: each entry is blended in
//! under a mask from a lane compare of its index with the secret windows.
//! The table, the primes' vectors and the inputs' copies are wiped after each
//! power; the registers and stack temporaries of single products are not
//! (as in `monty`). valgrind has no AVX-512, so the `ctgrind` harness sees
//! the CPU without IFMA and checks the portable kernel only.

// The kernel indexes fixed-size arrays of vectors with literal indices (the
// rows of a product are unrolled by a macro) and public loop counters below
// the array lengths.
#![allow(clippy::indexing_slicing)]

use core::arch::x86_64::__m512i;

use crypto_bigint::modular::FixedMontyParams;
use crypto_bigint::{NonZero, Uint};
use zeroize::Zeroize;

pulp::simd_type! {
    pub(crate) struct Ifma {
        pub f: "avx512f",
        pub vl: "avx512vl",
        pub ifma: "avx512ifma",
    }
}

/// The limb count of the primes this kernel handles: 1024 bits.
pub(crate) const PRIME_LIMBS: usize = 16;

/// A pair of numbers, one modulo p and one modulo q, each 20 limbs of 52 bits:
/// vector r holds p's limbs 4r..4r+3 in lanes 0..3 and q's in lanes 4..7,
/// so that every instruction works on both CRT halves.
type Pair = [__m512i; 5];
const MASK52: u64 = (1 << 52) - 1;
const LIMBS: usize = 20;
/// The bits of the IFMA radix R = 2^1040 (20 limbs of 52) and of the
/// portable radix 2^1024 (16 limbs of 64).
const RADIX_BITS: u32 = 1040;
const PRIME_BITS: u32 = 1024;
/// The window table of the fixed-window power: 2^5 entries.
const TABLE: usize = 32;
const WINDOW: u32 = 5;

/// Per-prime constants of the IFMA power, computed with the key.
pub(crate) struct PrimeConsts<const H: usize> {
    /// 2^(64·H + 2·1040) mod p: an AMM with it takes the REDC output
    /// x·2^-(64·H) to x·2^1040.
    to: Uint<H>,
    /// 2^1040 mod p, the Montgomery form of 1.
    one: Uint<H>,
}

impl<const H: usize> PrimeConsts<H> {
    /// The constants for `params` with r3 = 2^(3·64·H) mod p, by constant-time
    /// modular doublings (cheap next to loading a key).
    pub(crate) fn new(params: &FixedMontyParams<H>, r3: &Uint<H>) -> Self {
        let p = params.modulus().as_nz_ref();
        Self {
            to: doubled(r3, p, 2 * (RADIX_BITS - PRIME_BITS)),
            one: doubled(params.one(), p, RADIX_BITS - PRIME_BITS),
        }
    }
}

impl<const H: usize> Zeroize for PrimeConsts<H> {
    fn zeroize(&mut self) {
        self.to.zeroize();
        self.one.zeroize();
    }
}

/// x·2^k mod p for x < p.
pub(super) fn doubled<const H: usize>(x: &Uint<H>, p: &NonZero<Uint<H>>, k: u32) -> Uint<H> {
    let mut x = *x;
    for _ in 0..k {
        x = x.add_mod(&x, p);
    }
    x
}

/// 64-bit limbs (a 1024-bit value) to 20 limbs of 52 bits.
fn to52(x: &[u64; PRIME_LIMBS]) -> [u64; LIMBS] {
    let mut out = [0u64; LIMBS];
    for (j, o) in out.iter_mut().enumerate() {
        let bit = 52 * j;
        let (w, sh) = (bit / 64, bit % 64);
        let mut v = x.get(w).map_or(0, |x| x >> sh);
        if sh > 12 {
            v |= x.get(w + 1).map_or(0, |x| x << (64 - sh));
        }
        *o = v & MASK52;
    }
    out
}

/// 20 normalized 52-bit limbs (a value below 2^1040) to 64-bit limbs and
/// the bits above 2^1024 (an almost-Montgomery result below m + 2^1009 can
/// reach 2^1024 when m lies within 2^1009 of it: [`reduce`] takes them into
/// account).
fn from52(x: &[u64; LIMBS]) -> ([u64; PRIME_LIMBS], u64) {
    let mut out = [0u64; PRIME_LIMBS];
    let (mut acc, mut bits, mut k) = (0u128, 0u32, 0usize);
    for l in x {
        acc |= u128::from(*l) << bits;
        bits += 52;
        if bits >= 64 {
            if let Some(o) = out.get_mut(k) {
                #[allow(clippy::cast_possible_truncation)] // the low word, by design
                {
                    *o = acc as u64;
                }
            }
            k += 1;
            acc >>= 64;
            bits -= 64;
        }
    }
    #[allow(clippy::cast_possible_truncation)] // 16 bits are left: 20·52 − 16·64
    (out, acc as u64)
}

/// x mod m for x = top·2^1024 + low < 2m: one constant-time conditional
/// subtraction, taken when top is not zero or low ≥ m (then low − m, taken
/// modulo 2^1024, is the value).
pub(super) fn reduce((x, top): &([u64; PRIME_LIMBS], u64), m: &[u64; PRIME_LIMBS]) -> [u64; PRIME_LIMBS] {
    let mut d = [0u64; PRIME_LIMBS];
    let mut borrow = 0u64;
    for ((o, a), b) in d.iter_mut().zip(x).zip(m) {
        let diff = u128::from(*a).wrapping_sub(u128::from(*b) + u128::from(borrow));
        #[allow(clippy::cast_possible_truncation)] // the low word and the borrow bit
        {
            *o = diff as u64;
            borrow = (diff >> 127) as u64;
        }
    }
    // All ones when top ≠ 0 or low ≥ m (no borrow): take the difference.
    let top_set = (*top | top.wrapping_neg()) >> 63;
    let mask = 0u64.wrapping_sub(top_set | (borrow ^ 1));
    let mut out = *x;
    for (o, v) in out.iter_mut().zip(d) {
        *o ^= (*o ^ v) & mask;
    }
    out
}

/// The pair (x mod p, y mod q) in the layout of [`Pair`].
fn pair(x: &[u64; PRIME_LIMBS], y: &[u64; PRIME_LIMBS]) -> Pair {
    let (x, y) = (to52(x), to52(y));
    let mut lanes = [0u64; 2 * LIMBS];
    for ((out, x), y) in lanes.chunks_exact_mut(8).zip(x.chunks_exact(4)).zip(y.chunks_exact(4)) {
        let (lo, hi) = out.split_at_mut(4);
        lo.copy_from_slice(x);
        hi.copy_from_slice(y);
    }
    bytemuck::cast(lanes)
}

/// The two numbers of a normalized pair, as 64-bit limbs.
fn unpair(v: Pair) -> [([u64; PRIME_LIMBS], u64); 2] {
    let lanes: [u64; 2 * LIMBS] = bytemuck::cast(v);
    let (mut x, mut y) = ([0u64; LIMBS], [0u64; LIMBS]);
    for ((lanes, x), y) in lanes.chunks_exact(8).zip(x.chunks_exact_mut(4)).zip(y.chunks_exact_mut(4)) {
        let (lo, hi) = lanes.split_at(4);
        x.copy_from_slice(lo);
        y.copy_from_slice(hi);
    }
    [from52(&x), from52(&y)]
}

/// Lane indices: `[a, a, a, a, b, b, b, b]`.
#[inline(always)]
fn halves(s: Ifma, a: i64, b: i64) -> __m512i {
    s.f._mm512_set_epi64(b, b, b, b, a, a, a, a)
}

/// Normalizes the lanes of an AMM result to 52 bits: each lane's carry
/// (bits 52..64) moves one limb up within its half; a limb can then exceed
/// 2^52 − 1 by at most 2^12, so one more carry resolves everything, computed
/// for all limbs at once from the "generate" (> 2^52 − 1) and "propagate"
/// (= 2^52 − 1) bit masks as carry_in = ((g << 1) + p) ⊕ p, with p's limbs
/// in bits 0..20 and q's in bits 32..52 of one word.
#[inline(always)]
fn normalize(s: Ifma, r: Pair) -> Pair {
    let f = s.f;
    let zero = f._mm512_setzero_si512();
    let mask = f._mm512_set1_epi64(MASK52.cast_signed());
    // Limb j's carry goes to limb j + 1: lanes 1..3 from lanes 0..2 of the
    // same vector, lane 0 from lane 3 of the vector below (4 and 7 for q).
    let up = f._mm512_set_epi64(14, 13, 12, 7, 10, 9, 8, 3);
    // (No closures here: a closure is compiled without the target features,
    // so the intrinsics in it would not inline.)
    let mut c = [zero; 5];
    for (c, r) in c.iter_mut().zip(&r) {
        *c = f._mm512_srli_epi64::<52>(*r);
    }
    let below = [zero, c[0], c[1], c[2], c[3]];
    let mut r = r;
    for ((r, below), c) in r.iter_mut().zip(below).zip(c) {
        *r = f._mm512_add_epi64(f._mm512_and_si512(*r, mask), f._mm512_permutex2var_epi64(below, up, c));
    }
    let (mut g, mut p) = (0u64, 0u64);
    for (k, x) in r.iter().enumerate() {
        let (gk, pk) = (u64::from(f._mm512_cmpgt_epu64_mask(*x, mask)), u64::from(f._mm512_cmpeq_epu64_mask(*x, mask)));
        g |= ((gk & 0xf) << (4 * k)) | ((gk >> 4) << (32 + 4 * k));
        p |= ((pk & 0xf) << (4 * k)) | ((pk >> 4) << (32 + 4 * k));
    }
    let carry_in = (g << 1).wrapping_add(p) ^ p;
    let ones = f._mm512_set1_epi64(-1);
    for (k, x) in r.iter_mut().enumerate() {
        let lanes = ((carry_in >> (4 * k)) & 0xf) | (((carry_in >> (32 + 4 * k)) & 0xf) << 4);
        #[allow(clippy::cast_possible_truncation)] // eight bits
        let lanes = lanes as u8;
        *x = f._mm512_and_si512(f._mm512_mask_sub_epi64(*x, lanes, *x, ones), mask);
    }
    r
}

/// The constants of the row loop.
#[derive(Clone, Copy)]
struct RowConsts {
    /// k0 = −m⁻¹ mod 2^52 of p in lanes 0..3, of q in lanes 4..7.
    k0: __m512i,
    /// Lane indices picking lanes 0 and 4 into their halves.
    first: __m512i,
    /// Lane indices shifting each half down one limb across two vectors.
    down: __m512i,
}

/// One row of an AMM for both halves: acc = (acc + a·b_i + y·m)/2^52 with
/// y = (acc + a·b_i)·k0 mod 2^52, which makes the low limb divisible by
/// 2^52. The low halves of the products a·b_i and y·m add to the limbs in
/// place, the high halves one limb up, that is, after the shift. The low
/// limb's chain (its multiply-add, y, the shift) is the critical path; the
/// a·b_i products and the high halves are computed beside it.
#[inline(always)]
fn row(s: Ifma, acc: &mut Pair, a: &Pair, m: &Pair, c: RowConsts, bi: __m512i) {
    let (f, ifma) = (s.f, s.ifma);
    let zero = f._mm512_setzero_si512();
    let mut hi = [zero; 5];
    for ((acc, hi), a) in acc.iter_mut().zip(&mut hi).zip(a).skip(1) {
        *acc = ifma._mm512_madd52lo_epu64(*acc, *a, bi);
        *hi = ifma._mm512_madd52hi_epu64(zero, *a, bi);
    }
    // The low limbs' a·b_i apart and then added: one addition on the
    // critical path instead of a multiply-add.
    acc[0] = f._mm512_add_epi64(acc[0], ifma._mm512_madd52lo_epu64(zero, a[0], bi));
    hi[0] = ifma._mm512_madd52hi_epu64(zero, a[0], bi);
    let y = ifma._mm512_madd52lo_epu64(zero, acc[0], c.k0);
    let yb = f._mm512_permutexvar_epi64(c.first, y);
    for ((acc, hi), m) in acc.iter_mut().zip(&mut hi).zip(m) {
        *acc = ifma._mm512_madd52lo_epu64(*acc, *m, yb);
        *hi = ifma._mm512_madd52hi_epu64(*hi, *m, yb);
    }
    // The low limbs are now carry·2^52: shift them out and add the carries.
    let carry = f._mm512_srli_epi64::<52>(acc[0]);
    let above = [acc[1], acc[2], acc[3], acc[4], zero];
    for ((acc, above), hi) in acc.iter_mut().zip(above).zip(hi) {
        *acc = f._mm512_add_epi64(f._mm512_permutex2var_epi64(*acc, c.down, above), hi);
    }
    acc[0] = f._mm512_mask_add_epi64(acc[0], 0x11, acc[0], carry);
}

/// Pastes `$body` for every row index 0..20 as a literal, so that the rows
/// unroll whatever the inliner decides and the accumulators stay in
/// registers.
macro_rules! for_each_row {
    (|$i:ident| $body:block) => {
        for_each_row!(@ $i, $body; 0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19)
    };
    (@ $i:ident, $body:block; $($n:literal)*) => {
        $({
            let $i: usize = $n;
            $body
        })*
    };
}

/// The almost Montgomery product a·b·2^-1040 of each half (mod p in lanes
/// 0..3, mod q in 4..7), below 2m for a, b below 2m, with normalized limbs.
#[inline(always)]
fn amm(s: Ifma, a: &Pair, b: &Pair, m: &Pair, c: RowConsts) -> Pair {
    let f = s.f;
    let mut acc = [f._mm512_setzero_si512(); 5];
    for_each_row!(|i| {
        // b_i of p in lanes 0..3, of q in 4..7.
        let bi = f._mm512_permutexvar_epi64(halves(s, (i % 4) as i64, (4 + i % 4) as i64), b[i / 4]);
        row(s, &mut acc, a, m, c, bi);
    });
    normalize(s, acc)
}

/// Bits `[pos, pos + w)` of `e` (public position, secret bits).
#[inline(always)]
fn window(e: &[u64; PRIME_LIMBS], pos: u32, w: u32) -> u64 {
    let limb = (pos / 64) as usize;
    let shift = pos % 64;
    let mut bits = e.get(limb).map_or(0, |x| x >> shift);
    if shift + w > 64 {
        bits |= e.get(limb + 1).map_or(0, |x| x << (64 - shift));
    }
    bits & ((1 << w) - 1)
}

/// The entry (`table[idx_p]` mod p, `table[idx_q]` mod q), reading every entry:
/// each is blended in under the lane mask of a vector compare of its index
/// with the secret windows.
#[inline(always)]
fn lookup(s: Ifma, table: &[Pair; TABLE], idx: [u64; 2]) -> Pair {
    let f = s.f;
    let want = halves(s, idx[0].cast_signed(), idx[1].cast_signed());
    let one = f._mm512_set1_epi64(1);
    let mut i = f._mm512_setzero_si512();
    let mut out = [f._mm512_setzero_si512(); 5];
    for entry in table {
        let hit = f._mm512_cmpeq_epi64_mask(want, i);
        for (o, e) in out.iter_mut().zip(entry) {
            *o = f._mm512_mask_mov_epi64(*o, hit, *e);
        }
        i = f._mm512_add_epi64(i, one);
    }
    out
}

/// The constants of both halves (p and q: secret, wiped on drop).
struct Moduli {
    m: Pair,
    to: Pair,
    one: Pair,
    /// 2^1024 mod m (the portable radix): AMM(x·2^1040, back) = x·2^1024.
    back: Pair,
    k0: [u64; 2],
    m64: [[u64; PRIME_LIMBS]; 2],
}

impl Drop for Moduli {
    fn drop(&mut self) {
        for v in [&mut self.m, &mut self.to, &mut self.one, &mut self.back] {
            bytemuck::bytes_of_mut(v).zeroize();
        }
        self.k0.zeroize();
        self.m64.zeroize();
    }
}

impl Moduli {
    #[inline(always)]
    fn row_consts(&self, s: Ifma) -> RowConsts {
        RowConsts {
            k0: halves(s, self.k0[0].cast_signed(), self.k0[1].cast_signed()),
            first: halves(s, 0, 4),
            down: s.f._mm512_set_epi64(12, 7, 6, 5, 8, 3, 2, 1),
        }
    }

    /// x·2^1040 in each half to the portable Montgomery form x·2^1024 < m.
    #[inline(always)]
    fn finish(&self, s: Ifma, x: &Pair) -> [[u64; PRIME_LIMBS]; 2] {
        let [xp, xq] = unpair(amm(s, x, &self.back, &self.m, self.row_consts(s)));
        [reduce(&xp, &self.m64[0]), reduce(&xq, &self.m64[1])]
    }
}

/// The two powers: see [`pow_pair`].
#[inline(always)]
fn pow(s: Ifma, x: &Pair, e: [&[u64; PRIME_LIMBS]; 2], h: &Moduli) -> [[u64; PRIME_LIMBS]; 2] {
    let f = s.f;
    let c = h.row_consts(s);
    let base = amm(s, x, &h.to, &h.m, c);
    // table[i] = base^i·2^1040: table[2k] = table[k]², table[2k+1] = table[2k]·base.
    let mut table = [[f._mm512_setzero_si512(); 5]; TABLE];
    table[0] = h.one;
    table[1] = base;
    for i in 2..TABLE {
        let (ia, ib) = if i % 2 == 0 { (i / 2, i / 2) } else { (i - 1, 1) };
        table[i] = amm(s, &table[ia], &table[ib], &h.m, c);
    }
    let windows = PRIME_BITS.div_ceil(WINDOW);
    let top = (windows - 1) * WINDOW;
    let mut acc = lookup(s, &table, [window(e[0], top, WINDOW), window(e[1], top, WINDOW)]);
    for j in (0..windows - 1).rev() {
        let t = lookup(s, &table, [window(e[0], j * WINDOW, WINDOW), window(e[1], j * WINDOW, WINDOW)]);
        // Five squarings, then the product with the entry: one AMM call site
        // (the step's operand is picked by the public step counter).
        for k in 0..=WINDOW {
            let pick: u8 = if k == WINDOW { 0xff } else { 0 };
            let mut b = acc;
            for (b, t) in b.iter_mut().zip(t) {
                *b = f._mm512_mask_mov_epi64(*b, pick, t);
            }
            acc = amm(s, &acc, &b, &h.m, c);
        }
    }
    bytemuck::bytes_of_mut(&mut table).zeroize();
    h.finish(s, &acc)
}

/// x^65537 in each half (sixteen squarings and a product), for the
/// signature's fault check: see [`pow_65537_pair`].
#[inline(always)]
fn pow_65537(s: Ifma, x: &Pair, h: &Moduli) -> [[u64; PRIME_LIMBS]; 2] {
    let c = h.row_consts(s);
    let base = amm(s, x, &h.to, &h.m, c);
    let mut acc = base;
    for k in 0..=16 {
        // Sixteen squarings, then the product with the base (public k).
        let pick: u8 = if k == 16 { 0xff } else { 0 };
        let mut b = acc;
        for (b, base) in b.iter_mut().zip(base) {
            *b = s.f._mm512_mask_mov_epi64(*b, pick, base);
        }
        acc = amm(s, &acc, &b, &h.m, c);
    }
    h.finish(s, &acc)
}

/// The power as a `pulp` closure, run under the token's target features.
struct Pow<'a> {
    s: Ifma,
    x: &'a Pair,
    e: [&'a [u64; PRIME_LIMBS]; 2],
    h: &'a Moduli,
}

impl pulp::NullaryFnOnce for Pow<'_> {
    type Output = [[u64; PRIME_LIMBS]; 2];

    #[inline(always)]
    fn call(self) -> Self::Output {
        pow(self.s, self.x, self.e, self.h)
    }
}

/// [`pow_65537`] as a `pulp` closure.
struct Pow65537<'a> {
    s: Ifma,
    x: &'a Pair,
    h: &'a Moduli,
}

impl pulp::NullaryFnOnce for Pow65537<'_> {
    type Output = [[u64; PRIME_LIMBS]; 2];

    #[inline(always)]
    fn call(self) -> Self::Output {
        pow_65537(self.s, self.x, self.h)
    }
}

impl Moduli {
    /// The constants of p and q in vector form, if they have [`PRIME_LIMBS`] limbs.
    fn new<const H: usize>(params: [&FixedMontyParams<H>; 2], consts: [&PrimeConsts<H>; 2]) -> Option<Self> {
        if H != PRIME_LIMBS {
            return None;
        }
        let m = [words(params[0].modulus().as_ref()), words(params[1].modulus().as_ref())];
        Some(Self {
            m: pair(&m[0], &m[1]),
            to: both([&consts[0].to, &consts[1].to]),
            one: both([&consts[0].one, &consts[1].one]),
            back: both([params[0].one(), params[1].one()]),
            k0: [params[0].mod_neg_inv().0 & MASK52, params[1].mod_neg_inv().0 & MASK52],
            m64: m,
        })
    }
}

/// The limbs of a [`PRIME_LIMBS`]-limb value (callers check `H`).
fn words<const H: usize>(v: &Uint<H>) -> [u64; PRIME_LIMBS] {
    *v.resize::<PRIME_LIMBS>().as_words()
}

fn both<const H: usize>(v: [&Uint<H>; 2]) -> Pair {
    pair(&words(v[0]), &words(v[1]))
}

/// x_p^65537·2^1024 mod p and x_q^65537·2^1024 mod q, as [`pow_pair`] with
/// the public exponent 65537 (the signature's fault check modulo p and q:
/// 18 products per half instead of the portable check's 18 products modulo
/// n, each about four times as costly). `None` unless the primes have
/// [`PRIME_LIMBS`] limbs.
pub(crate) fn pow_65537_pair<const H: usize>(
    s: Ifma,
    x: [&Uint<H>; 2],
    params: [&FixedMontyParams<H>; 2],
    consts: [&PrimeConsts<H>; 2],
) -> Option<[Uint<H>; 2]> {
    let h = Moduli::new(params, consts)?;
    let mut xs = both(x);
    let out = s.vectorize(Pow65537 { s, x: &xs, h: &h });
    bytemuck::bytes_of_mut(&mut xs).zeroize();
    Some(out.map(|w| Uint::<PRIME_LIMBS>::from_words(w).resize::<H>()))
}

/// Both CRT half powers at once: for x_h < m_h (the REDC outputs
/// x_h = c·2^-1024 mod m_h of a value c) and exponents e_h of 1024 bits,
/// returns c^e_h·2^1024 mod m_h (the portable Montgomery form, fully
/// reduced), as `monty::pow` of c·2^1024 would. `None` unless the primes
/// have [`PRIME_LIMBS`] limbs.
pub(crate) fn pow_pair<const H: usize>(
    s: Ifma,
    x: [&Uint<H>; 2],
    e: [&Uint<H>; 2],
    params: [&FixedMontyParams<H>; 2],
    consts: [&PrimeConsts<H>; 2],
) -> Option<[Uint<H>; 2]> {
    let h = Moduli::new(params, consts)?;
    let mut xs = both(x);
    let (mut ep, mut eq) = (words(e[0]), words(e[1]));
    let out = s.vectorize(Pow { s, x: &xs, e: [&ep, &eq], h: &h });
    bytemuck::bytes_of_mut(&mut xs).zeroize();
    ep.zeroize();
    eq.zeroize();
    Some(out.map(|w| Uint::<PRIME_LIMBS>::from_words(w).resize::<H>()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::crypto::blind_rsa::monty;
    use crate::crypto::blind_rsa::test_rng::TestInts;
    use crypto_bigint::{Odd, U1024, Word};

    fn modulus(rng: &mut TestInts) -> FixedMontyParams<16> {
        let mut m = rng.uint::<16>();
        m.as_mut_limbs()[15].0 |= 1 << (Word::BITS - 1);
        m.as_mut_limbs()[0].0 |= 1;
        FixedMontyParams::new(Odd::new(m).unwrap())
    }

    /// One AMM of a pair.
    struct Product<'a> {
        s: Ifma,
        a: Pair,
        b: Pair,
        m: &'a Pair,
        k0: [u64; 2],
    }

    impl pulp::NullaryFnOnce for Product<'_> {
        type Output = [u64; 2 * LIMBS];
        #[inline(always)]
        fn call(self) -> Self::Output {
            let (s, f) = (self.s, self.s.f);
            let c = RowConsts {
                k0: halves(s, self.k0[0].cast_signed(), self.k0[1].cast_signed()),
                first: halves(s, 0, 4),
                down: f._mm512_set_epi64(12, 7, 6, 5, 8, 3, 2, 1),
            };
            bytemuck::cast(amm(s, &self.a, &self.b, self.m, c))
        }
    }

    /// The AMM alone, products and squares: t = AMM(a, b) has normalized
    /// limbs, t < 2m, and t·2^1040 ≡ a·b (checked with the portable kernel).
    #[test]
    fn products_and_squares_match_the_portable_kernel() {
        let Some(s) = Ifma::try_new() else { return };
        let mut rng = TestInts::new(0x1f_aa55_0001);
        for round in 0..12 {
            let params = [modulus(&mut rng), modulus(&mut rng)];
            let mw = params.map(|p| *p.modulus().as_ref().as_words());
            let m = pair(&mw[0], &mw[1]);
            let k0 = params.map(|p| p.mod_neg_inv().0 & MASK52);
            let max = |m: &FixedMontyParams<16>| m.modulus().as_ref().wrapping_sub(&U1024::ONE);
            let mut below = |m: &FixedMontyParams<16>| rng.uint::<16>().rem(m.modulus().as_nz_ref());
            let (a, b) = match round {
                0 => ([U1024::ZERO, max(&params[1])], [max(&params[0]), U1024::ZERO]),
                1 => ([max(&params[0]), max(&params[1])], [max(&params[0]), max(&params[1])]),
                _ => ([below(&params[0]), below(&params[1])], [below(&params[0]), below(&params[1])]),
            };
            for b in [b, a] {
                let out = s.vectorize(Product {
                    s,
                    a: pair(a[0].as_words(), a[1].as_words()),
                    b: pair(b[0].as_words(), b[1].as_words()),
                    m: &m,
                    k0,
                });
                assert!(out.iter().all(|l| *l <= MASK52), "normalized limbs");
                let t = unpair(bytemuck::cast(out));
                for (h, params) in params.iter().enumerate() {
                    let t = Uint::<16>::from_words(reduce(&t[h], &mw[h]));
                    let lhs = doubled(&t, params.modulus().as_nz_ref(), RADIX_BITS);
                    let rhs = monty::mul(&monty::mul(&a[h], &b[h], params), params.r2(), params);
                    assert_eq!(lhs, rhs, "round {round}, half {h}");
                }
            }
        }
    }

    /// [`normalize`] as a `pulp` closure.
    struct Normalize(Ifma, Pair);

    impl pulp::NullaryFnOnce for Normalize {
        type Output = [u64; 2 * LIMBS];
        #[inline(always)]
        fn call(self) -> Self::Output {
            bytemuck::cast(normalize(self.0, self.1))
        }
    }

    /// The vector carry propagation against sequential carries, on lanes
    /// built to hit its cases: limbs of exactly 2^52 − 1 that pass a carry
    /// on (in runs, across vectors, in both halves), limbs that overflow,
    /// large unnormalized lanes and zeros. (Random products almost never
    /// produce a run of 2^52 − 1 limbs, so the other tests cannot see a
    /// mistake there.)
    #[test]
    fn normalize_matches_sequential_carries() {
        let Some(s) = Ifma::try_new() else { return };
        let mut rng = TestInts::new(0x4e4f_524d);
        for round in 0..2000 {
            let mut halves = [[0u64; LIMBS]; 2];
            for half in &mut halves {
                for limb in half.iter_mut() {
                    *limb = match rng.next() % 6 {
                        0 | 1 => MASK52,
                        2 => MASK52 + 1 + rng.next() % 4096,
                        3 => rng.next() >> 6,
                        4 => 0,
                        _ => rng.next() & MASK52,
                    };
                }
                // The value stays below 2^1040: no carry out of the top limb.
                half[LIMBS - 1] &= (1 << 50) - 1;
            }
            if round == 0 {
                // A carry through every limb of both halves.
                halves = [[MASK52; LIMBS], [MASK52; LIMBS]];
                halves[0][0] = MASK52 + 1;
                halves[1][0] = MASK52 + 2;
                halves[0][LIMBS - 1] = 0;
                halves[1][LIMBS - 1] = 0;
            }
            let mut lanes = [0u64; 2 * LIMBS];
            for (r, out) in lanes.chunks_exact_mut(8).enumerate() {
                out[..4].copy_from_slice(&halves[0][4 * r..4 * r + 4]);
                out[4..].copy_from_slice(&halves[1][4 * r..4 * r + 4]);
            }
            let got: [u64; 2 * LIMBS] = s.vectorize(Normalize(s, bytemuck::cast(lanes)));
            for (h, half) in halves.iter().enumerate() {
                let mut carry = 0u64;
                for (j, limb) in half.iter().enumerate() {
                    let t = limb + carry;
                    assert_eq!(got[8 * (j / 4) + 4 * h + j % 4], t & MASK52, "round {round}, half {h}, limb {j}");
                    carry = t >> 52;
                }
                assert_eq!(carry, 0);
            }
        }
    }

    /// The final reduction takes the bits above 2^1024 into account: for a
    /// modulus within 2^1009 of 2^1024 an almost-Montgomery result can
    /// exceed 2^1024 (found in review: truncating them gave a wrong value
    /// for about one key in 4,700).
    #[test]
    fn the_final_reduction_keeps_the_top_bits() {
        // m = 2^1024 − 159, x = 2^1024 + 5: x mod m = 164.
        let mut m = [u64::MAX; PRIME_LIMBS];
        m[0] = u64::MAX - 158;
        let mut low = [0u64; PRIME_LIMBS];
        low[0] = 5;
        let mut want = [0u64; PRIME_LIMBS];
        want[0] = 164;
        assert_eq!(reduce(&(low, 1), &m), want);
        // Below m: unchanged; m itself: zero; m + 3: 3.
        assert_eq!(reduce(&(want, 0), &m), want);
        assert_eq!(reduce(&(m, 0), &m), [0u64; PRIME_LIMBS]);
        let mut m3 = m;
        m3[0] += 3;
        let mut three = [0u64; PRIME_LIMBS];
        three[0] = 3;
        assert_eq!(reduce(&(m3, 0), &m), three);
        // The conversion keeps them: 2^1024 + 5 in 52-bit limbs.
        let mut limbs = [0u64; LIMBS];
        limbs[0] = 5;
        limbs[LIMBS - 1] = 1 << (1024 - 52 * (LIMBS - 1));
        assert_eq!(from52(&limbs), (low, 1));
    }

    /// The pair layout round-trips.
    #[test]
    fn pairs_round_trip() {
        let mut rng = TestInts::new(0x3f_aa55_0003);
        for _ in 0..20 {
            let (x, y) = (rng.uint::<16>(), rng.uint::<16>());
            assert_eq!(unpair(pair(x.as_words(), y.as_words())), [(*x.as_words(), 0), (*y.as_words(), 0)]);
        }
    }

    #[test]
    fn powers_match_the_portable_kernel() {
        let Some(s) = Ifma::try_new() else { return };
        let mut rng = TestInts::new(0x2f_aa55_0002);
        for round in 0..6 {
            let (p, q) = (modulus(&mut rng), modulus(&mut rng));
            let r3 = |x: &FixedMontyParams<16>| monty::mul(x.r2(), x.r2(), x);
            let (cp, cq) = (PrimeConsts::new(&p, &r3(&p)), PrimeConsts::new(&q, &r3(&q)));
            let minus_one = |m: &FixedMontyParams<16>| m.modulus().as_ref().wrapping_sub(&U1024::ONE);
            let (x, e) = match round {
                0 => ([U1024::ZERO, U1024::ONE], [rng.uint::<16>(), rng.uint::<16>()]),
                1 => ([minus_one(&p), minus_one(&q)], [U1024::MAX, U1024::ZERO]),
                2 => ([rng.uint::<16>().rem(p.modulus().as_nz_ref()), U1024::ONE], [U1024::ONE, U1024::from_u8(31)]),
                _ => (
                    [rng.uint::<16>().rem(p.modulus().as_nz_ref()), rng.uint::<16>().rem(q.modulus().as_nz_ref())],
                    [rng.uint::<16>(), rng.uint::<16>()],
                ),
            };
            let got = pow_pair(s, [&x[0], &x[1]], [&e[0], &e[1]], [&p, &q], [&cp, &cq]).unwrap();
            let got_65537 = pow_65537_pair(s, [&x[0], &x[1]], [&p, &q], [&cp, &cq]).unwrap();
            for (h, params) in [&p, &q].into_iter().enumerate() {
                // x is a REDC output c·2^-1024: the portable power of c·2^1024 = x·R².
                let base = monty::mul(&x[h], &r3(params), params);
                let want = monty::pow::<16, 32, { monty::WINDOW_TABLE }>(&base, &e[h], params);
                assert_eq!(got[h], want, "round {round}, half {h}");
                let want = monty::pow::<16, 32, { monty::WINDOW_TABLE }>(&base, &U1024::from_u32(65537), params);
                assert_eq!(got_65537[h], want, "x^65537, round {round}, half {h}");
            }
        }
    }
}
