//! The library's layers, read from its sources: a module imports only from
//! its own layer and those below it, and no two modules import each other
//! (directly or round a longer loop). The same no-cycle rule holds for the
//! modules of pat-http and pat-capi.
//!
//! The layers, bottom to top: the crate-wide modules (`error`, `rng`,
//! `secret`, `ct`, `hex`), `wire`, `crypto`, `tokens`, `deploy`, then
//! `self_test` and the `hazmat` and `fuzzing` fences that reach into all of
//! them. A node of the graph is a module of the second level (`wire::auth`,
//! `crypto::voprf`, `tokens::public`) or a crate-wide module; an edge is a
//! `crate::` path in code (comments, rustdoc and intra-doc links are not
//! imports). `super::` paths stay inside a module's own subtree and are not
//! followed.
//!
//! `checker_catches_an_upward_import_and_a_cycle` runs the same checker on
//! a made-up tree with one of each, so the check is shown to fail.
#![allow(clippy::unwrap_used, clippy::panic, clippy::std_instead_of_core, clippy::indexing_slicing)]

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The rank of each top-level module of the library; a module may use a
/// module of equal or lower rank.
fn rank(top: &str) -> Option<u8> {
    Some(match top {
        "lib" | "error" | "rng" | "secret" | "ct" | "hex" => 0,
        "wire" => 1,
        "crypto" => 2,
        "tokens" => 3,
        "deploy" => 4,
        "self_test" => 5,
        "hazmat" | "fuzzing" => 6,
        _ => return None,
    })
}

/// Modules that are layers (their children are the graph's nodes).
const LAYERS: [&str; 5] = ["wire", "crypto", "tokens", "deploy", "hazmat"];

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

/// The module path of a source file, from its place under `src`.
fn module_of(rel: &Path) -> Vec<String> {
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let file = parts.pop().unwrap();
    let stem = file.strip_suffix(".rs").unwrap();
    if stem != "mod" && !(parts.is_empty() && (stem == "lib" || stem == "main")) {
        parts.push(stem.to_owned());
    }
    if parts.is_empty() {
        parts.push("lib".to_owned());
    }
    parts
}

/// The graph node of a module path: two levels inside a layer, one outside.
fn node(path: &[String], layered: bool) -> String {
    match path {
        [top, second, ..] if layered && LAYERS.contains(&top.as_str()) => format!("{top}::{second}"),
        [top, ..] => top.clone(),
        [] => "lib".to_owned(),
    }
}

/// The code of a line: string literals blanked, without a trailing `//`
/// comment and without whole-line comments.
fn code(line: &str) -> String {
    if line.trim_start().starts_with("//") {
        return String::new();
    }
    let mut out = String::with_capacity(line.len());
    let mut in_string = false;
    let mut prev = ' ';
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        if in_string {
            if c == '"' && prev != '\\' {
                in_string = false;
                out.push('"');
            } else {
                out.push(' ');
            }
        } else if c == '"' {
            in_string = true;
            out.push('"');
        } else if c == '/' && chars.peek() == Some(&'/') {
            break;
        } else {
            out.push(c);
        }
        prev = if prev == '\\' && c == '\\' { ' ' } else { c };
    }
    out
}

fn ident(s: &str) -> &str {
    let end = s.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(s.len());
    &s[..end]
}

/// Every `crate::a::b` path of a source text, as (a, b) with b possibly
/// empty; `crate::{a::b, c}` groups give one path per member.
fn crate_paths(text: &str) -> Vec<(String, String)> {
    let code: String = text.lines().map(code).collect::<Vec<_>>().join("\n");
    let mut out = Vec::new();
    let mut rest = code.as_str();
    while let Some(at) = rest.find("crate::") {
        let before = rest[..at].chars().next_back();
        rest = &rest[at + "crate::".len()..];
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            // Split the group's members at depth 0.
            let mut depth = 0;
            let mut start = 0;
            let mut members = Vec::new();
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        members.push(&group[start..i]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        members.push(&group[start..i]);
                        start = i + 1;
                    }
                    _ => {}
                }
            }
            for member in members {
                let member = member.trim();
                let first = ident(member);
                let after = &member[first.len()..];
                if first.is_empty() || first == "self" {
                    continue;
                }
                match after.strip_prefix("::") {
                    // `a::{b, c::d}`: one path per inner member.
                    Some(inner) if inner.starts_with('{') => {
                        for m in inner.trim_start_matches('{').split(',') {
                            let second = ident(m.trim());
                            out.push((first.to_owned(), if second == "self" { "" } else { second }.to_owned()));
                        }
                    }
                    Some(inner) => out.push((first.to_owned(), ident(inner).to_owned())),
                    None => out.push((first.to_owned(), String::new())),
                }
            }
        } else {
            let first = ident(rest);
            let second = rest[first.len()..].strip_prefix("::").map(ident).unwrap_or("");
            if !first.is_empty() {
                out.push((first.to_owned(), second.to_owned()));
            }
        }
    }
    out
}

/// The module graph of a tree of (relative path, text) pairs.
fn graph(files: &[(PathBuf, String)], layered: bool) -> BTreeMap<String, BTreeSet<String>> {
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, text) in files {
        let from = node(&module_of(rel), layered);
        edges.entry(from.clone()).or_default();
        for (first, second) in crate_paths(text) {
            let target = if second.is_empty() { vec![first] } else { vec![first, second] };
            let to = node(&target, layered);
            if to != from {
                edges.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    // Keep only edges to modules of this tree (not re-exported items such
    // as `crate::Error` or `crate::OsRng`).
    let nodes: BTreeSet<String> = edges.keys().cloned().collect();
    for targets in edges.values_mut() {
        targets.retain(|t| nodes.contains(t));
    }
    edges
}

/// Imports from a higher layer, as "from -> to".
fn upward(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let top = |n: &str| n.split("::").next().unwrap().to_owned();
    let mut out = Vec::new();
    for (from, targets) in edges {
        let rf = rank(&top(from)).unwrap_or_else(|| panic!("module {from} belongs to no layer"));
        for to in targets {
            let rt = rank(&top(to)).unwrap_or_else(|| panic!("module {to} belongs to no layer"));
            if rt > rf {
                out.push(format!("{from} -> {to}"));
            }
        }
    }
    out
}

/// Every cycle found by a depth-first search, as "a -> b -> ... -> a".
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    fn visit(
        n: &str,
        edges: &BTreeMap<String, BTreeSet<String>>,
        stack: &mut Vec<String>,
        done: &mut BTreeSet<String>,
        out: &mut Vec<String>,
    ) {
        if let Some(at) = stack.iter().position(|s| s == n) {
            let mut cycle = stack[at..].to_vec();
            cycle.push(n.to_owned());
            out.push(cycle.join(" -> "));
            return;
        }
        if done.contains(n) {
            return;
        }
        stack.push(n.to_owned());
        for t in edges.get(n).into_iter().flatten() {
            visit(t, edges, stack, done, out);
        }
        stack.pop();
        done.insert(n.to_owned());
    }
    let mut out = Vec::new();
    let mut done = BTreeSet::new();
    for n in edges.keys() {
        visit(n, edges, &mut Vec::new(), &mut done, &mut out);
    }
    out
}

fn read_tree(root: &Path) -> Vec<(PathBuf, String)> {
    let mut files = Vec::new();
    sources(root, &mut files);
    files.sort();
    files
        .into_iter()
        .map(|f| (f.strip_prefix(root).unwrap().to_path_buf(), std::fs::read_to_string(&f).unwrap()))
        .collect()
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn library_layers_hold_and_have_no_cycles() {
    let edges = graph(&read_tree(&repo().join("src")), true);
    // The tree is what the crate doc says it is.
    for layer in LAYERS {
        assert!(edges.keys().any(|n| n.starts_with(&format!("{layer}::"))), "no modules under {layer}");
    }
    assert!(edges.len() > 25, "too few modules found: {edges:?}");
    let up = upward(&edges);
    assert!(up.is_empty(), "imports from a higher layer:\n{}", up.join("\n"));
    let loops = cycles(&edges);
    assert!(loops.is_empty(), "module cycles:\n{}", loops.join("\n"));
}

#[test]
fn service_crates_have_no_module_cycles() {
    for krate in ["http/src", "capi/src"] {
        let edges = graph(&read_tree(&repo().join(krate)), false);
        assert!(edges.len() > 3, "{krate}: too few modules found");
        let loops = cycles(&edges);
        assert!(loops.is_empty(), "{krate}: module cycles:\n{}", loops.join("\n"));
    }
}

#[test]
fn checker_catches_an_upward_import_and_a_cycle() {
    let tree = |files: &[(&str, &str)]| -> Vec<(PathBuf, String)> {
        files.iter().map(|(p, t)| (PathBuf::from(p), (*t).to_owned())).collect()
    };
    let fine = tree(&[
        ("lib.rs", "pub mod wire;\npub mod tokens;"),
        ("wire/codec.rs", "use crate::error::Error;"),
        ("wire/token.rs", "use crate::wire::codec::Reader; // crate::tokens::x in a comment\n"),
        ("tokens/public/mod.rs", "use crate::{wire::{codec::Reader, token::Token}, error::Error};"),
        ("tokens/public/client.rs", "/// [`crate::deploy::replay`]\nuse super::Token;"),
        ("error/mod.rs", "let s = \"crate::tokens::public\"; // \"crate::wire::token\""),
    ]);
    let edges = graph(&fine, true);
    assert!(upward(&edges).is_empty(), "{edges:?}");
    assert!(cycles(&edges).is_empty(), "{edges:?}");
    assert!(edges["tokens::public"].contains("wire::codec") && edges["tokens::public"].contains("wire::token"));

    let mut bad = fine.clone();
    bad.push((PathBuf::from("wire/challenge.rs"), "use crate::tokens::public::Client;".to_owned()));
    bad.push((PathBuf::from("wire/auth.rs"), "use crate::wire::token_type::X;".to_owned()));
    bad.push((PathBuf::from("wire/token_type.rs"), "const L: usize = crate::wire::auth::len(1);".to_owned()));
    let edges = graph(&bad, true);
    assert_eq!(upward(&edges), ["wire::challenge -> tokens::public"]);
    assert_eq!(cycles(&edges), ["wire::auth -> wire::token_type -> wire::auth"]);
}
