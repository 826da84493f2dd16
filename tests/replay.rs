//! Double-spend prevention (RFC 9577 §2.2): the in-memory replay store
//! against a simple model, and the origin's `spend_token` step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::collections::HashMap;

use pat::replay::{MemoryReplayStore, ReplayStore, Spend, spend_token};
use pat::token_type::TokenKind;
use pat::{Error, TokenInput};
use pat_testkit::TestRng;

const K1: [u8; 32] = [1; 32];
const K2: [u8; 32] = [2; 32];

#[test]
fn fresh_then_replayed() {
    let mut s = MemoryReplayStore::<16>::new([9; 32]);
    assert!(s.is_empty());
    assert_eq!(s.capacity(), 16);
    assert_eq!(s.spend(&K1, &[5; 32], 100, 0), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[5; 32], 100, 0), Spend::Replayed);
    assert_eq!(s.spend(&K1, &[5; 32], 100, 99), Spend::Replayed);
    // The same nonce under another key is another token.
    assert_eq!(s.spend(&K2, &[5; 32], 100, 0), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[6; 32], 100, 0), Spend::Fresh);
    assert_eq!(s.len(), 3);
}

#[test]
fn expiry_boundary() {
    let mut s = MemoryReplayStore::<4>::new([9; 32]);
    assert_eq!(s.spend(&K1, &[1; 32], 100, 50), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[1; 32], 100, 99), Spend::Replayed);
    // At now == expires_at the entry has expired: the token counts as fresh
    // again (its key has expired; the origin refuses it before this step).
    assert_eq!(s.spend(&K1, &[1; 32], 200, 100), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[1; 32], 200, 100), Spend::Replayed);
    assert_eq!(s.len(), 1);
    // An already expired entry is not recorded.
    assert_eq!(s.spend(&K1, &[2; 32], 100, 100), Spend::Fresh);
    assert_eq!(s.len(), 1);
}

#[test]
fn full_when_every_entry_is_live_and_eviction_makes_room() {
    let mut s = MemoryReplayStore::<8>::new([3; 32]);
    for n in 0..8u8 {
        assert_eq!(s.spend(&K1, &[n; 32], 10 + u64::from(n), 0), Spend::Fresh);
    }
    assert_eq!(s.spend(&K1, &[100; 32], 50, 0), Spend::Full);
    // A full store still recognises its live entries, and forgets none.
    for n in 0..8u8 {
        assert_eq!(s.spend(&K1, &[n; 32], 50, 9), Spend::Replayed, "{n}");
    }
    assert_eq!(s.spend(&K1, &[100; 32], 50, 9), Spend::Full);
    // At now = 10 the first entry has expired: room for one.
    assert_eq!(s.spend(&K1, &[100; 32], 50, 10), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[101; 32], 50, 10), Spend::Full);
    assert_eq!(s.len(), 8);
    assert_eq!(s.purge(12), 2);
    assert_eq!(s.len(), 6);
    assert_eq!(s.spend(&K1, &[100; 32], 50, 12), Spend::Replayed);
}

#[test]
fn capacity_one_and_zero() {
    let mut s = MemoryReplayStore::<1>::new([0; 32]);
    assert_eq!(s.spend(&K1, &[1; 32], 10, 0), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[2; 32], 10, 0), Spend::Full);
    assert_eq!(s.spend(&K1, &[1; 32], 10, 0), Spend::Replayed);
    assert_eq!(s.spend(&K1, &[2; 32], 20, 10), Spend::Fresh);
    assert_eq!(s.spend(&K1, &[1; 32], 20, 10), Spend::Full);
    let mut z = MemoryReplayStore::<0>::new([0; 32]);
    assert_eq!(z.spend(&K1, &[1; 32], 10, 0), Spend::Full);
}

#[test]
fn spend_token_and_trait_objects() {
    let input = TokenInput::new(TokenKind::PublicRsa2048, &[7; 32], &[8; 32], &K1);
    let mut s = MemoryReplayStore::<4>::new([1; 32]);
    let dyn_store: &mut dyn ReplayStore = &mut s;
    assert_eq!(spend_token(dyn_store, &input, 100, 0), Ok(()));
    assert_eq!(spend_token(dyn_store, &input, 100, 1), Err(Error::Replayed));
    assert_eq!(dyn_store.spend(input.token_key_id(), input.nonce(), 100, 2), Spend::Replayed);
    let mut one = MemoryReplayStore::<1>::new([1; 32]);
    let other = TokenInput::new(TokenKind::PublicRsa2048, &[9; 32], &[8; 32], &K1);
    assert_eq!(spend_token(&mut one, &input, 100, 0), Ok(()));
    assert_eq!(spend_token(&mut one, &other, 100, 0), Err(Error::ReplayStoreFull));
    // `&mut S` is a store too.
    let mut by_ref = &mut one;
    assert_eq!(spend_token(&mut by_ref, &input, 100, 0), Err(Error::Replayed));
}

/// Random spends against a map: Replayed exactly when the model holds a live
/// entry, Full exactly when the model holds `N` live entries, Fresh otherwise.
fn against_model<const N: usize>(seed: u64, steps: usize, nonces: usize, lifetime: usize) {
    let mut rng = TestRng::new(seed);
    let mut store = MemoryReplayStore::<N>::new(rng.bytes());
    let mut model: HashMap<([u8; 32], [u8; 32]), u64> = HashMap::new();
    let mut now = 0u64;
    let (mut fresh, mut replayed, mut full) = (0, 0, 0);
    for step in 0..steps {
        now += u64::try_from(rng.below(3)).unwrap();
        let key_id = [u8::try_from(rng.below(3)).unwrap(); 32];
        let mut nonce = [0u8; 32];
        nonce[..8].copy_from_slice(&u64::try_from(rng.below(nonces)).unwrap().to_le_bytes());
        let expires_at = now + u64::try_from(rng.below(lifetime)).unwrap();
        let live = |m: &HashMap<_, u64>| m.values().filter(|&&e| e > now).count();
        let want = if expires_at <= now {
            Spend::Fresh
        } else if model.get(&(key_id, nonce)).is_some_and(|&e| e > now) {
            Spend::Replayed
        } else if live(&model) >= N {
            Spend::Full
        } else {
            model.insert((key_id, nonce), expires_at);
            Spend::Fresh
        };
        let got = store.spend(&key_id, &nonce, expires_at, now);
        assert_eq!(got, want, "seed {seed} step {step}");
        match got {
            Spend::Fresh => fresh += 1,
            Spend::Replayed => replayed += 1,
            Spend::Full => full += 1,
        }
        assert!(store.len() <= N);
        if step % 97 == 0 {
            store.purge(now);
            assert_eq!(store.len(), live(&model), "seed {seed} step {step}");
        }
    }
    // The run exercised all three answers.
    assert!(fresh > 0 && replayed > 0 && full > 0, "{fresh} {replayed} {full}");
}

#[test]
fn randomized_against_model() {
    for seed in 0..8 {
        against_model::<16>(seed, 4000, 40, 60);
        against_model::<3>(seed + 100, 2000, 8, 60);
    }
    against_model::<1>(7, 2000, 4, 60);
    against_model::<256>(42, 20000, 2000, 1000);
}

#[test]
fn large_store() {
    // The origin's size; 1.5 MiB, so on a thread with room for it.
    std::thread::Builder::new()
        .stack_size(64 << 20)
        .spawn(|| {
            let mut s = Box::new(MemoryReplayStore::<65536>::new([5; 32]));
            let mut rng = TestRng::new(1);
            for i in 0..50_000u64 {
                let nonce: [u8; 32] = rng.bytes();
                assert_eq!(s.spend(&K1, &nonce, 1000, i / 100), Spend::Fresh);
                assert_eq!(s.spend(&K1, &nonce, 1000, i / 100), Spend::Replayed);
            }
            assert_eq!(s.len(), 50_000);
            assert_eq!(s.purge(1000), 50_000);
            assert!(s.is_empty());
        })
        .unwrap()
        .join()
        .unwrap();
}
