//! Replays the committed fuzz seed corpus through the same property checks the
//! cargo-fuzz targets run, so a regression is caught by a plain `cargo test`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

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
    let targets: Vec<_> = pat::fuzzing::TARGETS.iter().map(|(n, _)| n.to_string()).collect();
    for entry in std::fs::read_dir(&root).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        assert!(targets.contains(&name), "corpus {name} has no fuzz target");
    }
}
