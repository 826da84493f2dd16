//! Double-spend prevention (RFC 9577 §2.2): the in-memory replay store
//! against a simple model, and the origin's `spend_token` step.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::indexing_slicing, clippy::panic)]

use std::collections::HashMap;

use pat::deploy::replay::{MemoryReplayStore, ReplayStore, Spend, spend_token};
use pat::wire::token_type::TokenKind;
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
    // An entry that would expire at once is not recorded, and the token is
    // refused (it was accepted before: every replay of it was too).
    for _ in 0..3 {
        assert_eq!(s.spend(&K1, &[2; 32], 100, 100), Spend::Expired);
        assert_eq!(s.spend(&K1, &[2; 32], 0, 100), Spend::Expired);
        assert_eq!(s.spend(&K1, &[2; 32], 0, 0), Spend::Expired);
    }
    assert_eq!(s.len(), 1);
}

/// `spend_token` with an expiry that has come (0 by mistake, or the window
/// has just closed) is `ReplayWindowExpired`, whatever the store says: a
/// store that answered `Fresh` to it made every replay pass.
#[test]
fn an_expired_window_is_refused_whatever_the_store() {
    /// The worst store: it records nothing and calls everything fresh.
    struct Forgetful(usize);
    impl ReplayStore for Forgetful {
        fn spend(&mut self, _: &[u8; 32], _: &[u8; 32], _: u64, _: u64) -> Spend {
            self.0 += 1;
            Spend::Fresh
        }
    }
    let input = TokenInput::new(TokenKind::PublicRsa2048, &[7; 32], &[8; 32], &K1);
    let mut forgetful = Forgetful(0);
    for (expires_at, now) in [(0, 0), (0, 1_700_000_000), (1_699_999_999, 1_700_000_000), (5, 5)] {
        assert_eq!(spend_token(&mut forgetful, &input, expires_at, now), Err(Error::ReplayWindowExpired));
    }
    assert_eq!(forgetful.0, 0, "the store is not even asked");
    let mut s = MemoryReplayStore::<4>::new([1; 32]);
    for _ in 0..5 {
        assert_eq!(spend_token(&mut s, &input, 1_700_000_000, 1_700_000_000), Err(Error::ReplayWindowExpired));
    }
    assert!(s.is_empty());
    assert_eq!(spend_token(&mut s, &input, 1_700_000_001, 1_700_000_000), Ok(()));
    assert_eq!(spend_token(&mut s, &input, 1_700_000_001, 1_700_000_000), Err(Error::Replayed));
}

/// The windowed expiry: the end of the window after the current one, plus
/// the skew margin, so a token of either accepted window outlives its
/// acceptance at every origin whose clock is within the margin.
#[test]
fn windowed_expiry_outlives_both_accepted_windows() {
    use pat::deploy::replay::{CLOCK_SKEW_MARGIN, windowed_expiry};
    assert_eq!(windowed_expiry(0, 60, 0), 120);
    assert_eq!(windowed_expiry(59, 60, 0), 120);
    assert_eq!(windowed_expiry(60, 60, 0), 180);
    assert_eq!(windowed_expiry(1_700_000_000, 60, 30), (1_700_000_000 / 60 + 2) * 60 + 30);
    // max_age 0 counts as 1; nothing overflows.
    assert_eq!(windowed_expiry(10, 0, 0), 12);
    assert_eq!(windowed_expiry(u64::MAX, 60, 5), u64::MAX);
    assert_eq!(windowed_expiry(u64::MAX - 1, 1, 0), u64::MAX);
    // For every redemption time and window length: later than the end of
    // acceptance of the current window (the previous one ends sooner), and
    // never more than two windows and the margin away.
    let mut rng = TestRng::new(3);
    for _ in 0..10_000 {
        let max_age = 1 + u64::try_from(rng.below(1000)).unwrap();
        let now = 1_700_000_000 + u64::try_from(rng.below(100_000)).unwrap();
        let window = now / max_age;
        let accepted_until = (window + 2) * max_age; // the current window's token
        let e = windowed_expiry(now, max_age, CLOCK_SKEW_MARGIN);
        assert!(e >= accepted_until + CLOCK_SKEW_MARGIN && e > now);
        assert!(e <= now + 2 * max_age + CLOCK_SKEW_MARGIN);
    }
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
            Spend::Expired
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
            Spend::Expired => {}
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
