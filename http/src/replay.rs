//! Where an origin records spent tokens: in memory (one process, the
//! library's fixed-capacity [`MemoryReplayStore`]) or in Redis (shared by
//! several origins: `SET key 1 NX EXAT expiry`, atomic on the server).

use std::sync::Mutex;

use pat::replay::{MemoryReplayStore, ReplayStore as _, Spend};

use crate::BoxError;

/// Spent tokens kept by one origin process without Redis.
pub const MEMORY_CAPACITY: usize = 1 << 16;

/// Expiries further away than this (ten years) are not set in Redis: the
/// entry is kept until deleted.
pub const FOREVER: u64 = 10 * 365 * 24 * 3600;

/// The prefix of every Redis key this crate writes.
pub const REDIS_PREFIX: &str = "pat:spent:";

/// A replay store an origin can share between its connections.
pub enum Replay {
    /// In this process.
    Memory(Mutex<Box<MemoryReplayStore<MEMORY_CAPACITY>>>),
    /// In Redis.
    Redis(redis::aio::ConnectionManager),
}

impl Replay {
    /// An in-memory store with a random hashing key.
    pub fn memory() -> Result<Self, BoxError> {
        let mut hash_key = [0u8; 32];
        rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, &mut hash_key).map_err(|e| format!("randomness: {e}"))?;
        // The table is 1.5 MiB: build it on a thread with room for it, since
        // an unoptimised build constructs it on the stack before boxing.
        let store = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || Box::new(MemoryReplayStore::<MEMORY_CAPACITY>::new(hash_key)))?
            .join()
            .map_err(|_| "building the replay store failed")?;
        Ok(Self::Memory(Mutex::new(store)))
    }

    /// A store in the Redis server at `url` (`redis://host:port/db`).
    pub async fn redis(url: &str) -> Result<Self, BoxError> {
        let client = redis::Client::open(url)?;
        let manager = redis::aio::ConnectionManager::new(client).await?;
        Ok(Self::Redis(manager))
    }

    /// Spends (key id, nonce) until `expires_at`.
    pub async fn spend(
        &self,
        key_id: &[u8; 32],
        nonce: &[u8; 32],
        expires_at: u64,
        now: u64,
    ) -> Result<Spend, BoxError> {
        match self {
            Self::Memory(store) => {
                if expires_at <= now {
                    // As for Redis below: nothing is recorded, so nothing is accepted.
                    return Ok(Spend::Replayed);
                }
                let mut store = store.lock().map_err(|_| "replay store lock poisoned")?;
                Ok(store.spend(key_id, nonce, expires_at, now))
            }
            Self::Redis(manager) => {
                if expires_at <= now {
                    // Redis refuses an expiry in the past, and a token that can
                    // no longer be redeemed is not accepted.
                    return Ok(Spend::Replayed);
                }
                let key = format!("{REDIS_PREFIX}{}{}", crate::hex(key_id), crate::hex(nonce));
                let mut conn = manager.clone();
                let mut cmd = redis::cmd("SET");
                cmd.arg(&key).arg(1).arg("NX");
                // A key without a known end (a directory key, valid while
                // listed) keeps its spent tokens for good.
                if expires_at <= now.saturating_add(FOREVER) {
                    cmd.arg("EXAT").arg(expires_at);
                }
                let set: Option<String> = cmd.query_async(&mut conn).await?;
                Ok(if set.is_some() { Spend::Fresh } else { Spend::Replayed })
            }
        }
    }
}
