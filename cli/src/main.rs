//! `pat`: the command-line tool of the `pat` library (package `pat-privacypass`).
//!
//! - `pat demo`: every implemented token type end to end, in process.
//! - `pat vectors verify [--kind KIND] FILE...`: check vector files.
//! - `pat vectors generate --kind KIND [--count N] [--out FILE]`: write fresh vectors.
//! - `pat bench [--format markdown|latex|json] [--warmup N] [--iters N] [--filter SUBSTR]`:
//!   cycle counts of every role of every token type.
//! - `pat issuer serve|rotate`, `pat origin serve`, `pat fetch URL`: the HTTP
//!   services (feature `serve`, on by default).

#![allow(clippy::std_instead_of_core)] // a std binary

mod bench;
mod demo;
#[cfg(feature = "serve")]
mod serve;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use pat_vectors::{self as vectors, Kind};
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};

/// Counts heap allocations for `pat bench`.
#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

/// Allocations and reallocations so far in the process.
fn allocations() -> usize {
    let stats = GLOBAL.stats();
    stats.allocations.saturating_add(stats.reallocations)
}

#[derive(Parser)]
#[command(name = "pat", version, about = "Privacy Pass tokens: demo, test vectors, cycle counts")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run every implemented token type end to end and print a table.
    Demo,
    /// Verify or generate pat-go JSON test vectors.
    #[command(subcommand)]
    Vectors(VectorsCommand),
    /// Cycle counts (TSC on x86/x86_64) of every role of every token type.
    Bench(bench::Args),
    /// The HTTP issuer: directory, issuance, key rotation.
    #[cfg(feature = "serve")]
    #[command(subcommand)]
    Issuer(serve::IssuerCommand),
    /// The HTTP origin: challenges, redemption, replay protection.
    #[cfg(feature = "serve")]
    #[command(subcommand)]
    Origin(serve::OriginCommand),
    /// Fetch a URL, obtaining and spending a token when challenged; prints `status N`.
    #[cfg(feature = "serve")]
    Fetch(serve::Fetch),
}

#[derive(Subcommand)]
enum VectorsCommand {
    /// Check every case of each file; prints `FILE: N passed, M failed`.
    Verify {
        /// The schema (detected from the fields when omitted).
        #[arg(long, value_parser = parse_kind)]
        kind: Option<Kind>,
        /// Vector files.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Write fresh cases in pat-go's schema.
    Generate {
        /// The schema.
        #[arg(long, value_parser = parse_kind)]
        kind: Kind,
        /// Number of cases (at most 100,000; 5 when omitted; `arc` writes
        /// one suite of 6 cases, so 6, its default, is its one count).
        #[arg(long)]
        count: Option<u64>,
        /// Output file (stdout when omitted).
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

fn parse_kind(s: &str) -> Result<Kind, String> {
    Kind::from_name(s).ok_or_else(|| {
        let names: Vec<&str> = Kind::ALL.iter().map(|k| k.name()).collect();
        format!("unknown kind `{s}`; one of: {}", names.join(", "))
    })
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Demo => demo::demo(),
        Command::Bench(args) => bench::run(&args, &allocations),
        Command::Vectors(VectorsCommand::Verify { kind, files }) => verify(kind, &files),
        Command::Vectors(VectorsCommand::Generate { kind, count, out }) => generate(kind, count, out),
        #[cfg(feature = "serve")]
        Command::Issuer(c) => serve::issuer(c),
        #[cfg(feature = "serve")]
        Command::Origin(c) => serve::origin(c),
        #[cfg(feature = "serve")]
        Command::Fetch(args) => serve::fetch(args),
    }
}

fn verify(kind: Option<Kind>, files: &[PathBuf]) -> ExitCode {
    let mut all_ok = true;
    for path in files {
        let name = path.display();
        let result = std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read: {e}"))
            .and_then(|text| vectors::parse(&text).map_err(|e| e.to_string()))
            .and_then(|file| {
                let kind = kind
                    .or_else(|| Kind::detect(&file))
                    .ok_or_else(|| vectors::VectorError::Undetectable.to_string())?;
                vectors::verify(kind, &file).map_err(|e| e.to_string())
            });
        match result {
            Ok(report) => {
                println!("{name}: {} passed, {} failed", report.passed, report.failed());
                for f in &report.failures {
                    eprintln!("{name}: case {} failed: {}", f.case, f.what);
                }
                if report.total() == 0 {
                    eprintln!("{name}: no cases");
                }
                all_ok &= report.ok();
            }
            Err(e) => {
                eprintln!("{name}: error: {e}");
                all_ok = false;
            }
        }
    }
    if all_ok { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

fn generate(kind: Kind, count: Option<u64>, out: Option<PathBuf>) -> ExitCode {
    // Parsed as u64 on every target, so that a count too large for a 32-bit
    // usize gets the same message as any other count over the limit.
    let count = count.map_or(kind.default_count(), |c| usize::try_from(c).unwrap_or(usize::MAX));
    let value = match vectors::generate(kind, count) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = match serde_json::to_string_pretty(&value) {
        Ok(t) => t + "\n",
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    match out {
        Some(path) => {
            if let Err(e) = std::fs::write(&path, text) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        None => print!("{text}"),
    }
    ExitCode::SUCCESS
}
