//! The RSA-2048 private operation's two half-size powers (and the fault
//! check's two short ones) with AVX2: x86_64 with the `std` feature, chosen
//! at run time where the CPU has AVX2 but not AVX-512 IFMA (see `kernel`).
//!
//! A number is 36 limbs of 29 bits (1044 bits) in nine 256-bit vectors of
//! four 64-bit lanes; the Montgomery radix is R = 2^1044 (4m < R, so as in
//! `monty_ifma` an almost Montgomery product of operands below 2m stays
//! below 2m and only the final result is reduced). `vpmuludq` multiplies the
//! low 32 bits of each lane into 64 bits, so a limb product is below 2^58 and
//! a lane can take 63 of them before it could overflow: carries are
//! deferred. This is the redundant representation of OpenSSL's rsaz-avx2
//! (Gueron and Krasnov, "Software implementation of modular exponentiation,
//! using advanced vector instructions architectures", WAIFI 2012), written
//! here with `core::arch` intrinsics in the structure of `monty_ifma`.
//!
//! # The almost Montgomery product
//!
//! Operand scanning, one row per limb b_i of b: acc += a·b_i + y_i·m with
//! y_i = acc_i·(−m⁻¹) mod 2^29, which makes column i divisible by 2^29; its
//! carry moves to column i + 1. Instead of shifting the accumulator one limb
//! per row (a lane shift across vectors), row i adds a copy of a (and of m)
//! shifted up by i mod 4 lanes, prepared once per product (per power for m),
//! at vector i/4: the loop runs over the nine groups of four rows and only
//! moves its ten accumulator vectors down by one whole vector per group. A
//! lane takes 62 limb products; columns 31 to 39 receive up to 72, so after
//! the first twenty rows columns 28 to 39 are carried once (each lane to 29
//! bits plus the carry from below, see `mid_pass`); from then on no lane
//! can overflow. The result is carried twice (limbs below 2^29 + 2^7, valid
//! operands for the next product).
//!
//! The reduction chain (column i's value, y_i, the carry into column i + 1)
//! runs in scalar registers: a row reads column i + 1's partial sum from the
//! accumulator before adding its own y_i·m, and the next row adds y_i·m_1,
//! the carry and its own a_0·b_i with scalar multiplies, so the chain from
//! one y to the next is two 3-cycle multiplies and a few additions instead
//! of two 5-cycle vector multiplies and a cross-lane broadcast. Squares
//! compute each cross product once: row i multiplies only the limbs a_j,
//! j ≥ i, by 2a_i (a_i on the diagonal), so whole vectors below the
//! diagonal are skipped (the nine groups are unrolled for that). The two
//! CRT halves run one after the other: interleaving them in one loop
//! spilled the accumulators (measured slower).
//!
//! # Safety without `unsafe`, constant time
//!
//! As in `monty_ifma`: the intrinsics are reached through a `pulp` token
//! ([`Avx2`]) that exists only after run-time CPU detection, everything is
//! `#[inline(always)]` inside one `vectorize` call per power, and vectors
//! move to and from limb arrays with `bytemuck::cast`. The instruction and
//! memory-access sequence depends only on public sizes and loop counters;
//! the window table is read in full for every lookup (each entry ANDed with
//! a mask from a lane compare of its index with the secret window). The
//! scalar reduction chain is multiplications, additions, shifts and masks
//! (no division, no branch). The table, the primes' vectors and the
//! inputs' copies are wiped after each power, and so are the power's
//! accumulator, base and looked-up entry, and the results once converted;
//! the registers and stack temporaries of single products are not (as in
//! `monty`). valgrind (3.19) cannot run this kernel (it stops on `vmovq
//! xmm, xmm` in its VEX form, which LLVM emits here), so the ctgrind build
//! never picks it (`kernel`); its constant-time argument is the one above.

// The kernel indexes fixed-size arrays of vectors with public loop counters
// and constants below the array lengths.
#![allow(clippy::indexing_slicing)]

use core::arch::x86_64::__m256i;

use crypto_bigint::Uint;
use crypto_bigint::modular::FixedMontyParams;
use zeroize::Zeroize;

use super::monty_ifma::{doubled, reduce};

pulp::simd_type! {
    pub(crate) struct Avx2 {
        pub avx: "avx",
        pub avx2: "avx2",
    }
}

/// The limb count of the primes this kernel handles: 1024 bits.
pub(crate) const PRIME_LIMBS: usize = 16;
const MASK29: u64 = (1 << 29) - 1;
/// 36 limbs of 29 bits in 9 vectors; a shifted copy and the accumulator
/// window take one vector more.
const LIMBS: usize = 36;
const REGS: usize = 9;
const WIN: usize = 10;
/// The bits of the radix R = 2^1044 and of the portable radix 2^1024.
const RADIX_BITS: u32 = 1044;
const PRIME_BITS: u32 = 1024;
/// The window table of the fixed-window power: 2^5 entries.
const TABLE: usize = 32;
const WINDOW: u32 = 5;
/// The group (of four rows) before which the accumulator is carried once.
const MID_GROUP: usize = 5;

/// A number below 2^1044 as 36 limbs of (about) 29 bits, four per vector.
type Num = [__m256i; REGS];
/// A number shifted up by 0, 1, 2 and 3 limbs (zeros shifted in).
type Shifted = [[__m256i; WIN]; 4];

/// Per-prime constants of the AVX2 power, computed with the key.
pub(crate) struct PrimeConsts<const H: usize> {
    /// 2^(64·H + 2·1044) mod p: a product with it takes the REDC output
    /// x·2^-(64·H) to x·2^1044.
    to: Uint<H>,
    /// 2^1044 mod p, the Montgomery form of 1.
    one: Uint<H>,
}

impl<const H: usize> PrimeConsts<H> {
    /// The constants for `params` with r3 = 2^(3·64·H) mod p.
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

/// 64-bit limbs (a 1024-bit value) to 36 limbs of 29 bits.
fn to29(x: &[u64; PRIME_LIMBS]) -> [u64; LIMBS] {
    let mut out = [0u64; LIMBS];
    for (j, o) in out.iter_mut().enumerate() {
        let bit = 29 * j;
        let (w, sh) = (bit / 64, bit % 64);
        let mut v = x.get(w).map_or(0, |x| x >> sh);
        if sh > 64 - 29 {
            v |= x.get(w + 1).map_or(0, |x| x << (64 - sh));
        }
        *o = v & MASK29;
    }
    out
}

/// 36 limbs (each below 2^30, a value below 2^1044) to 64-bit limbs and the
/// bits above 2^1024 (see `monty_ifma::reduce`), carrying as it goes.
fn from29(x: &[u64; LIMBS]) -> ([u64; PRIME_LIMBS], u64) {
    let mut out = [0u64; PRIME_LIMBS];
    let (mut acc, mut bits, mut k) = (0u128, 0u32, 0usize);
    for l in x {
        acc += u128::from(*l) << bits;
        bits += 29;
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
    #[allow(clippy::cast_possible_truncation)] // 20 bits are left: 36·29 − 16·64
    (out, acc as u64)
}

fn num(x: &[u64; PRIME_LIMBS]) -> Num {
    bytemuck::cast(to29(x))
}

/// The constants of a product, for one half: −m⁻¹ mod 2^29 and m's two
/// lowest limbs.
#[derive(Clone, Copy)]
struct RowConsts {
    k0: u64,
    m0: u64,
    m1: u64,
}

/// The reduction chain between rows, in scalar registers (a scalar multiply
/// has less latency than a vector one and no lane broadcast): `q`, the
/// next column's sum without the previous row's reduction product and its
/// own row's product; `y`, the previous row's multiplier; `carry`, the carry
/// into the next column.
#[derive(Clone, Copy)]
struct Chain {
    q: u64,
    y: u64,
    carry: u64,
}

const CHAIN: Chain = Chain { q: 0, y: 0, carry: 0 };

/// The copies of `a` shifted up by 0..3 limbs: lane l of `out[k][r]` is
/// limb 4r + l − k of a (zero outside 0..36).
#[inline(always)]
fn shifted(s: Avx2, a: &Num) -> Shifted {
    let v = s.avx2;
    let zero = s.avx._mm256_setzero_si256();
    let mut cur = [zero; WIN];
    cur[..REGS].copy_from_slice(a);
    let mut below = [zero; WIN];
    below[1..].copy_from_slice(a);
    let mut out = [[zero; WIN]; 4];
    out[0] = cur;
    for r in 0..WIN {
        out[1][r] = v._mm256_blend_epi32::<0x03>(
            v._mm256_permute4x64_epi64::<0x93>(cur[r]),
            v._mm256_permute4x64_epi64::<0x93>(below[r]),
        );
        out[2][r] = v._mm256_blend_epi32::<0x0f>(
            v._mm256_permute4x64_epi64::<0x4e>(cur[r]),
            v._mm256_permute4x64_epi64::<0x4e>(below[r]),
        );
        out[3][r] = v._mm256_blend_epi32::<0x3f>(
            v._mm256_permute4x64_epi64::<0x39>(cur[r]),
            v._mm256_permute4x64_epi64::<0x39>(below[r]),
        );
    }
    out
}

/// One carry pass over a window: each lane keeps its low 29 bits and gains
/// the carry (bits 29..64) of the limb below; the carry out of the top lane
/// is dropped (callers know it is zero).
#[inline(always)]
fn carry_pass(s: Avx2, x: &mut [__m256i; WIN]) {
    let v = s.avx2;
    let zero = s.avx._mm256_setzero_si256();
    let mask = s.avx._mm256_set1_epi64x(MASK29.cast_signed());
    let mut rot = [zero; WIN];
    for (rot, x) in rot.iter_mut().zip(x.iter()) {
        *rot = v._mm256_permute4x64_epi64::<0x93>(v._mm256_srli_epi64::<29>(*x));
    }
    let mut below = zero;
    for (x, rot) in x.iter_mut().zip(rot) {
        let up = v._mm256_blend_epi32::<0x03>(rot, below);
        *x = v._mm256_add_epi64(v._mm256_and_si256(*x, mask), up);
        below = rot;
    }
}

/// The reduction step of row i = 4g + K, after its products a·b_i are in
/// `acc`: column i's value (the chain's partial sum, `own`, row i's product
/// in column i, and the previous row's reduction product y·m_1 in it), then
/// y = column·(−m⁻¹) mod 2^29 and the carry out of the column; then column
/// i + 1's partial sum is read from `acc` before acc += y·m (`sm`: m shifted
/// up by K limbs).
#[inline(always)]
fn reduce_row<const K: usize>(
    s: Avx2,
    acc: &mut [__m256i; WIN],
    ch: &mut Chain,
    sm: &[__m256i; WIN],
    own: u64,
    c: RowConsts,
) {
    let v = s.avx2;
    let col = ch.q.wrapping_add(own).wrapping_add(ch.y.wrapping_mul(c.m1)).wrapping_add(ch.carry);
    let y = col.wrapping_mul(c.k0) & MASK29;
    ch.carry = col.wrapping_add(y.wrapping_mul(c.m0)) >> 29;
    ch.y = y;
    // Column i + 1: lane K + 1 of vector 0, or lane 0 of vector 1.
    let next: [u64; 4] = bytemuck::cast(acc[if K == 3 { 1 } else { 0 }]);
    ch.q = next[(K + 1) % 4];
    let yb = s.avx._mm256_set1_epi64x(y.cast_signed());
    // m unshifted fills nine vectors (the tenth is zero). For K ≥ 2 every
    // column of vector 0 is now either done or in the chain (y·m_1 into
    // column i + 1 is added there): its products are skipped.
    for r in if K >= 2 { 1 } else { 0 }..if K == 0 { REGS } else { WIN } {
        acc[r] = v._mm256_add_epi64(acc[r], v._mm256_mul_epu32(sm[r], yb));
    }
}

/// Row 4g + K of one half's product: acc += a·b_i (`sa`: a shifted up by
/// K limbs), then the reduction step.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn row<const K: usize>(
    s: Avx2,
    acc: &mut [__m256i; WIN],
    ch: &mut Chain,
    sa: &[__m256i; WIN],
    sm: &[__m256i; WIN],
    bi: u64,
    a0: u64,
    c: RowConsts,
) {
    let v = s.avx2;
    let bb = s.avx._mm256_set1_epi64x(bi.cast_signed());
    // For K = 3 vector 0 holds only columns up to i, which are done or in
    // the chain (a_0·b_i is `own`): skipped.
    for r in if K == 3 { 1 } else { 0 }..if K == 0 { REGS } else { WIN } {
        acc[r] = v._mm256_add_epi64(acc[r], v._mm256_mul_epu32(sa[r], bb));
    }
    reduce_row::<K>(s, acc, ch, sm, a0.wrapping_mul(bi), c);
}

/// The window moved down one vector (columns 4g..4g+3 are done).
#[inline(always)]
fn down(s: Avx2, x: [__m256i; WIN]) -> [__m256i; WIN] {
    let z = s.avx._mm256_setzero_si256();
    [x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], x[9], z]
}

/// The mid-product carry pass, before group 5 (row 20). A limb product is
/// below 2^58 + 2^37 (operand limbs are at most 2^29 + 2^6, y and m's limbs
/// below 2^29; a square's doubled product counts as two), so a lane can
/// take 62 of them and carries; only columns 31 to 39 receive more (up to
/// 72). Columns 28 to 39 (vectors 2 to 4 of the window)
/// are carried once, into columns 29 to 40: they then hold below
/// 2^29 + 2^35 and take at most 32 products more, and column 40 takes 62
/// in all plus that carry.
#[inline(always)]
fn mid_pass(s: Avx2, acc: &mut [__m256i; WIN]) {
    let v = s.avx2;
    let mask = s.avx._mm256_set1_epi64x(MASK29.cast_signed());
    let zero = s.avx._mm256_setzero_si256();
    let mut below = zero;
    for acc in &mut acc[2..5] {
        let rot = v._mm256_permute4x64_epi64::<0x93>(v._mm256_srli_epi64::<29>(*acc));
        let up = v._mm256_blend_epi32::<0x03>(rot, below);
        *acc = v._mm256_add_epi64(v._mm256_and_si256(*acc, mask), up);
        below = rot;
    }
    // Column 39's carry into column 40 (lane 0 of vector 5).
    acc[5] = v._mm256_add_epi64(acc[5], v._mm256_blend_epi32::<0x03>(zero, below));
}

/// The result of a product: the carry out of column 35 added, then
/// carried twice (limbs below 2^29 + 2^7).
#[inline(always)]
fn result(s: Avx2, mut acc: [__m256i; WIN], carry: u64) -> Num {
    let v = s.avx2;
    let zero = s.avx._mm256_setzero_si256();
    let carry = s.avx._mm256_set1_epi64x(carry.cast_signed());
    acc[0] = v._mm256_add_epi64(acc[0], v._mm256_blend_epi32::<0x03>(zero, carry));
    carry_pass(s, &mut acc);
    carry_pass(s, &mut acc);
    [acc[0], acc[1], acc[2], acc[3], acc[4], acc[5], acc[6], acc[7], acc[8]]
}

/// One half's almost Montgomery product a·b·2^-1044 mod m (`sa`: a
/// shifted, `sm`: m shifted), below 2m for a, b below 2m, with limbs below
/// 2^29 + 2^7.
#[inline(always)]
fn amm_half(s: Avx2, sa: &Shifted, b: &Num, sm: &Shifted, c: RowConsts) -> Num {
    let zero = s.avx._mm256_setzero_si256();
    let b: [[u64; 4]; REGS] = bytemuck::cast(*b);
    let a0: [u64; 4] = bytemuck::cast(sa[0][0]);
    let a0 = a0[0];
    let mut acc = [zero; WIN];
    let mut ch = CHAIN;
    for (g, x) in b.iter().enumerate() {
        if g == MID_GROUP {
            mid_pass(s, &mut acc);
        }
        row::<0>(s, &mut acc, &mut ch, &sa[0], &sm[0], x[0], a0, c);
        row::<1>(s, &mut acc, &mut ch, &sa[1], &sm[1], x[1], a0, c);
        row::<2>(s, &mut acc, &mut ch, &sa[2], &sm[2], x[2], a0, c);
        row::<3>(s, &mut acc, &mut ch, &sa[3], &sm[3], x[3], a0, c);
        acc = down(s, acc);
    }
    result(s, acc, ch.carry)
}

/// Row 4g + K of one half's square (`sq_half`): as [`row`], with the
/// products a_j·a_i for j < i left out, those for j > i doubled (a_j·2a_i)
/// and a_i² once: the vectors below the diagonal are skipped, the one
/// across it is multiplied by a blend of a_i, 2a_i and 0. Only row 0 has a
/// product in its own column (a_0²).
#[inline(always)]
fn sq_row<const K: usize>(
    s: Avx2,
    g: usize,
    acc: &mut [__m256i; WIN],
    ch: &mut Chain,
    (sa, sm): (&[__m256i; WIN], &[__m256i; WIN]),
    (ai, ai2): (u64, u64),
    c: RowConsts,
) {
    let v = s.avx2;
    let zero = s.avx._mm256_setzero_si256();
    let bb = s.avx._mm256_set1_epi64x(ai.cast_signed());
    // 2a_i from a doubled copy in memory: a broadcast load, no vector ALU
    // operation.
    let twice = s.avx._mm256_set1_epi64x(ai2.cast_signed());
    // Vector `first` holds the diagonal: in lane 2K − 4(first − g) (lane 0
    // for K = 0, 2; lane 2 for K = 1, 3), doubled products above it, none
    // below.
    let first = g + K / 2;
    if first < WIN {
        let mul = if K.is_multiple_of(2) {
            v._mm256_blend_epi32::<0x03>(twice, bb)
        } else {
            v._mm256_blend_epi32::<0x0f>(v._mm256_blend_epi32::<0x30>(twice, bb), zero)
        };
        acc[first] = v._mm256_add_epi64(acc[first], v._mm256_mul_epu32(sa[first], mul));
    }
    for r in first + 1..if K == 0 { REGS } else { WIN } {
        acc[r] = v._mm256_add_epi64(acc[r], v._mm256_mul_epu32(sa[r], twice));
    }
    let own = if g == 0 && K == 0 { ai.wrapping_mul(ai) } else { 0 };
    reduce_row::<K>(s, acc, ch, sm, own, c);
}

/// Pastes `$body` for every group index 0..9 as a literal, so that the
/// vectors a square's rows skip are known when it compiles.
macro_rules! for_each_group {
    (|$g:ident| $body:block) => {
        for_each_group!(@ $g, $body; 0 1 2 3 4 5 6 7 8)
    };
    (@ $g:ident, $body:block; $($n:literal)*) => {
        $({
            let $g: usize = $n;
            $body
        })*
    };
}

/// One half's almost Montgomery square a²·2^-1044 mod m (as [`amm_half`]
/// with b = a), with each cross product computed once.
#[inline(always)]
fn sq_half(s: Avx2, a: &Num, sm: &Shifted, c: RowConsts) -> Num {
    let zero = s.avx._mm256_setzero_si256();
    let sa = shifted(s, a);
    let b: [[u64; 4]; REGS] = bytemuck::cast(*a);
    let mut twice = *a;
    for x in &mut twice {
        *x = s.avx2._mm256_add_epi64(*x, *x);
    }
    let b2: [[u64; 4]; REGS] = bytemuck::cast(twice);
    let mut acc = [zero; WIN];
    let mut ch = CHAIN;
    for_each_group!(|g| {
        if g == MID_GROUP {
            mid_pass(s, &mut acc);
        }
        let (x, x2) = (b[g], b2[g]);
        sq_row::<0>(s, g, &mut acc, &mut ch, (&sa[0], &sm[0]), (x[0], x2[0]), c);
        sq_row::<1>(s, g, &mut acc, &mut ch, (&sa[1], &sm[1]), (x[1], x2[1]), c);
        sq_row::<2>(s, g, &mut acc, &mut ch, (&sa[2], &sm[2]), (x[2], x2[2]), c);
        sq_row::<3>(s, g, &mut acc, &mut ch, (&sa[3], &sm[3]), (x[3], x2[3]), c);
        acc = down(s, acc);
    });
    result(s, acc, ch.carry)
}

/// The almost Montgomery squares of both halves.
#[inline(always)]
fn sq(s: Avx2, a: &[Num; 2], sm: &[Shifted; 2], c: &[RowConsts; 2]) -> [Num; 2] {
    let mut out = *a;
    for ((out, sm), c) in out.iter_mut().zip(sm).zip(c) {
        *out = sq_half(s, out, sm, *c);
    }
    out
}

/// The almost Montgomery products a_h·b_h·2^-1044 mod m_h of both halves.
#[inline(always)]
fn amm(s: Avx2, a: &[Num; 2], b: &[Num; 2], sm: &[Shifted; 2], c: &[RowConsts; 2]) -> [Num; 2] {
    let sa = shifted(s, &a[0]);
    let p = amm_half(s, &sa, &b[0], &sm[0], c[0]);
    let sa = shifted(s, &a[1]);
    let q = amm_half(s, &sa, &b[1], &sm[1], c[1]);
    [p, q]
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

/// (`table[idx_p]` mod p, `table[idx_q]` mod q), reading every entry: each is
/// ANDed with the mask of a lane compare of its index with the secret window.
#[inline(always)]
fn lookup(s: Avx2, table: &[[Num; 2]; TABLE], idx: [u64; 2]) -> [Num; 2] {
    let v = s.avx2;
    let zero = s.avx._mm256_setzero_si256();
    let want = [s.avx._mm256_set1_epi64x(idx[0].cast_signed()), s.avx._mm256_set1_epi64x(idx[1].cast_signed())];
    let one = s.avx._mm256_set1_epi64x(1);
    let mut i = zero;
    let mut out = [[zero; REGS]; 2];
    for entry in table {
        for ((out, entry), want) in out.iter_mut().zip(entry).zip(want) {
            let hit = v._mm256_cmpeq_epi64(want, i);
            for (o, e) in out.iter_mut().zip(entry) {
                *o = v._mm256_or_si256(*o, v._mm256_and_si256(*e, hit));
            }
        }
        i = v._mm256_add_epi64(i, one);
    }
    out
}

/// The constants of both halves (p and q: secret, wiped on drop).
struct Moduli {
    m: [Num; 2],
    to: [Num; 2],
    one: [Num; 2],
    /// 2^1024 mod m (the portable radix): AMM(x·2^1044, back) = x·2^1024.
    back: [Num; 2],
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
    /// The constants of p and q, if they have [`PRIME_LIMBS`] limbs.
    fn new<const H: usize>(params: [&FixedMontyParams<H>; 2], consts: [&PrimeConsts<H>; 2]) -> Option<Self> {
        if H != PRIME_LIMBS {
            return None;
        }
        let m = [words(params[0].modulus().as_ref()), words(params[1].modulus().as_ref())];
        Some(Self {
            m: [num(&m[0]), num(&m[1])],
            to: both([&consts[0].to, &consts[1].to]),
            one: both([&consts[0].one, &consts[1].one]),
            back: both([params[0].one(), params[1].one()]),
            k0: [params[0].mod_neg_inv().0 & MASK29, params[1].mod_neg_inv().0 & MASK29],
            m64: m,
        })
    }

    #[inline(always)]
    fn row_consts(&self) -> [RowConsts; 2] {
        let limbs: [[u64; LIMBS]; 2] = [bytemuck::cast(self.m[0]), bytemuck::cast(self.m[1])];
        [0, 1].map(|h| RowConsts { k0: self.k0[h], m0: limbs[h][0], m1: limbs[h][1] })
    }

    /// x·2^1044 in each half to the portable Montgomery form x·2^1024 < m.
    #[inline(always)]
    fn finish(&self, s: Avx2, x: &[Num; 2], sm: &[Shifted; 2]) -> [[u64; PRIME_LIMBS]; 2] {
        let mut r = amm(s, x, &self.back, sm, &self.row_consts());
        let [mut xp, mut xq]: [[u64; LIMBS]; 2] = [bytemuck::cast(r[0]), bytemuck::cast(r[1])];
        let out = [reduce(&from29(&xp), &self.m64[0]), reduce(&from29(&xq), &self.m64[1])];
        bytemuck::bytes_of_mut(&mut r).zeroize();
        xp.zeroize();
        xq.zeroize();
        out
    }
}

/// The limbs of a [`PRIME_LIMBS`]-limb value (callers check `H`).
fn words<const H: usize>(v: &Uint<H>) -> [u64; PRIME_LIMBS] {
    *v.resize::<PRIME_LIMBS>().as_words()
}

fn both<const H: usize>(v: [&Uint<H>; 2]) -> [Num; 2] {
    [num(&words(v[0])), num(&words(v[1]))]
}

/// The two powers: see [`pow_pair`].
#[inline(always)]
fn pow(s: Avx2, x: &[Num; 2], e: [&[u64; PRIME_LIMBS]; 2], h: &Moduli) -> [[u64; PRIME_LIMBS]; 2] {
    let c = h.row_consts();
    let mut sm = [shifted(s, &h.m[0]), shifted(s, &h.m[1])];
    let mut base = amm(s, x, &h.to, &sm, &c);
    // table[i] = base^i·2^1044: table[2k] = table[k]², table[2k+1] = table[2k]·base.
    let zero = s.avx._mm256_setzero_si256();
    let mut table = [[[zero; REGS]; 2]; TABLE];
    table[0] = h.one;
    table[1] = base;
    for i in 2..TABLE {
        table[i] = if i % 2 == 0 { sq(s, &table[i / 2], &sm, &c) } else { amm(s, &table[i - 1], &base, &sm, &c) };
    }
    let windows = PRIME_BITS.div_ceil(WINDOW);
    let top = (windows - 1) * WINDOW;
    let mut acc = lookup(s, &table, [window(e[0], top, WINDOW), window(e[1], top, WINDOW)]);
    let mut t = acc;
    for j in (0..windows - 1).rev() {
        t = lookup(s, &table, [window(e[0], j * WINDOW, WINDOW), window(e[1], j * WINDOW, WINDOW)]);
        // Five squarings, then the product with the entry: one call site
        // (the operand is picked by the public step counter).
        for _ in 0..WINDOW {
            acc = sq(s, &acc, &sm, &c);
        }
        acc = amm(s, &acc, &t, &sm, &c);
    }
    bytemuck::bytes_of_mut(&mut table).zeroize();
    let out = h.finish(s, &acc, &sm);
    for v in [&mut acc, &mut t] {
        bytemuck::bytes_of_mut(v).zeroize();
    }
    bytemuck::bytes_of_mut(&mut base).zeroize();
    bytemuck::bytes_of_mut(&mut sm).zeroize();
    out
}

/// x^65537 in each half (sixteen squarings and a product).
#[inline(always)]
fn pow_65537(s: Avx2, x: &[Num; 2], h: &Moduli) -> [[u64; PRIME_LIMBS]; 2] {
    let c = h.row_consts();
    let mut sm = [shifted(s, &h.m[0]), shifted(s, &h.m[1])];
    let mut base = amm(s, x, &h.to, &sm, &c);
    let mut acc = base;
    for _ in 0..16 {
        acc = sq(s, &acc, &sm, &c);
    }
    acc = amm(s, &acc, &base, &sm, &c);
    let out = h.finish(s, &acc, &sm);
    for v in [&mut acc, &mut base] {
        bytemuck::bytes_of_mut(v).zeroize();
    }
    bytemuck::bytes_of_mut(&mut sm).zeroize();
    out
}

/// The power as a `pulp` closure, run under the token's target features.
struct Pow<'a> {
    s: Avx2,
    x: &'a [Num; 2],
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
    s: Avx2,
    x: &'a [Num; 2],
    h: &'a Moduli,
}

impl pulp::NullaryFnOnce for Pow65537<'_> {
    type Output = [[u64; PRIME_LIMBS]; 2];

    #[inline(always)]
    fn call(self) -> Self::Output {
        pow_65537(self.s, self.x, self.h)
    }
}

/// x_p^65537·2^1024 mod p and x_q^65537·2^1024 mod q (the signature's fault
/// check modulo p and q, as `monty_ifma::pow_65537_pair`). `None` unless the
/// primes have [`PRIME_LIMBS`] limbs.
pub(crate) fn pow_65537_pair<const H: usize>(
    s: Avx2,
    x: [&Uint<H>; 2],
    params: [&FixedMontyParams<H>; 2],
    consts: [&PrimeConsts<H>; 2],
) -> Option<[Uint<H>; 2]> {
    let h = Moduli::new(params, consts)?;
    let mut xs = both(x);
    let mut out = s.vectorize(Pow65537 { s, x: &xs, h: &h });
    bytemuck::bytes_of_mut(&mut xs).zeroize();
    let result = out.map(|w| Uint::<PRIME_LIMBS>::from_words(w).resize::<H>());
    out.zeroize();
    Some(result)
}

/// Both CRT half powers at once, as `monty_ifma::pow_pair`: for x_h < m_h
/// (REDC outputs c·2^-1024 mod m_h) and exponents e_h of 1024 bits, returns
/// c^e_h·2^1024 mod m_h, fully reduced. `None` unless the primes have
/// [`PRIME_LIMBS`] limbs.
pub(crate) fn pow_pair<const H: usize>(
    s: Avx2,
    x: [&Uint<H>; 2],
    e: [&Uint<H>; 2],
    params: [&FixedMontyParams<H>; 2],
    consts: [&PrimeConsts<H>; 2],
) -> Option<[Uint<H>; 2]> {
    let h = Moduli::new(params, consts)?;
    let mut xs = both(x);
    let (mut ep, mut eq) = (words(e[0]), words(e[1]));
    let mut out = s.vectorize(Pow { s, x: &xs, e: [&ep, &eq], h: &h });
    bytemuck::bytes_of_mut(&mut xs).zeroize();
    ep.zeroize();
    eq.zeroize();
    let result = out.map(|w| Uint::<PRIME_LIMBS>::from_words(w).resize::<H>());
    out.zeroize();
    Some(result)
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

    #[test]
    fn limbs_round_trip() {
        let mut rng = TestInts::new(0x29_aa55_0003);
        for _ in 0..20 {
            let x = rng.uint::<16>();
            assert_eq!(from29(&to29(x.as_words())), (*x.as_words(), 0));
        }
        // Redundant limbs carry: 2^29 in limb 0 is 1 in limb 1.
        let mut x = [0u64; LIMBS];
        x[0] = 1 << 29;
        x[LIMBS - 1] = 1 << (1024 - 29 * (LIMBS - 1));
        let mut want = [0u64; PRIME_LIMBS];
        want[0] = 1 << 29;
        assert_eq!(from29(&x), (want, 1));
    }

    #[test]
    fn powers_match_the_portable_kernel() {
        let Some(s) = Avx2::try_new() else { return };
        let mut rng = TestInts::new(0x2f_aa55_0029);
        for round in 0..8 {
            let (p, q) = if round == 3 {
                // Moduli just below 2^1024: m − 1 has (nearly) all-ones limbs,
                // the largest column sums; the results reach the top bits.
                let near =
                    |d: u64| FixedMontyParams::new(Odd::new(U1024::MAX.wrapping_sub(&U1024::from_u64(d))).unwrap());
                (near(158), near(104))
            } else {
                (modulus(&mut rng), modulus(&mut rng))
            };
            let r3 = |x: &FixedMontyParams<16>| monty::mul(x.r2(), x.r2(), x);
            let (cp, cq) = (PrimeConsts::new(&p, &r3(&p)), PrimeConsts::new(&q, &r3(&q)));
            let minus_one = |m: &FixedMontyParams<16>| m.modulus().as_ref().wrapping_sub(&U1024::ONE);
            let (x, e) = match round {
                0 => ([U1024::ZERO, U1024::ONE], [rng.uint::<16>(), rng.uint::<16>()]),
                1 => ([minus_one(&p), minus_one(&q)], [U1024::MAX, U1024::ZERO]),
                2 => ([rng.uint::<16>().rem(p.modulus().as_nz_ref()), U1024::ONE], [U1024::ONE, U1024::from_u8(31)]),
                3 => ([minus_one(&p), minus_one(&q)], [U1024::MAX, U1024::MAX.wrapping_sub(&U1024::ONE)]),
                _ => (
                    [rng.uint::<16>().rem(p.modulus().as_nz_ref()), rng.uint::<16>().rem(q.modulus().as_nz_ref())],
                    [rng.uint::<16>(), rng.uint::<16>()],
                ),
            };
            let got = pow_pair(s, [&x[0], &x[1]], [&e[0], &e[1]], [&p, &q], [&cp, &cq]).unwrap();
            let got_65537 = pow_65537_pair(s, [&x[0], &x[1]], [&p, &q], [&cp, &cq]).unwrap();
            for (h, params) in [&p, &q].into_iter().enumerate() {
                let base = monty::mul(&x[h], &r3(params), params);
                let want = monty::pow::<16, 32, { monty::WINDOW_TABLE }>(&base, &e[h], params);
                assert_eq!(got[h], want, "round {round}, half {h}");
                let want = monty::pow::<16, 32, { monty::WINDOW_TABLE }>(&base, &U1024::from_u32(65537), params);
                assert_eq!(got_65537[h], want, "x^65537, round {round}, half {h}");
            }
        }
    }
}
