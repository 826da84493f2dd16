//! Prints the medians of the last `cargo bench` run as a markdown table: one
//! row per (operation, peer), with pat's median, the peer's and pat/peer.
//!
//! The numbers are criterion's own estimates, read from
//! `target/criterion/**/new/{benchmark,estimates}.json`; nothing is timed here.
//!
//! With `--svg FILE` it also draws the ratios as a chart (an SVG file written
//! directly, no plotting crate): one bar per (operation, peer) row, a line at
//! 1.0 (as fast as the peer) and a mark at the row's goal from issue 17 (0.9×
//! the `privacypass` crate, 1.0× ring's RSA, 1.3× ring's ECDH); `--title`
//! names the run (e.g. the target and the date).
//!
//! Usage: `cargo run --release -- [--svg FILE] [--title TEXT] [CRITERION_DIR]`
//! (default directory: this crate's `target/criterion`).

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
    const FAMILIES: [&str; 7] = ["type1/", "type5/", "type2/", "rsa2048/", "p384/", "athm4/", "act16/"];
    const OPERATIONS: [&str; 19] = [
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
        "IssuerKeygen",
        "IssuerResponse",
        "IssuerVerify",
        "IssuerIssue",
        "ClientSpend",
        "IssuerRefund",
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

/// One table row: the label, pat's median, the peer and its median.
struct Row {
    label: String,
    peer: String,
    ratio: f64,
}

/// The goal for a row (issue 17), if it has one.
fn goal(label: &str, peer: &str) -> Option<f64> {
    match peer {
        "privacypass" | "google-athm" | "anonymous-credit-tokens" => Some(0.9),
        "ring-pss-sign" | "ring" if label.starts_with("rsa2048/") => Some(1.0),
        // Issue 35: as fast as aws-lc-rs with pat's IFMA kernel.
        "aws-lc-rs-pss-sign" if label == "rsa2048/BlindSign" => Some(1.0),
        "ring-ecdh" => Some(1.3),
        _ => None,
    }
}

/// Escapes text for SVG.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}

/// A horizontal bar chart of pat/peer, linear from 0 to the largest ratio
/// (at least 2), with a dashed line at 1.0 and a red tick at each row's goal.
fn svg(rows: &[Row], title: &str) -> String {
    const ROW: f64 = 18.0;
    const LEFT: f64 = 430.0;
    const WIDTH: f64 = 480.0;
    const TOP: f64 = 50.0;
    let max = rows.iter().map(|r| r.ratio).fold(2.0_f64, f64::max).ceil();
    let x = |v: f64| LEFT + WIDTH * v / max;
    let height = TOP + ROW * rows.len() as f64 + 50.0;
    let mut s = String::new();
    s.push_str(&format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n",
        w = LEFT + WIDTH + 60.0
    ));
    s.push_str(&format!("<text x=\"10\" y=\"20\" font-size=\"14\" font-weight=\"bold\">{}</text>\n", xml(title)));
    s.push_str(&format!(
        "<text x=\"10\" y=\"36\">pat time / peer time (median; below 1 = pat faster). \
         Red tick: the goal. Dashed: 1.0.</text>\n"
    ));
    let bottom = TOP + ROW * rows.len() as f64;
    let mut tick = 0.0;
    while tick <= max + 1e-9 {
        s.push_str(&format!(
            "<line x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{bottom}\" stroke=\"#ddd\"/>\n\
             <text x=\"{0:.1}\" y=\"{1}\" text-anchor=\"middle\">{tick:.1}</text>\n",
            x(tick),
            bottom + 14.0
        ));
        tick += 0.5;
    }
    for (i, r) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let fill = match goal(&r.label, &r.peer) {
            Some(g) if r.ratio <= g => "#4a90d9",
            Some(_) => "#e0873a",
            None => "#999",
        };
        s.push_str(&format!(
            "<text x=\"{lx}\" y=\"{ty:.1}\" text-anchor=\"end\">{label} vs {peer}</text>\n\
             <rect x=\"{LEFT}\" y=\"{by:.1}\" width=\"{bw:.1}\" height=\"{bh}\" fill=\"{fill}\"/>\n\
             <text x=\"{vx:.1}\" y=\"{ty:.1}\">{ratio:.2}</text>\n",
            lx = LEFT - 6.0,
            ty = y + 13.0,
            label = xml(&r.label),
            peer = xml(&r.peer),
            by = y + 3.0,
            bw = x(r.ratio) - LEFT,
            bh = ROW - 5.0,
            vx = x(r.ratio) + 4.0,
            ratio = r.ratio,
        ));
        if let Some(g) = goal(&r.label, &r.peer) {
            s.push_str(&format!(
                "<line x1=\"{0:.1}\" y1=\"{1:.1}\" x2=\"{0:.1}\" y2=\"{2:.1}\" stroke=\"#c00\" stroke-width=\"2\"/>\n",
                x(g),
                y + 1.0,
                y + ROW - 1.0
            ));
        }
    }
    s.push_str(&format!(
        "<line x1=\"{0:.1}\" y1=\"{TOP}\" x2=\"{0:.1}\" y2=\"{bottom}\" stroke=\"#333\" stroke-dasharray=\"4 3\"/>\n</svg>\n",
        x(1.0)
    ));
    s
}

fn main() -> Result<(), Box<dyn Error>> {
    let (mut dir, mut svg_path, mut title) = (None, None, String::from("pat against its peers"));
    let mut args = std::env::args_os().skip(1);
    while let Some(arg) = args.next() {
        match arg.to_str() {
            Some("--svg") => svg_path = Some(PathBuf::from(args.next().ok_or("--svg needs a file")?)),
            Some("--title") => title = args.next().and_then(|t| t.into_string().ok()).ok_or("--title needs text")?,
            _ => dir = Some(PathBuf::from(arg)),
        }
    }
    let dir = dir.unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target/criterion"));
    let mut rows = Vec::new();
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
        // Every pat variant ("pat", and e.g. "pat-portable" with a kernel
        // forced) against every peer.
        let pats: Vec<_> = impls.iter().filter(|(id, _)| id.starts_with("pat")).collect();
        let variants: Vec<(String, Option<f64>)> = if pats.is_empty() {
            vec![(group.clone(), None)]
        } else {
            pats.iter()
                .map(|(id, ns)| {
                    let label = if id.as_str() == "pat" { group.clone() } else { format!("{group} ({id})") };
                    (label, Some(**ns))
                })
                .collect()
        };
        let peers: Vec<_> = impls.iter().filter(|(id, _)| !id.starts_with("pat")).collect();
        for (label, pat_ns) in variants {
            let pat_cell = pat_ns.map_or_else(|| "—".to_owned(), format_ns);
            if peers.is_empty() {
                println!("| {label} | {pat_cell} | — | — | — |");
            }
            for (peer, ns) in &peers {
                let ratio = pat_ns.map_or_else(|| "—".to_owned(), |p| format!("{:.2}", p / *ns));
                println!("| {label} | {pat_cell} | {peer} | {} | {ratio} |", format_ns(**ns));
                if let Some(p) = pat_ns {
                    rows.push(Row { label: label.clone(), peer: (*peer).clone(), ratio: p / *ns });
                }
            }
        }
    }
    if let Some(path) = svg_path {
        fs::write(&path, svg(&rows, &title)).map_err(|e| format!("{}: {e}", path.display()))?;
        eprintln!("wrote {} ({} rows)", path.display(), rows.len());
    }
    Ok(())
}
