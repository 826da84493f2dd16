//! Unit tests: the recoding, [`mul`], the comb and the batch entry points
//! against `p384`, and (with `precomputed-tables`) the wNAF and
//! [`lincomb_vartime`].

use p384::elliptic_curve::Group;
use p384::elliptic_curve::ff::PrimeField;
use p384::elliptic_curve::group::GroupEncoding;

use super::ct_mul::*;
#[cfg(feature = "precomputed-tables")]
use super::msm_vartime::*;
use super::point::*;
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
    mul_serialize::<8>(&k, &points, &mut out, Sent::Yes).unwrap();
    for (o, p) in out.iter().zip(&points) {
        assert_eq!(o.as_slice(), (*p * k).to_bytes().as_slice());
    }
    let scalars = [scalar(1), scalar(2), Scalar::ZERO, -Scalar::from(6u64)];
    let mut prods = [ProjectivePoint::IDENTITY; 4];
    prepared_mul(&Comb::new(&points[0]).unwrap(), &scalars, &mut prods).unwrap();
    for (q, s) in prods.iter().zip(&scalars) {
        assert_eq!(*q, points[0] * s);
    }
    assert!(mul_serialize::<8>(&Scalar::ZERO, &points, &mut out, Sent::Yes).is_err());
    assert!(Comb::new(&ProjectivePoint::IDENTITY).is_err());
}

/// A scalar whose comb multiplication meets the doubling case in the last
/// round, at tooth 2 (`d_32 = 1`, `d_48 = d_64 = d_80 = −8`, and
/// `k ≡ 2·2^128 − 8·(2^192 + 2^256 + 2^320) mod n`; found by search).
const COMB_DOUBLING_CASE: [u8; 48] = [
    0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf7, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xf7, 0xff, 0xff, 0xff,
    0xff, 0xff, 0xff, 0xff, 0xf7, 0xc7, 0x63, 0x4d, 0x81, 0xf4, 0x37, 0x2d, 0xe1, 0x58, 0x1a, 0x0d, 0xb2, 0x48, 0xb0,
    0xa7, 0x7a, 0xec, 0xec, 0x19, 0x6a, 0xcc, 0xc5, 0x29, 0x73,
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

/// `hash_to_curve` and `hash_mul` give `p384`'s points and encodings.
#[test]
fn hash_to_curve_matches_p384() {
    use p384::hash2curve::{ExpandMsgXmd, hash_from_bytes};
    let dst: &[&[u8]] = &[b"HashToGroup-", b"OPRFV1-\x01-P384-SHA384"];
    for len in [0usize, 1, 31, 98, 200] {
        let mut msg = [0u8; 200];
        for (i, b) in msg.iter_mut().enumerate() {
            *b = (i * 7 + len).to_le_bytes()[0];
        }
        let msg = &msg[..len];
        let expected = hash_from_bytes::<p384::NistP384, ExpandMsgXmd<sha2::Sha384>>(&[msg], dst).unwrap();
        let mut got = [Affine::default()];
        to_affine(&[hash_to_curve(&[msg], dst).unwrap()], &mut got);
        let want = Affine::from_affine(&expected.to_affine()).unwrap();
        assert_eq!(got[0].x.to_bytes(), want.x.to_bytes(), "x, len {len}");
        assert_eq!(got[0].y.to_bytes(), want.y.to_bytes(), "y, len {len}");
        assert_eq!(hash_to_group(&[msg], dst).unwrap(), expected, "hash_to_group, len {len}");
        for k in special_scalars().into_iter().chain([scalar(len as u64)]) {
            let (p, bytes) = hash_mul(&[msg], dst, &k).unwrap();
            let q = expected * k;
            assert_eq!(p, q, "point, len {len}");
            assert_eq!(&bytes[..], &q.to_bytes()[..], "encoding, len {len}");
        }
    }
    assert!(hash_mul(&[b"x"], dst, &Scalar::ZERO).is_err());
}
