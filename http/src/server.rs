//! Serving a router to strangers: every resource bounded, and a clean stop.
//!
//! Built from the ecosystem's parts: axum-server (hyper 1 through
//! hyper-util) accepts connections, plain or TLS, and drains them on
//! shutdown; hyper's HTTP/1 settings bound the headers; tower-http's layers
//! bound the request and its body, answer CORS and trace requests.
//!
//! | what | bound | default |
//! |---|---|---|
//! | a request head (line and headers) not complete | [`Limits::header_timeout`], then the connection closes | 20 s |
//! | an idle keep-alive connection (no next request) | the same timer: hyper starts it as soon as it waits for a head | 20 s |
//! | a TLS handshake | axum-server's handshake timeout | 10 s |
//! | a request's handling, body included | [`Limits::request_timeout`] (408) | 10 s |
//! | a request body that stalls | [`Limits::request_timeout`], and per read the same | 10 s |
//! | request head size | [`Limits::max_header_bytes`] (431 and close) | 16 KiB |
//! | header count | [`MAX_HEADERS`] (431 and close) | 64 |
//! | connections held at once | [`Limits::max_connections`]; one more is closed at once | 1024 |
//! | the cryptography of requests | [`crate::pool`] | |
//!
//! Only HTTP/1.1 is spoken (TLS offers `http/1.1` alone): HTTP/2's own
//! limits would need a second set of bounds, and Privacy Pass exchanges are
//! one small request each.
//!
//! Shutdown: when the `shutdown` future of [`serve_with`] resolves (the CLI
//! passes SIGTERM or SIGINT), the listener closes, idle connections close,
//! requests in flight finish (at most [`Limits::shutdown_grace`]), and
//! `serve_with` returns.

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{HeaderName, HeaderValue, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use axum_server::accept::Accept;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tower_http::cors::{AllowOrigin, CorsLayer};
use tower_http::timeout::{RequestBodyTimeoutLayer, TimeoutLayer};
use tower_http::trace::TraceLayer;

use crate::BoxError;
use crate::metrics::Metrics;

/// The most header fields in one request.
pub const MAX_HEADERS: usize = 64;

/// The bounds of a server (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Time to receive a whole request head; also how long an idle
    /// keep-alive connection is kept.
    pub header_timeout: Duration,
    /// Time to handle a request, reading its body included (408 after).
    pub request_timeout: Duration,
    /// The largest request head in bytes (431 above). hyper needs at least 8 KiB.
    pub max_header_bytes: usize,
    /// Connections held at once; one more is closed as soon as it is accepted.
    pub max_connections: usize,
    /// How long requests in flight may take to finish after shutdown begins.
    pub shutdown_grace: Duration,
    /// Origins allowed to call from a browser (`*` for any); none: no CORS headers.
    pub cors_origins: Vec<String>,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            header_timeout: Duration::from_secs(20),
            request_timeout: Duration::from_secs(10),
            max_header_bytes: 16 * 1024,
            max_connections: 1024,
            shutdown_grace: Duration::from_secs(10),
            cors_origins: Vec::new(),
        }
    }
}

/// The CORS layer for `origins` (`*`: any origin): simple and preflighted
/// requests with `Authorization` and `Content-Type`, and the Privacy Pass
/// response headers readable from the page (`WWW-Authenticate` above all).
pub fn cors(origins: &[String]) -> Result<CorsLayer, BoxError> {
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        let list = origins
            .iter()
            .map(|o| {
                HeaderValue::from_str(o.trim_end_matches('/'))
                    .map_err(|_| format!("--cors-origin {o:?}: not a header value"))
            })
            .collect::<Result<Vec<_>, _>>()?;
        AllowOrigin::list(list)
    };
    Ok(CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([Method::GET, Method::HEAD, Method::POST, Method::OPTIONS])
        .allow_headers([header::AUTHORIZATION, header::CONTENT_TYPE, header::IF_NONE_MATCH])
        .expose_headers([
            header::WWW_AUTHENTICATE,
            header::ETAG,
            header::CACHE_CONTROL,
            header::RETRY_AFTER,
            HeaderName::from_static("content-type"),
        ])
        .max_age(Duration::from_secs(600)))
}

/// The layers every service gets: request timeouts, CORS (if asked), request
/// traces (at debug level: a flood does not flood the logs) and the latency
/// histogram, under `route` names chosen by `route_of`.
pub fn layered(router: Router, limits: &Limits, metrics: Arc<Metrics>, route_of: RouteOf) -> Result<Router, BoxError> {
    let mut router = router
        .layer(RequestBodyTimeoutLayer::new(limits.request_timeout))
        .layer(TimeoutLayer::with_status_code(StatusCode::REQUEST_TIMEOUT, limits.request_timeout));
    if !limits.cors_origins.is_empty() {
        router = router.layer(cors(&limits.cors_origins)?);
    }
    Ok(router
        .layer(TraceLayer::new_for_http())
        .layer(axum::middleware::from_fn_with_state((metrics, route_of), time_requests)))
}

/// What a request's route label is, from its path.
pub type RouteOf = fn(&str) -> &'static str;

async fn time_requests(
    State((metrics, route_of)): State<(Arc<Metrics>, RouteOf)>,
    request: Request,
    next: Next,
) -> Response {
    let route = route_of(request.uri().path());
    let started = Instant::now();
    let response = next.run(request).await;
    metrics.latency.get_or_create(&[("route", route)]).observe(started.elapsed().as_secs_f64());
    response
}

/// An accepted stream that holds one of the server's connection places.
pub struct Counted<S> {
    inner: S,
    _place: OwnedSemaphorePermit,
}

impl<S: AsyncRead + Unpin> AsyncRead for Counted<S> {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl<S: AsyncWrite + Unpin> AsyncWrite for Counted<S> {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write(cx, buf)
    }
    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_flush(cx)
    }
    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        Pin::new(&mut self.inner).poll_write_vectored(cx, bufs)
    }
    fn is_write_vectored(&self) -> bool {
        self.inner.is_write_vectored()
    }
}

/// An acceptor that takes a connection place before the inner acceptor (the
/// TLS handshake) runs, and closes the connection at once if none is free.
#[derive(Clone)]
pub struct ConnectionCap<A> {
    inner: A,
    places: Arc<Semaphore>,
    metrics: Arc<Metrics>,
}

impl<A> ConnectionCap<A> {
    fn new(inner: A, max: usize, metrics: Arc<Metrics>) -> Self {
        Self { inner, places: Arc::new(Semaphore::new(max.max(1))), metrics }
    }
}

type Accepted<T, U> = Pin<Box<dyn Future<Output = io::Result<(T, U)>> + Send>>;

impl<I, S, A> Accept<I, S> for ConnectionCap<A>
where
    A: Accept<I, S>,
    A::Future: Send + 'static,
    A::Stream: Send + 'static,
    A::Service: Send + 'static,
{
    type Stream = Counted<A::Stream>;
    type Service = A::Service;
    type Future = Accepted<Self::Stream, Self::Service>;

    fn accept(&self, stream: I, service: S) -> Self::Future {
        let Ok(place) = Arc::clone(&self.places).try_acquire_owned() else {
            self.metrics.connections_refused.inc();
            drop(stream);
            return Box::pin(std::future::ready(Err(io::Error::other("connection cap reached"))));
        };
        let future = self.inner.accept(stream, service);
        Box::pin(async move {
            let (inner, service) = future.await?;
            Ok((Counted { inner, _place: place }, service))
        })
    }
}

/// Serves `router` on `listener` (plain HTTP, or TLS with `tls`) with
/// [`Limits::default`] until the process ends.
pub async fn serve(
    router: Router,
    listener: std::net::TcpListener,
    tls: Option<axum_server::tls_rustls::RustlsConfig>,
) -> Result<(), BoxError> {
    serve_with(router, listener, tls, &Limits::default(), Arc::new(Metrics::new()), std::future::pending()).await
}

/// Serves `router` on `listener` (plain HTTP, or TLS with `tls`) within
/// `limits` until `shutdown` resolves, then drains (see the module docs).
/// The router should already carry [`layered`]'s layers.
pub async fn serve_with(
    router: Router,
    listener: std::net::TcpListener,
    tls: Option<axum_server::tls_rustls::RustlsConfig>,
    limits: &Limits,
    metrics: Arc<Metrics>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), BoxError> {
    listener.set_nonblocking(true)?;
    let handle = axum_server::Handle::<SocketAddr>::new();
    let grace = limits.shutdown_grace;
    let drain = handle.clone();
    tokio::spawn(async move {
        shutdown.await;
        tracing::info!(grace = ?grace, "shutting down: no new connections, draining requests in flight");
        drain.graceful_shutdown(Some(grace));
    });
    // Connection places, counted for `pat_connections_open` when scraped.
    let make = router.into_make_service();
    match tls {
        Some(config) => {
            let mut server = axum_server::from_tcp_rustls(listener, config)?
                .handle(handle)
                .http1_only()
                .map(|tls| ConnectionCap::new(tls, limits.max_connections, Arc::clone(&metrics)));
            configure(server.http_builder(), limits);
            let places = Arc::clone(&server.get_ref().places);
            spawn_gauge(places, limits.max_connections, metrics);
            server.serve(make).await?;
        }
        None => {
            let mut server = axum_server::from_tcp(listener)?
                .handle(handle)
                .http1_only()
                .map(|plain| ConnectionCap::new(plain, limits.max_connections, Arc::clone(&metrics)));
            configure(server.http_builder(), limits);
            let places = Arc::clone(&server.get_ref().places);
            spawn_gauge(places, limits.max_connections, metrics);
            server.serve(make).await?;
        }
    }
    Ok(())
}

fn configure(builder: &mut hyper_util::server::conn::auto::Builder<hyper_util::rt::TokioExecutor>, limits: &Limits) {
    let mut http1 = builder.http1();
    http1
        .header_read_timeout(limits.header_timeout)
        .max_buf_size(limits.max_header_bytes.max(8192))
        .max_headers(MAX_HEADERS)
        .keep_alive(true);
}

/// Keeps `pat_connections_open` current (once a second).
fn spawn_gauge(places: Arc<Semaphore>, max: usize, metrics: Arc<Metrics>) {
    let max = max.max(1);
    tokio::spawn(async move {
        let mut tick = tokio::time::interval(Duration::from_secs(1));
        loop {
            tick.tick().await;
            let open = max.saturating_sub(places.available_permits());
            metrics.connections_open.set(i64::try_from(open).unwrap_or(i64::MAX));
            if Arc::strong_count(&places) == 1 {
                // The server is gone.
                return;
            }
        }
    });
}

/// Resolves on SIGTERM or SIGINT (Ctrl-C).
pub async fn termination() {
    let interrupt = async {
        let _ = tokio::signal::ctrl_c().await;
    };
    #[cfg(unix)]
    {
        let term = async {
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(mut s) => {
                    s.recv().await;
                }
                Err(_) => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = interrupt => {}
            () = term => {}
        }
    }
    #[cfg(not(unix))]
    interrupt.await;
}
