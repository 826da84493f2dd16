//! The scenarios that speak raw TCP rather than HTTP through a client: heads
//! that never end, silent and slow connections, oversized header values; and
//! the resident-set probe they measure the server with.

use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use pat_http::media;

use super::{mib, ms};

/// The resident set of `pid` in KiB (`VmRSS`), and its peak so far (`VmHWM`).
pub(super) fn rss(pid: u32) -> (u64, u64) {
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

/// Reads until the server closes `stream` (a read gives 0 or an error) or
/// `max` has passed since `started`; returns the seconds until the close
/// (infinite if it stayed open) and the first line the server sent.
pub(super) fn time_to_close(stream: &mut TcpStream, started: Instant, max: Duration) -> (f64, String) {
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
    String::from_utf8_lossy(bytes).lines().next().unwrap_or("").to_owned()
}

/// The status code of a raw HTTP/1.1 answer's first line (0: none).
pub(super) fn status_of(line: &str) -> u16 {
    line.split_whitespace().nth(1).and_then(|s| s.parse().ok()).unwrap_or(0)
}

/// `connections` connections at once, each the start of a head and then
/// `bytes` of one header's value in `chunk`-byte writes `interval` apart,
/// never finished; samples the server's resident set every 100 ms while
/// they last and waits (at most 60 s each) for the server to close them.
pub(super) fn slowloris(addr: &str, pid: u32, connections: usize, bytes: usize, chunk: usize, interval: Duration) {
    let (rss_before, _) = rss(pid);
    let peak = Arc::new(AtomicU64::new(rss_before));
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let (peak, done) = (Arc::clone(&peak), Arc::clone(&done));
        std::thread::spawn(move || {
            while !done.load(Ordering::Relaxed) {
                peak.fetch_max(rss(pid).0, Ordering::Relaxed);
                std::thread::sleep(Duration::from_millis(100));
            }
        })
    };
    let started = Instant::now();
    let threads: Vec<_> = (0..connections)
        .map(|_| {
            let addr = addr.to_owned();
            std::thread::Builder::new()
                .stack_size(256 * 1024)
                .spawn(move || {
                    let Ok(mut s) = TcpStream::connect(&addr) else { return None };
                    let connected = Instant::now();
                    s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
                    let head = b"GET / HTTP/1.1\r\nHost: abuse\r\nX-Pad: ";
                    let mut sent = 0;
                    if s.write_all(head).is_ok() {
                        let pad = vec![b'a'; chunk];
                        while sent < bytes {
                            let n = chunk.min(bytes - sent);
                            if s.write_all(&pad[..n]).is_err() {
                                break;
                            }
                            sent += n;
                            std::thread::sleep(interval);
                        }
                    }
                    let (closed_after, line) = time_to_close(&mut s, connected, Duration::from_secs(60));
                    Some((sent, closed_after, status_of(&line)))
                })
                .unwrap()
        })
        .collect();
    let (mut opened, mut closed, mut answered_431, mut max_sent) = (0, 0, 0, 0);
    let mut slowest_close: f64 = 0.0;
    for t in threads {
        let Some((sent, after, status)) = t.join().unwrap() else { continue };
        opened += 1;
        if after.is_finite() {
            closed += 1;
            slowest_close = slowest_close.max(after);
        }
        answered_431 += usize::from(status == 431);
        max_sent = max_sent.max(sent);
    }
    let wall = started.elapsed().as_secs_f64();
    std::thread::sleep(Duration::from_millis(200));
    done.store(true, Ordering::Relaxed);
    sampler.join().unwrap();
    let (rss_after, hwm) = rss(pid);
    println!("opened={opened}");
    println!("closed={closed}");
    println!("answered_431={answered_431}");
    println!("max_sent_bytes={max_sent}");
    println!("slowest_close_s={slowest_close:.1}");
    println!("all_closed_s={wall:.1}");
    println!("rss_before_mb={:.1}", mib(rss_before));
    println!("rss_peak_mb={:.1}", mib(peak.load(Ordering::Relaxed).max(hwm)));
    println!("rss_after_mb={:.1}", mib(rss_after));
}

/// The slow clients of [`slow`].
#[derive(Clone, Copy)]
enum Slow {
    /// Connects and sends nothing.
    Silent,
    /// One full request, its answer read, then nothing on the kept-alive connection.
    KeepAlive,
    /// A head that grows by one byte a second and never ends.
    HeadBytePerSecond,
    /// A POST whose chunked body grows by one chunk a second and never ends.
    ChunkedBody,
}

impl Slow {
    const ALL: [Self; 4] = [Self::Silent, Self::KeepAlive, Self::HeadBytePerSecond, Self::ChunkedBody];

    fn name(self) -> &'static str {
        match self {
            Self::Silent => "silent",
            Self::KeepAlive => "keepalive",
            Self::HeadBytePerSecond => "head_byte_per_second",
            Self::ChunkedBody => "chunked_body",
        }
    }

    /// Starts the client on `s`; a trickle runs in its own thread until a write fails (at most 120 s).
    fn start(self, s: &mut TcpStream, path: &str) {
        let trickle = |s: &TcpStream, piece: &'static [u8]| {
            let mut s = s.try_clone().unwrap();
            std::thread::spawn(move || {
                for _ in 0..120 {
                    if s.write_all(piece).is_err() {
                        break;
                    }
                    std::thread::sleep(Duration::from_secs(1));
                }
            });
        };
        match self {
            Self::Silent => {}
            Self::KeepAlive => {
                s.write_all(b"GET /healthz HTTP/1.1\r\nHost: abuse\r\n\r\n").unwrap();
                let mut buf = [0u8; 1024];
                let _ = s.read(&mut buf);
            }
            Self::HeadBytePerSecond => {
                let _ = s.write_all(b"GET / HTTP/1.1\r\nHost: abuse\r\n");
                trickle(s, b"x");
            }
            Self::ChunkedBody => {
                let head = format!(
                    "POST {path} HTTP/1.1\r\nHost: abuse\r\nContent-Type: {}\r\nTransfer-Encoding: chunked\r\n\r\n",
                    media::TOKEN_REQUEST
                );
                let _ = s.write_all(head.as_bytes());
                trickle(s, b"1\r\na\r\n");
            }
        }
    }
}

/// The four slow clients at once; how long until the server closes each.
pub(super) fn slow(addr: &str, path: &str) {
    let threads: Vec<_> = Slow::ALL
        .into_iter()
        .map(|case| {
            let (addr, path) = (addr.to_owned(), path.to_owned());
            std::thread::spawn(move || {
                let mut s = TcpStream::connect(&addr).unwrap();
                let started = Instant::now();
                case.start(&mut s, &path);
                let (after, line) = time_to_close(&mut s, started, Duration::from_secs(120));
                (case, after, status_of(&line))
            })
        })
        .collect();
    for t in threads {
        let (case, after, status) = t.join().unwrap();
        println!("{}_closed_s={after:.1}", case.name());
        println!("{}_status={status}", case.name());
    }
}

/// Authorization values of 3 KB, 100 KB and 500 KB, written raw (the server
/// may answer before it has read them all).
pub(super) fn oversized(addr: &str) {
    for (name, size) in [("3k", 3 * 1024), ("100k", 100 * 1024), ("500k", 500 * 1024)] {
        let mut s = TcpStream::connect(addr).unwrap();
        s.set_write_timeout(Some(Duration::from_secs(5))).unwrap();
        let request = format!(
            "GET / HTTP/1.1\r\nHost: abuse\r\nAuthorization: PrivateToken token=\"{}\"\r\n\r\n",
            "A".repeat(size)
        );
        let started = Instant::now();
        let _ = s.write_all(request.as_bytes());
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !seen.windows(2).any(|w| w == b"\r\n") {
            match s.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => seen.extend_from_slice(&buf[..n]),
            }
        }
        println!("auth_{name}_status={}", status_of(&first_line(&seen)));
        println!("auth_{name}_ms={:.1}", ms(started.elapsed()));
    }
}
