//! ARC's three relations (draft-ietf-privacypass-arc-crypto-01 §5), each a
//! [`Statement`] for the one compiler in [`super::sigma`]: the credential
//! request proof, the credential response proof, and the presentation proof
//! with its range proof (§5.4). Variables are allocated, and equations
//! appended, in the draft's order: the order fixes the instance label.

use p256::{ProjectivePoint, Scalar};
use subtle::{Choice, ConditionallySelectable};

use super::group::{CONTEXT_STRING, Elem, NE, NS};
use super::sigma::{Equation, Statement, Witness};
use crate::error::{Error, Field, Result};

/// The widest range proof: a presentation limit up to 2^32.
pub(crate) const MAX_BITS: usize = 32;

/// The session identifier of each proof: contextString ‖ label.
pub(crate) const REQUEST_SESSION: [&[u8]; 2] = [CONTEXT_STRING, b"CredentialRequest"];
pub(crate) const RESPONSE_SESSION: [&[u8]; 2] = [CONTEXT_STRING, b"CredentialResponse"];
pub(crate) const PRESENTATION_SESSION: [&[u8]; 2] = [CONTEXT_STRING, b"CredentialPresentation"];

/// §5.1: m1Enc = m1·G + r1·H and m2Enc = m2·G + r2·H; scalars (m1, m2, r1,
/// r2), elements (G, H, m1Enc, m2Enc).
pub(crate) struct RequestStatement<'a> {
    /// Borrowed, as every statement's elements: a device's stack holds them
    /// once, where they live.
    pub(crate) elems: [&'a Elem; 4],
}

const REQUEST_EQS: [Equation; 2] = [Equation::new2(2, (0, 0), (2, 1)), Equation::new2(3, (1, 0), (3, 1))];

impl Statement for RequestStatement<'_> {
    fn num_scalars(&self) -> usize {
        4
    }
    fn num_elements(&self) -> usize {
        4
    }
    fn num_equations(&self) -> usize {
        REQUEST_EQS.len()
    }
    fn equation(&self, i: usize) -> Result<Equation> {
        REQUEST_EQS.get(i).copied().ok_or(Error::InvalidLength(Field::Message))
    }
    fn element_bytes(&self, i: usize) -> Result<&[u8; NE]> {
        element_bytes(&self.elems, i)
    }
    fn element_point(&self, i: usize) -> Result<Option<ProjectivePoint>> {
        element_point(&self.elems, i)
    }
}

fn element_bytes<'e>(elems: &[&'e Elem], i: usize) -> Result<&'e [u8; NE]> {
    elems.get(i).map(|e| &e.bytes).ok_or(Error::InvalidLength(Field::Message))
}

fn element_point(elems: &[&Elem], i: usize) -> Result<Option<ProjectivePoint>> {
    elems.get(i).map(|e| Some(e.point)).ok_or(Error::InvalidLength(Field::Message))
}

/// §5.2: scalars (x0, x1, x2, x0Blinding, b, t1 = b·x1, t2 = b·x2); elements
/// (G, H, m1Enc, m2Enc, U, encUPrime, X0, X1, X2, X0Aux, X1Aux, X2Aux, HAux).
pub(crate) struct ResponseStatement<'a> {
    pub(crate) elems: [&'a Elem; 13],
}

const RESPONSE_EQS: [Equation; 11] = [
    // 1. X0 = x0·G + x0Blinding·H
    Equation::new2(6, (0, 0), (3, 1)),
    // 2. X1 = x1·H
    Equation::new1(7, (1, 1)),
    // 3. X2 = x2·H
    Equation::new1(8, (2, 1)),
    // 4a. HAux = b·H
    Equation::new1(12, (4, 1)),
    // 4b. X0Aux = x0Blinding·HAux
    Equation::new1(9, (3, 12)),
    // 5a. X1Aux = t1·H
    Equation::new1(10, (5, 1)),
    // 5b. X1Aux = b·X1
    Equation::new1(10, (4, 7)),
    // 6a. X2Aux = b·X2
    Equation::new1(11, (4, 8)),
    // 6b. X2Aux = t2·H
    Equation::new1(11, (6, 1)),
    // 7. U = b·G
    Equation::new1(4, (4, 0)),
    // 8. encUPrime = b·X0 + t1·m1Enc + t2·m2Enc
    Equation::new3(5, (4, 6), (5, 2), (6, 3)),
];

impl Statement for ResponseStatement<'_> {
    fn num_scalars(&self) -> usize {
        7
    }
    fn num_elements(&self) -> usize {
        13
    }
    fn num_equations(&self) -> usize {
        RESPONSE_EQS.len()
    }
    fn equation(&self, i: usize) -> Result<Equation> {
        RESPONSE_EQS.get(i).copied().ok_or(Error::InvalidLength(Field::Message))
    }
    fn element_bytes(&self, i: usize) -> Result<&[u8; NE]> {
        element_bytes(&self.elems, i)
    }
    fn element_point(&self, i: usize) -> Result<Option<ProjectivePoint>> {
        element_point(&self.elems, i)
    }
}

/// `ComputeBases(presentationLimit)` (§5.4), in descending order: the powers
/// 2^0 … 2^(k−2) and the closing base limit − 2^(k−1), where
/// k = ⌈log2(limit)⌉. The limit must be at least 2 (a limit of 1 gives the
/// base 0, which the range proof cannot use).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bases {
    pub(crate) values: [u32; MAX_BITS],
    pub(crate) len: usize,
}

impl Bases {
    pub(crate) fn new(limit: u64) -> Result<Self> {
        if !(2..=(1u64 << MAX_BITS)).contains(&limit) {
            return Err(Error::InvalidValue(Field::PresentationLimit));
        }
        // k = ⌈log2(limit)⌉ for limit ≥ 2.
        let k = (64 - (limit - 1).leading_zeros()) as usize;
        let mut values = [0u32; MAX_BITS];
        let top = 1u64 << (k - 1);
        let last = u32::try_from(limit - top).map_err(|_| Error::InvalidValue(Field::PresentationLimit))?;
        // Descending: the powers 2^(k−2) … 2^0 with `last` (1 ≤ last ≤ 2^(k−1))
        // placed before the first power it is not smaller than.
        let mut j = 0usize;
        let mut placed = false;
        for i in (0..k - 1).rev() {
            let p = 1u32 << i;
            if !placed && last >= p {
                *values.get_mut(j).ok_or(Error::InvalidValue(Field::PresentationLimit))? = last;
                j += 1;
                placed = true;
            }
            *values.get_mut(j).ok_or(Error::InvalidValue(Field::PresentationLimit))? = p;
            j += 1;
        }
        if !placed {
            *values.get_mut(j).ok_or(Error::InvalidValue(Field::PresentationLimit))? = last;
            j += 1;
        }
        Ok(Self { values, len: j })
    }

    pub(crate) fn as_slice(&self) -> &[u32] {
        self.values.get(..self.len).unwrap_or(&[])
    }
}

/// Index of the first range-proof element variable.
const D_BASE: usize = 10;

/// §5.3 with §5.4: scalars (m1, z, −r, nonce, nonceBlinding, b[0..k],
/// s[0..k], s2[0..k]); elements (G, H, U, UPrimeCommit, m1Commit, V, X1, tag,
/// generatorT, nonceCommit, D[0..k]). With k = 1 the one bit commitment
/// equals nonceCommit and reuses its variable, as the reference code does
/// (its relations may not repeat an element).
///
/// The bit commitments stay encoded where the presentation has them: the
/// prover's in its output (it never needs them as points, see
/// [`Statement::element_point`]), the verifier's in the message, with the y
/// coordinates decoding found, so each point is rebuilt without a square
/// root. Nothing here grows with k.
pub(crate) struct PresentationStatement<'a> {
    /// G, H, U, UPrimeCommit, m1Commit, V, X1, tag, generatorT, nonceCommit
    /// (borrowed: a device's stack holds them once).
    pub(crate) elems: &'a [Elem; D_BASE],
    /// D[0..k], encoded (k·Ne bytes).
    pub(crate) d: &'a [u8],
    /// The verifier's y coordinates of D[0..k]; `None` for the prover.
    pub(crate) d_y: Option<&'a [[u8; NS]; MAX_BITS]>,
    pub(crate) k: usize,
}

impl PresentationStatement<'_> {
    fn d_shared(&self) -> bool {
        self.k == 1 && self.d.get(..NE) == self.elems.get(9).map(|c| c.bytes.as_slice())
    }

    fn d_var(&self, i: usize) -> Result<u16> {
        let v = if self.d_shared() { 9 } else { D_BASE + i };
        u16::try_from(v).map_err(|_| Error::InvalidLength(Field::Message))
    }

    /// The encoding of bit commitment `j`.
    fn d_bytes(&self, j: usize) -> Result<&[u8; NE]> {
        self.d.get(j * NE..(j + 1) * NE).and_then(|b| b.try_into().ok()).ok_or(Error::InvalidLength(Field::Message))
    }
}

fn idx(v: usize) -> Result<u16> {
    u16::try_from(v).map_err(|_| Error::InvalidLength(Field::Message))
}

impl Statement for PresentationStatement<'_> {
    fn num_scalars(&self) -> usize {
        5 + 3 * self.k
    }
    fn num_elements(&self) -> usize {
        if self.d_shared() { D_BASE } else { D_BASE + self.k }
    }
    fn num_equations(&self) -> usize {
        4 + 2 * self.k
    }
    fn equation(&self, i: usize) -> Result<Equation> {
        Ok(match i {
            // 1. m1Commit = m1·U + z·H
            0 => Equation::new2(4, (0, 2), (1, 1)),
            // 2. V = z·X1 + (−r)·G
            1 => Equation::new2(5, (1, 6), (2, 0)),
            // 3. nonceCommit = nonce·G + nonceBlinding·H
            2 => Equation::new2(9, (3, 0), (4, 1)),
            // 4. generatorT = m1·tag + nonce·tag
            3 => Equation::new2(8, (0, 7), (3, 7)),
            // 5. per bit i: D[i] = b[i]·G + s[i]·H, then D[i] = b[i]·D[i] + s2[i]·H
            _ => {
                let j = i - 4;
                let bit = j / 2;
                if bit >= self.k {
                    return Err(Error::InvalidLength(Field::Message));
                }
                let d = self.d_var(bit)?;
                let b = idx(5 + bit)?;
                if j.is_multiple_of(2) {
                    Equation::new2(d, (b, 0), (idx(5 + self.k + bit)?, 1))
                } else {
                    Equation::new2(d, (b, d), (idx(5 + 2 * self.k + bit)?, 1))
                }
            }
        })
    }
    fn element_bytes(&self, i: usize) -> Result<&[u8; NE]> {
        if i >= self.num_elements() {
            return Err(Error::InvalidLength(Field::Message));
        }
        match i.checked_sub(D_BASE) {
            None => self.elems.get(i).map(|e| &e.bytes).ok_or(Error::InvalidLength(Field::Message)),
            Some(j) => self.d_bytes(j),
        }
    }
    fn element_point(&self, i: usize) -> Result<Option<ProjectivePoint>> {
        if i >= self.num_elements() {
            return Err(Error::InvalidLength(Field::Message));
        }
        let Some(j) = i.checked_sub(D_BASE) else {
            return self.elems.get(i).map(|e| Some(e.point)).ok_or(Error::InvalidLength(Field::Message));
        };
        let Some(ys) = self.d_y else {
            return Ok(None);
        };
        let y = ys.get(j).ok_or(Error::InvalidLength(Field::Message))?;
        Ok(Some(Elem::from_xy(self.d_bytes(j)?, y)?.point))
    }
}

/// A presentation's witness: m1, z, −r, nonce and nonceBlinding, then for
/// each range-proof base i the bit `b[i]`, the blind `s[i]` and
/// `s2[i] = (1 − b[i])·s[i]`. It keeps the five, the k blinds and the bits as
/// a mask, and derives the rest when read (37 scalars at most instead of
/// 101). Wiped on drop.
pub(crate) struct PresentationWitness {
    pub(crate) head: [Scalar; 5],
    pub(crate) blinds: [Scalar; MAX_BITS],
    /// Bit i is `b[i]` (secret: the nonce's decomposition).
    pub(crate) bits: u32,
    k: usize,
}

impl PresentationWitness {
    pub(crate) fn new(k: usize) -> Self {
        Self { head: [Scalar::ZERO; 5], blinds: [Scalar::ZERO; MAX_BITS], bits: 0, k }
    }
}

impl Drop for PresentationWitness {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.head);
        zeroize::Zeroize::zeroize(&mut self.blinds);
        zeroize::Zeroize::zeroize(&mut self.bits);
    }
}

impl Witness for PresentationWitness {
    fn count(&self) -> usize {
        5 + 3 * self.k
    }
    fn get(&self, i: usize) -> Result<Scalar> {
        let Some(j) = i.checked_sub(5) else {
            return self.head.get(i).copied().ok_or(Error::InvalidLength(Field::Message));
        };
        // Which part (bit, blind, s2) and which base: public indices.
        let (part, base) = (j.checked_div(self.k).unwrap_or(3), j.checked_rem(self.k).unwrap_or(0));
        let s = self.blinds.get(base).copied().ok_or(Error::InvalidLength(Field::Message))?;
        let shift = u32::try_from(base).map_err(|_| Error::InvalidLength(Field::Message))?;
        let [low, ..] = self.bits.checked_shr(shift).unwrap_or(0).to_le_bytes();
        let bit = Choice::from(low & 1);
        let b = Scalar::conditional_select(&Scalar::ZERO, &Scalar::ONE, bit);
        match part {
            0 => Ok(b),
            1 => Ok(s),
            2 => Ok((Scalar::ONE - b) * s),
            _ => Err(Error::InvalidLength(Field::Message)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presentation_witness_derives_bits_blinds_and_products() {
        for k in [1usize, 2, 5, 31, 32] {
            let mut w = PresentationWitness::new(k);
            w.head = [1u64, 2, 3, 4, 5].map(Scalar::from);
            let mask = if k == 32 { u32::MAX } else { (1u32 << k) - 1 };
            w.bits = 0xa5c3_5a3c & mask;
            for i in 0..k {
                w.blinds[i] = Scalar::from(100 + i as u64);
            }
            assert_eq!(w.count(), 5 + 3 * k);
            for i in 0..5 {
                assert_eq!(w.get(i).unwrap(), w.head[i]);
            }
            for i in 0..k {
                let b = Scalar::from(u64::from((w.bits >> i) & 1));
                assert_eq!(w.get(5 + i).unwrap(), b, "k {k}, bit {i}");
                assert_eq!(w.get(5 + k + i).unwrap(), w.blinds[i]);
                assert_eq!(w.get(5 + 2 * k + i).unwrap(), (Scalar::ONE - b) * w.blinds[i]);
            }
            assert!(w.get(5 + 3 * k).is_err());
        }
    }

    #[test]
    fn bases_follow_the_reference() {
        // ComputeBases of the reference code, by hand.
        assert_eq!(Bases::new(2).unwrap().as_slice(), &[1]);
        assert_eq!(Bases::new(3).unwrap().as_slice(), &[1, 1]);
        assert_eq!(Bases::new(4).unwrap().as_slice(), &[2, 1]);
        assert_eq!(Bases::new(5).unwrap().as_slice(), &[2, 1, 1]);
        assert_eq!(Bases::new(6).unwrap().as_slice(), &[2, 2, 1]);
        assert_eq!(Bases::new(8).unwrap().as_slice(), &[4, 2, 1]);
        assert_eq!(Bases::new(100).unwrap().as_slice(), &[36, 32, 16, 8, 4, 2, 1]);
        assert_eq!(Bases::new(1 << 32).unwrap().len, 32);
        assert!(Bases::new(1).is_err());
        assert!(Bases::new(0).is_err());
        assert!(Bases::new((1 << 32) + 1).is_err());
        // The prover's greedy decomposition over the bases is exact for
        // every nonce below the limit and for none at or above it, so no
        // bits and blinds of a nonce ≥ limit pass the verifier's sum check.
        for limit in 2u64..70 {
            let b = Bases::new(limit).unwrap();
            for nonce in 0..limit + 8 {
                let mut rem = nonce;
                for &base in b.as_slice() {
                    if rem >= u64::from(base) {
                        rem -= u64::from(base);
                    }
                }
                assert_eq!(rem == 0, nonce < limit, "limit {limit}, nonce {nonce}");
            }
        }
        // Every limit's bases cover exactly [0, limit).
        for limit in 2u64..200 {
            let b = Bases::new(limit).unwrap();
            let sum: u64 = b.as_slice().iter().map(|&v| u64::from(v)).sum();
            assert_eq!(sum, limit - 1, "limit {limit}");
            assert!(b.as_slice().windows(2).all(|w| w[0] >= w[1]));
        }
    }
}
