//! Load on a running issuer and origin over loopback (a benchmark, run by
//! `scripts/load`, not a test): issuances per second by one issuer and
//! redemptions per second by one origin, with p50 and p99 latency, from one
//! client process with many connections.
//!
//! `cargo run --release -p pat-http --example load -- ISSUER_URL ORIGIN_URL TOKEN_TYPE [REQUESTS] [CONNECTIONS] [RATE]`
//!
//! The requests (and, for the origin, the tokens) are made before the clock
//! starts, so the figures are the server's: its HTTP handling and its
//! cryptography, not the client's. With RATE (redemptions per second), the
//! redemptions are offered at that fixed rate (open loop: each starts on
//! time whether or not the ones before have been answered) instead of as
//! fast as CONNECTIONS allow, which is how a latency at a given load is
//! measured.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use pat::TokenChallenge;
use pat::tokens::private::{self, PrivateTokenType};
use pat::tokens::public;
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat_http::media;
use tokio::sync::Semaphore;

fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

fn encoded(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

/// A prepared request and what turns its response into a token.
type Finish = Box<dyn FnOnce(&[u8]) -> Vec<u8>>;

fn prepare(token_type: u16, key: &[u8], challenge: &TokenChallenge<'_>) -> (Vec<u8>, Finish) {
    fn private_one<T: PrivateTokenType>(key: &[u8], challenge: &TokenChallenge<'_>) -> (Vec<u8>, Finish) {
        let client = private::Client::<T>::from_token_key(key).unwrap();
        let (request, mut state) = client.request(challenge, &mut rng()).unwrap();
        let finish: Finish = Box::new(move |bytes: &[u8]| {
            let response = private::TokenResponse::<T>::decode(bytes).unwrap();
            encoded(&client.finalize(&mut state, &response).unwrap())
        });
        (encoded(&request), finish)
    }
    match token_type {
        1 => private_one::<PrivateP384>(key, challenge),
        5 => private_one::<PrivateRistretto255>(key, challenge),
        _ => {
            let client = public::Client::from_token_key(key).unwrap();
            let (request, mut state) = client.request(challenge, &mut rng()).unwrap();
            let finish: Finish = Box::new(move |bytes: &[u8]| {
                let response = public::TokenResponse::decode(bytes).unwrap();
                encoded(&client.finalize(&mut state, &response).unwrap())
            });
            (encoded(&request), finish)
        }
    }
}

struct Stats {
    per_second: f64,
    p50: Duration,
    p99: Duration,
}

fn stats(mut latencies: Vec<Duration>, wall: Duration) -> Stats {
    latencies.sort_unstable();
    let at = |percent: usize| latencies[(latencies.len() * percent / 100).min(latencies.len() - 1)];
    Stats { per_second: latencies.len() as f64 / wall.as_secs_f64(), p50: at(50), p99: at(99) }
}

/// Runs `jobs` with at most `connections` in flight; returns each latency and the wall time.
async fn run<F>(jobs: Vec<F>, connections: usize) -> (Vec<Duration>, Duration)
where
    F: Future<Output = ()> + Send + 'static,
{
    let gate = Arc::new(Semaphore::new(connections));
    let start = Instant::now();
    let mut handles = Vec::with_capacity(jobs.len());
    for job in jobs {
        let permit = Arc::clone(&gate).acquire_owned().await.unwrap();
        handles.push(tokio::spawn(async move {
            let t = Instant::now();
            job.await;
            drop(permit);
            t.elapsed()
        }));
    }
    let mut latencies = Vec::with_capacity(handles.len());
    for h in handles {
        latencies.push(h.await.unwrap());
    }
    (latencies, start.elapsed())
}

/// Starts `jobs` at `rate` per second, each on time (no gate); returns
/// each latency and the wall time.
async fn run_at_rate<F>(jobs: Vec<F>, rate: f64) -> (Vec<Duration>, Duration)
where
    F: Future<Output = ()> + Send + 'static,
{
    let mut tick = tokio::time::interval(Duration::from_secs_f64(1.0 / rate));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Burst);
    let start = Instant::now();
    let mut handles = Vec::with_capacity(jobs.len());
    for job in jobs {
        tick.tick().await;
        handles.push(tokio::spawn(async move {
            let t = Instant::now();
            job.await;
            t.elapsed()
        }));
    }
    let mut latencies = Vec::with_capacity(handles.len());
    for h in handles {
        latencies.push(h.await.unwrap());
    }
    (latencies, start.elapsed())
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (issuer_url, origin_url) = (args[1].clone(), args[2].clone());
    let token_type: u16 = args[3].parse().unwrap();
    let requests: usize = args.get(4).map_or(2000, |s| s.parse().unwrap());
    let connections: usize = args.get(5).map_or(32, |s| s.parse().unwrap());
    let rate: f64 = args.get(6).map_or(0.0, |s| s.parse().unwrap());
    let http = pat_http::client::http_client(None).unwrap();

    // The origin's challenge and the issuer's key, as a client reads them.
    let first = http.get(&origin_url).send().await.unwrap();
    let header = first.headers()["www-authenticate"].to_str().unwrap().to_owned();
    let parsed = pat::wire::auth::parse_www_authenticate(&header).next().unwrap().unwrap();
    let mut cbuf = vec![0u8; parsed.challenge.decoded_len_bound()];
    let challenge_bytes = parsed.decode_challenge(&mut cbuf).unwrap().to_vec();
    let mut kbuf = vec![0u8; 1024];
    let key = parsed.decode_token_key(&mut kbuf).unwrap().to_vec();
    let challenge = TokenChallenge::decode(&challenge_bytes).unwrap();
    let request_url = format!("{issuer_url}/token-request");

    // Issuance: prepared requests, posted concurrently.
    let prepared: Vec<(Vec<u8>, Finish)> = (0..requests).map(|_| prepare(token_type, &key, &challenge)).collect();
    let (bodies, finishers): (Vec<_>, Vec<_>) = prepared.into_iter().unzip();
    let responses = Arc::new(std::sync::Mutex::new(vec![Vec::new(); requests]));
    let jobs: Vec<_> = bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| {
            let (http, url, responses) = (http.clone(), request_url.clone(), Arc::clone(&responses));
            async move {
                let r = http.post(url).header("content-type", media::TOKEN_REQUEST).body(body).send().await.unwrap();
                assert_eq!(r.status(), 200);
                let bytes = r.bytes().await.unwrap().to_vec();
                responses.lock().unwrap()[i] = bytes;
            }
        })
        .collect();
    let (lat, wall) = run(jobs, connections).await;
    let issue = stats(lat, wall);

    // Redemption: the tokens just issued, spent concurrently.
    let responses = std::mem::take(&mut *responses.lock().unwrap());
    let authorizations: Vec<String> = finishers
        .into_iter()
        .zip(responses)
        .map(|(finish, response)| {
            let token = finish(&response);
            let mut out = vec![0u8; token.len() * 2 + 64];
            pat::wire::auth::write_authorization(&token, &mut out).unwrap().to_owned()
        })
        .collect();
    let jobs: Vec<_> = authorizations
        .into_iter()
        .map(|authorization| {
            let (http, url) = (http.clone(), origin_url.clone());
            async move {
                let r = http.get(url).header("authorization", authorization).send().await.unwrap();
                assert_eq!(r.status(), 200);
            }
        })
        .collect();
    let (lat, wall) = if rate > 0.0 { run_at_rate(jobs, rate).await } else { run(jobs, connections).await };
    let redeem = stats(lat, wall);

    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!(
        "| {token_type} | issue | {requests} | {connections} | {:.0} | {:.2} | {:.2} |",
        issue.per_second,
        ms(issue.p50),
        ms(issue.p99)
    );
    let (operation, connections) = if rate > 0.0 {
        (format!("redeem at {rate:.0}/s"), "-".to_owned())
    } else {
        ("redeem".to_owned(), connections.to_string())
    };
    println!(
        "| {token_type} | {operation} | {requests} | {connections} | {:.0} | {:.2} | {:.2} |",
        redeem.per_second,
        ms(redeem.p50),
        ms(redeem.p99)
    );
}
