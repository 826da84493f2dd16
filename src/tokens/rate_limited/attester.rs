//! The attester of type 0x0003 (draft "Attester Behavior"): it checks that a
//! request comes from the client it knows and, once the issuer answered,
//! derives the issuer-origin alias and counts the token in its rate-limit
//! [`Store`].

use core::fmt;

use zeroize::ZeroizeOnDrop;

use super::store::{Policy, Store};
use super::{ANONYMOUS_ORIGIN_ID_LEN, BLINDED_REQUEST_KEY_LEN, TokenRequest};
use crate::crypto::key_blinding::ecdsa_p384::{self as ecdsa, BlindKey};
use crate::crypto::rate_limited::alias::{self, ALIAS_LEN, CTX_CLIENT};
use crate::error::{Error, Result};

/// The attester of type 0x0003 (draft "Attester Behavior") with a bounded
/// state of at most `N` (client, issuer-origin alias) entries.
///
/// Each entry binds a client key and an alias to the anonymous origin id the
/// client used for it, and counts tokens in the current [`Policy`] window
/// (about 150 bytes per entry; no allocation). A new (client, alias) pair
/// needs a free entry: a full store fails with [`Error::CapacityExceeded`]
/// until [`Attester::prune`] frees entries of past windows. Entries are looked
/// up by a linear scan with constant-time comparisons, so `N` should stay in
/// the thousands at most.
pub struct Attester<const N: usize> {
    store: Store<N>,
}

/// Every entry (client key, alias, anonymous origin id) is wiped on drop, and
/// so is the spare capacity, which holds stale copies of moved entries.
impl<const N: usize> ZeroizeOnDrop for Attester<N> {}

impl<const N: usize> fmt::Debug for Attester<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attester")
            .field("policy", &self.store.policy())
            .field("entries", &self.store.len())
            .field("capacity", &N)
            .finish_non_exhaustive()
    }
}

impl<const N: usize> Attester<N> {
    /// An attester with an empty store.
    pub const fn new(policy: Policy) -> Self {
        Self { store: Store::new(policy) }
    }

    /// The policy.
    pub const fn policy(&self) -> Policy {
        self.store.policy()
    }

    /// The number of (client, alias) entries held.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether the store is empty.
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// The capacity `N`.
    pub const fn capacity(&self) -> usize {
        N
    }

    /// Checks a client's request before it goes to the issuer (draft "Attester
    /// Behavior"): `request_key` must be `BlindPublicKey(client_key,
    /// request_blind, ctx_client)` ([`Error::RequestKeyMismatch`]), the request
    /// signature must verify under it ([`Error::Verification`]; pat-go's
    /// attester wrongly accepts a bad signature), and the client must not
    /// already have used up the current window for `anonymous_origin_id`
    /// ([`Error::RateLimited`]). Changes no state.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn process(
        &self,
        request: &TokenRequest<'_>,
        client_key: &ecdsa::PublicKey,
        request_blind: &BlindKey,
        anonymous_origin_id: &[u8; ANONYMOUS_ORIGIN_ID_LEN],
        now: u64,
    ) -> Result<()> {
        alias::verify_request_key(client_key, request_blind, CTX_CLIENT, request.request_key)
            .map_err(|_| Error::RequestKeyMismatch)?;
        request.verify_signature()?;
        let client = client_key.to_bytes();
        let exhausted = self.store.exhausted(&client, anonymous_origin_id, now);
        if exhausted { Err(Error::RateLimited) } else { Ok(()) }
    }

    /// After the issuer answered (draft "Attester Behavior", index
    /// computation): `index_key = UnblindPublicKey(blinded_request_key,
    /// request_blind, ctx_client)`, `alias = HKDF-SHA384(client_key, index_key,
    /// "IssuerOriginAlias")`, then the state update. Returns the alias.
    ///
    /// Errors, each leaving the state unchanged: [`Error::InvalidElement`] for
    /// a `blinded_request_key` that is not a point; [`Error::OriginIdConflict`]
    /// if this client's alias was seen with another anonymous origin id (the
    /// client lied about which origin it asks for); [`Error::RateLimited`] if
    /// the window's count is used up; [`Error::CapacityExceeded`] if a new
    /// entry is needed and the store is full. Forward the encrypted response
    /// to the client only on success.
    ///
    /// One anonymous origin id may map to several aliases (an issuer rotating
    /// its origin key gives the same origin a new alias), as in pat-go.
    ///
    /// Instructions and peak stack of this call on the device cores: docs/embedded.md.
    pub fn finalize_index(
        &mut self,
        client_key: &ecdsa::PublicKey,
        request_blind: &BlindKey,
        blinded_request_key: &[u8; BLINDED_REQUEST_KEY_LEN],
        anonymous_origin_id: &[u8; ANONYMOUS_ORIGIN_ID_LEN],
        now: u64,
    ) -> Result<[u8; ALIAS_LEN]> {
        let blinded = ecdsa::PublicKey::from_bytes(blinded_request_key)?;
        let index_key = alias::index_key(&blinded, request_blind, CTX_CLIENT)?;
        let alias = alias::issuer_origin_alias(client_key, &index_key);
        let client = client_key.to_bytes();
        self.store.count_token(&client, &alias, anonymous_origin_id, now)?;
        Ok(alias)
    }

    /// Tokens left for this client and alias in the window of `now`.
    pub fn remaining(&self, client_key: &ecdsa::PublicKey, alias: &[u8; ALIAS_LEN], now: u64) -> u32 {
        self.store.remaining(&client_key.to_bytes(), alias, now)
    }

    /// Drops every entry whose window ended before the window of `now` and
    /// returns how many were dropped. This frees capacity but also forgets
    /// those entries' alias → anonymous origin id bindings.
    pub fn prune(&mut self, now: u64) -> usize {
        self.store.prune(now)
    }
}
