//! Constant-time `k·P`: signed radix-16 recoding and a fixed-window
//! double-and-add over the affine table `1·P … 8·P` ([`mul`]). The
//! exceptional cases of the mixed addition are argued at [`mul`] and selected
//! away without branches.

use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use zeroize::Zeroize;

use super::{Affine, Coord, Jacobian, to_affine};

/// Entries in a table: `1·P … 8·P` for signed radix-16 digits in `[−8, 8]`.
const TABLE: usize = 8;

/// `1·P … 8·P` in affine form, for [`mul`].
#[derive(Clone, Debug)]
pub(crate) struct Table<F>([Affine<F>; TABLE]);

impl<F: Coord> Zeroize for Table<F> {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl<F: Coord> Table<F> {
    /// The multiples of a non-identity point `p`: doublings and mixed
    /// additions of `p` (`2P + P`, `4P + P`, `6P + P` are never exceptional:
    /// that would need `3P`, `5P` or `7P` to be the identity or `2P = ±P`,
    /// impossible for `P ≠ O` in a group of prime order above 8), then one
    /// batch inversion for the eight `Z`s.
    pub(crate) fn new(p: &Affine<F>) -> Self {
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

    /// The multiples of a non-identity point given in Jacobian coordinates
    /// with any `Z`, as [`Table::new`] does with full additions (the same
    /// argument: `2P + P`, `4P + P`, `6P + P` are never exceptional). Saves
    /// the inversion that would make `p` affine first.
    pub(crate) fn from_jacobian(p: &Jacobian<F>) -> Self {
        let one = *p;
        let two = one.double();
        let three = two.add(&one).0;
        let four = two.double();
        let five = four.add(&one).0;
        let six = three.double();
        let seven = six.add(&one).0;
        let eight = four.double();
        let jac = [one, two, three, four, five, six, seven, eight];
        let mut out = [Affine::default(); TABLE];
        to_affine(&jac, &mut out);
        Self(out)
    }

    /// `d·P` for `d ∈ [−8, 8]` in constant time (every entry is read), and
    /// whether `d = 0` (the identity, which has no affine form; the entry
    /// returned then is meaningless).
    pub(crate) fn select(&self, d: i8) -> (Affine<F>, Choice) {
        // mask = −1 for negative d, 0 otherwise; |d| = (d ^ mask) − mask.
        let mask = d >> 7;
        let abs = (d ^ mask).wrapping_sub(mask).cast_unsigned();
        let mut out = Affine::default();
        for (j, entry) in (1u8..).zip(self.0.iter()) {
            out.conditional_assign(entry, abs.ct_eq(&j));
        }
        let negative = Choice::from(mask.cast_unsigned() & 1);
        out.y = F::conditional_select(&out.y, &-out.y, negative);
        (out, abs.ct_eq(&0))
    }
}

/// Signed radix-16 digits `d_0 … d_(DIGITS−1)` of the scalar whose
/// big-endian encoding is `be` (`DIGITS` = two per byte plus one), least
/// significant first, with `k = Σ d_i·16^i`, `d_i ∈ [−8, 8)` and the last
/// one the carry, 0 or 1. Branch-free.
pub(crate) fn recode<const DIGITS: usize>(be: &[u8]) -> [i8; DIGITS] {
    let mut digits = [0i8; DIGITS];
    let mut carry = 0i8;
    let mut slots = digits.iter_mut();
    for byte in be.iter().rev() {
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
    digits
}

/// `k·P` in constant time for the point whose [`Table`] is given and the
/// digits of `k` ([`recode`]): a fixed-window double-and-add from the top
/// digit, four doublings and one table lookup plus mixed addition per
/// digit, whatever the digits are.
///
/// Exceptional cases of the mixed addition `acc + d_i·P` (all handled
/// without branches), for a group of prime order `n` whose scalars take
/// `DIGITS − 1` nibbles (so `16^(DIGITS−2) < n`):
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
///   `16 | k − d_0` (for P-384, `n ≡ 3 mod 16`: `k = n − 6`, `d_0 = −3`; for
///   P-256, `n ≡ 1 mod 16`: `k = n − 2`, `d_0 = −1`). So the last step also
///   computes `2·acc` and selects it when the addition reports `H = r = 0`
///   (one extra doubling per multiplication; tested with those scalars).
///
/// The result is the identity only for `k = 0`.
pub(crate) fn mul<F: Coord, const DIGITS: usize>(table: &Table<F>, digits: &[i8; DIGITS]) -> Jacobian<F> {
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
    acc
}
