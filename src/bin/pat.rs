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

/// Type 0x0003: client → attester → issuer → attester → client → origin.
/// Returns the table row and the attester's two steps (process, finalize_index).
fn rate_limited_row() -> Result<(Row, [f64; 2]), pat::Error> {
    use pat::key_blinding::ecdsa_p384;
    use pat::rate_limited::encap::EncapSecretKey;
    use pat::types::rate_limited::{self as t3, Attester, OriginKey, Policy};

    let origin_name: &[u8] = b"origin.example";
    let challenge = TokenChallenge::new(3, b"issuer.example", &[], origin_name)?;
    let origin_keys = [OriginKey::new(origin_name, ecdsa_p384::SecretKey::random(&mut rng())?)];
    let encap = EncapSecretKey::random(0x01, &mut rng())?;
    let issuer = t3::Issuer::new(encap, pat::blind_rsa::SecretKey::generate(&mut rng())?, origin_keys);
    let client =
        t3::Client::new(ecdsa_p384::SecretKey::random(&mut rng())?, *issuer.encap_key(), issuer.public_key().clone());
    let mut attester = Attester::<64>::new(Policy { max_tokens: 1000, window: 3600 });
    let anonymous_origin_id = [0xa5u8; 32];
    let now = 1;

    let make_request = || -> Result<(Vec<u8>, t3::ClientState), pat::Error> {
        let mut out = vec![0u8; t3::request_len(origin_name.len())?];
        let (n, state) = client.request(&challenge, origin_name, &mut rng(), &mut out)?;
        out.truncate(n);
        Ok((out, state))
    };
    let evaluate = |bytes: &[u8]| -> Result<t3::IssuerResponse, pat::Error> {
        let request = t3::TokenRequest::decode(bytes)?;
        let mut scratch = vec![0u8; t3::scratch_len(&request)];
        issuer.evaluate(&request, &mut scratch, &mut rng())
    };

    let (request_bytes, state) = make_request()?;
    let request = t3::TokenRequest::decode(&request_bytes)?;
    attester.process(&request, client.client_key(), state.request_blind(), &anonymous_origin_id, now)?;
    let response = evaluate(&request_bytes)?;
    attester.finalize_index(
        client.client_key(),
        state.request_blind(),
        &response.blinded_request_key,
        &anonymous_origin_id,
        now,
    )?;
    let token = client.finalize(state, &response.encrypted_token_response)?;
    let token_bytes = encoded(&token)?;
    let origin = t3::Origin::new(issuer.public_key().clone());
    origin.verify(&t3::RateLimitedToken::decode(&token_bytes)?, &challenge)?;

    let times = [
        median_us(RUNS, || (), |()| make_request()),
        median_us(RUNS, || (), |()| evaluate(&request_bytes)),
        median_us(
            RUNS,
            || make_request().and_then(|(b, s)| Ok((evaluate(&b)?, s))),
            |pair| pair.and_then(|(resp, state)| client.finalize(state, &resp.encrypted_token_response)),
        ),
        median_us(RUNS, || (), |()| origin.verify(&token, &challenge)),
    ];
    let (_, state) = make_request()?;
    let attester_times = [
        median_us(
            RUNS,
            || (),
            |()| attester.process(&request, client.client_key(), state.request_blind(), &anonymous_origin_id, now),
        ),
        median_us(
            RUNS,
            || Attester::<64>::new(Policy { max_tokens: 1000, window: 3600 }),
            |mut a| {
                a.finalize_index(
                    client.client_key(),
                    state.request_blind(),
                    &response.blinded_request_key,
                    &anonymous_origin_id,
                    now,
                )
            },
        ),
    ];
    // The attester checked the request against the client key and blind it
    // was made with; `process` on another request's blind must refuse.
    let (_, other) = make_request()?;
    if attester.process(&request, client.client_key(), other.request_blind(), &anonymous_origin_id, now).is_ok() {
        return Err(pat::Error::Verification);
    }
    Ok((
        Row {
            label: "0x0003 rate-limited (+ attester)".into(),
            request: request_bytes.len(),
            response: response.encrypted_token_response.len(),
            token: token_bytes.len(),
            times,
        },
        attester_times,
    ))
}

/// A generic batch carrying one token each of types 1, 2 and 5.
fn batched_row() -> Result<Row, pat::Error> {
    use pat::types::batched::{BatchState, GenericBatchTokenRequest, GenericBatchTokenResponse, Issuer};

    let p384 = [private::Issuer::<pat::token_type::PrivateP384>::generate(&mut rng())?];
    let rsa = [public::Issuer::new(pat::blind_rsa::SecretKey::generate(&mut rng())?)];
    let r255 = [private::Issuer::<pat::token_type::PrivateRistretto255>::generate(&mut rng())?];
    let issuer = Issuer { private_p384: &p384, public_rsa2048: &rsa, private_ristretto255: &r255 };
    let (c1, c2, c5) = (p384[0].client(), public::Client::new(rsa[0].public_key().clone()), r255[0].client());
    let ch = |code| TokenChallenge::new(code, b"issuer.example", &[], b"origin.example");
    let (ch1, ch2, ch5) = (ch(1)?, ch(2)?, ch(5)?);
    let make_batch = || -> Result<BatchState<'_, 3>, pat::Error> {
        let mut batch = BatchState::<3>::new();
        batch.push(&c1, c1.request(&ch1, &mut rng())?)?;
        batch.push(&c2, c2.request(&ch2, &mut rng())?)?;
        batch.push(&c5, c5.request(&ch5, &mut rng())?)?;
        Ok(batch)
    };
    let evaluate = |bytes: &[u8]| -> Result<Vec<u8>, pat::Error> {
        let parsed = GenericBatchTokenRequest::decode(bytes)?;
        let mut out = vec![0u8; parsed.max_response_len()];
        let outcome = issuer.evaluate::<3, _>(&parsed, &mut out, &mut rng())?;
        out.truncate(outcome.len);
        Ok(out)
    };
    let batch = make_batch()?;
    let request_bytes = encoded(&batch.request())?;
    let response_bytes = evaluate(&request_bytes)?;
    let tokens = batch.finalize(&GenericBatchTokenResponse::decode(&response_bytes)?)?;
    let token_len = tokens.iter().flatten().map(|t| t.encoded_len()).sum();
    if tokens.iter().any(Option::is_none) {
        return Err(pat::Error::Verification);
    }
    let times = [
        median_us(RUNS, || (), |()| make_batch().and_then(|b| encoded(&b.request()))),
        median_us(RUNS, || (), |()| evaluate(&request_bytes)),
        median_us(
            RUNS,
            || make_batch().and_then(|b| Ok((evaluate(&encoded(&b.request())?)?, b))),
            |pair| pair.and_then(|(resp, b)| b.finalize(&GenericBatchTokenResponse::decode(&resp)?)),
        ),
        0.0,
    ];
    Ok(Row {
        label: "generic batch (types 1, 2, 5)".into(),
        request: request_bytes.len(),
        response: response_bytes.len(),
        token: token_len,
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
        batched_row()?,
    ];
    let (t3_row, attester_times) = rate_limited_row()?;
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>10} {:>10} {:>10} {:>10}",
        "token type", "request", "response", "token", "request", "evaluate", "finalize", "verify"
    );
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>43}",
        "", "bytes", "bytes", "bytes", "median us, client / issuer / client / origin"
    );
    for r in rows.iter().chain([&t3_row]) {
        let t = r.times.map(|t| if t > 0.0 { format!("{t:.1}") } else { "-".into() });
        println!(
            "{:<36} {:>7} {:>8} {:>6}  {:>10} {:>10} {:>10} {:>10}",
            r.label, r.request, r.response, r.token, t[0], t[1], t[2], t[3]
        );
    }
    println!(
        "0x0003 attester: process (signature + request key check) {:.1} us, finalize_index (alias + rate limit) {:.1} us",
        attester_times[0], attester_times[1]
    );
    println!("(generic batch: verify is per type, see the rows above)");
    println!("({RUNS} runs per figure; wall time on this machine; `pat bench` and criterion for real measurements)");
    Ok(())
}
