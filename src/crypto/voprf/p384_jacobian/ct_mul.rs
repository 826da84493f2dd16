//! Constant-time `k·P` on P-384: `crypto::jacobian::ct_mul`'s signed
//! radix-16 recoding and fixed-window double-and-add ([`mul`]) on the own
//! field, and the [`Comb`], which shares one precomputation among several
//! multiplications of the same point. The exceptional cases of the mixed
//! addition are argued at `crypto::jacobian::ct_mul::mul` and [`Comb::mul`]
//! and selected away without branches.

use p384::elliptic_curve::ff::PrimeField;
use p384::{ProjectivePoint, Scalar};
use subtle::ConditionallySelectable;
use zeroize::Zeroize;

use super::point::{Affine, Fe, Jacobian, PAD, to_affine};
use crate::error::Result;

/// `1·P … 8·P` in affine form (`crypto::jacobian::ct_mul`).
pub(super) type Table = crate::crypto::jacobian::ct_mul::Table<Fe>;

/// Signed radix-16 digits of a scalar below 2^384: 96 nibbles and a carry.
pub(super) const DIGITS: usize = 97;

/// Signed radix-16 digits `d_0 … d_96` of `k`, least significant first, with
/// `k = Σ d_i·16^i` and `d_i ∈ [−8, 8)` (`d_96 ∈ {0, 1}`). Branch-free.
pub(super) fn recode(k: &Scalar) -> [i8; DIGITS] {
    let mut bytes = k.to_repr();
    let digits = crate::crypto::jacobian::ct_mul::recode(&bytes);
    bytes.zeroize();
    digits
}

/// `k·P` in constant time for the point whose [`Table`] is given
/// (`crypto::jacobian::ct_mul::mul`, where the exceptional cases are
/// argued; for P-384 the doubling case of the last digit is `k = n − 6`).
pub(super) fn mul(table: &Table, k: &Scalar) -> Jacobian {
    let mut digits = recode(k);
    let acc = crate::crypto::jacobian::ct_mul::mul(table, &digits);
    digits.zeroize();
    acc
}

/// Teeth of a [`Comb`]: the 96 low digits of a scalar form this many groups
/// of [`COMB_SPAN`] consecutive digits (64 bits each).
pub(super) const COMB_TEETH: usize = 6;
/// Radix-16 digits per tooth.
pub(super) const COMB_SPAN: usize = 16;

/// Precomputation for several constant-time multiplications of one point
/// `P`: tables for `P_j = 2^(64·j)·P`, `j = 0 … 5` (six [`Table`]s, 4.5 KiB,
/// on the stack). `k·P = Σ_r 16^r · Σ_j d_(16j+r)·P_j`, so a multiplication
/// takes 64 doublings and 97 mixed additions instead of 384 and 97; building
/// the comb costs 320 doublings, about two thirds of one [`mul`]. It pays
/// from two multiplications of the same point on (the DLEQ proof has two to
/// four). The P-384 suite's `Prepared` type.
#[derive(Clone, Debug)]
pub(crate) struct Comb([Table; COMB_TEETH]);

impl Comb {
    /// The comb for `P`; `InvalidElement` if `P` is the identity. `P` is
    /// public here (a blinded element or the composite `M`), but nothing
    /// below branches on it anyway.
    pub(in crate::crypto::voprf) fn new(p: &ProjectivePoint) -> Result<Self> {
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
    pub(super) fn mul(&self, k: &Scalar) -> Jacobian {
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
