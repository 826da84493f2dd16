//! Replays the differential target's committed corpus (`corpus/differential/`)
//! through the same comparison the fuzz target runs, on stable, with no fuzzer:
//! `cargo test --lib` in `fuzz/` (CI runs it; a unit test, so the fuzz target
//! binaries are not built). Also checks that the seeds still need every
//! divergence rule and that every message kind has a seed both libraries
//! accept.

use std::collections::BTreeSet;

use crate::differential::{KINDS, RULES, check};

#[test]
fn replay_differential_corpus() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus/differential");
    let mut rules = BTreeSet::new();
    let mut agreed = BTreeSet::new();
    let mut count = 0;
    for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
        let path = entry.unwrap().path();
        let report = check(&std::fs::read(&path).unwrap());
        rules.extend(report.rules.iter().copied());
        if report.pat_accepts && report.privacypass_accepts {
            agreed.extend(report.kind.map(|k| format!("{k:?}")));
        }
        count += 1;
    }
    println!("{count} inputs; rules used: {rules:?}");
    for rule in RULES {
        assert!(rules.contains(&rule), "no seed exercises the divergence rule {rule:?}");
    }
    for kind in KINDS {
        assert!(agreed.contains(&format!("{kind:?}")), "no seed of kind {kind:?} that both accept");
    }
}
