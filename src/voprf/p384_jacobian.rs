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
    /// `H = r = 0` (six extra doublings). Enumerating every digit tuple
    /// (`adversarial::comb_round0_cases`) shows exactly 2184 scalars with
    /// `acc = d·P_j` and 2184 with `acc = −d·P_j` (the sum is the identity,
    /// `Z3 = 0`, which the later teeth's identity selection handles) in that
    /// round, all at tooth 2.
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

/// Adversarial tests: a scalar-level model of where the incomplete additions
/// meet equal or opposite inputs (these events depend only on the scalar,
/// not on the base point, since every point is a multiple of any non-identity
/// one), the complete set of comb scalars that meet them, and point-level
/// comparisons with `p384` on structured and random scalars and bases.
#[cfg(all(test, feature = "std"))]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod adversarial {
    use p384::elliptic_curve::Group;

    use super::*;

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

    /// splitmix64, deterministic.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }

        /// Uniform enough in `0 … n − 1` for small `n`.
        fn below(&mut self, n: usize) -> usize {
            usize::try_from(self.next() % u64::try_from(n).unwrap()).unwrap()
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
        let mut rng = Rng(1);
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
        let mut rng = Rng(2);
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
        let mut rng = Rng(3);
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
        let mut rng = Rng(4);
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
}
