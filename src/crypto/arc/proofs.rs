//! ARC's three relations (draft-ietf-privacypass-arc-crypto-01 §5), each a
//! [`Statement`] for the one compiler in [`super::sigma`]: the credential
//! request proof, the credential response proof, and the presentation proof
//! with its range proof (§5.4). Variables are allocated, and equations
//! appended, in the draft's order: the order fixes the instance label.

use p256::Scalar;

use super::group::{CONTEXT_STRING, Elem};
use super::sigma::{Equation, Statement};
use crate::error::{Error, Field, Result};

/// The widest range proof: a presentation limit up to 2^32.
pub(crate) const MAX_BITS: usize = 32;

/// The session identifier of each proof: contextString ‖ label.
pub(crate) const REQUEST_SESSION: [&[u8]; 2] = [CONTEXT_STRING, b"CredentialRequest"];
pub(crate) const RESPONSE_SESSION: [&[u8]; 2] = [CONTEXT_STRING, b"CredentialResponse"];
pub(crate) const PRESENTATION_SESSION: [&[u8]; 2] = [CONTEXT_STRING, b"CredentialPresentation"];

/// §5.1: m1Enc = m1·G + r1·H and m2Enc = m2·G + r2·H; scalars (m1, m2, r1,
/// r2), elements (G, H, m1Enc, m2Enc).
pub(crate) struct RequestStatement {
    pub(crate) elems: [Elem; 4],
}

const REQUEST_EQS: [Equation; 2] = [Equation::new2(2, (0, 0), (2, 1)), Equation::new2(3, (1, 0), (3, 1))];

impl Statement for RequestStatement {
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
    fn element(&self, i: usize) -> Result<&Elem> {
        self.elems.get(i).ok_or(Error::InvalidLength(Field::Message))
    }
}

/// §5.2: scalars (x0, x1, x2, x0Blinding, b, t1 = b·x1, t2 = b·x2); elements
/// (G, H, m1Enc, m2Enc, U, encUPrime, X0, X1, X2, X0Aux, X1Aux, X2Aux, HAux).
pub(crate) struct ResponseStatement {
    pub(crate) elems: [Elem; 13],
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

impl Statement for ResponseStatement {
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
    fn element(&self, i: usize) -> Result<&Elem> {
        self.elems.get(i).ok_or(Error::InvalidLength(Field::Message))
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
pub(crate) struct PresentationStatement {
    pub(crate) elems: [Elem; D_BASE + MAX_BITS],
    pub(crate) k: usize,
}

impl PresentationStatement {
    fn d_shared(&self) -> bool {
        self.k == 1 && self.elems.get(D_BASE).map(|d| d.bytes) == self.elems.get(9).map(|c| c.bytes)
    }

    fn d_var(&self, i: usize) -> Result<u16> {
        let v = if self.d_shared() { 9 } else { D_BASE + i };
        u16::try_from(v).map_err(|_| Error::InvalidLength(Field::Message))
    }
}

fn idx(v: usize) -> Result<u16> {
    u16::try_from(v).map_err(|_| Error::InvalidLength(Field::Message))
}

impl Statement for PresentationStatement {
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
    fn element(&self, i: usize) -> Result<&Elem> {
        if i >= self.num_elements() {
            return Err(Error::InvalidLength(Field::Message));
        }
        self.elems.get(i).ok_or(Error::InvalidLength(Field::Message))
    }
}

/// The witness vector of a presentation proof, wiped on drop.
pub(crate) struct Witness {
    pub(crate) values: [Scalar; super::sigma::MAX_SCALARS],
}

impl Witness {
    pub(crate) fn new() -> Self {
        Self { values: [Scalar::ZERO; super::sigma::MAX_SCALARS] }
    }
}

impl Drop for Witness {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.values);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
