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
use pat::token_type::{TokenKind, TokenType};
use pat::types::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::types::private::{self, PrivateTokenType};
use pat::types::public;
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

/// Median wall time of `f` in microseconds over `runs` calls; each call gets
/// a fresh input from `setup`, made outside the timed region.
fn median_us<I, T>(runs: usize, mut setup: impl FnMut() -> I, mut f: impl FnMut(I) -> T) -> f64 {
    let mut times: Vec<f64> = (0..runs)
        .map(|_| {
            let input = setup();
            let start = Instant::now();
            std::hint::black_box(f(input));
            start.elapsed().as_secs_f64() * 1e6
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times.get(times.len() / 2).copied().unwrap_or_default()
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

/// One line of the demo table.
struct Row {
    label: String,
    request: usize,
    response: usize,
    token: usize,
    /// Client request, issuer evaluate, client finalize, verify (µs, medians).
    times: [f64; 4],
}

const RUNS: usize = 15;

fn encoded(m: &impl Encode) -> Result<Vec<u8>, pat::Error> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out)?;
    Ok(out)
}

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

/// Origin → client → issuer → client → origin for a privately verifiable type.
fn private_row<T: PrivateTokenType>(origin: &[u8]) -> Result<Row, pat::Error> {
    let issuer = private::Issuer::<T>::generate(&mut rng())?;
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[], origin)?;
    // The client learns the key from its wire form, as it would from the issuer directory.
    let client = private::Client::<T>::from_token_key(issuer.token_key().as_ref())?;
    let (request, state) = client.request(&challenge, &mut rng())?;
    let request_bytes = encoded(&request)?;
    let parsed = private::TokenRequest::<T>::decode(&request_bytes)?;
    let response = issuer.evaluate(&parsed, &mut rng())?;
    let response_bytes = encoded(&response)?;
    let token = client.finalize(state, &private::TokenResponse::decode(&response_bytes)?)?;
    let token_bytes = encoded(&token)?;
    issuer.verify(&<T::Token as Decode>::decode(&token_bytes)?, &challenge)?;
    let times = [
        median_us(RUNS, || (), |()| client.request(&challenge, &mut rng())),
        median_us(RUNS, || (), |()| issuer.evaluate(&parsed, &mut rng())),
        median_us(
            RUNS,
            || client.request(&challenge, &mut rng()).and_then(|(r, s)| Ok((issuer.evaluate(&r, &mut rng())?, s))),
            |pair| pair.and_then(|(resp, state)| client.finalize(state, &resp)),
        ),
        median_us(RUNS, || (), |()| issuer.verify(&token, &challenge)),
    ];
    Ok(Row {
        label: format!("0x{:04x} {}", T::CODE, T::NAME),
        request: request_bytes.len(),
        response: response_bytes.len(),
        token: token_bytes.len(),
        times,
    })
}

/// The same for an amortized batch of 10 tokens.
fn amortized_row<T: PrivateTokenType>(origin: &[u8]) -> Result<Row, pat::Error> {
    const N: usize = 10;
    let issuer = private::Issuer::<T>::generate(&mut rng())?;
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[], origin)?;
    let client = issuer.client();
    let state = client.request_batch::<N, _>(&challenge, N, &mut rng())?;
    let request_bytes = encoded(&state.request())?;
    let parsed = AmortizedTokenRequest::<T>::decode(&request_bytes)?;
    let mut out = [0u8; 1024];
    let n = issuer.evaluate_batch::<N, _>(&parsed, &mut out, &mut rng())?;
    let response_bytes = out.get(..n).ok_or(pat::Error::BufferTooSmall)?.to_vec();
    let tokens = client.finalize_batch(state, &AmortizedTokenResponse::decode(&response_bytes)?)?;
    let token_len = tokens.iter().map(|t| t.encoded_len()).sum();
    for t in &tokens {
        issuer.verify(t, &challenge)?;
    }
    let times = [
        median_us(RUNS, || (), |()| client.request_batch::<N, _>(&challenge, N, &mut rng())),
        median_us(RUNS, || [0u8; 1024], |mut o| issuer.evaluate_batch::<N, _>(&parsed, &mut o, &mut rng())),
        median_us(
            RUNS,
            || -> Result<_, pat::Error> {
                let state = client.request_batch::<N, _>(&challenge, N, &mut rng())?;
                let req = encoded(&state.request())?;
                let mut o = [0u8; 1024];
                let n = issuer.evaluate_batch::<N, _>(&AmortizedTokenRequest::decode(&req)?, &mut o, &mut rng())?;
                Ok((state, o.get(..n).ok_or(pat::Error::BufferTooSmall)?.to_vec()))
            },
            |pair| {
                pair.and_then(|(state, resp)| {
                    client.finalize_batch(state, &AmortizedTokenResponse::<T>::decode(&resp)?)
                })
            },
        ),
        median_us(RUNS, || (), |()| tokens.iter().try_for_each(|t| issuer.verify(t, &challenge))),
    ];
    Ok(Row {
        label: format!("0x{:04x} amortized x{N}", T::CODE),
        request: request_bytes.len(),
        response: response_bytes.len(),
        token: token_len,
        times,
    })
}

fn public_row(origin: &[u8]) -> Result<Row, pat::Error> {
    let issuer = public::Issuer::new(pat::blind_rsa::SecretKey::generate(&mut rng())?);
    let challenge = TokenChallenge::new(2, b"issuer.example", &[], origin)?;
    let client = public::Client::from_token_key(&issuer.token_key())?;
    let (request, state) = client.request(&challenge, &mut rng())?;
    let request_bytes = encoded(&request)?;
    let parsed = public::TokenRequest::decode(&request_bytes)?;
    let response = issuer.evaluate(&parsed)?;
    let response_bytes = encoded(&response)?;
    let token = client.finalize(state, &public::TokenResponse::decode(&response_bytes)?)?;
    let token_bytes = encoded(&token)?;
    let origin_verifier = public::Origin::new(issuer.public_key().clone());
    origin_verifier.verify(&public::PublicToken::decode(&token_bytes)?, &challenge)?;
    let times = [
        median_us(RUNS, || (), |()| client.request(&challenge, &mut rng())),
        median_us(RUNS, || (), |()| issuer.evaluate(&parsed)),
        median_us(
            RUNS,
            || client.request(&challenge, &mut rng()).and_then(|(r, s)| Ok((issuer.evaluate(&r)?, s))),
            |pair| pair.and_then(|(resp, state)| client.finalize(state, &resp)),
        ),
        median_us(RUNS, || (), |()| origin_verifier.verify(&token, &challenge)),
    ];
    Ok(Row {
        label: format!("0x0002 {}", pat::token_type::PublicRsa2048::NAME),
        request: request_bytes.len(),
        response: response_bytes.len(),
        token: token_bytes.len(),
        times,
    })
}

fn run_demo() -> Result<(), pat::Error> {
    println!("pat {} demo: origin -> client -> issuer -> client -> origin, in process\n", env!("CARGO_PKG_VERSION"));

    // The HTTP layer once: the origin's challenge header, parsed back by the client.
    let ctx = [0x42u8; 32];
    let challenge = TokenChallenge::new(TokenKind::PrivateP384.code(), b"issuer.example", &ctx, b"origin.example")?;
    let challenge_bytes = encoded(&challenge)?;
    let issuer = private::Issuer::<pat::token_type::PrivateP384>::generate(&mut rng())?;
    let mut header = [0u8; 512];
    let header = auth::write_www_authenticate(&challenge_bytes, issuer.token_key().as_ref(), Some(3600), &mut header)?;
    println!("WWW-Authenticate: {header}");
    let parsed = auth::parse_www_authenticate(header).next().ok_or(pat::Error::MalformedHeader)??;
    let mut cbuf = [0u8; 128];
    let mut kbuf = [0u8; 64];
    let decoded = TokenChallenge::decode(parsed.decode_challenge(&mut cbuf)?)?;
    let client = private::Client::<pat::token_type::PrivateP384>::from_token_key(parsed.decode_token_key(&mut kbuf)?)?;
    let (req, state) = client.request(&decoded, &mut rng())?;
    let token = client.finalize(state, &issuer.evaluate(&req, &mut rng())?)?;
    let mut out = [0u8; 512];
    let authorization = auth::write_authorization(&encoded(&token)?, &mut out)?;
    println!("Authorization: {authorization}");
    let mut tbuf = [0u8; 256];
    let redeemed = pat::Token::<48>::decode(auth::parse_authorization(authorization)?.decode_base64url(&mut tbuf)?)?;
    issuer.verify(&redeemed, &challenge)?;
    println!("origin: token accepted\n");

    let rows = [
        private_row::<pat::token_type::PrivateP384>(b"origin.example")?,
        public_row(b"origin.example")?,
        private_row::<pat::token_type::PrivateRistretto255>(b"origin.example")?,
        amortized_row::<pat::token_type::PrivateP384>(b"origin.example")?,
        amortized_row::<pat::token_type::PrivateRistretto255>(b"origin.example")?,
    ];
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>10} {:>10} {:>10} {:>10}",
        "token type", "request", "response", "token", "request", "evaluate", "finalize", "verify"
    );
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>43}",
        "", "bytes", "bytes", "bytes", "median us, client / issuer / client / origin"
    );
    for r in &rows {
        println!(
            "{:<36} {:>7} {:>8} {:>6}  {:>10.1} {:>10.1} {:>10.1} {:>10.1}",
            r.label, r.request, r.response, r.token, r.times[0], r.times[1], r.times[2], r.times[3]
        );
    }
    println!("\n0x0003 rate-limited: not implemented yet");
    println!("({RUNS} runs per figure; wall time on this machine; `pat bench` and criterion for real measurements)");
    Ok(())
}
