//! Adversarial tests: a scalar-level model of where the incomplete additions
//! meet equal or opposite inputs (these events depend only on the scalar,
//! not on the base point, since every point is a multiple of any non-identity
//! one), the complete set of comb scalars that meet them, and point-level
//! comparisons with `p384` on structured and random scalars and bases.

use p384::elliptic_curve::Group;

use super::ct_mul::*;
#[cfg(feature = "precomputed-tables")]
use super::msm_vartime::*;
use super::point::*;
use super::*;
use pat_testkit::TestRng;

/// How many random cases per test: small by default (debug `cargo
/// test`); `PAT_ADVERSARIAL=<n>` for a long run, e.g.
/// `PAT_ADVERSARIAL=200000 cargo test --release --all-features --lib adversarial`.
/// The long run also checks every structured `2^i` and every comb case.
fn cases(default: u32) -> u32 {
    option_env_count().unwrap_or(default)
}

fn option_env_count() -> Option<u32> {
    std::env::var("PAT_ADVERSARIAL").ok().and_then(|v| v.parse().ok())
}

/// Every `step`-th structured scalar family member (1 in the long run).
fn step(default: usize) -> usize {
    if option_env_count().is_some() { 1 } else { default }
}

/// The shared test generator with the scalars these tests draw.
struct Rng(TestRng);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0.next()
    }

    fn below(&mut self, n: usize) -> usize {
        self.0.below(n)
    }

    fn scalar(&mut self) -> Scalar {
        limbs_to_scalar(&core::array::from_fn(|_| self.next()))
    }
}

fn small(d: i64) -> Scalar {
    let s = Scalar::from(d.unsigned_abs());
    if d < 0 { -s } else { s }
}

fn two64() -> Scalar {
    let two32 = Scalar::from(1u64 << 32);
    two32 * two32
}

/// `2^(64·j)`, the weight of tooth `j`.
fn weight(j: usize) -> Scalar {
    (0..j).fold(Scalar::ONE, |acc, _| acc * two64())
}

/// `Σ limbs_i·2^(64i) mod n`, little-endian limbs (any value, reduced).
fn limbs_to_scalar(limbs: &[u64; 6]) -> Scalar {
    limbs.iter().rev().fold(Scalar::ZERO, |acc, l| acc * two64() + Scalar::from(*l))
}

/// `Σ d_i·16^i mod n` for any digit string (least significant first).
fn digits_to_scalar(digits: &[i8]) -> Scalar {
    let sixteen = Scalar::from(16u64);
    digits.iter().rev().fold(Scalar::ZERO, |acc, d| acc * sixteen + small(i64::from(*d)))
}

/// The 48-byte big-endian string `b` repeated, reduced mod `n`.
fn repeated_byte(b: u8) -> Scalar {
    let l = u64::from_be_bytes([b; 8]);
    limbs_to_scalar(&[l; 6])
}

/// Exceptional events of an addition `acc + q` (as discrete logs).
#[derive(Debug)]
struct Events {
    /// `acc = q`, both non-identity, by (position, tooth) — see callers.
    doubling: [u32; 17 * 6],
    /// `acc = −q`, both non-identity.
    opposite: [u32; 17 * 6],
}

impl Events {
    fn new() -> Self {
        Self { doubling: [0; 17 * 6], opposite: [0; 17 * 6] }
    }

    fn record(&mut self, slot: usize, acc: &Scalar, q: &Scalar) {
        if bool::from(acc.is_zero()) || bool::from(q.is_zero()) {
            return;
        }
        if acc == q {
            self.doubling[slot] += 1;
        }
        if *acc == -*q {
            self.opposite[slot] += 1;
        }
    }

    fn total(&self) -> (u32, u32) {
        (self.doubling.iter().sum(), self.opposite.iter().sum())
    }
}

/// The additions of [`mul`] on discrete logs; slot = digit index `i`
/// (0 … 96), the last addition is slot 0.
fn mul_model(k: &Scalar) -> Events {
    let digits = recode(k);
    let mut ev = Events::new();
    let mut acc = Scalar::ZERO;
    for (i, d) in digits.iter().enumerate().rev() {
        let range = if i + 1 == DIGITS { 0..=1 } else { -8..=7 };
        assert!(range.contains(d), "digit {i} of {k:?} is {d}");
        acc = acc.double().double().double().double();
        let q = small(i64::from(*d));
        ev.record(i, &acc, &q);
        acc += q;
    }
    assert_eq!(acc, *k);
    ev
}

/// The additions of [`Comb::mul`] on discrete logs; slot = `6·round + j`.
fn comb_model(k: &Scalar) -> Events {
    let digits = recode(k);
    let weights: [Scalar; COMB_TEETH] = core::array::from_fn(weight);
    let mut ev = Events::new();
    let mut acc = Scalar::ZERO;
    for round in (0..=COMB_SPAN).rev() {
        acc = acc.double().double().double().double();
        for (j, w) in weights.iter().enumerate() {
            if round == COMB_SPAN && j + 1 != COMB_TEETH {
                continue;
            }
            let q = small(i64::from(digits[j * COMB_SPAN + round])) * w;
            ev.record(COMB_TEETH * round + j, &acc, &q);
            acc += q;
        }
    }
    assert_eq!(acc, *k);
    ev
}

/// Every scalar for which the comb's round-0 addition at tooth `j`
/// meets `acc = q` (`c = 2`) or `acc = −q` (`c = 0`). Before tooth `j`
/// of round 0 the accumulator is `k − Σ_(j'≥j) d_(16j')·2^(64j')`, so
/// such a `k` is `Σ_(j'>j) e_(j')·2^(64j') + c·e_j·2^(64j) mod n` for
/// the digits `e` it recodes to: enumerating all digit tuples
/// (`16^(5−j)·15` of them) and keeping the self-consistent ones finds
/// them all. Calls `f` with each.
fn comb_round0_cases(j: usize, c: i64, f: &mut impl FnMut(Scalar)) {
    fn go(j: usize, t: usize, c: i64, e: &mut [i8; 6], partial: Scalar, f: &mut impl FnMut(Scalar)) {
        let w = weight(t);
        if t == j {
            for ej in (-8..8).filter(|d| *d != 0) {
                e[j] = ej;
                let k = partial + small(c * i64::from(ej)) * w;
                let digits = recode(&k);
                if (j..COMB_TEETH).all(|jj| digits[COMB_SPAN * jj] == e[jj]) {
                    f(k);
                }
            }
            return;
        }
        for et in -8..8 {
            e[t] = et;
            go(j, t - 1, c, e, partial + small(i64::from(et)) * w, f);
        }
    }
    go(j, COMB_TEETH - 1, c, &mut [0; 6], Scalar::ZERO, f);
}

/// Structured scalars: small, `n − small`, around `n/2`, `2^i ± small`
/// (every `step`-th `i`), digit strings (runs of ±8, 7, 0, alternating,
/// one non-zero digit, teeth that repeat or cancel each other) and
/// repeated bytes, each also negated and (most) nudged by small amounts.
fn structured(step: usize, f: &mut impl FnMut(Scalar)) {
    for s in 0..=20 {
        f(small(s));
        f(-small(s));
    }
    let half = Scalar::from(2u64).invert().unwrap(); // (n + 1)/2
    for s in -10..=10 {
        f(half + small(s));
    }
    let mut p = Scalar::ONE;
    for i in 0..384 {
        if i % step == 0 {
            for s in [0, 1, -1, 6, -6, 8, -8] {
                f(p + small(s));
                f(-p + small(s));
            }
        }
        p = p.double();
    }
    let patterns: [&dyn Fn(usize) -> i8; 12] = [
        &|_| 8,
        &|_| -8,
        &|_| 7,
        &|i| if i % 2 == 0 { 8 } else { -8 },
        &|i| if i % 2 == 0 { -8 } else { 7 },
        &|i| if i % 2 == 0 { 7 } else { -8 },
        &|i| if (i / 16) % 2 == 0 { 8 } else { -8 },
        &|i| if (i / 16) % 2 == 0 { 3 } else { -3 },
        &|i| if i % 16 == 0 { -8 } else { 0 },
        &|i| if i % 16 == 0 { 8 } else { 0 },
        &|i| [1, -3, 0, 8, -8, 5][i / 16 % 6],
        &|i| if i < 48 { 8 } else { -8 },
    ];
    for pat in patterns {
        let digits: [i8; 96] = core::array::from_fn(pat);
        let k = digits_to_scalar(&digits);
        for s in [0, 1, -1, 6, -6] {
            f(k + small(s));
            f(-k + small(s));
        }
        // The same 64-bit tooth in every tooth position, and teeth that
        // cancel their neighbours (equal partial sums across teeth).
        let tooth: [i8; 16] = core::array::from_fn(|i| digits[i]);
        let same: [i8; 96] = core::array::from_fn(|i| tooth[i % 16]);
        let alternate: [i8; 96] =
            core::array::from_fn(|i| if (i / 16) % 2 == 0 { tooth[i % 16] } else { -tooth[i % 16] });
        f(digits_to_scalar(&same));
        f(digits_to_scalar(&alternate));
        f(-digits_to_scalar(&same));
    }
    for i in (0..96).step_by(step.div_ceil(4)) {
        for d in [1, -1, 7, -8] {
            let mut digits = [0i8; 96];
            digits[i] = d;
            f(digits_to_scalar(&digits));
        }
    }
    for b in [0x88, 0x77, 0x80, 0x08, 0x7f, 0xf7, 0xf0, 0x0f, 0xff, 0x78, 0x87, 0x55, 0xaa] {
        f(repeated_byte(b));
        f(-repeated_byte(b));
    }
}

#[test]
fn model_exceptional_cases() {
    // `mul`: no exceptional input before the last addition, and there
    // only acc = q for k = n − 6.
    let n_minus_6 = -small(6);
    let mut count = 0u32;
    let mut doublings = 0u32;
    let mut check = |k: Scalar| {
        let ev = mul_model(&k);
        let expected = u32::from(k == n_minus_6);
        assert_eq!((ev.doubling[0], ev.total()), (expected, (expected, 0)), "k = {k:?}");
        doublings += expected;
        count += 1;
    };
    structured(step(3), &mut check);
    let mut rng = Rng(TestRng::new(1));
    for _ in 0..cases(500) {
        check(rng.scalar());
    }
    std::println!("mul model: {count} scalars");
    assert!(count > 1500 && doublings > 0);

    // The comb: the complete list of exceptional scalars is 2184 with
    // acc = q and 2184 with acc = −q, all at tooth 2 of round 0 (no
    // exceptional input in rounds 1 … 16, checked below on samples and
    // argued at `Comb::mul`).
    // Teeth 0 and 1 (16^5·15 and 16^4·15 digit tuples) only in the long run.
    let first = if option_env_count().is_some() { 0 } else { 2 };
    for j in first..COMB_TEETH {
        for c in [0, 2] {
            let mut found = 0u32;
            comb_round0_cases(j, c, &mut |k| {
                let ev = comb_model(&k);
                let expected = if c == 2 { (1, 0) } else { (0, 1) };
                assert_eq!(ev.total(), expected, "k = {k:?}");
                let slot = if c == 2 { ev.doubling[j] } else { ev.opposite[j] };
                assert_eq!(slot, 1);
                found += 1;
            });
            assert_eq!(found, if j == 2 { 2184 } else { 0 }, "tooth {j}, c = {c}");
        }
    }
    let mut count = 0u32;
    let mut check = |k: Scalar| {
        let ev = comb_model(&k);
        // Only round 0 (slots 0..6), only tooth 2, and then k is one of the enumerated.
        assert_eq!(ev.total(), (ev.doubling[2], ev.opposite[2]), "k = {k:?}");
        count += 1;
    };
    structured(step(3), &mut check);
    let mut rng = Rng(TestRng::new(2));
    for _ in 0..cases(500) {
        check(rng.scalar());
    }
    std::println!("comb model: {count} scalars");
    assert!(count > 1500);
}

/// Base points `a·G` with their discrete logs: G, −G, 2G, (n−1)/2·G,
/// 2^(−64)·G (so that the comb's `P_1` is G), and random ones.
fn bases(rng: &mut Rng, random: usize) -> impl Iterator<Item = (Scalar, ProjectivePoint)> {
    let half = Scalar::from(2u64).invert().unwrap();
    let fixed = [Scalar::ONE, -Scalar::ONE, Scalar::from(2u64), half - Scalar::ONE, two64().invert().unwrap()];
    let randoms: [Scalar; 8] = core::array::from_fn(|_| rng.scalar());
    fixed.into_iter().chain(randoms.into_iter().take(random)).map(|a| (a, ProjectivePoint::mul_by_generator(&a)))
}

/// Checks [`mul`] (batch-normalized four at a time, as the issuer does)
/// and [`prepared_mul`] (the comb) against `p384` for one base.
struct Checker {
    a: Scalar,
    table: Table,
    comb: Comb,
    pending: [Scalar; SAME_BASE_MAX],
    len: usize,
    checked: u32,
}

impl Checker {
    fn new(a: Scalar, p: ProjectivePoint) -> Self {
        let table = Table::new(&Affine::from_affine(&p.to_affine()).unwrap());
        let comb = Comb::new(&p).unwrap();
        Self { a, table, comb, pending: [Scalar::ZERO; SAME_BASE_MAX], len: 0, checked: 0 }
    }

    fn push(&mut self, k: Scalar) {
        self.pending[self.len] = k;
        self.len += 1;
        if self.len == SAME_BASE_MAX {
            self.flush();
        }
    }

    fn flush(&mut self) {
        let ks = &self.pending[..self.len];
        let mut jac = [PAD; SAME_BASE_MAX];
        for (j, k) in jac.iter_mut().zip(ks) {
            *j = mul(&self.table, k);
        }
        let mut from_mul = [ProjectivePoint::IDENTITY; SAME_BASE_MAX];
        to_projective(&jac, &mut from_mul);
        let mut from_comb = [ProjectivePoint::IDENTITY; SAME_BASE_MAX];
        prepared_mul(&self.comb, ks, &mut from_comb[..ks.len()]).unwrap();
        for ((k, m), c) in ks.iter().zip(&from_mul).zip(&from_comb) {
            let expected = ProjectivePoint::mul_by_generator(&(*k * self.a));
            assert_eq!(*m, expected, "mul: a = {:?}, k = {k:?}", self.a);
            assert_eq!(*c, expected, "comb: a = {:?}, k = {k:?}", self.a);
            self.checked += 1;
        }
        self.len = 0;
    }
}

#[test]
fn mul_and_comb_adversarial_scalars() {
    let long = option_env_count().is_some();
    let mut rng = Rng(TestRng::new(3));
    let bases: std::vec::Vec<_> = bases(&mut rng, if long { 8 } else { 1 }).collect();
    let mut checkers: std::vec::Vec<_> = bases.iter().map(|(a, p)| Checker::new(*a, *p)).collect();
    let count = checkers.len();
    for (a, p) in &bases {
        // p384's own `ProjectivePoint * Scalar` agrees with the reference.
        let k = rng.scalar();
        assert_eq!(*p * k, ProjectivePoint::mul_by_generator(&(k * *a)));
    }
    // Structured scalars, dealt out round-robin over the bases (every
    // base gets every one in the long run).
    let mut n = 0usize;
    structured(step(32), &mut |k| {
        for (i, checker) in checkers.iter_mut().enumerate() {
            if long || n % count == i {
                checker.push(k);
            }
        }
        n += 1;
    });
    // The comb's exceptional scalars (acc = ±q at tooth 2 of round 0):
    // all of them in the long run, eight of each kind per base otherwise.
    for c in [0, 2] {
        let mut n = 0usize;
        comb_round0_cases(2, c, &mut |k| {
            for (i, checker) in checkers.iter_mut().enumerate() {
                if long || n % 273 == i {
                    checker.push(k);
                }
            }
            n += 1;
        });
    }
    for checker in &mut checkers {
        for _ in 0..cases(6) {
            checker.push(rng.scalar());
        }
        checker.flush();
    }
    let total: u32 = checkers.iter().map(|c| c.checked).sum();
    std::println!("mul/comb: {total} scalar-base pairs");
    assert!(total > 500, "{total}");
}

/// [`lincomb_vartime`] against `p384` on random combinations of related
/// terms: repeated bases, `P` and `−P`, `2P` with half the scalar, the
/// identity, zero and special scalars, and last terms that cancel the sum.
#[cfg(feature = "precomputed-tables")]
#[test]
fn lincomb_adversarial_terms() {
    let mut rng = Rng(TestRng::new(4));
    let a = rng.scalar();
    let b = rng.scalar();
    let half = Scalar::from(2u64).invert().unwrap();
    // Discrete logs of the base pool: P, −P, 2P, Q, G, −G, O.
    let logs = [a, -a, a.double(), b, Scalar::ONE, -Scalar::ONE, Scalar::ZERO];
    let pool = logs.map(|l| ProjectivePoint::mul_by_generator(&l));
    let specials = [Scalar::ONE, -Scalar::ONE, -Scalar::from(6u64), half, half - Scalar::ONE, Scalar::from(16u64)];
    let mut checked = 0u32;
    let mut identities = 0u32;
    for _ in 0..cases(120) {
        let len = rng.below(MSM_TERMS + 1);
        let mut pairs = [(ProjectivePoint::IDENTITY, Scalar::ZERO); MSM_TERMS];
        let mut log_sum = Scalar::ZERO;
        let mut prev = rng.scalar();
        for (t, pair) in pairs.iter_mut().enumerate().take(len) {
            let which = rng.below(logs.len());
            let s = match rng.next() % 10 {
                0 => prev,
                1 => -prev,
                2 => Scalar::ZERO,
                3 => specials[rng.below(specials.len())],
                4 => prev * half,
                5 => small(i64::try_from(rng.below(33)).unwrap() - 16),
                // Cancel everything so far (a zero sum, the identity).
                6 if t + 1 == len && !bool::from(logs[which].is_zero()) => -log_sum * logs[which].invert().unwrap(),
                _ => rng.scalar(),
            };
            *pair = (pool[which], s);
            log_sum += logs[which] * s;
            prev = s;
        }
        let expected = ProjectivePoint::mul_by_generator(&log_sum);
        identities += u32::from(bool::from(log_sum.is_zero()));
        assert_eq!(lincomb_vartime(&pairs[..len]).unwrap(), expected, "{:?}", &pairs[..len]);
        checked += 1;
    }
    // Fixed cases: P, P; P, −P (point and scalar); all four equal; sums to zero.
    let (p, s, t) = (pool[0], rng.scalar(), rng.scalar());
    let fixed: [[(ProjectivePoint, Scalar); 4]; 6] = [
        [(p, s), (p, s), (p, s), (p, s)],
        [(p, s), (-p, s), (p, t), (-p, t)],
        [(p, s), (p, -s), (p.double(), half * t), (p, -t * half)],
        [(p, s), (p, t), (p, -(s + t)), (ProjectivePoint::IDENTITY, s)],
        [(p, -Scalar::from(6u64)), (p, Scalar::from(3u64)), (p, Scalar::from(3u64)), (p, Scalar::ONE)],
        [(ProjectivePoint::IDENTITY, s); 4],
    ];
    for pairs in fixed {
        for len in 0..=MSM_TERMS {
            let expected = pairs[..len].iter().fold(ProjectivePoint::IDENTITY, |acc, (p, s)| acc + *p * s);
            assert_eq!(lincomb_vartime(&pairs[..len]).unwrap(), expected);
            checked += 1;
        }
    }
    std::println!("lincomb: {checked} combinations, {identities} random ones summing to the identity");
    assert!(identities > 0);
}
