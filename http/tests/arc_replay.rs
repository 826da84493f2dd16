//! ARC presentation tags through the origin's replay store (the in-memory
//! store of `pat origin`; the Redis store takes the same keys): a limit of N
//! gives N fresh tags, and each replayed token's tag is refused.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::std_instead_of_core)]

use pat::crypto::arc::ServerPrivateKey;
use pat::deploy::replay::Spend;
use pat::tokens::arc::{ArcChallenge, ArcToken, Client, Issuer, tag_id, token_len};
use pat_http::metrics::Metrics;
use pat_http::replay::{Outcome, Replay};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arc_tags_are_spent_once_in_the_origin_store() {
    let mut rng = rand_core::UnwrapErr(pat::OsRng);
    let issuer = Issuer::new(ServerPrivateKey::generate(&mut rng).unwrap());
    let client = Client::from_token_key(&issuer.token_key()).unwrap();
    let challenge = ArcChallenge::new(b"issuer.example", &[3; 32], b"origin.example", &[]).unwrap();
    let (state, request) = client.request(&challenge, &mut rng).unwrap();
    let response = issuer.issue(&request, &mut rng).unwrap();
    let credential = client.finalize(&state, &response).unwrap();
    const N: u64 = 3;
    let mut pstate = client.presentation_state(&credential, &challenge, N).unwrap();
    let replay = Replay::memory(std::sync::Arc::new(Metrics::new())).unwrap();
    let epoch = replay.epoch().unwrap();
    let now = pat_http::unix_now();
    let mut tokens = Vec::new();
    for _ in 0..N {
        let mut out = vec![0u8; token_len(N).unwrap()];
        client.token(&mut pstate, &challenge, &mut rng, &mut out).unwrap();
        let tag = issuer.verify(&ArcToken::decode(&out, N).unwrap(), &challenge, N).unwrap();
        assert_eq!(
            replay.spend(&epoch, issuer.key_id(), &tag_id(&tag), now + 3600, now).await.unwrap(),
            Outcome::Spend(Spend::Fresh)
        );
        tokens.push(out);
    }
    for out in &tokens {
        let tag = issuer.verify(&ArcToken::decode(out, N).unwrap(), &challenge, N).unwrap();
        assert_eq!(
            replay.spend(&epoch, issuer.key_id(), &tag_id(&tag), now + 3600, now).await.unwrap(),
            Outcome::Spend(Spend::Replayed)
        );
    }
}
