//! The client side of `scripts/abuse`: what a hostile or unlucky client
//! does to a running `pat issuer serve` / `pat origin serve` over loopback,
//! measured. Each subcommand prints `key=value` lines that the script puts
//! into its table; none of them decides pass or fail.
//!
//! ```text
//! abuse slowloris ADDR PID CONNECTIONS BYTES   many connections, each an unterminated head of BYTES
//! abuse slow ADDR                              silent, idle keep-alive, byte-a-second head, endless chunked body
//! abuse oversized ADDR                         Authorization values of 3 KB, 100 KB and 500 KB
//! abuse flood ORIGIN_URL ISSUER_URL SECS CONNECTIONS REAL_PER_SEC   forged type-1 tokens beside real ones
//! abuse garbage ORIGIN_URL ISSUER_URL COUNT    malformed tokens and token requests
//! abuse tokens ORIGIN_URL ISSUER_URL COUNT FILE   obtain COUNT tokens, one Authorization value per line
//! abuse send URL FILE                          each value of FILE once, in order: statuses and latency
//! abuse status URL                             the status of a GET
//! abuse rss PID                                the resident set of a process, in KiB
//! ```
//!
//! Run by `scripts/abuse`, not a test: loopback only, every count and
//! duration bounded by its arguments.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::indexing_slicing,
    clippy::std_instead_of_core,
    clippy::print_stdout,
    clippy::cast_precision_loss,
    clippy::cast_possible_truncation,
    clippy::panic,
    clippy::type_complexity
)]

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use base64ct::{Base64UrlUnpadded, Encoding as _};
use sha2::{Digest as _, Sha256};

fn random_bytes(n: usize) -> Vec<u8> {
    let mut out = vec![0u8; n];
    rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, &mut out).unwrap();
    out
}

fn random_u32() -> u32 {
    let b = random_bytes(4);
    u32::from_le_bytes([b[0], b[1], b[2], b[3]])
}

/// The resident set of `pid` in KiB (`VmRSS`), and its peak (`VmHWM`).
fn rss(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn percentile(sorted: &[Duration], percent: usize) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[(sorted.len() * percent / 100).min(sorted.len() - 1)].as_secs_f64() * 1e3
}

/// Waits until the server closes `stream` (a read gives 0 or an error) or
/// `max` passes; returns the time and the first line the server sent, if any.
fn time_to_close(stream: &mut TcpStream, started: Instant, max: Duration) -> (f64, String) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let left = max.saturating_sub(started.elapsed());
        if left.is_zero() {
            return (f64::INFINITY, first_line(&seen));
        }
        stream.set_read_timeout(Some(left.min(Duration::from_millis(500)))).unwrap();
        match stream.read(&mut buf) {
            Ok(0) => return (started.elapsed().as_secs_f64(), first_line(&seen)),
            Ok(n) => seen.extend_from_slice(&buf[..n]),
            Err(e) if matches!(e.kind(), std::io::ErrorKind::WouldBlock | std::io::ErrorKind::TimedOut) => {}
            Err(_) => return (started.elapsed().as_secs_f64(), first_line(&seen)),
        }
    }
}

fn first_line(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    text.lines().next().unwrap_or("").to_owned()
}

/// The status code of a raw HTTP/1.1 answer's first line (0: none).
fn status_of(line: &str) -> u16 {
    line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// `CONNECTIONS` connections each send the start of a head and then `BYTES`
/// of one header's value, never finished; the server's RSS is sampled while
/// they are held.
fn slowloris(addr: &str, pid: u32, connections: usize, bytes: usize) {
    let (rss_before, _) = rss(pid);
    let peak = Arc::new(AtomicU64::new(rss_before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(rss(pid).0, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(50));
            }
        })
    };
    let started = Instant::now();
    let threads: Vec<_> = (0..connections)
        .map(|_| {
            let addr = addr.to_owned();
            std::thread::spawn(move || {
                let Ok(mut s) = TcpStream::connect(&addr) else { return (false, 0usize, f64::INFINITY) };
                s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
                let mut sent = 0;
                let head = b"GET / HTTP/1.1\r\nHost: abuse\r\nX-Pad: ";
                if s.write_all(head).is_ok() {
                    sent += head.len();
                    let chunk = [b'a'; 16 * 1024];
                    while sent < bytes {
                        let n = chunk.len().min(bytes - sent);
                        if s.write_all(&chunk[..n]).is_err() {
                            break;
                        }
                        sent += n;
                        std::thread::sleep(Duration::from_millis(20));
                    }
                }
                let (closed_after, _) = time_to_close(&mut s, Instant::now(), Duration::from_secs(60));
                (true, sent, closed_after)
            })
        })
        .collect();
    let mut opened = 0;
    let mut closed = 0;
    let mut max_sent = 0;
    for t in threads {
        let (ok, sent, after) = t.join().unwrap();
        opened += usize::from(ok);
        closed += usize::from(ok && after.is_finite());
        max_sent = max_sent.max(sent);
    }
    let wall = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(200));
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let (rss_after, hwm) = rss(pid);
    println!("opened={opened}");
    println!("closed={closed}");
    println!("max_sent_bytes={max_sent}");
    println!("all_closed_s={wall:.1}");
    println!("rss_before_mb={:.1}", rss_before as f64 / 1024.0);
    println!("rss_peak_mb={:.1}", peak.load(Ordering::Relaxed).max(hwm) as f64 / 1024.0);
    println!("rss_after_mb={:.1}", rss_after as f64 / 1024.0);
}

/// Four slow clients at once; how long until the server closes each.
fn slow(addr: &str) {
    let max = Duration::from_secs(120);
    let cases: Vec<(&str, Box<dyn FnOnce(&mut TcpStream) + Send>)> = vec![
        ("silent", Box::new(|_| {})),
        (
            "keepalive",
            Box::new(|s: &mut TcpStream| {
                s.write_all(b"GET /healthz HTTP/1.1\r\nHost: abuse\r\n\r\n").unwrap();
                // Read the answer, then stay idle on the kept-alive connection.
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf);
            }),
        ),
        (
            "head_byte_per_second",
            Box::new(|s: &mut TcpStream| {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: abuse\r\n");
                let s2 = s.try_clone().unwrap();
                std::thread::spawn(move || {
                    let mut s2 = s2;
                    for _ in 0..120 {
                        if s2.write_all(b"x").is_err() {
                            break;
                        }
                        std::thread::sleep(Duration::from_secs(1));
                    }
                });
            }),
        ),
        (
            "chunked_body",
            Box::new(|s: &mut TcpStream| {
                let _ = s.write_all(
                    b"POST /token-request HTTP/1.1\r\nHost: abuse\r\nContent-Type: application/private-token-request\r\n\
                      Transfer-Encoding: chunked\r\n\r\n",
                );
                let s2 = s.try_clone().unwrap();
                std::thread::spawn(move || {
                    let mut s2 = s2;
                    for _ in 0..120 {
                        if s2.write_all(b"1\r\na\r\n").is_err() {
                            break;
                        }
                        std::thread::sleep(Duration::from_secs(1));
                    }
                });
            }),
        ),
    ];
    let threads: Vec<_> = cases
        .into_iter()
        .map(|(name, act)| {
            let addr = addr.to_owned();
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                let started = Instant::now();
                act(&mut s);
                let (after, line) = time_to_close(&mut s, started, max);
                (name, after, status_of(&line))
            })
        })
        .collect();
    for t in threads {
        let (name, after, status) = t.join().unwrap();
        println!("{name}_closed_s={after:.1}");
        if status != 0 && name != "keepalive" {
            println!("{name}_status={status}");
        }
    }
}

/// Authorization values of 3 KB, 100 KB and 500 KB, sent raw (the server
/// may answer before it has read them).
fn oversized(addr: &str) {
    for (name, size) in [("3k", 3 * 1024), ("100k", 100 * 1024), ("500k", 500 * 1024)] {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
        let value = "A".repeat(size);
        let request = format!("GET / HTTP/1.1\r\nHost: abuse\r\nAuthorization: PrivateToken token=\"{value}\"\r\n\r\n");
        let started = Instant::now();
        let _ = s.write_all(request.as_bytes());
        let (_, line) = time_to_close_or_answer(&mut s, started);
        println!("auth_{name}_status={}", status_of(&line));
        println!("auth_{name}_ms={:.1}", started.elapsed().as_secs_f64() * 1e3);
    }
}

/// The first line of the answer (or nothing if the connection closes first).
fn time_to_close_or_answer(s: &mut TcpStream, started: Instant) -> (f64, String) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    while !seen.windows(2).any(|w| w == b"\r\n") {
        match s.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => seen.extend_from_slice(&buf[..n]),
        }
    }
    (started.elapsed().as_secs_f64(), first_line(&seen))
}

fn http() -> reqwest::Client {
    pat_http::client::http_client(None).unwrap()
}

/// The origin's challenge (the `WWW-Authenticate` value) and its headers.
async fn challenge(http: &reqwest::Client, origin: &str) -> reqwest::header::HeaderMap {
    let r = http.get(origin).send().await.unwrap();
    assert_eq!(r.status(), 401, "the origin should ask for a token");
    r.headers().clone()
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

/// A well-formed type-1 token for the challenge, with the right challenge
/// digest and key id (both public) and a random authenticator: it reaches
/// the verification.
fn forged_type1(headers: &reqwest::header::HeaderMap) -> String {
    let www = headers["www-authenticate"].to_str().unwrap();
    let c = pat::auth::parse_www_authenticate(www).next().unwrap().unwrap();
    let mut buf = [0u8; 512];
    let challenge = c.decode_challenge(&mut buf).unwrap().to_vec();
    let mut kbuf = [0u8; 512];
    let key = c.token_key.unwrap().decode_base64url(&mut kbuf).unwrap().to_vec();
    let mut token = vec![0, 1];
    token.extend_from_slice(&random_bytes(32));
    token.extend_from_slice(&Sha256::digest(&challenge));
    token.extend_from_slice(&Sha256::digest(&key));
    token.extend_from_slice(&random_bytes(48));
    format!("PrivateToken token=\"{}\"", Base64UrlUnpadded::encode_string(&token))
}

#[derive(Default)]
struct Counts {
    ok: u64,
    unauthorized: u64,
    unavailable: u64,
    other_4xx: u64,
    other_5xx: u64,
    failed: u64,
}

impl Counts {
    fn add(&mut self, status: Option<u16>) {
        match status {
            Some(200..=299) => self.ok += 1,
            Some(401) => self.unauthorized += 1,
            Some(503) => self.unavailable += 1,
            Some(400..=499) => self.other_4xx += 1,
            Some(_) => self.other_5xx += 1,
            None => self.failed += 1,
        }
    }

    fn print(&self, prefix: &str) {
        println!("{prefix}_2xx={}", self.ok);
        println!("{prefix}_401={}", self.unauthorized);
        println!("{prefix}_503={}", self.unavailable);
        println!("{prefix}_other_4xx={}", self.other_4xx);
        println!("{prefix}_other_5xx={}", self.other_5xx);
        println!("{prefix}_no_answer={}", self.failed);
    }
}

/// `connections` loops send forged type-1 tokens for `secs` seconds while
/// real tokens, obtained before, are redeemed at `real_per_sec`.
async fn flood(origin: &str, issuer: &str, secs: u64, connections: usize, real_per_sec: u64) {
    let real = real_tokens(origin, issuer, usize::try_from(secs * real_per_sec).unwrap()).await;
    let headers = challenge(&http(), origin).await;
    let forged: Arc<Vec<String>> = Arc::new((0..256).map(|_| forged_type1(&headers)).collect());
    let stop = Arc::new(AtomicBool::new(false));
    let started = Instant::now();
    let attackers: Vec<_> = (0..connections)
        .map(|i| {
            let (http, origin, forged, stop) = (http(), origin.to_owned(), Arc::clone(&forged), Arc::clone(&stop));
            tokio::spawn(async move {
                let mut counts = Counts::default();
                let mut n = i;
                while !stop.load(Ordering::Relaxed) {
                    let auth = &forged[n % forged.len()];
                    n += connections;
                    let status =
                        http.get(&origin).header("authorization", auth).send().await.ok().map(|r| r.status().as_u16());
                    counts.add(status);
                }
                counts
            })
        })
        .collect();
    let client = http();
    let mut latencies = Vec::new();
    let mut real_counts = Counts::default();
    let mut tick = tokio::time::interval(Duration::from_micros(1_000_000 / real_per_sec.max(1)));
    for auth in &real {
        tick.tick().await;
        let t = Instant::now();
        let status = client.get(origin).header("authorization", auth).send().await.ok().map(|r| r.status().as_u16());
        latencies.push(t.elapsed());
        real_counts.add(status);
    }
    stop.store(true, Ordering::Relaxed);
    let wall = started.elapsed().as_secs_f64();
    let mut forged_counts = Counts::default();
    for a in attackers {
        let c = a.await.unwrap();
        forged_counts.ok += c.ok;
        forged_counts.unauthorized += c.unauthorized;
        forged_counts.unavailable += c.unavailable;
        forged_counts.other_4xx += c.other_4xx;
        forged_counts.other_5xx += c.other_5xx;
        forged_counts.failed += c.failed;
    }
    latencies.sort_unstable();
    let forged_total = forged_counts.ok
        + forged_counts.unauthorized
        + forged_counts.unavailable
        + forged_counts.other_4xx
        + forged_counts.other_5xx;
    println!("seconds={wall:.1}");
    println!("forged_answered_per_s={:.0}", forged_total as f64 / wall);
    forged_counts.print("forged");
    println!("real_sent={}", real.len());
    real_counts.print("real");
    println!("real_p50_ms={:.1}", percentile(&latencies, 50));
    println!("real_p99_ms={:.1}", percentile(&latencies, 99));
    println!("real_max_ms={:.1}", latencies.last().map_or(0.0, |d| d.as_secs_f64() * 1e3));
}

/// Malformed tokens at the origin and malformed token requests at the
/// issuer, `count` of each.
async fn garbage(origin: &str, issuer: &str, count: usize) {
    let http = http();
    let headers = challenge(&http, origin).await;
    let forged = forged_type1(&headers);
    let mut at_origin = Counts::default();
    for i in 0..count {
        let value = match i % 6 {
            0 => format!(
                "PrivateToken token=\"{}\"",
                Base64UrlUnpadded::encode_string(&random_bytes(random_u32() as usize % 600))
            ),
            1 => {
                // A token of another type code.
                let mut t = random_bytes(98 + random_u32() as usize % 300);
                t[0] = (random_u32() % 256) as u8;
                t[1] = (random_u32() % 256) as u8;
                format!("PrivateToken token=\"{}\"", Base64UrlUnpadded::encode_string(&t))
            }
            2 => forged[..forged.len() - 1 - (random_u32() as usize % 20)].to_owned(),
            3 => format!("{forged}, extensions=\"{}\"", Base64UrlUnpadded::encode_string(&random_bytes(40))),
            4 => String::from_utf8_lossy(&random_bytes(200)).chars().filter(|c| !c.is_control()).collect(),
            _ => format!("PrivateToken token=\"{}=\"", "A".repeat(random_u32() as usize % 900)),
        };
        let status = match reqwest::header::HeaderValue::from_str(&value) {
            Ok(v) => http.get(origin).header("authorization", v).send().await.ok().map(|r| r.status().as_u16()),
            Err(_) => continue,
        };
        at_origin.add(status);
    }
    let url = format!("{issuer}/token-request");
    let mut at_issuer = Counts::default();
    for i in 0..count {
        let (content_type, body) = match i % 5 {
            0 => ("application/private-token-request", random_bytes(random_u32() as usize % 600)),
            1 => {
                // A request of a known type with a wrong length.
                let mut b = vec![0, [1u8, 2, 5][i % 3]];
                b.extend_from_slice(&random_bytes(random_u32() as usize % 300));
                ("application/private-token-request", b)
            }
            2 => ("application/private-token-generic-batch-request", random_bytes(random_u32() as usize % 2000)),
            3 => ("application/private-token-amortized-batch-request", random_bytes(random_u32() as usize % 2000)),
            _ => ("text/plain", random_bytes(100)),
        };
        let status = http
            .post(&url)
            .header("content-type", content_type)
            .body(body)
            .send()
            .await
            .ok()
            .map(|r| r.status().as_u16());
        at_issuer.add(status);
    }
    at_origin.print("origin");
    at_issuer.print("issuer");
}

/// Sends each value of `file` once, in order; counts and latency.
async fn send(url: &str, file: &str) {
    let http = http();
    let values = std::fs::read_to_string(file).unwrap();
    let mut counts = Counts::default();
    let mut latencies = Vec::new();
    for value in values.lines().filter(|l| !l.is_empty()) {
        let t = Instant::now();
        let status = http.get(url).header("authorization", value).send().await.ok().map(|r| r.status().as_u16());
        latencies.push(t.elapsed());
        counts.add(status);
    }
    latencies.sort_unstable();
    counts.print("sent");
    println!("p50_ms={:.1}", percentile(&latencies, 50));
    println!("p99_ms={:.1}", percentile(&latencies, 99));
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).cloned().unwrap_or_else(|| panic!("missing argument {i}: see the docs"));
    let num = |i: usize| arg(i).parse::<u64>().unwrap();
    match arg(1).as_str() {
        "slowloris" => {
            let (addr, pid, n, bytes) = (arg(2), num(3), num(4), num(5));
            tokio::task::spawn_blocking(move || {
                slowloris(
                    &addr,
                    u32::try_from(pid).unwrap(),
                    usize::try_from(n).unwrap(),
                    usize::try_from(bytes).unwrap(),
                );
            })
            .await
            .unwrap();
        }
        "slow" => {
            let addr = arg(2);
            tokio::task::spawn_blocking(move || slow(&addr)).await.unwrap();
        }
        "oversized" => {
            let addr = arg(2);
            tokio::task::spawn_blocking(move || oversized(&addr)).await.unwrap();
        }
        "flood" => flood(&arg(2), &arg(3), num(4), usize::try_from(num(5)).unwrap(), num(6)).await,
        "garbage" => garbage(&arg(2), &arg(3), usize::try_from(num(4)).unwrap()).await,
        "tokens" => {
            let values = real_tokens(&arg(2), &arg(3), usize::try_from(num(4)).unwrap()).await;
            std::fs::write(arg(5), values.join("\n") + "\n").unwrap();
            println!("tokens={}", values.len());
        }
        "send" => send(&arg(2), &arg(3)).await,
        "status" => {
            let status = http().get(arg(2)).send().await.map_or(0, |r| r.status().as_u16());
            println!("{status}");
        }
        "rss" => {
            let (now, peak) = rss(u32::try_from(num(2)).unwrap());
            println!("rss_kib={now}");
            println!("hwm_kib={peak}");
        }
        other => panic!("unknown subcommand {other}"),
    }
}
