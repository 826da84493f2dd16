//! `pat`: the command-line tool of the `pat` crate.
//!
//! - `pat demo`: every implemented token type end to end, in process.
//! - `pat vectors verify [--kind KIND] FILE...`: check vector files.
//! - `pat vectors generate --kind KIND [--count N] [--out FILE]`: write fresh vectors.

#![allow(clippy::std_instead_of_core)] // a std binary

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use clap::{Parser, Subcommand};
use pat::auth;
use pat::challenge::TokenChallenge;
use pat::codec::{Decode, Encode};
use pat::token::TokenInput;
use pat::token_type::TokenKind;
use pat::vectors::{self, Kind};

#[derive(Parser)]
#[command(name = "pat", version, about = "Privacy Pass tokens: demo, test vectors")]
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
        /// Number of cases.
        #[arg(long, default_value_t = 5)]
        count: usize,
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
        Command::Demo => demo(),
        Command::Vectors(VectorsCommand::Verify { kind, files }) => verify(kind, &files),
        Command::Vectors(VectorsCommand::Generate { kind, count, out }) => generate(kind, count, out),
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

fn generate(kind: Kind, count: usize, out: Option<PathBuf>) -> ExitCode {
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

/// Times `f` over a few runs and returns microseconds per call.
fn micros<T>(runs: u32, mut f: impl FnMut() -> T) -> f64 {
    let start = Instant::now();
    for _ in 0..runs {
        std::hint::black_box(f());
    }
    start.elapsed().as_secs_f64() * 1e6 / f64::from(runs)
}

fn demo() -> ExitCode {
    match run_demo() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("demo failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run_demo() -> Result<(), pat::Error> {
    println!("pat {} demo: origin challenge -> client -> issuer -> client -> origin\n", env!("CARGO_PKG_VERSION"));

    // The origin side: a challenge, sent in a WWW-Authenticate header.
    let ctx = [0x42u8; 32];
    let challenge = TokenChallenge::new(TokenKind::PrivateP384.code(), b"issuer.example", &ctx, b"origin.example")?;
    let mut challenge_bytes = [0u8; 128];
    let n = challenge.encode(&mut challenge_bytes)?;
    let challenge_bytes = challenge_bytes.get(..n).ok_or(pat::Error::BufferTooSmall)?;
    let token_key = [0x02u8; 49];
    let mut header = [0u8; 512];
    let header = auth::write_www_authenticate(challenge_bytes, &token_key, Some(3600), &mut header)?;
    println!("WWW-Authenticate: {header}\n");

    // The client side: parse the header, decode the challenge, build token_input.
    let parsed = auth::parse_www_authenticate(header).next().ok_or(pat::Error::MalformedHeader)??;
    let mut buf = [0u8; 128];
    let decoded = TokenChallenge::decode(parsed.decode_challenge(&mut buf)?)?;
    let nonce = [7u8; 32];
    let key_id = [9u8; 32];
    let input = TokenInput::for_challenge(&decoded, &nonce, &key_id)?;
    let parse_us = micros(10_000, || {
        let mut b = [0u8; 128];
        auth::parse_www_authenticate(header)
            .next()
            .and_then(|c| c.ok())
            .and_then(|c| c.decode_challenge(&mut b).ok().map(|s| TokenChallenge::decode(s).map(|c| c.digest())))
    });
    println!("challenge: {} bytes, digest computed, token_input {} bytes", n, input.as_bytes().len());
    println!("parse header + decode challenge + digest: {parse_us:.2} us\n");

    println!("{:<8} {:<36} {:>8} {:>9} {:>6}  status", "type", "name", "request", "response", "token");
    for kind in TokenKind::ALL {
        let len = |l: pat::token_type::MessageLen| match l {
            pat::token_type::MessageLen::Fixed(n) => n.to_string(),
            pat::token_type::MessageLen::Range { min, .. } => format!(">={min}"),
        };
        println!(
            "0x{:04x}   {:<36} {:>8} {:>9} {:>6}  not implemented yet",
            kind.code(),
            kind.name(),
            len(kind.request_len()),
            len(kind.response_len()),
            kind.token_len()
        );
    }
    Ok(())
}
