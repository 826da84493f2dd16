//! Prints the medians of the last `cargo bench` run as a markdown table: one
//! row per (operation, peer), with pat's median, the peer's and pat/peer.
//!
//! The numbers are criterion's own estimates, read from
//! `target/criterion/**/new/{benchmark,estimates}.json`; nothing is timed here.
//!
//! Usage: `cargo run --release [CRITERION_DIR]` (default: this crate's
//! `target/criterion`).

use std::collections::BTreeMap;
use std::error::Error;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// Medians in nanoseconds by group, then by implementation (function id).
type Medians = BTreeMap<String, BTreeMap<String, f64>>;

/// Finds every `new/` directory that holds both JSON files.
fn collect(dir: &Path, out: &mut Medians) -> Result<(), Box<dyn Error>> {
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if !path.is_dir() {
            continue;
        }
        let (bench, estimates) = (path.join("benchmark.json"), path.join("estimates.json"));
        if path.file_name().is_some_and(|n| n == "new") && bench.is_file() && estimates.is_file() {
            let bench: Value = serde_json::from_str(&fs::read_to_string(bench)?)?;
            let estimates: Value = serde_json::from_str(&fs::read_to_string(estimates)?)?;
            let group = bench["group_id"].as_str().ok_or("benchmark.json without group_id")?;
            let function = bench["function_id"].as_str().unwrap_or("");
            let median = estimates["median"]["point_estimate"].as_f64().ok_or("estimates.json without median")?;
            out.entry(group.to_owned()).or_default().insert(function.to_owned(), median);
        } else {
            collect(&path, out)?;
        }
    }
    Ok(())
}

/// Orders groups as the bench defines them: token types, then primitives;
/// within a family, the operations in protocol (or definition) order.
fn sort_key(group: &str) -> (usize, usize, String) {
    const FAMILIES: [&str; 5] = ["type1/", "type5/", "type2/", "rsa2048/", "p384/"];
    const OPERATIONS: [&str; 13] = [
        "ClientRequest",
        "IssuerEvaluate",
        "ClientFinalize",
        "OriginVerify",
        "ClientRequestBatch10",
        "IssuerEvaluateBatch10",
        "ClientFinalizeBatch10",
        "BlindSign",
        "Verify",
        "VarBaseMul",
        "FixedBaseMul",
        "DoubleMulVartime",
        "HashToCurve",
    ];
    let family = FAMILIES.iter().position(|f| group.starts_with(f)).unwrap_or(FAMILIES.len());
    let op = group.rsplit('/').next().unwrap_or(group);
    let op = OPERATIONS.iter().position(|o| *o == op).unwrap_or(OPERATIONS.len());
    (family, op, group.to_owned())
}

fn format_ns(ns: f64) -> String {
    if ns >= 1e6 {
        format!("{:.3} ms", ns / 1e6)
    } else if ns >= 1e3 {
        format!("{:.2} µs", ns / 1e3)
    } else {
        format!("{ns:.1} ns")
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .map_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion"), PathBuf::from);
    let mut medians = Medians::new();
    collect(&dir, &mut medians).map_err(|e| format!("{}: {e} (run `cargo bench` first)", dir.display()))?;
    if medians.is_empty() {
        return Err(format!("no criterion results under {}", dir.display()).into());
    }
    let mut groups: Vec<_> = medians.iter().collect();
    groups.sort_by_key(|(g, _)| sort_key(g));

    println!("| operation | pat | peer | peer median | pat/peer |");
    println!("|---|---:|---|---:|---:|");
    for (group, impls) in groups {
        let pat = impls.iter().find(|(id, _)| id.starts_with("pat"));
        let (label, pat_ns) = match pat {
            Some((id, ns)) if id.as_str() == "pat" => (group.clone(), Some(*ns)),
            Some((id, ns)) => (format!("{group} ({id})"), Some(*ns)),
            None => (group.clone(), None),
        };
        let pat_cell = pat_ns.map_or_else(|| "—".to_owned(), format_ns);
        let peers: Vec<_> = impls.iter().filter(|(id, _)| !id.starts_with("pat")).collect();
        if peers.is_empty() {
            println!("| {label} | {pat_cell} | — | — | — |");
        }
        for (peer, ns) in peers {
            let ratio = pat_ns.map_or_else(|| "—".to_owned(), |p| format!("{:.2}", p / ns));
            println!("| {label} | {pat_cell} | {peer} | {} | {ratio} |", format_ns(*ns));
        }
    }
    Ok(())
}
