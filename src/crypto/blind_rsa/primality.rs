//! A probable-prime test on fixed-size integers: the Baillie–PSW
//! combination, for the safe-prime check of a partially blind RSA signing
//! key ([`super::partial`], [`super::RsaSecretKey::check_safe_primes_vartime`]).
//!
//! [`is_probable_prime_vartime`] runs, on an odd n:
//!
//! 1. trial division by the odd primes below 256 (which also decides every
//!    n below 257²);
//! 2. the strong probable-prime test to base 2 (one round of Miller–Rabin,
//!    FIPS 186-4 Appendix C.3.1, with the base fixed to 2);
//! 3. the Lucas probable-prime test with Selfridge's parameters: the first
//!    D of 5, −7, 9, −11, … whose Jacobi symbol (D | n) is −1, P = 1,
//!    Q = (1 − D)/4, and n is accepted if U(n + 1) ≡ 0 (mod n) (FIPS 186-4
//!    Appendix C.3.3, which first refuses perfect squares, for which no
//!    such D exists).
//!
//! This is the test of Baillie and Wagstaff, "Lucas pseudoprimes" (Math.
//! Comp. 35, 1980): no composite is known that passes both 2 and 3.
//!
//! # Why not `crypto-primes`
//!
//! `crypto-primes`' `is_prime` would do the job: it runs the same family of
//! tests (Miller–Rabin to base 2, then a strong Lucas test), and key
//! generation (`keygen`) uses it. But the check must run in every type
//! 0xDA7A issuer, so it cannot sit behind an optional feature, and
//! `crypto-primes` cannot become a required dependency: the versions that
//! need no allocator (0.7.1 and later) conflict with the `crypto-primes
//! =0.7.0` that `blind-rsa-signatures` pins, which the `fuzz` and
//! `bench-peers` crates pull in through `privacypass` (Cargo allows one
//! 0.7.x per build). The unit tests below give both tests the same integers
//! and require the same verdict; `tests/pbrsa_safe_primes.rs` times them.
//!
//! # Constant time
//!
//! None of it: every step branches on n and its residues. It runs once when
//! a key is checked (on the signer's own primes, which no request reaches),
//! never while signing.

use crypto_bigint::modular::{FixedMontyForm, FixedMontyParams};
use crypto_bigint::{I64, JacobiSymbol, Limb, NonZero, Odd, Uint};

/// The odd primes below 256.
const SMALL_PRIMES: [u8; 53] = [
    3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 101, 103, 107, 109,
    113, 127, 131, 137, 139, 149, 151, 157, 163, 167, 173, 179, 181, 191, 193, 197, 199, 211, 223, 227, 229, 233, 239,
    241, 251,
];

/// 257²: below it, an odd n with no factor among [`SMALL_PRIMES`] is prime.
const TRIAL_DIVISION_BOUND: u32 = 257 * 257;

/// How many D the Selfridge search tries (|D| < 2^16, so D < n). For an n
/// that is not a square, the first D with (D | n) = −1 comes after fewer
/// than two tries on average; running out refuses n.
const MAX_SELFRIDGE_TRIES: u32 = 1 << 14;

/// Whether `n` is prime, by the Baillie–PSW test of the module docs
/// (certain below 257², probable above). Variable time in `n`.
pub(crate) fn is_probable_prime_vartime<const N: usize>(n: &Uint<N>) -> bool {
    let Some(odd) = Odd::new(*n).into_option() else {
        // The only even prime.
        return *n == Uint::from_u8(2);
    };
    for p in SMALL_PRIMES {
        if *n == Uint::from_u8(p) {
            return true;
        }
        let Some(divisor) = NonZero::new(Limb::from_u8(p)).into_option() else {
            return false;
        };
        if n.rem_limb(divisor) == Limb::ZERO {
            return false;
        }
    }
    if *n == Uint::ONE {
        return false;
    }
    if *n < Uint::from_u32(TRIAL_DIVISION_BOUND) {
        return true;
    }
    let params = FixedMontyParams::new_vartime(odd);
    strong_probable_prime_base_2_vartime(n, &params) && lucas_probable_prime_vartime(n, &params)
}

/// The strong probable-prime test to base 2 (Miller–Rabin with a = 2):
/// with n − 1 = 2^s·d, d odd, n passes if 2^d ≡ 1 or 2^(d·2^r) ≡ −1
/// (mod n) for some 0 ≤ r < s. `params` are those of the odd n > 2.
fn strong_probable_prime_base_2_vartime<const N: usize>(n: &Uint<N>, params: &FixedMontyParams<N>) -> bool {
    let one = FixedMontyForm::one(params);
    let minus_one = one.neg();
    let n_minus_1 = n.wrapping_sub(&Uint::ONE);
    let s = n_minus_1.trailing_zeros_vartime();
    let d = n_minus_1.wrapping_shr_vartime(s);
    let mut x = FixedMontyForm::new(&Uint::from_u8(2), params).pow_vartime(&d);
    if x == one || x == minus_one {
        return true;
    }
    for _ in 1..s {
        x = x.square();
        if x == minus_one {
            return true;
        }
        if x == one {
            // A square root of 1 other than ±1: n is composite.
            return false;
        }
    }
    false
}

/// The Lucas probable-prime test of FIPS 186-4 Appendix C.3.3 with
/// Selfridge's parameters (P = 1, Q = (1 − D)/4): n passes if it is not a
/// square and U(n + 1) ≡ 0 (mod n). `params` are those of the odd n, which
/// must exceed 2^16 (so that no D tried is a multiple of n).
fn lucas_probable_prime_vartime<const N: usize>(n: &Uint<N>, params: &FixedMontyParams<N>) -> bool {
    // C.3.3 step 1: a square has no D with (D | n) = −1.
    if n.checked_sqrt_vartime().is_some() {
        return false;
    }
    let odd = params.modulus();
    // Step 2: the first D of 5, −7, 9, −11, … with (D | n) = −1.
    let mut found = None;
    let mut magnitude: u32 = 5;
    for i in 0..MAX_SELFRIDGE_TRIES {
        let d = if i % 2 == 0 { i64::from(magnitude) } else { -i64::from(magnitude) };
        match I64::from_i64(d).jacobi_symbol_vartime(odd) {
            JacobiSymbol::MinusOne => {
                found = Some(d);
                break;
            }
            // (D | n) = 0: D and n share a factor, and n > |D|.
            JacobiSymbol::Zero => return false,
            JacobiSymbol::One => magnitude += 2,
        }
    }
    let Some(d) = found else {
        return false;
    };
    let d_abs = FixedMontyForm::new(&Uint::from_u64(d.unsigned_abs()), params);
    let d_mont = if d < 0 { d_abs.neg() } else { d_abs };
    // Step 3: K = n + 1 (no overflow: n = 2^(64·N) − 1 is a multiple of 3,
    // refused by the trial division).
    let (k, carry) = n.carrying_add(&Uint::ONE, Limb::ZERO);
    if carry != Limb::ZERO {
        return false;
    }
    // Steps 4 and 5: U_1 = 1 and V_1 = P = 1, then over the bits of K below
    // its top one, doubling (U_2j = U_j·V_j, V_2j = (V_j² + D·U_j²)/2) and,
    // for a set bit, adding one (U_(j+1) = (U_j + V_j)/2,
    // V_(j+1) = (V_j + D·U_j)/2), all modulo n.
    let mut u = FixedMontyForm::one(params);
    let mut v = FixedMontyForm::one(params);
    for i in (0..k.bit_width_vartime().saturating_sub(1)).rev() {
        let u2 = u.mul(&v);
        let v2 = v.square().add(&d_mont.mul(&u.square())).div_by_2();
        if k.bit_vartime(i) {
            u = u2.add(&v2).div_by_2();
            v = v2.add(&d_mont.mul(&u2)).div_by_2();
        } else {
            u = u2;
            v = v2;
        }
    }
    // Step 6.
    u == FixedMontyForm::zero(params)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use crypto_bigint::{U64, U1024};

    use super::*;

    /// Composites below 20 000 that pass the Lucas test with Selfridge's
    /// parameters (OEIS A217120; recomputed with sympy's `is_lucas_prp`).
    const LUCAS_PSEUDOPRIMES: [u64; 19] = [
        323, 377, 1159, 1829, 3827, 5459, 5777, 9071, 9179, 10877, 11419, 11663, 13919, 14839, 16109, 16211, 18407,
        18971, 19043,
    ];

    /// Composites below 100 000 that pass the strong test to base 2 (OEIS
    /// A001262; recomputed with sympy's `mr(n, [2])`).
    const STRONG_PSEUDOPRIMES_BASE_2: [u64; 16] =
        [2047, 3277, 4033, 4681, 8321, 15841, 29341, 42799, 49141, 52633, 65281, 74665, 80581, 85489, 88357, 90751];

    fn params<const N: usize>(n: &Uint<N>) -> FixedMontyParams<N> {
        FixedMontyParams::new_vartime(Odd::new(*n).unwrap())
    }

    fn is_prime_u64(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    /// Every n below 70 000 (past the trial-division bound 257²) against
    /// trial division by every candidate factor.
    #[test]
    fn agrees_with_trial_division_below_70000() {
        for n in 0..70_000u64 {
            assert_eq!(is_probable_prime_vartime(&U64::from_u64(n)), is_prime_u64(n), "n = {n}");
        }
    }

    /// Each half of the test on its own, on the published pseudoprimes of
    /// the other half: this checks that each is the textbook test (its own
    /// pseudoprimes pass it) and that their combination refuses them all.
    #[test]
    fn each_half_passes_exactly_the_primes_and_its_pseudoprimes() {
        for n in (3..100_000u64).step_by(2) {
            let x = U64::from_u64(n);
            let expect = is_prime_u64(n) || STRONG_PSEUDOPRIMES_BASE_2.contains(&n);
            assert_eq!(strong_probable_prime_base_2_vartime(&x, &params(&x)), expect, "base 2, n = {n}");
        }
        // From 101 up, so that the D tried stay below n.
        for n in (101..20_000u64).step_by(2) {
            let x = U64::from_u64(n);
            let expect = is_prime_u64(n) || LUCAS_PSEUDOPRIMES.contains(&n);
            assert_eq!(lucas_probable_prime_vartime(&x, &params(&x)), expect, "Lucas, n = {n}");
        }
        for n in LUCAS_PSEUDOPRIMES.into_iter().chain(STRONG_PSEUDOPRIMES_BASE_2) {
            assert!(!is_probable_prime_vartime(&U64::from_u64(n)), "{n}");
        }
    }

    /// Perfect squares of primes (no D has (D | n) = −1) and of composites.
    #[test]
    fn squares_are_refused() {
        for root in [257u64, 65_537, 1_000_003, 4_294_967_291] {
            let x = U64::from_u64(root).widening_mul(&U64::from_u64(root));
            let square: Uint<{ 2 * U64::LIMBS }> = x.0.concat_resize(&x.1);
            assert!(!is_probable_prime_vartime(&square), "{root}²");
            assert!(!lucas_probable_prime_vartime(&square, &params(&square)), "{root}²");
        }
    }

    /// Large known primes (Mersenne primes 2^p − 1 up to 1024 bits, the
    /// largest 1024-bit prime 2^1024 − 105) and composites next to them.
    #[test]
    fn large_primes_and_their_neighbours() {
        for p in [61u32, 89, 107, 127, 521, 607] {
            let m = U1024::ONE.shl_vartime(p).wrapping_sub(&U1024::ONE);
            assert!(is_probable_prime_vartime(&m), "2^{p} − 1");
            assert!(!is_probable_prime_vartime(&m.wrapping_add(&U1024::from_u8(2))), "2^{p} + 1");
        }
        // 2^67 − 1 = 193707721 · 761838257287, 2^1024 − 1 (a multiple of 3).
        assert!(!is_probable_prime_vartime(&U1024::ONE.shl_vartime(67).wrapping_sub(&U1024::ONE)));
        assert!(!is_probable_prime_vartime(&U1024::MAX));
        let top = U1024::MAX.wrapping_sub(&U1024::from_u8(104));
        assert!(is_probable_prime_vartime(&top), "2^1024 − 105");
        for k in (2..104u8).step_by(2) {
            assert!(!is_probable_prime_vartime(&top.wrapping_add(&U1024::from_u8(k))), "2^1024 − 105 + {k}");
        }
    }

    /// The same verdict as `crypto-primes` (the test build enables
    /// `keygen`) on reproducible odd integers: from a random start of 64,
    /// 200, 512, 1023 and 1024 bits, every odd integer up to the next prime;
    /// then the product of two of the 512-bit primes found (a composite with
    /// no small factor).
    #[cfg(feature = "keygen")]
    #[test]
    fn same_verdict_as_crypto_primes() {
        extern crate std;
        use std::vec::Vec;

        use crypto_primes::{Flavor, is_prime};

        use crate::crypto::blind_rsa::test_rng::TestInts;
        let mut ints = TestInts::new(0x5afe);
        let mut primes: Vec<U1024> = Vec::new();
        for bits in [64u32, 200, 512, 512, 1023, 1024] {
            let top = U1024::ONE.shl_vartime(bits - 1);
            let mut x =
                ints.uint::<{ U1024::LIMBS }>().wrapping_shr_vartime(U1024::BITS - bits).bitor(&top).bitor(&U1024::ONE);
            let mut steps = 0;
            loop {
                let ours = is_probable_prime_vartime(&x);
                assert_eq!(ours, is_prime(Flavor::Any, &x), "{x}");
                if ours {
                    primes.push(x);
                    break;
                }
                x = x.wrapping_add(&U1024::from_u8(2));
                steps += 1;
                assert!(steps < 100_000, "no prime after {bits}-bit start");
            }
        }
        let (p, q) = (
            primes[2].resize::<{ crypto_bigint::U512::LIMBS }>(),
            primes[3].resize::<{ crypto_bigint::U512::LIMBS }>(),
        );
        let (lo, hi) = p.widening_mul(&q);
        let n: U1024 = lo.concat(&hi);
        assert!(!is_probable_prime_vartime(&n));
        assert!(!is_prime(Flavor::Any, &n));
    }
}
