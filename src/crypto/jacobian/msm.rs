//! Variable-time multi-scalar multiplication `Σ s_i·P_i`: Straus–Shamir
//! interleaving of width-5 NAFs (`crypto::naf`) over one chain of
//! doublings, the odd multiples of every base normalized to affine form with
//! one batch inversion so that every addition is mixed. Public scalars only
//! (points may be secret: see [`add_vartime`]); every function here is
//! `_vartime`. Built only with
//! `precomputed-tables`: each term takes several KiB of stack.

use super::{Affine, Coord, Jacobian, to_affine};
use crate::error::{Error, Result};

/// wNAF width: digits are odd and below 2^4 in absolute value, so each base
/// needs `1·P, 3·P, …, 15·P`.
pub(crate) const NAF_W: u32 = 5;
/// Odd multiples per base.
pub(crate) const ODD: usize = 1 << (NAF_W - 2);

/// `acc + q` in variable time, exceptional cases included (the identity,
/// `acc = q` needs a doubling, `acc = −q` gives `Z = 0`).
///
/// The scalars of every caller are public; a point need not be (ARC's
/// verifier sums its secret-derived V): the field arithmetic is constant
/// time, and the two case checks are declassified. `acc` is the identity
/// before the first nonzero digit (set by the public digits) or after an
/// exact cancellation, and `acc = q` is a collision: both, for a point the
/// attacker does not know, events of probability about 2^-256.
pub(crate) fn add_vartime<F: Coord>(acc: &Jacobian<F>, q: &Affine<F>) -> Jacobian<F> {
    let mut identity = acc.is_identity();
    crate::ct::declassify(&mut identity);
    if bool::from(identity) {
        return Jacobian::from_affine(q);
    }
    let (sum, mut doubling) = acc.add_affine(q);
    crate::ct::declassify(&mut doubling);
    if bool::from(doubling) { acc.double() } else { sum }
}

/// `Σ s_i·P_i` for the `TERMS` bases (`None` for an identity base, which
/// contributes nothing) and the width-[`NAF_W`] NAFs of their scalars.
/// `TABLE` must be `TERMS·ODD` (checked when compiled).
pub(crate) fn lincomb_vartime<F: Coord, const TERMS: usize, const TABLE: usize, const DIGITS: usize>(
    bases: &[Option<Affine<F>>; TERMS],
    nafs: &[[i8; DIGITS]; TERMS],
) -> Result<Jacobian<F>> {
    const { assert!(TABLE == TERMS * ODD) };
    let mut firsts = [Affine::default(); TERMS];
    let mut twos = [Jacobian::PAD; TERMS];
    for ((first, two), base) in firsts.iter_mut().zip(twos.iter_mut()).zip(bases) {
        if let Some(p) = base {
            *first = *p;
            *two = Jacobian::from_affine(p).double();
        }
    }
    let mut twos_affine = [Affine::default(); TERMS];
    to_affine(&twos, &mut twos_affine);
    // (2j+1)·P = (2j−1)·P + 2·P: never exceptional (that would need
    // (2j−3)·P or (2j+1)·P to be the identity, j ≤ 7, in a group of prime
    // order above 15).
    let mut odd = [Jacobian::PAD; TABLE];
    for ((row, first), two) in odd.chunks_exact_mut(ODD).zip(&firsts).zip(&twos_affine) {
        let mut acc = Jacobian::from_affine(first);
        for slot in row.iter_mut() {
            *slot = acc;
            acc = acc.add_affine(two).0;
        }
    }
    let mut tables = [Affine::default(); TABLE];
    to_affine(&odd, &mut tables);

    let live = |n: &[i8; DIGITS], b: &Option<Affine<F>>, i: usize| b.is_some() && n.get(i).is_some_and(|d| *d != 0);
    let top = (0..DIGITS).rev().find(|&i| nafs.iter().zip(bases).any(|(n, b)| live(n, b, i)));
    let mut acc = Jacobian::IDENTITY;
    if let Some(top) = top {
        for i in (0..=top).rev() {
            // Declassified as in `add_vartime` (doubling the identity would
            // be harmless; skipping it saves the leading doublings).
            let mut identity = acc.is_identity();
            crate::ct::declassify(&mut identity);
            if !bool::from(identity) {
                acc = acc.double();
            }
            for ((naf, table), base) in nafs.iter().zip(tables.chunks_exact(ODD)).zip(bases) {
                let d = naf.get(i).copied().unwrap_or(0);
                if d != 0 && base.is_some() {
                    let mut q = *table.get(usize::from(d.unsigned_abs() >> 1)).ok_or(Error::InvalidElement)?;
                    if d < 0 {
                        q.y = -q.y;
                    }
                    acc = add_vartime(&acc, &q);
                }
            }
        }
    }
    Ok(acc)
}
