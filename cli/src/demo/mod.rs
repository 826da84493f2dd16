//! `pat demo`, and the set-ups it shares with `pat bench`: for each token type
//! a fixture holding the keys, the challenge and one completed issuance, with
//! allocation-free helpers that make fresh inputs for every role.
//!
//! One file per token family, each with its fixture and its row of the
//! table: [`private`] (types 1 and 5), [`amortized`], [`public`] (type 2),
//! [`metadata`] (type 0xDA7A), [`poprf`] (type 0xDA7B), [`arc`] (type
//! 0xE5AC), [`athm`] (type 0xC07E), [`act`] (ACT's crypto layer), [`rate_limited`] (type 3) and [`batched`] (the generic batch). This module holds what they
//! share, the table and [`demo`], the entry point of `pat demo`.

mod act;
mod amortized;
mod arc;
mod athm;
mod batched;
mod metadata;
mod poprf;
mod private;
mod public;
mod rate_limited;

use std::process::ExitCode;
use std::time::Instant;

use pat::tokens::private as private_tokens;
use pat::wire::auth;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::TokenKind;

pub(crate) use self::act::{ACT_L, ActFixture};
pub(crate) use self::amortized::{AmortizedFixture, BATCH};
pub(crate) use self::arc::ArcFixture;
pub(crate) use self::athm::{ATHM_BUCKETS, AthmFixture};
pub(crate) use self::batched::BatchedFixture;
use self::metadata::METADATA_EXTENSIONS;
pub(crate) use self::metadata::MetadataFixture;
pub(crate) use self::poprf::PoprfFixture;
pub(crate) use self::private::PrivateFixture;
pub(crate) use self::public::PublicFixture;
pub(crate) use self::rate_limited::RateLimitedFixture;
use self::{
    act::act_row, amortized::amortized_row, arc::arc_row, athm::athm_row, batched::batched_row, metadata::metadata_row,
    poprf::poprf_row, private::private_row, public::public_row, rate_limited::rate_limited_row,
};

pub(crate) type Result<T> = core::result::Result<T, pat::Error>;

pub(crate) fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

fn encoded(m: &impl Encode) -> Result<Vec<u8>> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out)?;
    Ok(out)
}

/// Encoded bytes in a fixed buffer (no allocation).
pub(crate) struct Wire<const N: usize> {
    bytes: [u8; N],
    len: usize,
}

impl<const N: usize> Wire<N> {
    pub(crate) fn encode(m: &impl Encode) -> Result<Self> {
        let mut bytes = [0u8; N];
        let len = m.encode(&mut bytes)?;
        Ok(Self { bytes, len })
    }

    pub(crate) fn as_slice(&self) -> &[u8] {
        self.bytes.get(..self.len).unwrap_or_default()
    }
}

pub(crate) const ORIGIN: &[u8] = b"origin.example";
/// Room for an amortized or generic batch response.
pub(crate) const BATCH_WIRE: usize = 1024;

// ---- the demo ----------------------------------------------------------------

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

/// `pat demo`: runs the demo; a failure is reported on stderr.
pub(crate) fn demo() -> ExitCode {
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

fn run_demo() -> Result<()> {
    println!("pat {} demo: origin -> client -> issuer -> client -> origin, in process\n", env!("CARGO_PKG_VERSION"));

    // The HTTP layer once: the origin's challenge header, parsed back by the client.
    let ctx = [0x42u8; 32];
    let challenge = TokenChallenge::new(TokenKind::PrivateP384.code(), b"issuer.example", &ctx, b"origin.example")?;
    let challenge_bytes = encoded(&challenge)?;
    let issuer = private_tokens::Issuer::<pat::wire::token_type::PrivateP384>::generate(&mut rng())?;
    let mut header = [0u8; 512];
    let header = auth::write_www_authenticate(&challenge_bytes, issuer.token_key().as_ref(), Some(3600), &mut header)?;
    println!("WWW-Authenticate: {header}");
    let parsed = auth::parse_www_authenticate(header).next().ok_or(pat::Error::MalformedHeader)??;
    let mut cbuf = [0u8; 128];
    let mut kbuf = [0u8; 64];
    let decoded = TokenChallenge::decode(parsed.decode_challenge(&mut cbuf)?)?;
    let client = private_tokens::Client::<pat::wire::token_type::PrivateP384>::from_token_key(
        parsed.decode_token_key(&mut kbuf)?,
    )?;
    let (req, mut state) = client.request(&decoded, &mut rng())?;
    let token = client.finalize(&mut state, &issuer.evaluate(&req, &mut rng())?)?;
    let mut out = [0u8; 512];
    let authorization = auth::write_authorization(&encoded(&token)?, &mut out)?;
    println!("Authorization: {authorization}");
    let mut tbuf = [0u8; 256];
    let redeemed = pat::Token::<48>::decode(auth::parse_authorization(authorization)?.decode_base64url(&mut tbuf)?)?;
    issuer.verify(&redeemed, &challenge)?;
    println!("origin: token accepted\n");

    let rows = [
        private_row::<pat::wire::token_type::PrivateP384>(ORIGIN)?,
        public_row(ORIGIN)?,
        private_row::<pat::wire::token_type::PrivateRistretto255>(ORIGIN)?,
        amortized_row::<pat::wire::token_type::PrivateP384>(ORIGIN)?,
        amortized_row::<pat::wire::token_type::PrivateRistretto255>(ORIGIN)?,
        batched_row()?,
        metadata_row(ORIGIN)?,
        poprf_row(ORIGIN)?,
    ];
    let (arc, arc_line) = arc_row(ORIGIN)?;
    let (athm, athm_line) = athm_row()?;
    let (act, act_line) = act_row()?;
    let (t3_row, attester_times) = rate_limited_row()?;
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>10} {:>10} {:>10} {:>10}",
        "token type", "request", "response", "token", "request", "evaluate", "finalize", "verify"
    );
    println!(
        "{:<36} {:>7} {:>8} {:>6}  {:>43}",
        "", "bytes", "bytes", "bytes", "median us, client / issuer / client / origin"
    );
    for r in rows.iter().chain([&arc, &athm, &act, &t3_row]) {
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
    println!("{arc_line}");
    println!("{athm_line}");
    println!("{act_line}");
    println!("(generic batch: verify is per type, see the rows above)");
    println!("({RUNS} runs per figure; wall time on this machine; `pat bench` and criterion for real measurements)");
    Ok(())
}
