//! `hash_to_curve` for P-384, suite `P384_XMD:SHA-384_SSWU_RO_` (RFC 9380
//! §8.3), into Jacobian coordinates: `hash_to_field` (RFC 9380 §5.2, `p384`'s
//! own, with `expand_message_xmd` over SHA-384), two simplified SWU maps
//! (§6.6.2, the straight-line version of Appendix F.2 for `q ≡ 3 (mod 4)`)
//! and one addition. The cofactor is 1.
//!
//! # Why not `p384`'s `hash_from_bytes`
//!
//! It is correct and constant time, and this module gives the same points
//! (the RFC vectors and `tests::hash_to_curve_matches_p384` check it). Two
//! things make it cost more than the multiplication that follows it needs:
//! `primeorder::osswu` raises to `c1 = (p − 3)/4` with `pow_vartime`, square
//! and multiply over an exponent with 317 one bits (383 squarings and 317
//! multiplications), and it divides `x` by the map's denominator with a full
//! inversion per map. Here the power is an addition chain (383 squarings,
//! 13 multiplications, [`Fe::pow_c1`]) and the map's result stays a fraction,
//! `Z = tv4`: no inversion per map (the multiplication that follows inverts
//! twice, once for its table and once to normalize the product). Measured with callgrind (`examples/issuer_profile.rs`, 4 calls,
//! 2026-12-01): see `docs/reports/2026-12-01-perf-notes-type1.md`.

use p384::elliptic_curve::consts::{U24, U72};
use p384::hash2curve::{ExpandMsgXmd, hash_to_field};
use sha2::Sha384;
use subtle::{Choice, ConditionallySelectable, ConstantTimeEq};

use super::field::P384Fe;
use super::point::{Fe, Jacobian};
use crate::error::{Error, Field, Result};

/// `A = −3` of P-384 (RFC 9380 §8.3: the map runs on the curve itself). The
/// constants are given in Montgomery form (`x·2^384 mod p`; the field's tests
/// check them against their plain values).
pub(super) const A: Fe = Fe::from_montgomery_hex(
    "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffbfffffffc0000000000000003fffffffc",
);
/// `B` of P-384.
pub(super) const B: Fe = Fe::from_montgomery_hex(
    "cd08114b604fbff9b62b21f41f022094e3374bee94938ae277f2209b1920022ef729add87a4c32ec081188719d412dcc",
);
/// `Z = −12` (RFC 9380 §8.3).
pub(super) const Z: Fe = Fe::from_montgomery_hex(
    "fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff2fffffff3000000000000000cfffffff3",
);
/// `c2 = sqrt(−Z)` (RFC 9380 Appendix F.2.1.2, `q ≡ 3 mod 4`).
pub(super) const C2: Fe = Fe::from_montgomery_hex(
    "d78fa36b3ae40b98e428a383c093fceaacb3a761476b11b689cb6776d4183d32fdf2313b4c08f6471cdf6f1cc0a3f1f8",
);

/// `sqrt_ratio(u, v)` for `q ≡ 3 (mod 4)` (RFC 9380 Appendix F.2.1.2):
/// whether `u/v` is a square, and `sqrt(u/v)` if it is, else
/// `sqrt(Z·u/v)`.
fn sqrt_ratio(u: Fe, v: Fe) -> (Choice, Fe) {
    let tv1 = v.square();
    let tv2 = u * v;
    let tv1 = tv1 * tv2;
    let y1 = tv1.pow_c1() * tv2;
    let y2 = y1 * C2;
    let tv3 = y1.square() * v;
    let is_qr = tv3.ct_eq(&u);
    (is_qr, Fe::conditional_select(&y2, &y1, is_qr))
}

/// `map_to_curve_simple_swu(u)` (RFC 9380 Appendix F.2, the steps numbered
/// as there), returning `(x, y) = (xn/tv4, y)` as the Jacobian point
/// `(xn·tv4, y·tv4³, tv4)` instead of dividing. `tv4` is never zero: it is
/// `A·Z` or `−A·tv2` with `tv2 ≠ 0`.
pub(super) fn map_to_curve(u: &Fe) -> Jacobian {
    let tv1 = Z * u.square(); // 1, 2
    let tv2 = tv1.square() + tv1; // 3, 4
    let tv3 = B * (tv2 + Fe::ONE); // 5, 6
    let tv4 = A * Fe::conditional_select(&Z, &-tv2, !tv2.is_zero()); // 7, 8
    let tv6 = tv4.square(); // 10
    let tv2 = (tv3.square() + A * tv6) * tv3; // 9, 11, 12, 13
    let tv6 = tv6 * tv4; // 14
    let tv2 = tv2 + B * tv6; // 15, 16
    let x = tv1 * tv3; // 17
    let (is_gx1_square, y1) = sqrt_ratio(tv2, tv6); // 18
    let y = tv1 * *u * y1; // 19, 20
    let x = Fe::conditional_select(&x, &tv3, is_gx1_square); // 21
    let y = Fe::conditional_select(&y, &y1, is_gx1_square); // 22
    let e1 = u.is_odd().ct_eq(&y.is_odd()); // 23
    let y = Fe::conditional_select(&-y, &y, e1); // 24
    // 25 would be x = x / tv4.
    Jacobian::from_fraction(x, y * tv4, tv4)
}

/// `hash_to_curve(msg)` with the given DST (RFC 9380 §3, §8.3): the sum of
/// the two mapped points, in Jacobian coordinates. The identity (`Z = 0`) comes
/// out only if the two maps give opposite points; the caller checks.
/// `InvalidLength` if `expand_message_xmd` refuses the DST or the length.
pub(super) fn hash_to_curve(msg: &[&[u8]], dst: &[&[u8]]) -> Result<Jacobian> {
    let [u0, u1] = hash_to_field::<2, ExpandMsgXmd<Sha384>, U24, P384Fe, U72>(msg, dst)
        .map_err(|_| Error::InvalidLength(Field::Message))?;
    let (u0, u1) = (Fe::from_p384(&u0), Fe::from_p384(&u1));
    let q0 = map_to_curve(&u0);
    let q1 = map_to_curve(&u1);
    // Q0 = Q1 (the formula's doubling case) needs two field elements with the
    // same image: selected, not excluded, at the cost of one doubling.
    let (sum, doubling) = q0.add(&q1);
    Ok(Jacobian::conditional_select(&sum, &q0.double(), doubling))
}
