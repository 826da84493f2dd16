//! Where an origin records spent tokens: in memory (one process, the
//! library's fixed-capacity [`MemoryReplayStore`]) or in Redis (shared by
//! several origins).
//!
//! # Failing closed
//!
//! A token is accepted only when the store says it recorded it. Everything
//! else refuses: a replay, a full table, an expiry that has come, a store
//! that is down, slow or answers late.
//!
//! # The epoch: a store that lost its memory
//!
//! A replay store that forgets (Redis restarted without persistence, restored
//! from an old snapshot, failed over to a replica that had not seen the last
//! writes; an origin process restarted with the memory store) would accept
//! the tokens it forgot a second time. Each store therefore has an
//! **epoch**, a random 16-byte id, and the origin puts it into every
//! challenge's redemption context ([`crate::origin`]): a token can only be
//! redeemed under the epoch it was issued for. When the store loses its
//! memory, its epoch changes, and every token issued before the loss stops
//! matching any challenge the origin accepts: refused, never accepted twice.
//! Clients get a new challenge and fetch a new token.
//!
//! * Memory: the epoch is drawn when the process starts.
//! * Redis: the epoch lives in the store, in the hash [`REDIS_EPOCH_KEY`]
//!   (`id`; `gen`, its generation; `seq`, a counter of spends), written by
//!   the first origin and read by the others, so every origin sharing the
//!   store issues the same challenges. A Redis that restarted empty has no
//!   epoch: the first origin to look writes one of the next generation, and
//!   the others adopt it. A Redis that went back in time (an old snapshot, a
//!   failover) has a generation below the one an origin knows, or the same
//!   epoch with a `seq` below one the origin already saw: that origin writes
//!   a new epoch ([`SYNC_SCRIPT`]). Each spend runs as one script that
//!   checks the epoch and the counter and records the token atomically
//!   ([`SPEND_SCRIPT`]).
//!
//! # Failing fast
//!
//! A monitor task ([`Replay::spawn_monitor`]) checks the store every
//! [`RedisConfig::probe_interval`]: while the last check failed, a
//! redemption is refused at once (503) without waiting for Redis; when a
//! check succeeds again the connection is already re-established, so the
//! first redemption after an outage does not fail. Every command is bounded
//! by [`RedisConfig::timeout`]; a spend that Redis executes only after the
//! origin has given up (a stalled server that resumes) finds its deadline
//! passed, records nothing and answers "late". The deadline is in Redis's
//! own clock, from an offset the monitor measures so that it errs early.
//! This is best effort: a spend that Redis runs just before the deadline
//! but whose answer arrives after the origin gave up is recorded while the
//! client got 503 (its retry is then refused as spent).
//!
//! The monitor also refuses a Redis whose `maxmemory-policy` is not
//! `noeviction`: an evicted spent entry is a replay accepted.
//!
//! Entries expire after a relative time (`SET … NX EX ttl`), counted by
//! Redis's clock from when it records the token, so a Redis clock that is
//! off does not shorten them; the skew margin in the expiry covers origins
//! whose clocks disagree ([`pat::deploy::replay::windowed_expiry`]).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pat::deploy::replay::{MemoryReplayStore, ReplayStore as _, Spend};

use crate::BoxError;
use crate::metrics::Metrics;

/// Spent tokens kept by one origin process without Redis.
pub const MEMORY_CAPACITY: usize = 1 << 16;

/// The prefix of every spent-token key this crate writes in Redis.
pub const REDIS_PREFIX: &str = "pat:spent:";

/// The Redis hash holding the store's epoch (`id`, generation `gen`) and spend counter (`seq`).
pub const REDIS_EPOCH_KEY: &str = "pat:epoch";

/// The length of an epoch id.
pub const EPOCH_LEN: usize = 16;

/// A store's epoch: changes whenever the store may have forgotten spends.
pub type Epoch = [u8; EPOCH_LEN];

/// One spend, atomically: refuse if Redis's clock is past the origin's
/// deadline (`late`), if the epoch is not the origin's (`epoch`), or if the
/// spend counter went back to what the origin saw or below (the store
/// rewound: a new epoch of the next generation is written); else
/// `SET key 1 NX EX ttl`.
///
/// KEYS: the epoch hash, the token's key. ARGV: the origin's epoch id, the
/// TTL in seconds, the highest `seq` the origin saw under that epoch, the
/// deadline in Redis milliseconds, a fresh epoch id. Returns `{code, seq}`:
/// 0 fresh, 1 replayed, 2 another epoch, 3 late, 4 rewound (new epoch
/// written).
pub const SPEND_SCRIPT: &str = r"
local t = redis.call('TIME')
local now_ms = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
if now_ms > tonumber(ARGV[4]) then return {3, 0} end
local id = redis.call('HGET', KEYS[1], 'id')
if id ~= ARGV[1] then return {2, 0} end
local seq = redis.call('HINCRBY', KEYS[1], 'seq', 1)
if seq <= tonumber(ARGV[3]) then
  local gen = tonumber(redis.call('HGET', KEYS[1], 'gen') or '0') or 0
  redis.call('HSET', KEYS[1], 'id', ARGV[5], 'gen', gen + 1, 'seq', 0)
  return {4, 0}
end
if redis.call('SET', KEYS[2], '1', 'NX', 'EX', ARGV[2]) then return {0, seq} end
return {1, seq}
";

/// The monitor's check. The epoch hash holds the epoch `id`, its
/// generation `gen` and the spend counter `seq`. A new epoch (of the
/// generation after the highest this origin or the store knows) is
/// written when there is none (an empty store), when the store's
/// generation is below the one the origin knows (an old snapshot came
/// back), or when the origin's own epoch is there with a counter below
/// what it saw (rewound). Another epoch of the origin's generation or a
/// later one was written by another origin: it is adopted as it is, so
/// origins that find an emptied store together agree on one new epoch.
/// Returns the epoch id, generation and counter, and Redis's `TIME`.
///
/// KEYS: the epoch hash. ARGV: a fresh epoch id, the origin's epoch id (or
/// empty), its generation, the highest `seq` it saw under that epoch.
pub const SYNC_SCRIPT: &str = r"
local h = redis.call('HMGET', KEYS[1], 'id', 'gen', 'seq')
local id = h[1]
local gen = tonumber(h[2] or '0') or 0
local seq = tonumber(h[3] or '0') or 0
local kgen = tonumber(ARGV[3])
if (not id) or gen < kgen or (gen == kgen and id == ARGV[2] and seq < tonumber(ARGV[4])) then
  id = ARGV[1]
  gen = math.max(gen, kgen) + 1
  seq = 0
  redis.call('HSET', KEYS[1], 'id', id, 'gen', gen, 'seq', seq)
end
local t = redis.call('TIME')
return {id, tostring(gen), tostring(seq), t[1], t[2]}
";

/// What [`SYNC_SCRIPT`] returns: the epoch id, generation and counter,
/// Redis's seconds and microseconds.
type SyncReply = (String, String, String, i64, i64);

/// How an origin uses Redis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisConfig {
    /// `redis://host:port/db`.
    pub url: String,
    /// The longest a command may take; a spend that takes longer is
    /// refused (503) and, if Redis runs it later, records nothing.
    pub timeout: Duration,
    /// How often the monitor checks the store.
    pub probe_interval: Duration,
}

impl RedisConfig {
    /// Defaults for `url`: a 50 ms command timeout, a check every 250 ms.
    pub fn new(url: &str) -> Self {
        Self { url: url.to_owned(), timeout: Duration::from_millis(50), probe_interval: Duration::from_millis(250) }
    }
}

/// Why the store could not answer: refuse the token with 503.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StoreError {
    /// The last check of the store failed, or it never answered yet.
    Down,
    /// A command took longer than the timeout.
    Timeout,
    /// Redis ran the spend after the origin's deadline: nothing recorded.
    Late,
    /// Redis answered with an error.
    Failed,
}

impl StoreError {
    /// The label of the error in `pat_replay_store_errors_total`.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Down => "down",
            Self::Timeout => "timeout",
            Self::Late => "late",
            Self::Failed => "error",
        }
    }
}

impl std::fmt::Display for StoreError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Down => "replay store unreachable",
            Self::Timeout => "replay store timed out",
            Self::Late => "replay store answered after the deadline",
            Self::Failed => "replay store error",
        })
    }
}

/// What a spend found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// The library's answer: only [`Spend::Fresh`] accepts.
    Spend(Spend),
    /// The store's epoch is not the one the token's challenge was made with:
    /// the store lost or rewound its memory. Refuse the token (a new
    /// challenge follows); nothing was recorded.
    EpochChanged,
}

/// A replay store an origin shares between its connections.
pub struct Replay {
    backend: Backend,
    metrics: Arc<Metrics>,
}

enum Backend {
    Memory { store: Mutex<Box<MemoryReplayStore<MEMORY_CAPACITY>>>, epoch: Epoch },
    Redis(RedisStore),
}

struct RedisStore {
    manager: redis::aio::ConnectionManager,
    config: RedisConfig,
    spend: redis::Script,
    sync: redis::Script,
    up: AtomicBool,
    state: Mutex<RedisState>,
}

#[derive(Clone, Copy, Default)]
struct RedisState {
    /// The epoch last read from the store.
    epoch: Option<Epoch>,
    /// Its generation.
    generation: u64,
    /// The highest spend counter this process saw under that epoch.
    max_seq: u64,
    /// Redis's clock minus this process's, in milliseconds.
    offset_ms: i64,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match self.backend {
            Backend::Memory { .. } => "memory",
            Backend::Redis(_) => "redis",
        };
        f.debug_struct("Replay").field("backend", &kind).finish_non_exhaustive()
    }
}

fn random_epoch() -> Result<Epoch, BoxError> {
    let mut epoch = [0u8; EPOCH_LEN];
    rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, &mut epoch).map_err(|e| format!("randomness: {e}"))?;
    Ok(epoch)
}

fn parse_epoch(hex: &str) -> Option<Epoch> {
    crate::unhex(hex)?.as_slice().try_into().ok()
}

fn unix_millis() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_millis()).unwrap_or(i64::MAX))
}

impl Replay {
    /// An in-memory store with a random hashing key and a random epoch.
    pub fn memory(metrics: Arc<Metrics>) -> Result<Self, BoxError> {
        let mut hash_key = [0u8; 32];
        rand_core::TryRng::try_fill_bytes(&mut pat::OsRng, &mut hash_key).map_err(|e| format!("randomness: {e}"))?;
        // The table is 1.5 MiB: build it on a thread with room for it, since
        // an unoptimised build constructs it on the stack before boxing.
        let store = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || Box::new(MemoryReplayStore::<MEMORY_CAPACITY>::new(hash_key)))?
            .join()
            .map_err(|_| "building the replay store failed")?;
        metrics.store_up.set(1);
        Ok(Self { backend: Backend::Memory { store: Mutex::new(store), epoch: random_epoch()? }, metrics })
    }

    /// A store in Redis. Nothing is sent yet: the origin starts even while
    /// Redis is down (refusing redemptions, and not ready) and the monitor
    /// connects; [`Replay::check`] makes the first contact.
    pub fn redis(config: RedisConfig, metrics: Arc<Metrics>) -> Result<Self, BoxError> {
        let client = redis::Client::open(config.url.as_str())?;
        let manager_config = redis::aio::ConnectionManagerConfig::new()
            .set_connection_timeout(Some(config.timeout.max(Duration::from_millis(100))))
            .set_response_timeout(Some(Duration::from_secs(2)))
            .set_number_of_retries(1)
            .set_min_delay(Duration::from_millis(10))
            .set_max_delay(Duration::from_millis(100));
        let manager = redis::aio::ConnectionManager::new_lazy_with_config(client, manager_config)?;
        metrics.store_up.set(0);
        Ok(Self {
            backend: Backend::Redis(RedisStore {
                manager,
                config,
                spend: redis::Script::new(SPEND_SCRIPT),
                sync: redis::Script::new(SYNC_SCRIPT),
                up: AtomicBool::new(false),
                state: Mutex::new(RedisState::default()),
            }),
            metrics,
        })
    }

    /// The store's current epoch, if known (a Redis store not reached yet has none).
    pub fn epoch(&self) -> Option<Epoch> {
        match &self.backend {
            Backend::Memory { epoch, .. } => Some(*epoch),
            Backend::Redis(r) => r.state().epoch,
        }
    }

    /// Whether the last check of the store succeeded and its epoch is known.
    pub fn is_up(&self) -> bool {
        match &self.backend {
            Backend::Memory { .. } => true,
            Backend::Redis(r) => r.up.load(Ordering::Acquire) && r.state().epoch.is_some(),
        }
    }

    /// Checks the store now (Redis: reads or writes its epoch, measures the
    /// clock offset); updates [`is_up`](Self::is_up).
    pub async fn check(&self) -> Result<(), StoreError> {
        match &self.backend {
            Backend::Memory { .. } => Ok(()),
            Backend::Redis(r) => r.check(&self.metrics).await,
        }
    }

    /// Checks the store every probe interval until the process ends (Redis;
    /// nothing to do for memory).
    pub fn spawn_monitor(self: &Arc<Self>) {
        let Backend::Redis(r) = &self.backend else { return };
        let interval = r.config.probe_interval;
        let replay = Arc::clone(self);
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(interval);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tick.tick().await;
                let _ = replay.check().await;
            }
        });
    }

    /// Spends (key id, nonce) of a token whose challenge was made under
    /// `epoch`, until `expires_at` (UNIX seconds, later than `now`).
    pub async fn spend(
        &self,
        epoch: &Epoch,
        key_id: &[u8; 32],
        nonce: &[u8; 32],
        expires_at: u64,
        now: u64,
    ) -> Result<Outcome, StoreError> {
        if expires_at <= now {
            // The library refuses it too; nothing to ask the store.
            return Ok(Outcome::Spend(Spend::Expired));
        }
        match &self.backend {
            Backend::Memory { store, epoch: ours } => {
                if epoch != ours {
                    return Ok(Outcome::EpochChanged);
                }
                let mut store = store.lock().map_err(|_| StoreError::Failed)?;
                Ok(Outcome::Spend(store.spend(key_id, nonce, expires_at, now)))
            }
            Backend::Redis(r) => r.spend(&self.metrics, epoch, key_id, nonce, expires_at - now).await,
        }
    }
}

impl RedisStore {
    fn state(&self) -> RedisState {
        match self.state.lock() {
            Ok(s) => *s,
            Err(poisoned) => *poisoned.into_inner(),
        }
    }

    fn update(&self, f: impl FnOnce(&mut RedisState)) {
        match self.state.lock() {
            Ok(mut s) => f(&mut s),
            Err(poisoned) => f(&mut poisoned.into_inner()),
        }
    }

    fn set_up(&self, metrics: &Metrics, up: bool, why: Option<&dyn std::fmt::Display>) {
        let was = self.up.swap(up, Ordering::AcqRel);
        metrics.store_up.set(i64::from(up));
        if was != up {
            match why {
                Some(e) if !up => tracing::warn!(error = %e, "replay store (Redis) unreachable: refusing redemptions"),
                _ if up => tracing::info!("replay store (Redis) reachable"),
                _ => tracing::warn!("replay store (Redis) unreachable: refusing redemptions"),
            }
        }
    }

    async fn check(&self, metrics: &Metrics) -> Result<(), StoreError> {
        let fresh = random_epoch().map_err(|_| StoreError::Failed)?;
        let known = self.state();
        let mut conn = self.manager.clone();
        let mut invocation = self.sync.key(REDIS_EPOCH_KEY);
        invocation
            .arg(crate::hex(&fresh))
            .arg(known.epoch.map_or_else(String::new, |e| crate::hex(&e)))
            .arg(known.generation)
            .arg(known.max_seq);
        let reply: Result<redis::RedisResult<SyncReply>, _> = tokio::time::timeout(
            self.config.timeout.max(Duration::from_millis(100)),
            invocation.invoke_async(&mut conn),
        )
        .await;
        let received = unix_millis();
        let (id, generation, seq, secs, micros) = match reply {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                self.set_up(metrics, false, Some(&e));
                return Err(StoreError::Failed);
            }
            Err(_) => {
                self.set_up(metrics, false, Some(&"check timed out"));
                return Err(StoreError::Timeout);
            }
        };
        let (Some(epoch), Ok(generation), Ok(seq)) = (parse_epoch(&id), generation.parse::<u64>(), seq.parse::<u64>())
        else {
            // Someone else wrote the key: refuse rather than guess.
            self.set_up(metrics, false, Some(&format!("{REDIS_EPOCH_KEY} holds no epoch of this crate")));
            return Err(StoreError::Failed);
        };
        // Redis read its clock before the reply arrived, so this is at most
        // the true offset: deadlines computed with it fall no later, in
        // Redis's clock, than the moment the origin gives up.
        let redis_ms = secs.saturating_mul(1000).saturating_add(micros / 1000);
        let offset_ms = redis_ms.saturating_sub(received);
        let mut changed = false;
        self.update(|s| {
            if s.epoch == Some(epoch) && s.generation == generation {
                s.max_seq = s.max_seq.max(seq);
            } else {
                changed = s.epoch.is_some();
                s.epoch = Some(epoch);
                s.generation = generation;
                s.max_seq = seq;
            }
            s.offset_ms = offset_ms;
        });
        if changed {
            metrics.epoch_changes.inc();
            tracing::warn!(
                "replay store epoch changed (Redis lost or rewound its memory): tokens of earlier challenges are refused"
            );
        }
        if let Err(why) = self.eviction_policy().await {
            self.set_up(metrics, false, Some(&why));
            return Err(StoreError::Failed);
        }
        self.set_up(metrics, true, None);
        Ok(())
    }

    /// Refuses a Redis that may evict keys: every spent entry has a TTL,
    /// which is what the `volatile-*` policies (the default of several
    /// managed services) evict first, and a forgotten spend is a replay
    /// accepted. `noeviction` answers errors instead when memory is full.
    /// A Redis that does not report its policy is taken as it is.
    async fn eviction_policy(&self) -> Result<(), String> {
        let mut conn = self.manager.clone();
        let info: String = tokio::time::timeout(
            self.config.timeout.max(Duration::from_millis(100)),
            redis::cmd("INFO").arg("memory").query_async(&mut conn),
        )
        .await
        .map_err(|_| "INFO memory timed out".to_owned())?
        .map_err(|e| format!("INFO memory: {e}"))?;
        match info.lines().find_map(|l| l.trim().strip_prefix("maxmemory_policy:")) {
            Some(policy) if policy != "noeviction" => Err(format!(
                "maxmemory-policy is {policy}: Redis may evict spent tokens and accept them again; set it to noeviction"
            )),
            _ => Ok(()),
        }
    }

    async fn spend(
        &self,
        metrics: &Metrics,
        epoch: &Epoch,
        key_id: &[u8; 32],
        nonce: &[u8; 32],
        ttl: u64,
    ) -> Result<Outcome, StoreError> {
        if !self.up.load(Ordering::Acquire) {
            return Err(StoreError::Down);
        }
        let state = self.state();
        if state.epoch.as_ref() != Some(epoch) {
            return Ok(Outcome::EpochChanged);
        }
        let fresh = random_epoch().map_err(|_| StoreError::Failed)?;
        let timeout_ms = i64::try_from(self.config.timeout.as_millis()).unwrap_or(i64::MAX);
        let deadline = unix_millis().saturating_add(state.offset_ms).saturating_add(timeout_ms);
        let key = format!("{REDIS_PREFIX}{}{}", crate::hex(key_id), crate::hex(nonce));
        let mut invocation = self.spend.key(REDIS_EPOCH_KEY);
        invocation.key(key).arg(crate::hex(epoch)).arg(ttl).arg(state.max_seq).arg(deadline).arg(crate::hex(&fresh));
        let mut conn = self.manager.clone();
        let started = Instant::now();
        let reply: Result<redis::RedisResult<(i64, u64)>, _> =
            tokio::time::timeout(self.config.timeout, invocation.invoke_async(&mut conn)).await;
        let (code, seq) = match reply {
            Ok(Ok(r)) => r,
            Ok(Err(e)) => {
                // A broken connection: refuse at once from now on, until the
                // monitor reaches the store again.
                if e.is_io_error() || e.is_connection_dropped() || e.is_connection_refusal() || e.is_timeout() {
                    self.set_up(metrics, false, Some(&e));
                }
                tracing::debug!(error = %e, "replay store command failed");
                return Err(StoreError::Failed);
            }
            Err(_) => {
                // One slow command is refused; a stalled store is the
                // monitor's to notice (its check times out too).
                tracing::debug!(waited = ?started.elapsed(), "replay store command timed out");
                return Err(StoreError::Timeout);
            }
        };
        self.update(|s| {
            if s.epoch.as_ref() == Some(epoch) {
                s.max_seq = s.max_seq.max(seq);
            }
        });
        match code {
            0 => Ok(Outcome::Spend(Spend::Fresh)),
            1 => Ok(Outcome::Spend(Spend::Replayed)),
            2 | 4 => {
                // Another epoch in the store (or a new one just written):
                // read it before the next challenge goes out.
                let _ = self.check(metrics).await;
                Ok(Outcome::EpochChanged)
            }
            3 => Err(StoreError::Late),
            _ => Err(StoreError::Failed),
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn epochs_round_trip_through_hex() {
        let e = random_epoch().unwrap();
        assert_eq!(parse_epoch(&crate::hex(&e)), Some(e));
        assert_eq!(parse_epoch("00"), None);
        assert_eq!(parse_epoch(&"zz".repeat(16)), None);
        assert_eq!(parse_epoch(&"0".repeat(33)), None);
        assert_eq!(parse_epoch(&format!("+a{}", "0".repeat(30))), None);
    }

    #[tokio::test]
    async fn the_memory_store_fails_closed() {
        let replay = Replay::memory(Arc::new(Metrics::new())).unwrap();
        let epoch = replay.epoch().unwrap();
        let (k, n) = ([1u8; 32], [2u8; 32]);
        assert_eq!(replay.spend(&epoch, &k, &n, 100, 100).await, Ok(Outcome::Spend(Spend::Expired)));
        assert_eq!(replay.spend(&epoch, &k, &n, 0, 100).await, Ok(Outcome::Spend(Spend::Expired)));
        assert_eq!(replay.spend(&[0; 16], &k, &n, 200, 100).await, Ok(Outcome::EpochChanged));
        assert_eq!(replay.spend(&epoch, &k, &n, 200, 100).await, Ok(Outcome::Spend(Spend::Fresh)));
        assert_eq!(replay.spend(&epoch, &k, &n, 200, 150).await, Ok(Outcome::Spend(Spend::Replayed)));
        // A second process (a restart) has another epoch.
        let other = Replay::memory(Arc::new(Metrics::new())).unwrap();
        assert_ne!(other.epoch(), Some(epoch));
        assert_eq!(other.spend(&epoch, &k, &n, 200, 150).await, Ok(Outcome::EpochChanged));
    }

    #[tokio::test]
    async fn an_unreachable_redis_refuses_at_once() {
        // Nothing listens on port 1.
        let replay = Replay::redis(RedisConfig::new("redis://127.0.0.1:1/"), Arc::new(Metrics::new())).unwrap();
        assert!(!replay.is_up());
        assert_eq!(replay.epoch(), None);
        let t = Instant::now();
        assert_eq!(replay.spend(&[0; 16], &[1; 32], &[2; 32], 200, 100).await, Err(StoreError::Down));
        assert!(t.elapsed() < Duration::from_millis(20));
        assert!(replay.check().await.is_err());
        assert!(!replay.is_up());
    }
}
