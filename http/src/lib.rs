//! Privacy Pass over HTTP on the `pat` library: an issuer (directory, key
//! rotation, single and batched issuance), an origin (challenge, redemption,
//! replay protection in memory or in Redis) and a client, on tokio, axum,
//! rustls (ring) and reqwest. The protocol work (messages, directory, key
//! sets, replay table) is the library's; this crate carries it over HTTP.
//!
//! The `pat` command's `issuer serve`, `issuer rotate`, `origin serve` and
//! `fetch` are thin wrappers of [`serve_with`], [`keys::rotate`] and
//! [`client::fetch`]. The services face strangers: every resource is
//! bounded ([`server`], [`pool`]), every failure refuses rather than
//! accepts ([`replay`], [`origin`]), and the operator gets metrics, health
//! and readiness ([`admin`], [`metrics`]) and logs through `tracing`.
//!
//! The token types served are one table (the private `registry` module):
//! each type's family knows how to load, publish, issue, verify and fetch
//! it, and the key store, issuer, origin and client read that table.

// A std crate by nature: the core-vs-std lints guard the no_std library.
#![allow(clippy::std_instead_of_core, clippy::alloc_instead_of_core)]

pub mod admin;
pub mod client;
pub mod credentials;
pub mod issuer;
pub mod keys;
pub mod media;
pub mod metrics;
pub mod negotiation;
pub mod origin;
pub mod pool;
mod registry;
pub mod replay;
pub mod server;
pub mod tls;

pub use server::{serve, serve_with};

use std::net::SocketAddr;

/// Errors of the services: a message for the operator.
pub type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The operating system's randomness; a failure of it aborts the request.
pub(crate) fn rng() -> rand_core::UnwrapErr<pat::OsRng> {
    rand_core::UnwrapErr(pat::OsRng)
}

/// A message's encoding in a new vector.
pub(crate) fn encoded(m: &impl pat::Encode) -> Result<Vec<u8>, pat::Error> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out)?;
    Ok(out)
}

/// Lower-case hex, written into a string of its final size (no growing
/// buffer leaves a copy of secret bytes behind).
pub(crate) fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len().saturating_mul(2));
    for b in bytes {
        for nibble in [b >> 4, b & 0x0f] {
            out.push(char::from(DIGITS.get(usize::from(nibble)).copied().unwrap_or(b'0')));
        }
    }
    out
}

/// The bytes of `s`, hex digits only (either case, an even number of them;
/// no sign, space or prefix, which `u8::from_str_radix` would let through),
/// in a buffer of its final size that is wiped when dropped.
pub(crate) fn unhex(s: &str) -> Option<zeroize::Zeroizing<Vec<u8>>> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let (pairs, rest) = s.as_bytes().as_chunks::<2>();
    if !rest.is_empty() {
        return None;
    }
    let mut out = zeroize::Zeroizing::new(Vec::with_capacity(pairs.len()));
    for [hi, lo] in pairs {
        out.push(digit(*hi)? << 4 | digit(*lo)?);
    }
    Some(out)
}

/// Seconds since the UNIX epoch.
pub fn unix_now() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

/// Binds `addr` (port 0 picks one) and returns the listener with its address.
pub fn bind(addr: SocketAddr) -> Result<(std::net::TcpListener, SocketAddr), BoxError> {
    let listener = std::net::TcpListener::bind(addr).map_err(|e| format!("{addr}: {e}"))?;
    let local = listener.local_addr()?;
    Ok((listener, local))
}
