//! The operator's routes of every service:
//!
//! - `GET /healthz`: 200 `ok` while the process serves (liveness);
//! - `GET /readyz`: 200 `ready` when the service can do its work (the
//!   issuer: a key of every type it serves; the origin: a key of its type
//!   and a reachable replay store), else 503 with the reason; 503 as soon as
//!   shutdown begins, so that a load balancer stops sending requests;
//! - `GET /metrics`: the [`Metrics`] as Prometheus / OpenMetrics text.
//!
//! They are served beside the service's own routes, or on a listener of
//! their own (`--admin-listen`), which keeps them off a public port.

use std::sync::Arc;

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::metrics::{self, Metrics};

/// The path of the liveness check.
pub const HEALTHZ: &str = "/healthz";
/// The path of the readiness check.
pub const READYZ: &str = "/readyz";
/// The path of the metrics.
pub const METRICS: &str = "/metrics";

/// The three routes; `ready` says whether the service is ready, or why not.
pub fn routes(
    metrics: Arc<Metrics>,
    ready: impl Fn() -> Result<(), &'static str> + Clone + Send + Sync + 'static,
) -> Router {
    Router::new()
        .route(HEALTHZ, get(|| async { "ok\n" }))
        .route(
            READYZ,
            get(move || {
                let ready = ready.clone();
                async move {
                    match ready() {
                        Ok(()) => (StatusCode::OK, "ready\n".to_owned()).into_response(),
                        Err(why) => (StatusCode::SERVICE_UNAVAILABLE, format!("not ready: {why}\n")).into_response(),
                    }
                }
            }),
        )
        .route(
            METRICS,
            get(move || {
                let metrics = Arc::clone(&metrics);
                async move { render(&metrics) }
            }),
        )
}

fn render(metrics: &Metrics) -> Response {
    ([(header::CONTENT_TYPE, metrics::CONTENT_TYPE)], metrics.render()).into_response()
}

/// The `route` label of an operator's path.
pub fn route_of(path: &str) -> Option<&'static str> {
    match path {
        HEALTHZ => Some("healthz"),
        READYZ => Some("readyz"),
        METRICS => Some("metrics"),
        _ => None,
    }
}
