//! `pat bench`: cycle counts of every role of every token type, by the method
//! of [`pat_cli::cycles`], with the fixtures of `pat demo`. Operation names
//! follow pat-go's benchmarks (`type1/ClientRequest`, ...).

use std::io::Write as _;
use std::process::ExitCode;

use pat::tokens::private::PrivateTokenType;
use pat::tokens::rate_limited as t3;
use pat::wire::auth;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};
use pat::wire::token::{TokenInput, TokenRef};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255, TokenKind};

use crate::demo::{
    ACT_L, ActFixture, AmortizedFixture, ArcFixture, AthmFixture, BATCH, BATCH_WIRE, BatchedFixture, MetadataFixture,
    ORIGIN, PoprfFixture, PrivateFixture, PublicFixture, RateLimitedFixture, Result, rng,
};
use pat_cli::cycles::{self, Config, Counter, Measurement};

/// Options of `pat bench`.
#[derive(clap::Args)]
pub(crate) struct Args {
    /// Output format.
    #[arg(long, value_enum, default_value_t = Format::Markdown)]
    format: Format,
    /// Untimed calls per operation before the measured ones.
    #[arg(long, default_value_t = 1000)]
    warmup: usize,
    /// Measured calls per operation.
    #[arg(long, default_value_t = 5000)]
    iters: usize,
    /// Only operations whose name contains this.
    #[arg(long)]
    filter: Option<String>,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum Format {
    Markdown,
    Latex,
    Json,
}

/// Every operation, in the order they run.
const OPERATIONS: &[&str] = &[
    "type1/ClientRequest",
    "type1/IssuerEvaluate",
    "type1/ClientFinalize",
    "type1/OriginVerify",
    "type2/ClientRequest",
    "type2/IssuerEvaluate",
    "type2/ClientFinalize",
    "type2/OriginVerify",
    "type5/ClientRequest",
    "type5/IssuerEvaluate",
    "type5/ClientFinalize",
    "type5/OriginVerify",
    "amortized1x10/ClientRequest",
    "amortized1x10/IssuerEvaluate",
    "amortized1x10/ClientFinalize",
    "amortized1x10/OriginVerify",
    "amortized5x10/ClientRequest",
    "amortized5x10/IssuerEvaluate",
    "amortized5x10/ClientFinalize",
    "amortized5x10/OriginVerify",
    "batched-1-2-5/ClientRequest",
    "batched-1-2-5/IssuerEvaluate",
    "batched-1-2-5/ClientFinalize",
    "type3/ClientRequest",
    "type3/AttesterProcess",
    "type3/IssuerEvaluate",
    "type3/AttesterFinalize",
    "type3/ClientFinalize",
    "type3/OriginVerify",
    "typeda7a/ClientRequest",
    "typeda7a/IssuerEvaluate",
    "typeda7a/IssuerEvaluateDerived",
    "typeda7a/ClientFinalize",
    "typeda7a/OriginVerify",
    "typeda7b/ClientRequest",
    "typeda7b/IssuerEvaluate",
    "typeda7b/ClientFinalize",
    "typeda7b/OriginVerify",
    "arc/ServerKeygen",
    "arc/ClientRequest",
    "arc/IssuerRespond",
    "arc/ClientFinalize",
    "arc/ClientPresentLimit2",
    "arc/ClientPresentLimit65536",
    "arc/IssuerVerifyLimit2",
    "arc/IssuerVerifyLimit65536",
    "athm4/IssuerKeygen",
    "athm4/ClientRequest",
    "athm4/IssuerResponse",
    "athm4/ClientFinalize",
    "athm4/IssuerVerify",
    "act16/ClientRequest",
    "act16/IssuerIssue",
    "act16/ClientFinalize",
    "act16/ClientSpend",
    "act16/IssuerRefund",
    "parse/TokenChallenge",
    "parse/Token",
    "parse/WwwAuthenticate",
];

/// One measured operation.
struct Row {
    name: &'static str,
    m: Measurement,
}

struct Runner<'a> {
    counter: Counter,
    cfg: Config,
    filter: Option<&'a str>,
    allocations: &'a dyn Fn() -> usize,
    selected: usize,
    rows: Vec<Row>,
}

impl Runner<'_> {
    fn wants(&self, name: &str) -> bool {
        self.filter.is_none_or(|f| name.contains(f))
    }

    /// Whether any operation of the group `prefix` is selected (fixtures are
    /// built only for those).
    fn wants_group(&self, prefix: &str) -> bool {
        OPERATIONS.iter().any(|n| n.starts_with(prefix) && self.wants(n))
    }

    fn op<I, O>(
        &mut self,
        name: &'static str,
        setup: impl FnMut() -> Result<I>,
        op: impl FnMut(I) -> Result<O>,
    ) -> Result<()> {
        if !self.wants(name) {
            return Ok(());
        }
        let done = self.rows.len();
        let width = 20;
        let filled = done * width / self.selected.max(1);
        eprint!(
            "\r[{}{}] {:>2}/{} {:<32}",
            "#".repeat(filled),
            " ".repeat(width - filled),
            done + 1,
            self.selected,
            name
        );
        let _ = std::io::stderr().flush();
        let m = cycles::measure(&self.counter, self.cfg, self.allocations, setup, op)?;
        self.rows.push(Row { name, m });
        Ok(())
    }
}

/// Types 0x0001 and 0x0005.
fn private<T: PrivateTokenType>(r: &mut Runner<'_>, names: [&'static str; 4]) -> Result<()> {
    let prefix = names[0].split('/').next().unwrap_or_default();
    if !r.wants_group(prefix) {
        return Ok(());
    }
    let f = PrivateFixture::<T>::new(ORIGIN)?;
    let parsed = f.request()?;
    r.op(names[0], || Ok(()), |()| f.client.request(&f.challenge, &mut rng()))?;
    r.op(names[1], || Ok(()), |()| f.issuer.evaluate(&parsed, &mut rng()))?;
    r.op(names[2], || f.exchange(), |(response, mut state)| f.client.finalize(&mut state, &response))?;
    r.op(names[3], || Ok(()), |()| f.issuer.verify(&f.token, &f.challenge))
}

fn public(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("type2/") {
        return Ok(());
    }
    let f = PublicFixture::new(ORIGIN)?;
    let parsed = f.request()?;
    r.op("type2/ClientRequest", || Ok(()), |()| f.client.request(&f.challenge, &mut rng()))?;
    r.op("type2/IssuerEvaluate", || Ok(()), |()| f.issuer.evaluate(&parsed))?;
    r.op("type2/ClientFinalize", || f.exchange(), |(response, mut state)| f.client.finalize(&mut state, &response))?;
    r.op("type2/OriginVerify", || Ok(()), |()| f.origin.verify(&f.token, &f.challenge))
}

/// Type 0xDA7A: evaluate derives the key pair for the request's extensions
/// and signs; `IssuerEvaluateDerived` signs with a key derived beforehand.
fn metadata(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("typeda7a/") {
        return Ok(());
    }
    let f = MetadataFixture::new(ORIGIN)?;
    let parsed = f.request()?;
    let derived = f.issuer.derive(&f.extensions)?;
    r.op("typeda7a/ClientRequest", || Ok(()), |()| f.client.request(&f.challenge, f.extensions, &mut rng()))?;
    r.op("typeda7a/IssuerEvaluate", || Ok(()), |()| f.issuer.evaluate(&parsed))?;
    r.op("typeda7a/IssuerEvaluateDerived", || Ok(()), |()| f.issuer.evaluate_with(&derived, &parsed))?;
    r.op(
        "typeda7a/ClientFinalize",
        || f.exchange(),
        |(response, mut state)| f.client.finalize(&mut state, &f.extensions, &response),
    )?;
    r.op("typeda7a/OriginVerify", || Ok(()), |()| f.origin.verify(&f.token, &f.challenge, &f.extensions))
}

/// Type 0xDA7B: evaluate tweaks the key by the request's extensions (a hash
/// to a scalar and an inversion) and proves; the origin is the issuer, whose
/// verification recomputes the POPRF output under the extensions.
fn poprf(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("typeda7b/") {
        return Ok(());
    }
    let f = PoprfFixture::new(ORIGIN)?;
    let parsed = f.request()?;
    r.op("typeda7b/ClientRequest", || Ok(()), |()| f.client.request(&f.challenge, f.extensions, &mut rng()))?;
    r.op("typeda7b/IssuerEvaluate", || Ok(()), |()| f.issuer.evaluate(&parsed, &mut rng()))?;
    r.op(
        "typeda7b/ClientFinalize",
        || f.exchange(),
        |(response, mut state)| f.client.finalize(&mut state, &f.extensions, &response),
    )?;
    r.op("typeda7b/OriginVerify", || Ok(()), |()| f.issuer.verify(&f.token, &f.challenge, &f.extensions))
}

fn amortized<T: PrivateTokenType>(r: &mut Runner<'_>, names: [&'static str; 4]) -> Result<()> {
    let prefix = names[0].split('/').next().unwrap_or_default();
    if !r.wants_group(prefix) {
        return Ok(());
    }
    let f = AmortizedFixture::<T>::new(ORIGIN)?;
    let parsed = f.request()?;
    r.op(names[0], || Ok(()), |()| f.request_batch())?;
    r.op(
        names[1],
        || Ok([0u8; BATCH_WIRE]),
        |mut out| f.issuer.evaluate_batch::<BATCH, _>(&parsed, &mut out, &mut rng()),
    )?;
    r.op(names[2], || f.exchange(), |pair| f.finalize(pair))?;
    r.op(names[3], || Ok(()), |()| f.tokens.iter().try_for_each(|t| f.issuer.verify(t, &f.challenge)))
}

fn batched(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("batched-1-2-5/") {
        return Ok(());
    }
    let f = BatchedFixture::new()?;
    r.op("batched-1-2-5/ClientRequest", || Ok(()), |()| f.make_batch())?;
    r.op("batched-1-2-5/IssuerEvaluate", || Ok(()), |()| f.evaluate(&f.request_bytes))?;
    r.op("batched-1-2-5/ClientFinalize", || f.exchange(), |pair| f.finalize(pair))
}

fn rate_limited(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("type3/") {
        return Ok(());
    }
    let f = RateLimitedFixture::new()?;
    let p = &f.parties;
    let request = t3::TokenRequest::decode(&f.request_bytes)?;
    let (client_key, blind) = (p.client.client_key(), f.pending.request_blind());
    let attester = p.attester();
    r.op("type3/ClientRequest", || Ok(()), |()| p.request())?;
    r.op(
        "type3/AttesterProcess",
        || Ok(()),
        |()| attester.process(&request, client_key, blind, &p.anonymous_origin_id, p.now),
    )?;
    r.op("type3/IssuerEvaluate", || Ok(()), |()| p.evaluate(&f.request_bytes))?;
    r.op(
        "type3/AttesterFinalize",
        || Ok(p.attester()),
        |mut a| a.finalize_index(client_key, blind, &f.response.blinded_request_key, &p.anonymous_origin_id, p.now),
    )?;
    r.op(
        "type3/ClientFinalize",
        || p.exchange(),
        |(response, mut state)| p.client.finalize(&mut state, &response.encrypted_token_response),
    )?;
    r.op("type3/OriginVerify", || Ok(()), |()| p.origin.verify(&f.token, &p.challenge))
}

/// Type 0xC07E (ATHM, P-256) with 4 buckets, through its token layer:
/// `IssuerKeygen` includes the key's proof; `IssuerResponse` hides a value
/// with the one-of-4 proof; `ClientFinalize` verifies that proof and
/// unblinds; `IssuerVerify` reads the value back (every bucket compared).
fn athm(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("athm4/") {
        return Ok(());
    }
    let f = AthmFixture::new()?;
    let parsed = f.request()?;
    let params = pat::crypto::athm::Params::<{ crate::demo::ATHM_BUCKETS }>::new(b"pat bench")?;
    r.op("athm4/IssuerKeygen", || Ok(()), |()| pat::crypto::athm::PrivateKey::generate(&params, &mut rng()))?;
    r.op("athm4/ClientRequest", || Ok(()), |()| f.client.request(&mut rng()))?;
    r.op("athm4/IssuerResponse", || Ok(()), |()| f.issuer.issue(&parsed, 3, &mut rng()))?;
    r.op(
        "athm4/ClientFinalize",
        || f.exchange(),
        |(response, state)| f.client.finalize(&state, &response, &mut rng()),
    )?;
    r.op("athm4/IssuerVerify", || Ok(()), |()| f.issuer.verify(&f.token))
}

/// ACT (draft-schlesinger-cfrg-act-01, ristretto255) at its crypto layer,
/// balances of 16 bits: `ClientSpend` proves a spend of 30 (the range proof
/// over 16 bits); `IssuerRefund` verifies that proof and signs a refund of
/// 0 (the nullifier store is the caller's and not timed).
fn act(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("act16/") {
        return Ok(());
    }
    let f = ActFixture::new()?;
    let ctx = [7u8; 32];
    let proof = f.spend(30)?;
    r.op(
        "act16/ClientRequest",
        || pat::crypto::act::PreIssuance::random(&mut rng()),
        |pre| pre.request(&f.params, &mut rng()),
    )?;
    r.op("act16/IssuerIssue", || Ok(()), |()| f.key.issue::<ACT_L, _>(&f.params, &f.request, 100, &ctx, &mut rng()))?;
    r.op(
        "act16/ClientFinalize",
        || Ok(()),
        |()| f.pre.to_credit_token::<ACT_L>(&f.params, f.key.public_key(), &f.request, &f.response),
    )?;
    r.op("act16/ClientSpend", || Ok(()), |()| f.token.prove_spend::<ACT_L, _>(&f.params, 30, &mut rng()))?;
    r.op("act16/IssuerRefund", || Ok(()), |()| f.key.refund::<ACT_L, _>(&f.params, &proof, 0, &mut rng()))
}

/// Type 0xE5AC (ARC, P-256) through its token layer. `ClientPresent` makes
/// one token from a presentation state imported fresh (untimed) for every
/// call; `IssuerVerify` checks one token of that limit (decode, context and
/// key checks, the presentation proof with its range proof).
fn arc(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("arc/") {
        return Ok(());
    }
    let f = ArcFixture::new(ORIGIN)?;
    let parsed = f.request()?;
    r.op("arc/ServerKeygen", || Ok(()), |()| pat::crypto::arc::ServerPrivateKey::generate(&mut rng()))?;
    r.op("arc/ClientRequest", || Ok(()), |()| f.client.request(&f.challenge, &mut rng()))?;
    r.op("arc/IssuerRespond", || Ok(()), |()| f.issuer.issue(&parsed, &mut rng()))?;
    r.op("arc/ClientFinalize", || f.exchange(), |(response, state)| f.client.finalize(&state, &response))?;
    let limits = [
        (2u64, "arc/ClientPresentLimit2", "arc/IssuerVerifyLimit2"),
        (1 << 16, "arc/ClientPresentLimit65536", "arc/IssuerVerifyLimit65536"),
    ];
    let mut tokens = Vec::new();
    for (limit, present, _) in limits {
        let exported = f.presentation_state(limit)?.export();
        r.op(present, || pat::crypto::arc::PresentationState::import(&exported[..]), |mut state| f.token(&mut state))?;
        tokens.push(f.token(&mut f.presentation_state(limit)?)?);
    }
    for ((limit, _, verify), token) in limits.into_iter().zip(&tokens) {
        r.op(verify, || Ok(()), |()| f.verify(token.as_slice(), limit))?;
    }
    Ok(())
}

/// The foundation messages, as `benches/codec.rs` builds them.
fn parse(r: &mut Runner<'_>) -> Result<()> {
    if !r.wants_group("parse/") {
        return Ok(());
    }
    let ctx = [0x11u8; 32];
    let challenge = TokenChallenge::new(2, b"issuer.example", &ctx, b"origin.example,other.example")?;
    let mut cbuf = [0u8; 256];
    let cn = challenge.encode(&mut cbuf)?;
    let challenge_bytes = cbuf.get(..cn).ok_or(pat::Error::BufferTooSmall)?;
    let input = TokenInput::new(TokenKind::PublicRsa2048, &[1; 32], &challenge.digest(), &[3; 32]);
    let authenticator = [0x77u8; 256];
    let mut token = [0u8; 354];
    TokenRef::new(input, &authenticator)?.encode(&mut token)?;
    let mut hbuf = [0u8; 1024];
    let header = auth::write_www_authenticate(challenge_bytes, &[0x30; 342], Some(60), &mut hbuf)?;

    r.op("parse/TokenChallenge", || Ok(()), |()| TokenChallenge::decode(challenge_bytes))?;
    r.op("parse/Token", || Ok(()), |()| TokenRef::decode(&token))?;
    r.op(
        "parse/WwwAuthenticate",
        || Ok([0u8; 256]),
        |mut out| {
            let c = auth::parse_www_authenticate(header).next().ok_or(pat::Error::MalformedHeader)??;
            c.decode_challenge(&mut out).map(|s| s.len())
        },
    )
}

fn run_all(r: &mut Runner<'_>) -> Result<()> {
    private::<PrivateP384>(
        r,
        ["type1/ClientRequest", "type1/IssuerEvaluate", "type1/ClientFinalize", "type1/OriginVerify"],
    )?;
    public(r)?;
    private::<PrivateRistretto255>(
        r,
        ["type5/ClientRequest", "type5/IssuerEvaluate", "type5/ClientFinalize", "type5/OriginVerify"],
    )?;
    amortized::<PrivateP384>(
        r,
        [
            "amortized1x10/ClientRequest",
            "amortized1x10/IssuerEvaluate",
            "amortized1x10/ClientFinalize",
            "amortized1x10/OriginVerify",
        ],
    )?;
    amortized::<PrivateRistretto255>(
        r,
        [
            "amortized5x10/ClientRequest",
            "amortized5x10/IssuerEvaluate",
            "amortized5x10/ClientFinalize",
            "amortized5x10/OriginVerify",
        ],
    )?;
    batched(r)?;
    rate_limited(r)?;
    metadata(r)?;
    poprf(r)?;
    arc(r)?;
    athm(r)?;
    act(r)?;
    parse(r)
}

/// `pat bench`.
pub(crate) fn run(args: &Args, allocations: &dyn Fn() -> usize) -> ExitCode {
    let filter = args.filter.as_deref();
    let selected = OPERATIONS.iter().filter(|n| filter.is_none_or(|f| n.contains(f))).count();
    if selected == 0 {
        eprintln!("error: no operation matches the filter; operations:\n  {}", OPERATIONS.join("\n  "));
        return ExitCode::FAILURE;
    }
    let mut runner = Runner {
        counter: Counter::new(),
        cfg: Config { warmup: args.warmup, iters: args.iters.max(1) },
        filter,
        allocations,
        selected,
        rows: Vec::new(),
    };
    let outcome = run_all(&mut runner);
    eprintln!("\r[{}] {}/{} done{:32}", "#".repeat(20), runner.rows.len(), selected, "");
    if let Err(e) = outcome {
        eprintln!("error: bench failed after {} operations: {e}", runner.rows.len());
        return ExitCode::FAILURE;
    }
    let per_ns = runner.counter.ticks_per_ns();
    let report = Report { rows: &runner.rows, cfg: runner.cfg, ticks_per_ns: per_ns };
    match args.format {
        Format::Markdown => report.markdown(),
        Format::Latex => report.latex(),
        Format::Json => match report.json() {
            Ok(text) => println!("{text}"),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::FAILURE;
            }
        },
    }
    ExitCode::SUCCESS
}

struct Report<'a> {
    rows: &'a [Row],
    cfg: Config,
    ticks_per_ns: f64,
}

impl Report<'_> {
    fn unit(&self) -> &'static str {
        Counter::UNIT.label()
    }

    fn ns(&self, ticks: f64) -> f64 {
        ticks / self.ticks_per_ns
    }

    fn markdown(&self) {
        let unit = self.unit();
        let clock = match Counter::UNIT {
            cycles::Unit::Cycles => format!("TSC at {:.3} GHz", self.ticks_per_ns),
            cycles::Unit::Nanos => "monotonic clock".into(),
        };
        println!(
            "pat {} bench, {} ({}): {} warm-up + {} measured calls per operation, mean and median per call\n",
            env!("CARGO_PKG_VERSION"),
            std::env::consts::ARCH,
            clock,
            self.cfg.warmup,
            self.cfg.iters
        );
        println!("| operation | mean {unit} | median {unit} | ns per op | allocations per op |");
        println!("|---|---:|---:|---:|---:|");
        for row in self.rows {
            println!(
                "| {} | {} | {} | {} | {} |",
                row.name,
                cycles::thousands(row.m.mean),
                cycles::thousands(row.m.median as f64),
                cycles::thousands(self.ns(row.m.mean)),
                allocs(row.m.allocs)
            );
        }
    }

    fn latex(&self) {
        let unit = if Counter::UNIT == cycles::Unit::Cycles { "Cycles" } else { "ns (clock)" };
        let group = |v: f64| cycles::thousands(v).replace(',', "{,}");
        println!("% pat {} bench, {}", env!("CARGO_PKG_VERSION"), std::env::consts::ARCH);
        println!("% {} warm-up + {} measured calls per operation; mean", self.cfg.warmup, self.cfg.iters);
        println!("\\begin{{tabular}}{{lrr}}");
        println!("\\hline");
        println!("Operation & {unit} & ns per op \\\\");
        println!("\\hline");
        for row in self.rows {
            println!("\\texttt{{{}}} & {} & {} \\\\", row.name, group(row.m.mean), group(self.ns(row.m.mean)));
        }
        println!("\\hline");
        println!("\\end{{tabular}}");
    }

    fn json(&self) -> serde_json::Result<String> {
        let rows: Vec<serde_json::Value> = self
            .rows
            .iter()
            .map(|row| {
                serde_json::json!({
                    "operation": row.name,
                    "unit": self.unit(),
                    "mean": row.m.mean,
                    "median": row.m.median,
                    "ns_per_op": self.ns(row.m.mean),
                    "allocations_per_op": row.m.allocs,
                    "warmup": self.cfg.warmup,
                    "iterations": row.m.iters,
                    "arch": std::env::consts::ARCH,
                })
            })
            .collect();
        serde_json::to_string_pretty(&rows)
    }
}

/// Allocations per call: an integer when it is one.
fn allocs(v: f64) -> String {
    if v.fract() == 0.0 { format!("{v:.0}") } else { format!("{v:.2}") }
}
