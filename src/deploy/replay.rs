//! Double-spend prevention: an origin (or the issuer, for privately
//! verifiable types) accepts each token once (RFC 9577 §2.2; RFC 9576 §3.3,
//! "the Origin ... MUST ensure that tokens are not redeemed more than once").
//!
//! A token is identified by its `token_key_id` and its client-chosen `nonce`.
//! After verifying a token, the origin calls [`spend_token`] with the token
//! input and the time until which the token must stay recorded: the first
//! call answers `Ok(())`, every later call [`Error::Replayed`], until then.
//!
//! # How long an entry must live
//!
//! An entry may be forgotten only once the origin would refuse the token
//! anyway. Two deployments are common:
//!
//! * **Windowed challenges** (what `pat-http`'s origin does): the origin's
//!   redemption context changes every `max_age` seconds, and it accepts a
//!   token only for the challenge of the current window or of the one
//!   before. Such a token is dead at the end of the window after the
//!   current one, so [`windowed_expiry`]`(now, max_age, skew)` is the
//!   expiry: a few minutes, whatever the key's lifetime, so the store holds
//!   only the tokens of the last two windows.
//! * **Challenges without an end** (an empty or fixed redemption context):
//!   the token is good for as long as its key is, so the expiry is the key's
//!   [`Validity::not_after`](crate::deploy::keyset::Validity::not_after) plus the
//!   skew margin. A store then holds every token of the key's life: size it
//!   for that, or it answers [`Spend::Full`] (refusing everyone) once full.
//!
//! `skew` is the largest difference between the clocks of the parties that
//! share one store (several origins and a Redis server, say): an origin whose
//! clock runs behind accepts a window for longer than another thinks, so the
//! entry must outlive the window by that much. [`CLOCK_SKEW_MARGIN`] is a
//! default for servers kept in step by NTP.
//!
//! The store fails closed: an expiry that has already come (`expires_at <=
//! now`, 0 by mistake) records nothing and refuses the token
//! ([`Spend::Expired`], [`Error::ReplayWindowExpired`]); so does a full
//! table ([`Spend::Full`]).
//!
//! [`ReplayStore`] is the interface (implement it over a database or a
//! shared cache); [`MemoryReplayStore`] is a fixed-capacity table that never
//! allocates.

use rand_core::TryCryptoRng;
use sha2::{Digest, Sha256};

use crate::crypto::act::Refund;
use crate::error::{Error, Result};
use crate::tokens::{act, arc, athm};
use crate::wire::token::TokenInput;
use crate::wire::token_type::{KEY_ID_LEN, NONCE_LEN};

/// What [`ReplayStore::spend`] found. Only [`Spend::Fresh`] accepts the
/// token; every other answer refuses it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Spend {
    /// The token had not been spent (or its entry had expired): it is now recorded.
    Fresh,
    /// The token was spent before and its entry is still live.
    Replayed,
    /// The token had not been spent but the store has no room: every slot
    /// holds a live entry. Nothing was recorded; refuse the token (or retry
    /// later) rather than accept a token that could then be spent again.
    Full,
    /// The entry would have expired at once (`expires_at <= now`). Nothing
    /// was recorded, so the token is refused: accepting it would let it be
    /// spent again at once.
    Expired,
}

/// Records spent tokens (RFC 9577 §2.2).
pub trait ReplayStore {
    /// Records `(token_key_id, nonce)` as spent until `expires_at` (UNIX
    /// seconds; see the [module docs](self) for how long) and says whether
    /// it was new. `now` is the caller's clock; entries whose expiry is
    /// `<= now` may be evicted, and a token whose stored entry has expired
    /// counts as fresh again (the origin refuses it by then anyway).
    ///
    /// An implementation must answer [`Spend::Expired`], and record nothing,
    /// when `expires_at <= now`, and [`Spend::Full`] when it cannot record
    /// the entry; it never answers [`Spend::Fresh`] without having recorded
    /// it. ([`spend_token`] refuses an expired window itself as well.)
    fn spend(&mut self, token_key_id: &[u8; KEY_ID_LEN], nonce: &[u8; NONCE_LEN], expires_at: u64, now: u64) -> Spend;
}

impl<S: ReplayStore + ?Sized> ReplayStore for &mut S {
    fn spend(&mut self, token_key_id: &[u8; KEY_ID_LEN], nonce: &[u8; NONCE_LEN], expires_at: u64, now: u64) -> Spend {
        (**self).spend(token_key_id, nonce, expires_at, now)
    }
}

/// A default for the `skew` of [`windowed_expiry`]: 60 seconds, ample for
/// servers whose clocks NTP keeps within milliseconds of each other.
pub const CLOCK_SKEW_MARGIN: u64 = 60;

/// The expiry of a spent token's entry for an origin with windowed
/// challenges (see the [module docs](self)): time is cut into windows of
/// `max_age` seconds (window `w` is `[w·max_age, (w+1)·max_age)`), each
/// window has its own redemption context, and a token is accepted only
/// for the challenge of the current window or the previous one. A token
/// redeemed at `now` is then dead at the end of the window after the current
/// one; the entry lives `skew` seconds longer for clocks that disagree.
///
/// A `max_age` of 0 counts as 1. The sum saturates at `u64::MAX`.
pub const fn windowed_expiry(now: u64, max_age: u64, skew: u64) -> u64 {
    let len = if max_age == 0 { 1 } else { max_age };
    (now / len).saturating_add(2).saturating_mul(len).saturating_add(skew)
}

/// The origin's redemption step, after the token verified: `Ok(())` the first
/// time, [`Error::Replayed`] if the token was spent before,
/// [`Error::ReplayStoreFull`] if the store has no room for it (see
/// [`Spend::Full`]), [`Error::ReplayWindowExpired`] if `expires_at <= now`
/// (checked here before the store is asked, whatever the store does).
/// `expires_at` is when the token stops being redeemable, plus the clock
/// skew margin: [`windowed_expiry`] for windowed challenges, the key's
/// `not_after` plus the margin otherwise (see the [module docs](self)).
pub fn spend_token(
    store: &mut (impl ReplayStore + ?Sized),
    input: &TokenInput,
    expires_at: u64,
    now: u64,
) -> Result<()> {
    spend_id(store, input.token_key_id(), input.nonce(), expires_at, now)
}

/// [`spend_token`] for an entry named by any 32-byte id under a key id (an
/// ARC presentation tag's digest, say).
pub fn spend_id(
    store: &mut (impl ReplayStore + ?Sized),
    key_id: &[u8; KEY_ID_LEN],
    id: &[u8; NONCE_LEN],
    expires_at: u64,
    now: u64,
) -> Result<()> {
    if expires_at <= now {
        return Err(Error::ReplayWindowExpired);
    }
    match store.spend(key_id, id, expires_at, now) {
        Spend::Fresh => Ok(()),
        Spend::Replayed => Err(Error::Replayed),
        Spend::Full => Err(Error::ReplayStoreFull),
        Spend::Expired => Err(Error::ReplayWindowExpired),
    }
}

/// The stored digest length: 128 bits of a keyed SHA-256.
const DIGEST_LEN: usize = 16;

#[derive(Clone, Copy, PartialEq, Eq)]
struct Slot {
    digest: [u8; DIGEST_LEN],
    /// 0 marks an empty slot: a stored entry is live for some `now`, so its
    /// expiry is at least 1.
    expires_at: u64,
}

const EMPTY: Slot = Slot { digest: [0; DIGEST_LEN], expires_at: 0 };

impl Slot {
    const fn is_empty(&self) -> bool {
        self.expires_at == 0
    }
}

/// A fixed-capacity replay store of `N` entries; never allocates.
///
/// # Layout and cost
///
/// An open-addressing hash table with linear probing over `[Slot; N]`, each
/// slot 24 bytes (a 16-byte digest and the `u64` expiry), so `N = 65536` is
/// 1.5 MiB: build it in place (`Box::new` of a `static`, or a `static` behind
/// a lock; [`MemoryReplayStore::new`] is `const`) rather than on a small
/// stack. Each [`spend`](ReplayStore::spend) hashes once (two SHA-256 blocks)
/// and probes from the digest's home slot; expired entries met on the way are
/// removed by backward shifting (Knuth's Algorithm R, so no tombstones and
/// chains stay short). At load α of live and not yet removed entries a
/// lookup expects about ½(1 + 1/(1−α)²) probes; the worst case, a full or
/// nearly full table, is O(N), which is also what answering [`Spend::Full`]
/// costs. [`MemoryReplayStore::purge`] removes every expired entry in O(N).
///
/// # Digests
///
/// An entry is the first 16 bytes of SHA-256(`hash_key` ‖ token_key_id ‖
/// nonce), which also picks its home slot. The nonce is chosen by the client,
/// so without the secret `hash_key` a client could grind nonces into one
/// chain and make every lookup slow; with it, home slots are uniform. Two
/// different tokens share a digest with probability 2^−128 per pair: even
/// with 2^16 live entries and 2^40 spends over a key's life, the chance that
/// a fresh token is taken for a replay is below 2^−72, and finding such a
/// pair on purpose requires the hash key.
///
/// The hash key is wiped on drop and `Debug` shows only the occupancy.
pub struct MemoryReplayStore<const N: usize> {
    hash_key: [u8; 32],
    slots: [Slot; N],
    len: usize,
}

impl<const N: usize> core::fmt::Debug for MemoryReplayStore<N> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("MemoryReplayStore").field("len", &self.len).field("capacity", &N).finish_non_exhaustive()
    }
}

impl<const N: usize> Drop for MemoryReplayStore<N> {
    fn drop(&mut self) {
        zeroize::Zeroize::zeroize(&mut self.hash_key);
    }
}

impl<const N: usize> zeroize::ZeroizeOnDrop for MemoryReplayStore<N> {}

impl<const N: usize> MemoryReplayStore<N> {
    /// An empty store. `hash_key` must be secret and random (32 bytes from
    /// the OS generator, for instance): it keys the slot choice so that
    /// clients cannot aim their nonces at one chain (see the type docs).
    pub const fn new(hash_key: [u8; 32]) -> Self {
        Self { hash_key, slots: [EMPTY; N], len: 0 }
    }

    /// Occupied slots: live entries and expired ones not yet removed.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// Whether no slot is occupied.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The number of slots, `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Removes every entry whose expiry is `<= now`; returns how many (O(N)).
    pub fn purge(&mut self, now: u64) -> usize {
        let before = self.len;
        let expired = |s: Slot| !s.is_empty() && s.expires_at <= now;
        if self.len == N
            && let Some(i) = (0..N).find(|&i| expired(self.slot(i)))
        {
            self.remove_at(i);
        }
        // Walk the ring once from an empty slot: a removal then only shifts
        // entries of the cluster ahead, which the walk has yet to visit.
        if let Some(start) = (0..N).find(|&i| self.slot(i).is_empty()) {
            let (mut i, mut steps) = (start, 0);
            while steps < N {
                if expired(self.slot(i)) {
                    // Something may shift into `i`: look at it again.
                    self.remove_at(i);
                } else {
                    i = Self::next(i);
                    steps += 1;
                }
            }
        }
        before - self.len
    }

    fn digest(&self, token_key_id: &[u8; KEY_ID_LEN], nonce: &[u8; NONCE_LEN]) -> [u8; DIGEST_LEN] {
        let full = Sha256::new().chain_update(self.hash_key).chain_update(token_key_id).chain_update(nonce).finalize();
        let mut digest = [0u8; DIGEST_LEN];
        digest.copy_from_slice(full.get(..DIGEST_LEN).unwrap_or(&[0; DIGEST_LEN]));
        digest
    }

    /// The slot a digest hashes to (`N > 0`).
    fn home(digest: &[u8; DIGEST_LEN]) -> usize {
        let (head, _) = digest.split_first_chunk::<8>().unwrap_or((&[0; 8], &[]));
        let n = u64::try_from(N).unwrap_or(u64::MAX).max(1);
        usize::try_from(u64::from_le_bytes(*head) % n).unwrap_or(0)
    }

    fn slot(&self, i: usize) -> Slot {
        self.slots.get(i).copied().unwrap_or(EMPTY)
    }

    fn set(&mut self, i: usize, s: Slot) {
        if let Some(slot) = self.slots.get_mut(i) {
            *slot = s;
        }
    }

    const fn next(i: usize) -> usize {
        if i + 1 >= N { 0 } else { i + 1 }
    }

    /// Empties slot `i` and shifts later entries of the cluster back so that
    /// every entry stays reachable from its home without crossing an empty slot.
    fn remove_at(&mut self, mut hole: usize) {
        let mut j = hole;
        for _ in 1..N {
            j = Self::next(j);
            let s = self.slot(j);
            if s.is_empty() {
                break;
            }
            let home = Self::home(&s.digest);
            // The entry at j may stay if its home lies cyclically in (hole, j].
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.set(hole, s);
                hole = j;
            }
        }
        self.set(hole, EMPTY);
        self.len -= 1;
    }
}

impl<const N: usize> ReplayStore for MemoryReplayStore<N> {
    /// See the trait; an `expires_at <= now` records nothing and answers
    /// [`Spend::Expired`].
    fn spend(&mut self, token_key_id: &[u8; KEY_ID_LEN], nonce: &[u8; NONCE_LEN], expires_at: u64, now: u64) -> Spend {
        if expires_at <= now {
            return Spend::Expired;
        }
        if N == 0 {
            return Spend::Full;
        }
        let digest = self.digest(token_key_id, nonce);
        let home = Self::home(&digest);
        let (mut i, mut probes) = (home, 0);
        while probes < N {
            let s = self.slot(i);
            if s.is_empty() {
                self.set(i, Slot { digest, expires_at });
                self.len += 1;
                return Spend::Fresh;
            }
            if s.digest == digest {
                if s.expires_at > now {
                    return Spend::Replayed;
                }
                self.set(i, Slot { digest, expires_at });
                return Spend::Fresh;
            }
            if s.expires_at <= now {
                let was_full = self.len == N;
                self.remove_at(i);
                if was_full {
                    // In a full table the cluster is the whole ring and the
                    // backward shift may leave the new empty slot behind the
                    // probe: start again from home (once: the table now has
                    // an empty slot, and then removals stay ahead of the probe).
                    (i, probes) = (home, 0);
                }
                // Otherwise look at slot i again: an entry may have moved in.
                continue;
            }
            i = Self::next(i);
            probes += 1;
        }
        Spend::Full
    }
}

/// ARC redemption with a store: the token layer verifies a presentation
/// ([`arc::Issuer::verify`]), this layer keeps its tag from being accepted
/// twice.
impl arc::Issuer {
    /// [`verify`](arc::Issuer::verify), then the double-spend check: the tag is
    /// recorded in `store` until `expires_at`; a tag seen before is
    /// [`Error::Replayed`], an `expires_at <= now`
    /// [`Error::ReplayWindowExpired`] (nothing recorded). `expires_at` is
    /// when the token stops being redeemable, plus a clock skew margin:
    /// [`windowed_expiry`] when the
    /// challenge's redemption context changes every `max_age` seconds, the
    /// key's end of validity plus the margin when it never does (see
    /// this module).
    pub fn redeem(
        &self,
        token: &arc::ArcToken<'_>,
        challenge: &arc::ArcChallenge<'_>,
        limit: u64,
        store: &mut (impl ReplayStore + ?Sized),
        expires_at: u64,
        now: u64,
    ) -> Result<()> {
        let tag = self.verify(token, challenge, limit)?;
        spend_id(store, self.key_id(), &arc::tag_id(&tag), expires_at, now)
    }
}

/// ATHM redemption with a store: the token layer reads the hidden value
/// ([`athm::Issuer::verify`]), this layer keeps the token's t from being
/// accepted twice (t, not the token's bytes: (t, k·P, k·Q) verifies too).
impl<const N: usize> athm::Issuer<'_, N> {
    /// [`verify`](athm::Issuer::verify), then t recorded as spent in `store`
    /// until `expires_at`: [`Error::Replayed`] for a second time, the store's
    /// refusals ([`Error::ReplayStoreFull`], [`Error::ReplayWindowExpired`])
    /// fail closed. Returns the hidden value.
    pub fn redeem(
        &self,
        token: &athm::Token,
        store: &mut (impl ReplayStore + ?Sized),
        expires_at: u64,
        now: u64,
    ) -> Result<u8> {
        let metadata = self.verify(token)?;
        spend_id(store, self.key_id(), &token.token.nonce(), expires_at, now)?;
        Ok(metadata)
    }
}

/// ACT redemption with a store: the token layer verifies a spend and signs
/// its refund ([`act::Issuer::verify`]), this layer keeps its nullifier from
/// being accepted twice and releases the refund only once it is recorded.
impl<const L: usize> act::Issuer<L> {
    /// [`verify`](act::Issuer::verify) (challenge, key, `cost`, request
    /// context, spend proof), then the nullifier recorded as spent in
    /// `store` until `expires_at`, then the refund of `refund_amount` (≤
    /// `cost`) credits for the client's next credential. A nullifier seen
    /// before is [`Error::Replayed`]; the store's refusals
    /// ([`Error::ReplayStoreFull`], [`Error::ReplayWindowExpired`]) fail
    /// closed: nothing is refunded. `expires_at` is when the credential stops
    /// being spendable (the key's end of validity) plus a clock skew margin.
    #[allow(clippy::too_many_arguments)] // the spend, the store's three, and the generator
    pub fn redeem<R: TryCryptoRng<Error: 'static> + ?Sized>(
        &self,
        token: &act::Token<L>,
        challenge: &act::ActChallenge<'_>,
        cost: u128,
        refund_amount: u128,
        store: &mut (impl ReplayStore + ?Sized),
        expires_at: u64,
        now: u64,
        rng: &mut R,
    ) -> Result<Refund> {
        let verified = self.verify(token, challenge, cost, refund_amount, rng)?;
        spend_id(store, self.key_id(), &verified.nullifier, expires_at, now)?;
        Ok(verified.refund)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::indexing_slicing)]
    use super::*;

    /// Every occupied slot is reachable from its home without crossing an
    /// empty slot, and `len` counts the occupied slots.
    fn check_invariant<const N: usize>(s: &MemoryReplayStore<N>) {
        let mut count = 0;
        for (i, slot) in s.slots.iter().enumerate() {
            if slot.is_empty() {
                continue;
            }
            count += 1;
            let mut j = MemoryReplayStore::<N>::home(&slot.digest);
            while j != i {
                assert!(!s.slots[j].is_empty(), "slot {i} unreachable from its home");
                j = MemoryReplayStore::<N>::next(j);
            }
        }
        assert_eq!(count, s.len);
    }

    #[test]
    fn invariant_under_random_spends() {
        let mut rng = pat_testkit::TestRng::new(0);
        let mut s = MemoryReplayStore::<16>::new([0; 32]);
        let mut now = 0u64;
        for step in 0..20000 {
            now += u64::try_from(rng.below(3)).unwrap();
            let key_id = [u8::try_from(rng.below(3)).unwrap(); 32];
            let nonce = [u8::try_from(rng.below(40)).unwrap(); 32];
            let expires_at = now + u64::try_from(rng.below(60)).unwrap();
            s.spend(&key_id, &nonce, expires_at, now);
            check_invariant(&s);
            if step % 50 == 0 {
                s.purge(now.saturating_sub(20));
                check_invariant(&s);
                assert!(s.slots.iter().all(|e| e.is_empty() || e.expires_at > now.saturating_sub(20)));
            }
        }
    }

    #[test]
    fn clusters_survive_eviction() {
        // A small table makes long clusters; evict from their middle.
        let mut s = MemoryReplayStore::<8>::new([7; 32]);
        for n in 0..8u8 {
            assert_eq!(s.spend(&[0; 32], &[n; 32], 10 + u64::from(n % 3), 0), Spend::Fresh);
            check_invariant(&s);
        }
        assert_eq!(s.spend(&[0; 32], &[99; 32], 20, 0), Spend::Full);
        // At now = 10 the entries n = 0, 3, 6 have expired.
        assert_eq!(s.spend(&[0; 32], &[99; 32], 20, 10), Spend::Fresh);
        check_invariant(&s);
        for n in [1u8, 2, 4, 5, 7] {
            assert_eq!(s.spend(&[0; 32], &[n; 32], 30, 10), Spend::Replayed, "{n}");
        }
        let before = s.len();
        assert_eq!(s.purge(10), before - 6);
        check_invariant(&s);
        assert_eq!(s.purge(11), 3);
        check_invariant(&s);
        assert_eq!(s.len(), 3);
    }
}
