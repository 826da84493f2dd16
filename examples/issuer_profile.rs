//! A fixed workload for instruction-count profiling of the VOPRF roles
//! (`valgrind --tool=callgrind`), not a benchmark:
//!
//! ```text
//! cargo build --release --example issuer_profile
//! valgrind --tool=callgrind target/release/examples/issuer_profile p384 issuer 1
//! ```
//!
//! Arguments: suite (`p384` | `r255`), role (`issuer` | `finalize` |
//! `request` | `verify`), batch size. Setup (keys, blinded elements, one evaluation) runs
//! once before the measured role, which runs `ITERS` times; everything is
//! deterministic, so counts are comparable between builds.
#![allow(
    clippy::unwrap_used,
    clippy::cast_possible_truncation,
    clippy::indexing_slicing,
    clippy::panic,
    clippy::std_instead_of_core,
    missing_docs
)]

use std::hint::black_box;

use pat::crypto::voprf::{self, ByteArray, Element, P384Sha384, Ristretto255Sha512, Suite};
use pat_testkit::TestRng;

/// Repetitions of the measured role.
const ITERS: usize = 4;

fn run<S: Suite>(role: &str, n: usize) {
    let mut rng = TestRng::new(0x1234_5678_9abc_def1);
    let kp = voprf::derive_key_pair::<S>(&[1; 32], b"info").unwrap();
    let inputs: Vec<Vec<u8>> = (0..n).map(|i| vec![i as u8; 98]).collect();
    let refs: Vec<&[u8]> = inputs.iter().map(Vec::as_slice).collect();
    let (blinds, blinded): (Vec<_>, Vec<_>) = inputs.iter().map(|i| voprf::blind::<S, _>(i, &mut rng).unwrap()).unzip();
    let blinded_bytes: Vec<S::ElementBytes> = blinded.iter().map(|e| *e.as_bytes()).collect();
    let mut ev = vec![S::ElementBytes::ZERO; n];
    let proof = voprf::blind_evaluate(&kp, &blinded, &mut ev, &mut rng).unwrap();
    let mut out = vec![S::Output::ZERO; n];
    if role == "verify" {
        for (o, i) in out.iter_mut().zip(&refs) {
            *o = voprf::evaluate(kp.secret_key(), i).unwrap();
        }
    }
    measured(role, &kp, &refs, &blinds, &blinded, &blinded_bytes, &mut ev, &proof, &mut out, &mut rng);
    black_box(&out);
}

/// The measured part (`--toggle-collect='*measured*'`).
#[inline(never)]
#[allow(clippy::too_many_arguments)]
fn measured<S: Suite>(
    role: &str,
    kp: &voprf::KeyPair<S>,
    refs: &[&[u8]],
    blinds: &[voprf::Blind<S>],
    blinded: &[Element<S>],
    blinded_bytes: &[S::ElementBytes],
    ev: &mut [S::ElementBytes],
    proof: &voprf::Proof<S>,
    out: &mut [S::Output],
    rng: &mut TestRng,
) {
    for _ in 0..ITERS {
        match role {
            // Parse the blinded elements, evaluate, prove (the issuer's work).
            "issuer" => {
                let parsed: Vec<Element<S>> =
                    black_box(&blinded_bytes).iter().map(|e| Element::from_bytes(e).unwrap()).collect();
                black_box(voprf::blind_evaluate(kp, &parsed, ev, rng).unwrap());
            }
            // Parse the evaluated elements, verify, unblind (the client's work).
            "finalize" => {
                let evs: Vec<Element<S>> = black_box(&*ev).iter().map(|e| Element::from_bytes(e).unwrap()).collect();
                voprf::finalize(kp.public_key(), refs, blinds, blinded, &evs, proof, out).unwrap();
            }
            "request" => {
                for i in refs {
                    black_box(voprf::blind::<S, _>(i, rng).unwrap());
                }
            }
            // Recompute the PRF and compare (the issuer's redemption check).
            "verify" => {
                for (i, o) in refs.iter().zip(out.iter()) {
                    voprf::verify_output(kp.secret_key(), black_box(i), o).unwrap();
                }
            }
            _ => panic!("role: issuer | finalize | request | verify"),
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let suite = args.get(1).map_or("p384", String::as_str);
    let role = args.get(2).map_or("issuer", String::as_str);
    let n = args.get(3).map_or(1, |s| s.parse().unwrap());
    match suite {
        "p384" => run::<P384Sha384>(role, n),
        "r255" => run::<Ristretto255Sha512>(role, n),
        _ => panic!("suite: p384 | r255"),
    }
}
