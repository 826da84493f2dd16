//! The client half of `scripts/abuse`: the hostile and the unlucky clients of
//! an outside tester's campaign, played against a running `pat issuer serve`
//! and `pat origin serve` on loopback, with what the servers did measured.
//! Every subcommand prints `key=value` lines; the script puts them into its
//! table and decides pass or fail, this program never does.
//!
//! ```text
//! abuse slowloris ADDR PID CONNECTIONS BYTES [CHUNK] [INTERVAL_MS]
//!     CONNECTIONS connections at once, each a request head that never ends:
//!     BYTES of one header's value, CHUNK bytes (16384) every INTERVAL_MS (20);
//!     the server's (PID) resident set is sampled while they are held
//! abuse slow ADDR PATH
//!     four connections at once: silent, idle keep-alive after one request,
//!     a head that grows by a byte a second, a POST to PATH whose chunked
//!     body never ends; how long until the server closes each
//! abuse oversized ADDR                            Authorization values of 3 KB, 100 KB and 500 KB
//! abuse flood ORIGIN_URL ISSUER_URL SECS CONNECTIONS REAL_PER_SEC
//!     CONNECTIONS loops of well-formed forged type-1 tokens for SECS seconds;
//!     beside them REAL_PER_SEC real fetches a second (challenge, issuance,
//!     redemption), with the redemptions' latency
//! abuse garbage ORIGIN_URL ISSUER_URL COUNT       COUNT malformed tokens (a type-1 origin), COUNT malformed token requests
//! abuse raw ADDR COUNT                            COUNT connections, each 64 to 1023 random bytes
//! abuse tokens ORIGIN_URL ISSUER_URL COUNT FILE   COUNT real tokens, one Authorization value a line
//! abuse send URL FILE [RETRIES]                   each value of FILE once, in order (a 503 again up
//!                                                 to RETRIES times, 300 ms apart): statuses, latency
//! abuse directory ISSUER_URL                      the keys the issuer's directory publishes, per type
//! abuse status URL                                the status of a GET (0: no answer)
//! abuse rss PID                                   the resident set of a process and its peak, in KiB
//! ```
//!
//! Loopback only; every count and every duration is bounded by the
//! arguments. Not a test: `scripts/abuse` runs it.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::collections::BTreeMap;
use std::io::Write as _;
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use base64ct::{Base64UrlUnpadded, Encoding as _};
use pat::TokenChallenge;
use pat::tokens::private;
use pat::wire::codec::{Decode as _, Encode};
use pat::wire::token_type::PrivateP384;
use pat_http::media;
use sha2::{Digest as _, Sha256};
use tokio::time::MissedTickBehavior;

mod sockets;
use sockets::{oversized, rss, slow, slowloris, status_of, time_to_close};

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

fn random_bytes(n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, &mut out).unwrap();
    out
}

/// A random number below `n` (`n` > 0; the bias of the modulo is no matter here).
fn random_below(n: usize) -> usize {
    let b = random_bytes(8);
    let v = u64::from_le_bytes(b.try_into().unwrap());
    usize::try_from(v % u64::try_from(n).unwrap()).unwrap()
}

fn encoded(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// The `percent` percentile of sorted latencies, in milliseconds.
fn percentile(sorted: &[Duration], percent: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    ms(sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)])
}

fn http() -> reqwest::Client {
    pat_http::client::http_client(None).unwrap()
}

/// The headers of the origin's 401 (its `WWW-Authenticate` challenge).
async fn challenge(http: &reqwest::Client, origin: &str) -> reqwest::header::HeaderMap {
    let r = http.get(origin).send().await.unwrap();
    assert_eq!(r.status(), 401, "the origin should ask for a token");
    r.headers().clone()
}

/// The encoded challenge and the token key of a 401's first challenge.
fn challenge_and_key(headers: &reqwest::header::HeaderMap) -> (Vec<u8>, Vec<u8>) {
    let www = headers["www-authenticate"].to_str().unwrap();
    let c = pat::wire::auth::parse_www_authenticate(www).next().unwrap().unwrap();
    let mut cbuf = vec![0u8; c.challenge.decoded_len_bound()];
    let challenge = c.decode_challenge(&mut cbuf).unwrap().to_vec();
    let mut kbuf = vec![0u8; 1024];
    let key = c.decode_token_key(&mut kbuf).unwrap().to_vec();
    (challenge, key)
}

/// `count` Authorization values for real tokens of the origin's challenge.
async fn real_tokens(origin: &str, issuer: &str, count: usize) -> Vec<String> {
    let http = http();
    let headers = challenge(&http, origin).await;
    let mut out = Vec::with_capacity(count);
    for _ in 0..count {
        out.push(pat_http::client::authorize(&http, &headers, Some(issuer), &mut |_| {}).await.unwrap());
    }
    out
}

/// The token bytes of an Authorization value.
fn token_bytes(authorization: &str) -> Vec<u8> {
    let mut buf = vec![0u8; authorization.len()];
    pat::wire::auth::parse_authorization(authorization).unwrap().decode_base64url(&mut buf).unwrap().to_vec()
}

/// The Authorization value of token bytes (whatever they hold).
fn authorization(token: &[u8]) -> String {
    format!("PrivateToken token=\"{}\"", Base64UrlUnpadded::encode_string(token))
}

/// Well-formed type-1 tokens for one challenge: the right type, challenge
/// digest and key id (all public), a random nonce and authenticator. They
/// pass every check before the verification, which they fail.
struct Forger {
    challenge_digest: [u8; 32],
    key_id: [u8; 32],
}

impl Forger {
    fn new(headers: &reqwest::header::HeaderMap) -> Self {
        let (challenge, key) = challenge_and_key(headers);
        Self { challenge_digest: Sha256::digest(&challenge).into(), key_id: Sha256::digest(&key).into() }
    }

    fn token(&self) -> Vec<u8> {
        let mut token = vec![0, 1];
        token.extend_from_slice(&random_bytes(32));
        token.extend_from_slice(&self.challenge_digest);
        token.extend_from_slice(&self.key_id);
        token.extend_from_slice(&random_bytes(48));
        token
    }
}

/// Answers by class.
#[derive(Default)]
struct Counts {
    ok: u64,
    unauthorized: u64,
    unavailable: u64,
    other_4xx: u64,
    other: u64,
    no_answer: u64,
}

impl Counts {
    fn add(&mut self, status: Option<u16>) {
        match status {
            Some(200..=299) => self.ok += 1,
            Some(401) => self.unauthorized += 1,
            Some(503) => self.unavailable += 1,
            Some(400..=499) => self.other_4xx += 1,
            Some(_) => self.other += 1,
            None => self.no_answer += 1,
        }
    }

    fn merge(&mut self, o: &Self) {
        self.ok += o.ok;
        self.unauthorized += o.unauthorized;
        self.unavailable += o.unavailable;
        self.other_4xx += o.other_4xx;
        self.other += o.other;
        self.no_answer += o.no_answer;
    }

    fn answered(&self) -> u64 {
        self.ok + self.unauthorized + self.unavailable + self.other_4xx + self.other
    }

    /// `other` is every status outside 2xx and 4xx but 503: 5xx, and 1xx/3xx none of these servers sends.
    fn print(&self, prefix: &str) {
        println!("{prefix}_2xx={}", self.ok);
        println!("{prefix}_401={}", self.unauthorized);
        println!("{prefix}_503={}", self.unavailable);
        println!("{prefix}_other_4xx={}", self.other_4xx);
        println!("{prefix}_other={}", self.other);
        println!("{prefix}_no_answer={}", self.no_answer);
    }
}

async fn status(request: reqwest::RequestBuilder) -> Option<u16> {
    request.send().await.ok().map(|r| r.status().as_u16())
}

/// `connections` loops send fresh forged type-1 tokens for `secs` seconds,
/// as fast as the origin answers; meanwhile one client fetches for real
/// `real_per_sec` times a second: the challenge (a GET), a token from the
/// issuer, and the redemption, whose latency is what is measured.
async fn flood(origin: &str, issuer: &str, secs: u64, connections: usize, real_per_sec: u64) {
    let forger = Arc::new(Forger::new(&challenge(&http(), origin).await));
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let attackers: Vec<_> = (0..connections)
        .map(|_| {
            let (http, origin, forger, stop) = (http(), origin.to_owned(), Arc::clone(&forger), Arc::clone(&stop));
            tokio::spawn(async move {
                let mut counts = Counts::default();
                while !stop.load(Ordering::Relaxed) {
                    counts.add(status(http.get(&origin).header("authorization", authorization(&forger.token()))).await);
                }
                counts
            })
        })
        .collect();

    let client = http();
    let (mut redemptions, mut fetches) = (Vec::new(), Vec::new());
    let mut real = Counts::default();
    let (mut no_challenge, mut not_issued) = (0u64, 0u64);
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / real_per_sec.max(1)));
    tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let deadline = started + Duration::from_secs(secs);
    while Instant::now() < deadline {
        tick.tick().await;
        let fetch_started = Instant::now();
        let headers = match client.get(origin).send().await {
            Ok(r) if r.status() == 401 => r.headers().clone(),
            _ => {
                no_challenge += 1;
                continue;
            }
        };
        let Ok(value) = pat_http::client::authorize(&client, &headers, Some(issuer), &mut |_| {}).await else {
            not_issued += 1;
            continue;
        };
        let redemption_started = Instant::now();
        real.add(status(client.get(origin).header("authorization", value)).await);
        redemptions.push(redemption_started.elapsed());
        fetches.push(fetch_started.elapsed());
    }
    stop.store(true, Ordering::Relaxed);
    let wall = started.elapsed().as_secs_f64();
    let mut forged = Counts::default();
    for a in attackers {
        forged.merge(&a.await.unwrap());
    }
    redemptions.sort_unstable();
    fetches.sort_unstable();
    println!("seconds={wall:.1}");
    println!("forged_answered_per_s={:.0}", forged.answered() as f64 / wall);
    forged.print("forged");
    println!("real_sent={}", redemptions.len());
    println!("real_no_challenge={no_challenge}");
    println!("real_not_issued={not_issued}");
    real.print("real");
    println!("real_p50_ms={:.1}", percentile(&redemptions, 50));
    println!("real_p99_ms={:.1}", percentile(&redemptions, 99));
    println!("real_max_ms={:.1}", redemptions.last().map_or(0.0, |d| ms(*d)));
    println!("real_fetch_p99_ms={:.1}", percentile(&fetches, 99));
}

/// Wire sizes of the token requests of types 1, 2 and 5 (type, truncated key id, blinded element or message).
const REQUEST_LENGTHS: [usize; 3] = [2 + 1 + 49, 2 + 1 + 256, 2 + 1 + 32];

/// A type code that is not `not` (another known one, or a random one).
fn other_type(not: u16) -> u16 {
    let choices = [1u16, 2, 3, 5, 0xDA7A, u16::try_from(random_below(0x1_0000)).unwrap()];
    choices.into_iter().filter(|&t| t != not).nth(random_below(choices.len() - 1)).unwrap_or(0xFFFF)
}

/// `bytes` with its first `n` bytes kept, `n` in `1..len` (at least one cut).
fn truncated(bytes: &[u8]) -> Vec<u8> {
    bytes[..random_below(bytes.len() - 1) + 1].to_vec()
}

/// `bytes` with 1 to 16 random bytes after it.
fn with_trailing(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out.extend_from_slice(&random_bytes(1 + random_below(16)));
    out
}

/// `bytes` whose first two bytes (the type code) say another type.
fn with_other_type(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[..2].copy_from_slice(&other_type(u16::from_be_bytes([bytes[0], bytes[1]])).to_be_bytes());
    out
}

/// `count` malformed tokens at the origin (a type-1 origin) and `count`
/// malformed token requests at the issuer: random bytes, wrong type codes,
/// wrong lengths, real ones truncated, lengthened or retyped.
async fn garbage(origin: &str, issuer: &str, count: usize) {
    let http = http();
    let headers = challenge(&http, origin).await;
    let forger = Forger::new(&headers);
    let real_token = token_bytes(&real_tokens(origin, issuer, 1).await[0]);
    let (challenge_bytes, key) = challenge_and_key(&headers);
    let client = private::Client::<PrivateP384>::from_token_key(&key).unwrap();
    let real_request =
        encoded(&client.request(&TokenChallenge::decode(&challenge_bytes).unwrap(), &mut rng()).unwrap().0);

    let mut at_origin = Counts::default();
    let mut not_a_header = 0;
    for i in 0..count {
        let value = match i % 9 {
            0 => authorization(&random_bytes(random_below(600))),
            1 => {
                let mut t = random_bytes(98 + random_below(300));
                t[..2].copy_from_slice(&other_type(1).to_be_bytes());
                authorization(&t)
            }
            2 => {
                // Cut inside the header value: an unterminated quoted string.
                let v = authorization(&forger.token());
                v[..v.len() - 1 - random_below(20)].to_owned()
            }
            3 => format!(
                "{}, extensions=\"{}\"",
                authorization(&forger.token()),
                Base64UrlUnpadded::encode_string(&random_bytes(40))
            ),
            4 => String::from_utf8_lossy(&random_bytes(200)).chars().filter(|c| !c.is_control()).collect(),
            5 => format!("PrivateToken token=\"{}=\"", "A".repeat(random_below(900))),
            6 => authorization(&truncated(&real_token)),
            7 => authorization(&with_trailing(&real_token)),
            _ => authorization(&with_other_type(&real_token)),
        };
        let Ok(value) = reqwest::header::HeaderValue::from_str(&value) else {
            not_a_header += 1;
            continue;
        };
        at_origin.add(status(http.get(origin).header("authorization", value)).await);
    }

    let url = format!("{issuer}/token-request");
    let mut at_issuer = Counts::default();
    for i in 0..count {
        let (content_type, body) = match i % 9 {
            0 => (media::TOKEN_REQUEST, random_bytes(random_below(600))),
            1 => {
                // A request of a known type with any length but the right one.
                let t = [1u16, 2, 5][random_below(3)];
                let mut len = REQUEST_LENGTHS[0];
                while REQUEST_LENGTHS.contains(&len) {
                    len = 2 + random_below(300);
                }
                let mut b = t.to_be_bytes().to_vec();
                b.extend_from_slice(&random_bytes(len - 2));
                (media::TOKEN_REQUEST, b)
            }
            2 => (media::GENERIC_REQUEST, random_bytes(random_below(2000))),
            3 => (media::AMORTIZED_REQUEST, random_bytes(random_below(2000))),
            4 => ("text/plain", random_bytes(100)),
            5 => (media::TOKEN_REQUEST, truncated(&real_request)),
            6 => (media::TOKEN_REQUEST, with_trailing(&real_request)),
            7 => (media::TOKEN_REQUEST, with_other_type(&real_request)),
            _ => {
                // Well-formed, for a truncated key id the issuer does not have.
                let mut b = real_request.clone();
                b[2] ^= 0x55;
                (media::TOKEN_REQUEST, b)
            }
        };
        at_issuer.add(status(http.post(&url).header("content-type", content_type).body(body)).await);
    }
    at_origin.print("origin");
    println!("origin_not_a_header={not_a_header}");
    at_issuer.print("issuer");
}

/// `count` connections, one after the other, each 64 to 1023 random bytes
/// (not HTTP); what the server answers.
fn raw(addr: &str, count: usize) {
    let mut counts = Counts::default();
    let (mut closed_silently, mut held) = (0, 0);
    for _ in 0..count {
        let Ok(mut s) = TcpStream::connect(addr) else {
            counts.add(None);
            continue;
        };
        let _ = s.write_all(&random_bytes(64 + random_below(960)));
        let (after, line) = time_to_close(&mut s, Instant::now(), Duration::from_secs(5));
        match status_of(&line) {
            0 if after.is_finite() => closed_silently += 1,
            0 => held += 1,
            code => counts.add(Some(code)),
        }
    }
    counts.print("raw");
    println!("raw_closed_silently={closed_silently}");
    println!("raw_held={held}");
}

/// Sends each value of `file` once, in order; counts and latency. A 503 is
/// sent again up to `retries` times, 300 ms apart (a client honouring
/// `Retry-After`); the latency is that of each attempt.
async fn send(url: &str, file: &str, retries: usize) {
    let http = http();
    let values = std::fs::read_to_string(file).unwrap();
    let mut counts = Counts::default();
    let mut latencies = Vec::new();
    let mut retried = 0;
    for value in values.lines().filter(|l| !l.is_empty()) {
        let mut left = retries;
        loop {
            let t = Instant::now();
            let answer = status(http.get(url).header("authorization", value)).await;
            latencies.push(t.elapsed());
            if answer == Some(503) && left > 0 {
                left -= 1;
                retried += 1;
                tokio::time::sleep(Duration::from_millis(300)).await;
                continue;
            }
            counts.add(answer);
            break;
        }
    }
    latencies.sort_unstable();
    counts.print("sent");
    println!("retried_503={retried}");
    println!("p50_ms={:.1}", percentile(&latencies, 50));
    println!("p99_ms={:.1}", percentile(&latencies, 99));
    println!("max_ms={:.1}", latencies.last().map_or(0.0, |d| ms(*d)));
}

/// The keys the issuer's directory publishes, per token type.
async fn directory(issuer: &str) {
    let url = format!("{issuer}{}", pat::deploy::directory::WELL_KNOWN_PATH);
    let json = pat_http::client::get_directory(&http(), &url).await.unwrap();
    let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
    let keys = value["token-keys"].as_array().unwrap();
    let mut per_type = BTreeMap::new();
    for k in keys {
        *per_type.entry(k["token-type"].as_u64().unwrap()).or_insert(0) += 1;
    }
    println!("published={}", keys.len());
    for (t, n) in per_type {
        println!("published_type{t}={n}");
    }
}

fn usage() -> ! {
    eprintln!("usage: see the top of http/examples/abuse/main.rs");
    std::process::exit(2)
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_else(|| usage());
    let num = |i: usize| arg(i).parse::<usize>().unwrap_or_else(|_| usage());
    let num_or = |i: usize, default: usize| if args.len() > i { num(i) } else { default };
    match arg(1).as_str() {
        "slowloris" => {
            let (addr, pid, n, bytes) = (arg(2), u32::try_from(num(3)).unwrap(), num(4), num(5));
            let (chunk, interval) = (num_or(6, 16 * 1024), Duration::from_millis(num_or(7, 20) as u64));
            tokio::task::spawn_blocking(move || slowloris(&addr, pid, n, bytes, chunk, interval)).await.unwrap();
        }
        "slow" => {
            let (addr, path) = (arg(2), arg(3));
            tokio::task::spawn_blocking(move || slow(&addr, &path)).await.unwrap();
        }
        "oversized" => {
            let addr = arg(2);
            tokio::task::spawn_blocking(move || oversized(&addr)).await.unwrap();
        }
        "flood" => flood(&arg(2), &arg(3), num(4) as u64, num(5), num(6) as u64).await,
        "garbage" => garbage(&arg(2), &arg(3), num(4)).await,
        "raw" => {
            let (addr, n) = (arg(2), num(3));
            tokio::task::spawn_blocking(move || raw(&addr, n)).await.unwrap();
        }
        "tokens" => {
            let values = real_tokens(&arg(2), &arg(3), num(4)).await;
            std::fs::write(arg(5), values.join("\n") + "\n").unwrap();
            println!("tokens={}", values.len());
        }
        "send" => send(&arg(2), &arg(3), num_or(4, 0)).await,
        "directory" => directory(&arg(2)).await,
        "status" => println!("{}", status(http().get(arg(2))).await.unwrap_or(0)),
        "rss" => {
            let (now, peak) = rss(u32::try_from(num(2)).unwrap());
            println!("rss_kib={now}");
            println!("hwm_kib={peak}");
        }
        _ => usage(),
    }
}
