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

/// The seeds of the 0xDA7B targets are the messages of the fixed issuer and
/// client their checks use (`pat::fuzzing::type_da7b_seeds`), so they are
/// written from Rust rather than by `scripts/fuzz-seeds.py`'s Python, under
/// the same names (`seed-` and the first 16
/// hex digits of the input's SHA-256). This test fails when one is missing,
/// or a `seed-` file is not one of them; with `PAT_WRITE_FUZZ_SEEDS=1` it
/// writes them instead (`scripts/fuzz-seeds.py` runs it so).
#[test]
fn type_da7b_seeds_are_committed() {
    use sha2::Digest as _;
    use std::collections::BTreeMap;
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus");
    let mut seeds: BTreeMap<&str, Vec<(String, Vec<u8>)>> = BTreeMap::new();
    pat::fuzzing::type_da7b_seeds(&mut |target, input| {
        let digest = sha2::Sha256::digest(input);
        let name = format!("seed-{}", digest[..8].iter().map(|b| format!("{b:02x}")).collect::<String>());
        seeds.entry(target).or_default().push((name, input.to_vec()));
    });
    let write = std::env::var_os("PAT_WRITE_FUZZ_SEEDS").is_some_and(|v| v == "1");
    for (target, items) in &seeds {
        let dir = root.join(target);
        let committed: Vec<String> = match std::fs::read_dir(&dir) {
            Ok(entries) => entries
                .map(|e| e.unwrap().file_name().into_string().unwrap())
                .filter(|n| n.starts_with("seed-"))
                .collect(),
            Err(_) => Vec::new(),
        };
        if write {
            std::fs::create_dir_all(&dir).unwrap();
            for old in &committed {
                std::fs::remove_file(dir.join(old)).unwrap();
            }
            for (name, input) in items {
                std::fs::write(dir.join(name), input).unwrap();
            }
            println!("{target}: {} seeds", items.len());
            continue;
        }
        for (name, input) in items {
            let path = dir.join(name);
            assert_eq!(
                std::fs::read(&path).ok().as_ref(),
                Some(input),
                "{} is missing or differs (PAT_WRITE_FUZZ_SEEDS=1 cargo test --test fuzz_corpus writes it)",
                path.display()
            );
        }
        for name in &committed {
            assert!(items.iter().any(|(n, _)| n == name), "{target}/{name} is not a seed of pat::fuzzing");
        }
    }
}
