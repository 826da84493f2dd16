//! Every relative link in the project's markdown pages points at a file or
//! folder that exists, so a page moved to `docs/reports/` or a removed file
//! (the stale `bench-peers/RESULTS.md`) cannot leave a dead link behind.
//! Links inside fenced code blocks and links with a scheme (`https:`,
//! `mailto:`) or only an anchor are not checked; an anchor after a path is
//! dropped and the path checked.
#![allow(clippy::unwrap_used, clippy::panic, clippy::std_instead_of_core, clippy::indexing_slicing)]

use std::path::{Path, PathBuf};

/// Folders that hold no pages of ours.
const SKIP: [&str; 5] = ["target", ".git", "node_modules", "corpus", "pkg"];

fn pages(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if path.is_dir() {
            if !SKIP.contains(&name.as_str()) {
                pages(&path, out);
            }
        } else if name.ends_with(".md") {
            out.push(path);
        }
    }
}

/// The relative link targets of a page, code blocks left out.
fn links(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut fenced = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
            continue;
        }
        if fenced {
            continue;
        }
        let mut rest = line;
        while let Some(i) = rest.find("](") {
            rest = &rest[i + 2..];
            let end = rest.find(')').unwrap_or(rest.len());
            let target = &rest[..end];
            rest = &rest[end..];
            let has_scheme = target.split_once(':').is_some_and(|(s, _)| {
                !s.is_empty() && s.chars().all(|c| c.is_ascii_alphanumeric() || c == '+' || c == '-')
            });
            if target.is_empty() || target.starts_with('#') || has_scheme || target.contains(' ') {
                continue;
            }
            out.push(target.split('#').next().unwrap().to_owned());
        }
    }
    out
}

fn dead_links(root: &Path) -> Vec<String> {
    let mut all = Vec::new();
    pages(root, &mut all);
    let mut dead = Vec::new();
    for page in all {
        let text = std::fs::read_to_string(&page).unwrap();
        for link in links(&text) {
            if !page.parent().unwrap().join(&link).exists() {
                dead.push(format!("{}: {link}", page.strip_prefix(root).unwrap().display()));
            }
        }
    }
    dead
}

#[test]
fn every_relative_markdown_link_resolves() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dead = dead_links(root);
    assert!(dead.is_empty(), "dead links:\n{}", dead.join("\n"));
}

#[test]
fn the_check_finds_a_dead_link() {
    let dir = std::env::temp_dir().join(format!("pat-doc-links-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("docs")).unwrap();
    std::fs::write(
        dir.join("docs/a.md"),
        "[ok](../b.md) [web](https://x.example/y) [gone](c.md#part)\n```\n[not a link](z.md)\n```\n",
    )
    .unwrap();
    std::fs::write(dir.join("b.md"), "[self](b.md) [anchor](#top)\n").unwrap();
    let dead = dead_links(&dir);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(dead, vec![format!("docs{}a.md: c.md", std::path::MAIN_SEPARATOR)]);
}
