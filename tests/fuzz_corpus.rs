//! Replays the committed fuzz seed corpus through the same property checks the
//! cargo-fuzz targets run, so a regression is caught by a plain `cargo test`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

/// Fuzz targets whose check lives in the fuzz crate (it needs a std-only
/// reference implementation); `cargo test --lib` in `fuzz/` replays their corpus.
const FUZZ_CRATE_ONLY: [&str; 1] = ["differential"];

#[test]
fn replay_seed_corpus() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    for (name, check) in pat::fuzzing::TARGETS {
        let dir = root.join(name);
        let mut count = 0;
        for entry in std::fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let path = entry.unwrap().path();
            check(&std::fs::read(&path).unwrap());
            count += 1;
        }
        assert!(count > 0, "no corpus for fuzz target {name}");
        // Every fuzz target has a corpus and every corpus a target.
        assert!(root.join(name).is_dir());
    }
    let mut targets: Vec<_> = pat::fuzzing::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    targets.extend(FUZZ_CRATE_ONLY.iter().map(|n| n.to_string()));
    for entry in std::fs::read_dir(&root).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(targets.contains(&name), "corpus {name} has no fuzz target");
    }
    // Every shim in fuzz/fuzz_targets/ is one of them, and the other way round.
    let shims = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    let mut names: Vec<_> = std::fs::read_dir(&shims)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap().trim_end_matches(".rs").to_string())
        .collect();
    names.sort();
    targets.sort();
    assert_eq!(names, targets);
}
