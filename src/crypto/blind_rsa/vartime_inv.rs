//! Variable-time modular inversion of a public value modulo a public odd
//! modulus: batched divsteps (Bernstein–Yang) with exact divisions.
//!
//! Only for inputs that carry no secret: the running time, the branches and
//! the memory accesses all depend on the values (the caller in `blind_core`
//! inverts a uniformly blinded, declassified product).
//!
//! # Method
//!
//! The numbers are held as signed integers in radix 2⁶²: `[i64; C]` with the
//! smallest capacity C of 34, 67 or [`CAP`] limbs that holds the modulus, every
//! limb but the top one in [0, 2⁶²), the top (active) limb signed. The state is
//! (δ, f, g, d, e) with f = n, g = w, d = 0, e = 1 at the start and the
//! invariants f ≡ d·w and g ≡ e·w (mod n).
//!
//! A divstep maps (δ, f, g) to (1 − δ, g, (g − f)/2) if δ > 0 and g is odd,
//! else to (1 + δ, f, (g + (g mod 2)·f)/2). Each batch runs 62 of them on the
//! low 62 bits of f and g only (the parity seen at step j depends only on
//! bits ≤ j of the inputs), skipping runs of zero bits of g at once, and
//! records the effect as an integer matrix T = [[u, v], [q, r]] with
//! 2⁶²·(f', g') = T·(f, g); each row of T has |·|₁ ≤ 2⁶². The batch is then
//! applied to the full numbers: f' = (u·f + v·g)/2⁶², g' = (q·f + r·g)/2⁶²
//! (exact divisions), and d' = (u·d + v·e + m_d·n)/2⁶² mod n with m_d chosen
//! so that the division is exact (the same for e'). f and g never grow in
//! absolute value, so their active length shrinks as they shrink; d and e
//! stay in (−2n, n) by choosing m_d as described at [`update_de`].
//!
//! g reaches 0 after finitely many divsteps, and then f = ±gcd(w, n); the
//! inverse exists iff f = ±1, and it is then ±d mod n.
//!
//! # Why not crypto-bigint's `invert_vartime`
//!
//! crypto-bigint (already a dependency) would do the job:
//! `FixedMontyForm::invert_vartime` is the same Bernstein–Yang method in
//! batches of 62 divsteps (`modular/safegcd.rs`), and `blind_core` still
//! falls back to it for moduli beyond [`CAP`]. Its variable-time version only
//! branches in the 62 divsteps on the low word and stops once g = 0; every
//! batch still applies the matrix to full-width `Uint`s, with widening
//! products of all limbs and constant-time conditional negations, however
//! small f and g have become. Here f and g are signed radix-2⁶² limbs whose
//! active length shrinks with them, d and e are updated limb by limb with the
//! exact-division multiple of n, and runs of zero bits of g are skipped at
//! once.
//!
//! Its instruction counts against crypto-bigint's `invert_vartime` are in
//! `docs/reports/2026-12-01-crypto-design-measurements.md`.

use crypto_bigint::{Limb, Uint, Word};

/// 2⁶² − 1.
const M62: u64 = (1 << 62) - 1;

/// Capacity in 62-bit limbs: moduli of up to `CAP·62 − 3` bits (8,677).
const CAP: usize = 140;

/// Whether `Uint<L>` moduli fit a capacity of `c` limbs.
const fn fits_in<const L: usize>(c: usize) -> bool {
    L * Limb::BYTES * 8 + 3 <= c * 62
}

/// Whether `Uint<L>` moduli fit the fixed capacity of [`invert`].
pub(crate) const fn fits<const L: usize>() -> bool {
    fits_in::<L>(CAP)
}

/// The low 62 bits of a signed column value, as a limb in [0, 2⁶²).
#[inline(always)]
fn low62(c: i128) -> i64 {
    #[allow(clippy::cast_possible_truncation)] // masked to 62 bits
    let l = (c & i128::from(M62)) as i64;
    l
}

/// A column value known to fit a signed limb (the top limb of a result).
#[inline(always)]
fn top(c: i128) -> i64 {
    #[allow(clippy::cast_possible_truncation)] // |c| < 2⁶³ by the bounds in the module comment
    let t = c as i64;
    t
}

/// `x` in radix 2⁶² (non-negative limbs), or `None` if it does not fit.
fn to_radix62<const L: usize>(x: &Uint<L>, out: &mut [i64]) -> Option<()> {
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    let mut slots = out.iter_mut();
    for limb in x.as_limbs() {
        acc |= u128::from(limb.0) << bits;
        bits += Limb::BITS;
        while bits >= 62 {
            *slots.next()? = low62(i128::try_from(acc & u128::from(M62)).ok()?);
            acc >>= 62;
            bits -= 62;
        }
    }
    if acc != 0 {
        *slots.next()? = i64::try_from(acc).ok()?;
    }
    Some(())
}

/// The inverse conversion, for a value in [0, 2^(L·W)) with limbs in [0, 2⁶²).
fn from_radix62<const L: usize>(x: &[i64]) -> Option<Uint<L>> {
    let mut words = [Limb::ZERO; L];
    let mut acc: u128 = 0;
    let mut bits = 0u32;
    let mut src = x.iter();
    for w in &mut words {
        while bits < Limb::BITS {
            match src.next() {
                Some(&v) => {
                    acc |= u128::from(u64::try_from(v).ok()?) << bits;
                    bits += 62;
                }
                None => break,
            }
        }
        w.0 = Word::try_from(acc & u128::from(Word::MAX)).ok()?;
        acc >>= Limb::BITS;
        bits = bits.saturating_sub(Limb::BITS);
    }
    if acc != 0 || src.any(|&v| v != 0) {
        return None;
    }
    Some(Uint::new(words))
}

/// Transition matrix of 62 divsteps, scaled by 2⁶².
#[derive(Clone, Copy)]
struct Matrix {
    u: i64,
    v: i64,
    q: i64,
    r: i64,
}

/// 62 divsteps on the low bits `f`, `g` (f odd), updating δ.
///
/// Row invariant: after k steps, 2ᵏ·f_k = u·f + v·g and 2ᵏ·g_k = q·f + r·g
/// (f_k, g_k the exact values); halving g doubles the f row instead of
/// dividing the g row, so the entries stay integers with |u| + |v| ≤ 2ᵏ and
/// |q| + |r| ≤ 2ᵏ.
fn divsteps(delta: &mut i64, f: u64, g: u64) -> Matrix {
    let (mut f, mut g) = (f, g);
    let (mut u, mut v, mut q, mut r) = (1i64, 0i64, 0i64, 1i64);
    let mut left = 62u32;
    loop {
        // A run of even g: z steps of δ ← 1 + δ, g ← g/2. The sentinel bit
        // at position `left` stops the run at the end of the batch.
        let z = (g | (u64::MAX << left)).trailing_zeros();
        g >>= z;
        u <<= z;
        v <<= z;
        *delta += 2 * i64::from(z);
        left -= z;
        if left == 0 {
            break;
        }
        // g odd: one divstep that ends with a halving.
        if *delta > 0 {
            (f, g) = (g, g.wrapping_sub(f));
            (u, v, q, r) = (q, r, q - u, r - v);
            *delta = -*delta;
        } else {
            g = g.wrapping_add(f);
            q += u;
            r += v;
        }
        g >>= 1;
        u <<= 1;
        v <<= 1;
        *delta += 2;
        left -= 1;
        if left == 0 {
            break;
        }
    }
    Matrix { u, v, q, r }
}

/// (f, g) ← T·(f, g)/2⁶² on the `len` active limbs.
fn update_fg(f: &mut [i64], g: &mut [i64], len: usize, t: Matrix) {
    let (u, v, q, r) = (i128::from(t.u), i128::from(t.v), i128::from(t.q), i128::from(t.r));
    let (mut cf, mut cg) = (0i128, 0i128);
    let mut prev: Option<(&mut i64, &mut i64)> = None;
    let (Some(f), Some(g)) = (f.get_mut(..len), g.get_mut(..len)) else {
        return;
    };
    for (fi, gi) in f.iter_mut().zip(g.iter_mut()) {
        let (a, b) = (i128::from(*fi), i128::from(*gi));
        cf += u * a + v * b;
        cg += q * a + r * b;
        // The low 62 bits of the first column are zero (exact division);
        // every later column's low bits are the previous limb of the result.
        if let Some((pf, pg)) = prev.take() {
            *pf = low62(cf);
            *pg = low62(cg);
        }
        cf >>= 62;
        cg >>= 62;
        prev = Some((fi, gi));
    }
    if let Some((pf, pg)) = prev {
        *pf = top(cf);
        *pg = top(cg);
    }
}

/// (d, e) ← (T·(d, e) + (m_d, m_e)·n)/2⁶² on `len` limbs, where n ≡ `n_inv`⁻¹
/// (mod 2⁶²).
///
/// With d, e ∈ (−2n, n): start from m_d = u·[d < 0] + v·[e < 0], so that
/// u·d + v·e + m_d·n = u·(d + [d < 0]·n) + v·(e + [e < 0]·n) lies in
/// (−2⁶²·n, 2⁶²·n); then subtract t ∈ [0, 2⁶²) from m_d to make the sum
/// divisible by 2⁶². The sum is then in (−2⁶³·n, 2⁶²·n) and the quotient in
/// (−2n, n) again. Same for e with (q, r).
fn update_de(d: &mut [i64], e: &mut [i64], n: &[i64], n_inv: u64, len: usize, t: Matrix) {
    let top_d = d.get(len.wrapping_sub(1)).copied().unwrap_or(0);
    let top_e = e.get(len.wrapping_sub(1)).copied().unwrap_or(0);
    let (sd, se) = (top_d >> 63, top_e >> 63);
    let mut md = (t.u & sd) + (t.v & se);
    let mut me = (t.q & sd) + (t.r & se);
    let (d0, e0) = (d.first().copied().unwrap_or(0), e.first().copied().unwrap_or(0));
    let low_d = (t.u as u64).wrapping_mul(d0 as u64).wrapping_add((t.v as u64).wrapping_mul(e0 as u64));
    let low_e = (t.q as u64).wrapping_mul(d0 as u64).wrapping_add((t.r as u64).wrapping_mul(e0 as u64));
    md -= (n_inv.wrapping_mul(low_d).wrapping_add(md as u64) & M62) as i64;
    me -= (n_inv.wrapping_mul(low_e).wrapping_add(me as u64) & M62) as i64;
    let (u, v, q, r) = (i128::from(t.u), i128::from(t.v), i128::from(t.q), i128::from(t.r));
    let (md, me) = (i128::from(md), i128::from(me));
    let (mut cd, mut ce) = (0i128, 0i128);
    let mut prev: Option<(&mut i64, &mut i64)> = None;
    let (Some(d), Some(e), Some(n)) = (d.get_mut(..len), e.get_mut(..len), n.get(..len)) else {
        return;
    };
    for ((di, ei), &ni) in d.iter_mut().zip(e.iter_mut()).zip(n.iter()) {
        let (a, b, m) = (i128::from(*di), i128::from(*ei), i128::from(ni));
        cd += u * a + v * b + md * m;
        ce += q * a + r * b + me * m;
        if let Some((pd, pe)) = prev.take() {
            *pd = low62(cd);
            *pe = low62(ce);
        }
        cd >>= 62;
        ce >>= 62;
        prev = Some((di, ei));
    }
    if let Some((pd, pe)) = prev {
        *pd = top(cd);
        *pe = top(ce);
    }
}

/// x ← a·x + b·y on `len` limbs (carries propagated, top limb signed).
fn lin(x: &mut [i64], a: i64, y: &[i64], b: i64, len: usize) {
    let mut c = 0i128;
    let mut last: Option<&mut i64> = None;
    for (xi, &yi) in x.iter_mut().zip(y.iter()).take(len) {
        c += i128::from(a) * i128::from(*xi) + i128::from(b) * i128::from(yi);
        *xi = low62(c);
        c >>= 62;
        last = Some(xi);
    }
    if let Some(l) = last {
        *l = top(i128::from(*l) + (c << 62));
    }
}

/// Whether the signed value in `len` limbs is negative.
fn negative(x: &[i64], len: usize) -> bool {
    x.get(len.wrapping_sub(1)).is_some_and(|&t| t < 0)
}

/// w⁻¹ mod n (plain, in [0, n)) for an odd modulus n, in variable time.
///
/// Returns `None` if gcd(w, n) ≠ 1 (in particular for w = 0 and n > 1), if n
/// is even, or if the modulus is wider than the fixed capacity (see
/// [`fits`]).
pub(crate) fn invert<const L: usize>(w: &Uint<L>, n: &Uint<L>) -> Option<Uint<L>> {
    // The smallest capacity that holds the modulus: 34 limbs for 2048 bits,
    // 67 for 4096. Six numbers of 8·C bytes are live, so a 2048-bit inversion
    // takes 1.6 KB of stack instead of the full capacity's 6.7 KB. `L` is
    // known at compile time, so only one branch is compiled in.
    if fits_in::<L>(34) {
        invert_in::<L, 34>(w, n)
    } else if fits_in::<L>(67) {
        invert_in::<L, 67>(w, n)
    } else {
        invert_in::<L, CAP>(w, n)
    }
}

/// [`invert`] with numbers of `C` limbs of 62 bits (`C·62 − 3` bits at most).
fn invert_in<const L: usize, const C: usize>(w: &Uint<L>, n: &Uint<L>) -> Option<Uint<L>> {
    if !fits_in::<L>(C) {
        return None;
    }
    let mut nl = [0i64; C];
    to_radix62(n, &mut nl)?;
    let n0 = nl.first().copied().unwrap_or(0) as u64;
    if n0 & 1 == 0 {
        return None;
    }
    // Active length: the bits of n plus room for the sign and for |d| < 2n.
    let bits = usize::try_from(n.bit_width()).ok()?;
    let len = (bits + 3).div_ceil(62).clamp(1, C);
    // n⁻¹ mod 2⁶⁴ by Newton's iteration (n·n ≡ 1 mod 8: 3 correct bits).
    let mut n_inv = n0;
    for _ in 0..5 {
        n_inv = n_inv.wrapping_mul(2u64.wrapping_sub(n0.wrapping_mul(n_inv)));
    }
    let mut f = nl;
    let mut g = [0i64; C];
    to_radix62(w, &mut g)?;
    if g.iter().skip(len).any(|&x| x != 0) {
        return None; // w has more bits than n's active length holds
    }
    let mut d = [0i64; C];
    let mut e = [0i64; C];
    *e.first_mut()? = 1;
    let mut delta = 1i64; // δ = 1/2, in half units
    let mut flen = len;
    loop {
        // Shrink while both top limbs are sign-only.
        while flen > 1 {
            let (ft, gt) = (*f.get(flen - 1)?, *g.get(flen - 1)?);
            if (ft != 0 && ft != -1) || (gt != 0 && gt != -1) {
                break;
            }
            *f.get_mut(flen - 2)? += ft << 62;
            *g.get_mut(flen - 2)? += gt << 62;
            *f.get_mut(flen - 1)? = 0;
            *g.get_mut(flen - 1)? = 0;
            flen -= 1;
        }
        if g.iter().take(flen).all(|&x| x == 0) {
            break;
        }
        let t = divsteps(&mut delta, *f.first()? as u64, *g.first()? as u64);
        update_fg(&mut f, &mut g, flen, t);
        update_de(&mut d, &mut e, &nl, n_inv & M62, len, t);
    }
    // g = 0, f = ±gcd(w, n).
    let sign = match (flen, f.first().copied()) {
        (1, Some(1)) => 1,
        (1, Some(-1)) => -1,
        _ => return None,
    };
    // d ∈ (−2n, n); ±d ∈ (−2n, 2n). Bring it into [0, n).
    lin(&mut d, sign, &nl, 0, len);
    while negative(&d, len) {
        lin(&mut d, 1, &nl, 1, len);
    }
    loop {
        let mut t = d;
        lin(&mut t, 1, &nl, -1, len);
        if negative(&t, len) {
            break;
        }
        d = t;
    }
    from_radix62(&d)
}

#[cfg(test)]
#[allow(clippy::indexing_slicing, clippy::unwrap_used, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
    use crypto_bigint::{NonZero, Odd, U64, U256, U2048, U4096, U8192};

    use super::super::test_rng::TestInts;

    impl TestInts {
        /// An odd modulus with `bits` significant bits (top bit set).
        fn modulus_bits<const N: usize>(&mut self, bits: u32) -> Uint<N> {
            let mut m = self.uint::<N>();
            m = m.shr(Uint::<N>::BITS - bits);
            m = m.bitor(&Uint::ONE.shl(bits - 1)).bitor(&Uint::ONE);
            m
        }
    }

    /// crypto-bigint's constant-time inversion (plain value in [0, n)).
    fn reference<const L: usize>(w: &Uint<L>, n: &Uint<L>) -> Option<Uint<L>> {
        let params = FixedMontyParams::new_vartime(Odd::new(*n).unwrap());
        let x = FixedMontyForm::new(w, &params);
        x.invert().into_option().map(|y| y.retrieve())
    }

    fn check<const L: usize>(w: &Uint<L>, n: &Uint<L>) {
        let got = invert(w, n);
        let want = reference(&w.rem_vartime(&NonZero::new(*n).unwrap()), n);
        assert_eq!(got, want, "w = {w}, n = {n}");
        if let Some(x) = got {
            assert!(x < *n);
            let prod = w.mul_mod(&x, &NonZero::new(*n).unwrap());
            assert_eq!(prod, Uint::<L>::ONE.rem_vartime(&NonZero::new(*n).unwrap()));
        }
    }

    #[test]
    fn random_2048() {
        let mut rng = TestInts::new(0x9e37_79b9_7f4a_7c15);
        for i in 0..2000u32 {
            // Full-width moduli mostly, and some narrower ones.
            let bits = if i % 4 == 3 { 2048 - (i % 700) } else { 2048 };
            let n = rng.modulus_bits::<{ U2048::LIMBS }>(bits);
            let w = rng.uint::<{ U2048::LIMBS }>().rem_vartime(&NonZero::new(n).unwrap());
            check(&w, &n);
        }
    }

    #[test]
    fn edge_cases_2048() {
        let mut rng = TestInts::new(7);
        let n = rng.modulus_bits::<{ U2048::LIMBS }>(2048);
        let nz = NonZero::new(n).unwrap();
        let one = U2048::ONE;
        check(&one, &n);
        check(&n.wrapping_sub(&one), &n);
        check(&n.wrapping_sub(&U2048::from_u64(2)), &n);
        for k in [0u32, 1, 2, 61, 62, 63, 64, 100, 1000, 2046, 2047] {
            check(&one.shl(k).rem_vartime(&nz), &n);
            check(&n.wrapping_sub(&one.shl(k).rem_vartime(&nz)), &n);
        }
        assert_eq!(invert(&U2048::ZERO, &n), None);
        // Largest modulus and small values.
        let max = U2048::MAX;
        check(&U2048::from_u64(3), &max);
        check(&U2048::from_u64(2), &max);
        check(&max.wrapping_sub(&one), &max);
        assert_eq!(invert(&U2048::ZERO, &max), None);
        // Even modulus: rejected.
        assert_eq!(invert(&one, &U2048::from_u64(10)), None);
        // Non-invertible: w shares a factor with n = p·q.
        let p = rng.modulus_bits::<{ U2048::LIMBS }>(1024);
        let q = rng.modulus_bits::<{ U2048::LIMBS }>(1024);
        let pq = p.wrapping_mul(&q);
        assert_eq!(invert(&p, &pq), None);
        assert_eq!(invert(&q.wrapping_mul(&U2048::from_u64(5)), &pq), None);
        let x = rng.uint::<{ U2048::LIMBS }>().rem_vartime(&NonZero::new(q).unwrap());
        assert_eq!(invert(&p.wrapping_mul(&x).rem_vartime(&NonZero::new(pq).unwrap()), &pq), None);
        check(&x, &pq);
    }

    /// Each capacity: 2048 bits (34 limbs), 4096 (67), 8192 (the full 140),
    /// with the widest modulus each holds and a narrower one.
    #[test]
    fn every_capacity() {
        let mut rng = TestInts::new(0x4096);
        for bits in [2048, 2049 - 700] {
            let n = rng.modulus_bits::<{ U2048::LIMBS }>(bits);
            check(&rng.uint::<{ U2048::LIMBS }>().rem_vartime(&NonZero::new(n).unwrap()), &n);
        }
        for bits in [4096, 3072, 2050] {
            let n = rng.modulus_bits::<{ U4096::LIMBS }>(bits);
            for _ in 0..20 {
                check(&rng.uint::<{ U4096::LIMBS }>().rem_vartime(&NonZero::new(n).unwrap()), &n);
            }
        }
        for bits in [8192, 5000] {
            let n = rng.modulus_bits::<{ U8192::LIMBS }>(bits);
            for _ in 0..5 {
                check(&rng.uint::<{ U8192::LIMBS }>().rem_vartime(&NonZero::new(n).unwrap()), &n);
            }
        }
        assert!(fits_in::<{ U2048::LIMBS }>(34) && !fits_in::<{ U4096::LIMBS }>(34));
        assert!(fits_in::<{ U4096::LIMBS }>(67) && !fits_in::<{ U8192::LIMBS }>(67));
        assert!(fits::<{ U8192::LIMBS }>());
    }

    #[test]
    fn small_moduli() {
        let mut rng = TestInts::new(12345);
        for _ in 0..2000 {
            let bits = 2 + (rng.next() % 63) as u32;
            let n = rng.modulus_bits::<{ U64::LIMBS }>(bits);
            let w = rng.uint::<{ U64::LIMBS }>();
            check(&w.rem_vartime(&NonZero::new(n).unwrap()), &n);
        }
        for _ in 0..500 {
            let bits = 2 + (rng.next() % 255) as u32;
            let n = rng.modulus_bits::<{ U256::LIMBS }>(bits);
            let w = rng.uint::<{ U256::LIMBS }>().rem_vartime(&NonZero::new(n).unwrap());
            check(&w, &n);
            // Common factor 3 when n is a multiple of 3 (no wrap-around:
            // n has at most 254 bits).
            if n.bit_width() <= 254 {
                let n3 = n.wrapping_mul(&U256::from_u64(3));
                assert_eq!(invert(&U256::from_u64(3).shl(5), &n3), None);
            }
        }
        assert_eq!(invert(&U64::from_u64(4), &U64::from_u64(1)), Some(U64::ZERO));
        assert_eq!(invert(&U64::from_u64(2), &U64::from_u64(3)), Some(U64::from_u64(2)));
    }
}
