//! Where an origin records spent tokens: in memory (one process, the
//! library's fixed-capacity [`MemoryReplayStore`]) or in Redis, one server
//! or a Redis Cluster (shared by several origins).
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
//! # Redis Cluster
//!
//! A Lua script may only touch keys of one slot, so a cluster store
//! ([`RedisNodes::Cluster`]) is split into [`CLUSTER_SHARDS`] shards, each
//! an epoch hash and its spent keys under one hash tag (`pat:epoch:{tag}`,
//! `pat:spent:{tag}:…`), the tags spread over the slot space and so over
//! the primaries; a token's shard is picked by its nonce. Each shard keeps
//! its own generation and counter exactly as one server does, and the epoch
//! put into challenges is a hash of every shard's: a shard that lost or
//! rewound its memory (a failover to a replica that missed the last
//! writes) changes it. While the cluster fails over, commands to the dead
//! primary's slots fail or time out, then the whole cluster answers
//! `CLUSTERDOWN` until a replica is promoted: redemptions get 503.
//!
//! Replication is asynchronous: a primary that acknowledged a spend may
//! die before its replica saw it. The origin that accepted it knows how
//! far the shard's counter went and, if it looks before the counter climbs
//! back past that mark, writes a new epoch that refuses the tokens of the
//! rewound shard. That is best effort: spends by other origins after the
//! failover (retries of the refused ones, say) can climb past the mark
//! first, and an origin that restarted knows no mark. For a cluster, use
//! [`RedisConfig::wait_replicas`]: each spend then waits (`WAIT`) for a
//! replica's acknowledgement before the token is accepted, and a spend no
//! replica acknowledged in time is refused. Redis documents `WAIT` as
//! narrowing the window, not closing it: with several replicas the one
//! promoted may not be one that acknowledged.
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

/// A store in a Redis Cluster is split into this many shards, each with its
/// own epoch hash and spent keys under one hash tag (so a spend's script
/// touches keys of one slot), the tags chosen so that shard `i` lies in the
/// `i`-th sixteenth of the slot space and the shards spread over the
/// primaries.
pub const CLUSTER_SHARDS: usize = 16;

/// Redis Cluster's slot count.
const CLUSTER_SLOTS: u16 = 16384;

/// Where the Redis store is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RedisNodes {
    /// One server: `redis://host:port/db`.
    Single(String),
    /// A Redis Cluster, found through any of these seed nodes
    /// (`redis://host:port`).
    Cluster(Vec<String>),
}

/// How an origin uses Redis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RedisConfig {
    /// The server or the cluster.
    pub nodes: RedisNodes,
    /// The longest a command may take; a spend that takes longer is
    /// refused (503) and, if Redis runs it later, records nothing.
    pub timeout: Duration,
    /// How often the monitor checks the store.
    pub probe_interval: Duration,
    /// Replicas that must acknowledge a spend (`WAIT`, within the timeout)
    /// before the token is accepted; 0 answers as soon as the primary
    /// recorded it. With replicas asynchronous, a primary that dies just
    /// after a spend can lose it in a failover; waiting for one replica
    /// narrows that window (Redis promotes a replica that acknowledged when
    /// there is one) at the cost of a replication round trip. A spend
    /// the replicas do not acknowledge in time is refused (503): recorded
    /// on the primary, so the token is spent, but never accepted. `WAIT`
    /// holds this process's connection to that primary until the replicas
    /// answer, so its spends there go one replication round trip at a time,
    /// and the monitor's check on that connection waits behind them (a
    /// replica slow beyond the timeout makes the store look down: 503s).
    pub wait_replicas: u32,
}

impl RedisConfig {
    /// Defaults for `url`: a 50 ms command timeout, a check every 250 ms,
    /// no `WAIT`. `redis://host:port/db` is one server;
    /// `redis+cluster://host:port,host:port` a cluster found through those
    /// seed nodes (credentials before `@` apply to each).
    pub fn new(url: &str) -> Self {
        let nodes = cluster_seeds(url).map_or_else(|| RedisNodes::Single(url.to_owned()), RedisNodes::Cluster);
        Self { nodes, timeout: Duration::from_millis(50), probe_interval: Duration::from_millis(250), wait_replicas: 0 }
    }

    /// A cluster found through `seeds` (`redis://host:port` each), with the
    /// defaults of [`RedisConfig::new`].
    pub fn cluster<S: Into<String>>(seeds: impl IntoIterator<Item = S>) -> Self {
        Self { nodes: RedisNodes::Cluster(seeds.into_iter().map(Into::into).collect()), ..Self::new("") }
    }
}

/// The seed nodes of a `redis+cluster://[user:pass@]host:port,host:port[/]`
/// URL as `redis://` URLs; `None` for any other URL.
fn cluster_seeds(url: &str) -> Option<Vec<String>> {
    let rest = url.strip_prefix("redis+cluster://")?;
    let rest = rest.strip_suffix('/').unwrap_or(rest);
    let (auth, hosts) = rest.rsplit_once('@').map_or((None, rest), |(a, h)| (Some(a), h));
    Some(
        hosts
            .split(',')
            .filter(|h| !h.is_empty())
            .map(|h| auth.map_or_else(|| format!("redis://{h}/"), |a| format!("redis://{a}@{h}/")))
            .collect(),
    )
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
    /// Fewer replicas than [`RedisConfig::wait_replicas`] acknowledged the
    /// spend in time: recorded on the primary, but not accepted.
    Unreplicated,
}

impl StoreError {
    /// The label of the error in `pat_replay_store_errors_total`.
    pub const fn label(self) -> &'static str {
        match self {
            Self::Down => "down",
            Self::Timeout => "timeout",
            Self::Late => "late",
            Self::Failed => "error",
            Self::Unreplicated => "unreplicated",
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
            Self::Unreplicated => "replay store replicas did not acknowledge the spend",
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
    Redis(Box<RedisStore>),
}

/// One part of the store: an epoch hash and the spent keys it guards, in
/// one slot of a cluster (one server: the only shard, with the key names of
/// [`REDIS_EPOCH_KEY`] and [`REDIS_PREFIX`]).
struct Shard {
    epoch_key: String,
    spent_prefix: String,
    slot: u16,
}

/// The slot of a key whose hash tag is `tag`.
fn slot_of(tag: &str) -> u16 {
    crc16::State::<crc16::XMODEM>::calculate(tag.as_bytes()) % CLUSTER_SLOTS
}

/// The shards of a cluster store: shard `i` under the first tag `pat<k>`
/// whose slot falls in the `i`-th of [`CLUSTER_SHARDS`] equal slot ranges.
/// Every origin computes the same tags.
fn cluster_shards() -> Vec<Shard> {
    let width = usize::from(CLUSTER_SLOTS) / CLUSTER_SHARDS;
    (0..CLUSTER_SHARDS)
        .map(|i| {
            let mut k = 0u32;
            loop {
                let tag = format!("pat{k}");
                let slot = slot_of(&tag);
                if usize::from(slot) / width == i {
                    return Shard {
                        epoch_key: format!("pat:epoch:{{{tag}}}"),
                        spent_prefix: format!("pat:spent:{{{tag}}}:"),
                        slot,
                    };
                }
                k += 1;
            }
        })
        .collect()
}

/// A connection to the store: one server (reconnecting by itself) or a
/// cluster (routing by slot, following failovers).
#[derive(Clone)]
enum Conn {
    Single(redis::aio::ConnectionManager),
    Cluster(redis::cluster_async::ClusterConnection),
}

impl redis::aio::ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a redis::Cmd) -> redis::RedisFuture<'a, redis::Value> {
        match self {
            Self::Single(c) => c.req_packed_command(cmd),
            Self::Cluster(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a redis::Pipeline,
        offset: usize,
        count: usize,
    ) -> redis::RedisFuture<'a, Vec<redis::Value>> {
        match self {
            Self::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Self::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Self::Single(c) => c.get_db(),
            Self::Cluster(c) => c.get_db(),
        }
    }
}

impl Conn {
    fn route(slot: u16) -> redis::cluster_routing::SingleNodeRoutingInfo {
        redis::cluster_routing::SingleNodeRoutingInfo::SpecificNode(redis::cluster_routing::Route::new(
            slot,
            redis::cluster_routing::SlotAddr::Master,
        ))
    }

    /// `cmd` on the primary of `slot` (the only server when not a cluster).
    async fn command_at(&mut self, cmd: redis::Cmd, slot: u16) -> redis::RedisResult<redis::Value> {
        match self {
            Self::Single(c) => cmd.query_async(c).await,
            Self::Cluster(c) => {
                c.route_command(cmd, redis::cluster_routing::RoutingInfo::SingleNode(Self::route(slot))).await
            }
        }
    }

    /// The `count` commands of `pipe`, on one connection to the primary of `slot`.
    async fn pipeline_at(
        &mut self,
        pipe: redis::Pipeline,
        slot: u16,
        count: usize,
    ) -> redis::RedisResult<Vec<redis::Value>> {
        match self {
            Self::Single(c) => pipe.query_async(c).await,
            Self::Cluster(c) => c.route_pipeline(pipe, 0, count, Self::route(slot)).await,
        }
    }
}

/// How the store is reached.
/// The connections to the store. With [`RedisConfig::wait_replicas`] the
/// spends go over a connection of their own (`wait`): `WAIT` holds its
/// connection until the replicas answer, and the monitor's checks must not
/// queue behind it (a check that times out marks the store down).
enum Link {
    Single {
        main: redis::aio::ConnectionManager,
        wait: Option<redis::aio::ConnectionManager>,
    },
    /// Connected by the monitor's first successful check.
    Cluster {
        client: Box<redis::cluster::ClusterClient>,
        conn: Mutex<Option<redis::cluster_async::ClusterConnection>>,
        wait: Mutex<Option<redis::cluster_async::ClusterConnection>>,
    },
}

struct RedisStore {
    link: Link,
    shards: Vec<Shard>,
    config: RedisConfig,
    spend: redis::Script,
    sync: redis::Script,
    up: AtomicBool,
    state: Mutex<RedisState>,
}

/// What this process knows of one shard.
#[derive(Clone, Copy, Default)]
struct ShardState {
    /// The epoch last read from the shard.
    epoch: Option<Epoch>,
    /// Its generation.
    generation: u64,
    /// The highest spend counter this process saw under that epoch.
    max_seq: u64,
    /// The clock of the shard's server minus this process's, in milliseconds.
    offset_ms: i64,
}

#[derive(Clone, Default)]
struct RedisState {
    shards: Vec<ShardState>,
    /// The store's epoch, put into challenges: the only shard's, or a hash
    /// of every shard's epoch and generation (a change in any shard changes it).
    epoch: Option<Epoch>,
}

/// The store's epoch from its shards' (`None` until every shard is known).
fn store_epoch(shards: &[ShardState]) -> Option<Epoch> {
    use sha2::Digest as _;
    if let [only] = shards {
        return only.epoch;
    }
    let mut hash = sha2::Sha256::new();
    hash.update(b"pat replay store epoch: cluster shards");
    for shard in shards {
        hash.update(shard.epoch?);
        hash.update(shard.generation.to_be_bytes());
    }
    hash.finalize().get(..EPOCH_LEN)?.try_into().ok()
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let kind = match &self.backend {
            Backend::Memory { .. } => "memory",
            Backend::Redis(r) => match r.link {
                Link::Single { .. } => "redis",
                Link::Cluster { .. } => "redis-cluster",
            },
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

    /// A store in Redis (one server or a cluster). Nothing is sent yet: the
    /// origin starts even while Redis is down (refusing redemptions, and not
    /// ready) and the monitor connects; [`Replay::check`] makes the first
    /// contact.
    pub fn redis(config: RedisConfig, metrics: Arc<Metrics>) -> Result<Self, BoxError> {
        let connect_timeout = config.timeout.max(Duration::from_millis(100));
        let (link, shards) = match &config.nodes {
            RedisNodes::Single(url) => {
                let client = redis::Client::open(url.as_str())?;
                let manager_config = redis::aio::ConnectionManagerConfig::new()
                    .set_connection_timeout(Some(connect_timeout))
                    .set_response_timeout(Some(Duration::from_secs(2)))
                    .set_number_of_retries(1)
                    .set_min_delay(Duration::from_millis(10))
                    .set_max_delay(Duration::from_millis(100));
                let main = redis::aio::ConnectionManager::new_lazy_with_config(client.clone(), manager_config.clone())?;
                let wait = match config.wait_replicas {
                    0 => None,
                    _ => Some(redis::aio::ConnectionManager::new_lazy_with_config(client, manager_config)?),
                };
                let shard =
                    Shard { epoch_key: REDIS_EPOCH_KEY.to_owned(), spent_prefix: REDIS_PREFIX.to_owned(), slot: 0 };
                (Link::Single { main, wait }, vec![shard])
            }
            RedisNodes::Cluster(seeds) => {
                if seeds.is_empty() {
                    return Err("a Redis Cluster needs at least one seed node".into());
                }
                let client = redis::cluster::ClusterClientBuilder::new(seeds.iter().map(String::as_str))
                    .connection_timeout(connect_timeout)
                    .response_timeout(Duration::from_secs(2))
                    .retries(1)
                    .min_retry_wait(10)
                    .max_retry_wait(100)
                    .build()?;
                let link = Link::Cluster { client: Box::new(client), conn: Mutex::new(None), wait: Mutex::new(None) };
                (link, cluster_shards())
            }
        };
        metrics.store_up.set(0);
        let state = RedisState { shards: vec![ShardState::default(); shards.len()], epoch: None };
        Ok(Self {
            backend: Backend::Redis(Box::new(RedisStore {
                link,
                shards,
                config,
                spend: redis::Script::new(SPEND_SCRIPT),
                sync: redis::Script::new(SYNC_SCRIPT),
                up: AtomicBool::new(false),
                state: Mutex::new(state),
            })),
            metrics,
        })
    }

    /// The store's current epoch, if known (a Redis store not reached yet has none).
    pub fn epoch(&self) -> Option<Epoch> {
        match &self.backend {
            Backend::Memory { epoch, .. } => Some(*epoch),
            Backend::Redis(r) => r.with_state(|s| s.epoch),
        }
    }

    /// Whether the last check of the store succeeded and its epoch is known.
    pub fn is_up(&self) -> bool {
        match &self.backend {
            Backend::Memory { .. } => true,
            Backend::Redis(r) => r.up.load(Ordering::Acquire) && r.with_state(|s| s.epoch.is_some()),
        }
    }

    /// Checks the store now (Redis: reads or writes every shard's epoch,
    /// measures the clock offsets, checks the eviction policy); updates
    /// [`is_up`](Self::is_up).
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

fn cluster_conn(slot: &Mutex<Option<redis::cluster_async::ClusterConnection>>) -> Option<Conn> {
    match slot.lock() {
        Ok(c) => c.clone().map(Conn::Cluster),
        Err(poisoned) => poisoned.into_inner().clone().map(Conn::Cluster),
    }
}

fn set_conn(
    slot: &Mutex<Option<redis::cluster_async::ClusterConnection>>,
    conn: redis::cluster_async::ClusterConnection,
) {
    match slot.lock() {
        Ok(mut c) => *c = Some(conn),
        Err(poisoned) => *poisoned.into_inner() = Some(conn),
    }
}

/// What one shard's check found: its epoch, generation, counter and clock offset.
type ShardCheck = Result<(Epoch, u64, u64, i64), (StoreError, String)>;

impl RedisStore {
    fn with_state<T>(&self, f: impl FnOnce(&mut RedisState) -> T) -> T {
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

    /// The connection, if there is one (a cluster is connected by a check).
    fn conn(&self) -> Option<Conn> {
        match &self.link {
            Link::Single { main, .. } => Some(Conn::Single(main.clone())),
            Link::Cluster { conn, .. } => cluster_conn(conn),
        }
    }

    /// The connection spends go over: the `WAIT` connection when spends
    /// wait for replicas, else the one connection.
    fn spend_conn(&self) -> Option<Conn> {
        match &self.link {
            Link::Single { wait: Some(wait), .. } => Some(Conn::Single(wait.clone())),
            Link::Cluster { wait, .. } if self.config.wait_replicas > 0 => cluster_conn(wait),
            _ => self.conn(),
        }
    }

    /// The connection, connecting to a cluster first if need be.
    async fn connect(&self) -> Result<Conn, (StoreError, String)> {
        if let Some(conn) = self.conn() {
            return Ok(conn);
        }
        let Link::Cluster { client, conn, wait } = &self.link else {
            return Err((StoreError::Failed, "no connection".into()));
        };
        let connect = || async {
            tokio::time::timeout(self.config.timeout.max(Duration::from_millis(100)) * 4, client.get_async_connection())
                .await
                .map_err(|_| (StoreError::Timeout, "connecting to the cluster timed out".to_owned()))?
                .map_err(|e| (StoreError::Failed, format!("connecting to the cluster: {e}")))
        };
        let connected = connect().await?;
        // The WAIT connection first: spends find both or neither.
        if self.config.wait_replicas > 0 {
            let waiting = connect().await?;
            set_conn(wait, waiting);
        }
        set_conn(conn, connected.clone());
        Ok(Conn::Cluster(connected))
    }

    /// Checks every shard (the monitor).
    async fn check(&self, metrics: &Metrics) -> Result<(), StoreError> {
        self.check_shards(metrics, None).await
    }

    /// Checks every shard, or with `only` that one shard (a spend found
    /// another epoch there: the other shards need no round trip).
    async fn check_shards(&self, metrics: &Metrics, only: Option<usize>) -> Result<(), StoreError> {
        let conn = match self.connect().await {
            Ok(c) => c,
            Err((e, why)) => {
                self.set_up(metrics, false, Some(&why));
                return Err(e);
            }
        };
        let known = self.with_state(|s| s.shards.clone());
        let checks = self.shards.iter().zip(known).enumerate().filter(|(i, _)| only.is_none_or(|o| o == *i)).map(
            |(i, (shard, k))| {
                let conn = conn.clone();
                async move { (i, self.check_shard(conn, shard, k).await) }
            },
        );
        let results = futures_util::future::join_all(checks).await;
        let mut found = Vec::with_capacity(results.len());
        for (i, result) in results {
            match result {
                Ok(f) => found.push((i, f)),
                Err((e, why)) => {
                    self.set_up(metrics, false, Some(&why));
                    return Err(e);
                }
            }
        }
        if found.is_empty() {
            return Err(StoreError::Failed);
        }
        let (before, after) = self.with_state(|s| {
            for &(i, (epoch, generation, seq, offset_ms)) in &found {
                let Some(state) = s.shards.get_mut(i) else { continue };
                if state.epoch == Some(epoch) && state.generation == generation {
                    state.max_seq = state.max_seq.max(seq);
                } else {
                    *state = ShardState { epoch: Some(epoch), generation, max_seq: seq, offset_ms };
                }
                state.offset_ms = offset_ms;
            }
            let before = s.epoch;
            s.epoch = store_epoch(&s.shards);
            (before, s.epoch)
        });
        if before.is_some() && before != after {
            metrics.epoch_changes.inc();
            tracing::warn!(
                "replay store epoch changed (Redis lost or rewound its memory): tokens of earlier challenges are refused"
            );
        }
        if after.is_none() {
            self.set_up(metrics, false, Some(&"no epoch"));
            return Err(StoreError::Failed);
        }
        // Only a check of every shard says the store is up again: one
        // shard answering says nothing of the others.
        if only.is_none() {
            self.set_up(metrics, true, None);
        }
        Ok(())
    }

    /// One shard's [`SYNC_SCRIPT`] and its server's eviction policy.
    async fn check_shard(&self, mut conn: Conn, shard: &Shard, known: ShardState) -> ShardCheck {
        let limit = self.config.timeout.max(Duration::from_millis(100));
        let fresh = random_epoch().map_err(|e| (StoreError::Failed, e.to_string()))?;
        let mut invocation = self.sync.key(&shard.epoch_key);
        invocation
            .arg(crate::hex(&fresh))
            .arg(known.epoch.map_or_else(String::new, |e| crate::hex(&e)))
            .arg(known.generation)
            .arg(known.max_seq);
        let reply: SyncReply = tokio::time::timeout(limit, invocation.invoke_async(&mut conn))
            .await
            .map_err(|_| (StoreError::Timeout, "check timed out".to_owned()))?
            .map_err(|e| (StoreError::Failed, e.to_string()))?;
        let received = unix_millis();
        let (id, generation, seq, secs, micros) = reply;
        let (Some(epoch), Ok(generation), Ok(seq)) = (parse_epoch(&id), generation.parse::<u64>(), seq.parse::<u64>())
        else {
            // Someone else wrote the key: refuse rather than guess.
            return Err((StoreError::Failed, format!("{} holds no epoch of this crate", shard.epoch_key)));
        };
        // Redis read its clock before the reply arrived, so this is at most
        // the true offset: deadlines computed with it fall no later, in
        // Redis's clock, than the moment the origin gives up.
        let redis_ms = secs.saturating_mul(1000).saturating_add(micros / 1000);
        let offset_ms = redis_ms.saturating_sub(received);
        self.eviction_policy(&mut conn, shard.slot).await.map_err(|why| (StoreError::Failed, why))?;
        Ok((epoch, generation, seq, offset_ms))
    }

    /// Refuses a Redis that may evict keys: every spent entry has a TTL,
    /// which is what the `volatile-*` policies (the default of several
    /// managed services) evict first, and a forgotten spend is a replay
    /// accepted. `noeviction` answers errors instead when memory is full.
    /// A Redis that does not report its policy is taken as it is. In a
    /// cluster, each shard's primary is asked.
    async fn eviction_policy(&self, conn: &mut Conn, slot: u16) -> Result<(), String> {
        let reply = tokio::time::timeout(
            self.config.timeout.max(Duration::from_millis(100)),
            conn.command_at(redis::cmd("INFO").arg("memory").clone(), slot),
        )
        .await
        .map_err(|_| "INFO memory timed out".to_owned())?
        .map_err(|e| format!("INFO memory: {e}"))?;
        let info: String = redis::from_redis_value(reply).map_err(|e| format!("INFO memory: {e}"))?;
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
        // Clients choose nonces; any spread over the shards is as good.
        let index = usize::from(nonce[0]) % self.shards.len().max(1);
        let (store_epoch, shard_state) = self.with_state(|s| (s.epoch, s.shards.get(index).copied()));
        if store_epoch.as_ref() != Some(epoch) {
            return Ok(Outcome::EpochChanged);
        }
        let (Some(shard), Some(state), Some(conn)) = (self.shards.get(index), shard_state, self.spend_conn()) else {
            return Err(StoreError::Down);
        };
        let Some(shard_epoch) = state.epoch else { return Err(StoreError::Down) };
        let fresh = random_epoch().map_err(|_| StoreError::Failed)?;
        let timeout_ms = i64::try_from(self.config.timeout.as_millis()).unwrap_or(i64::MAX);
        let deadline = unix_millis().saturating_add(state.offset_ms).saturating_add(timeout_ms);
        let key = format!("{}{}{}", shard.spent_prefix, crate::hex(key_id), crate::hex(nonce));
        let started = Instant::now();
        let reply = tokio::time::timeout(
            self.config.timeout,
            self.run_spend(conn, shard, key, &shard_epoch, ttl, state.max_seq, deadline, &fresh),
        )
        .await;
        let (code, seq, acked) = match reply {
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
        self.with_state(|s| {
            if let Some(st) = s.shards.get_mut(index)
                && st.epoch == Some(shard_epoch)
            {
                st.max_seq = st.max_seq.max(seq);
            }
        });
        match code {
            0 if acked < self.config.wait_replicas => Err(StoreError::Unreplicated),
            0 => Ok(Outcome::Spend(Spend::Fresh)),
            1 => Ok(Outcome::Spend(Spend::Replayed)),
            2 | 4 => {
                // Another epoch in the shard (or a new one just written):
                // read it before the next challenge goes out.
                let _ = self.check_shards(metrics, Some(index)).await;
                Ok(Outcome::EpochChanged)
            }
            3 => Err(StoreError::Late),
            _ => Err(StoreError::Failed),
        }
    }

    /// [`SPEND_SCRIPT`] on the shard, then, with
    /// [`RedisConfig::wait_replicas`], `WAIT` on the same connection (the
    /// spends' own, [`Self::spend_conn`]).
    /// Returns the script's code and counter and the replicas that
    /// acknowledged (`u32::MAX` when not asked).
    #[allow(clippy::too_many_arguments)]
    async fn run_spend(
        &self,
        mut conn: Conn,
        shard: &Shard,
        key: String,
        shard_epoch: &Epoch,
        ttl: u64,
        max_seq: u64,
        deadline: i64,
        fresh: &Epoch,
    ) -> redis::RedisResult<(i64, u64, u32)> {
        if self.config.wait_replicas == 0 {
            let mut invocation = self.spend.key(&shard.epoch_key);
            invocation.key(key).arg(crate::hex(shard_epoch)).arg(ttl).arg(max_seq).arg(deadline).arg(crate::hex(fresh));
            let (code, seq): (i64, u64) = invocation.invoke_async(&mut conn).await?;
            return Ok((code, seq, u32::MAX));
        }
        // WAIT counts the replicas that acknowledged this connection's
        // writes so far, so it must follow the script on the same
        // connection to the same primary: one pipeline, routed by slot.
        // EVAL (not EVALSHA): a primary promoted in a failover may not have
        // the script cached.
        let wait_ms = (self.config.timeout.as_millis() * 3 / 4).max(1);
        let mut pipe = redis::pipe();
        pipe.cmd("EVAL")
            .arg(SPEND_SCRIPT)
            .arg(2)
            .arg(&shard.epoch_key)
            .arg(key)
            .arg(crate::hex(shard_epoch))
            .arg(ttl)
            .arg(max_seq)
            .arg(deadline)
            .arg(crate::hex(fresh));
        pipe.cmd("WAIT").arg(self.config.wait_replicas).arg(u64::try_from(wait_ms).unwrap_or(u64::MAX));
        let mut values = conn.pipeline_at(pipe, shard.slot, 2).await?.into_iter();
        let (Some(spend), Some(wait)) = (values.next(), values.next()) else {
            return Err(redis::RedisError::from((redis::ErrorKind::Parse, "short pipeline reply")));
        };
        let (code, seq): (i64, u64) = redis::from_redis_value(spend)?;
        let acked: u32 = redis::from_redis_value(wait)?;
        Ok((code, seq, acked))
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

    #[test]
    fn cluster_shards_spread_over_the_slot_space() {
        let shards = cluster_shards();
        assert_eq!(shards.len(), CLUSTER_SHARDS);
        let width = usize::from(CLUSTER_SLOTS) / CLUSTER_SHARDS;
        for (i, shard) in shards.iter().enumerate() {
            assert_eq!(usize::from(shard.slot) / width, i);
            // Both keys of a spend carry the same hash tag.
            let tag = shard.epoch_key.strip_prefix("pat:epoch:").unwrap();
            assert!(tag.starts_with('{') && tag.ends_with('}'));
            assert_eq!(shard.spent_prefix, format!("pat:spent:{tag}:"));
            assert_eq!(slot_of(tag.trim_matches(|c| c == '{' || c == '}')), shard.slot);
        }
        // Redis Cluster's own test value for CRC16-XMODEM: slot of "123456789" is 0x31C3 % 16384.
        assert_eq!(slot_of("123456789"), 0x31C3 % CLUSTER_SLOTS);
    }

    #[test]
    fn cluster_urls_give_seed_nodes() {
        assert_eq!(RedisConfig::new("redis://h:1/").nodes, RedisNodes::Single("redis://h:1/".into()));
        assert_eq!(
            RedisConfig::new("redis+cluster://h:1,g:2/").nodes,
            RedisNodes::Cluster(vec!["redis://h:1/".into(), "redis://g:2/".into()])
        );
        assert_eq!(
            RedisConfig::new("redis+cluster://u:p@h:1,g:2").nodes,
            RedisNodes::Cluster(vec!["redis://u:p@h:1/".into(), "redis://u:p@g:2/".into()])
        );
        assert!(Replay::redis(RedisConfig::new("redis+cluster://"), Arc::new(Metrics::new())).is_err());
    }

    #[test]
    fn the_cluster_epoch_changes_with_any_shard() {
        let mut shards = vec![ShardState::default(); 3];
        assert_eq!(store_epoch(&shards), None);
        for (i, s) in shards.iter_mut().enumerate() {
            s.epoch = Some([u8::try_from(i).unwrap(); EPOCH_LEN]);
        }
        let first = store_epoch(&shards).unwrap();
        shards[2].generation += 1;
        let second = store_epoch(&shards).unwrap();
        assert_ne!(first, second);
        shards[1].epoch = Some([9; EPOCH_LEN]);
        assert_ne!(store_epoch(&shards).unwrap(), second);
        // One server: the shard's epoch itself (challenges unchanged).
        assert_eq!(store_epoch(&shards[..1]), Some([0; EPOCH_LEN]));
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
