//! Rough VOPRF timings (not a benchmark).
#![allow(clippy::unwrap_used, clippy::cast_possible_truncation, clippy::indexing_slicing)]
use std::time::Instant;

use curve25519_dalek::ristretto::RistrettoPoint;
use curve25519_dalek::scalar::Scalar;
use pat::crypto::voprf::{self, ByteArray, Element, P384Sha384, Ristretto255Sha512, Suite};
use pat_testkit::TestRng;

fn time<F: FnMut()>(name: &str, iters: u32, mut f: F) {
    f();
    let t = Instant::now();
    for _ in 0..iters {
        f();
    }
    println!("{name:40} {:>9.1} us", t.elapsed().as_secs_f64() * 1e6 / f64::from(iters));
}

fn run<S: Suite>(iters: u32) {
    let mut rng = TestRng::new(0x1234_5678_9abc_def1);
    let kp = voprf::derive_key_pair::<S>(&[1; 32], b"info").unwrap();
    for n in [1usize, 10] {
        let inputs: Vec<Vec<u8>> = (0..n).map(|i| vec![i as u8; 32]).collect();
        let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
        let (blinds, blinded): (Vec<_>, Vec<_>) =
            inputs.iter().map(|i| voprf::blind::<S, _>(i, &mut rng).unwrap()).unzip();
        let mut ev = vec![S::ElementBytes::ZERO; n];
        let proof = voprf::blind_evaluate(&kp, &blinded, &mut ev, &mut rng).unwrap();
        let evs: Vec<Element<S>> = ev.iter().map(|e| Element::from_bytes(e).unwrap()).collect();
        let mut out = vec![S::Output::ZERO; n];
        if n == 1 {
            time(&format!("{} blind", S::ID), iters, || {
                voprf::blind::<S, _>(&inputs[0], &mut rng).unwrap();
            });
            time(&format!("{} evaluate", S::ID), iters, || {
                voprf::evaluate(kp.secret_key(), &inputs[0]).unwrap();
            });
        }
        time(&format!("{} blind_evaluate n={n}", S::ID), iters, || {
            voprf::blind_evaluate(&kp, &blinded, &mut ev, &mut rng).unwrap();
        });
        time(&format!("{} finalize n={n}", S::ID), iters, || {
            voprf::finalize(kp.public_key(), &refs, &blinds, &blinded, &evs, &proof, &mut out).unwrap();
        });
    }
}

fn main() {
    run::<P384Sha384>(50);
    run::<Ristretto255Sha512>(200);
    let g = RistrettoPoint::mul_base(&Scalar::from(12345u64));
    let h = RistrettoPoint::mul_base(&Scalar::from(67890u64));
    let a = Scalar::from_bytes_mod_order([7; 32]);
    let b = Scalar::from_bytes_mod_order([9; 32]);
    time("ristretto s*M + c*Z two CT mults", 2000, || {
        core::hint::black_box(g * a + h * b);
    });
    time("ristretto s*M CT mult", 2000, || {
        core::hint::black_box(g * a);
    });
    time("ristretto s*G + c*P dalek vartime", 2000, || {
        core::hint::black_box(RistrettoPoint::vartime_double_scalar_mul_basepoint(&b, &h, &a));
    });
    use p384::elliptic_curve::ops::LinearCombination;
    use p384::{ProjectivePoint, Scalar as PS};
    let pg = ProjectivePoint::GENERATOR * PS::from(5u64);
    let ph = ProjectivePoint::GENERATOR * PS::from(7u64);
    let pa = PS::from(123456789u64) * PS::from(987654321u64).invert().unwrap();
    let pb = PS::from(55555u64).invert().unwrap();
    time("p384 lincomb_vartime 2 terms", 200, || {
        core::hint::black_box(ProjectivePoint::lincomb_vartime(&[(pg, pa), (ph, pb)]));
    });
    time("p384 two CT mults", 200, || {
        core::hint::black_box(pg * pa + ph * pb);
    });
}
