//! Token keys over time: a set of keys with validity windows, for key
//! rotation (RFC 9578 §4, "issuers SHOULD ... rotate keys"; RFC 9576 §3.2.2
//! on key consistency).
//!
//! An issuer publishes a new key in its directory before clients should use
//! it (its `not-before`), keeps answering for the old key until its clients
//! have moved, and origins accept tokens under the old key until it expires.
//! A [`KeySet`] holds the keys of one role (issuers, origins or clients of
//! any token type, through [`KeyEntry`]) with a [`Validity`] each, and
//! answers the three lookups of that life cycle:
//!
//! * [`KeySet::current`]: the key to advertise or challenge with now, which
//!   respects `not_before`;
//! * [`KeySet::by_truncated_id`]: the issuer's key for a TokenRequest, which
//!   names its key by the last byte of the key id (RFC 9578 §5.1, §6.1);
//! * [`KeySet::by_key_id`]: the origin's key for a Token, which carries the
//!   full key id.
//!
//! The last two accept a key from the moment it is in the set until its
//! `not_after`, whatever its `not_before`: a key in the set has been
//! published, and a client whose clock runs ahead of the issuer's may use it
//! a little early. `not_before` only decides which key is current.
//!
//! Since requests carry one byte of the key id, two keys of one type whose
//! key ids end in the same byte cannot both be served:
//! [`KeySet::insert`] refuses the second ([`Error::KeyIdCollision`]). Keys of
//! different types may share it.

use crate::error::{Error, Field, Result};
use crate::tokens::{private, public, rate_limited, truncated_key_id};
use crate::wire::token_type::{
    KEY_ID_LEN, PrivateP384, PrivateRistretto255, PublicRsa2048, RateLimitedRsa2048, TokenType,
};

/// When a key may be used: at every `now` with `not_before <= now < not_after`
/// (UNIX seconds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Validity {
    /// The first second of validity (the directory's `not-before`).
    pub not_before: u64,
    /// The first second after validity: the key is expired from then on, and
    /// tokens under it are refused (and may leave the replay store).
    pub not_after: u64,
}

impl Validity {
    /// Whether `now` lies in `[not_before, not_after)`.
    pub const fn contains(&self, now: u64) -> bool {
        self.not_before <= now && now < self.not_after
    }
}

/// A key a [`KeySet`] can hold: something with a token type and a token_key_id.
///
/// Implemented for the issuers, origins and clients of types 0x0001, 0x0002
/// and 0x0005 and for the issuer and origin of type 0x0003.
pub trait KeyEntry {
    /// The token type code.
    fn token_type(&self) -> u16;
    /// The token_key_id: SHA-256 of the token key (RFC 9578 §5, §6).
    fn key_id(&self) -> &[u8; KEY_ID_LEN];
}

macro_rules! key_entry {
    ($(impl$([$($g:tt)*])? for $ty:ty => $code:expr;)*) => {$(
        impl$(<$($g)*>)? KeyEntry for $ty {
            fn token_type(&self) -> u16 {
                $code
            }
            fn key_id(&self) -> &[u8; KEY_ID_LEN] {
                <$ty>::key_id(self)
            }
        }
    )*};
}

key_entry! {
    impl for private::Issuer<PrivateP384> => PrivateP384::CODE;
    impl for private::Client<PrivateP384> => PrivateP384::CODE;
    impl for private::Issuer<PrivateRistretto255> => PrivateRistretto255::CODE;
    impl for private::Client<PrivateRistretto255> => PrivateRistretto255::CODE;
    impl for public::Issuer => PublicRsa2048::CODE;
    impl for public::Client => PublicRsa2048::CODE;
    impl for public::Origin => PublicRsa2048::CODE;
    impl[T: rate_limited::OriginKeys] for rate_limited::Issuer<T> => RateLimitedRsa2048::CODE;
    impl for rate_limited::Origin => RateLimitedRsa2048::CODE;
}

impl<K: KeyEntry + ?Sized> KeyEntry for &K {
    fn token_type(&self) -> u16 {
        (**self).token_type()
    }
    fn key_id(&self) -> &[u8; KEY_ID_LEN] {
        (**self).key_id()
    }
}

/// At most `N` keys with their validity, in insertion order (heapless storage).
///
/// `Debug` shows the keys as their own `Debug` does (the issuers' show only
/// public keys).
#[derive(Clone, Debug)]
pub struct KeySet<K: KeyEntry, const N: usize> {
    keys: heapless::Vec<(K, Validity), N>,
}

impl<K: KeyEntry, const N: usize> Default for KeySet<K, N> {
    fn default() -> Self {
        Self::new()
    }
}

impl<K: KeyEntry, const N: usize> KeySet<K, N> {
    /// An empty set.
    pub const fn new() -> Self {
        Self { keys: heapless::Vec::new() }
    }

    /// Adds a key. Refused, leaving the set unchanged:
    ///
    /// * [`Error::InvalidValue`]`(`[`Field::Validity`]`)` if the window is
    ///   empty (`not_before >= not_after`);
    /// * [`Error::KeyIdCollision`] if a key of the same type in the set has
    ///   the same truncated key id (the last byte of the key id, RFC 9578
    ///   §5.1, §6.1), including the same key a second time; expired keys
    ///   count until [`KeySet::retire`] removes them;
    /// * [`Error::CapacityExceeded`] if the set holds `N` keys.
    pub fn insert(&mut self, key: K, validity: Validity) -> Result<()> {
        if validity.not_before >= validity.not_after {
            return Err(Error::InvalidValue(Field::Validity));
        }
        let truncated = truncated_key_id(key.key_id());
        if self
            .keys
            .iter()
            .any(|(k, _)| k.token_type() == key.token_type() && truncated_key_id(k.key_id()) == truncated)
        {
            return Err(Error::KeyIdCollision);
        }
        self.keys.push((key, validity)).map_err(|_| Error::CapacityExceeded)
    }

    /// The key an issuer advertises (or an origin challenges with) at `now`:
    /// of `token_type`, valid at `now` (`not_before <= now < not_after`),
    /// with the greatest `not_before`; of equals, the first inserted.
    pub fn current(&self, token_type: u16, now: u64) -> Option<&K> {
        let mut best: Option<&(K, Validity)> = None;
        for entry in self.keys.iter().filter(|(k, v)| k.token_type() == token_type && v.contains(now)) {
            if best.is_none_or(|(_, b)| entry.1.not_before > b.not_before) {
                best = Some(entry);
            }
        }
        best.map(|(k, _)| k)
    }

    /// The issuer's lookup for a TokenRequest: the key of `token_type` whose
    /// truncated key id is `truncated`, if `now < not_after` (see the
    /// [module docs](self) for why `not_before` is not checked). At most one
    /// key matches ([`KeySet::insert`] refuses collisions).
    pub fn by_truncated_id(&self, token_type: u16, truncated: u8, now: u64) -> Option<(&K, Validity)> {
        self.find(now, |k| k.token_type() == token_type && truncated_key_id(k.key_id()) == truncated)
    }

    /// The origin's lookup for a Token: the key of `token_type` with the full
    /// key id `key_id`, if `now < not_after` (a token under an old key
    /// redeems until the key's `not_after`). Key ids are public, so the
    /// comparison is variable time.
    pub fn by_key_id(&self, token_type: u16, key_id: &[u8; KEY_ID_LEN], now: u64) -> Option<(&K, Validity)> {
        self.find(now, |k| k.token_type() == token_type && k.key_id() == key_id)
    }

    fn find(&self, now: u64, matches: impl Fn(&K) -> bool) -> Option<(&K, Validity)> {
        self.keys.iter().find(|(k, v)| now < v.not_after && matches(k)).map(|(k, v)| (k, *v))
    }

    /// Drops the keys with `not_after <= now` (dropping wipes an issuer's
    /// secret key); returns how many. The others keep their order.
    pub fn retire(&mut self, now: u64) -> usize {
        let before = self.keys.len();
        self.keys.retain(|(_, v)| v.not_after > now);
        before - self.keys.len()
    }

    /// The keys with their validity, in insertion order.
    pub fn iter(&self) -> impl Iterator<Item = (&K, Validity)> {
        self.keys.iter().map(|(k, v)| (k, *v))
    }

    /// The number of keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether the set is empty.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }
}
