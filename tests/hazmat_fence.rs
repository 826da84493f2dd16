//! The `hazmat` feature gates the `hazmat` modules and nothing else: every
//! `feature = "hazmat"` in the library's sources is the attribute of a
//! `pub mod hazmat;` line, or of the crate-private declaration of the same
//! module for the power-on self-test (`pub(crate) mod hazmat;`, under
//! `#[cfg(not(feature = "hazmat"))]`), and every such module opens with its
//! warning.
#![allow(clippy::unwrap_used, clippy::panic, clippy::std_instead_of_core)]

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

#[test]
fn hazmat_gates_only_the_hazmat_modules() {
    let mut files = Vec::new();
    sources(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
    let mut modules = Vec::new();
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            if !line.contains("feature = \"hazmat\"") || line.trim_start().starts_with("//") {
                continue;
            }
            let next = lines.get(i + 1).map(|l| l.trim());
            match line.trim() {
                // Public in tests and with the feature (the modules no self-test needs).
                "#[cfg(any(test, feature = \"hazmat\"))]" if next == Some("pub mod hazmat;") => {}
                // Public with the feature...
                "#[cfg(feature = \"hazmat\")]" if next == Some("pub mod hazmat;") => {}
                // ...and crate-private without it, for the self-test.
                "#[cfg(not(feature = \"hazmat\"))]"
                    if next == Some("#[allow(dead_code)]")
                        && lines.get(i + 2).map(|l| l.trim()) == Some("pub(crate) mod hazmat;") =>
                {
                    continue;
                }
                _ => {
                    panic!("{}:{}: `hazmat` gates something other than a hazmat module: {line}", file.display(), i + 1)
                }
            }
            let dir = file.parent().unwrap();
            let module = if file.file_name().unwrap() == "mod.rs" || file.file_name().unwrap() == "lib.rs" {
                dir.join("hazmat.rs")
            } else {
                dir.join(file.file_stem().unwrap()).join("hazmat.rs")
            };
            modules.push(module);
        }
    }
    // One per protocol module: voprf, blind_rsa, rate_limited, arc and the
    // token types private, public, amortized, rate_limited and metadata.
    assert_eq!(modules.len(), 9, "{modules:?}");
    for module in &modules {
        let text = std::fs::read_to_string(module).unwrap_or_else(|e| panic!("{}: {e}", module.display()));
        assert!(text.starts_with("//! # Hazardous"), "{}: no warning banner", module.display());
        assert!(text.contains("**Never use"), "{}: the banner does not say what not to do", module.display());
    }
}
