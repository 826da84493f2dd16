//! Every `ct::declassify` call in `src/` is listed in `ctgrind/DECLASSIFIED.md`
//! (file, enclosing function, argument), and every listed call exists.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::collections::BTreeMap;
use std::fs;
use std::path::Path;

type Site = (String, String, String);

fn count(map: &mut BTreeMap<Site, usize>, site: Site) {
    *map.entry(site).or_default() += 1;
}

fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// (file, nearest enclosing `fn`, argument) of each call in `src/`.
fn call_sites(root: &Path) -> BTreeMap<Site, usize> {
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    let mut sites = BTreeMap::new();
    for path in files {
        let rel = path.strip_prefix(root).unwrap().to_str().unwrap().replace('\\', "/");
        if rel == "src/ct.rs" {
            continue;
        }
        let mut function = String::new();
        for line in fs::read_to_string(&path).unwrap().lines() {
            if let Some(pos) = line.find("fn ") {
                let name: String = line[pos + 3..].chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect();
                if !name.is_empty() && (pos == 0 || !line.as_bytes()[pos - 1].is_ascii_alphanumeric()) {
                    function = name;
                }
            }
            if let Some(pos) = line.find("ct::declassify(") {
                let rest = &line[pos + "ct::declassify(".len()..];
                let arg = rest[..rest.find(')').expect("one-line call")].trim().to_string();
                count(&mut sites, (rel.clone(), function.clone(), arg));
            }
        }
    }
    sites
}

/// The rows `| src/... | function | argument | ... |` of the table.
fn listed(root: &Path) -> BTreeMap<Site, usize> {
    let text = fs::read_to_string(root.join("ctgrind/DECLASSIFIED.md")).unwrap();
    let mut rows = BTreeMap::new();
    for line in text.lines().filter(|l| l.starts_with("| src/")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        count(&mut rows, (cells[1].to_string(), cells[2].to_string(), cells[3].to_string()));
    }
    rows
}

#[test]
fn every_declassification_is_documented() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let sites = call_sites(root);
    let rows = listed(root);
    assert!(!sites.is_empty(), "no call sites found");
    let missing: Vec<_> = sites.iter().filter(|(k, n)| rows.get(*k) != Some(n)).collect();
    let stale: Vec<_> = rows.iter().filter(|(k, n)| sites.get(*k) != Some(n)).collect();
    assert!(missing.is_empty(), "calls in src/ not (or not as often) listed in ctgrind/DECLASSIFIED.md: {missing:?}");
    assert!(stale.is_empty(), "rows of ctgrind/DECLASSIFIED.md with no (or fewer) calls in src/: {stale:?}");
}
