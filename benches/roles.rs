//! Per-role criterion benchmarks of every token type, named like pat-go's
//! (`ClientRequest`, `IssuerEvaluate`, `ClientFinalize`, plus `OriginVerify`),
//! amortized batches of 1, 10 and 100, a generic batch and type 0x0003 with
//! its attester. Setup happens outside the timed closures; operations that
//! consume their input get a fresh one per iteration (`iter_batched`).
//! Peers (privacypass, ring) are measured in `bench-peers/`.
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use std::hint::black_box;

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use pat::crypto::blind_rsa::SecretKey;
use pat::crypto::key_blinding::ecdsa_p384;
use pat::crypto::rate_limited::encap::EncapSecretKey;
use pat::tokens::amortized::{AmortizedTokenRequest, AmortizedTokenResponse};
use pat::tokens::private::{self, PrivateTokenType};
use pat::tokens::{batched, public, rate_limited as t3};
use pat::wire::codec::{Decode, Encode};
use pat::wire::token_type::{PrivateP384, PrivateRistretto255};
use pat::{OsRng, TokenChallenge};
use rand_core::UnwrapErr;

fn rng() -> UnwrapErr<OsRng> {
    UnwrapErr(OsRng)
}

fn encoded(m: &impl Encode) -> Vec<u8> {
    let mut out = vec![0u8; m.encoded_len()];
    m.encode(&mut out).unwrap();
    out
}

fn private_roles<T: PrivateTokenType>(c: &mut Criterion, name: &str) {
    let issuer = private::Issuer::<T>::generate(&mut rng()).unwrap();
    let client = issuer.client();
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[], b"origin.example").unwrap();
    let (request, _) = client.request(&challenge, &mut rng()).unwrap();
    let (request2, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let token = client.finalize(&mut state, &issuer.evaluate(&request2, &mut rng()).unwrap()).unwrap();
    let mut g = c.benchmark_group(name);
    g.bench_function("ClientRequest", |b| b.iter(|| client.request(black_box(&challenge), &mut rng()).unwrap()));
    g.bench_function("IssuerEvaluate", |b| b.iter(|| issuer.evaluate(black_box(&request), &mut rng()).unwrap()));
    g.bench_function("ClientFinalize", |b| {
        b.iter_batched(
            || {
                let (req, state) = client.request(&challenge, &mut rng()).unwrap();
                (state, issuer.evaluate(&req, &mut rng()).unwrap())
            },
            |(mut state, response)| client.finalize(&mut state, &response).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("OriginVerify", |b| b.iter(|| issuer.verify(black_box(&token), &challenge).unwrap()));
    g.finish();
}

fn amortized<T: PrivateTokenType>(c: &mut Criterion, name: &str) {
    let issuer = private::Issuer::<T>::generate(&mut rng()).unwrap();
    let client = issuer.client();
    let challenge = TokenChallenge::new(T::CODE, b"issuer.example", &[], b"origin.example").unwrap();
    let mut g = c.benchmark_group(name);
    g.sample_size(20);
    macro_rules! sizes {
        ($($n:literal),*) => {$(
            let state = client.request_batch::<$n, _>(&challenge, $n, &mut rng()).unwrap();
            let request = encoded(&state.request());
            g.bench_function(concat!("ClientRequest/", $n), |b| {
                b.iter(|| client.request_batch::<$n, _>(&challenge, $n, &mut rng()).unwrap())
            });
            g.bench_function(concat!("IssuerEvaluate/", $n), |b| {
                let mut out = vec![0u8; 8 + $n * 49 + 96];
                b.iter(|| {
                    let parsed = AmortizedTokenRequest::<T>::decode(black_box(&request)).unwrap();
                    issuer.evaluate_batch::<$n, _>(&parsed, &mut out, &mut rng()).unwrap()
                })
            });
            g.bench_function(concat!("ClientFinalize/", $n), |b| {
                b.iter_batched(
                    || {
                        let state = client.request_batch::<$n, _>(&challenge, $n, &mut rng()).unwrap();
                        let req = encoded(&state.request());
                        let mut out = vec![0u8; 8 + $n * 49 + 96];
                        let parsed = AmortizedTokenRequest::<T>::decode(&req).unwrap();
                        let len = issuer.evaluate_batch::<$n, _>(&parsed, &mut out, &mut rng()).unwrap();
                        out.truncate(len);
                        (state, out)
                    },
                    |(mut state, out)| {
                        client.finalize_batch(&mut state, &AmortizedTokenResponse::<T>::decode(&out).unwrap()).unwrap()
                    },
                    BatchSize::SmallInput,
                )
            });
        )*};
    }
    sizes!(1, 10, 100);
    g.finish();
}

fn public_roles(c: &mut Criterion) {
    let issuer = public::Issuer::new(SecretKey::generate(&mut rng()).unwrap());
    let client = public::Client::new(issuer.public_key().clone());
    let origin = public::Origin::new(issuer.public_key().clone());
    let challenge = TokenChallenge::new(2, b"issuer.example", &[], b"origin.example").unwrap();
    let (request, mut state) = client.request(&challenge, &mut rng()).unwrap();
    let token = client.finalize(&mut state, &issuer.evaluate(&request).unwrap()).unwrap();
    let mut g = c.benchmark_group("type2");
    g.bench_function("ClientRequest", |b| b.iter(|| client.request(black_box(&challenge), &mut rng()).unwrap()));
    g.bench_function("IssuerEvaluate", |b| b.iter(|| issuer.evaluate(black_box(&request)).unwrap()));
    g.bench_function("ClientFinalize", |b| {
        b.iter_batched(
            || {
                let (req, state) = client.request(&challenge, &mut rng()).unwrap();
                (state, issuer.evaluate(&req).unwrap())
            },
            |(mut state, response)| client.finalize(&mut state, &response).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("OriginVerify", |b| b.iter(|| origin.verify(black_box(&token), &challenge).unwrap()));
    g.finish();
}

fn rate_limited(c: &mut Criterion) {
    let origin_name: &[u8] = b"origin.example";
    let challenge = TokenChallenge::new(3, b"issuer.example", &[], origin_name).unwrap();
    let keys = [t3::OriginKey::new(origin_name, ecdsa_p384::SecretKey::random(&mut rng()).unwrap())];
    let encap = EncapSecretKey::random(0x01, &mut rng()).unwrap();
    let issuer = t3::Issuer::new(encap, t3::TokenKey::generate(&mut rng()).unwrap(), keys);
    let client = t3::Client::new(
        ecdsa_p384::SecretKey::random(&mut rng()).unwrap(),
        *issuer.encap_key(),
        issuer.public_key().clone(),
    );
    let origin = t3::Origin::new(issuer.public_key().clone());
    let policy = t3::Policy { max_tokens: u32::MAX, window: 0 };
    let anon = [7u8; 32];
    let request = || {
        let mut out = vec![0u8; t3::request_len(origin_name.len()).unwrap()];
        let (n, state) = client.request(&challenge, origin_name, &mut rng(), &mut out).unwrap();
        out.truncate(n);
        (out, state)
    };
    let evaluate = |bytes: &[u8]| {
        let req = t3::TokenRequest::decode(bytes).unwrap();
        let mut scratch = vec![0u8; t3::scratch_len(&req)];
        issuer.evaluate(&req, &mut scratch, &mut rng()).unwrap()
    };
    let (bytes, mut state) = request();
    let response = evaluate(&bytes);
    let token = client.finalize(&mut state, &response.encrypted_token_response).unwrap();
    let (bytes, state) = request();
    let response = evaluate(&bytes);
    let attester = t3::Attester::<16>::new(policy);

    let mut g = c.benchmark_group("type3");
    g.bench_function("ClientRequest", |b| b.iter(request));
    g.bench_function("AttesterProcess", |b| {
        let req = t3::TokenRequest::decode(&bytes).unwrap();
        b.iter(|| attester.process(black_box(&req), client.client_key(), state.request_blind(), &anon, 0).unwrap())
    });
    g.bench_function("IssuerEvaluate", |b| b.iter(|| evaluate(black_box(&bytes))));
    g.bench_function("AttesterFinalize", |b| {
        b.iter_batched(
            || t3::Attester::<16>::new(policy),
            |mut a| {
                a.finalize_index(client.client_key(), state.request_blind(), &response.blinded_request_key, &anon, 0)
                    .unwrap()
            },
            BatchSize::SmallInput,
        )
    });
    g.bench_function("ClientFinalize", |b| {
        b.iter_batched(
            || {
                let (bytes, state) = request();
                (state, evaluate(&bytes))
            },
            |(mut state, resp)| client.finalize(&mut state, &resp.encrypted_token_response).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.bench_function("OriginVerify", |b| b.iter(|| origin.verify(black_box(&token), &challenge).unwrap()));
    g.finish();
}

fn generic_batch(c: &mut Criterion) {
    let p384 = [private::Issuer::<PrivateP384>::generate(&mut rng()).unwrap()];
    let rsa = [public::Issuer::new(SecretKey::generate(&mut rng()).unwrap())];
    let r255 = [private::Issuer::<PrivateRistretto255>::generate(&mut rng()).unwrap()];
    let issuer = batched::Issuer::new(&p384, &rsa, &r255).expect("distinct truncated key ids");
    let (c1, c2, c5) = (p384[0].client(), public::Client::new(rsa[0].public_key().clone()), r255[0].client());
    let ch = |code| TokenChallenge::new(code, b"issuer.example", &[], b"origin.example").unwrap();
    let (ch1, ch2, ch5) = (ch(1), ch(2), ch(5));
    let make = || {
        let mut batch = batched::BatchState::<3>::new();
        batch.push(&c1, c1.request(&ch1, &mut rng()).unwrap()).unwrap();
        batch.push(&c2, c2.request(&ch2, &mut rng()).unwrap()).unwrap();
        batch.push(&c5, c5.request(&ch5, &mut rng()).unwrap()).unwrap();
        batch
    };
    let evaluate = |bytes: &[u8]| {
        let parsed = batched::GenericBatchTokenRequest::decode(bytes).unwrap();
        let mut out = vec![0u8; parsed.max_response_len()];
        let outcome = issuer.evaluate::<3, _>(&parsed, &mut out, &mut rng()).unwrap();
        out.truncate(outcome.len);
        out
    };
    let request = encoded(&make().request());
    let mut g = c.benchmark_group("batched-1-2-5");
    g.bench_function("ClientRequest", |b| b.iter(|| encoded(&make().request())));
    g.bench_function("IssuerEvaluate", |b| b.iter(|| evaluate(black_box(&request))));
    g.bench_function("ClientFinalize", |b| {
        b.iter_batched(
            || {
                let batch = make();
                let resp = evaluate(&encoded(&batch.request()));
                (batch, resp)
            },
            |(mut batch, resp)| batch.finalize(&batched::GenericBatchTokenResponse::decode(&resp).unwrap()).unwrap(),
            BatchSize::SmallInput,
        )
    });
    g.finish();
}

fn roles(c: &mut Criterion) {
    private_roles::<PrivateP384>(c, "type1");
    public_roles(c);
    private_roles::<PrivateRistretto255>(c, "type5");
    rate_limited(c);
    amortized::<PrivateP384>(c, "amortized1");
    amortized::<PrivateRistretto255>(c, "amortized5");
    generic_batch(c);
}

criterion_group!(benches, roles);
criterion_main!(benches);
