//! The own P-384 field ([`Fe`]) against `p384`'s `FieldElement` on
//! pseudo-random values and edge values, for every operation.

use std::vec;
use std::vec::Vec;

use p384::elliptic_curve::Field;
use p384::elliptic_curve::ff::PrimeField;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use super::field::{Fe, P384Fe};
use crate::crypto::jacobian::Coord;

/// p as big-endian bytes.
const P_HEX: &str = "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000ffffffff";

fn hex48(s: &str) -> [u8; 48] {
    let mut out = [0u8; 48];
    for (o, pair) in out.iter_mut().zip(s.as_bytes().chunks(2)) {
        *o = u8::from_str_radix(core::str::from_utf8(pair).unwrap(), 16).unwrap();
    }
    out
}

/// Big-endian `a + d` (small signed `d`, no overflow past 2^384 expected).
fn add_small(a: &[u8; 48], d: i64) -> [u8; 48] {
    let mut out = *a;
    let mut carry = i128::from(d);
    for b in out.iter_mut().rev() {
        let v = i128::from(*b) + carry;
        *b = (v & 0xff) as u8;
        carry = v >> 8;
    }
    out
}

fn p384(bytes: &[u8; 48]) -> P384Fe {
    Option::from(P384Fe::from_repr((*bytes).into())).unwrap()
}

fn own(bytes: &[u8; 48]) -> Fe {
    Option::from(Fe::from_bytes(bytes)).unwrap()
}

fn bytes_of(x: &P384Fe) -> [u8; 48] {
    x.to_repr().into()
}

/// SplitMix64, for reproducible pseudo-random field elements.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A canonical element: random bytes, with a random shape (dense, sparse
    /// limbs, all-ones limbs) so that carries of every length occur.
    fn element(&mut self) -> [u8; 48] {
        loop {
            let mut out = [0u8; 48];
            for chunk in out.chunks_mut(8) {
                let w = match self.next() % 4 {
                    0 => 0,
                    1 => u64::MAX,
                    _ => self.next(),
                };
                chunk.copy_from_slice(&w.to_be_bytes());
            }
            if Option::<P384Fe>::from(P384Fe::from_repr(out.into())).is_some() {
                return out;
            }
        }
    }
}

/// 0, 1, 2, p − 1, p − 2, 2^383, 2^384 − 2^128 ± small (near p's top
/// limbs), R mod p, R² mod p, R⁻¹ mod p, −R mod p and values whose limbs are
/// all ones or all zeros around p's structure.
fn edge_values() -> Vec<[u8; 48]> {
    let p = hex48(P_HEX);
    let r = hex48("000000000000000000000000000000000000000000000000000000000000000100000000ffffffffffffffff00000001");
    let r2 = hex48("000000000000000000000000000000010000000200000000fffffffe000000000000000200000000fffffffe00000001");
    let r_inv = bytes_of(&p384(&r).invert().unwrap());
    let mut top = [0u8; 48];
    top[0] = 0x80;
    let mut v = vec![
        [0u8; 48],
        add_small(&[0u8; 48], 1),
        add_small(&[0u8; 48], 2),
        add_small(&[0u8; 48], 12),
        add_small(&p, -1),
        add_small(&p, -2),
        add_small(&p, -3),
        add_small(&p, -(1 << 32)),
        top,
        add_small(&top, -1),
        r,
        add_small(&r, -1),
        add_small(&r, 1),
        r2,
        r_inv,
        bytes_of(&-p384(&r)),
        bytes_of(&-p384(&r2)),
        hex48("fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe000000000000000000000000ffffffff"),
        hex48("fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffeffffffff0000000000000000fffffffe"),
        hex48("fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe00000000ffffffffffffffff00000000"),
        hex48("00000000ffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000ffffffff"),
        hex48("ffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000ffffffff00000000"),
    ];
    v.retain(|b| Option::<P384Fe>::from(P384Fe::from_repr((*b).into())).is_some());
    v
}

fn values() -> Vec<[u8; 48]> {
    let mut v = edge_values();
    let mut rng = Rng(0x5eed);
    v.extend((0..200).map(|_| rng.element()));
    v
}

#[test]
fn encoding_round_trips_and_rejects_non_canonical() {
    for b in values() {
        assert_eq!(own(&b).to_bytes(), b);
        assert_eq!(Fe::from_p384(&p384(&b)).to_bytes(), b);
    }
    let p = hex48(P_HEX);
    for bad in [p, add_small(&p, 1), add_small(&p, 1 << 32), [0xff; 48]] {
        assert!(bool::from(Fe::from_bytes(&bad).is_none()));
    }
}

#[test]
fn constants() {
    assert_eq!(Fe::ZERO.to_bytes(), [0u8; 48]);
    assert_eq!(Fe::ONE.to_bytes(), bytes_of(&P384Fe::ONE));
}

#[test]
fn binary_operations_match_p384() {
    let vs = values();
    let mut rng = Rng(7);
    let edges = edge_values();
    // Every pair of edge values, and random pairs of any values.
    let mut pairs: Vec<(usize, usize)> = (0..edges.len()).flat_map(|i| (0..edges.len()).map(move |j| (i, j))).collect();
    pairs.extend((0..2000).map(|_| {
        (usize::try_from(rng.next() % vs.len() as u64).unwrap(), usize::try_from(rng.next() % vs.len() as u64).unwrap())
    }));
    for (i, j) in pairs {
        let (a, b) = (&vs[i], &vs[j]);
        let (x, y) = (own(a), own(b));
        let (px, py) = (p384(a), p384(b));
        assert_eq!((x * y).to_bytes(), bytes_of(&(px * py)), "mul {i} {j}");
        assert_eq!((x + y).to_bytes(), bytes_of(&(px + py)), "add {i} {j}");
        assert_eq!((x - y).to_bytes(), bytes_of(&(px - py)), "sub {i} {j}");
        assert_eq!(bool::from(x.ct_eq(&y)), a == b);
        assert_eq!(Fe::conditional_select(&x, &y, Choice::from(0)).to_bytes(), *a);
        assert_eq!(Fe::conditional_select(&x, &y, Choice::from(1)).to_bytes(), *b);
    }
}

#[test]
fn unary_operations_match_p384() {
    for b in values() {
        let (x, px) = (own(&b), p384(&b));
        assert_eq!(x.square().to_bytes(), bytes_of(&px.square()));
        assert_eq!(x.double().to_bytes(), bytes_of(&px.double()));
        assert_eq!((-x).to_bytes(), bytes_of(&-px));
        assert_eq!(bool::from(x.is_zero()), bool::from(px.is_zero()));
        assert_eq!(bool::from(x.is_odd()), bool::from(px.is_odd()));
        let inv = Option::<P384Fe>::from(px.invert()).unwrap_or(P384Fe::ZERO);
        assert_eq!(x.invert().to_bytes(), bytes_of(&inv));
        assert_eq!(x.sqn(5).to_bytes(), bytes_of(&px.square().square().square().square().square()));
    }
}

/// The addition chain for `(p − 3)/4` against `pow_vartime`.
#[test]
fn pow_c1_matches_pow_vartime() {
    let c1: [u64; 6] = [
        0x0000_0000_3fff_ffff,
        0xbfff_ffff_c000_0000,
        0xffff_ffff_ffff_ffff,
        0xffff_ffff_ffff_ffff,
        0xffff_ffff_ffff_ffff,
        0x3fff_ffff_ffff_ffff,
    ];
    for b in edge_values().into_iter().chain(Rng(3).elements(8)) {
        assert_eq!(own(&b).pow_c1().to_bytes(), bytes_of(&<P384Fe as Field>::pow_vartime(&p384(&b), c1)));
    }
}

impl Rng {
    fn elements(mut self, n: usize) -> Vec<[u8; 48]> {
        (0..n).map(|_| self.element()).collect()
    }
}

#[test]
fn batch_invert_matches_p384_with_zeros() {
    let mut rng = Rng(11);
    let mut xs = [Fe::ZERO; 7];
    let mut expected = [[0u8; 48]; 7];
    for (k, (x, e)) in xs.iter_mut().zip(expected.iter_mut()).enumerate() {
        if k % 3 == 1 {
            continue; // zeros at 1 and 4 stay zero
        }
        let b = rng.element();
        *x = own(&b);
        *e = bytes_of(&p384(&b).invert().unwrap());
    }
    Fe::batch_invert(&mut xs);
    for (x, e) in xs.iter().zip(&expected) {
        assert_eq!(x.to_bytes(), *e);
    }
    let mut zeros = [Fe::ZERO; 3];
    Fe::batch_invert(&mut zeros);
    assert!(zeros.iter().all(|z| bool::from(z.is_zero())));
}

/// The Montgomery-form constants of `hash_to_curve` are `−3`, `b`, `−12` and
/// `sqrt(12)`.
#[test]
fn hash_to_curve_constants() {
    let b = P384Fe::from_hex_vartime(
        "b3312fa7e23ee7e4988e056be3f82d19181d9c6efe8141120314088f5013875ac656398d8a2ed19d2a85c8edd3ec2aef",
    );
    let c2 = P384Fe::from_hex_vartime(
        "2accb4a656b0249c71f0500e83da2fdd7f98e383d68b53871f872fcb9ccb80c53c0de1f8a80f7e1914e2ec69f5a626b3",
    );
    assert_eq!(super::hash_to_curve::A.to_bytes(), bytes_of(&-P384Fe::from_u64(3)));
    assert_eq!(super::hash_to_curve::B.to_bytes(), bytes_of(&b));
    assert_eq!(super::hash_to_curve::Z.to_bytes(), bytes_of(&-P384Fe::from_u64(12)));
    assert_eq!(super::hash_to_curve::C2.to_bytes(), bytes_of(&c2));
    assert_eq!(c2.square(), P384Fe::from_u64(12));
}
