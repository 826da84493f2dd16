//! What the services count, for `GET /metrics` (Prometheus / OpenMetrics
//! text, from the `prometheus-client` crate).
//!
//! One [`Metrics`] per service (its own registry, so that several services
//! in one process, as in the tests, do not mix their counts). Every name
//! starts with `pat_`; labels are fixed strings (a token type, a reason, a
//! route), never anything a client chose, so a flood cannot grow the label
//! space.
//!
//! | metric | type | labels | what |
//! |---|---|---|---|
//! | `pat_tokens_issued_total` | counter | `token_type`, `kind` | tokens issued (a batch counts each token; an ARC credential, kind `credential`, counts one) |
//! | `pat_issuance_refused_total` | counter | `reason` | token requests refused |
//! | `pat_tokens_redeemed_total` | counter | `token_type` | tokens accepted by the origin |
//! | `pat_redemptions_refused_total` | counter | `reason` | redemptions refused (`replayed` among them) |
//! | `pat_replay_store_errors_total` | counter | `kind` | replay store failures (`down`, `timeout`, `error`, `late`) |
//! | `pat_replay_store_up` | gauge | | 1 when the replay store answers |
//! | `pat_replay_store_epoch_changes_total` | counter | | times the store's epoch changed under this process |
//! | `pat_request_duration_seconds` | histogram | `route` | time from request to response |
//! | `pat_pool_in_flight` | gauge | | cryptographic jobs admitted (queued or running) |
//! | `pat_pool_shed_total` | counter | `stage` | jobs refused with 503: the queue was full (`admission`) or too slow (`queue`) |
//! | `pat_connections_open` | gauge | | connections held |
//! | `pat_connections_refused_total` | counter | | connections closed at once: the cap was reached |
//! | `pat_keys_loaded` | gauge | `token_type` | keys in use |
//! | `pat_key_reloads_failed_total` | counter | | key reloads that failed (the old set stays) |
//! | `pat_keys_skipped_total` | counter | | keys skipped at load (unusable, or a colliding truncated id) |

use prometheus_client::encoding::text::encode;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

/// One label: `(name, value)`.
pub type Label = [(&'static str, &'static str); 1];
/// Two labels.
pub type Labels2 = [(&'static str, &'static str); 2];

type Histograms = Family<Label, Histogram, fn() -> Histogram>;

/// The media type of the text [`Metrics::render`] writes.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// The counters, gauges and histograms of one service.
pub struct Metrics {
    registry: Registry,
    /// `pat_tokens_issued_total{token_type, kind}`.
    pub issued: Family<Labels2, Counter>,
    /// `pat_issuance_refused_total{reason}`.
    pub issuance_refused: Family<Label, Counter>,
    /// `pat_tokens_redeemed_total{token_type}`.
    pub redeemed: Family<Label, Counter>,
    /// `pat_redemptions_refused_total{reason}`.
    pub redemption_refused: Family<Label, Counter>,
    /// `pat_replay_store_errors_total{kind}`.
    pub store_errors: Family<Label, Counter>,
    /// `pat_replay_store_up`.
    pub store_up: Gauge,
    /// `pat_replay_store_epoch_changes_total`.
    pub epoch_changes: Counter,
    /// `pat_request_duration_seconds{route}`.
    pub latency: Histograms,
    /// `pat_pool_in_flight`.
    pub pool_in_flight: Gauge,
    /// `pat_pool_shed_total{stage}`.
    pub pool_shed: Family<Label, Counter>,
    /// `pat_connections_open`.
    pub connections_open: Gauge,
    /// `pat_connections_refused_total`.
    pub connections_refused: Counter,
    /// `pat_keys_loaded{token_type}`.
    pub keys_loaded: Family<Label, Gauge>,
    /// `pat_key_reloads_failed_total`.
    pub key_reloads_failed: Counter,
    /// `pat_keys_skipped_total`.
    pub keys_skipped: Counter,
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics").finish_non_exhaustive()
    }
}

fn latency_histogram() -> Histogram {
    // 0.25 ms to about 8 s, doubling.
    Histogram::new(exponential_buckets(0.000_25, 2.0, 16))
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// Every metric at zero, registered.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let m = Self {
            issued: Family::default(),
            issuance_refused: Family::default(),
            redeemed: Family::default(),
            redemption_refused: Family::default(),
            store_errors: Family::default(),
            store_up: Gauge::default(),
            epoch_changes: Counter::default(),
            latency: Family::new_with_constructor(latency_histogram),
            pool_in_flight: Gauge::default(),
            pool_shed: Family::default(),
            connections_open: Gauge::default(),
            connections_refused: Counter::default(),
            keys_loaded: Family::default(),
            key_reloads_failed: Counter::default(),
            keys_skipped: Counter::default(),
            registry: Registry::default(),
        };
        registry.register("pat_tokens_issued", "Tokens issued (each token of a batch counts)", m.issued.clone());
        registry.register("pat_issuance_refused", "Token requests refused, by reason", m.issuance_refused.clone());
        registry.register("pat_tokens_redeemed", "Tokens accepted at redemption", m.redeemed.clone());
        registry.register("pat_redemptions_refused", "Redemptions refused, by reason", m.redemption_refused.clone());
        registry.register("pat_replay_store_errors", "Replay store failures, by kind", m.store_errors.clone());
        registry.register("pat_replay_store_up", "1 when the replay store answers", m.store_up.clone());
        registry.register(
            "pat_replay_store_epoch_changes",
            "Times the replay store's epoch changed (the store lost or rewound its memory)",
            m.epoch_changes.clone(),
        );
        registry.register("pat_request_duration_seconds", "Time from request to response", m.latency.clone());
        registry.register(
            "pat_pool_in_flight",
            "Cryptographic jobs admitted (queued or running)",
            m.pool_in_flight.clone(),
        );
        registry.register("pat_pool_shed", "Cryptographic jobs refused with 503, by stage", m.pool_shed.clone());
        registry.register("pat_connections_open", "Connections held", m.connections_open.clone());
        registry.register(
            "pat_connections_refused",
            "Connections closed at once because the cap was reached",
            m.connections_refused.clone(),
        );
        registry.register("pat_keys_loaded", "Keys in use, by token type", m.keys_loaded.clone());
        registry.register(
            "pat_key_reloads_failed",
            "Key reloads that failed (the old set stays)",
            m.key_reloads_failed.clone(),
        );
        registry.register("pat_keys_skipped", "Keys skipped at load", m.keys_skipped.clone());
        Self { registry, ..m }
    }

    /// The text exposition of every metric.
    pub fn render(&self) -> String {
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = encode(&mut out, &self.registry);
        out
    }

    /// Counts one refused redemption.
    pub fn refuse_redemption(&self, reason: &'static str) {
        self.redemption_refused.get_or_create(&[("reason", reason)]).inc();
    }

    /// Counts one refused token request.
    pub fn refuse_issuance(&self, reason: &'static str) {
        self.issuance_refused.get_or_create(&[("reason", reason)]).inc();
    }

    /// Counts one replay store failure.
    pub fn store_error(&self, kind: &'static str) {
        self.store_errors.get_or_create(&[("kind", kind)]).inc();
    }
}

/// The label value of a token type: a served type's is the registry's
/// (`1`, `2`, `5`, `0xDA7A`); of the library's other types, `3` and
/// `0xE5AC`; `other` for the rest.
pub fn type_label(token_type: u16) -> &'static str {
    crate::registry::label(token_type).unwrap_or(match token_type {
        3 => "3",
        0xE5AC => "0xE5AC",
        _ => "other",
    })
}
