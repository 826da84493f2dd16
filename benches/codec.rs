//! Parsing benchmarks for the foundation messages (criterion).
//! Inputs are built once outside the timed closures.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use pat::wire::auth;
use pat::wire::challenge::TokenChallenge;
use pat::wire::codec::{Decode, Encode};
use pat::wire::token::{TokenInput, TokenRef};
use pat::wire::token_type::TokenKind;

fn parsing(c: &mut Criterion) {
    let ctx = [0x11u8; 32];
    let challenge = TokenChallenge::new(2, b"issuer.example", &ctx, b"origin.example,other.example").unwrap();
    let mut cbuf = [0u8; 256];
    let cn = challenge.encode(&mut cbuf).unwrap();
    let challenge_bytes = cbuf[..cn].to_vec();

    let input = TokenInput::new(TokenKind::PublicRsa2048, &[1; 32], &challenge.digest(), &[3; 32]);
    let auth_bytes = [0x77u8; 256];
    let token = TokenRef::new(input, &auth_bytes).unwrap();
    let mut tbuf = [0u8; 354];
    token.encode(&mut tbuf).unwrap();

    let mut hbuf = [0u8; 1024];
    let header = auth::write_www_authenticate(&challenge_bytes, &[0x30; 342], Some(60), &mut hbuf).unwrap().to_owned();
    let mut abuf = [0u8; 1024];
    let authz = auth::write_authorization(&tbuf, &mut abuf).unwrap().to_owned();

    let mut g = c.benchmark_group("parse");
    g.bench_function("TokenChallenge", |b| b.iter(|| TokenChallenge::decode(black_box(&challenge_bytes)).unwrap()));
    g.bench_function("ChallengeDigest", |b| b.iter(|| black_box(&challenge).digest()));
    g.bench_function("Token", |b| b.iter(|| TokenRef::decode(black_box(&tbuf)).unwrap()));
    g.bench_function("WwwAuthenticate", |b| {
        b.iter(|| {
            let mut out = [0u8; 256];
            let c = auth::parse_www_authenticate(black_box(&header)).next().unwrap().unwrap();
            c.decode_challenge(&mut out).map(|s| s.len()).unwrap()
        })
    });
    g.bench_function("Authorization", |b| {
        b.iter(|| {
            let mut out = [0u8; 512];
            auth::parse_authorization(black_box(&authz)).unwrap().decode_base64url(&mut out).map(|s| s.len()).unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, parsing);
criterion_main!(benches);
