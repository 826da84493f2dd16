//! The rate-limit table an attester of type 0x0003 keeps (draft "Attester
//! Behavior"): a fixed-capacity store of (client, issuer-origin alias)
//! entries, each bound to the anonymous origin id the client used and
//! counting tokens per [`Policy`] window, with its lookups, counting and
//! pruning. No cryptography here: the attester derives the keys and aliases
//! it stores.

use heapless::Vec;
use subtle::ConstantTimeEq;
use zeroize::Zeroize;

use super::{ANONYMOUS_ORIGIN_ID_LEN, REQUEST_KEY_LEN};
use crate::crypto::rate_limited::alias::ALIAS_LEN;
use crate::error::{Error, Result};

/// The attester's rate-limit policy: at most `max_tokens` tokens per client
/// and issuer-origin alias in each window of `window` time units.
///
/// Time is whatever the caller passes as `now` (seconds, minutes, a counter):
/// `no_std` has no clock. Windows are fixed and aligned: window number
/// `now / window`. A `now` in a later window than the stored one starts a new
/// count; a `now` in an earlier window (a clock going backwards) counts
/// against the stored window and never resets it. `window = 0` means one
/// window for all time (a lifetime limit).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Policy {
    /// Tokens allowed per client, origin and window (0 refuses everything).
    pub max_tokens: u32,
    /// The window length, in the caller's time unit.
    pub window: u64,
}

impl Policy {
    fn window_of(&self, now: u64) -> u64 {
        now.checked_div(self.window).unwrap_or(0)
    }
}

/// One client's state for one origin (alias).
struct Entry {
    client_key: [u8; REQUEST_KEY_LEN],
    alias: [u8; ALIAS_LEN],
    anonymous_origin_id: [u8; ANONYMOUS_ORIGIN_ID_LEN],
    window: u64,
    count: u32,
}

impl Drop for Entry {
    fn drop(&mut self) {
        self.client_key.zeroize();
        self.alias.zeroize();
        self.anonymous_origin_id.zeroize();
    }
}

/// At most `N` entries and the [`Policy`] they are counted under. Lookups are
/// linear scans with constant-time comparisons of the keys, aliases and
/// anonymous origin ids. Every entry, and the spare capacity (stale copies of
/// moved entries), is wiped on drop.
pub(super) struct Store<const N: usize> {
    policy: Policy,
    entries: Vec<Entry, N>,
}

impl<const N: usize> Drop for Store<N> {
    fn drop(&mut self) {
        crate::tokens::wipe_vec(&mut self.entries);
    }
}

impl<const N: usize> Store<N> {
    /// An empty store.
    pub(super) const fn new(policy: Policy) -> Self {
        Self { policy, entries: Vec::new() }
    }

    /// The policy.
    pub(super) const fn policy(&self) -> Policy {
        self.policy
    }

    /// The number of entries held.
    pub(super) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the store is empty.
    pub(super) fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Whether `client` has used up the window of `now` for
    /// `anonymous_origin_id` (always, when the policy allows no tokens).
    pub(super) fn exhausted(
        &self,
        client: &[u8; REQUEST_KEY_LEN],
        anonymous_origin_id: &[u8; ANONYMOUS_ORIGIN_ID_LEN],
        now: u64,
    ) -> bool {
        let window = self.policy.window_of(now);
        self.policy.max_tokens == 0
            || self.entries.iter().any(|e| {
                bool::from(e.client_key.ct_eq(client) & e.anonymous_origin_id.ct_eq(anonymous_origin_id))
                    && e.window >= window
                    && e.count >= self.policy.max_tokens
            })
    }

    /// Counts one token for `client` and `alias` in the window of `now`,
    /// binding a new entry to `anonymous_origin_id`. Errors, each leaving the
    /// store unchanged: [`Error::OriginIdConflict`] if the entry is bound to
    /// another anonymous origin id, [`Error::RateLimited`] if the window's
    /// count is used up, [`Error::CapacityExceeded`] if a new entry is needed
    /// and the store is full.
    pub(super) fn count_token(
        &mut self,
        client: &[u8; REQUEST_KEY_LEN],
        alias: &[u8; ALIAS_LEN],
        anonymous_origin_id: &[u8; ANONYMOUS_ORIGIN_ID_LEN],
        now: u64,
    ) -> Result<()> {
        let window = self.policy.window_of(now);
        let max = self.policy.max_tokens;
        let found = self.entries.iter_mut().find(|e| bool::from(e.client_key.ct_eq(client) & e.alias.ct_eq(alias)));
        match found {
            Some(entry) => {
                if !bool::from(entry.anonymous_origin_id.ct_eq(anonymous_origin_id)) {
                    return Err(Error::OriginIdConflict);
                }
                let count = if window > entry.window { 0 } else { entry.count };
                if count >= max {
                    return Err(Error::RateLimited);
                }
                entry.window = entry.window.max(window);
                entry.count = count.saturating_add(1);
            }
            None => {
                if max == 0 {
                    return Err(Error::RateLimited);
                }
                let entry = Entry {
                    client_key: *client,
                    alias: *alias,
                    anonymous_origin_id: *anonymous_origin_id,
                    window,
                    count: 1,
                };
                self.entries.push(entry).map_err(|_| Error::CapacityExceeded)?;
            }
        }
        Ok(())
    }

    /// Tokens left for `client` and `alias` in the window of `now`.
    pub(super) fn remaining(&self, client: &[u8; REQUEST_KEY_LEN], alias: &[u8; ALIAS_LEN], now: u64) -> u32 {
        let window = self.policy.window_of(now);
        let used = self
            .entries
            .iter()
            .find(|e| bool::from(e.client_key.ct_eq(client) & e.alias.ct_eq(alias)))
            .map_or(0, |e| if window > e.window { 0 } else { e.count });
        self.policy.max_tokens.saturating_sub(used)
    }

    /// Drops every entry whose window ended before the window of `now` and
    /// returns how many were dropped.
    pub(super) fn prune(&mut self, now: u64) -> usize {
        let window = self.policy.window_of(now);
        let before = self.entries.len();
        self.entries.retain(|e| e.window >= window);
        // `retain` shifts the kept entries down, leaving stale copies behind.
        self.entries.spare_capacity_mut().zeroize();
        before.saturating_sub(self.entries.len())
    }
}
