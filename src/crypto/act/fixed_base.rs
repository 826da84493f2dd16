//! Multiplication by the generators H1..H4 (draft-schlesinger-cfrg-act-01
//! §3.1), the bases of nearly every product in ACT.
//!
//! With `precomputed-tables`, each generator gets curve25519-dalek's
//! fixed-base table (`RistrettoBasepointTable`, the radix-16 table dalek
//! keeps for G: 30 KiB; 64 mixed additions and 4 doublings a product,
//! constant time), built on the first product by that generator (about
//! 0.8 ms each) and shared by every clone of the [`Params`]: one allocation
//! of the four slots, then one of 30 KiB per table built. A product costs
//! about a third of a variable-base one (8 µs against 22 µs on the x86_64
//! bench machine, AVX2 back end). The tables are public data and the
//! products constant time, so the same call serves secret and public
//! scalars. Lazily, so that parameters made and dropped (a vector check, a
//! one-shot client) do not pay 3.2 ms for four tables they never use.
//!
//! The issuer's products by H3 of public scalars (the 2L + 2 of the range
//! proof's check, §3.4.3, and r̄·H3 of the request's) go through a
//! variable-time comb instead ([`super::comb_vartime`]: 5.1 µs a product
//! against the table's 8 µs, 7 % of a refund at L = 16), 215 KiB built on
//! the first of them; no other generator has enough public products to pay
//! for one (a client never builds it). Public scalars below 2^56 (amounts)
//! take dalek's variable-time product, which is shorter for them.
//!
//! Without the feature (the no-std, allocation-free build) nothing is
//! stored: secret products are dalek's constant-time `point * scalar` and
//! public ones its variable-time `vartime_double_scalar_mul_basepoint` with
//! a zero second scalar, as before.

use curve25519_dalek::Scalar;
use curve25519_dalek::ristretto::RistrettoPoint;

use super::params::Params;

/// One of the generators H1..H4.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Gen {
    H1,
    H2,
    H3,
    H4,
}

/// The generators' tables, built on first use and shared by clones.
#[cfg(feature = "precomputed-tables")]
#[derive(Clone, Default)]
pub(crate) struct Tables(std::sync::Arc<TableSlots>);

/// dalek's table of each generator, and the variable-time comb of H3.
#[cfg(feature = "precomputed-tables")]
#[derive(Default)]
struct TableSlots {
    fixed: [std::sync::OnceLock<std::boxed::Box<curve25519_dalek::ristretto::RistrettoBasepointTable>>; 4],
    h3_vartime: std::sync::OnceLock<super::comb_vartime::CombVartime>,
}

impl Params {
    /// The generator's point.
    fn generator(&self, h: Gen) -> &RistrettoPoint {
        match h {
            Gen::H1 => &self.h1.point,
            Gen::H2 => &self.h2.point,
            Gen::H3 => &self.h3.point,
            Gen::H4 => &self.h4.point,
        }
    }

    /// The generator's table, built now if it is the first product by it.
    #[cfg(feature = "precomputed-tables")]
    fn table(&self, h: Gen) -> &curve25519_dalek::ristretto::RistrettoBasepointTable {
        let [t1, t2, t3, t4] = &self.tables.0.fixed;
        let slot = match h {
            Gen::H1 => t1,
            Gen::H2 => t2,
            Gen::H3 => t3,
            Gen::H4 => t4,
        };
        slot.get_or_init(|| {
            std::boxed::Box::new(curve25519_dalek::ristretto::RistrettoBasepointTable::create(self.generator(h)))
        })
    }

    /// s·H, constant time in s.
    pub(crate) fn mul(&self, h: Gen, s: &Scalar) -> RistrettoPoint {
        #[cfg(feature = "precomputed-tables")]
        {
            self.table(h) * s
        }
        #[cfg(not(feature = "precomputed-tables"))]
        {
            self.generator(h) * s
        }
    }

    /// s·H for a public s, in variable time: dalek's variable-time product
    /// (whose doublings start at the scalar's top digit) for a short
    /// scalar, such as an amount below 2^L, or without the tables; H3's
    /// comb or the generator's table otherwise. On the bench machine the
    /// variable-time product of a 16-bit scalar took 3.1 µs, of a 64-bit
    /// one 7.6 µs, of a full one 21 µs; the table's 8 µs and the comb's
    /// 5.1 µs whatever the scalar.
    pub(crate) fn mul_vartime(&self, h: Gen, s: &Scalar) -> RistrettoPoint {
        #[cfg(feature = "precomputed-tables")]
        if !is_short(s) {
            if h == Gen::H3 {
                let comb =
                    self.tables.0.h3_vartime.get_or_init(|| super::comb_vartime::CombVartime::new(&self.h3.point));
                return comb.mul_vartime(s);
            }
            return self.table(h) * s;
        }
        super::vartime::mul_vartime(s, self.generator(h))
    }
}

/// Whether a public scalar lies below 2^56 (then dalek's variable-time
/// product beats the table's).
#[cfg(feature = "precomputed-tables")]
fn is_short(s: &Scalar) -> bool {
    s.as_bytes().iter().skip(7).all(|b| *b == 0)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn products_match_the_points() {
        let params = Params::from_domain_separator(b"ACT-v1:test:fixed-base:v0:2026-01-01");
        let copy = params.clone();
        let scalars = [
            Scalar::ZERO,
            Scalar::ONE,
            -Scalar::ONE,
            Scalar::from(0xff_ffff_ffff_ffffu64),
            Scalar::from(0x100_0000_0000_0000u64),
            Scalar::from(0x1234_5678_9abc_def0u64),
            -Scalar::from(7u8),
        ];
        for h in [Gen::H1, Gen::H2, Gen::H3, Gen::H4] {
            for s in &scalars {
                let want = params.generator(h) * s;
                assert_eq!(params.mul(h, s), want);
                assert_eq!(params.mul_vartime(h, s), want);
                assert_eq!(copy.mul(h, s), want);
            }
        }
    }
}
