//! One hazmat fence: the library declares one `hazmat` module, in `lib.rs`,
//! behind `#[cfg(feature = "hazmat")]`; every other mention of the feature
//! in the sources only silences dead-code warnings on a crate-private
//! `deterministic` module (the implementations the fence re-exports and the
//! power-on self-test calls); and every leaf of `src/hazmat/` opens with its
//! warning and re-exports one such module.
#![allow(clippy::unwrap_used, clippy::panic, clippy::std_instead_of_core, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn relative(path: &Path) -> String {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    path.strip_prefix(&src).unwrap().to_string_lossy().replace('\\', "/")
}

#[test]
fn one_hazmat_fence() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    sources(&src, &mut files);
    files.sort();
    let mut fences = Vec::new();
    let mut deterministic = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let code = line.trim();
            if code.starts_with("//") {
                continue;
            }
            let next = lines.get(i + 1).map(|l| l.trim());
            if code.contains("mod hazmat") {
                fences.push(format!("{}:{}", relative(file), i + 1));
            }
            if !code.contains("feature = \"hazmat\"") {
                continue;
            }
            match code {
                "#[cfg(feature = \"hazmat\")]" if next == Some("pub mod hazmat;") => {
                    assert_eq!(relative(file), "lib.rs", "the fence is declared in lib.rs only");
                }
                "#[cfg_attr(not(feature = \"hazmat\"), allow(dead_code))]"
                    if next == Some("pub(crate) mod deterministic;") =>
                {
                    deterministic.push(relative(&file.parent().unwrap().join("deterministic.rs")));
                }
                _ => panic!("{}:{}: `hazmat` gates something other than the fence: {line}", relative(file), i + 1),
            }
        }
    }
    assert!(fences.len() == 1 && fences[0].starts_with("lib.rs:"), "exactly one `mod hazmat`, in lib.rs: {fences:?}");

    // Every deterministic module is re-exported by exactly one leaf of the
    // fence, which carries the warning.
    let mut leaves = Vec::new();
    sources(&src.join("hazmat"), &mut leaves);
    let mut exported = Vec::new();
    for leaf in leaves.iter().filter(|p| p.file_name().unwrap() != "mod.rs") {
        let text = std::fs::read_to_string(leaf).unwrap();
        assert!(text.starts_with("//! # Hazardous"), "{}: no warning banner", relative(leaf));
        assert!(text.contains("**Never use"), "{}: the banner does not say what not to do", relative(leaf));
        let module = text
            .lines()
            .find_map(|l| l.strip_prefix("pub use crate::"))
            .and_then(|l| l.split("::deterministic").next())
            .unwrap_or_else(|| panic!("{}: re-exports no deterministic module", relative(leaf)));
        exported.push(format!("{}/deterministic.rs", module.replace("::", "/")));
    }
    deterministic.sort();
    exported.sort();
    assert_eq!(deterministic.len(), 10, "{deterministic:?}");
    assert_eq!(exported, deterministic);
}
