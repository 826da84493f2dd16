//! Products by ARC's fixed generators G and H (draft-ietf-privacypass-arc-crypto-01
//! §3.1), and the sums of products every ARC computation is made of: an
//! optional `x·G`, an optional `y·H` and up to [`MAX_VAR`] products by other
//! points.
//!
//! With `precomputed-tables` each generator gets a table built on the first
//! product by it and kept in a `static` (a `std::sync::OnceLock` per row, no heap):
//! the multiples `1·2^(5i)·P … 16·2^(5i)·P` for each of the 52 signed
//! radix-32 digit positions of a scalar, in affine form (one batch inversion
//! a row). A product is then 52 mixed additions and no doubling, against
//! 256 doublings and 65 additions for a variable-base product. Table size:
//! 52 × 16 affine points of 72 bytes (two 32-byte coordinates and the
//! identity flag, padded), 59,904 bytes each, 117 KiB for both, built with
//! about 52 × (15 additions + 5 doublings) and 52 batch inversions on first
//! use. Radix 32 is a choice by operation count, not yet measured against
//! its neighbours: radix 16 (primeorder's own `BasepointTable` layout for
//! G) needs 65 additions; radix 64 needs 43 but its constant-time selection
//! reads 32 entries a digit and the table doubles.
//!
//! Constant time: the digits are recoded without branches (the recentring
//! carry is arithmetic), a row is read whole, every entry through
//! `conditional_assign` with a `subtle` comparison of its index, the sign
//! applied by a conditional negation, and the sum uses primeorder's complete
//! mixed formula (which handles the identity, selected for a zero digit,
//! and equal points without a branch). The variable-time form
//! ([`Products::eval_vartime`], public scalars only: the verifier's
//! responses and challenge) indexes the row by the digit, skips zero digits
//! and adds in Jacobian coordinates (`p256_jacobian`) to the Straus sum of
//! the other points, with one inversion at the end.
//!
//! The other points: a single product (the presentation's `a·U`, `inv·T`,
//! and most prover commitments once [`super::sigma`] has merged terms and
//! expanded bit commitments) is a constant-time Jacobian product
//! (`p256_jacobian::mul`); two or more stay one primeorder `lincomb`, whose
//! shared doublings win over separate products.
//!
//! Without `precomputed-tables` (the no-std, allocation-free device build)
//! nothing is stored and no Jacobian code is built: G and H join the other
//! points in one primeorder `lincomb` (constant time) or `lincomb_vartime`.
//! [`super::sigma`] then merges a commitment's terms by element into one
//! fixed-size `lincomb` (or a single product), and writes the prover's
//! products by a range-proof bit commitment as the G and H combination that
//! defines it, since the device's statement keeps that commitment encoded
//! only: what lets a presentation run in a fixed stack whatever its limit
//! (docs/embedded.md has the figures).
//!
//! Why not `p256`'s own table: `ProjectivePoint::mul_by_generator` (on with
//! `p256/precomputed-tables`) covers G only, with 33 rows of 8 projective
//! points and 66 full additions plus 4 doublings a product; primeorder
//! offers no table for another base.

use p256::elliptic_curve::ops::LinearCombination;
use p256::{ProjectivePoint, Scalar};
use subtle::ConstantTimeEq;

use super::group::{GENERATOR_G, GENERATOR_H, NE};
#[cfg(feature = "precomputed-tables")]
use super::p256_jacobian;
use crate::error::{Error, Field, Result};

/// The most products by points other than G and H in one sum.
pub(crate) const MAX_VAR: usize = 4;

/// One of the fixed generators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gen {
    /// generatorG, the curve's base point.
    G,
    /// generatorH (§3.1).
    H,
}

impl Gen {
    /// The generator whose encoding `bytes` is, if any. Compared in
    /// constant time, as an element variable's encoding may be secret (the
    /// prover's V, checked when the sigma compiler sorts its terms); only
    /// the verdict, which a secret point meets with probability 2^-255, is
    /// revealed.
    pub(crate) fn of(bytes: &[u8; NE]) -> Option<Self> {
        let mut g = bytes.ct_eq(&GENERATOR_G);
        let mut h = bytes.ct_eq(&GENERATOR_H);
        crate::ct::declassify(&mut g);
        crate::ct::declassify(&mut h);
        if bool::from(g) {
            Some(Self::G)
        } else if bool::from(h) {
            Some(Self::H)
        } else {
            None
        }
    }
}

/// A sum `x·G + y·H + Σ s_i·P_i` being assembled. Which terms exist is
/// public (the relation's structure); the scalars may be secret and are
/// wiped on drop.
pub(crate) struct Products {
    g: Option<Scalar>,
    h: Option<Scalar>,
    /// (element variable, point, scalar); the variable merges repeated points.
    var: [(usize, ProjectivePoint, Scalar); MAX_VAR],
    n: usize,
}

impl Drop for Products {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.g);
        zeroize::Zeroize::zeroize(&mut self.h);
        for (_, _, s) in self.var.iter_mut() {
            zeroize::Zeroize::zeroize(s);
        }
    }
}

impl Products {
    pub(crate) const fn new() -> Self {
        Self { g: None, h: None, var: [(0, ProjectivePoint::IDENTITY, Scalar::ZERO); MAX_VAR], n: 0 }
    }

    /// Adds `s·which`.
    pub(crate) fn add_fixed(&mut self, which: Gen, s: &Scalar) {
        let slot = match which {
            Gen::G => &mut self.g,
            Gen::H => &mut self.h,
        };
        *slot = Some(slot.map_or(*s, |t| t + s));
    }

    /// Adds `s·p`, where `p` is the value of element variable `id` (a second
    /// term with the same variable adds to the first one's scalar).
    pub(crate) fn add_var(&mut self, id: usize, p: &ProjectivePoint, s: &Scalar) -> Result<()> {
        let used = self.var.get_mut(..self.n).ok_or(Error::InvalidLength(Field::Message))?;
        if let Some((_, _, t)) = used.iter_mut().find(|(v, _, _)| *v == id) {
            *t += s;
            return Ok(());
        }
        let slot = self.var.get_mut(self.n).ok_or(Error::InvalidLength(Field::Message))?;
        *slot = (id, *p, *s);
        self.n += 1;
        Ok(())
    }

    /// The sum, in variable time: every scalar must be public. The points
    /// need not be (the verifier's V is derived from its key): only the
    /// exceptional cases' checks branch on them, declassified as
    /// `crypto::jacobian::msm::add_vartime` argues. Jacobian coordinates,
    /// one inversion at the end.
    #[cfg(feature = "precomputed-tables")]
    pub(crate) fn eval_vartime(&self) -> Result<ProjectivePoint> {
        let mut terms = [(ProjectivePoint::IDENTITY, Scalar::ZERO); MAX_VAR];
        for (t, (_, p, s)) in terms.iter_mut().zip(self.var.iter()) {
            *t = (*p, *s);
        }
        let var = terms.get(..self.n).ok_or(Error::InvalidLength(Field::Message))?;
        let mut acc = p256_jacobian::lincomb_vartime(var)?;
        for (which, s) in [(Gen::G, &self.g), (Gen::H, &self.h)] {
            if let Some(s) = s {
                tables::table(which)?.add_mul_vartime(&mut acc, s)?;
            }
        }
        Ok(p256_jacobian::to_projective(&acc))
    }

    /// The sum, in constant time in every scalar: a single product by a
    /// point other than G and H in Jacobian coordinates (a quarter cheaper
    /// than primeorder's), several in one primeorder `lincomb` (whose shared
    /// doublings win over separate Jacobian products); then the tables'
    /// rows.
    #[cfg(feature = "precomputed-tables")]
    pub(crate) fn eval(&self) -> Result<ProjectivePoint> {
        let var = self.var.get(..self.n).ok_or(Error::InvalidLength(Field::Message))?;
        let mut acc = match var {
            [] => ProjectivePoint::IDENTITY,
            [(_, p, s)] => p256_jacobian::to_projective(&p256_jacobian::mul(p, s)?),
            _ => {
                let mut terms = [(ProjectivePoint::IDENTITY, Scalar::ZERO); MAX_VAR];
                for (t, (_, p, s)) in terms.iter_mut().zip(var) {
                    *t = (*p, *s);
                }
                let sum = lincomb(terms.get(..var.len()).ok_or(Error::InvalidLength(Field::Message)));
                for (_, s) in terms.iter_mut() {
                    zeroize::Zeroize::zeroize(s);
                }
                sum?
            }
        };
        for (which, s) in [(Gen::G, &self.g), (Gen::H, &self.h)] {
            if let Some(s) = s {
                tables::table(which)?.add_mul(&mut acc, s)?;
            }
        }
        Ok(acc)
    }

    /// The sum, in constant time in every scalar: one primeorder `lincomb`
    /// of G, H and the other points.
    #[cfg(not(feature = "precomputed-tables"))]
    pub(crate) fn eval(&self) -> Result<ProjectivePoint> {
        let mut terms = [(ProjectivePoint::IDENTITY, Scalar::ZERO); MAX_VAR + 2];
        let mut n = 0;
        let fixed = [(super::group::generator_g().point, self.g), (super::group::generator_h()?.point, self.h)];
        let var = self.var.iter().take(self.n).map(|(_, p, s)| (*p, Some(*s)));
        for (p, s) in fixed.into_iter().chain(var) {
            if let Some(s) = s {
                let slot = terms.get_mut(n).ok_or(Error::InvalidLength(Field::Message))?;
                *slot = (p, s);
                n += 1;
            }
        }
        let sum = lincomb(terms.get(..n).ok_or(Error::InvalidLength(Field::Message)));
        for (_, s) in terms.iter_mut() {
            zeroize::Zeroize::zeroize(s);
        }
        sum
    }
}

/// primeorder's constant-time `lincomb` over a slice of up to `MAX_VAR + 2`
/// terms, through its fixed-size arrays (its slice form allocates).
fn lincomb(terms: Result<&[(ProjectivePoint, Scalar)]>) -> Result<ProjectivePoint> {
    let terms = terms?;
    fn run<const N: usize>(terms: &[(ProjectivePoint, Scalar)]) -> Result<ProjectivePoint> {
        let arr: &[(ProjectivePoint, Scalar); N] =
            terms.try_into().map_err(|_| Error::InvalidLength(Field::Message))?;
        Ok(ProjectivePoint::lincomb(arr))
    }
    match terms.len() {
        0 => Ok(ProjectivePoint::IDENTITY),
        1 => run::<1>(terms),
        2 => run::<2>(terms),
        3 => run::<3>(terms),
        4 => run::<4>(terms),
        5 => run::<5>(terms),
        6 => run::<6>(terms),
        _ => Err(Error::InvalidLength(Field::Message)),
    }
}

/// `x·G + y·H` (either optional), constant time.
#[cfg(feature = "precomputed-tables")]
pub(crate) fn mul_gh(x: Option<&Scalar>, y: Option<&Scalar>) -> Result<ProjectivePoint> {
    combine(x, y, &[])
}

/// `x·G + y·H` (either optional), constant time: without the tables, one
/// primeorder product or `lincomb` of exactly the terms present, and no
/// [`Products`] on the stack (a device's stack budget counts it).
#[cfg(not(feature = "precomputed-tables"))]
pub(crate) fn mul_gh(x: Option<&Scalar>, y: Option<&Scalar>) -> Result<ProjectivePoint> {
    let (g, h) = (super::group::generator_g().point, super::group::generator_h()?.point);
    Ok(match (x, y) {
        (Some(x), Some(y)) => ProjectivePoint::lincomb(&[(g, *x), (h, *y)]),
        (Some(x), None) => g * x,
        (None, Some(y)) => h * y,
        (None, None) => ProjectivePoint::IDENTITY,
    })
}

/// `x·G + y·H + Σ s_i·P_i`, constant time: without the tables, the callers'
/// two-term shapes go straight to a two-term `lincomb` (as [`mul_gh`]).
#[cfg(not(feature = "precomputed-tables"))]
pub(crate) fn combine(
    x: Option<&Scalar>,
    y: Option<&Scalar>,
    var: &[(ProjectivePoint, Scalar)],
) -> Result<ProjectivePoint> {
    match (x, y, var) {
        (Some(x), None, [(p, s)]) => Ok(ProjectivePoint::lincomb(&[(*p, *s), (super::group::generator_g().point, *x)])),
        (None, Some(y), [(p, s)]) => {
            Ok(ProjectivePoint::lincomb(&[(*p, *s), (super::group::generator_h()?.point, *y)]))
        }
        _ => combine_products(x, y, var),
    }
}

/// `x·G + y·H + Σ s_i·P_i`, constant time.
#[cfg(feature = "precomputed-tables")]
pub(crate) fn combine(
    x: Option<&Scalar>,
    y: Option<&Scalar>,
    var: &[(ProjectivePoint, Scalar)],
) -> Result<ProjectivePoint> {
    combine_products(x, y, var)
}

/// `Σ s_i·P_i` for points other than G and H, constant time: with the
/// tables through [`Products`] (a single product in Jacobian coordinates),
/// without them one primeorder `lincomb` and no [`Products`] on the stack.
pub(crate) fn mul_var<const N: usize>(terms: &[(ProjectivePoint, Scalar); N]) -> Result<ProjectivePoint> {
    #[cfg(feature = "precomputed-tables")]
    {
        combine(None, None, terms)
    }
    #[cfg(not(feature = "precomputed-tables"))]
    {
        Ok(ProjectivePoint::lincomb(terms))
    }
}

/// [`combine`] through [`Products`]; never inlined, so that its terms'
/// array is not in the frame of a device's `combine`, whose callers' shapes
/// go straight to a two-term `lincomb`.
#[inline(never)]
fn combine_products(
    x: Option<&Scalar>,
    y: Option<&Scalar>,
    var: &[(ProjectivePoint, Scalar)],
) -> Result<ProjectivePoint> {
    let mut sum = Products::new();
    if let Some(x) = x {
        sum.add_fixed(Gen::G, x);
    }
    if let Some(y) = y {
        sum.add_fixed(Gen::H, y);
    }
    for (i, (p, s)) in var.iter().enumerate() {
        sum.add_var(i, p, s)?;
    }
    sum.eval()
}

/// The tables and their digit recoding.
#[cfg(feature = "precomputed-tables")]
mod tables {
    use p256::elliptic_curve::BatchNormalize;
    use p256::elliptic_curve::PrimeField;
    use p256::elliptic_curve::group::Group;
    use p256::{AffinePoint, ProjectivePoint, Scalar};
    use subtle::{Choice, ConditionallyNegatable, ConditionallySelectable, ConstantTimeEq};
    use zeroize::Zeroize;

    use super::Gen;
    use crate::crypto::arc::group::{generator_g, generator_h};
    use crate::crypto::arc::p256_jacobian::{Jacobian, add_vartime};
    use crate::error::{Error, Field, Result};

    /// Bits per digit.
    const W: usize = 5;
    /// Entries per row: the multiples 1 … 2^(W−1).
    const HALF: usize = 1 << (W - 1);
    /// Digits of a scalar below 2^256: ⌈256 / W⌉ (the top one is at most 2,
    /// so the recentring never carries past it).
    pub(super) const DIGITS: usize = 256_usize.div_ceil(W);

    /// The multiples `j·2^(W·i)·P` of one digit position i, j = 1 … HALF.
    type Row = [AffinePoint; HALF];

    /// Row i holds `j·2^(W·i)·P` for j = 1 … HALF. Each row is its own
    /// `OnceLock`, built from the previous row's last entry: the first
    /// product builds the table one row (1,152 bytes) at a time, and no
    /// thread ever holds the whole 60 KB table on its stack.
    pub(crate) struct Table {
        rows: [std::sync::OnceLock<Row>; DIGITS],
    }

    static G: Table = Table::empty();
    static H: Table = Table::empty();

    /// The generator's table, built now if this is the first product by it.
    pub(super) fn table(which: Gen) -> Result<&'static Table> {
        let table = match which {
            Gen::G => &G,
            Gen::H => &H,
        };
        // The last row is set only after every other one: one atomic load
        // once the table exists.
        if table.rows.last().and_then(std::sync::OnceLock::get).is_none() {
            let base = match which {
                Gen::G => generator_g().point,
                Gen::H => generator_h()?.point,
            };
            table.fill(base);
        }
        Ok(table)
    }

    impl Table {
        /// A table with no row built yet.
        pub(super) const fn empty() -> Self {
            Self { rows: [const { std::sync::OnceLock::new() }; DIGITS] }
        }

        /// Builds every row not yet built, for the base point `base`. Two
        /// threads may race here: each row is set once, and a row is always
        /// made from the stored previous one, so both see the same table.
        pub(super) fn fill(&self, base: ProjectivePoint) {
            let mut p = base;
            for row in &self.rows {
                let row = row.get_or_init(|| Self::row(p));
                // 2^W·2^(W·i)·P = 2·(HALF·2^(W·i)·P), the last entry doubled.
                p = row.last().map_or(ProjectivePoint::IDENTITY, |last| ProjectivePoint::from(*last).double());
            }
        }

        /// `j·p` for j = 1 … HALF, in affine form (one batch inversion).
        fn row(p: ProjectivePoint) -> Row {
            let mut multiples = [p; HALF];
            let mut acc = p;
            for m in multiples.iter_mut().skip(1) {
                acc += p;
                *m = acc;
            }
            <ProjectivePoint as BatchNormalize<[ProjectivePoint; HALF]>>::batch_normalize(&multiples)
        }

        /// The rows, each built ([`table`] fills them all before handing the
        /// table out).
        fn rows(&self) -> impl Iterator<Item = Result<&Row>> {
            self.rows.iter().map(|r| r.get().ok_or(Error::InvalidLength(Field::Message)))
        }

        /// `acc += s·P`, constant time in s.
        pub(super) fn add_mul(&self, acc: &mut ProjectivePoint, s: &Scalar) -> Result<()> {
            let mut digits = recode(s);
            let mut result = Ok(());
            for (row, d) in self.rows().zip(digits.iter()) {
                match row {
                    Ok(row) => *acc += select(row, *d),
                    Err(e) => result = Err(e),
                }
            }
            digits.zeroize();
            result
        }

        /// `acc += s·P` for a public s, in variable time (zero digits
        /// skipped, each other one a mixed Jacobian addition).
        pub(super) fn add_mul_vartime(&self, acc: &mut Jacobian, s: &Scalar) -> Result<()> {
            for (row, d) in self.rows().zip(recode(s).iter()) {
                let entry = row?.get(usize::from(d.unsigned_abs()).wrapping_sub(1));
                if let Some(e) = entry {
                    if *d < 0 {
                        add_vartime(acc, &-*e);
                    } else {
                        add_vartime(acc, e);
                    }
                }
            }
            Ok(())
        }
    }

    /// `d·(row's point)` for −HALF ≤ d ≤ HALF, reading every entry.
    fn select(row: &[AffinePoint; HALF], d: i8) -> AffinePoint {
        // Sign mask (all ones for a negative digit) and |d|, arithmetically.
        let mask = d >> 7;
        let abs = (d ^ mask).wrapping_sub(mask).cast_unsigned();
        let mut t = AffinePoint::IDENTITY;
        for (entry, j) in row.iter().zip(1u8..) {
            t.conditional_assign(entry, abs.ct_eq(&j));
        }
        t.conditional_negate(Choice::from(mask.cast_unsigned() & 1));
        t
    }

    /// Signed radix-2^W digits of s, least significant first: each in
    /// [−2^(W−1), 2^(W−1)), the top one in [0, 2]; no branch on s.
    pub(super) fn recode(s: &Scalar) -> [i8; DIGITS] {
        let be = s.to_repr();
        // Little-endian bytes with a zero pad, so a digit may straddle the end.
        let mut le = [0u8; 34];
        for (dst, src) in le.iter_mut().zip(be.iter().rev()) {
            *dst = *src;
        }
        let mut digits = [0i8; DIGITS];
        let mut carry = 0i8;
        for (i, d) in digits.iter_mut().enumerate() {
            let bit = W * i;
            let lo = u16::from(le.get(bit / 8).copied().unwrap_or(0));
            let hi = u16::from(le.get(bit / 8 + 1).copied().unwrap_or(0));
            // The low byte of a value below 2^W: exact, and below 32.
            let [chunk, _] = (((lo | (hi << 8)) >> (bit % 8)) & ((1 << W) - 1)).to_le_bytes();
            // chunk < 32 and carry ≤ 1: the sum fits an i8.
            let v = chunk.cast_signed() + carry;
            carry = (v + (1 << (W - 1))) >> W;
            *d = v - (carry << W);
        }
        le.zeroize();
        digits
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crypto::arc::group::{Elem, generator_g, generator_h, hash_to_scalar_arc};

    /// Edge scalars (0, 1, n − 1, digit boundaries) and two pseudo-random ones.
    fn scalars() -> [Scalar; 9] {
        let random = |i: u8| hash_to_scalar_arc(&[&[i]], b"fixed-base test").unwrap();
        [
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            Scalar::from(16u64),
            Scalar::from(31u64),
            -Scalar::from(16u64),
            Scalar::from(u64::MAX),
            random(0),
            random(1),
        ]
    }

    #[test]
    fn table_products_match_plain_products() {
        let g = generator_g().point;
        let h = generator_h().unwrap().point;
        let p = g * Scalar::from(7u64);
        for x in scalars() {
            for y in scalars() {
                let want = g * x + h * y;
                assert_eq!(mul_gh(Some(&x), Some(&y)).unwrap(), want);
                assert_eq!(mul_gh(Some(&x), None).unwrap(), g * x);
                assert_eq!(mul_gh(None, Some(&y)).unwrap(), h * y);
                assert_eq!(combine(Some(&x), Some(&y), &[(p, x)]).unwrap(), want + p * x);
                let mut sum = Products::new();
                sum.add_fixed(Gen::G, &x);
                sum.add_fixed(Gen::H, &y);
                sum.add_var(3, &p, &y).unwrap();
                sum.add_var(3, &p, &x).unwrap();
                #[cfg(feature = "precomputed-tables")]
                assert_eq!(sum.eval_vartime().unwrap(), want + p * (x + y));
                assert_eq!(sum.eval().unwrap(), want + p * (x + y));
            }
        }
        assert_eq!(Gen::of(&generator_g().bytes), Some(Gen::G));
        assert_eq!(Gen::of(&generator_h().unwrap().bytes), Some(Gen::H));
        assert_eq!(Gen::of(&Elem::from_point(p).unwrap().bytes), None);
    }

    #[cfg(feature = "precomputed-tables")]
    #[test]
    fn recoding_is_exact() {
        for s in scalars() {
            let digits = tables::recode(&s);
            let mut acc = Scalar::ZERO;
            for d in digits.iter().rev() {
                acc = acc * Scalar::from(32u64)
                    + Scalar::from(u64::from(d.unsigned_abs())) * { if *d < 0 { -Scalar::ONE } else { Scalar::ONE } };
                assert!((-16..16).contains(d) || *d <= 2);
            }
            assert_eq!(acc, s);
        }
    }

    /// Four threads, each with a 64 KiB stack (the whole table is 60 KB),
    /// race to build a fresh table for a point; every product by it is
    /// then right.
    #[cfg(feature = "precomputed-tables")]
    #[test]
    fn table_builds_row_by_row_under_a_race_on_small_stacks() {
        static FRESH: tables::Table = tables::Table::empty();
        let base = generator_g().point * Scalar::from(11u64);
        std::thread::scope(|scope| {
            for _ in 0..4 {
                std::thread::Builder::new().stack_size(64 * 1024).spawn_scoped(scope, || FRESH.fill(base)).unwrap();
            }
        });
        for s in scalars() {
            let mut acc = ProjectivePoint::IDENTITY;
            FRESH.add_mul(&mut acc, &s).unwrap();
            assert_eq!(acc, base * s);
        }
    }
}
