//! Ace (Tor proposal 223) against ntor (tor-spec "The ntor handshake",
//! proposal 216) on Curve25519, in cycles, by the method of the 2013 tor-dev
//! comparison: ephemeral keys precomputed outside the timed region, 1000
//! warm-up handshakes, then 5000 measured ones, mean cycles. Only the
//! computational core is measured: no cells, no key lookup by KEYID.
//!
//! ```sh
//! cargo bench -p pat-cli --bench ace_ntor [-- --warmup N --iters N]
//! ```
//!
//! - ntor: X25519 (curve25519-dalek's constant-time Montgomery ladder, what
//!   x25519-dalek calls), two per side: EXP(X,y), EXP(X,b) on the server,
//!   EXP(Y,x), EXP(B,x) on the client; HMAC-SHA256 with the tweaks t_key,
//!   t_verify, t_mac; keys by HKDF-SHA256 with info m_expand.
//! - Ace: Edwards points, one two-term multiscalar multiplication per side:
//!   y·X1 + b·X2 on the server, x1·Y + x2·B on the client. Both scalars are
//!   secret on both sides, so this is curve25519-dalek's constant-time
//!   `MultiscalarMul` (Straus with constant-time table lookups), not
//!   `vartime_double_scalar_mul_basepoint`, which takes a public scalar and
//!   the base point as its second term. Points travel compressed (32 bytes);
//!   each received point is decompressed and checked for small order.
//!
//! Not part of the library: `pat` has no Tor code. The harness is `pat
//! bench`'s (`pat_cli::cycles`).

#![allow(
    missing_docs,
    clippy::std_instead_of_core,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing
)]

use curve25519_dalek::edwards::{CompressedEdwardsY, EdwardsPoint};
use curve25519_dalek::montgomery::MontgomeryPoint;
use curve25519_dalek::scalar::Scalar;
use curve25519_dalek::traits::{IsIdentity, MultiscalarMul};
use hkdf::Hkdf;
use hmac::{Hmac, KeyInit, Mac};
use rand_core::Rng as _;
use sha2::Sha256;
use stats_alloc::{INSTRUMENTED_SYSTEM, StatsAlloc};
use subtle::ConstantTimeEq;

use pat_cli::cycles::{self, Config, Counter, Measurement};

#[global_allocator]
static GLOBAL: &StatsAlloc<std::alloc::System> = &INSTRUMENTED_SYSTEM;

fn allocations() -> usize {
    let s = GLOBAL.stats();
    s.allocations.saturating_add(s.reallocations)
}

/// Relay keys, 72 bytes as tor's CREATE2 handshakes derive them (Df, Db: 20
/// bytes each; Kf, Kb: 16 bytes each).
const KEYS_LEN: usize = 72;
type Keys = [u8; KEYS_LEN];

/// A failed check (bad point, all-zero shared secret, wrong AUTH).
#[derive(Debug)]
struct Failed;

/// H(x, t) = HMAC-SHA256 with key t over the concatenation of `parts`.
fn h(t: &[u8], parts: &[&[u8]]) -> [u8; 32] {
    let mut mac = Hmac::<Sha256>::new_from_slice(t).expect("HMAC takes any key length");
    for p in parts {
        mac.update(p);
    }
    mac.finalize().into_bytes().into()
}

/// HKDF-Expand from a KEY_SEED (= HMAC(t_key, secret_input), the RFC 5869
/// PRK with salt t_key) with info m_expand.
fn expand(key_seed: &[u8; 32], m_expand: &[u8]) -> Result<Keys, Failed> {
    let mut keys = [0u8; KEYS_LEN];
    Hkdf::<Sha256>::from_prk(key_seed).map_err(|_| Failed)?.expand(m_expand, &mut keys).map_err(|_| Failed)?;
    Ok(keys)
}

fn random32() -> [u8; 32] {
    let mut b = [0u8; 32];
    rand_core::UnwrapErr(pat::OsRng).fill_bytes(&mut b);
    b
}

fn random_scalar() -> Scalar {
    let mut wide = [0u8; 64];
    rand_core::UnwrapErr(pat::OsRng).fill_bytes(&mut wide);
    Scalar::from_bytes_mod_order_wide(&wide)
}

// ---- ntor -----------------------------------------------------------------

mod ntor {
    use super::*;

    pub const PROTOID: &[u8] = b"ntor-curve25519-sha256-1";
    const T_MAC: &[u8] = b"ntor-curve25519-sha256-1:mac";
    const T_KEY: &[u8] = b"ntor-curve25519-sha256-1:key_extract";
    const T_VERIFY: &[u8] = b"ntor-curve25519-sha256-1:verify";
    const M_EXPAND: &[u8] = b"ntor-curve25519-sha256-1:key_expand";

    /// EXP(u, k): X25519.
    pub fn exp(u: &[u8; 32], k: &[u8; 32]) -> [u8; 32] {
        MontgomeryPoint(*u).mul_clamped(*k).to_bytes()
    }

    pub fn keygen() -> ([u8; 32], [u8; 32]) {
        let k = random32();
        (k, MontgomeryPoint::mul_base_clamped(k).to_bytes())
    }

    /// The router: identity digest ID (20 bytes), onion key b, B.
    pub struct Router {
        pub id: [u8; 20],
        pub b: [u8; 32],
        pub pk_b: [u8; 32],
    }

    /// What the server sends back: Y and AUTH.
    #[derive(Clone, Copy)]
    pub struct Reply {
        pub pk_y: [u8; 32],
        pub auth: [u8; 32],
    }

    /// The common part of both sides: secret_input = exp1 | exp2 | ID | B | X
    /// | Y | PROTOID, KEY_SEED = H(secret_input, t_key), verify =
    /// H(secret_input, t_verify), auth_input = verify | ID | B | Y | X |
    /// PROTOID | "Server", AUTH = H(auth_input, t_mac), keys.
    fn derive(
        exp1: &[u8; 32],
        exp2: &[u8; 32],
        id: &[u8; 20],
        pk_b: &[u8; 32],
        pk_x: &[u8; 32],
        pk_y: &[u8; 32],
    ) -> Result<([u8; 32], Keys), Failed> {
        // EXP results that are the point at infinity (all zero) abort.
        let zero = [0u8; 32];
        if bool::from(exp1.ct_eq(&zero) | exp2.ct_eq(&zero)) {
            return Err(Failed);
        }
        let secret_input: [&[u8]; 7] = [exp1, exp2, id, pk_b, pk_x, pk_y, PROTOID];
        let key_seed = h(T_KEY, &secret_input);
        let verify = h(T_VERIFY, &secret_input);
        let auth = h(T_MAC, &[&verify, id, pk_b, pk_y, pk_x, PROTOID, b"Server"]);
        Ok((auth, expand(&key_seed, M_EXPAND)?))
    }

    /// The server, with its precomputed ephemeral (y, Y), on the client's X.
    pub fn server(r: &Router, pk_x: &[u8; 32], (y, pk_y): &([u8; 32], [u8; 32])) -> Result<(Reply, Keys), Failed> {
        let (auth, keys) = derive(&exp(pk_x, y), &exp(pk_x, &r.b), &r.id, &r.pk_b, pk_x, pk_y)?;
        Ok((Reply { pk_y: *pk_y, auth }, keys))
    }

    /// The client, with its precomputed ephemeral (x, X), on the reply.
    pub fn client(r: &Router, (x, pk_x): &([u8; 32], [u8; 32]), reply: &Reply) -> Result<Keys, Failed> {
        let (auth, keys) = derive(&exp(&reply.pk_y, x), &exp(&r.pk_b, x), &r.id, &r.pk_b, pk_x, &reply.pk_y)?;
        if bool::from(auth.ct_eq(&reply.auth)) { Ok(keys) } else { Err(Failed) }
    }
}

// ---- Ace ------------------------------------------------------------------

mod ace {
    use super::*;

    pub const PROTOID: &[u8] = b"ace-curve25519-ed-uncompressed-sha256-1";
    const T_MAC: &[u8] = b"ace-curve25519-ed-uncompressed-sha256-1:mac";
    const T_KEY: &[u8] = b"ace-curve25519-ed-uncompressed-sha256-1:key";
    const T_VERIFY: &[u8] = b"ace-curve25519-ed-uncompressed-sha256-1:verify";
    /// Proposal 223 says "expand keys using HKDF as with the ntor handshake";
    /// the info string is ours, by analogy with ntor's m_expand.
    const M_EXPAND: &[u8] = b"ace-curve25519-ed-uncompressed-sha256-1:key_expand";

    /// A scalar and its point, compressed.
    pub fn keygen() -> (Scalar, [u8; 32]) {
        let k = random_scalar();
        (k, EdwardsPoint::mul_base(&k).compress().to_bytes())
    }

    /// "Checks X": a valid encoding of a point outside the small subgroup.
    fn point(bytes: &[u8; 32]) -> Result<EdwardsPoint, Failed> {
        let p = CompressedEdwardsY(*bytes).decompress().ok_or(Failed)?;
        if p.is_small_order() { Err(Failed) } else { Ok(p) }
    }

    /// MULTIEXPONEN(A, a, C, c) = a·A + c·C, constant time.
    pub fn multiexponen(a_point: &EdwardsPoint, a: &Scalar, c_point: &EdwardsPoint, c: &Scalar) -> EdwardsPoint {
        EdwardsPoint::multiscalar_mul([a, c], [a_point, c_point])
    }

    /// The router: identity digest ID (H_LENGTH = 32 bytes), b, B (decoded
    /// once, from the descriptor).
    pub struct Router {
        pub id: [u8; 32],
        pub b: Scalar,
        pub point_b: EdwardsPoint,
        pub pk_b: [u8; 32],
    }

    #[derive(Clone, Copy)]
    pub struct Reply {
        pub pk_y: [u8; 32],
        pub auth: [u8; 32],
    }

    /// The client's precomputed ephemerals: x1, X1, x2, X2.
    pub struct ClientKeys {
        pub x1: Scalar,
        pub pk_x1: [u8; 32],
        pub x2: Scalar,
        pub pk_x2: [u8; 32],
    }

    /// secret_input = point | ID | B | X1 | X2 | Y | PROTOID, KEY_SEED =
    /// H(secret_input | "Key Seed", t_key), KEY_VERIFY = H(secret_input |
    /// "HMac Seed", t_verify), auth_input = ID | B | Y | X1 | X2 | PROTOID |
    /// "Server", AUTH = H(auth_input, KEY_VERIFY).
    fn derive(
        point: &EdwardsPoint,
        r: &Router,
        pk_x1: &[u8; 32],
        pk_x2: &[u8; 32],
        pk_y: &[u8; 32],
    ) -> Result<([u8; 32], Keys), Failed> {
        if point.is_identity() {
            return Err(Failed);
        }
        let p = point.compress().to_bytes();
        let key_seed = h(T_KEY, &[&p, &r.id, &r.pk_b, pk_x1, pk_x2, pk_y, PROTOID, b"Key Seed"]);
        let key_verify = h(T_VERIFY, &[&p, &r.id, &r.pk_b, pk_x1, pk_x2, pk_y, PROTOID, b"HMac Seed"]);
        let auth = h(&key_verify, &[&r.id, &r.pk_b, pk_y, pk_x1, pk_x2, PROTOID, b"Server"]);
        let _ = T_MAC; // named by the proposal, used by none of its formulas
        Ok((auth, expand(&key_seed, M_EXPAND)?))
    }

    /// The server on (X1, X2), with its precomputed (y, Y).
    pub fn server(
        r: &Router,
        pk_x1: &[u8; 32],
        pk_x2: &[u8; 32],
        (y, pk_y): &(Scalar, [u8; 32]),
    ) -> Result<(Reply, Keys), Failed> {
        let point = multiexponen(&point(pk_x1)?, y, &point(pk_x2)?, &r.b);
        let (auth, keys) = derive(&point, r, pk_x1, pk_x2, pk_y)?;
        Ok((Reply { pk_y: *pk_y, auth }, keys))
    }

    /// The client on the reply (Y, AUTH).
    pub fn client(r: &Router, c: &ClientKeys, reply: &Reply) -> Result<Keys, Failed> {
        let point = multiexponen(&point(&reply.pk_y)?, &c.x1, &r.point_b, &c.x2);
        let (auth, keys) = derive(&point, r, &c.pk_x1, &c.pk_x2, &reply.pk_y)?;
        if bool::from(auth.ct_eq(&reply.auth)) { Ok(keys) } else { Err(Failed) }
    }
}

// ---- the measurement --------------------------------------------------------

/// Ephemeral keys for this many handshakes, precomputed and used in turn.
const POOL: usize = 64;

struct NtorSet {
    client: ([u8; 32], [u8; 32]),
    server: ([u8; 32], [u8; 32]),
    reply: ntor::Reply,
}

struct AceSet {
    client: ace::ClientKeys,
    server: (Scalar, [u8; 32]),
    reply: ace::Reply,
}

fn arg(name: &str, default: usize) -> usize {
    let args: Vec<String> = std::env::args().collect();
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .map(|v| v.parse().expect("a number"))
        .unwrap_or(default)
}

fn main() {
    let cfg = Config { warmup: arg("--warmup", 1000), iters: arg("--iters", 5000) };
    let counter = Counter::new();

    // Long-term keys and POOL sets of ephemeral keys; every set is checked:
    // both sides derive the same keys.
    let (b, pk_b) = ntor::keygen();
    let nr = ntor::Router { id: random32()[..20].try_into().unwrap(), b, pk_b };
    let ntor_sets: Vec<NtorSet> = (0..POOL)
        .map(|_| {
            let (client, server) = (ntor::keygen(), ntor::keygen());
            let (reply, server_keys) = ntor::server(&nr, &client.1, &server).unwrap();
            let client_keys = ntor::client(&nr, &client, &reply).unwrap();
            assert_eq!(server_keys, client_keys, "ntor: both sides derive the same keys");
            NtorSet { client, server, reply }
        })
        .collect();
    let (b, pk_b) = ace::keygen();
    let ar = ace::Router { id: random32(), b, point_b: CompressedEdwardsY(pk_b).decompress().unwrap(), pk_b };
    let ace_sets: Vec<AceSet> = (0..POOL)
        .map(|_| {
            let ((x1, pk_x1), (x2, pk_x2)) = (ace::keygen(), ace::keygen());
            let client = ace::ClientKeys { x1, pk_x1, x2, pk_x2 };
            let server = ace::keygen();
            let (reply, server_keys) = ace::server(&ar, &client.pk_x1, &client.pk_x2, &server).unwrap();
            let client_keys = ace::client(&ar, &client, &reply).unwrap();
            assert_eq!(server_keys, client_keys, "Ace: both sides derive the same keys");
            AceSet { client, server, reply }
        })
        .collect();
    // A wrong AUTH is refused by both clients.
    let mut bad = ntor_sets[0].reply;
    bad.auth[0] ^= 1;
    assert!(ntor::client(&nr, &ntor_sets[0].client, &bad).is_err());
    let mut bad = ace_sets[0].reply;
    bad.auth[0] ^= 1;
    assert!(ace::client(&ar, &ace_sets[0].client, &bad).is_err());

    let mut next = 0usize;
    let mut pick = move || -> Result<usize, Failed> {
        next = (next + 1) % POOL;
        Ok(next)
    };
    let run = |name: &'static str, m: Result<Measurement, Failed>| {
        eprintln!("  {name}");
        (name, m.expect("handshake failed"))
    };
    eprintln!("ace_ntor: {} warm-up + {} measured calls per row", cfg.warmup, cfg.iters);
    let rows = [
        run(
            "ntor handshake (server + client)",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                let s = &ntor_sets[i];
                let (reply, server_keys) = ntor::server(&nr, &s.client.1, &s.server)?;
                let client_keys = ntor::client(&nr, &s.client, &reply)?;
                if server_keys == client_keys { Ok(client_keys) } else { Err(Failed) }
            }),
        ),
        run(
            "ntor server",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                ntor::server(&nr, &ntor_sets[i].client.1, &ntor_sets[i].server)
            }),
        ),
        run(
            "ntor client",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                ntor::client(&nr, &ntor_sets[i].client, &ntor_sets[i].reply)
            }),
        ),
        run(
            "Ace handshake (server + client)",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                let s = &ace_sets[i];
                let (reply, server_keys) = ace::server(&ar, &s.client.pk_x1, &s.client.pk_x2, &s.server)?;
                let client_keys = ace::client(&ar, &s.client, &reply)?;
                if server_keys == client_keys { Ok(client_keys) } else { Err(Failed) }
            }),
        ),
        run(
            "Ace server",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                let s = &ace_sets[i];
                ace::server(&ar, &s.client.pk_x1, &s.client.pk_x2, &s.server)
            }),
        ),
        run(
            "Ace client",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                ace::client(&ar, &ace_sets[i].client, &ace_sets[i].reply)
            }),
        ),
        run(
            "X25519 (one; ntor does 2 per side)",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                Ok(ntor::exp(&ntor_sets[i].client.1, &ntor_sets[i].server.0))
            }),
        ),
        run(
            "two-term multiscalar mul, constant time (Ace: 1 per side)",
            cycles::measure(&counter, cfg, &allocations, &mut pick, |i| {
                let s = &ace_sets[i];
                Ok(ace::multiexponen(&ar.point_b, &s.client.x1, &ar.point_b, &s.client.x2))
            }),
        ),
    ];
    let per_ns = counter.ticks_per_ns();
    let unit = Counter::UNIT.label();
    let arch = std::env::consts::ARCH;
    let bits = if cfg!(target_pointer_width = "64") { 64 } else { 32 };
    let (ntor_mean, ace_mean) = (rows[0].1.mean, rows[3].1.mean);

    // The form of the 2013 tor-dev tables.
    println!("{bits}-bit architecture ({arch}, TSC {per_ns:.3} GHz):");
    println!("Ace: {} {unit},", cycles::thousands(ace_mean));
    println!("ntor: {} {unit},", cycles::thousands(ntor_mean));
    let published = if bits == 64 { "0.85 (401,129 / 472,772)" } else { "0.54 (2,797,303 / 5,179,069)" };
    println!("Ace/ntor: {:.2} (2013, {bits}-bit: {published})\n", ace_mean / ntor_mean);

    println!("| {arch} | mean {unit} | median {unit} | ns | allocations |");
    println!("|---|---:|---:|---:|---:|");
    for (name, m) in &rows {
        println!(
            "| {name} | {} | {} | {} | {} |",
            cycles::thousands(m.mean),
            cycles::thousands(m.median as f64),
            cycles::thousands(m.mean / per_ns),
            if m.allocs.fract() == 0.0 { format!("{:.0}", m.allocs) } else { format!("{:.2}", m.allocs) }
        );
    }
    println!("| Ace/ntor, handshake means | {:.2} | | | |", ace_mean / ntor_mean);
}
