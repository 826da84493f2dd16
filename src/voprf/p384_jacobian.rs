//! Constant-time variable-base scalar multiplication on P-384 in Jacobian
//! coordinates, for the issuer (`k·B_i`, `k·M`, `t·M`).
//!
//! `p384`'s `ProjectivePoint * Scalar` uses the complete Renes–Costello–Batina
//! formulas: no exceptional cases, but a doubling costs 8M + 3S + 2·(mul by
//! b) and an addition 12M + 2·(mul by b). In Jacobian coordinates with
//! `a = −3` a doubling is 3M + 5S (`dbl-2001-b`) and the addition of an
//! affine point 7M + 4S (`madd-2007-bl`). The doubling has no exceptional
//! case on a prime-order curve (the identity, `Z = 0`, doubles to itself);
//! the mixed addition is wrong for `P = ±Q` and for the identity. Why those
//! cases cannot occur, or are selected away in constant time, is argued at
//! [`mul`]. The field arithmetic is `p384`'s own (through `hazmat`), so the
//! field operations keep its constant-time guarantees.
//!
//! The table of `1·P … 8·P` is normalized to affine form with one batch
//! inversion (about the cost of 180 field multiplications with `p384`'s
//! safegcd inversion), so every addition in the main loop is a mixed one.
//! Nothing is static: a table is 8 affine points (768 bytes) on the stack.
//! The variable-time multi-scalar multiplication at the end of the module
//! needs more stack and is only built with `precomputed-tables`.

use p384::elliptic_curve::ff::PrimeField;
use p384::elliptic_curve::hazmat::FieldArithmetic;
use p384::elliptic_curve::ops::BatchInvert;
use p384::elliptic_curve::point::AffineCoordinates;
use p384::{AffinePoint, NistP384, ProjectivePoint, Scalar};
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use crate::error::{Error, Result};

/// The P-384 base field element (`p384`'s, through the `hazmat` trait).
type Fe = <NistP384 as FieldArithmetic>::FieldElement;

/// Entries in a table: `1·P … 8·P` for signed radix-16 digits in `[−8, 8]`.
const TABLE: usize = 8;

/// Signed radix-16 digits of a scalar below 2^384: 96 nibbles and a carry.
const DIGITS: usize = 97;

/// `(X : Y : Z)` with `x = X/Z²`, `y = Y/Z³`; `Z = 0` is the identity.
#[derive(Clone, Copy, Debug)]
pub(super) struct Jacobian {
    x: Fe,
    y: Fe,
    z: Fe,
}

/// An affine point `(x, y)` that is not the identity.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Affine {
    x: Fe,
    y: Fe,
}

impl ConditionallySelectable for Affine {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self { x: Fe::conditional_select(&a.x, &b.x, choice), y: Fe::conditional_select(&a.y, &b.y, choice) }
    }
}

impl ConditionallySelectable for Jacobian {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self {
            x: Fe::conditional_select(&a.x, &b.x, choice),
            y: Fe::conditional_select(&a.y, &b.y, choice),
            z: Fe::conditional_select(&a.z, &b.z, choice),
        }
    }
}

impl Affine {
    /// The coordinates of a non-identity affine point; `InvalidElement` for
    /// the identity (whose encoding `p384` gives as zeros).
    pub(super) fn from_affine(p: &AffinePoint) -> Result<Self> {
        if bool::from(p.is_identity()) {
            return Err(Error::InvalidElement);
        }
        let x = Option::<Fe>::from(Fe::from_repr(p.x())).ok_or(Error::InvalidElement)?;
        let y = Option::<Fe>::from(Fe::from_repr(p.y())).ok_or(Error::InvalidElement)?;
        Ok(Self { x, y })
    }
}

impl Jacobian {
    const IDENTITY: Self = Self { x: Fe::ONE, y: Fe::ONE, z: Fe::ZERO };

    fn from_affine(p: &Affine) -> Self {
        Self { x: p.x, y: p.y, z: Fe::ONE }
    }

    fn is_identity(&self) -> Choice {
        self.z.is_zero()
    }

    /// `2·self`, `dbl-2001-b` for `a = −3` (3M + 5S). Complete on a curve of
    /// odd order: the identity (`Z = 0`) gives `Z3 = (Y + 0)² − Y² − 0 = 0`.
    fn double(&self) -> Self {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x * gamma;
        let alpha = (self.x - delta) * (self.x + delta);
        let alpha = alpha.double() + alpha;
        let beta4 = beta.double().double();
        let x = alpha.square() - beta4.double();
        let z = (self.y + self.z).square() - gamma - delta;
        let y = alpha * (beta4 - x) - gamma.square().double().double().double();
        Self { x, y, z }
    }

    /// `self + q` for an affine `q`, `madd-2007-bl` (7M + 4S), and whether
    /// the formula hit the doubling case (`H = 0` and `r = 0`, i.e.
    /// `self = q`). Correct when `self ≠ ±q` and `self` is not the identity;
    /// for `self = −q` it gives `Z3 = 0`, the identity, which is also right.
    fn add_affine(&self, q: &Affine) -> (Self, Choice) {
        let z1z1 = self.z.square();
        let u2 = q.x * z1z1;
        let s2 = q.y * self.z * z1z1;
        let h = u2 - self.x;
        let hh = h.square();
        let i = hh.double().double();
        let j = h * i;
        let r = (s2 - self.y).double();
        let v = self.x * i;
        let x = r.square() - j - v.double();
        let y = r * (v - x) - (self.y * j).double();
        let z = (self.z + h).square() - z1z1 - hh;
        (Self { x, y, z }, h.is_zero() & r.is_zero())
    }
}

/// `1·P … 8·P` in affine form, for [`mul`].
#[derive(Clone, Debug)]
pub(super) struct Table([Affine; TABLE]);

impl Table {
    /// The multiples of a non-identity point `p`: doublings and mixed
    /// additions of `p` (`2P + P`, `4P + P`, `6P + P` are never exceptional:
    /// that would need `3P`, `5P` or `7P` to be the identity or `2P = ±P`,
    /// impossible for `P ≠ O` in a group of prime order above 8), then one
    /// batch inversion for the eight `Z`s.
    pub(super) fn new(p: &Affine) -> Self {
        let one = Jacobian::from_affine(p);
        let two = one.double();
        let three = two.add_affine(p).0;
        let four = two.double();
        let five = four.add_affine(p).0;
        let six = three.double();
        let seven = six.add_affine(p).0;
        let eight = four.double();
        let jac = [one, two, three, four, five, six, seven, eight];
        let mut out = [Affine::default(); TABLE];
        to_affine(&jac, &mut out);
        Self(out)
    }

    /// `d·P` for `d ∈ [−8, 8]` in constant time (every entry is read), and
    /// whether `d = 0` (the identity, which has no affine form; the entry
    /// returned then is meaningless).
    fn select(&self, d: i8) -> (Affine, Choice) {
        // mask = −1 for negative d, 0 otherwise; |d| = (d ^ mask) − mask.
        let mask = d >> 7;
        let abs = (d ^ mask).wrapping_sub(mask).cast_unsigned();
        let mut out = Affine::default();
        for (j, entry) in (1u8..).zip(self.0.iter()) {
            out.conditional_assign(entry, abs.ct_eq(&j));
        }
        let negative = Choice::from(mask.cast_unsigned() & 1);
        out.y = Fe::conditional_select(&out.y, &-out.y, negative);
        (out, abs.ct_eq(&0))
    }
}

/// Normalizes Jacobian points with one batch inversion. Identities come out
/// as `(0, 0)` (their `Z` inverts to zero); callers never pass one, or check
/// `Z` themselves.
fn to_affine<const N: usize>(points: &[Jacobian; N], out: &mut [Affine; N]) {
    let mut zs = points.map(|p| p.z);
    let mut scratch = [Fe::ZERO; N];
    Fe::batch_invert_in_place(&mut zs, &mut scratch);
    for ((o, p), zinv) in out.iter_mut().zip(points).zip(zs) {
        let zinv2 = zinv.square();
        o.x = p.x * zinv2;
        o.y = p.y * zinv2 * zinv;
    }
}

/// Signed radix-16 digits `d_0 … d_96` of `k`, least significant first, with
/// `k = Σ d_i·16^i` and `d_i ∈ [−8, 8)` (`d_96 ∈ {0, 1}`). Branch-free.
fn recode(k: &Scalar) -> [i8; DIGITS] {
    let mut bytes = k.to_repr();
    let mut digits = [0i8; DIGITS];
    let mut carry = 0i8;
    let mut slots = digits.iter_mut();
    for byte in bytes.iter().rev() {
        for nibble in [byte & 0x0f, byte >> 4] {
            // v ∈ [0, 16]; the new carry is 1 exactly when v ≥ 8.
            let v = nibble.cast_signed() + carry;
            carry = (v + 8) >> 4;
            if let Some(slot) = slots.next() {
                *slot = v - (carry << 4);
            }
        }
    }
    if let Some(slot) = slots.next() {
        *slot = carry;
    }
    bytes.zeroize();
    digits
}

/// `k·P` in constant time for the point whose [`Table`] is given: a
/// fixed-window double-and-add from the top digit, four doublings and one
/// table lookup plus mixed addition per digit, whatever the digits are.
///
/// Exceptional cases of the mixed addition `acc + d_i·P` (all handled
/// without branches):
/// - `d_i = 0`: the table has no identity entry; the sum is discarded and
///   `acc` kept (selected).
/// - `acc` is the identity (only while the leading digits are zero):
///   `d_i·P` is selected.
/// - `acc = ±d_i·P` with both non-identity. Before digit `i` the
///   accumulator is `16·m·P` with `m = Σ_{j>i} d_j·16^(j−i−1)`. For `i ≥ 1`,
///   `|16·m| < n/2` and `|d_i| ≤ 8`, so `16·m ≡ ±d_i (mod n)` forces
///   `16·m = ±d_i`, hence `d_i = 0`: the first case. For the last digit,
///   `acc = −d_0·P` means `k ≡ 0`, which gives the identity correctly
///   (`Z3 = 0`), but `acc = d_0·P` does happen: `k ≡ 2·d_0 (mod n)` with
///   `16 | k − d_0`, which for P-384 (`n ≡ 3 mod 16`) is `k = n − 6`,
///   `d_0 = −3`. So the last step also computes `2·acc` and selects it when
///   the addition reports `H = r = 0` (one extra doubling per
///   multiplication; tested with `k = n − 6`).
///
/// The result is the identity only for `k = 0`.
pub(super) fn mul(table: &Table, k: &Scalar) -> Jacobian {
    let mut digits = recode(k);
    let mut acc = Jacobian::IDENTITY;
    if let Some((d0, rest)) = digits.split_first() {
        for d in rest.iter().rev() {
            // Doubling the initial identity is harmless (it stays the identity).
            acc = acc.double().double().double().double();
            let (q, d_zero) = table.select(*d);
            let (sum, _) = acc.add_affine(&q);
            let sum = Jacobian::conditional_select(&sum, &Jacobian::from_affine(&q), acc.is_identity());
            acc = Jacobian::conditional_select(&sum, &acc, d_zero);
        }
        acc = acc.double().double().double().double();
        let (q, d_zero) = table.select(*d0);
        let (sum, doubling) = acc.add_affine(&q);
        let sum = Jacobian::conditional_select(&sum, &acc.double(), doubling);
        let sum = Jacobian::conditional_select(&sum, &Jacobian::from_affine(&q), acc.is_identity());
        acc = Jacobian::conditional_select(&sum, &acc, d_zero);
    }
    digits.zeroize();
    acc
}

/// Normalizes a batch of results to affine form with one inversion and
/// writes them as `ProjectivePoint`s (the identity stays the identity).
pub(super) fn to_projective<const N: usize>(points: &[Jacobian; N], out: &mut [ProjectivePoint; N]) {
    let mut affine = [Affine::default(); N];
    to_affine(points, &mut affine);
    for ((o, a), p) in out.iter_mut().zip(&affine).zip(points) {
        let point = AffinePoint::from_coordinates(&a.x.to_repr(), &a.y.to_repr());
        let projective = ProjectivePoint::from(point.unwrap_or(AffinePoint::IDENTITY));
        *o = ProjectivePoint::conditional_select(&projective, &ProjectivePoint::IDENTITY, p.is_identity());
    }
}

/// A stand-in for unused batch slots (`Z = 1`, so it inverts; never output).
const PAD: Jacobian = Jacobian { x: Fe::ONE, y: Fe::ONE, z: Fe::ONE };

/// `out_i = SerializeElement(k·P_i)` for up to `N` points: one batch
/// normalization of the inputs, a [`Table`] and a [`mul`] per point, one
/// batch inversion for the results, and the compressed SEC1 encoding written
/// directly. `InvalidElement` if a result is the identity.
pub(super) fn mul_serialize<const N: usize>(
    k: &Scalar,
    points: &[ProjectivePoint],
    out: &mut [[u8; 49]],
) -> Result<()> {
    if points.len() > N || points.len() != out.len() {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut inputs = [ProjectivePoint::GENERATOR; N];
    for (slot, p) in inputs.iter_mut().zip(points) {
        *slot = *p;
    }
    let affine: [AffinePoint; N] =
        <ProjectivePoint as p384::elliptic_curve::BatchNormalize<_>>::batch_normalize(&inputs);
    let mut products = [PAD; N];
    for (prod, a) in products.iter_mut().zip(&affine).take(points.len()) {
        *prod = mul(&Table::new(&Affine::from_affine(a)?), k);
    }
    let mut normal = [Affine::default(); N];
    to_affine(&products, &mut normal);
    for ((o, a), p) in out.iter_mut().zip(&normal).zip(&products) {
        let mut is_identity = p.is_identity();
        // Whether C_i = k·B_i is the identity is public: C_i is sent (or refused).
        crate::ct::declassify(&mut is_identity);
        if bool::from(is_identity) {
            return Err(Error::InvalidElement);
        }
        let (tag, x) = o.split_at_mut(1);
        tag.fill(0x02 | a.y.is_odd().unwrap_u8());
        x.copy_from_slice(&a.x.to_repr());
        // C_i = k·B_i is sent to the client.
        crate::ct::declassify(o);
    }
    Ok(())
}

/// Most scalars [`prepared_mul`] takes at once.
pub(super) const SAME_BASE_MAX: usize = 4;

/// Teeth of a [`Comb`]: the 96 low digits of a scalar form this many groups
/// of [`COMB_SPAN`] consecutive digits (64 bits each).
const COMB_TEETH: usize = 6;
/// Radix-16 digits per tooth.
const COMB_SPAN: usize = 16;

/// Precomputation for several constant-time multiplications of one point
/// `P`: tables for `P_j = 2^(64·j)·P`, `j = 0 … 5` (six [`Table`]s, 4.5 KiB,
/// on the stack). `k·P = Σ_r 16^r · Σ_j d_(16j+r)·P_j`, so a multiplication
/// takes 64 doublings and 97 mixed additions instead of 384 and 97; building
/// the comb costs 320 doublings, about two thirds of one [`mul`]. It pays
/// from two multiplications of the same point on (the DLEQ proof has two to
/// four). Public only as the suite's `Prepared` type; this module is private.
#[derive(Clone, Debug)]
pub struct Comb([Table; COMB_TEETH]);

impl Comb {
    /// The comb for `P`; `InvalidElement` if `P` is the identity. `P` is
    /// public here (a blinded element or the composite `M`), but nothing
    /// below branches on it anyway.
    pub(super) fn new(p: &ProjectivePoint) -> Result<Self> {
        let first = Affine::from_affine(&p.to_affine())?;
        let mut teeth = [PAD; COMB_TEETH];
        let mut acc = Jacobian::from_affine(&first);
        for tooth in teeth.iter_mut() {
            *tooth = acc;
            for _ in 0..4 * COMB_SPAN {
                acc = acc.double();
            }
        }
        let mut affine = [Affine::default(); COMB_TEETH];
        to_affine(&teeth, &mut affine);
        // Each P_j = 2^(64·j)·P is not the identity (P has prime order n > 2^384).
        Ok(Self(affine.map(|a| Table::new(&a))))
    }

    /// `k·P` in constant time: 17 rounds (the top one holds only the carry
    /// digit `d_96`, read as the 17th digit of the last tooth since
    /// `2^320·16^16 = 2^384`), four doublings between rounds, one masked
    /// lookup and mixed addition per digit, identity and zero-digit cases
    /// selected as in [`mul`].
    ///
    /// The doubling case `acc = d·P_j` cannot occur before the last round:
    /// after round `r ≥ 1` the accumulator is `V·P` with `|V| < 2^381 < n/8`
    /// (each tooth's digits shifted down by `4r` bits), and the entry is
    /// `d·2^(64j)·P` with `|d| ≤ 8`, so a collision modulo `n` is an integer
    /// equality `V = ±d·2^(64j)`. `V` is `2^(64j)·16·A` (digits of tooth `j`
    /// and above, all multiples of 16 in tooth units) plus the part `L` from
    /// teeth below `j`, `|L| < 2^(64j)`; equality forces `L = 0` and
    /// `16·A = ±d`, so `d = 0`, which is the selected zero-digit case. In the
    /// last round `V` can wrap around `n`: before tooth `j` it is
    /// `k − Σ_(j'≥j) d_(16j')·2^(64j')`, which equals `d_(16j)·2^(64j)` modulo
    /// `n` for some scalars (`COMB_DOUBLING_CASE` in the tests hits it at
    /// tooth 2), so the last round also computes `2·acc` and selects it on
    /// `H = r = 0` (six extra doublings).
    fn mul(&self, k: &Scalar) -> Jacobian {
        let mut digits = recode(k);
        let mut acc = Jacobian::IDENTITY;
        for round in (0..=COMB_SPAN).rev() {
            if round != COMB_SPAN {
                acc = acc.double().double().double().double();
            }
            for (j, table) in self.0.iter().enumerate() {
                // Public indices: which digit, not its value.
                let Some(d) = (if round < COMB_SPAN || j + 1 == COMB_TEETH {
                    digits.get(j * COMB_SPAN + round).copied()
                } else {
                    None
                }) else {
                    continue;
                };
                let (q, d_zero) = table.select(d);
                let (sum, doubling) = acc.add_affine(&q);
                let sum = if round == 0 { Jacobian::conditional_select(&sum, &acc.double(), doubling) } else { sum };
                let sum = Jacobian::conditional_select(&sum, &Jacobian::from_affine(&q), acc.is_identity());
                acc = Jacobian::conditional_select(&sum, &acc, d_zero);
            }
        }
        digits.zeroize();
        acc
    }
}

/// `out_i = s_i·P` for up to [`SAME_BASE_MAX`] scalars with the [`Comb`] of
/// `P` and one batch inversion for the results, in constant time.
pub(super) fn prepared_mul(comb: &Comb, scalars: &[Scalar], out: &mut [ProjectivePoint]) -> Result<()> {
    if scalars.len() > SAME_BASE_MAX || out.len() != scalars.len() {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut products = [PAD; SAME_BASE_MAX];
    for (prod, s) in products.iter_mut().zip(scalars) {
        *prod = comb.mul(s);
    }
    let mut projective = [ProjectivePoint::IDENTITY; SAME_BASE_MAX];
    to_projective(&products, &mut projective);
    for (o, q) in out.iter_mut().zip(projective) {
        *o = q;
    }
    Ok(())
}

// ---- Variable time, public inputs only --------------------------------------

#[cfg(feature = "precomputed-tables")]
/// wNAF width of [`lincomb_vartime`]: digits are odd and below 2^4 in
/// absolute value, so each base needs `1·P, 3·P, …, 15·P`.
const NAF_W: u32 = 5;
#[cfg(feature = "precomputed-tables")]
/// Odd multiples per base.
const NAF_TABLE: usize = 1 << (NAF_W - 2);
#[cfg(feature = "precomputed-tables")]
/// A wNAF of a scalar below 2^384 has at most 385 digits.
const NAF_DIGITS: usize = 385;
#[cfg(feature = "precomputed-tables")]
/// Most terms [`lincomb_vartime`] takes in one pass (one shared chain of
/// doublings). Each term costs about 3.6 KiB of stack (wNAF, Jacobian and
/// affine odd multiples, batch-inversion scratch), hence `precomputed-tables`
/// only: the Cortex-M build keeps p384's two-term combination.
pub(super) const MSM_TERMS: usize = 4;

#[cfg(feature = "precomputed-tables")]
/// Width-[`NAF_W`] non-adjacent form, least significant digit first. Variable
/// time: public scalars only.
fn naf_vartime(s: &Scalar) -> [i8; NAF_DIGITS] {
    let bytes = s.to_repr();
    // Little-endian 64-bit limbs, one spare for the carries of negative digits.
    let mut limbs = [0u64; 7];
    for (limb, chunk) in limbs.iter_mut().zip(bytes.rchunks_exact(8)) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        *limb = u64::from_be_bytes(word);
    }
    let mut digits = [0i8; NAF_DIGITS];
    for digit in digits.iter_mut() {
        let low = limbs.first().copied().unwrap_or(0);
        if low & 1 == 1 {
            let window = low & ((1 << NAF_W) - 1);
            let d = if window >= 1 << (NAF_W - 1) { window.cast_signed() - (1 << NAF_W) } else { window.cast_signed() };
            // limbs -= d, exactly (d is odd and |d| < 16).
            let mut carry = d.unsigned_abs();
            for limb in limbs.iter_mut() {
                let (v, over) = if d > 0 { limb.overflowing_sub(carry) } else { limb.overflowing_add(carry) };
                *limb = v;
                carry = u64::from(over);
            }
            *digit = i8::try_from(d).unwrap_or(0);
        }
        let mut high = 0u64;
        for limb in limbs.iter_mut().rev() {
            let next = *limb & 1;
            *limb = (*limb >> 1) | (high << 63);
            high = next;
        }
    }
    digits
}

#[cfg(feature = "precomputed-tables")]
/// `acc + q` in variable time, exceptional cases included (the identity,
/// `acc = q` needs a doubling, `acc = −q` gives `Z = 0`).
fn add_vartime(acc: &Jacobian, q: &Affine) -> Jacobian {
    if bool::from(acc.is_identity()) {
        return Jacobian::from_affine(q);
    }
    let (sum, doubling) = acc.add_affine(q);
    if bool::from(doubling) { acc.double() } else { sum }
}

#[cfg(feature = "precomputed-tables")]
/// `Σ s_i·P_i` for at most [`MSM_TERMS`] terms: Straus–Shamir interleaving of
/// width-5 NAFs over one chain of doublings, odd multiples normalized to
/// affine form with one batch inversion so that every addition is mixed.
/// Variable time: the points and scalars must be public (blinded and
/// evaluated elements, composites, proof scalars).
pub(super) fn lincomb_vartime(pairs: &[(ProjectivePoint, Scalar)]) -> Result<ProjectivePoint> {
    if pairs.len() > MSM_TERMS {
        return Err(Error::InvalidLength(crate::error::Field::Batch));
    }
    let mut bases = [ProjectivePoint::GENERATOR; MSM_TERMS];
    for (b, (p, _)) in bases.iter_mut().zip(pairs) {
        *b = *p;
    }
    let affine: [AffinePoint; MSM_TERMS] =
        <ProjectivePoint as p384::elliptic_curve::BatchNormalize<_>>::batch_normalize(&bases);
    // An identity base contributes nothing: it keeps a zero wNAF.
    let mut nafs = [[0i8; NAF_DIGITS]; MSM_TERMS];
    let mut firsts = [Affine::default(); MSM_TERMS];
    let mut twos = [PAD; MSM_TERMS];
    for (((naf, first), two), (a, (_, s))) in
        nafs.iter_mut().zip(firsts.iter_mut()).zip(twos.iter_mut()).zip(affine.iter().zip(pairs))
    {
        if let Ok(p) = Affine::from_affine(a) {
            *naf = naf_vartime(s);
            *first = p;
            *two = Jacobian::from_affine(&p).double();
        }
    }
    let mut twos_affine = [Affine::default(); MSM_TERMS];
    to_affine(&twos, &mut twos_affine);
    // (2j+1)·P = (2j−1)·P + 2·P: never exceptional (that would need
    // (2j−3)·P or (2j+1)·P to be the identity, j ≤ 7).
    let mut odd = [PAD; MSM_TERMS * NAF_TABLE];
    for ((row, first), two) in odd.chunks_exact_mut(NAF_TABLE).zip(&firsts).zip(&twos_affine) {
        let mut acc = Jacobian::from_affine(first);
        for slot in row.iter_mut() {
            *slot = acc;
            acc = acc.add_affine(two).0;
        }
    }
    let mut tables = [Affine::default(); MSM_TERMS * NAF_TABLE];
    to_affine(&odd, &mut tables);

    let top = (0..NAF_DIGITS).rev().find(|&i| nafs.iter().any(|n| n.get(i).is_some_and(|d| *d != 0)));
    let mut acc = Jacobian::IDENTITY;
    if let Some(top) = top {
        for i in (0..=top).rev() {
            if !bool::from(acc.is_identity()) {
                acc = acc.double();
            }
            for (naf, table) in nafs.iter().zip(tables.chunks_exact(NAF_TABLE)) {
                let d = naf.get(i).copied().unwrap_or(0);
                if d != 0 {
                    let mut q = *table.get(usize::from(d.unsigned_abs() >> 1)).ok_or(Error::InvalidElement)?;
                    if d < 0 {
                        q.y = -q.y;
                    }
                    acc = add_vartime(&acc, &q);
                }
            }
        }
    }
    let mut out = [ProjectivePoint::IDENTITY];
    to_projective(&[acc], &mut out);
    let [out] = out;
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use p384::elliptic_curve::Group;
    use p384::elliptic_curve::group::GroupEncoding;

    use super::*;

    fn scalar(seed: u64) -> Scalar {
        let mut s = Scalar::from(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
        for _ in 0..7 {
            s = s.square() + Scalar::from(seed);
        }
        s
    }

    fn point(seed: u64) -> ProjectivePoint {
        ProjectivePoint::GENERATOR * scalar(seed + 1000)
    }

    /// Scalars that stress the exceptional cases: small values (leading
    /// zero digits), all-8 and all-minus-8 digit patterns, the neighbours of
    /// the order, and `n − 6`, where the last mixed addition is a doubling.
    fn special_scalars() -> [Scalar; 12] {
        let n_minus = |v: u64| -Scalar::from(v);
        [
            Scalar::ONE,
            Scalar::from(2u64),
            Scalar::from(8u64),
            Scalar::from(9u64),
            Scalar::from(0x8888_8888u64),
            Scalar::from(u64::MAX),
            n_minus(1),
            n_minus(3),
            n_minus(6),
            n_minus(8),
            n_minus(16),
            Option::from(Scalar::from_repr([0x77u8; 48].into())).unwrap(),
        ]
    }

    fn to_point(j: &Jacobian) -> ProjectivePoint {
        let mut out = [ProjectivePoint::IDENTITY];
        to_projective(&[*j], &mut out);
        out[0]
    }

    #[test]
    fn recode_reconstructs() {
        for k in (0..32).map(scalar).chain(special_scalars()) {
            let digits = recode(&k);
            let mut acc = Scalar::ZERO;
            for d in digits.iter().rev() {
                assert!((-8..=8).contains(d));
                acc *= Scalar::from(16u64);
                let mag = Scalar::from(u64::from(d.unsigned_abs()));
                acc = if *d < 0 { acc - mag } else { acc + mag };
            }
            assert_eq!(acc, k);
        }
    }

    #[test]
    fn mul_matches_p384() {
        for i in 0..6 {
            let p = point(i);
            let table = Table::new(&Affine::from_affine(&p.to_affine()).unwrap());
            for k in (0..8).map(|j| scalar(100 * i + j)).chain(special_scalars()) {
                assert_eq!(to_point(&mul(&table, &k)).to_bytes(), (p * k).to_bytes(), "k = {k:?}");
            }
            assert!(bool::from(mul(&table, &Scalar::ZERO).is_identity()));
        }
    }

    #[test]
    fn last_step_doubling_case() {
        // k = n − 6: the accumulator before the last digit (−3) is −3·P.
        let k = -Scalar::from(6u64);
        let digits = recode(&k);
        assert_eq!(digits[0], -3);
        let p = point(7);
        let table = Table::new(&Affine::from_affine(&p.to_affine()).unwrap());
        assert_eq!(to_point(&mul(&table, &k)), -(p.double().double() + p.double()));
    }

    #[cfg(feature = "precomputed-tables")]
    #[test]
    fn naf_reconstructs() {
        for k in (0..32).map(scalar).chain(special_scalars()) {
            let digits = naf_vartime(&k);
            let mut acc = Scalar::ZERO;
            for d in digits.iter().rev() {
                acc *= Scalar::from(2u64);
                let mag = Scalar::from(u64::from(d.unsigned_abs()));
                acc = if *d < 0 { acc - mag } else { acc + mag };
            }
            assert_eq!(acc, k);
        }
    }

    #[cfg(feature = "precomputed-tables")]
    #[test]
    fn lincomb_matches_p384() {
        let points: [ProjectivePoint; 4] = core::array::from_fn(|i| point(70 + i as u64));
        for i in 0..6 {
            let scalars: [Scalar; 4] = core::array::from_fn(|j| scalar(10 * i + j as u64));
            let pairs: [(ProjectivePoint, Scalar); 4] = core::array::from_fn(|j| (points[j], scalars[j]));
            for len in 0..=4 {
                let expected = pairs[..len].iter().fold(ProjectivePoint::IDENTITY, |acc, (p, s)| acc + *p * s);
                assert_eq!(lincomb_vartime(&pairs[..len]).unwrap(), expected);
            }
        }
        // Doubling and cancelling cases, zero scalars and identity bases.
        let p = points[0];
        let s = scalar(5);
        let cases = [
            [(p, s), (p, s)],
            [(p, s), (p, -s)],
            [(p, s), (-p, s)],
            [(p, Scalar::ZERO), (points[1], s)],
            [(ProjectivePoint::IDENTITY, s), (p, s)],
            [(p, -Scalar::from(6u64)), (p, Scalar::ONE)],
        ];
        for pairs in cases {
            let expected = pairs.iter().fold(ProjectivePoint::IDENTITY, |acc, (p, s)| acc + *p * s);
            assert_eq!(lincomb_vartime(&pairs).unwrap(), expected);
        }
        assert!(lincomb_vartime(&[(p, s); 5]).is_err());
    }

    #[test]
    fn batch_entry_points() {
        let points: [ProjectivePoint; 5] = core::array::from_fn(|i| point(50 + i as u64));
        let k = scalar(77);
        let mut out = [[0u8; 49]; 5];
        mul_serialize::<8>(&k, &points, &mut out).unwrap();
        for (o, p) in out.iter().zip(&points) {
            assert_eq!(o.as_slice(), (*p * k).to_bytes().as_slice());
        }
        let scalars = [scalar(1), scalar(2), Scalar::ZERO, -Scalar::from(6u64)];
        let mut prods = [ProjectivePoint::IDENTITY; 4];
        prepared_mul(&Comb::new(&points[0]).unwrap(), &scalars, &mut prods).unwrap();
        for (q, s) in prods.iter().zip(&scalars) {
            assert_eq!(*q, points[0] * s);
        }
        assert!(mul_serialize::<8>(&Scalar::ZERO, &points, &mut out).is_err());
        assert!(Comb::new(&ProjectivePoint::IDENTITY).is_err());
    }

    /// A scalar whose comb multiplication meets the doubling case in the last
    /// round, at tooth 2 (`d_32 = 1`, `d_48 = d_64 = d_80 = −8`, and
    /// `k ≡ 2·2^128 − 8·(2^192 + 2^256 + 2^320) mod n`; found by search).
    const COMB_DOUBLING_CASE: [u8; 48] = [
        0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf7, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0xf7, 0xc7, 0x63, 0x4d, 0x81, 0xf4, 0x37, 0x2d, 0xe1, 0x58, 0x1a, 0x0d, 0xb2,
        0x48, 0xb0, 0xa7, 0x7a, 0xec, 0xec, 0x19, 0x6a, 0xcc, 0xc5, 0x29, 0x73,
    ];

    #[test]
    fn comb_matches_p384() {
        let doubling_case = Option::<Scalar>::from(Scalar::from_repr(COMB_DOUBLING_CASE.into())).unwrap();
        let digits = recode(&doubling_case);
        assert_eq!((digits[32], digits[48], digits[64], digits[80]), (1, -8, -8, -8));
        for i in 0..4 {
            let p = point(200 + i);
            let comb = Comb::new(&p).unwrap();
            for k in (0..8).map(|j| scalar(300 * i + j)).chain(special_scalars()).chain([doubling_case]) {
                assert_eq!(to_point(&comb.mul(&k)), p * k, "k = {k:?}");
            }
            assert!(bool::from(comb.mul(&Scalar::ZERO).is_identity()));
        }
    }
}
